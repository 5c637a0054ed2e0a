// The correlator on the GPU (skipped without a device): bit-exact against the
// int64 CPU reference for 4/8-bit samples over the full range (extremes, -128 and
// -8 included) for receivers 1 .. 576, both input layouts, both conjugation and
// polarization conventions, several concurrent batch entries, accumulation over
// several calls, saturation and the missing-data marker; outputs poisoned and
// checked all written; f16 within the f32-accumulation bound.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "bench/RunCheck.h"
#include "generator/correlator/CorrelatorData.h"
#include "generator/correlator/CorrelatorFamily.h"
#include "generator/correlator/PipelineDirect.h"
#include "warpforge/compiler.h"
#include "warpforge/device.h"

using namespace warpforge;

namespace {

CorrelatorSpec makeSpec(int receivers, const std::string& type, const std::string& layout, int pols, int channels,
                        int samples, bool tccConvention, int rowsPerBlock = 0, const std::string& mma = "auto") {
  std::string members;
  if (rowsPerBlock) members = fmt::format(R"("receivers_per_block": {})", rowsPerBlock / pols);
  if (mma != "auto") members += fmt::format(R"({}"mma": "{}")", members.empty() ? "" : ", ", mma);
  std::string tuning = members.empty() ? "" : fmt::format(R"(, "tuning": {{{}}})", members);
  return parseCorrelatorSpecText(
      fmt::format(
          R"({{"name": "gpu_corr", "family": "correlator", "receivers": {}, "polarizations": {}, "channels": {}, "samples_per_call": {},
                      "sample_type": "{}", "input": {{"layout": "{}"}}, "conjugate": "{}", "polarization_order": "{}"{}}})",
          receivers, pols, channels, samples, type, layout, tccConvention ? "r1" : "r2",
          tccConvention ? "r2_r1" : "r1_r2", tuning),
      "gpu.json");
}

class GpuCorrelator : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!deviceAvailable()) GTEST_SKIP() << "no CUDA device: " << deviceUnavailableReason();
    useDefaultDevice();
  }
  Compiler compiler;

  // One run of the spec's plan on `data` (outputs poisoned), checked against the reference.
  Check run(const CorrelatorSpec& s, const TestData& data, long long batch, const std::string& label) {
    auto fs = makeCorrelatorSpec(s);
    Generated g = fs->emit({"sm_90", nullptr});
    Executor exec(compiler, g.plan);
    DeviceArrays arrays(exec, data, batch);
    exec.run(arrays.bindings(), batch);
    Check c = fs->check(data, arrays.downloadOutputs(), batch);
    std::printf("[gpu-correlator] %s: %s\n", label.c_str(), c.detail.c_str());
    return c;
  }
};

}  // namespace

TEST_F(GpuCorrelator, BitExactForEveryReceiverCountLayoutAndConvention) {
  int cases = 0;
  for (int r : {1, 2, 3, 31, 64, 80, 193, 576})
    for (const char* type : {"ci8", "ci4"})
      for (const char* layout : {"tcc", "katgpucbf"}) {
        const bool tcc = (cases % 2) == 1;
        const int channels = r >= 193 ? 1 : 3, samples = r >= 193 ? 32 : 64;
        CorrelatorSpec s = makeSpec(r, type, layout, 2, channels, samples, tcc);
        const long long batch = 2;
        TestData d = correlatorInputs(s, batch, 100 + cases);
        Check c = run(s, d, batch, fmt::format("R={} {} {} {} convention", r, type, layout, tcc ? "TCC" : "issue"));
        EXPECT_TRUE(c.ok()) << r << " " << type << " " << layout << ": " << c.detail;
        EXPECT_EQ(c.error, 0);
        ++cases;
      }
}

