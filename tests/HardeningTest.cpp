// Hostile specs: every one is a SpecError naming the file and the JSON path,
// fast, never a crash, a stoi escape (exit 3) or a silently different kernel.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <climits>
#include <ctime>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "bench/Facets.h"
#include "generator/core/JsonReader.h"
#include "generator/tc_fft/TcFftFamily.h"
#include "generator/tc_fft/TcFftParser.h"
#include "runtime/Nvrtc.h"
#include "templates/Embedded.h"
#include "warpforge/family.h"
#include "warpforge/spec_error.h"
#include "TestUtil.h"

using namespace warpforge;

namespace {
std::string chimeText() { return test::readFile(test::sourcePath(test::kChimeSpec)); }
Json chime() { return Json::parse(chimeText()); }

struct Caught {
  bool thrown = false;
  std::string file, path, detail;
};

// Parses (and verifies) `text` through the family registry, as `warpforge verify` does.
Caught specError(const std::string& text, const std::string& file = "hostile.json") {
  Caught c;
  try {
    parseSpecText(text, file)->verify();
  } catch (const SpecError& e) {
    c = {true, e.file(), e.path(), e.detail()};
  }
  return c;
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + "." + std::to_string(::getpid()))).string();
}
}  // namespace

// ---- JSON: depth, duplicate keys, size ---------------------------------------------------

TEST(Hardening, DeeplyNestedJsonIsASpecErrorNotAStackOverflow) {
  for (const char* open : {"[", "{\"a\":"}) {
    std::string text;
    const int depth = 60000;
    for (int i = 0; i < depth; ++i) text += open;
    text += "1";
    for (int i = 0; i < depth; ++i) text += open[0] == '[' ? "]" : "}";
    Caught c = specError(text);
    ASSERT_TRUE(c.thrown) << open;
    EXPECT_NE(c.detail.find("nested deeper than"), std::string::npos) << c.detail;
  }
  // Inside a spec: the path names where the limit was crossed.
  Json j = chime();
  std::string deep(100, '[');
  std::string text = chimeText();
  text.replace(text.find("\"f16\""), 5, deep + std::string(100, ']'));
  Caught c = specError(text);
  ASSERT_TRUE(c.thrown);
  EXPECT_EQ(c.path.rfind("/precision/0/0/0", 0), 0u) << c.path;
  // A spec at a plausible depth still parses.
  EXPECT_NO_THROW(parseJsonText(std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']'), "ok.json"));
}

TEST(Hardening, DuplicateKeysAreRejectedWithThePath) {
  struct Case {
    std::string from, to, path;
  };
  const std::vector<Case> cases = {
      {"\"name\": \"chime_fft_256_512\",", "\"name\": \"chime_fft_256_512\", \"name\": \"other\",", "/name"},
      {"\"n_out\": 512,", "\"n_out\": 512, \"n_out\": 1024,", "/transform/n_out"},
      {"\"X\":        { \"description\": \"eq. 13\",",
       "\"X\":        { \"description\": \"eq. 13\", \"description\": \"again\",", "/arrays/X/description"},
      {"\"Y\":        {", "\"X\": {}, \"Y\":        {", "/arrays/X"},
      {"\"sum\": [\"n6\", \"n7\"]", "\"sum\": [\"n6\", \"n7\"], \"a\": \"E_X_Z1\"", "/steps/0/a"},
  };
  for (const auto& k : cases) {
    std::string text = chimeText();
    auto at = text.find(k.from);
    ASSERT_NE(at, std::string::npos) << k.from;
    text.replace(at, k.from.size(), k.to);
    Caught c = specError(text);
    ASSERT_TRUE(c.thrown) << k.to;
    EXPECT_EQ(c.path, k.path) << c.detail;
    EXPECT_NE(c.detail.find("duplicate key"), std::string::npos) << c.detail;
  }
  // The same key in sibling objects is fine.
  EXPECT_NO_THROW(parseJsonText(R"({"a": {"k": 1}, "b": {"k": 2}, "c": [{"k": 1}, {"k": 2}]})", "ok.json"));
  // Keys with '/' and '~' are escaped in the pointer.
  try {
    parseJsonText(R"({"x": [0, {"a/b~": 1, "a/b~": 2}]})", "dup.json");
    FAIL();
  } catch (const SpecError& e) {
    EXPECT_EQ(e.path(), "/x/1/a~1b~0");
  }
}

