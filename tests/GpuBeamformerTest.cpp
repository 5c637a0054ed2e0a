// The beamformer on the GPU (skipped without a device): integer paths bit-exact against the
// int64 CPU reference over the full value range (-128 and -8 included) with shift and
// saturation, odd sizes (M, K, N in {1, 7, 33, 1000}), batches, channels and pols, both
// complex formats, every output mode (cf32, cf16, ci8, ci4 beams, interleaved or planar; power); outputs poisoned
// with 0xff and checked all written; f16 within the f32-accumulation bound; integer beams' saturation
// count exact and per call.
// Time: every kernel of a test is NVRTC-compiled up front on all host cores (then the Executor hits the
// in-memory cache); large cases compare a seeded sample of the elements (kBfCheckBudget), all checked written.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "bench/RunCheck.h"
#include "generator/beamformer/BeamformerData.h"
#include "generator/beamformer/BeamformerFamily.h"
#include "warpforge/compiler.h"
#include "warpforge/device.h"

using namespace warpforge;

namespace {

BeamformerSpec makeSpec(long long K, long long M, long long N, const std::string& st, const std::string& wt,
                        const std::string& output, const std::string& extra = "") {
  return parseBeamformerSpecText(
      fmt::format(
          R"({{"name": "gpu_bf", "family": "beamformer", "receivers": {}, "beams": {}, "samples_per_call": {}, "sample_type": "{}",
                      "weight_type": "{}", "output": {}{}}})",
          K, M, N, st, wt, output, extra),
      "gpu.json");
}

class GpuBeamformer : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!deviceAvailable()) GTEST_SKIP() << "no CUDA device: " << deviceUnavailableReason();
    useDefaultDevice();
  }
  Compiler compiler;

  std::string arch() {
    CUdevice dev = 0;
    checkCu(cuCtxGetDevice(&dev), "cuCtxGetDevice");
    return deviceInfo(dev).arch;
  }
  // As `warpforge run` emits: for this GPU's arch, with the compiler at hand (register budget relaxed where ptxas would
  // spill).
  Generated emitFor(const BeamformerSpec& s) {
    NvrtcProbe probe;
    return makeBeamformerSpec(s)->emit({arch(), &probe});
  }

  // Emit and NVRTC every spec's kernel on all host cores first (the Executor then hits the compiler's cache).
  void precompile(const std::vector<BeamformerSpec>& specs) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::string a = arch();
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < std::max(1u, std::thread::hardware_concurrency()); ++t)
      pool.emplace_back([&] {
        for (std::size_t i; (i = next++) < specs.size();) try {
            NvrtcProbe probe;
            for (const auto& src : makeBeamformerSpec(specs[i])->emit({a, &probe}).plan.sources)
              compiler.compile(src.text, specs[i].name, compileTarget(src, a));
          } catch (...) {  // reported again when the case runs
          }
      });
    for (auto& t : pool) t.join();
    std::printf("[gpu-beamformer] %zu specs emitted and compiled in %.1f s\n", specs.size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }

  Check run(const BeamformerSpec& s, long long batch, std::uint64_t seed, const std::string& label) {
    auto fs = makeBeamformerSpec(s);
    Generated g = emitFor(s);
    Executor exec(compiler, g.plan);
    TestData data = fs->randomInputs(batch, seed);
    DeviceArrays arrays(exec, data, batch);  // outputs poisoned with 0xff
    exec.run(arrays.bindings(), batch);
    Check c = fs->check(data, arrays.downloadOutputs(), batch);
    std::printf("[gpu-beamformer] %s: %s\n", label.c_str(), c.detail.c_str());
    return c;
  }
};

const char* kOutputs[] = {R"({"kind": "beams", "type": "cf32"})",
                          R"({"kind": "beams", "type": "cf16"})",
                          R"({"kind": "beams", "type": "ci8"})",
                          R"({"kind": "beams", "type": "ci4"})",
                          R"({"kind": "power", "integrate": 1})",
                          R"({"kind": "beams", "type": "cf32", "format": "planar"})",
                          R"({"kind": "beams", "type": "cf16", "format": "planar"})",
                          R"({"kind": "beams", "type": "ci8", "format": "planar"})"};

}  // namespace