TEST_F(GpuCorrelator, OnePolarizationAndEveryTiling) {
  int seed = 0;
  for (int pols : {1, 2})
    for (int rows : {32, 64, 128})
      for (const char* type : {"ci8", "ci4"}) {
        CorrelatorSpec s = makeSpec(97, type, pols == 1 ? "tcc" : "katgpucbf", pols, 2, 64, seed % 2, rows);
        TestData d = correlatorInputs(s, 3, 300 + seed++);
        Check c = run(s, d, 3, fmt::format("R=97 P={} rows/block {} {}", pols, rows, type));
        EXPECT_TRUE(c.ok()) << c.detail;
      }
  // 64-row tiles of long calls take wgmma on sm_90 by default, one polarization included.
  for (int pols : {1, 2})
    for (const char* type : {"ci8", "cf16"}) {
      CorrelatorSpec s = makeSpec(97, type, pols == 1 ? "tcc" : "katgpucbf", pols, 2, 1024, seed % 2, 64);
      TestData d = correlatorInputs(s, 2, 300 + seed++);
      Check c = run(s, d, 2, fmt::format("R=97 P={} rows/block 64, 1024 samples {}", pols, type));
      EXPECT_TRUE(c.ok()) << c.detail;
    }
}

TEST_F(GpuCorrelator, GeneralStridesUseTheElementPath) {
  // [receiver][pol][channel][time] with a padded channel: no vector path applies.
  CorrelatorSpec s = parseCorrelatorSpecText(
      R"({"name": "gpu_corr", "family": "correlator", "receivers": 33, "polarizations": 2, "channels": 2, "samples_per_call": 48, "sample_type": "ci8",
          "input": {"layout": "strides", "strides": {"batch": 6600, "channel": 50, "receiver": 200, "polarization": 100, "time": 1}}})",
      "gpu.json");
  TestData d = correlatorInputs(s, 2, 5);
  Check c = run(s, d, 2, "strides layout ci8");
  EXPECT_TRUE(c.ok()) << c.detail;
}

TEST_F(GpuCorrelator, ExtremeValuesAtTheExactnessLimit) {
  // Every sample -128 - 128i (read as -127 - 127i) or -8 - 8i, the most samples per call the int32 tensor-core sums
  // allow.
  for (const char* type : {"ci8", "ci4"}) {
    CorrelatorSpec s = makeSpec(3, type, "tcc", 2, 1, std::string(type) == "ci8" ? 65536 : 65536, false);
    CorrelatorInputOptions o;
    o.accumulators = CorrelatorInputOptions::Accumulators::Zero;
    o.missingFraction = 0;
    TestData d = correlatorInputs(s, 1, 9, o);
    std::memset(d.arrays["input"].data(), std::string(type) == "ci8" ? 0x80 : 0x88, d.arrays["input"].size());
    Check c = run(s, d, 1, fmt::format("{} all minimum, {} samples", type, s.samples));
    EXPECT_TRUE(c.ok()) << c.detail;
    // and the most positive value, +127 + 127i / 7 + 7i
    std::memset(d.arrays["input"].data(), std::string(type) == "ci8" ? 0x7f : 0x77, d.arrays["input"].size());
    c = run(s, d, 1, fmt::format("{} all maximum", type));
    EXPECT_TRUE(c.ok()) << c.detail;
  }
}

TEST_F(GpuCorrelator, SaturationAndMissingMarker) {
  CorrelatorSpec s = makeSpec(31, "ci8", "katgpucbf", 2, 2, 64, false);
  CorrelatorInputOptions o;
  o.missingFraction = 0.2;
  TestData d = correlatorInputs(s, 4, 77, o);
  // A quarter of the accumulators far beyond int32 on both sides: many saturate.
  auto& acc = d.arrays["accumulators"];
  for (std::size_t i = 0; i < acc.size() / 8; i += 4) {
    const std::int64_t v = (i / 4) % 2 ? (1LL << 35) : -(1LL << 35);
    std::memcpy(&acc[i * 8], &v, 8);
  }
  Check c = run(s, d, 4, "saturation + missing (20% receivers)");
  EXPECT_TRUE(c.ok()) << c.detail;
  EXPECT_NE(c.detail.find("saturated count"), std::string::npos);
}

