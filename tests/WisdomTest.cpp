// The wisdom store (runtime/Wisdom.cpp): round trip, spec matching, devices kept apart, corrupt and unsafe
// files ignored with a warning, clear; and `warpforge wisdom list|clear` as a user runs it. No GPU needed.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <fmt/format.h>

#include "TestUtil.h"
#include "warpforge/wisdom.h"

using namespace warpforge;
namespace fs = std::filesystem;

namespace {

std::string freshDir(const std::string& name) {
  std::string d = ::testing::TempDir() + "/wf_wisdom_" + name + "_" + std::to_string(::getpid());
  fs::remove_all(d);
  return d;
}

const WisdomDevice kH100{"NVIDIA H100 80GB HBM3", "sm_90", 13000};
const WisdomDevice kH100OtherDriver{"NVIDIA H100 80GB HBM3", "sm_90", 12080};
const WisdomDevice kA100{"NVIDIA A100-SXM4-80GB", "sm_80", 13000};

Json spec(const std::string& name = "fft_1000", long long length = 1000) {
  return Json::parse(
      fmt::format(R"({{"name": "{}", "family": "fam", "precision": "f32", "length": {}, "transform": "c2c"}})", name,
                  length));
}
const Json kMembers = Json::parse(R"({"tuning": {"threads_per_fft": 8, "register_target": 96}})");

warpforge::test::CliResult cli(const std::string& env, const std::string& args) {
  return warpforge::test::runCli(args, env);
}

}  // namespace

TEST(Wisdom, RoundTripAndApply) {
  Wisdom w(freshDir("roundtrip"));
  EXPECT_FALSE(w.find(spec(), kH100));
  ASSERT_TRUE(w.record(spec(), kH100, kMembers, 0.5, 0.8)) << (w.warnings().empty() ? "" : w.warnings()[0]);
  auto e = Wisdom(fs::path(w.path()).parent_path()).find(spec(), kH100);  // a new object: read from the disk
  ASSERT_TRUE(e);
  EXPECT_EQ(e->members, kMembers);
  EXPECT_EQ(e->specName, "fft_1000");
  EXPECT_EQ(e->device, kH100);
  EXPECT_DOUBLE_EQ(e->ms, 0.5);
  EXPECT_DOUBLE_EQ(e->asGivenMs, 0.8);
  EXPECT_EQ(e->date.size(), 20u) << e->date;  // 2026-11-23T12:34:56Z

  std::string note;
  Json applied = applyWisdom(spec(), kH100, &note, w);
  EXPECT_EQ(applied["tuning"], kMembers["tuning"]);
  EXPECT_EQ(applied["length"], 1000);
  EXPECT_NE(note.find("using wisdom from " + e->date), std::string::npos) << note;
  EXPECT_NE(note.find("1.60x"), std::string::npos) << note;
}

TEST(Wisdom, MatchesTheSameTransformOnly) {
  Wisdom w(freshDir("match"));
  ASSERT_TRUE(w.record(spec(), kH100, kMembers));
  Json renamed = spec("another_name");
  renamed["description"] = "the same transform under another name";
  EXPECT_TRUE(w.find(renamed, kH100)) << "name and description are not part of the key";
  // Member order does not matter.
  Json reordered = Json::parse(
      R"({"transform": "c2c", "length": 1000, "precision": "f32", "family": "fam", "name": "x"})");
  EXPECT_TRUE(w.find(reordered, kH100));
  EXPECT_FALSE(w.find(spec("fft_1000", 1001), kH100)) << "another length";
  Json f64 = spec();
  f64["precision"] = "f64";
  EXPECT_FALSE(w.find(f64, kH100)) << "another precision";
  EXPECT_EQ(Wisdom::specKey(spec(), kMembers), Wisdom::specKey(renamed, kMembers));
  EXPECT_NE(Wisdom::specKey(spec(), kMembers), Wisdom::specKey(f64, kMembers));
}