TEST(Hardening, OversizedSpecFilesAreRefusedBeforeReading) {
  // A sparse 200 MB file: refused from its size alone (no read, no parse, no memory).
  const std::string big = tempPath("warpforge_big_spec.json");
  { std::ofstream(big).put('{'); }
  std::filesystem::resize_file(big, 200ull << 20);
  auto t0 = std::chrono::steady_clock::now();
  try {
    loadSpec(big);
    ADD_FAILURE() << "accepted";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.file(), big);
    EXPECT_NE(e.detail().find("limit"), std::string::npos) << e.detail();
  }
  EXPECT_LT(secondsSince(t0), 1.0);
  std::filesystem::remove(big);
  // Text handed in directly has the same limit.
  EXPECT_THROW(parseJsonText(std::string(kMaxSpecBytes + 1, ' '), "big.json"), SpecError);
  // A directory is named as such.
  try {
    readSpecFileText(std::filesystem::temp_directory_path().string());
    FAIL();
  } catch (const SpecError& e) {
    EXPECT_NE(e.detail().find("directory"), std::string::npos) << e.detail();
  }
}

// ---- Numbers --------------------------------------------------------------------------

TEST(Hardening, NumbersOutOfRangeNeverWrapOrEscape) {
  struct Case {
    std::string from, to, path, says;
  };
  const std::vector<Case> cases = {
      {"\"sign\": 1", "\"sign\": 18446744073709551615", "/transform/sign", "out of range"},  // was taken as -1
      {"\"sign\": 1", "\"sign\": 9223372036854775808", "/transform/sign", "out of range"},
      {"\"n_in\": 256", "\"n_in\": 1e400", "/transform/n_in", "out of range"},  // was exit 3 (nlohmann out_of_range)
      {"\"n_in\": 256", "\"n_in\": -1e400", "/transform/n_in", "out of range"},
      {"\"n_in\": 256", "\"n_in\": 1e300", "/transform/n_in", "non-integer"},
      {"\"n_in\": 256", "\"n_in\": 256.0", "/transform/n_in", "non-integer"},
      {"\"n_in\": 256", "\"n_in\": " + std::string(400, '9'), "/transform/n_in", "out of range"},
      {"\"n_in\": 256", "\"n_in\": -" + std::string(400, '9'), "/transform/n_in", "out of range"},
      {"\"n_in\": 256", "\"n_in\": -9223372036854775809", "/transform/n_in", "non-integer"},
      {"\"warps_per_block\": 4", "\"warps_per_block\": 4294967300", "/launch/warps_per_block", "out of range"},
  };
  for (const auto& k : cases) {
    std::string text = chimeText();
    text.replace(text.find(k.from), k.from.size(), k.to);
    Caught c = specError(text);
    ASSERT_TRUE(c.thrown) << k.to;
    EXPECT_EQ(c.path, k.path) << c.detail;
    EXPECT_NE(c.detail.find(k.says), std::string::npos) << c.detail;
  }
  JsonReader rd("r.json");
  EXPECT_EQ(rd.integer(Json::parse("9223372036854775807"), "/v", 0, LLONG_MAX), LLONG_MAX);
  EXPECT_EQ(rd.integer(Json::parse("-9223372036854775808"), "/v", LLONG_MIN, 0), LLONG_MIN);
}

// ---- Layouts ----------------------------------------------------------------------------

TEST(Hardening, LayoutTokensOfAnyLengthFailFastWithThePath) {
  struct Case {
    std::string layout, says;
  };
  const std::vector<Case> cases = {
      {"b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r <-> n2 n1 n99999999999", "out of range"},  // was "error: stoi"
      {"b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r <-> n2 n1 n" + std::string(50000, '9'),
       "out of range"},  // was std::regex recursion
      {"b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r99999999999 <-> n0", "out of range"},
      {"b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r" + std::string(50000, '7') + " <-> n0", "out of range"},
      {"b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r <-> n2 n1 n00", "leading zero"},
      {"b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r <-> n2 n1 n0" + std::string(3 << 20, ' ') + "x",
       "cannot read logical"},
      {"b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r <-> n2 n1 n0 " +
           [] {
             std::string s;
             while (s.size() < (3u << 20)) s += "q1 ";
             return s;
           }(),
       "more than 32 bits"},
      {[] {
         std::string s = "b <-> ReIm";
         while (s.size() < (3u << 20)) s += ", t0 <-> n0";
         return s;
       }(),
       "twice"},
      {"b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r <-> n2 n1 n0" + std::string(3 << 20, '\n'),
       ""},  // accepted: whitespace
  };
  for (const auto& k : cases) {
    Json j = chime();
    j["arrays"]["X"]["layout"] = k.layout;
    auto t0 = std::chrono::steady_clock::now();
    Caught c = specError(j.dump());
    EXPECT_LT(secondsSince(t0), 5.0) << k.says;
    if (k.says.empty()) {
      EXPECT_FALSE(c.thrown) << c.detail;
      continue;
    }
    ASSERT_TRUE(c.thrown) << k.says;
    EXPECT_EQ(c.path, "/arrays/X/layout") << c.detail;
    EXPECT_NE(c.detail.find(k.says), std::string::npos) << c.detail;
    EXPECT_LT(c.detail.size(), 400u) << "messages quote user text shortened";
  }
}