TEST_F(GpuCorrelator, ManyStagesThroughBothSharedMemoryBuffers) {
  // The correlate kernel alternates two shared-memory buffers per stage: random samples over 8 - 16 stages,
  // static (32 rows) and dynamic (64, 128 rows: > 48 KiB) shared memory, 8- and 4-bit.
  // 32 samples per stage too, on the wgmma path with 64 rows: its smallest stage, in static shared memory (with the
  // cp.async ring beside it, the buffers must be declared and used; CorrelatorKernels.WgmmaSharedMemory... checks that
  // on the CPU).
  int seed = 0;
  for (int rows : {32, 64, 128})
    for (const char* type : {"ci8", "ci4"}) {
      CorrelatorSpec s = makeSpec(193, type, seed % 2 ? "katgpucbf" : "tcc", 2, 1, 512, seed % 2, rows);
      if (seed % 2 == 0 && rows == 64) {
        s.tuning.timesPerStage = 32;
        s.tuning.mma = "wgmma";
      }
      TestData d = correlatorInputs(s, 1, 700 + seed++);
      Check c = run(s, d, 1,
                    fmt::format("R=193 rows/block {} {} {} samples ({} per stage)", rows, type, s.samples,
                                s.tuning.timesPerStage));
      EXPECT_TRUE(c.ok()) << c.detail;
    }
}

TEST_F(GpuCorrelator, WgmmaAndMmaSyncPathsAgreeWithTheReference) {
  // On sm_90 tuning.mma "wgmma" runs 64- and 128-row tiles on wgmma (sm_90a; "auto" does for 128 rows);
  // "mma_sync" keeps the sm_80 path: both,
  // 8-bit, 4-bit and f16, tails of the tile (R = 193, 80), both layouts, several stages.
  int seed = 0;
  for (const char* mma : {"wgmma", "mma_sync"})
    for (int rows : {64, 128})
      for (const char* type : {"ci8", "ci4", "cf16"}) {
        const int r = seed % 2 ? 80 : 193;
        CorrelatorSpec s = makeSpec(r, type, seed % 2 ? "katgpucbf" : "tcc", 2, 2, 256, seed % 2, rows, mma);
        const std::string arch = makeCorrelatorSpec(s)->emit({"sm_90", nullptr}).plan.onlyArch ? "wgmma" : "mma.sync";
        EXPECT_EQ(arch, std::string(mma) == "wgmma" ? "wgmma" : "mma.sync") << rows << " " << type;
        TestData d = correlatorInputs(s, 2, 900 + seed++);
        Check c = run(s, d, 2,
                      fmt::format("R={} rows/block {} {} {} ({} samples per stage)", r, rows, type, arch,
                                  s.tuning.timesPerStage));
        EXPECT_TRUE(c.ok()) << arch << " " << rows << " " << type << ": " << c.detail;
      }
}

TEST_F(GpuCorrelator, ReduceOverSeveralGridSweepsWithTailAndNoMissingReceivers) {
  // The reduce kernel's grid is capped at the resident blocks: 193 receivers x 7 channels (524 k visibilities,
  // not a multiple of a sweep's 1024 per block) take several sweeps per thread; batch 3, accumulators near
  // +-2^31 and at +-2^40 (saturation counted exactly: every component is compared). Then the same with no
  // receiver missing (the kernel's block-uniform fast path) and with one polarization (odd V).
  for (int variant = 0; variant < 3; ++variant) {
    CorrelatorSpec s = makeSpec(193, "ci8", "katgpucbf", variant == 2 ? 1 : 2, 7, 32, variant == 1);
    CorrelatorInputOptions o;
    o.missingFraction = variant == 1 ? 0.0 : 0.1;
    TestData d = correlatorInputs(s, 3, 900 + variant, o);
    Check c = run(s, d, 3,
                  fmt::format("reduce sweeps: R=193 C=7 P={} batch 3, {} missing", s.polarizations,
                              variant == 1 ? "none" : "10%"));
    EXPECT_TRUE(c.ok()) << c.detail;
    EXPECT_NE(c.detail.find("(checked)"), std::string::npos)
        << "the saturated count must be compared exactly: " << c.detail;
  }
}