TEST(Wisdom, SpecWithItsOwnTuningIsLeftAlone) {
  Wisdom w(freshDir("own"));
  ASSERT_TRUE(w.record(spec(), kH100, kMembers));
  Json own = spec();
  own["tuning"] = Json::parse(R"({"threads_per_fft": 4})");
  EXPECT_TRUE(w.find(own, kH100)) << "the key leaves the members wisdom sets out";
  std::string note;
  EXPECT_EQ(applyWisdom(own, kH100, &note, w), own);
  EXPECT_NE(note.find("not used: the spec gives its own tuning"), std::string::npos) << note;
}

TEST(Wisdom, OtherDevicesAreIgnored) {
  Wisdom w(freshDir("devices"));
  ASSERT_TRUE(w.record(spec(), kH100, kMembers));
  EXPECT_FALSE(w.find(spec(), kA100));
  EXPECT_FALSE(w.find(spec(), kH100OtherDriver)) << "another driver version is another device";
  std::string note = "stale";
  EXPECT_EQ(applyWisdom(spec(), kA100, &note, w), spec());
  EXPECT_EQ(note, "");
  // Each device keeps its own entry; recording again replaces, never duplicates.
  const Json other = Json::parse(R"({"tuning": {"threads_per_fft": 16}})");
  ASSERT_TRUE(w.record(spec(), kA100, other));
  ASSERT_TRUE(w.record(spec(), kH100, other));
  EXPECT_EQ(w.entries().size(), 2u);
  EXPECT_EQ(w.find(spec(), kH100)->members, other);
  EXPECT_EQ(w.find(spec(), kA100)->members, other);
}

TEST(Wisdom, CorruptFileIsIgnoredWithAWarningAndReplaced) {
  const std::string dir = freshDir("corrupt");
  Wisdom w(dir);
  ASSERT_TRUE(w.record(spec(), kH100, kMembers));
  for (const char* junk : {"{\"format\": \"warpforge-wisdom-1\", \"entries\": [", "not json at all", "[1, 2, 3]",
                           "{\"format\": \"something-else\", \"entries\": []}"}) {
    std::ofstream(w.path(), std::ios::trunc) << junk;
    Wisdom r(dir);
    EXPECT_FALSE(r.find(spec(), kH100)) << junk;
    ASSERT_FALSE(r.warnings().empty()) << junk;
    EXPECT_NE(r.warnings()[0].find("corrupt"), std::string::npos) << r.warnings()[0];
    EXPECT_EQ(applyWisdom(spec(), kH100, nullptr, r), spec());
  }
  Wisdom again(dir);
  EXPECT_TRUE(again.record(spec(), kH100, kMembers));
  EXPECT_TRUE(Wisdom(dir).find(spec(), kH100));
}

TEST(Wisdom, MalformedEntriesAreSkippedOthersKept) {
  const std::string dir = freshDir("malformed");
  Wisdom w(dir);
  ASSERT_TRUE(w.record(spec(), kH100, kMembers));
  Json root = Json::parse(test::readFile(w.path()));
  root["entries"].push_back(Json::parse(R"({"device": {"name": 3}, "spec_key": "x", "members": {}})"));
  root["entries"].push_back(Json::parse(R"({"spec_key": "y", "members": []})"));
  std::ofstream(w.path(), std::ios::trunc) << root.dump();
  Wisdom r(dir);
  EXPECT_EQ(r.entries().size(), 1u);
  EXPECT_TRUE(r.find(spec(), kH100));
  ASSERT_FALSE(r.warnings().empty());
  EXPECT_NE(r.warnings()[0].find("2 malformed entries"), std::string::npos) << r.warnings()[0];
}

