// The README is a manual that keeps its promises: every spec it shows verifies, every family has its paragraph
// and spec, every subcommand its row, every link a target; it stays short, and its results are the current ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "TestUtil.h"
#include "warpforge/family.h"

namespace warpforge {
namespace {

std::string readme() { return test::readFile(test::sourcePath("README.md")); }

// The ```json blocks of `text`, in order.
std::vector<std::string> jsonBlocks(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t at = text.find("```json\n"); at != std::string::npos; at = text.find("```json\n", at + 1)) {
    const std::size_t begin = at + 8, end = text.find("```", begin);
    if (end == std::string::npos) break;
    out.push_back(text.substr(begin, end - begin));
  }
  return out;
}

// The text of the section that starts with `heading` (a markdown heading line), up to the next heading of its level or
// above.
std::string section(const std::string& text, const std::string& heading) {
  const std::size_t at = text.find("\n" + heading + "\n");
  if (at == std::string::npos) return {};
  const std::string level = heading.substr(0, heading.find(' ') + 1);  // "### "
  std::size_t end = at + heading.size() + 2;
  while (true) {
    end = text.find("\n#", end);
    if (end == std::string::npos) break;
    const std::size_t hashes = text.find_first_not_of('#', end + 1) - end - 1;
    if (hashes <= level.size() - 1 && text[end + 1 + hashes] == ' ') break;
    ++end;
  }
  return text.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1);
}

TEST(Readme, EveryJsonBlockIsASpecThatVerifies) {
  int n = 0;
  for (const auto& block : jsonBlocks(readme())) {
    SCOPED_TRACE(block.substr(0, 120));
    // pfb arrives from another branch: its block is checked once the family is in the build (any other unknown
    // family, a typo included, fails here).
    const std::string family = nlohmann::json::parse(block).value("family", "");
    if (family == "pfb" && !findFamily(family) && !std::filesystem::exists(test::sourcePath("generator/pfb"))) continue;
    auto spec = parseSpecText(block, "README.md block " + std::to_string(++n));
    EXPECT_NO_THROW(spec->verify());
  }
  EXPECT_GE(n, 5) << "one example per family";
}

TEST(Readme, EveryFamilyHasAParagraphAndOneSpecOfItsOwn) {
  const std::string text = readme();
  for (const Family* f : families()) {
    SCOPED_TRACE(f->name());
    const std::string s = section(text, "### `" + f->name() + "`");
    ASSERT_FALSE(s.empty()) << "README.md has no section \"### `" << f->name() << "`\" under Families";
    const auto blocks = jsonBlocks(s);
    ASSERT_EQ(blocks.size(), 1u) << "a family's section shows one spec";
    EXPECT_EQ(nlohmann::json::parse(blocks[0]).value("family", ""), f->name());
    EXPECT_NE(s.find("(docs/" + f->name() + ".md)"), std::string::npos) << "the section links the family's reference";
    const std::string paragraph = s.substr(s.find('\n') + 1, s.find("```") - s.find('\n') - 1);
    EXPECT_GE(std::count(paragraph.begin(), paragraph.end(), ' '), 30) << "a paragraph says what the family makes";
  }
}

TEST(Readme, StaysAManual) {
  const std::string text = readme();
  EXPECT_LE(std::count(text.begin(), text.end(), '\n'), 300) << "README.md is a manual of at most 300 lines";
  // No lab notebook: no session or issue numbers, no seeds, no speed-up histories.
  const std::regex notebook(R"([Ss]ession [0-9]|[Ii]ssue [0-9]|[Ss]eed [0-9]{6}|[0-9]\.[0-9]+x ->)");
  std::smatch m;
  EXPECT_FALSE(std::regex_search(text, m, notebook)) << "notebook text in README.md: " << m.str();
  for (const char* required : {"## The two commands", "scripts/demo", "scripts/test", "## Use it from C++",
                               "## Use it from Python", "## CLI", "## Limits", "## Results"})
    EXPECT_NE(text.find(required), std::string::npos) << required;
  EXPECT_EQ(text.find("../shared"), std::string::npos);
  EXPECT_EQ(text.find("](../"), std::string::npos);
}

TEST(Readme, EveryLinkHasATarget) {
  // References that other branches add; while one is missing it is allowed, once it exists it is checked like any.
  const std::set<std::string> pending = {"docs/tc_fft.md", "docs/stockham.md",     "docs/pfb.md",
                                         "docs/python.md", "docs/dependencies.md", "docs/scaling.md"};
  const std::string text = readme();
  const std::regex link(R"(\]\(([^)#]+)\))");
  int links = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), link); it != std::sregex_iterator(); ++it) {
    const std::string target = (*it)[1];
    if (target.rfind("http", 0) == 0) continue;
    ++links;
    if (pending.count(target) && !std::filesystem::exists(test::sourcePath(target))) continue;
    EXPECT_TRUE(std::filesystem::exists(test::sourcePath(target)))
        << "README.md links " << target << ", which does not exist";
  }
  EXPECT_GE(links, 8);
  for (const char* doc : {"docs/correlator.md", "docs/beamformer.md", "docs/gridder.md", "docs/layout-notation.md",
                          "docs/architecture.md"})
    EXPECT_NE(text.find(std::string("(") + doc + ")"), std::string::npos) << doc;
}

TEST(Readme, EveryCliSubcommandHasARow) {
  const std::string help = test::runCli("--help").out;
  const std::string cli = section(readme(), "## CLI");
  ASSERT_FALSE(cli.empty());
  std::istringstream lines(help.substr(help.find("Subcommands:")));
  std::string line;
  std::getline(lines, line);
  int n = 0;
  while (std::getline(lines, line) && line.rfind("  ", 0) == 0) {
    const std::string name = line.substr(2, line.find(' ', 2) - 2);
    ++n;
    EXPECT_NE(cli.find("`warpforge " + name), std::string::npos)
        << "the CLI table has no row for `warpforge " << name << "`";
  }
  EXPECT_GE(n, 9) << help;
}

TEST(Readme, ResultsAreTheCurrentRecords) {
  // One row per family, each dated as a record of that family in bench/results.jsonl.
  std::map<std::string, std::set<std::string>> dates;
  std::istringstream records(test::readFile(test::sourcePath("bench/results.jsonl")));
  std::string line;
  while (std::getline(records, line))
    if (!line.empty()) {
      const auto j = nlohmann::json::parse(line);
      dates[j.at("family").get<std::string>()].insert(j.at("date").get<std::string>());
    }
  const std::string results = section(readme(), "## Results");
  const std::regex row(R"(\n\| `([a-z_]+)` \|[^\n]*\| [^|\n]*, ([0-9]{4}-[0-9]{2}-[0-9]{2}) \|)");
  std::set<std::string> rows;
  for (auto it = std::sregex_iterator(results.begin(), results.end(), row); it != std::sregex_iterator(); ++it) {
    const std::string family = (*it)[1], date = (*it)[2];
    rows.insert(family);
    EXPECT_TRUE(dates[family].count(date))
        << "README.md's " << family << " result (" << date << ") is not a record of bench/results.jsonl";
  }
  EXPECT_EQ(rows.size(), families().size()) << "a short results table, one line per family";
  for (const auto& family : rows)
    EXPECT_NE(findFamily(family), nullptr) << "the results table names " << family << ", which is no family";
}

}  // namespace
}  // namespace warpforge