TEST_F(GpuCorrelator, AccumulatesOverSeveralCalls) {
  CorrelatorSpec s = makeSpec(80, "ci8", "katgpucbf", 2, 2, 64, false);
  auto fs = makeCorrelatorSpec(s);
  Executor exec(compiler, fs->emit({"sm_90", nullptr}).plan);
  const long long batch = 2, n = s.visibilities() * 2;
  TestData d0 = correlatorInputs(s, batch, 1);
  DeviceArrays arrays(exec, d0, batch);
  // Two calls with dump = 0 on fresh samples, in the same accumulators.
  std::vector<std::int64_t> expect(static_cast<std::size_t>(n * batch));
  std::memcpy(expect.data(), d0.arrays["accumulators"].data(), expect.size() * 8);
  std::vector<TestData> calls;
  for (int k = 0; k < 2; ++k) {
    TestData dk = k == 0 ? d0 : correlatorInputs(s, batch, 10 + k);
    if (k > 0) {
      const std::size_t bytes = static_cast<std::size_t>(exec.arrayBytes("input", batch));
      ASSERT_EQ(cuMemcpyHtoD(arrays.bindings().at("input"), dk.arrays["input"].data(), bytes), CUDA_SUCCESS);
    }
    exec.run(arrays.bindings(), batch, nullptr, 0, -1, {{"dump", 0}});
    for (long long b = 0; b < batch; ++b)
      for (long long e = 0; e < n; ++e)
        expect[static_cast<std::size_t>(b * n + e)] += referenceProductInt(s, dk.arrays["input"], b, e);
  }
  auto out = arrays.downloadOutputs();
  std::vector<std::int64_t> got(expect.size());
  std::memcpy(got.data(), out["accumulators_out"].data(), got.size() * 8);
  long long bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) bad += got[i] != expect[i];
  EXPECT_EQ(bad, 0) << "accumulators after two calls with dump = 0";
  // Third call dumps: the reference from the accumulated state.
  TestData d3 = correlatorInputs(s, batch, 20);
  d3.arrays["accumulators"].assign(reinterpret_cast<const unsigned char*>(got.data()),
                                   reinterpret_cast<const unsigned char*>(got.data()) + got.size() * 8);
  d3.arrays["missing"] = d0.arrays["missing"];
  ASSERT_EQ(cuMemcpyHtoD(arrays.bindings().at("input"), d3.arrays["input"].data(), d3.arrays["input"].size()),
            CUDA_SUCCESS);
  arrays.poisonOutputs();
  exec.run(arrays.bindings(), batch);
  Check c = fs->check(d3, arrays.downloadOutputs(), batch);
  std::printf("[gpu-correlator] three calls, dump on the last: %s\n", c.detail.c_str());
  EXPECT_TRUE(c.ok()) << c.detail;
}

TEST_F(GpuCorrelator, Float16WithinTheF32Bound) {
  int k = 0;
  for (int r : {1, 3, 64, 193})
    for (const char* layout : {"tcc", "katgpucbf"}) {
      CorrelatorSpec s = makeSpec(r, "cf16", layout, 2, r >= 193 ? 1 : 2, 64, k % 2);
      TestData d = correlatorInputs(s, 2, 500 + k++);
      Check c = run(s, d, 2, fmt::format("cf16 R={} {}", r, layout));
      EXPECT_TRUE(c.ok()) << c.detail << " error " << c.error << " bound " << c.bound;
      std::printf("[gpu-correlator] cf16 R=%d %s: error %.3e (bound %.3e)\n", r, layout, c.error, c.bound);
    }
}

TEST_F(GpuCorrelator, SpecsInTheRepositoryPass) {
  for (const char* f : {"specs/correlator_meerkat_80_8bit.json"}) {
    const char* dir = std::getenv("WARPFORGE_SOURCE_DIR");
    const std::string file = std::string(dir ? dir : WARPFORGE_SOURCE_DIR) + "/" + f;
    auto fs = correlatorFamily().parse(parseJsonText(readSpecFileText(file), file), file);
    RunReport r = runSpec(compiler, *fs, {1, 1, 1, false, {}});
    std::printf("[gpu-correlator] %s: %s (%.3f ms)\n", f, r.check.detail.c_str(), r.ourMs);
    EXPECT_TRUE(r.check.ok()) << r.check.detail;
  }
}

