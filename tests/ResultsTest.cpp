// Results as data: the record format, bench/RESULTS.md generated from bench/results.jsonl, the CLI around them.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>

#include "TestUtil.h"
#include "bench/Results.h"

namespace warpforge {
namespace {

using Json = nlohmann::ordered_json;

ResultRecord record(const std::string& family, const std::string& caseName, const std::string& device,
                    const std::string& date, double ratio) {
  ResultRecord r;
  r.family = family;
  r.caseName = caseName;
  r.device = device;
  r.date = date;
  r.command = "warpforge bench specs/" + caseName + ".json";
  r.figure = "1.0 ms";
  r.anchor = "cuFFT 1.1 ms";
  r.ratio = ratio;
  return r;
}

std::string tempFile(const char* tag) { return testing::TempDir() + "/wf_results_" + tag + ".jsonl"; }

TEST(Results, RecordsRoundTripAndBadRecordsNameTheLineAndMember) {
  ResultRecord r = record("stockham", "c2c_f32_4096", "H100", "2026-11-27", 1.25);
  r.metrics["ms"] = 0.1932;
  r.note = "seed 7";
  const ResultRecord back = resultFromJson(resultToJson(r), "x");
  EXPECT_EQ(resultToJson(back), resultToJson(r));

  auto errorOf = [](const std::string& line) -> std::string {
    try {
      resultFromJson(Json::parse(line), "f.jsonl:3");
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(no error)";
  };
  Json good = resultToJson(r);
  Json j = good;
  j.erase("device");
  EXPECT_EQ(errorOf(j.dump()), "f.jsonl:3: missing \"device\" (a string)");
  j = good;
  j["date"] = "27.11.2026";
  EXPECT_EQ(errorOf(j.dump()), "f.jsonl:3: \"date\" 27.11.2026 is not YYYY-MM-DD");
  j = good;
  j["ratio"] = "1.2x";
  EXPECT_NE(errorOf(j.dump()).find("\"ratio\" must be a number"), std::string::npos);
  j = good;
  j["figures"] = 1;
  EXPECT_EQ(errorOf(j.dump()), "f.jsonl:3: unknown member \"figures\"");
  j = good;
  j["metrics"]["ms"] = "fast";
  EXPECT_EQ(errorOf(j.dump()), "f.jsonl:3: metrics.ms must be a number");
  EXPECT_EQ(errorOf(good.dump()), "(no error)");
}

TEST(Results, AppendThenReadKeepsEveryRecordAndNamesABadLine) {
  const std::string path = tempFile("append");
  std::remove(path.c_str());
  appendResult(path, record("beamformer", "chord", "H100", "2026-11-24", 11.3));
  appendResult(path, record("beamformer", "chord", "H100", "2026-11-28", 11.9));
  ASSERT_EQ(readResults(path).size(), 2u);
  EXPECT_EQ(*readResults(path)[1].ratio, 11.9);
  std::ofstream(path, std::ios::app) << "\n{\"family\": \"x\"\n";
  try {
    readResults(path);
    ADD_FAILURE() << "a truncated line was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":4: not JSON"), std::string::npos) << e.what();
  }
  ResultRecord bad = record("beamformer", "chord", "H100", "yesterday", 1);
  EXPECT_THROW(appendResult(path, bad), std::invalid_argument);  // never writes a record the reader would refuse
  std::remove(path.c_str());
}

TEST(Results, MarkdownKeepsTheNewestRecordOfEachCaseAndDevice) {
  std::vector<ResultRecord> rs = {
      record("stockham", "sweep", "H100", "2026-11-25", 1.30),
      record("correlator", "tcc_8bit_r64", "H200", "2026-11-28", 0.81),
      record("stockham", "sweep", "H100", "2026-11-27", 1.344),
      record("stockham", "sweep", "H200", "2026-11-28", 1.22),
      record("stockham", "sweep", "H100", "2026-11-26", 1.36),  // older than the 11-27 line: not current
  };
  rs[1].note = "TCC's op count | a pipe";
  const std::string md = resultsMarkdown(rs, "bench/results.jsonl");
  EXPECT_NE(md.find("| sweep | 1.0 ms | cuFFT 1.1 ms | 1.34x | H100 | 2026-11-27 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| sweep | 1.0 ms | cuFFT 1.1 ms | 1.22x | H200 | 2026-11-28 |"), std::string::npos) << md;
  EXPECT_EQ(md.find("1.30x"), std::string::npos) << md;
  EXPECT_EQ(md.find("1.36x"), std::string::npos) << md;
  EXPECT_LT(md.find("## correlator"), md.find("## stockham"));  // families in name order
  EXPECT_NE(md.find("| tcc_8bit_r64 (1) |"), std::string::npos) << md;
  EXPECT_NE(md.find("(1) TCC's op count \\| a pipe"), std::string::npos) << md;  // a pipe cannot break the table
}

TEST(Results, ResultsMdIsGeneratedFromTheResultsFile) {
  const std::string source = "bench/results.jsonl";
  const std::vector<ResultRecord> rs = readResults(test::sourcePath(source));
  std::set<std::string> families;
  for (const auto& r : rs) families.insert(r.family);
  EXPECT_GE(families.size(), 5u) << "every family has its current figures";
  EXPECT_EQ(test::readFile(test::sourcePath("bench/RESULTS.md")), resultsMarkdown(rs, source))
      << "bench/RESULTS.md is out of date: run `build/warpforge results bench/results.jsonl -o bench/RESULTS.md`";
}

#ifdef WARPFORGE_CLI
TEST(Results, CliPrintsTheTablesAndRefusesRecordsOfNothing) {
  auto r = test::runCli("results " + test::sourcePath("bench/results.jsonl"));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out, resultsMarkdown(readResults(test::sourcePath("bench/results.jsonl")),
                                   test::sourcePath("bench/results.jsonl")));
  const std::string bad = tempFile("bad");
  std::ofstream(bad) << "{\"family\": \"x\"}\n";
  r = test::runCli("results " + bad);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(bad + ":1: missing \"case\""), std::string::npos) << r.out;
  std::remove(bad.c_str());
  r = test::runCli("bench --sweep stockham --dry-run --cases 1 --record " + tempFile("none"));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--record: a --dry-run measures nothing"), std::string::npos) << r.out;
}
#endif

}  // namespace
}  // namespace warpforge