TEST_F(GpuBeamformer, IntegerBitExactForOddSizes) {
  // A Latin square over (K, M, N) in {1, 7, 33, 1000}: every size on every axis four times, every (K, M) pair once,
  // 1000 x 1000 x 33 the largest; types and outputs alternate.
  const long long sizes[] = {1, 7, 33, 1000};
  struct Case {
    BeamformerSpec s;
    std::string label;
  };
  std::vector<Case> cases;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const int seed = static_cast<int>(cases.size());
      const long long K = sizes[i], M = sizes[j], N = sizes[(i + j) % 4];
      const char* st = seed % 2 ? "ci4" : "ci8";
      const char* wt = seed % 3 ? "ci8" : "ci4";
      const char* out = seed % 4 == 1   ? R"({"kind": "beams", "type": "ci8"})"
                        : seed % 4 == 3 ? R"({"kind": "beams", "type": "ci4"})"
                                        : R"({"kind": "beams", "type": "cf32"})";
      cases.push_back({makeSpec(K, M, N, st, wt, out), fmt::format("K={} M={} N={} {} x {} {}", K, M, N, st, wt, out)});
    }
  std::vector<BeamformerSpec> specs;
  for (const auto& c : cases) specs.push_back(c.s);
  precompile(specs);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    Check c = run(cases[i].s, 2, 1000 + i, cases[i].label);
    EXPECT_TRUE(c.ok()) << cases[i].label << ": " << c.detail;
    EXPECT_EQ(c.error, 0) << cases[i].label;
  }
}

TEST_F(GpuBeamformer, EveryOutputModeTypeAndFormat) {
  std::vector<std::pair<BeamformerSpec, std::string>> cases;
  for (const char* st : {"ci4", "ci8", "cf16"})
    for (const char* format : {"interleaved", "planar"})
      for (const char* out : kOutputs) {
        const bool f16 = std::string(st) == "cf16";
        if (f16 && std::string(out).find("\"ci") != std::string::npos) continue;
        if (std::string(st) == "ci4" && std::string(format) == "planar") continue;
        const std::string wt = f16 ? "cf16" : "ci8";
        const std::string extra = fmt::format(
            R"(, "channels": 3, "polarizations": 2, "samples": {{"format": "{}"}}, "weights": {{"format": "{}"}})",
            format, format);
        cases.push_back({makeSpec(65, 70, 130, st, wt, out, extra), fmt::format("{} x {} {} {}", st, wt, format, out)});
      }
  std::vector<BeamformerSpec> specs;
  for (const auto& c : cases) specs.push_back(c.first);
  precompile(specs);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    Check c = run(cases[i].first, 2, 2000 + i, cases[i].second);
    EXPECT_TRUE(c.ok()) << cases[i].second << ": " << c.detail;
    EXPECT_EQ(c.unwritten, 0) << cases[i].second;
  }
}

TEST_F(GpuBeamformer, ExtremeValuesAndSaturation) {
  // Every sample and weight component at -128 / -8 or +127 / +7 (extremeFraction 1): the int32 sums at their largest,
  // -128 in samples read as -127, weights' -128 and ci4 -8 exact; shifts of 0 saturate every beam.
  std::vector<BeamformerSpec> specs;
  for (const char* st : {"ci8", "ci4"})
    for (const char* out : {R"({"kind": "beams", "type": "ci8"})", R"({"kind": "beams", "type": "ci4"})",
                            R"({"kind": "beams", "type": "cf32"})"})
      specs.push_back(makeSpec(st == std::string("ci8") ? 65000 : 1024, 9, 17, st, "ci8", out));
  precompile(specs);
  for (const BeamformerSpec& s : specs) {
    auto fs = makeBeamformerSpec(s);
    Generated g = emitFor(s);
    Executor exec(compiler, g.plan);
    TestData data = beamformerInputs(s, 1, 77, BfInputOptions{1.0});
    DeviceArrays arrays(exec, data, 1);
    exec.run(arrays.bindings(), 1);
    Check c = fs->check(data, arrays.downloadOutputs(), 1);
    std::printf("[gpu-beamformer] extremes %s -> %s: %s\n", bfTypeName(s.in.type),
                s.power ? "power" : bfOutTypeName(s.outType), c.detail.c_str());
    EXPECT_TRUE(c.ok()) << c.detail;
  }
}