TEST_F(GpuCorrelator, PipelineBitExactOnEveryLayoutTypeAndTile) {
  // The sm_90 pipeline (tuning.mma "pipeline"): 64- and 128-input tiles (one and two consumer warpgroups, setmaxnreg),
  // partial and diagonal tiles, a partial last stage, the three bulk-copy layouts (TCC time blocks, katgpucbf receiver
  // runs, one run per input), 8-bit, 4-bit and f16, both conventions, two batch entries, 1 / 2 / 4 stages per wait.
  // Skipped off sm_90.
  struct Case {
    int r, pols, rows;
    const char* type;
    const char* layout;
  };
  int seed = 0;
  for (const Case& c : std::vector<Case>{{193, 2, 128, "ci8", "tcc"},
                                         {193, 2, 64, "ci8", "katgpucbf"},
                                         {97, 2, 64, "ci4", "katgpucbf"},
                                         {150, 2, 128, "ci4", "tcc"},
                                         {80, 2, 128, "cf16", "tcc"},
                                         {70, 2, 64, "cf16", "katgpucbf"},
                                         {150, 1, 64, "ci8", "katgpucbf"},
                                         {33, 2, 128, "ci8", "tcc"}}) {
    const std::string ty = c.type, lay = c.layout;
    const int samples = ty == "cf16"                  ? 200
                        : ty == "ci4" && lay == "tcc" ? 224
                                                      : 208;  // partial last stages but for ci4 tcc (T = 32)
    CorrelatorSpec s = makeSpec(c.r, c.type, c.layout, c.pols, 2, samples, seed % 2, c.rows, "pipeline");
    if (seed % 3 == 2) s.tuning.transform = "shared";  // the consumers transform the row side
    if (makeCorrelatorSpec(s)->emit({"sm_90", nullptr}).plan.onlyArch != 90) GTEST_SKIP() << "no pipeline";
    CUdevice dev = 0;
    cuCtxGetDevice(&dev);
    if (deviceInfo(dev).arch != "sm_90") GTEST_SKIP() << "the pipeline is sm_90a code";
    // tuning.stages_per_sync: every case with one stage per wait, every other one with 2 too, 64-input tiles with 4.
    for (int perSync : {1, 2, 4}) {
      if ((perSync == 2 && seed % 2) || (perSync == 4 && c.rows != 64)) continue;
      s.tuning.stagesPerSync = perSync;
      TestData d = correlatorInputs(s, 2, 1200 + seed++);
      Check ck = run(s, d, 2,
                     fmt::format("pipeline R={} P={} {} {} {}-input tiles, {} samples, transform {}, {} stage(s) per "
                                 "wait",
                                 c.r, c.pols, c.type, c.layout, c.rows, s.samples, s.tuning.transform, perSync));
      EXPECT_TRUE(ck.ok()) << c.r << " " << c.type << " " << c.layout << " " << perSync << ": " << ck.detail;
    }
  }
}

