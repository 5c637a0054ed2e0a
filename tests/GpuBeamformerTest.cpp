// The beamformer on the GPU (skipped without a device): integer paths bit-exact against the
// int64 CPU reference over the full value range (-128 and -8 included) with shift and
// saturation, odd sizes (M, K, N in {1, 7, 33, 1000}), batches, channels and pols, both
// complex formats, every output mode (cf32, cf16, ci8, ci4 beams; power); outputs poisoned
// with 0xff and checked all written; f16 within the f32-accumulation bound.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "bench/RunCheck.h"
#include "generator/beamformer/BeamformerData.h"
#include "generator/beamformer/BeamformerFamily.h"
#include "warpforge/compiler.h"
#include "warpforge/device.h"

using namespace warpforge;

namespace {

BeamformerSpec makeSpec(long long K, long long M, long long N, const std::string& st, const std::string& wt, const std::string& output,
                        const std::string& extra = "") {
  return parseBeamformerSpecText(
      fmt::format(R"({{"name": "gpu_bf", "family": "beamformer", "receivers": {}, "beams": {}, "samples_per_call": {}, "sample_type": "{}",
                      "weight_type": "{}", "output": {}{}}})",
                  K, M, N, st, wt, output, extra),
      "gpu.json");
}

// Parsed through the family itself (works before the family is registered in the table).
std::unique_ptr<FamilySpec> loadSpecFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return beamformerFamily().parse(parseJsonText(ss.str(), path), path);
}

class GpuBeamformer : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!deviceAvailable()) GTEST_SKIP() << "no CUDA device: " << deviceUnavailableReason();
    useDefaultDevice();
  }
  Compiler compiler;

  Check run(const BeamformerSpec& s, long long batch, std::uint64_t seed, const std::string& label) {
    auto fs = makeBeamformerSpec(s);
    Generated g = fs->emit({"sm_90", nullptr});
    Executor exec(compiler, g.plan);
    TestData data = fs->randomInputs(batch, seed);
    DeviceArrays arrays(exec, data, batch);  // outputs poisoned with 0xff
    exec.run(arrays.bindings(), batch);
    Check c = fs->check(data, arrays.downloadOutputs(), batch);
    std::printf("[gpu-beamformer] %s: %s\n", label.c_str(), c.detail.c_str());
    return c;
  }
};

const char* kOutputs[] = {R"({"kind": "beams", "type": "cf32"})", R"({"kind": "beams", "type": "cf16"})", R"({"kind": "beams", "type": "ci8"})",
                          R"({"kind": "beams", "type": "ci4"})", R"({"kind": "power", "integrate": 1})"};

}  // namespace

TEST_F(GpuBeamformer, IntegerBitExactForOddSizes) {
  int seed = 0;
  for (long long K : {1, 7, 33, 1000})
    for (long long M : {1, 7, 33, 1000})
      for (long long N : {1, 7, 33, 1000}) {
        if (K * M * N > 40000000) continue;  // the CPU reference's time
        const char* st = seed % 2 ? "ci4" : "ci8";
        const char* wt = seed % 3 ? "ci8" : "ci4";
        const char* out = seed % 2 ? R"({"kind": "beams", "type": "ci8"})" : R"({"kind": "beams", "type": "cf32"})";
        BeamformerSpec s = makeSpec(K, M, N, st, wt, out);
        Check c = run(s, 2, 1000 + seed, fmt::format("K={} M={} N={} {} x {} {}", K, M, N, st, wt, out));
        EXPECT_TRUE(c.ok()) << c.detail;
        EXPECT_EQ(c.error, 0);
        ++seed;
      }
}