TEST_F(GpuBeamformer, SaturationCountExactPerCall) {
  // Integer beams count the complex beams with a clamped component (`saturated`, uint64): compared exactly (every
  // element compared at these sizes), per call: three calls in a row on the same arrays (outputs poisoned before
  // each) give the same count, so the kernel leaves its counters zero; one and two shared-memory stages, batches
  // 1 and 3 (every block of the grid reaches the count), odd sizes.
  struct Case {
    BeamformerSpec s;
    long long batch;
    std::string label;
  };
  std::vector<Case> cases;
  int n = 0;
  for (const char* st : {"ci4", "ci8"})
    for (const char* out : {R"({"kind": "beams", "type": "ci8"})", R"({"kind": "beams", "type": "ci4"})"})
      for (int stages : {1, 2}) {
        const long long K = n % 2 ? 100 : 33, M = n % 3 ? 33 : 70, N = n % 2 ? 70 : 131;
        const std::string extra = fmt::format(R"(, "channels": 2, "polarizations": 2, "tuning": {{"stages": {}}})",
                                              stages);
        cases.push_back({makeSpec(K, M, N, st, "ci8", out, extra), n % 2 ? 3 : 1,
                         fmt::format("saturation K={} M={} N={} {} {} stages {}", K, M, N, st, out, stages)});
        ++n;
      }
  std::vector<BeamformerSpec> specs;
  for (const auto& c : cases) specs.push_back(c.s);
  precompile(specs);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& cs = cases[i];
    auto fs = makeBeamformerSpec(cs.s);
    Generated g = emitFor(cs.s);
    Executor exec(compiler, g.plan);
    TestData data = fs->randomInputs(cs.batch, 4000 + i);
    DeviceArrays arrays(exec, data, cs.batch);
    std::vector<unsigned long long> counts;
    for (int call = 0; call < 3; ++call) {
      arrays.poisonOutputs();
      exec.run(arrays.bindings(), cs.batch);
      const auto outs = arrays.downloadOutputs();
      Check c = fs->check(data, outs, cs.batch);
      unsigned long long got = 0;
      std::memcpy(&got, outs.at("saturated").data(), 8);
      counts.push_back(got);
      std::printf("[gpu-beamformer] %s call %d: %s\n", cs.label.c_str(), call, c.detail.c_str());
      EXPECT_TRUE(c.ok()) << cs.label << " call " << call << ": " << c.detail;
      EXPECT_NE(c.detail.find("(exact, want"), std::string::npos) << cs.label << ": the count was not compared exactly";
    }
    EXPECT_GT(counts[0], 0u) << cs.label << ": the test's shifts should clamp some beams";
    EXPECT_EQ(counts[1], counts[0]) << cs.label;
    EXPECT_EQ(counts[2], counts[0]) << cs.label;
  }
}