TEST_F(GpuCorrelator, PipelineWholeTriangleBitExactOnEveryLayoutTypeAndOutput) {
  // The pipeline with the whole triangle of a channel in one block (tuning.whole_triangle; the default for TCC's
  // R = 64 / 80): 1, 2 and 3 consumer warpgroups, the three bulk-copy layouts, 8-bit, 4-bit and f16, both conventions,
  // both output models, partial last stages, two batch entries; half of them with two stages per wait too. Skipped off
  // sm_90.
  struct Case {
    int r, pols;
    const char* type;
    const char* layout;
  };
  CUdevice dev = 0;
  cuCtxGetDevice(&dev);
  if (deviceInfo(dev).arch != "sm_90") GTEST_SKIP() << "the pipeline is sm_90a code";
  int seed = 0;
  for (const Case& c : std::vector<Case>{{80, 2, "ci8", "tcc"},
                                         {64, 2, "ci8", "tcc"},
                                         {77, 2, "ci8", "katgpucbf"},
                                         {80, 2, "ci4", "tcc"},
                                         {50, 2, "ci4", "katgpucbf"},
                                         {80, 2, "cf16", "tcc"},
                                         {64, 2, "cf16", "katgpucbf"},
                                         {150, 1, "ci8", "katgpucbf"},
                                         {20, 2, "ci8", "tcc"}})
    for (const char* output : {"accumulators", "visibilities"}) {
      const std::string ty = c.type, lay = c.layout;
      const int samples = ty == "cf16" ? 200 : ty == "ci4" && lay == "tcc" ? 224 : 208;
      CorrelatorSpec s = makeSpec(c.r, c.type, c.layout, c.pols, 2, samples, seed % 2, 0, "pipeline");
      s.tuning.wholeTriangle = 1;
      s.output = output;
      for (int perSync : {1, 2}) {  // tuning.stages_per_sync: two stages per loader iteration and consumer wait
        if (perSync == 2 && seed % 2) continue;
        s.tuning.stagesPerSync = perSync;
        TestData d = correlatorInputs(s, 2, 1700 + seed++);
        Check ck = run(s, d, 2,
                       fmt::format("pipeline, whole triangle, R={} P={} {} {}, {} samples, output {}, {} stage(s) per "
                                   "wait",
                                   c.r, c.pols, c.type, c.layout, s.samples, output, perSync));
        EXPECT_TRUE(ck.ok()) << c.r << " " << c.type << " " << c.layout << " " << output << " " << perSync << ": "
                             << ck.detail;
      }
    }
}

TEST_F(GpuCorrelator, VisibilitiesOutputBitExactOnEveryPathLayoutTypeAndTile) {
  // Output "visibilities" (TCC's model: each call's visibilities written once, no accumulators): the pipeline cases of
  // PipelineBitExactOnEveryLayoutTypeAndTile (the default path on sm_90), then the register-staged wgmma kernel and
  // mma.sync; both conventions (the lane exchange of either polarization bit), one polarization (8-byte stores), three
  // batch entries, outputs poisoned. The pipeline cases need an sm_90 device.
  struct Case {
    int r, pols, rows;
    const char* type;
    const char* layout;
    const char* mma;
  };
  CUdevice dev = 0;
  cuCtxGetDevice(&dev);
  const bool sm90 = deviceInfo(dev).arch == "sm_90";
  int seed = 0;
  for (const Case& c : std::vector<Case>{{193, 2, 128, "ci8", "tcc", "pipeline"},
                                         {193, 2, 64, "ci8", "katgpucbf", "pipeline"},
                                         {97, 2, 64, "ci4", "katgpucbf", "pipeline"},
                                         {150, 2, 128, "ci4", "tcc", "pipeline"},
                                         {80, 2, 128, "cf16", "tcc", "pipeline"},
                                         {70, 2, 64, "cf16", "katgpucbf", "pipeline"},
                                         {150, 1, 64, "ci8", "katgpucbf", "pipeline"},
                                         {33, 2, 128, "ci8", "tcc", "pipeline"},
                                         {193, 2, 128, "ci8", "katgpucbf", "wgmma"},
                                         {80, 2, 64, "cf16", "tcc", "wgmma"},
                                         {97, 2, 64, "ci4", "tcc", "mma_sync"},
                                         {97, 1, 32, "ci8", "katgpucbf", "mma_sync"},
                                         {31, 2, 128, "cf16", "katgpucbf", "mma_sync"}}) {
    const std::string ty = c.type, lay = c.layout, mma = c.mma;
    if (mma != "mma_sync" && !sm90) continue;
    // Partial last stages on the pipeline (but for ci4 tcc: T = 32); several full stages elsewhere.
    const int samples = mma != "pipeline" ? 256 : ty == "cf16" ? 200 : ty == "ci4" && lay == "tcc" ? 224 : 208;
    for (bool tcc : {false, true}) {
      CorrelatorSpec s = makeSpec(c.r, c.type, c.layout, c.pols, 2, samples, tcc, c.rows, c.mma);
      s.output = "visibilities";
      if (seed % 3 == 2 && mma == "pipeline") s.tuning.transform = "shared";
      TestData d = correlatorInputs(s, 3, 1500 + seed++);
      Check ck = run(s, d, 3,
                     fmt::format("visibilities {} R={} P={} {} {} {}-input tiles, {} samples, {} convention", c.mma,
                                 c.r, c.pols, c.type, c.layout, c.rows, s.samples, tcc ? "TCC" : "issue"));
      EXPECT_TRUE(ck.ok()) << c.mma << " " << c.r << " " << c.type << " " << c.layout << ": " << ck.detail;
      if (s.integer()) EXPECT_EQ(ck.error, 0);
    }
  }
  // At the exactness limit: every sample -128 - 128i (read as -127 - 127i), 65536 samples: sums of 2.11e9 written as
  // int32.
  CorrelatorSpec s = makeSpec(3, "ci8", "tcc", 2, 1, 65536, false);
  s.output = "visibilities";
  TestData d = correlatorInputs(s, 1, 9);
  std::memset(d.arrays["input"].data(), 0x80, d.arrays["input"].size());
  Check ck = run(s, d, 1, "visibilities ci8 all minimum, 65536 samples");
  EXPECT_TRUE(ck.ok()) << ck.detail;
}