// ---- Names ------------------------------------------------------------------------------

namespace {
std::string emittedSource(const Json& j, const std::string& file = "renamed.json") {
  auto spec = parseSpecText(j.dump(), file);
  spec->verify();
  return spec->emit({}).plan.sources.at(0).text;
}

Json renameArray(Json j, const std::string& from, const std::string& to) {
  Json arrays = Json::object();
  for (auto& [k, v] : j["arrays"].items()) arrays[k == from ? to : k] = v;
  j["arrays"] = arrays;
  for (auto& st : j["steps"])
    for (const char* r : {"a", "b", "c"})
      if (st.contains(r) && st[r] == from) st[r] = to;
  for (const char* r : {"input", "output"})
    if (j["io"][r] == from) j["io"][r] = to;
  return j;
}
}  // namespace

// Arrays named like generated identifiers, keywords or CUDA built-ins are emitted in their own
// namespace: the kernel is the same instruction for instruction (identical PTX).
TEST(Hardening, ArrayNamesNeverCollideWithGeneratedCode) {
  const std::string reference = nvrtcCompile(emittedSource(chime()), "chime", "compute_90").ptx;
  ASSERT_FALSE(reference.empty());
  const std::vector<std::pair<std::string, std::string>> renames = {
      {"Z2", "input"},     {"Z2", "stage"}, {"Z2", "fft"},       {"Z2", "lane"},         {"X", "int"},
      {"Z1", "threadIdx"}, {"Y", "printf"}, {"Z3", "Z3p_moved"}, {"E_Z1_Z2", "Z1_r0"},   {"Z2", "output"},
      {"X", "batch"},      {"Z4", "x_ptr"}, {"Z3", "m_Z3p"},     {"E_X_Z1", "a_E_X_Z1"},
  };
  for (const auto& [from, to] : renames) {
    Json j = renameArray(chime(), from, to);
    std::string src;
    ASSERT_NO_THROW(src = emittedSource(j)) << to;
    std::string ptx;
    ASSERT_NO_THROW(ptx = nvrtcCompile(src, "chime", "compute_90").ptx) << to << "\n" << src;
    EXPECT_TRUE(ptx == reference) << from << " -> " << to << ": the PTX differs";
    // The user's name appears only behind its prefix: a_<name> (data), p_<name>_r<k> (phase).
    EXPECT_TRUE(src.find("wf_u32 a_" + to + "[") != std::string::npos ||
                src.find("wf_u32 p_" + to + "_r") != std::string::npos)
        << to;
  }
}

TEST(Hardening, ReservedSpecNamesAreRejectedAtName) {
  for (const char* name : {"int", "printf", "threadIdx", "main", "__global_thing", "_Reserved", "wf_cmul",
                           "warpforge_plan", "cudaMalloc", "cuLaunchKernel", "while"}) {
    Json j = chime();
    j["name"] = name;
    Caught c = specError(j.dump());
    ASSERT_TRUE(c.thrown) << name;
    EXPECT_EQ(c.path, "/name");
    EXPECT_NE(c.detail.find("reserved"), std::string::npos) << c.detail;
  }
  for (const char* name :
       {"input", "fft", "lane", "stage", "cuda_fft", "integer", "my_wf_kernel"}) {  // legal as a kernel symbol
    Json j = chime();
    j["name"] = name;
    EXPECT_NO_THROW(emittedSource(j)) << name;
  }
  Json j = chime();
  j["name"] = std::string(65, 'k');
  EXPECT_EQ(specError(j.dump()).path, "/name");
  j = renameArray(chime(), "Z2", std::string(65, 'z'));
  EXPECT_EQ(specError(j.dump()).path, "/arrays/" + std::string(65, 'z'));
}

