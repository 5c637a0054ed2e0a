// The gridder family on the GPU (skipped without a device): synthetic observations (spiral
// layout, earth-rotation tracks, flagged time steps with NaN uvw, zero weights whose
// visibilities are NaN), outputs poisoned with 0xff and checked all written, relative RMS
// error against the double reference: <= 1e-5 with exact sincos, the stated bound with SFU
// sincos; 1, 2 and 4 correlations with A-terms on and off, odd channel counts, w-planes and a
// phase-centre shift, both adders; the degridder; adjointness of the two plans on the device;
// every gridder spec in specs/ runs and checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <filesystem>
#include <random>

#include <fmt/format.h>

#include "bench/RunCheck.h"
#include "generator/gridder/GridderCheck.h"
#include "generator/gridder/GridderData.h"
#include "generator/gridder/GridderFamily.h"
#include "warpforge/compiler.h"
#include "warpforge/device.h"

using namespace warpforge;

namespace {

std::string specJson(int S, int P, const std::string& direction, const std::string& obs, int ts, int cs,
                     const std::string& extra) {
  return fmt::format(
      R"({{"name": "gpu_idg", "family": "gridder", "direction": "{}", "subgrid_size": {}, "correlations": {}, "grid_size": {},
                         "image_size": 0.04, "observation": {}, "time_steps_per_subgrid": {}, "channels_per_subgrid": {}{}}})",
      direction, S, P, 8 * S, obs, ts, cs, extra);
}
GridderSpec spec(const std::string& json) { return parseGridderSpecText(json, "gpu.json"); }

const char* kSmallObs = R"({"stations": 6, "time_steps": 48, "channels": 8})";

// A tensor-core case: subgrid size, correlations, channels per subgrid, observation, further spec members.
struct EngineCase {
  int S, P, cs;
  const char* obs;
  const char* extra;
};

class GpuGridder : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!deviceAvailable()) GTEST_SKIP() << "no CUDA device: " << deviceUnavailableReason();
    useDefaultDevice();
  }
  Compiler compiler;

  struct Outcome {
    Check check;
    std::map<std::string, std::vector<unsigned char>> outputs;
  };
  Outcome run(const GridderSpec& s, const TestData& data, long long batch, const std::string& label) {
    auto fs = makeGridderSpec(s);
    Generated g = fs->emit({"sm_90", nullptr});
    Executor exec(compiler, g.plan);
    DeviceArrays arrays(exec, data, batch);  // outputs poisoned with 0xff
    exec.run(arrays.bindings(), batch);
    Outcome o;
    o.outputs = arrays.downloadOutputs();
    o.check = fs->check(data, o.outputs, batch);
    std::printf("[gpu-gridder] %s: %s\n", label.c_str(), o.check.detail.c_str());
    return o;
  }
  Check run(const GridderSpec& s, long long batch, std::uint64_t seed, const std::string& label,
            const GridObsOptions& opt = {}) {
    std::printf("[gpu-gridder] %s: seed %llu\n", label.c_str(), static_cast<unsigned long long>(seed));
    return run(s, gridderInputs(s, batch, seed, opt), batch, label).check;
  }
};

}  // namespace

TEST_F(GpuGridder, ExactSincosWithinOneInTenToTheFive) {
  for (const char* dir : {"grid", "degrid"}) {
    const GridderSpec s = spec(specJson(32, 4, dir, R"({"stations": 6, "time_steps": 64, "channels": 16})", 32, 8,
                                        R"(, "phasor": "sincos", "aterms": {"update_interval": 32})"));
    const Check c = run(s, 2, 101, fmt::format("{} S=32 P=4 sincos A-terms batch 2", dir));
    EXPECT_TRUE(c.ok()) << c.detail;
    EXPECT_LE(c.error, 1e-5) << c.detail;
    EXPECT_EQ(c.unwritten, 0);
  }
}

TEST_F(GpuGridder, SfuSincosWithinItsBound) {
  for (const char* dir : {"grid", "degrid"}) {
    const GridderSpec s = spec(specJson(32, 4, dir, R"({"stations": 6, "time_steps": 64, "channels": 16})", 32, 16,
                                        R"(, "phasor": "sfu", "aterms": {"update_interval": 32})"));
    const Check c = run(s, 1, 102, fmt::format("{} S=32 P=4 sfu", dir));
    EXPECT_TRUE(c.ok()) << c.detail;
    EXPECT_LE(c.error, gridderErrorBound(s, 40.0)) << "rms phases stay below 40 rad here";
  }
}

