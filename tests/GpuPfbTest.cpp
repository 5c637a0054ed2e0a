// The pfb family on the GPU (skipped without a device): fresh random samples (seed printed), outputs poisoned with
// 0xff and checked all written; cf32 within the f32 bound of the double reference, ci8 exact except parts within that
// bound of a rounding boundary, saturation counts per stream; every input type, both correlator layouts, gains and
// delays, several batch entries; the MeerKAT specs of specs/; the cuFFT-user baseline (FIR + cufftExecR2C + post)
// agrees with the reference too.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include <fmt/format.h>

#include "bench/Baseline.h"
#include "bench/RunCheck.h"
#include "generator/pfb/PfbData.h"
#include "generator/pfb/PfbFamily.h"
#include "TestUtil.h"
#include "warpforge/compiler.h"
#include "warpforge/device.h"

using namespace warpforge;

namespace {

std::uint64_t freshSeed() {
  if (const char* s = std::getenv("WF_SEED")) return std::strtoull(s, nullptr, 10);
  return static_cast<std::uint64_t>(std::random_device{}()) << 20 | 0x40;
}

class GpuPfb : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!deviceAvailable()) GTEST_SKIP() << "no CUDA device: " << deviceUnavailableReason();
    useDefaultDevice();
  }
  Compiler compiler;

  Check run(const FamilySpec& fs, long long batch, std::uint64_t seed, const std::string& label) {
    const Generated g = fs.emit({"sm_90", nullptr});
    Executor exec(compiler, g.plan);
    const TestData data = fs.randomInputs(batch, seed);
    DeviceArrays arrays(exec, data, batch);
    exec.run(arrays.bindings(), batch);
    const Check c = fs.check(data, arrays.downloadOutputs(), batch);
    std::printf("[gpu-pfb] %s (seed %llu, batch %lld): %s\n", label.c_str(), static_cast<unsigned long long>(seed),
                batch, c.detail.c_str());
    // A second call on the same arrays (counters left zero, outputs poisoned again) gives the same check.
    arrays.poisonOutputs();
    exec.run(arrays.bindings(), batch);
    const Check again = fs.check(data, arrays.downloadOutputs(), batch);
    EXPECT_TRUE(again.ok()) << label << " (second call): " << again.detail;
    return c;
  }
};

std::unique_ptr<FamilySpec> spec(const std::string& members) {
  return makePfbSpec(
      parsePfbSpecText(fmt::format(R"({{"name": "gpu_pfb", "family": "pfb", {}}})", members), "gpu.json"));
}

}  // namespace

TEST_F(GpuPfb, EveryInputTypeLayoutAndPostProcessing) {
  const std::vector<std::pair<std::string, long long>> cases = {
      {R"("channels": 64, "taps": 4, "spectra_per_call": 32, "input": {"type": "int8"}, "gain": "per_channel", "delay": true, "output": {"type": "ci8"})",
       3},
      {R"("channels": 1024, "taps": 16, "receivers": 3, "spectra_per_call": 64, "input": {"type": "packed", "bits": 10}, "gain": "per_channel", "output": {"type": "ci8", "layout": "tcc"})",
       2},
      {R"("channels": 4096, "taps": 16, "spectra_per_call": 96, "input": {"type": "int8"}, "gain": "per_channel", "delay": true, "output": {"type": "ci8", "layout": "katgpucbf"})",
       2},
      {R"("channels": 8192, "taps": 8, "polarizations": 1, "spectra_per_call": 48, "input": {"type": "packed", "bits": 12}, "gain": 0.01, "output": {"type": "ci8"})",
       1},
      {R"("channels": 512, "taps": 5, "polarizations": 1, "spectra_per_call": 77, "input": {"type": "int16"}, "delay": true, "output": {"type": "cf32"})",
       2},
      {R"("channels": 16384, "taps": 16, "spectra_per_call": 40, "input": {"type": "int8"}, "gain": "per_channel", "delay": true, "output": {"type": "cf32"})",
       1},
      {R"("channels": 32768, "taps": 16, "spectra_per_call": 32, "input": {"type": "int8"}, "gain": "per_channel", "delay": true, "output": {"type": "ci8", "layout": "tcc"})",
       1},
      {R"("channels": 2048, "taps": 32, "spectra_per_call": 64, "input": {"type": "packed", "bits": 10}, "output": {"type": "cf32"})",
       1},
      {R"("channels": 256, "taps": 1, "spectra_per_call": 16, "input": {"type": "int8"}, "gain": 0.1, "output": {"type": "ci8"})",
       4},
      // the scratch in f16 (the f16 bound), MeerKAT's 4k and 32k channels and a cf32 output
      {R"("channels": 4096, "taps": 16, "spectra_per_call": 96, "input": {"type": "int8"}, "gain": "per_channel", "delay": true, "output": {"type": "ci8"}, "scratch": "f16")",
       2},
      {R"("channels": 32768, "taps": 16, "spectra_per_call": 32, "input": {"type": "packed", "bits": 10}, "output": {"type": "cf32"}, "scratch": "f16")",
       1},
  };
  std::uint64_t seed = freshSeed();
  for (const auto& [members, batch] : cases) {
    auto fs = spec(members);
    const Check c = run(*fs, batch, seed, members);
    EXPECT_TRUE(c.ok()) << members << ": " << c.detail;
    if (c.exact) EXPECT_EQ(c.error, 0) << members;
    ++seed;
  }
}

TEST_F(GpuPfb, MeerKatSpecs) {
  const std::uint64_t seed = freshSeed();
  for (const char* f :
       {"specs/pfb_meerkat_4k_ci8.json", "specs/pfb_meerkat_32k_ci8.json", "specs/pfb_meerkat_4k_10bit_cf32.json"}) {
    auto fs = loadSpec(test::sourcePath(f));
    const Check c = run(*fs, 2, seed, f);
    EXPECT_TRUE(c.ok()) << f << ": " << c.detail;
  }
}

// The baseline bench times is right too (its error against the same reference; ci8: no mismatch outside the bound).
TEST_F(GpuPfb, CufftUserBaselineAgrees) {
  const std::uint64_t seed = freshSeed();
  for (const char* f :
       {"specs/pfb_meerkat_4k_ci8.json", "specs/pfb_meerkat_32k_ci8.json", "specs/pfb_meerkat_4k_10bit_cf32.json"}) {
    auto fs = loadSpec(test::sourcePath(f));
    const auto req = baselineOf(*fs);
    ASSERT_TRUE(req.has_value());
    const TestData data = fs->randomInputs(1, seed);
    std::string why;
    auto base = makeBaseline(*req, data, 1, &why);
    ASSERT_TRUE(base) << f << ": " << why;
    std::printf("[gpu-pfb] baseline %s: %s, error %.3e\n", f, base->name.c_str(), base->error);
    EXPECT_GE(base->error, 0) << f;
    if (std::string(f).find("cf32") != std::string::npos) EXPECT_LT(base->error, 1e-5) << f;
    else EXPECT_EQ(base->error, 0) << f;
  }
}