// The spec's file path is the user's text: it never reaches emitted source (newline / CR injection).
TEST(Hardening, SpecPathNeverReachesEmittedSource) {
  for (const std::string file :
       {"x.json\nstatic int injected_global = 42;\n//", "x.json\rstatic int injected_global = 42;",
        "dir\\\nstatic int injected_global = 42;"}) {
    auto spec = parseSpecText(chimeText(), file);
    spec->verify();
    Generated g = spec->emit({});
    for (const auto& s : g.plan.sources) {
      EXPECT_EQ(s.text.find("injected_global"), std::string::npos) << s.text.substr(0, 400);
      EXPECT_EQ(s.text.find('\r'), std::string::npos);
    }
    EXPECT_EQ(launchPlanHeader(g.plan).find("injected_global"), std::string::npos);
  }
}

// ---- verify exit 0 means emit succeeds -----------------------------------------------------

TEST(Hardening, VerifyRejectsWhatEmitCannotEmit) {
  struct Case {
    std::function<void(Json&)> mutate;
    std::string path, says;
  };
  const std::vector<Case> cases = {
      // Consistent (the relayout moves any layout), but the store needs b <-> ReIm.
      {[](Json& j) { j["arrays"]["Y"]["layout"] = "b <-> q3, t0 t1 t2 t3 t4 <-> q4 q5 q6 q7 q8, r <-> q0 q1 q2 ReIm"; },
       "/arrays/Y/layout", "b <-> ReIm"},
      // 32 warps stage 32 x 512 x 4 bytes: more static shared memory than a block may have.
      {[](Json& j) { j["launch"]["warps_per_block"] = 32; }, "/launch/warps_per_block", "shared memory"},
  };
  for (const auto& k : cases) {
    Json j = chime();
    k.mutate(j);
    auto spec = parseSpecText(j.dump(), "unemittable.json");
    try {
      spec->verify();
      ADD_FAILURE() << "verify accepted " << k.path;
    } catch (const SpecError& e) {
      EXPECT_EQ(e.path(), k.path) << e.detail();
      EXPECT_NE(e.detail().find(k.says), std::string::npos) << e.detail();
    }
    EXPECT_THROW(spec->emit({}), SpecError);
    // The layout program itself is still consistent: the emulator may run it.
    ASSERT_NE(emulateFacet(*spec), nullptr);
    EXPECT_FALSE(emulateFacet(*spec)->emulate("double", 1, 1).empty());
  }
  // 8 warps still fit (8 x 512 x 4 = 16 KiB).
  Json j = chime();
  j["launch"]["warps_per_block"] = 8;
  EXPECT_NO_THROW(emittedSource(j));
}

// ---- Limits -------------------------------------------------------------------------------

TEST(Hardening, TcFftLimitsOnWhatASpecMayAskFor) {
  {
    Json j = chime();
    for (int i = 0; i < 70; ++i) j["arrays"]["extra" + std::to_string(i)] = j["arrays"]["X"];
    Caught c = specError(j.dump());
    EXPECT_EQ(c.path, "/arrays") << c.detail;
    EXPECT_NE(c.detail.find("at most"), std::string::npos) << c.detail;
  }
  {
    Json j = chime();
    for (int i = 0; i < 70; ++i) j["steps"].push_back(j["steps"][0]);
    Caught c = specError(j.dump());
    EXPECT_EQ(c.path, "/steps") << c.detail;
  }
  {
    // 2^8 registers per thread for one array: more than a thread has.
    Json j = chime();
    j["transform"]["n_in"] = 8192;
    j["transform"]["n_out"] = 8192;
    j["arrays"]["X"]["layout"] = "b <-> ReIm, t0 t1 t2 t3 t4 <-> n0 n1 n2 n3 n4, r <-> n5 n6 n7 n8 n9 n10 n11 n12";
    Caught c = specError(j.dump());
    EXPECT_EQ(c.path, "/arrays/X/layout") << c.detail;
    EXPECT_NE(c.detail.find("registers per thread"), std::string::npos) << c.detail;
  }
}

// ---- Round 2: the newer families' extents, grids past 2^31, files that are not files, slow parses, escaped messages
// ----

namespace {
Caught specErrorOf(const Json& j, const std::string& file = "hostile.json") { return specError(j.dump(), file); }

Json correlatorStrided(const char* type, long long samples, long long timeStride, long long batchStride) {
  return Json::parse(fmt::format(
      R"({{"name": "cw", "family": "correlator", "receivers": 2, "channels": 1, "samples_per_call": {}, "sample_type": "{}",
      "input": {{"layout": "strides", "strides": {{"batch": {}, "channel": 0, "receiver": 1, "polarization": 2, "time": {}}}}}}})",
      samples, type, batchStride, timeStride));
}