TEST_F(GpuGridder, CorrelationsWithAndWithoutAterms) {
  int seed = 200;
  for (int P : {1, 2, 4})
    for (bool aterms : {false, true}) {
      const GridderSpec s = spec(specJson(16, P, "grid", kSmallObs, 16, 4,
                                          aterms ? R"(, "aterms": {"update_interval": 20})" : R"(, "taper": false)"));
      const Check c = run(s, 1, seed++, fmt::format("grid P={} A-terms {}", P, aterms ? "on" : "off"));
      EXPECT_TRUE(c.ok()) << c.detail;
      EXPECT_LE(c.error, 1e-5) << c.detail;
    }
}

TEST_F(GpuGridder, DegridCorrelationsWithAndWithoutAterms) {
  int seed = 300;
  for (int P : {1, 2, 4})
    for (bool aterms : {false, true}) {
      const GridderSpec s = spec(specJson(16, P, "degrid", kSmallObs, 16, 4,
                                          aterms ? R"(, "aterms": {"update_interval": 20})" : R"(, "taper": false)"));
      const Check c = run(s, 1, seed++, fmt::format("degrid P={} A-terms {}", P, aterms ? "on" : "off"));
      EXPECT_TRUE(c.ok()) << c.detail;
      EXPECT_LE(c.error, 1e-5) << c.detail;
    }
}

// Odd channel counts (groups of 3, 3, 1), many flagged time steps (NaN uvw) and zero weights
// (their visibilities NaN: any use of them would show in the grid).
TEST_F(GpuGridder, OddChannelsAndFlaggedVisibilitiesExcluded) {
  GridObsOptions o;
  o.flaggedTimeFraction = 0.08;
  o.zeroWeightFraction = 0.1;
  for (const char* dir : {"grid", "degrid"}) {
    const GridderSpec s = spec(
        specJson(16, 4, dir, R"({"stations": 6, "time_steps": 37, "channels": 7})", 16, 3, R"(, "phasor": "sincos")"));
    const TestData d = gridderInputs(s, 1, 400, o);
    const GridPlanCounts& n = gridLogical(d).plan.counts;
    EXPECT_GT(n.flagged, 0);
    const float* w = reinterpret_cast<const float*>(d.arrays.at("weights").data());
    EXPECT_GT(std::count(w, w + s.visibilities(), 0.0f), 0)
        << "no zero weights: the test would not show their exclusion";
    const Check c =
        run(s, d, 1, fmt::format("{} C=7 in groups of 3, 8% flagged time steps, 10% zero weights", dir)).check;
    EXPECT_TRUE(c.ok()) << c.detail;
    EXPECT_LE(c.error, 1e-5) << c.detail;
  }
}

// The tensor-core gridder (engines tf32x3 and tf32) and the FMA gridder against the same double reference: every block
// shape the spec can give (S = 8: 4 warps x 1 tile; 16: 8 x 2; 24: 2 passes of 6 x 3; 32: 2 passes
// of 8 x 4, or 4 of 8 x 2; 64: 8 passes of 8 x 4), 1 / 2 / 4 correlations (B columns beyond 2P are zero), odd channel
// counts (k-steps padded), flagged time steps and zero weights whose visibilities are NaN, A-terms, w-planes with a
// shifted phase centre, batch 2. tf32x3 and fma with exact sincos are held to 1e-5.
TEST_F(GpuGridder, TensorCoreGridderMatchesTheReference) {
  const EngineCase cases[] = {
      {8, 4, 4, R"({"stations": 5, "time_steps": 40, "channels": 8})", R"(, "phasor": "sincos")"},
      {16, 1, 4, kSmallObs, R"(, "phasor": "sincos", "aterms": {"update_interval": 20})"},
      {16, 2, 4, kSmallObs, R"(, "phasor": "sincos", "taper": false)"},
      {24, 4, 3, R"({"stations": 6, "time_steps": 37, "channels": 7})",
       R"(, "phasor": "sincos", "aterms": {"update_interval": 16})"},
      {32, 4, 16, R"({"stations": 6, "time_steps": 64, "channels": 16})",
       R"(, "phasor": "sincos", "aterms": {"update_interval": 32})"},
      {32, 4, 16, R"({"stations": 6, "time_steps": 64, "channels": 16})",
       R"(, "phasor": "sfu", "tuning": {"mma_tiles_per_warp": 2})"},
      {64, 4, 8, R"({"stations": 4, "time_steps": 24, "channels": 8})",
       R"(, "phasor": "sincos", "adder": "atomic", "w_step": 300, "w_planes": 4, "phase_centre_shift": [0.01, -0.01])"},
  };
  GridObsOptions o;
  o.flaggedTimeFraction = 0.08;
  o.zeroWeightFraction = 0.1;
  int seed = 700;
  for (const char* engine : {"tf32x3", "tf32", "fma"})
    for (const EngineCase& c : cases) {
      if (std::string(engine) == "fma" && c.S % 16)
        continue;  // the FMA gridder's block is S^2 / 4 threads: whole warps
      const GridderSpec s = spec(
          specJson(c.S, c.P, "grid", c.obs, 16, c.cs, fmt::format(R"(, "engine": "{}"{})", engine, c.extra)));
      const GridderSpec::MmaShape m = s.mmaShape();
      const std::string label =
          fmt::format("grid {} S={} P={} channels/subgrid {} ({} pass(es) x {} warps x {} tiles){}", engine, c.S, c.P,
                      c.cs, m.parts, m.warps, m.tilesPerWarp, c.extra);
      std::printf("[gpu-gridder] %s: seed %d\n", label.c_str(), seed);
      const Check r = run(s, gridderInputs(s, 2, seed++, o), 2, label).check;
      EXPECT_TRUE(r.ok()) << label << ": " << r.detail;
      EXPECT_EQ(r.unwritten, 0) << label;
      if (std::string(engine) != "tf32" && s.phasor == GridPhasor::Sincos)
        EXPECT_LE(r.error, 1e-5) << label << ": " << r.detail;
    }
}