TEST_F(GpuBeamformer, EveryOutputModeTypeAndFormat) {
  int seed = 0;
  for (const char* st : {"ci4", "ci8", "cf16"})
    for (const char* format : {"interleaved", "planar"})
      for (const char* out : kOutputs) {
        const bool f16 = std::string(st) == "cf16";
        if (f16 && std::string(out).find("\"ci") != std::string::npos) continue;
        if (std::string(st) == "ci4" && std::string(format) == "planar") continue;
        const std::string wt = f16 ? "cf16" : "ci8";
        const std::string extra = fmt::format(R"(, "channels": 3, "polarizations": 2, "samples": {{"format": "{}"}}, "weights": {{"format": "{}"}})", format, format);
        BeamformerSpec s = makeSpec(65, 70, 130, st, wt, out, extra);
        Check c = run(s, 2, 2000 + seed++, fmt::format("{} x {} {} {}", st, wt, format, out));
        EXPECT_TRUE(c.ok()) << st << " " << format << " " << out << ": " << c.detail;
        EXPECT_EQ(c.unwritten, 0);
      }
}

TEST_F(GpuBeamformer, ExtremeValuesAndSaturation) {
  // Every sample and weight component at -128 / -8 or +127 / +7 (extremeFraction 1): the int32 sums at their largest,
  // -128 in samples read as -127, weights' -128 and ci4 -8 exact; shifts of 0 saturate every beam.
  for (const char* st : {"ci8", "ci4"})
    for (const char* out : {R"({"kind": "beams", "type": "ci8"})", R"({"kind": "beams", "type": "ci4"})", R"({"kind": "beams", "type": "cf32"})"}) {
      BeamformerSpec s = makeSpec(st == std::string("ci8") ? 65000 : 1024, 9, 17, st, "ci8", out);
      auto fs = makeBeamformerSpec(s);
      Generated g = fs->emit({"sm_90", nullptr});
      Executor exec(compiler, g.plan);
      TestData data = beamformerInputs(s, 1, 77, BfInputOptions{1.0});
      DeviceArrays arrays(exec, data, 1);
      exec.run(arrays.bindings(), 1);
      Check c = fs->check(data, arrays.downloadOutputs(), 1);
      std::printf("[gpu-beamformer] extremes %s %s: %s\n", st, out, c.detail.c_str());
      EXPECT_TRUE(c.ok()) << c.detail;
    }
}

TEST_F(GpuBeamformer, PowerIntegrationLengthsAndStridedSharedWeights) {
  int seed = 0;
  for (long long I : {1, 3, 16, 64, 100, 1000})
    for (const char* st : {"ci4", "cf16"}) {
      const std::string wt = std::string(st) == "cf16" ? "cf16" : "ci8";
      // Weights shared by the batch entries (batch stride 0), strided [pol][channel][beam][receiver].
      const long long K = 40, M = 33, C = 2, P = 2;
      const std::string extra = fmt::format(
          R"(, "channels": {}, "polarizations": {}, "weights": {{"layout": "strides", "strides": {{"batch": 0, "channel": {}, "polarization": {}, "beam": {}, "receiver": 1}}}})",
          C, P, M * K, C * M * K, K);
      BeamformerSpec s = makeSpec(K, M, 3000, st, wt, fmt::format(R"({{"kind": "power", "integrate": {}}})", I), extra);
      Check c = run(s, 3, 3000 + seed++, fmt::format("power I={} {}", I, st));
      EXPECT_TRUE(c.ok()) << I << " " << st << ": " << c.detail;
    }
}

TEST_F(GpuBeamformer, EverySpecInSpecs) {
  for (const char* f : {"beamformer_chord_512x96_4bit.json", "beamformer_lofar_576x1024_f16.json", "beamformer_frb_power.json"}) {
    std::string path = std::string(WARPFORGE_SOURCE_DIR) + "/specs/" + f;
    if (!std::ifstream(path)) path = std::string(WARPFORGE_SOURCE_DIR) + "/generator/beamformer/specs/" + f;
    auto fs = loadSpecFile(path);
    RunOptions o;
    o.batch = 1;
    o.baseline = false;
    RunReport r = runSpec(compiler, *fs, o);
    std::printf("[gpu-beamformer] %s: %.3f ms; %s\n", f, r.ourMs, r.check.detail.c_str());
    EXPECT_TRUE(r.check.ok()) << f << ": " << r.check.detail;
  }
}