Json beamformer(long long receivers, long long beams, long long samples, const std::string& extra = "",
                const std::string& output = R"({"kind": "beams", "type": "cf32"})") {
  return Json::parse(fmt::format(
      R"({{"name": "bw", "family": "beamformer", "receivers": {}, "beams": {}, "samples_per_call": {}, "sample_type": "ci8",
      "weight_type": "ci8", "output": {}{}}})",
      receivers, beams, samples, output, extra));
}

Json gridder(int subgrid, int correlations, const std::string& extra = "") {
  return Json::parse(fmt::format(
      R"({{"name": "g", "family": "gridder", "direction": "grid", "subgrid_size": {}, "correlations": {}, "grid_size": 256,
      "image_size": 0.04, "observation": {{"stations": 4, "time_steps": 16, "channels": 4}}, "channels_per_subgrid": 4{}}})",
      subgrid, correlations, extra));
}

std::vector<std::pair<std::string, Json>> specsOfEveryFamily() {
  std::vector<std::pair<std::string, Json>> out;
  for (const auto& e : std::filesystem::directory_iterator(test::sourcePath("specs")))
    if (e.path().extension() == ".json")
      out.push_back({e.path().filename().string(), Json::parse(test::readFile(e.path().string()))});
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}
}  // namespace

// A stride whose extent wraps past 2^63 passed the overlap check: a plan of 0 bytes per entry, a kernel reading t *
// 2^40.
TEST(HardeningRound2, StridedExtentsAreCheckedAtTheStride) {
  struct Case {
    Json spec;
    std::string path;
  };
  const std::vector<Case> cases = {
      {correlatorStrided("cf16", 1LL << 30, 1LL << 40, 0), "/input/strides/time"},
      {correlatorStrided("ci4", 1LL << 24, 1LL << 40, 0), "/input/strides/time"},
      {correlatorStrided("cf16", 1LL << 20, 1LL << 40, 1LL << 40), "/input/strides/time"},  // 2^60: no wrap, past 2^52
      {beamformer(
           4, 8, 1LL << 28,
           R"(, "samples": {"layout": "strides", "strides": {"batch": 0, "channel": 0, "polarization": 0, "time": 1099511627776, "receiver": 1}})"),
       "/samples/strides/time"},
      {beamformer(
           4, 65536, 64,
           R"(, "weights": {"layout": "strides", "strides": {"batch": 0, "channel": 0, "polarization": 0, "beam": 1099511627776, "receiver": 1}})"),
       "/weights/strides/beam"},
  };
  for (const auto& k : cases) {
    Caught c = specErrorOf(k.spec);
    ASSERT_TRUE(c.thrown) << k.spec.dump();
    EXPECT_EQ(c.path, k.path) << c.detail;
    EXPECT_NE(c.detail.find("span"), std::string::npos) << c.detail;
  }
  // Large strides that fit: the plan's bytes per entry are the batch stride's.
  Json ok = correlatorStrided("cf16", 1024, 1LL << 20, 1LL << 31);
  auto spec = parseSpecText(ok.dump(), "ok.json");
  spec->verify();
  const LaunchPlan plan = spec->emit({}).plan;
  ASSERT_NE(plan.buffer("input"), nullptr);
  EXPECT_EQ(plan.buffer("input")->perBatchElems, (1LL << 31) * 4);
  // The batch stride must still cover the entry's span.
  EXPECT_EQ(specErrorOf(correlatorStrided("cf16", 1024, 1LL << 20, 1LL << 20)).path, "/input/strides/batch");
}

// Kernels with one block per unit: a batch whose grid passes 2^31 - 1 blocks is refused with the limit, never run
// short.
TEST(HardeningRound2, GridsPastTheLaunchLimitAreRefusedWithTheBatchLimit) {
  const std::string tiles8 =
      R"(, "tuning": {"block_times": 8, "block_beams": 8, "warp_times": 8, "warp_beams": 8, "mma": "mma_sync"})";
  auto spec = parseSpecText(beamformer(16, 65536, 65536, tiles8).dump(), "grid.json");
  spec->verify();
  const LaunchPlan plan = spec->emit({}).plan;
  EXPECT_EQ(plan.maxBatch(), 31);  // 8192 x 8192 blocks per entry
  const PlanKernel& k = plan.kernels.at(0);
  EXPECT_EQ(k.grid.blocks(31, 1000), 31LL * 8192 * 8192);
  try {
    k.grid.blocks(32, 1000);
    ADD_FAILURE() << "batch 32 launched";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("at most 31 entries"), std::string::npos) << e.what();
  }
  EXPECT_NE(launchPlanHeader(plan).find("constexpr long long max_batch = 31LL;"), std::string::npos);
  // A kernel that loops over its units is not limited.
  EXPECT_EQ((GridRule{1LL << 40, 1, true}.maxBatch()), LLONG_MAX);
  EXPECT_EQ((GridRule{1LL << 40, 1, true}.blocks(1000, 528)), 528);
  // One entry past the limit: a spec error at the member that makes it so big.
  Caught c = specErrorOf(beamformer(16, 65536, 1LL << 24, tiles8));
  ASSERT_TRUE(c.thrown);
  EXPECT_EQ(c.path, "/samples_per_call") << c.detail;
  // And a plan built by hand that cannot launch one entry is refused by check().
  LaunchPlan p;
  p.sources.push_back({"k.cu", "", false});
  PlanKernel big;
  big.name = "k";
  big.grid = GridRule{1LL << 32, 1, false};
  p.kernels.push_back(big);
  EXPECT_THROW(p.check(), std::invalid_argument);
}