TEST(Wisdom, FilesAreOursOnly) {
  const std::string dir = freshDir("safety");
  Wisdom w(dir);
  ASSERT_TRUE(w.record(spec(), kH100, kMembers));
  struct stat st;
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat(w.path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // A link in place of the file is not followed.
  const std::string target = dir + "/elsewhere.json";
  fs::rename(w.path(), target);
  fs::create_symlink(target, w.path());
  Wisdom linked(dir);
  EXPECT_FALSE(linked.find(spec(), kH100));
  ASSERT_FALSE(linked.warnings().empty());
  EXPECT_NE(linked.warnings()[0].find("symbolic link"), std::string::npos) << linked.warnings()[0];
  fs::remove(w.path());
  fs::rename(target, w.path());
  // A directory others may write to is not used, for reading or writing.
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  Wisdom open(dir);
  EXPECT_FALSE(open.find(spec(), kH100));
  EXPECT_FALSE(open.record(spec(), kA100, kMembers));
  ASSERT_FALSE(open.warnings().empty());
  EXPECT_NE(open.warnings().back().find("writable by others"), std::string::npos) << open.warnings().back();
  ASSERT_EQ(::chmod(dir.c_str(), 0700), 0);
  EXPECT_TRUE(Wisdom(dir).find(spec(), kH100));
}

TEST(Wisdom, ClearPerDeviceAndAll) {
  const std::string dir = freshDir("clear");
  Wisdom w(dir);
  EXPECT_EQ(w.clear(), 0) << "nothing to clear";
  ASSERT_TRUE(w.record(spec(), kH100, kMembers));
  ASSERT_TRUE(w.record(spec("b", 2000), kH100, kMembers));
  ASSERT_TRUE(w.record(spec(), kA100, kMembers));
  EXPECT_EQ(w.clear(kH100), 2);
  EXPECT_FALSE(w.find(spec(), kH100));
  EXPECT_TRUE(w.find(spec(), kA100));
  EXPECT_EQ(w.clear(), 1);
  EXPECT_FALSE(fs::exists(w.path()));
  EXPECT_TRUE(w.entries().empty());
  std::ofstream(w.path()) << "corrupt";  // clear removes a corrupt file too
  EXPECT_EQ(w.clear(), 0);
  EXPECT_FALSE(fs::exists(w.path()));
}

TEST(Wisdom, ConcurrentRecordsAreAllKept) {
  const std::string dir = freshDir("concurrent");
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] { EXPECT_TRUE(Wisdom(dir).record(spec("s", 100 + t), kH100, kMembers)); });
  for (auto& t : threads) t.join();
  EXPECT_EQ(Wisdom(dir).entries().size(), 8u) << "read-modify-write is locked: no update lost";
  int temporaries = 0;
  for (const auto& e : fs::directory_iterator(dir)) temporaries += e.path().extension() == ".tmp";
  EXPECT_EQ(temporaries, 0);
}

TEST(WisdomCli, ListAndClear) {
  const std::string dir = freshDir("cli");
  const std::string env = "WARPFORGE_CACHE_DIR=" + dir;
  auto r = cli(env, "wisdom list");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("no wisdom in " + dir + "/wisdom.json"), std::string::npos) << r.out;
  Wisdom w(dir);
  ASSERT_TRUE(w.record(spec("my_fft"), kH100, kMembers, 0.25, 0.5));
  r = cli(env, "wisdom list");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("1 wisdom entry"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NVIDIA H100 80GB HBM3 (sm_90, driver 13.0)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("my_fft"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"threads_per_fft\":8"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2.00x the defaults"), std::string::npos) << r.out;
  r = cli(env, "wisdom clear");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("removed 1 wisdom entry"), std::string::npos) << r.out;
  r = cli(env, "wisdom list");
  EXPECT_NE(r.out.find("no wisdom"), std::string::npos) << r.out;
  // A corrupt file: listed as none, with a warning, exit 0.
  std::ofstream(dir + "/wisdom.json") << "{ broken";
  r = cli(env, "wisdom list");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("warning: wisdom: " + dir + "/wisdom.json: ignored (corrupt"), std::string::npos) << r.out;
  r = cli(env, "wisdom forget");
  EXPECT_EQ(r.code, 2) << r.out;
  r = cli(env, "wisdom");
  EXPECT_EQ(r.code, 2) << r.out;
}
