// Hostile specs (issue 12): every one is a SpecError naming the file and the JSON path,
// fast, never a crash, a stoi escape (exit 3) or a silently different kernel.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>

#include <nlohmann/json.hpp>

#include "generator/core/JsonReader.h"
#include "generator/tc_fft/TcFftFamily.h"
#include "generator/tc_fft/TcFftParser.h"
#include "runtime/Nvrtc.h"
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
      {"\"X\":        { \"description\": \"eq. 13\",", "\"X\":        { \"description\": \"eq. 13\", \"description\": \"again\",",
       "/arrays/X/description"},
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
  {
    std::ofstream(big).put('{');
  }
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
      {"b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r <-> n2 n1 n" + std::string(50000, '9'), "out of range"},  // was std::regex recursion
      {"b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r99999999999 <-> n0", "out of range"},
      {"b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r" + std::string(50000, '7') + " <-> n0", "out of range"},
      {"b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r <-> n2 n1 n00", "leading zero"},
      {"b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r <-> n2 n1 n0" + std::string(3 << 20, ' ') + "x", "cannot read logical"},
      {"b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r <-> n2 n1 n0 " + [] {
         std::string s;
         while (s.size() < (3u << 20)) s += "q1 ";
         return s;
       }(), "more than 32 bits"},
      {[] {
         std::string s = "b <-> ReIm";
         while (s.size() < (3u << 20)) s += ", t0 <-> n0";
         return s;
       }(), "twice"},
      {"b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r <-> n2 n1 n0" + std::string(3 << 20, '\n'), ""},  // accepted: whitespace
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
      {"Z2", "input"},     {"Z2", "stage"},  {"Z2", "fft"},        {"Z2", "lane"},          {"X", "int"},
      {"Z1", "threadIdx"}, {"Y", "printf"},  {"Z3", "Z3p_moved"},  {"E_Z1_Z2", "Z1_r0"},   {"Z2", "output"},
      {"X", "batch"},      {"Z4", "x_ptr"},  {"Z3", "m_Z3p"},      {"E_X_Z1", "a_E_X_Z1"},
  };
  for (const auto& [from, to] : renames) {
    Json j = renameArray(chime(), from, to);
    std::string src;
    ASSERT_NO_THROW(src = emittedSource(j)) << to;
    std::string ptx;
    ASSERT_NO_THROW(ptx = nvrtcCompile(src, "chime", "compute_90").ptx) << to << "\n" << src;
    EXPECT_TRUE(ptx == reference) << from << " -> " << to << ": the PTX differs";
    // The user's name appears only behind its prefix: a_<name> (data), p_<name>_r<k> (phase).
    EXPECT_TRUE(src.find("wf_u32 a_" + to + "[") != std::string::npos || src.find("wf_u32 p_" + to + "_r") != std::string::npos) << to;
  }
}

TEST(Hardening, ReservedSpecNamesAreRejectedAtName) {
  for (const char* name : {"int", "printf", "threadIdx", "main", "__global_thing", "_Reserved", "wf_cmul", "warpforge_plan", "cudaMalloc",
                           "cuLaunchKernel", "while"}) {
    Json j = chime();
    j["name"] = name;
    Caught c = specError(j.dump());
    ASSERT_TRUE(c.thrown) << name;
    EXPECT_EQ(c.path, "/name");
    EXPECT_NE(c.detail.find("reserved"), std::string::npos) << c.detail;
  }
  for (const char* name : {"input", "fft", "lane", "stage", "cuda_fft", "integer", "my_wf_kernel"}) {  // legal as a kernel symbol
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
  for (const std::string file : {"x.json\nstatic int injected_global = 42;\n//", "x.json\rstatic int injected_global = 42;",
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
      {[](Json& j) { j["arrays"]["Y"]["layout"] = "b <-> q3, t0 t1 t2 t3 t4 <-> q4 q5 q6 q7 q8, r <-> q0 q1 q2 ReIm"; }, "/arrays/Y/layout",
       "b <-> ReIm"},
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
    EXPECT_TRUE(spec->emulate("double", 1, 1).has_value());
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