// The tensor-core degridder (engines tf32x3, tf32) against the double reference: S = 8 .. 64, 1 / 2 / 4
// correlations (A rows beyond 2P are zero), odd channel counts (tiles of 8 visibilities straddle time
// steps), flagged time steps and zero weights, A-terms, w-planes with a shifted phase centre, block shapes
// from 1 warp x 3 tiles to 8 warps x 8 tiles, batch 2. tf32x3 with exact sincos is held to 1e-5.
TEST_F(GpuGridder, TensorCoreDegridderMatchesTheReference) {
  const EngineCase cases[] = {
      {8, 4, 4, R"({"stations": 5, "time_steps": 40, "channels": 8})", R"(, "phasor": "sincos")"},
      {16, 1, 4, kSmallObs,
       R"(, "phasor": "sincos", "aterms": {"update_interval": 20}, "tuning": {"degridder_threads": 32, "mma_visibility_tiles": 3})"},
      {16, 2, 4, kSmallObs,
       R"(, "phasor": "sincos", "taper": false, "tuning": {"degridder_threads": 96, "mma_visibility_tiles": 5})"},
      {24, 4, 3, R"({"stations": 6, "time_steps": 37, "channels": 7})",
       R"(, "phasor": "sincos", "aterms": {"update_interval": 16})"},
      {32, 4, 16, R"({"stations": 6, "time_steps": 64, "channels": 16})",
       R"(, "phasor": "sincos", "aterms": {"update_interval": 32})"},
      {32, 4, 16, R"({"stations": 6, "time_steps": 64, "channels": 16})",
       R"(, "phasor": "sfu", "tuning": {"stage_pixels": 128})"},
      {64, 4, 8, R"({"stations": 4, "time_steps": 24, "channels": 8})",
       R"(, "phasor": "sincos", "w_step": 300, "w_planes": 4, "phase_centre_shift": [0.01, -0.01])"},
  };
  GridObsOptions o;
  o.flaggedTimeFraction = 0.08;
  o.zeroWeightFraction = 0.1;
  int seed = 800;
  for (const char* engine : {"tf32x3", "tf32"})
    for (const EngineCase& c : cases) {
      const GridderSpec s = spec(
          specJson(c.S, c.P, "degrid", c.obs, 16, c.cs, fmt::format(R"(, "engine": "{}"{})", engine, c.extra)));
      const std::string label = fmt::format(
          "degrid {} S={} P={} channels/subgrid {} ({} warps x {} tiles, {} pixels per round){}", engine, c.S, c.P,
          c.cs, s.tuning.degridThreads / 32, s.tuning.mmaVisibilityTiles, s.tuning.stagePixels, c.extra);
      std::printf("[gpu-gridder] %s: seed %d\n", label.c_str(), seed);
      const Check r = run(s, gridderInputs(s, 2, seed++, o), 2, label).check;
      EXPECT_TRUE(r.ok()) << label << ": " << r.detail;
      EXPECT_EQ(r.unwritten, 0) << label;
      if (std::string(engine) == "tf32x3" && s.phasor == GridPhasor::Sincos)
        EXPECT_LE(r.error, 1e-5) << label << ": " << r.detail;
    }
}

