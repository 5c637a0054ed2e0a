// The spec reference is complete: every member a family's parser accepts, in every object that the
// specs in specs/, the README's examples and the family's sweep draws reach, is named (in backquotes)
// in that family's reference: its README.md section and generator/<family>/README.md.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "bench/Facets.h"
#include "generator/core/JsonReader.h"
#include "warpforge/family.h"
#include "TestUtil.h"

namespace warpforge {
namespace {

// JSON pointer of an object -> the keys its parser accepts, for the spec being parsed.
std::map<std::string, std::set<std::string>>* gSeen = nullptr;

void observe(const std::string& path, const std::vector<std::string>& allowed) {
  if (!gSeen) return;
  for (const auto& key : allowed) (*gSeen)[path].insert(key);
}

std::string familyReference(const std::string& family) {
  const std::string readme = test::readFile(test::sourcePath("README.md"));
  std::string text;
  // The members every family shares (name, family, description) are stated once, before the families.
  if (auto intro = readme.find("## Families"); intro != std::string::npos)
    text = readme.substr(intro, readme.find("\n### ", intro) - intro);
  const std::string heading = "### `" + family + "`";
  if (auto at = readme.find(heading); at != std::string::npos) {
    auto end = readme.find("\n## ", at);
    auto next = readme.find("\n### ", at + 1);
    text += readme.substr(at, std::min(end, next) - at);
  }
  const auto own = std::filesystem::path(test::sourcePath("generator")) / family / "README.md";
  if (std::filesystem::exists(own)) text += test::readFile(own.string());
  // The member reference proper: docs/<family>.md.
  const auto doc = std::filesystem::path(test::sourcePath("docs")) / (family + ".md");
  if (std::filesystem::exists(doc)) text += test::readFile(doc.string());
  return text;
}

TEST(SpecReference, EveryAcceptedMemberIsDocumented) {
  std::map<std::string, std::map<std::string, std::set<std::string>>> byFamily;  // family -> path -> keys
  auto record = [&](const Json& spec, const std::string& origin) {
    const std::string family = spec.value("family", std::string());
    std::map<std::string, std::set<std::string>> seen;
    gSeen = &seen;
    try {
      parseSpec(spec, origin);
    } catch (const std::exception&) {
      // specs a family cannot build yet still state their keys up to the error
    }
    gSeen = nullptr;
    for (auto& [path, keys] : seen) byFamily[family][path].insert(keys.begin(), keys.end());
  };
  allowedKeysObserver() = observe;
  for (const auto& entry : std::filesystem::directory_iterator(test::sourcePath("specs")))
    if (entry.path().extension() == ".json")
      record(Json::parse(test::readFile(entry.path().string())), entry.path().string());
  const std::string readme = test::readFile(test::sourcePath("README.md"));
  for (std::size_t at = readme.find("```json\n"); at != std::string::npos; at = readme.find("```json\n", at + 1)) {
    const std::size_t begin = at + 8;
    record(Json::parse(readme.substr(begin, readme.find("```", begin) - begin)), "README.md");
  }
  for (const Family* f : families())
    if (const SweepFacet* sweep = sweepFacet(*f))
      for (const auto& s : sweep->sweepSpecs(2026, 200)) record(s.spec, f->name() + " sweep");
  allowedKeysObserver() = nullptr;

  ASSERT_EQ(byFamily.size(), families().size()) << "a family none of the specs reach";
  int keys = 0;
  for (const auto& [family, paths] : byFamily) {
    SCOPED_TRACE(family);
    const std::string reference = familyReference(family);
    ASSERT_FALSE(reference.empty()) << "no reference for family " << family;
    for (const auto& [path, allowed] : paths)
      for (const auto& key : allowed) {
        ++keys;
        // `key`, or a dotted path ending in it (`tuning.key`)
        const bool named = reference.find("`" + key + "`") != std::string::npos ||
                           reference.find("." + key + "`") != std::string::npos;
        EXPECT_TRUE(named) << "member '" << key << "' (accepted at " << (path.empty() ? "/" : path)
                           << ") is not named in the " << family << " reference (README.md section, generator/"
                           << family << "/README.md or docs/" << family << ".md)";
      }
  }
  EXPECT_GT(keys, 60);
}

}  // namespace
}  // namespace warpforge
