// GPU tests of synthesized tc_fft kernels: every covered size (n_out 16 .. 4096, n_in = n_out / 1, 2, 4, 8) and sign,
// from the transform alone, run through the family interface and the generic runner against FFTW in double: fresh
// random inputs (seed printed), outputs poisoned before the run and every one checked written, the gap after each
// output (padded distances) checked untouched, odd batches that leave a warp's last group partial, the f16 bound of
// the design. Skipped without a device.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "bench/RunCheck.h"
#include "generator/tc_fft/Synthesizer.h"
#include "generator/tc_fft/TcFftFamily.h"
#include "generator/tc_fft/TcFftParser.h"
#include "warpforge/compiler.h"
#include "warpforge/device.h"

using namespace warpforge;

namespace {

std::string sizeSpec(int nIn, int nOut, int sign) {
  return fmt::format(R"({{"name": "gpu_{}_{}", "family": "tc_fft", "precision": "f16", "transform": {{"n_in": {}, "n_out": {}, "sign": {}}}}})", nIn, nOut,
                     nIn, nOut, sign);
}

void expectGood(const RunReport& r, const std::string& label) {
  const Check& c = r.check;
  std::printf("[gpu-tc_fft] %s: batch=%lld seed=%llu checked=%lld unwritten=%lld max_rel_err=%.3e (bound %.1e) kernel=%.4f ms\n", label.c_str(), r.batch,
              static_cast<unsigned long long>(r.seed), c.checked, c.unwritten, c.error, c.bound, r.ourMs);
  EXPECT_EQ(c.unwritten, 0) << label << ": " << c.detail;
  EXPECT_LE(c.error, c.bound) << label << ": " << c.detail;
  EXPECT_TRUE(c.ok()) << label << ": " << c.detail;
  EXPECT_GT(c.checked, 0) << label;
}

}  // namespace

class GpuTcFft : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!deviceAvailable()) GTEST_SKIP() << "no CUDA device: " << deviceUnavailableReason();
  }
};

TEST_F(GpuTcFft, EveryCoveredSizeAndSignMatchesFftw) {
  Compiler compiler;
  std::uint64_t seed = 37000;
  for (int L = kMinSynthesisLog2; L <= kMaxSynthesisLog2; ++L)
    for (int j = 0; j <= kMaxPaddingLog2; ++j)
      for (int sign : {+1, -1}) {
        const int nOut = 1 << L, nIn = nOut >> j;
        const std::string label = fmt::format("{} -> {} sign {:+d}", nIn, nOut, sign);
        // Dense distances, an odd batch of a few thousand FFTs.
        auto dense = tcFftFamily().parse(Json::parse(sizeSpec(nIn, nOut, sign)), "gpu.json");
        RunOptions o;
        o.batch = 4097;
        o.seed = seed++;
        o.baseline = false;
        expectGood(runSpec(compiler, *dense, o), label + " dense");
        // Padded distances (4 elements of gap after each input and output), an odd batch below one warp's group.
        auto padded = makeTcFftSpec(parseTcFftSpecText(sizeSpec(nIn, nOut, sign), "gpu.json"), {nIn + 4, nOut + 4});
        o.batch = 3;
        o.seed = seed++;
        expectGood(runSpec(compiler, *padded, o), label + " padded");
      }
}

// A large odd batch against cuFFT on the zero-padded input, at the sizes the benchmark table leads with.
TEST_F(GpuTcFft, LargeOddBatchesAndBaseline) {
  Compiler compiler;
  for (auto [nIn, nOut] : {std::pair{256, 512}, std::pair{16, 16}, std::pair{1024, 2048}}) {
    auto spec = tcFftFamily().parse(Json::parse(sizeSpec(nIn, nOut, 1)), "gpu.json");
    RunOptions o;
    o.batch = (1LL << 18) + 3;
    o.seed = 4242;
    o.baseline = true;
    RunReport r = runSpec(compiler, *spec, o);
    expectGood(r, fmt::format("{} -> {} large", nIn, nOut));
    std::printf("[gpu-tc_fft] %s: max_rel_err=%.3e\n", r.baselineName.c_str(), r.baselineError);
    EXPECT_GE(r.baselineError, 0);
  }
}