TEST_F(GpuCorrelator, BulkStoreBitExactOnEveryTileTypeAndOrder) {
  // The visibilities staged in shared memory and copied out by bulk stores (tuning.store "bulk"): ci8 and cf16, 64-
  // and 128-input tiles, diagonal, off-diagonal, partial and narrow edge tiles, both conventions and polarization
  // orders, persistent blocks over 64 channels (the staging reused tile after tile) and a block per tile, partial last
  // stages, two batch entries. Skipped off sm_90.
  CUdevice dev = 0;
  cuCtxGetDevice(&dev);
  if (deviceInfo(dev).arch != "sm_90") GTEST_SKIP() << "the pipeline is sm_90a code";
  struct Case {
    int r, rows;
    const char* type;
    bool persistent;
  };
  int seed = 0;
  for (const Case& c : std::vector<Case>{{576, 128, "ci8", true},
                                         {193, 128, "ci8", false},
                                         {70, 128, "ci8", true},
                                         {80, 64, "ci8", true},
                                         {150, 128, "cf16", true},
                                         {33, 64, "cf16", false},
                                         {300, 128, "ci8", false}}) {
    const bool f16 = std::string(c.type) == "cf16";
    CorrelatorSpec s = makeSpec(c.r, c.type, "tcc", 2, c.persistent ? 64 : 2,
                                seed % 2 ? (f16 ? 208 : 224) : (f16 ? 200 : 208), seed % 2, c.rows, "pipeline");
    s.symmetric = !f16;
    s.output = "visibilities";
    s.tuning.transform = "none";
    s.tuning.persistent = c.persistent ? 1 : 0;
    s.tuning.bulkStore = 1;
    TestData d = correlatorInputs(s, 2, 1800 + seed++);
    Check ck = run(s, d, 2,
                   fmt::format("bulk store R={} {} {}-input tiles, {} samples, {} slots{}", c.r, c.type, c.rows,
                               s.samples, directPipe(s, c.rows).stages,
                               c.persistent ? ", persistent blocks over 64 channels" : ", a block per tile"));
    EXPECT_TRUE(ck.ok()) << c.r << " " << c.type << " " << c.rows << ": " << ck.detail;
  }
}

