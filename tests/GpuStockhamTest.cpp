// Stockham kernels on the GPU against FFTW (double), and cuFFT's error on the
// same input: ours must be no worse than 2x cuFFT's (or within a few ulps).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "generator/stockham/StockhamSpec.h"
#include "runtime/StockhamRun.h"

using namespace warpforge;

namespace {
StockhamSpec make(int n, const std::string& prec) {
  return parseStockhamSpecText(fmt::format(R"({{"name": "s{}_{}", "family": "stockham", "precision": "{}", "length": {}}})", n, prec, prec, n),
                               "gpu.json");
}
void expectGood(const StockhamCheck& c, const StockhamSpec& s) {
  double floor = s.precision == "f64" ? 1e-14 : 1e-6;
  EXPECT_EQ(c.unwritten, 0) << s.name;
  EXPECT_LE(c.maxRelErr, std::max(2 * c.cufftMaxRelErr, floor)) << s.name << " ours " << c.maxRelErr << " cuFFT " << c.cufftMaxRelErr;
}
}  // namespace

class GpuStockham : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Runtime::deviceAvailable()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_F(GpuStockham, AllSupportedLengthsUpTo256AndNamedSizes) {
  Runtime rt;
  std::vector<int> sizes;
  for (int n = 1; n <= 256; ++n) {
    try {
      factorizeStockham(n);
      sizes.push_back(n);
    } catch (const std::invalid_argument&) {
    }
  }
  for (int n : {512, 1000, 1024, 1331, 2048, 2187, 2401, 3125, 4096}) sizes.push_back(n);
  int tested = 0;
  double worst = 0, worstRatio = 0;
  for (int n : sizes)
    for (const char* prec : {"f32", "f64"}) {
      if (std::string(prec) == "f64" && n > 2048) continue;
      StockhamSpec s = make(n, prec);
      StockhamCheck c = runStockham(rt, s, 37, 100 + n);
      expectGood(c, s);
      worst = std::max(worst, c.maxRelErr);
      if (c.cufftMaxRelErr > 0) worstRatio = std::max(worstRatio, c.maxRelErr / c.cufftMaxRelErr);
      ++tested;
    }
  std::printf("[gpu-stockham] %d (length, precision) pairs, batch 37: worst rel err %.3e, worst ours/cuFFT error ratio %.2f\n", tested,
              worst, worstRatio);
}

TEST_F(GpuStockham, StridesOffsetsInPlace) {
  Runtime rt;
  StockhamSpec s = parseStockhamSpecText(
      R"({"name": "strided", "family": "stockham", "precision": "f32", "length": 360, "direction": "inverse",
          "input": {"stride": 3, "distance": 1100, "offset": 5}, "output": {"stride": 2, "distance": 800, "offset": 7}})",
      "gpu.json");
  expectGood(runStockham(rt, s, 50, 9), s);
  StockhamSpec ip = parseStockhamSpecText(
      R"({"name": "inplace", "family": "stockham", "precision": "f64", "length": 729, "placement": "in_place",
          "input": {"stride": 4, "distance": 1}, "output": {"stride": 4, "distance": 1}})",
      "gpu.json");
  expectGood(runStockham(rt, ip, 4, 10), ip);
}

TEST_F(GpuStockham, BenchAgainstCufft) {
  Runtime rt;
  for (int n : {64, 256, 1000, 1024, 4096}) {
    StockhamSpec s = make(n, "f32");
    long long batch = (1LL << 26) / n;  // 512 MiB of input
    StockhamCheck c = runStockham(rt, s, batch, 5, 9);
    double gbs = 2.0 * 8 * n * batch / (c.ourMs * 1e-3) / 1e9;
    std::printf("[bench-stockham] f32 n=%d batch=%lld: ours %.4f ms (%.0f GB/s), cuFFT %.4f ms, ratio %.2fx, err %.2e vs cuFFT %.2e\n", n,
                batch, c.ourMs, gbs, c.cufftMs, c.cufftMs / c.ourMs, c.maxRelErr, c.cufftMaxRelErr);
    expectGood(c, s);
  }
}
