#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "generator/spec/JsonReader.h"
#include "generator/stockham/StockhamEmitter.h"
#include "generator/stockham/StockhamSpec.h"
#include "runtime/Nvrtc.h"
#include "TestUtil.h"

using namespace warpforge;

namespace {
std::string spec(int n, const std::string& prec, const std::string& extra = "") {
  return fmt::format(R"({{"name": "s{}", "family": "stockham", "precision": "{}", "length": {}{}}})", n, prec, n, extra);
}
std::pair<std::string, std::string> errorOf(const std::string& text) {
  try {
    parseStockhamSpecText(text, "s.json");
  } catch (const SpecError& e) {
    return {e.path(), e.detail()};
  }
  ADD_FAILURE() << "accepted: " << text;
  return {};
}
}  // namespace

TEST(Stockham, Factorization) {
  EXPECT_EQ(factorizeStockham(1000), (std::vector<int>{8, 5, 5, 5}));
  EXPECT_EQ(factorizeStockham(4096), (std::vector<int>{16, 16, 16}));
  EXPECT_EQ(factorizeStockham(1331), (std::vector<int>{11, 11, 11}));
  EXPECT_EQ(factorizeStockham(1), (std::vector<int>{}));
  EXPECT_THROW(factorizeStockham(17), std::invalid_argument);
}

TEST(Stockham, SpecErrorsNameThePath) {
  EXPECT_EQ(errorOf(spec(17, "f32")).first, "/length");                       // prime 17: Bluestein missing
  EXPECT_NE(errorOf(spec(17, "f32")).second.find("Bluestein"), std::string::npos);
  EXPECT_EQ(errorOf(spec(64, "f16")).first, "/precision");
  EXPECT_EQ(errorOf(spec(8192, "f32")).first, "/length");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "factors": [8, 4])")).first, "/factors");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "factors": [8, 6, 2])")).first, "/factors/1");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "direction": "sideways")")).first, "/direction");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "input": {"stride": 0})")).first, "/input/stride");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "placement": "in_place", "output": {"stride": 2})")).first, "/output");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "tiling": 3)")).first, "/tiling");
}

TEST(Stockham, SweepCompilesWithoutSpills) {
  std::vector<std::string> texts;
  for (int n : {1, 2, 3, 5, 7, 11, 13, 16, 60, 1000, 4096}) texts.push_back(spec(n, "f32"));
  for (int n : {2, 12, 343, 2048}) texts.push_back(spec(n, "f64"));
  for (const auto& e : std::filesystem::directory_iterator(test::sourcePath("specs")))
    if (e.path().extension() == ".json" && specFamily(e.path().string()) == "stockham") texts.push_back(readSpecFileText(e.path().string()));
  for (const auto& t : texts) {
    StockhamSpec s = parseStockhamSpecText(t, "sweep.json");
    StockhamKernel k = emitStockham(s);
    EXPECT_LE(k.threadsPerFft * k.fftsPerBlock, 1024);
    EXPECT_LE(k.sharedBytes, 48 * 1024);
    for (const char* arch : {"sm_80", "sm_90"}) {
      NvrtcResult r = nvrtcCompile(k.source, s.name, arch);
      EXPECT_EQ(r.spillStoreBytes, 0) << s.name << " " << arch;
      EXPECT_EQ(r.stackFrameBytes, 0) << s.name << " " << arch;
    }
  }
}

TEST(Stockham, DoublePrecisionKernelsHaveNoFloatLiterals) {
  StockhamSpec s = parseStockhamSpecText(spec(3 * 5 * 7, "f64"), "f64.json");
  std::string src = emitStockham(s).source;
  EXPECT_FALSE(std::regex_search(src, std::regex(R"([0-9]f\b)"))) << "a float literal would cap f64 accuracy at ~1e-8";
  EXPECT_NE(src.find("sincospi("), std::string::npos);
  EXPECT_EQ(src.find("sincospif("), std::string::npos);
}