TEST(HardeningRound2, FilesThatAreNotRegularAreRefusedWithoutBlocking) {
  const std::string fifo = tempPath("warpforge_fifo");
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto t0 = std::chrono::steady_clock::now();
  try {
    readSpecFileText(fifo);
    ADD_FAILURE() << "read a FIFO";
  } catch (const SpecError& e) {
    EXPECT_NE(e.detail().find("FIFO"), std::string::npos) << e.detail();
  }
  EXPECT_LT(secondsSince(t0), 1.0);
  std::filesystem::remove(fifo);
  try {
    readSpecFileText("/dev/zero");
    ADD_FAILURE() << "read /dev/zero";
  } catch (const SpecError& e) {
    EXPECT_NE(e.detail().find("device"), std::string::npos) << e.detail();
  }
}

// ordered_json inserted each key through a linear lookup: a 5 MB object of 300k keys took 91 s to parse.
TEST(HardeningRound2, LargeObjectsParseInLinearTime) {
  std::string members;
  for (int i = 0; i < 300000; ++i) members += fmt::format("{}\"key{}\": {}", i ? ", " : "", i, i);
  ASSERT_GT(members.size(), 4u << 20);
  // Processor time, not wall time: the bound holds on a loaded machine too (about 0.4 s here, nlohmann's own
  // std::map document 0.3 s).
  auto cpuSince = [](std::clock_t c0) { return static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC; };
  std::clock_t c0 = std::clock();
  Json j = parseJsonText("{" + members + "}", "big.json");
  EXPECT_LT(cpuSince(c0), 1.5);
  EXPECT_EQ(j.size(), 300000u);
  EXPECT_EQ(j.begin().key(), "key0");  // member order kept
  EXPECT_EQ(j["key299999"], 299999);
  // Wherever it sits in a spec, it is refused fast.
  for (const std::string& where :
       {"{\"name\": \"s\", \"family\": \"stockham\", \"precision\": \"f32\", \"length\": 64, \"tuning\": {" + members +
            "}}",
        "{" + members + ", \"family\": \"correlator\"}"}) {
    c0 = std::clock();
    EXPECT_TRUE(specError(where).thrown);
    EXPECT_LT(cpuSince(c0), 1.5);
  }
  // Duplicates are still found, with their path.
  try {
    parseJsonText("{\"a\": {" + members + ", \"key7\": 1}}", "dup.json");
    ADD_FAILURE();
  } catch (const SpecError& e) {
    EXPECT_EQ(e.path(), "/a/key7");
  }
}