TEST_F(GpuCorrelator, OperandsAsStoredBitExactOnEveryTileTypeAndOutput) {
  // The pipeline with the operands as stored (tuning.transform "none": cp.async into the operand ring, A's Im rows in
  // registers, wgmma with A from registers): ci8 with sample_range "symmetric" and cf16; 64- and 128-input tiles,
  // partial and diagonal tiles, one and two polarizations, both conventions and output models, partial last stages,
  // rings wrapping, two batch entries; then all samples at -127 - 127i and +127 + 127i at the exactness limit.
  // Skipped off sm_90.
  CUdevice dev = 0;
  cuCtxGetDevice(&dev);
  if (deviceInfo(dev).arch != "sm_90") GTEST_SKIP() << "the pipeline is sm_90a code";
  struct Case {
    int r, pols, rows;
    const char* type;
    const char* output;
  };
  int seed = 0;
  for (const Case& c : std::vector<Case>{{193, 2, 128, "ci8", "accumulators"},
                                         {64, 2, 128, "ci8", "visibilities"},
                                         {80, 2, 64, "ci8", "visibilities"},
                                         {150, 1, 64, "ci8", "accumulators"},
                                         {576, 2, 128, "ci8", "visibilities"},
                                         {80, 2, 128, "cf16", "visibilities"},
                                         {33, 2, 64, "cf16", "visibilities"},
                                         {150, 2, 128, "ci8", "accumulators"},
                                         {100, 1, 64, "ci8", "accumulators"}}) {
    const bool f16 = std::string(c.type) == "cf16";
    // Odd cases with the row side by bulk copies, every fourth with it multicast in cluster pairs (whole stages: 13 of
    // f16, 7 of ci8), the others with a partial last stage.
    const bool bulk = seed % 2 == 1 || seed % 4 == 0;
    // Cases 2 and 5 with persistent blocks, over 64 channels: more units than resident blocks, so blocks loop.
    const bool persistent = seed == 2 || seed == 5;
    CorrelatorSpec s = makeSpec(c.r, c.type, "tcc", c.pols, persistent ? 64 : 2,
                                bulk ? (f16 ? 208 : 224) : (f16 ? 200 : 208), seed % 2, c.rows, "pipeline");
    s.tuning.persistent = persistent ? 1 : 0;
    s.symmetric = !f16;
    s.output = c.output;
    s.tuning.transform = "none";
    s.tuning.rowCopies = seed % 4 == 0 ? 2 : bulk ? 1 : 0;  // 2: multicast in cluster pairs, 0: cp.async
    // Every third 128-input case with two stages per wait (groups of two, 8 slots), the others one per wait.
    s.tuning.stagesPerSync = c.rows == 128 && seed % 3 == 0 ? 2 : 1;
    s.tuning.stagesPerSyncGiven = true;
    s.tuning.stages = s.tuning.stagesPerSync == 1 && seed % 3 == 1 ? 4 : 0;
    TestData d = correlatorInputs(s, 2, 1700 + seed++);
    Check ck = run(s, d, 2,
                   fmt::format("operands as stored R={} P={} {} {}-input tiles, {} samples, {}, {} slots, {} per "
                               "wait{}{}",
                               c.r, c.pols, c.type, c.rows, s.samples, c.output, s.tuning.stages ? s.tuning.stages : 8,
                               s.tuning.stagesPerSync, persistent ? ", persistent blocks over 64 channels" : "",
                               directPipe(s, c.rows).pairs   ? ", row side multicast in cluster pairs"
                               : directPipe(s, c.rows).bulkA ? ", row side by bulk copies (diagonal tiles: cp.async)"
                                                             : ", row side by cp.async"));
    EXPECT_TRUE(ck.ok()) << c.r << " " << c.type << " " << c.rows << ": " << ck.detail;
  }
  CorrelatorSpec s = makeSpec(3, "ci8", "tcc", 2, 1, 66560, false, 128, "pipeline");
  s.symmetric = true;
  s.tuning.transform = "none";
  s.tuning.stagesPerSync = 1;
  CorrelatorInputOptions o;
  o.accumulators = CorrelatorInputOptions::Accumulators::Zero;
  o.missingFraction = 0;
  TestData d = correlatorInputs(s, 1, 9, o);
  for (const unsigned char v : {0x81, 0x7f}) {
    std::memset(d.arrays["input"].data(), v, d.arrays["input"].size());
    Check c = run(s, d, 1,
                  fmt::format("operands as stored, every component {}, {} samples", v == 0x81 ? -127 : 127, s.samples));
    EXPECT_TRUE(c.ok()) << c.detail;
  }
}