TEST_F(GpuBeamformer, WideLoadsWithReceiverTails) {
  // 16-byte global loads (8 bytes for ci4) where every stride is a multiple of a chunk's receivers: rows padded to
  // 48 receivers with K = 33 / 41 (the last chunk of a row read word by word) and K = 48 (whole chunks, the second
  // stage's chunks past K); each also with "loads": "words" and with the samples' conj / swap made in registers
  // ("expand": "registers") instead of at staging. Bit-exact for integers, bounded for cf16; outputs all written.
  std::vector<std::pair<BeamformerSpec, std::string>> cases;
  for (const char* st : {"ci4", "ci8", "cf16"})
    for (long long K : {33, 41, 48})
      for (const char* variant : {R"("loads": "wide")", R"("loads": "words")", R"("expand": "registers")"}) {
        const bool f16 = std::string(st) == "cf16";
        const long long M = 37, N = 75, C = 2, P = 2, R = 48;
        const std::string extra = fmt::format(
            R"(, "channels": {0}, "polarizations": {1},
               "samples": {{"layout": "strides", "strides": {{"batch": {2}, "channel": {3}, "polarization": {4}, "time": {5}, "receiver": 1}}}},
               "weights": {{"layout": "strides", "strides": {{"batch": {6}, "channel": {7}, "polarization": {8}, "beam": {5}, "receiver": 1}}}},
               "tuning": {{{9}}})",
            C, P, C * P * N * R, P * N * R, N * R, R, C * P * M * R, P * M * R, M * R, variant);
        const char* out = f16       ? R"({"kind": "beams", "type": "cf32"})"
                          : K == 41 ? R"({"kind": "beams", "type": "ci8"})"
                                    : R"({"kind": "beams", "type": "cf32"})";
        cases.push_back({makeSpec(K, M, N, st, f16 ? "cf16" : "ci8", out, extra),
                         fmt::format("{} K={} padded to {} {}", st, K, R, variant)});
      }
  std::vector<BeamformerSpec> specs;
  for (const auto& c : cases) specs.push_back(c.first);
  precompile(specs);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    Check c = run(cases[i].first, 2, 5000 + i / 3, cases[i].second);  // the same data for the three variants
    EXPECT_TRUE(c.ok()) << cases[i].second << ": " << c.detail;
    EXPECT_EQ(c.unwritten, 0) << cases[i].second;
  }
}

TEST_F(GpuBeamformer, WgmmaPathMatchesTheReference) {
  // The sm_90a path ("mma": "wgmma"): every output mode for ci4 / ci8 / cf16 samples, rows padded to 16-byte
  // multiples with K tails inside a chunk (K = 50 in rows of 64, 200 in rows of 208), M tails across the 256-beam
  // tile (300) and below one s8 N step (20 -> N = 32), N tails (130 samples), 2 channels x 2 pols x batch 2, rings of
  // 3, 4 and 6 stages; power over windows inside a tile (I = 10) and across tiles (I = 130). Bit-exact for integers,
  // the f32-accumulation bound for cf16, every output written; the plan must carry the sm_90a source.
  if (arch() != "sm_90") GTEST_SKIP() << "wgmma needs sm_90 (this device: " << arch() << ")";
  std::vector<std::pair<BeamformerSpec, std::string>> cases;
  int i = 0;
  for (const char* st : {"ci4", "ci8", "cf16"})
    for (const char* out : {R"({"kind": "beams", "type": "cf32"})", R"({"kind": "beams", "type": "cf16"})",
                            R"({"kind": "beams", "type": "ci8"})", R"({"kind": "beams", "type": "ci4"})",
                            R"({"kind": "power", "integrate": 10})", R"({"kind": "power", "integrate": 130})"}) {
      const bool f16 = std::string(st) == "cf16";
      if (f16 && std::string(out).find("\"ci") != std::string::npos) continue;
      const long long K = i % 2 ? 200 : 50, R = K == 50 ? 64 : 208,
                      M = i % 3 == 0   ? 300
                          : i % 3 == 1 ? 20
                                       : 96,
                      N = 130, C = 2, P = 2;
      const int stages = 3 + i % 3 == 5 ? 6 : 3 + i % 3;
      const std::string extra = fmt::format(
          R"(, "channels": {0}, "polarizations": {1},
             "samples": {{"layout": "strides", "strides": {{"batch": {2}, "channel": {3}, "polarization": {4}, "time": {5}, "receiver": 1}}}},
             "weights": {{"layout": "strides", "strides": {{"batch": {6}, "channel": {7}, "polarization": {8}, "beam": {5}, "receiver": 1}}}},
             "tuning": {{"mma": "wgmma", "stages": {9}}})",
          C, P, C * P * N * R, P * N * R, N * R, R, C * P * M * R, P * M * R, M * R, stages);
      cases.push_back({makeSpec(K, M, N, st, f16 ? "cf16" : "ci8", out, extra),
                       fmt::format("wgmma {} K={} (rows {}) M={} N={} {} stages {}", st, K, R, M, N, out, stages)});
      ++i;
    }
  // 128-beam tiles (the default), two blocks per SM (enough blocks that SMs hold two), and 256-beam tiles: where a
  // stage's wgmmas stay in flight across the next stage's A loads, ptxas may reuse their A registers and the sums go
  // wrong on these tilings (the CPU emulation cannot see register reuse).
  for (const char* st : {"cf16", "ci4"})
    for (int beams : {128, 256}) {
      const bool f16 = std::string(st) == "cf16";
      const std::string extra = fmt::format(R"(, "channels": 2, "tuning": {{"mma": "wgmma", "block_beams": {}}})",
                                            beams);
      const char* out = f16 ? R"({"kind": "beams", "type": "cf32"})" : R"({"kind": "power", "integrate": 16})";
      cases.push_back({makeSpec(256, 512, 4096, st, f16 ? "cf16" : "ci8", out, extra),
                       fmt::format("wgmma {} K=256 M=512 N=4096 block_beams {} {}", st, beams, out)});
    }
  std::vector<BeamformerSpec> specs;
  for (const auto& c : cases) specs.push_back(c.first);
  precompile(specs);
  for (std::size_t j = 0; j < cases.size(); ++j) {
    ASSERT_TRUE(emitFor(cases[j].first).plan.sources[0].archSpecific) << cases[j].second << ": not the wgmma kernel";
    Check c = run(cases[j].first, 2, 7000 + j, cases[j].second);
    EXPECT_TRUE(c.ok()) << cases[j].second << ": " << c.detail;
    EXPECT_EQ(c.unwritten, 0) << cases[j].second;
    if (cases[j].first.integer() && cases[j].first.power == false) EXPECT_EQ(c.error, 0) << cases[j].second;
  }
}

