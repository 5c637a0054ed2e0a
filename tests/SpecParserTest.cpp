#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "generator/tc_fft/TcFftFamily.h"
#include "generator/tc_fft/TcFftParser.h"
#include "warpforge/family.h"
#include "warpforge/spec_error.h"
#include "TestUtil.h"

using namespace warpforge;
using Json = nlohmann::ordered_json;

namespace {
Json chime() { return Json::parse(test::readFile(test::sourcePath(test::kChimeSpec))); }

// Parses a modified spec and returns the error's JSON path and message.
std::pair<std::string, std::string> errorOf(const Json& j) {
  try {
    parseTcFftSpecText(j.dump(), "mutant.json");
  } catch (const SpecError& e) {
    EXPECT_EQ(e.file(), "mutant.json");
    return {e.path(), e.detail()};
  }
  ADD_FAILURE() << "spec was accepted";
  return {};
}
}  // namespace

TEST(SpecParser, ReadsTheChimeSpec) {
  LayoutProgram s = parseTcFftSpecFile(test::sourcePath(test::kChimeSpec));
  EXPECT_EQ(s.name, "chime_fft_256_512");
  EXPECT_EQ(s.nIn, 256);
  EXPECT_EQ(s.nOut, 512);
  EXPECT_EQ(s.arrays.size(), 13u);
  EXPECT_EQ(s.steps.size(), 7u);
  EXPECT_TRUE(s.array("E_X_Z1")->stored.has_value());
  EXPECT_EQ(s.array("E_X_Z1")->stored->numRegisters(), 4);  // eq. 29: 4 registers
}

TEST(SpecParser, MalformedJson) {
  try {
    parseTcFftSpecText("{\"name\": ", "bad.json");
    FAIL();
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos);
    EXPECT_NE(e.detail().find("malformed JSON"), std::string::npos);
  }
  // Inside a member: the path names the member read last, the text its line and column.
  try {
    parseTcFftSpecText("{\"name\": \"x\",\n \"transform\": {\"n_in\": 64,, \"n_out\": 64}}", "bad.json");
    FAIL();
  } catch (const SpecError& e) {
    EXPECT_EQ(e.path(), "/transform/n_in");
    EXPECT_NE(e.detail().find("line 2"), std::string::npos) << e.detail();
  }
}

TEST(SpecParser, ErrorsNameTheJsonPath) {
  struct Case {
    std::function<void(Json&)> mutate;
    std::string path, says;
  };
  std::vector<Case> cases = {
      {[](Json& j) {
         j["arrays"]["Z1"]["layout"] = "b <-> n5, t0 t1 t2 t3 t4 <-> n4 n4 q0 q1 q2, r <-> n2 n1 n0 ReIm";
       },
       "/arrays/Z1/layout", "appears twice"},
      {[](Json& j) { j["arrays"]["Z1"]["layout"] = "b <-> n5, t0 t1 t2 t3 <-> n4 n3 q0 q1, r <-> n2 n1 n0 ReIm q2"; },
       "/arrays/Z1/layout", "5 lane bits"},
      {[](Json& j) { j["arrays"]["X"]["layout"] = "b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r <-> n2 n1 n9"; },
       "/arrays/X/layout", "n9 does not exist"},
      {[](Json& j) { j["arrays"]["X"]["layout"] = "b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4, r <-> n2 n1 n0"; },
       "/arrays/X/layout", "counts must match"},
      {[](Json& j) { j["arrays"]["X"]["colour"] = "red"; }, "/arrays/X/colour", "unknown field"},
      {[](Json& j) { j["steps"][0]["op"] = "fft"; }, "/steps/0/op", "unknown op"},
      {[](Json& j) { j["steps"][0]["shape"] = "zzz"; }, "/steps/0/shape", "unknown MMA shape 'zzz'"},
      {[](Json& j) { j["steps"][2]["b"] = "Nope"; }, "/steps/2/b", "no array named"},
      {[](Json& j) { j["steps"][0]["a"] = "X"; }, "/steps/0/a", "phase array"},
      {[](Json& j) { j["transform"]["n_in"] = 300; }, "/transform/n_in", "power of two"},
      {[](Json& j) { j["transform"]["n_out"] = "512"; }, "/transform/n_out", "expected an integer"},
      {[](Json& j) { j["transform"]["sign"] = 0; }, "/transform/sign", "+1 or -1"},
      {[](Json& j) { j["family"] = "stockham2"; }, "/family", "unknown or unsupported family"},
      {[](Json& j) {
         j["family"] = "tcfft";
         j["length"] = 64;
       },
       "/family", "unknown or unsupported family"},  // not "unknown field"
      {[](Json& j) { j["transform"]["sign"] = Json::parse("18446744073709551615"); }, "/transform/sign",
       "out of range"},  // not -1
      {[](Json& j) {
         j["arrays"]["X"]["layout"] = "b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r <-> n2 n1 n99999999999";
       },
       "/arrays/X/layout", "out of range"},
      {[](Json& j) { j["precision"] = "f64"; }, "/precision", "not supported"},
      {[](Json& j) { j.erase("io"); }, "/io", "required field is missing"},
      {[](Json& j) {
         j["arrays"]["E_Z1_Z2"]["phase"]["q"] = Json::array({0, 1, 1});
       },
       "/arrays/E_Z1_Z2/phase/q/2", "listed twice"},
      {[](Json& j) {
         j["arrays"]["E_Z1_Z2"]["phase"]["n"] = Json::array({2, 3, 4});
       },
       "/arrays/E_Z1_Z2/layout", "must carry exactly"},
      {[](Json& j) { j["arrays"]["X"]["stored"] = "b <-> ReIm"; }, "/arrays/X/stored", "only phase arrays"},
      {[](Json& j) { j["launch"]["warps_per_block"] = 0; }, "/launch/warps_per_block", "out of range"},
      {[](Json& j) { j["steps"] = Json::array(); }, "/steps", "no steps"},
      {[](Json& j) { j["name"] = "has space"; }, "/name", "C identifier"},
  };
  for (auto& c : cases) {
    Json j = chime();
    c.mutate(j);
    auto [path, msg] = errorOf(j);
    EXPECT_EQ(path, c.path) << msg;
    EXPECT_NE(msg.find(c.says), std::string::npos) << "message: " << msg;
  }
}

// The registry dispatches on "family" to tc_fft; its spec names itself and its file.
TEST(SpecParser, RegistryFindsTheTcFftFamily) {
  ASSERT_NE(findFamily("tc_fft"), nullptr);
  EXPECT_EQ(findFamily("tc_fft"), &tcFftFamily());
  auto spec = loadSpec(test::sourcePath(test::kChimeSpec));
  EXPECT_EQ(&spec->family(), &tcFftFamily());
  EXPECT_EQ(spec->name(), "chime_fft_256_512");
  EXPECT_EQ(spec->file(), test::sourcePath(test::kChimeSpec));
}

TEST(SpecParser, FamilyParseReportsFormErrorsAsSpecErrors) {
  Json j = chime();
  j["transform"]["n_in"] = 300;
  try {
    tcFftFamily().parse(j, "mutant.json");
    FAIL();
  } catch (const SpecError& e) {
    EXPECT_EQ(e.path(), "/transform/n_in");
  }
}