TEST_F(GpuGridder, AtomicAdderWPlanesAndShift) {
  const GridderSpec s = spec(specJson(
      16, 4, "grid", kSmallObs, 16, 4,
      R"(, "adder": "atomic", "w_step": 300, "w_planes": 8, "phase_centre_shift": [0.01, -0.01], "aterms": {"update_interval": 16})"));
  const Check c = run(s, 2, 500, "grid atomic adder, 4 w-planes, shifted phase centre, batch 2");
  EXPECT_TRUE(c.ok()) << c.detail;
  EXPECT_LE(c.error, 1e-5) << c.detail;
  const GridderSpec d = spec(specJson(16, 4, "degrid", kSmallObs, 16, 4,
                                      R"(, "w_step": 300, "w_planes": 8, "phase_centre_shift": [0.01, -0.01])"));
  const Check e = run(d, 1, 501, "degrid 4 w-planes, shifted phase centre");
  EXPECT_TRUE(e.ok()) << e.detail;
}

// <grid(V), G> = S^2 <weight V, degrid(G)> with both plans run on the device: the FMA kernels, and the
// tensor-core ones (tf32x3) both ways.
TEST_F(GpuGridder, GridAndDegridAreAdjointOnTheDevice) {
  for (const char* engine : {"fma", "tf32x3"}) {
    const std::string extra =
        fmt::format(R"(, "aterms": {{"update_interval": 24}}, "phasor": "sincos", "engine": "{}")", engine);
    const GridderSpec gs = spec(
        specJson(32, 4, "grid", R"({"stations": 5, "time_steps": 48, "channels": 8})", 24, 8, extra));
    const GridderSpec ds = spec(
        specJson(32, 4, "degrid", R"({"stations": 5, "time_steps": 48, "channels": 8})", 24, 8, extra));
    GridObsOptions o;
    o.nanForZeroWeight = false;
    const TestData gd = gridderInputs(gs, 1, 600, o);
    TestData dd = gridderInputs(ds, 1, 601, o);
    dd.arrays["aterms"] = gd.arrays.at("aterms");
    dd.arrays["weights"] = gd.arrays.at("weights");
    const auto g1 = run(gs, gd, 1, "adjoint: grid").outputs.at("grid");
    const auto v2 = run(ds, dd, 1, "adjoint: degrid").outputs.at("visibilities");
    const float* G1 = reinterpret_cast<const float*>(g1.data());
    const float* G2 = reinterpret_cast<const float*>(dd.arrays.at("grid").data());
    const float* V1 = reinterpret_cast<const float*>(gd.arrays.at("visibilities").data());
    const float* W = reinterpret_cast<const float*>(gd.arrays.at("weights").data());
    const float* V2 = reinterpret_cast<const float*>(v2.data());
    using cd = std::complex<double>;
    cd lhs = 0, rhs = 0;
    for (long long i = 0; i < gs.gridElems(); ++i)
      lhs += std::conj(cd(G1[2 * i], G1[2 * i + 1])) * cd(G2[2 * i], G2[2 * i + 1]);
    for (long long i = 0; i < gs.visibilities(); ++i)
      for (int p = 0; p < 4; ++p) {
        const long long e = i * 4 + p;
        rhs += std::conj(static_cast<double>(W[i]) * cd(V1[2 * e], V1[2 * e + 1])) * cd(V2[2 * e], V2[2 * e + 1]);
      }
    rhs *= 32.0 * 32.0;
    std::printf("[gpu-gridder] adjoint (engine %s): <grid(V), G> = (%.7g, %.7g), S^2 <WV, degrid(G)> = (%.7g, %.7g)\n",
                engine, lhs.real(), lhs.imag(), rhs.real(), rhs.imag());
    EXPECT_GT(std::abs(lhs), 1.0);
    EXPECT_LT(std::abs(lhs - rhs), 1e-5 * std::abs(lhs)) << engine;
  }
}

TEST_F(GpuGridder, EveryGridderSpecRunsAndChecks) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(std::string(WARPFORGE_SOURCE_DIR) + "/specs"))
    if (e.path().filename().string().rfind("gridder_", 0) == 0 && e.path().extension() == ".json")
      files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  for (const auto& f : files) {
    auto fs = loadSpec(f);
    RunReport r = runSpec(compiler, *fs, {1, 7, 1, false, {}});
    std::printf("[gpu-gridder] %s: %s (%.3f ms)\n", f.c_str(), r.check.detail.c_str(), r.ourMs);
    EXPECT_TRUE(r.check.ok()) << f << ": " << r.check.detail;
  }
}