TEST_F(GpuBeamformer, PowerIntegrationLengthsAndStridedSharedWeights) {
  // N a multiple of I (the spec requires it) and, where I < 64, not a multiple of the 64-sample tile: windows split
  // across blocks' tails; I >= 64: three windows of one or several tiles.
  std::vector<std::pair<BeamformerSpec, std::string>> cases;
  for (long long I : {1, 3, 16, 64, 100, 1000})
    for (const char* st : {"ci4", "cf16"}) {
      const std::string wt = std::string(st) == "cf16" ? "cf16" : "ci8";
      // Weights shared by the batch entries (batch stride 0), strided [pol][channel][beam][receiver].
      const long long K = 40, M = 33, C = 2, P = 2;
      const long long N = I * (I >= 64 ? 3 : 130 / I + 1);  // 131, 132, 144, 192, 300, 3000
      const std::string extra = fmt::format(
          R"(, "channels": {}, "polarizations": {}, "weights": {{"layout": "strides", "strides": {{"batch": 0, "channel": {}, "polarization": {}, "beam": {}, "receiver": 1}}}})",
          C, P, M * K, C * M * K, K);
      cases.push_back({makeSpec(K, M, N, st, wt, fmt::format(R"({{"kind": "power", "integrate": {}}})", I), extra),
                       fmt::format("power I={} N={} {}", I, N, st)});
    }
  std::vector<BeamformerSpec> specs;
  for (const auto& c : cases) specs.push_back(c.first);
  precompile(specs);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    Check c = run(cases[i].first, 3, 3000 + i, cases[i].second);
    EXPECT_TRUE(c.ok()) << cases[i].second << ": " << c.detail;
  }
}

TEST_F(GpuBeamformer, EverySpecInSpecs) {
  std::vector<std::unique_ptr<FamilySpec>> specs;
  std::vector<BeamformerSpec> parsed;
  for (const char* f :
       {"beamformer_chord_512x96_4bit.json", "beamformer_lofar_576x1024_f16.json", "beamformer_frb_power.json"}) {
    const std::string path = std::string(WARPFORGE_SOURCE_DIR) + "/specs/" + f;
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    parsed.push_back(parseBeamformerSpecText(ss.str(), path));
    specs.push_back(makeBeamformerSpec(parsed.back()));
  }
  precompile(parsed);
  for (const auto& fs : specs) {
    RunOptions o;
    o.batch = 1;
    o.baseline = false;
    RunReport r = runSpec(compiler, *fs, o);
    std::printf("[gpu-beamformer] %s: %.3f ms; %s\n", fs->name().c_str(), r.ourMs, r.check.detail.c_str());
    EXPECT_TRUE(r.check.ok()) << fs->name() << ": " << r.check.detail;
  }
}