TEST(HardeningRound2, MessagesEscapeUserTextTheSameWayEverywhere) {
  EXPECT_EQ(printableText(std::string("a\x1b[31m\nb\0c", 10)), "a\\x1b[31m\\x0ab\\x00c");
  EXPECT_EQ(printableText("caf\xc3\xa9 \xff\xfe \xc2\x9b x"),
            "caf\xc3\xa9 \\xff\\xfe \\xc2\\x9b x");  // UTF-8 kept; bad bytes and C1 escaped
  EXPECT_EQ(printableText(std::string(100, 'x'), 10), std::string(10, 'x') + "... (100 bytes)");
  const std::string hostile = "\\u001b]0;owned\\u0007\\nerror: forged line\\u0000tail";
  const std::vector<std::string> specs = {
      "{\"name\": \"s\", \"family\": \"" + hostile + "\"}",  // family dispatch
      "{\"name\": \"s\", \"family\": \"stockham\", \"precision\": \"f32\", \"length\": 64, \"" + hostile +
          "\": 1}",  // unknown key
      R"({"name": "c", "family": "correlator", "receivers": 4, "channels": 1, "samples_per_call": 256, "sample_type": ")" +
          hostile + R"(", "input": {"layout": "tcc"}})",  // correlator
      beamformer(4, 8, 64).dump().replace(beamformer(4, 8, 64).dump().find("\"ci8\""), 5,
                                          "\"" + hostile + "\""),                                        // beamformer
      gridder(16, 4).dump().replace(gridder(16, 4).dump().find("\"grid\","), 6, "\"" + hostile + "\""),  // gridder
  };
  for (const auto& text : specs) {
    try {
      parseSpecText(text, "x.json\n\x1b[2J");
      ADD_FAILURE() << text;
    } catch (const SpecError& e) {
      const std::string what = e.what();
      for (char bad : {'\n', '\x1b', '\x07', '\0'}) EXPECT_EQ(what.find(bad), std::string::npos) << what;
      EXPECT_EQ(std::strlen(e.what()), what.size()) << "a NUL cut the message";
      EXPECT_EQ(e.detail().find('\x1b'), std::string::npos) << e.detail();
    }
  }
}

TEST(HardeningRound2, UnknownMembersGetDidYouMean) {
  Caught c = specError(R"({"name": "s", "family": "stockham", "precision": "f32", "lenght": 64})");
  ASSERT_TRUE(c.thrown);
  EXPECT_EQ(c.path, "/lenght");
  EXPECT_NE(c.detail.find("did you mean 'length'?"), std::string::npos) << c.detail;
  c = specError(R"({"name": "s", "family": "stokham", "precision": "f32", "length": 64})");
  EXPECT_NE(c.detail.find("did you mean 'stockham'?"), std::string::npos) << c.detail;
  c = specErrorOf(beamformer(4, 8, 64, R"(, "tuning": {"warp_beam": 8})"));
  EXPECT_NE(c.detail.find("did you mean 'warp_beams'?"), std::string::npos) << c.detail;
  c = specError(R"({"name": "s", "family": "stockham", "precision": "f32", "length": 64, "zebra": 1})");
  EXPECT_EQ(c.detail.find("did you mean"), std::string::npos) << c.detail;  // nothing near
}

TEST(HardeningRound2, DescriptionIsTextInEveryFamily) {
  std::set<std::string> families;
  for (const auto& [file, base] : specsOfEveryFamily()) {
    families.insert(base["family"].get<std::string>());
    for (const Json& bad : {Json(5), Json(nullptr), Json::object(), Json::array()}) {
      Json j = base;
      j["description"] = bad;
      Caught c = specErrorOf(j, file);
      ASSERT_TRUE(c.thrown) << file << " " << bad.dump();
      EXPECT_EQ(c.path, "/description") << file << ": " << c.detail;
    }
  }
  EXPECT_GE(families.size(), 5u);
}

TEST(HardeningRound2, NamesThatMakeReservedOrClashingSymbolsAreRefusedAtName) {
  std::map<std::string, Json> firstOfFamily;
  for (const auto& [file, base] : specsOfEveryFamily()) firstOfFamily.emplace(base["family"].get<std::string>(), base);
  for (const auto& [family, base] : firstOfFamily)
    for (const char* name : {"_", "_x", "x_", "a__b", "u32", "pad", "i8", "cmul", "thread_index"}) {
      Json j = base;
      j["name"] = name;
      Caught c = specErrorOf(j);
      ASSERT_TRUE(c.thrown) << family << " " << name;
      EXPECT_EQ(c.path, "/name") << family << " " << name << ": " << c.detail;
      EXPECT_NE(c.detail.find("reserved"), std::string::npos) << c.detail;
    }
  // The gridder's subgrid FFT takes <name>_sgfft: a name too long for it is refused at /name in the gridder's terms.
  Caught c = specErrorOf([] {
    Json j = gridder(16, 4);
    j["name"] = std::string(59, 'p');
    return j;
  }());
  EXPECT_EQ(c.path, "/name") << c.detail;
  EXPECT_NE(c.detail.find("at most 58"), std::string::npos) << c.detail;
  EXPECT_EQ(c.file, "hostile.json") << "the error names the user's file, not the subgrid FFT's";
  // Two long names that differ only at their end emit distinct kernel symbols.
  std::set<std::string> symbols;
  for (char last : {'a', 'b'}) {
    Json j = gridder(16, 4);
    j["name"] = std::string(57, 'p') + last;
    auto spec = parseSpecText(j.dump(), "long.json");
    spec->verify();
    for (const auto& k : spec->emit({}).plan.kernels) EXPECT_TRUE(symbols.insert(k.name).second) << k.name;
  }
}

// The reserved helper names are every wf_ symbol the helper headers and the emitted sources of specs/ define.
TEST(HardeningRound2, HelperSymbolListCoversEveryGeneratedWfSymbol) {
  std::set<std::string> found;
  const std::regex symbol("\\bwf_[A-Za-z0-9_]+");
  auto scan = [&](const std::string& text) {
    for (std::sregex_iterator it(text.begin(), text.end(), symbol), end; it != end; ++it) found.insert(it->str());
  };
  for (const auto& f : embeddedTemplates()) scan(f.text);
  for (const auto& [file, base] : specsOfEveryFamily()) {
    if (file.find("1m") != std::string::npos || file.find("prime") != std::string::npos)
      continue;  // slow to plan; the same helpers
    auto spec = parseSpecText(base.dump(), file);
    for (const auto& s : spec->emit({}).plan.sources) scan(s.text);
  }
  for (const auto& s : found) {
    const std::string name = s.substr(3);
    if (name.empty() || name.back() == '_') continue;  // a prefix (wf_mma_...): no name ends in '_'
    EXPECT_TRUE(JsonReader::isReservedName(name)) << s << ": add it to JsonReader::helperSymbols()";
  }
}

TEST(HardeningRound2, DefaultsAdaptToWhatTheSpecSets) {
  // Gridder subgrid sizes 8, 24, 40, 56 (documented): pixels per thread adapted to S.
  for (int S : {8, 24, 40, 56, 64}) {
    auto spec = parseSpecText(gridder(S, 4).dump(), "g.json");
    EXPECT_NO_THROW(spec->verify()) << S;
    EXPECT_NO_THROW(spec->emit({})) << S;
  }
  // A pixels_per_thread the user sets that cannot work is named as such.
  EXPECT_EQ(specErrorOf(gridder(24, 4, R"(, "tuning": {"pixels_per_thread": 4})")).path, "/tuning/pixels_per_thread");
  // Beamformer warp_beams 24, or 8 with 96 beams: the default block tile adapts.
  for (const char* tuning :
       {R"(, "tuning": {"warp_beams": 24})", R"(, "tuning": {"warp_beams": 8})", R"(, "tuning": {"warp_beams": 40})"}) {
    auto spec = parseSpecText(beamformer(64, 96, 256, tuning).dump(), "b.json");
    EXPECT_NO_THROW(spec->verify()) << tuning;
  }
  // Tuning that cannot be met is a spec error (exit 2), not an inconsistent spec.
  for (const char* tuning :
       {R"(, "tuning": {"block_times": 512, "block_beams": 512, "warp_times": 8, "warp_beams": 8})",
        R"(, "tuning": {"block_times": 256, "block_beams": 256, "warp_times": 64, "warp_beams": 64})"}) {
    Caught c = specErrorOf(beamformer(64, 1024, 1024, tuning));
    ASSERT_TRUE(c.thrown) << tuning;
    EXPECT_EQ(c.path.rfind("/tuning", 0), 0u) << c.path;
  }
}

TEST(HardeningRound2, TuningNotHonouredIsAWarning) {
  auto spec = parseSpecText(beamformer(64, 96, 256, R"(, "tuning": {"stages": 6, "mma": "mma_sync"})").dump(),
                            "b.json");
  VerifyReport r = spec->verify();
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("stages 6"), std::string::npos) << r.warnings[0];
  spec = parseSpecText(gridder(32, 4, R"(, "tuning": {"resident_threads": 32})").dump(), "g.json");
  r = spec->verify();
  ASSERT_GE(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("resident_threads 32"), std::string::npos) << r.warnings[0];
  // As given, no warning.
  EXPECT_TRUE(parseSpecText(gridder(32, 4).dump(), "g.json")->verify().warnings.empty());
}

// The store check walked every window of a power spec (integrate 2^20: 139 s); its middle tiles are translates.
TEST(HardeningRound2, VerifyTimeIsBoundedForLongIntegrations) {
  auto t0 = std::chrono::steady_clock::now();
  auto spec = parseSpecText(beamformer(64, 96, 1 << 21, "", R"({"kind": "power", "integrate": 1048576})").dump(),
                            "p.json");
  VerifyReport r = spec->verify();
  EXPECT_LT(secondsSince(t0), 5.0);
  EXPECT_NE(r.text.find("middle tiles"), std::string::npos) << r.text;
}
