// CPU tests of the gridder family (Image-Domain Gridding): spec errors name the JSON path; the
// host planner accounts for every visibility (gridded once, flagged, off the grid, over
// capacity) and keeps each gridded one inside its subgrid's margins, runs within A-term
// intervals and time_steps_per_subgrid; the double reference's grid equals a direct DFT image at
// the pixels the subgrids sample; grid and degrid are adjoint; the plan composes the stockham
// family's subgrid FFT through the registry; check() passes a reference-made output and fails a
// perturbed or unwritten one; kernels compile with NVRTC for sm_80 without spills; and the
// generated CUDA of the gridder, degridder, adders and splitter, compiled as C++ with a small shim
// (a block's threads as std::threads meeting at a barrier; the subgrid FFT by FFTW), matches the
// reference (skipped where no host compiler is installed).
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <fftw3.h>

#include <barrier>
#include <filesystem>
#include <fstream>
#include <thread>

#include <cmath>
#include <cstring>
#include <random>
#include <set>

#include <fmt/format.h>

#include "CudaOnCpu.h"

#include "generator/gridder/GridderBench.h"
#include "generator/gridder/GridderCheck.h"
#include "generator/gridder/GridderData.h"
#include "generator/gridder/GridderFamily.h"
#include "generator/gridder/GridderLaunch.h"
#include "generator/gridder/GridderMmaFragments.h"
#include "generator/layout/FragmentTable.h"
#include "generator/verify/MmaCheck.h"
#include "generator/gridder/GridderPlanner.h"
#include "generator/gridder/GridderReference.h"
#include "TestUtil.h"
#include "warpforge/compiler.h"

using namespace warpforge;

namespace {

std::string specJson(const std::string& extra,
                     const std::string& obs = R"({"stations": 6, "time_steps": 48, "channels": 8})",
                     const std::string& direction = "grid") {
  return fmt::format(
      R"({{"name": "t_idg", "family": "gridder", "direction": "{}", "subgrid_size": 16, "correlations": 4, "grid_size": 128,
                         "image_size": 0.04, "observation": {}, "time_steps_per_subgrid": 16, "channels_per_subgrid": 4{}}})",
      direction, obs, extra);
}
GridderSpec spec(const std::string& json) { return parseGridderSpecText(json, "t.json"); }

std::string specErrorPath(const std::string& json) {
  return warpforge::test::errorPathOf<SpecError>([&] { spec(json); });
}

double relErr(const std::vector<cd>& a, const std::vector<cd>& b) {
  double e = 0, r = 0;
  for (std::size_t i = 0; i < a.size(); ++i) e += std::norm(a[i] - b[i]), r += std::norm(b[i]);
  return std::sqrt(e / r);
}

}  // namespace

TEST(GridderSpec, ParsesAndDerives) {
  GridderSpec s = spec(specJson(R"(, "aterms": {"update_interval": 20}, "phasor": "sfu")"));
  EXPECT_EQ(s.baselines(), 15);
  EXPECT_EQ(s.channelGroups(), 2);
  EXPECT_EQ(s.atermIntervals(), 3);                  // 20 + 20 + 8 time steps
  EXPECT_EQ(s.minSubgrids(), 15 * 2 * (2 + 2 + 1));  // ceil(20/16) + ceil(20/16) + ceil(8/16) per baseline and group
  EXPECT_GE(s.maxSubgrids, s.minSubgrids());
  EXPECT_EQ(s.gridThreads(), 64);  // 16^2 / 4 pixels per thread
  EXPECT_EQ(s.phasor, GridPhasor::Sfu);
  EXPECT_EQ(spec(specJson(R"(, "w_step": 10, "w_planes": 4)")).wOffset(0), -15.0);  // planes centred on w = 0
}

TEST(GridderSpec, ErrorsNameTheJsonPath) {
  EXPECT_EQ(specErrorPath(specJson(", \"bogus\": 1")), "/bogus");
  EXPECT_EQ(specErrorPath(R"({"name": "t", "family": "gridder"})"), "/direction");
  EXPECT_EQ(specErrorPath(specJson("").replace(specJson("").find("\"grid\""), 6, "\"both\"")), "/direction");
  EXPECT_EQ(specErrorPath(specJson("").replace(specJson("").find("\"subgrid_size\": 16"), 18, "\"subgrid_size\": 12")),
            "/subgrid_size");
  EXPECT_EQ(specErrorPath(specJson("").replace(specJson("").find("\"correlations\": 4"), 17, "\"correlations\": 3")),
            "/correlations");
  EXPECT_EQ(specErrorPath(specJson("").replace(specJson("").find("\"grid_size\": 128"), 16, "\"grid_size\": 129")),
            "/grid_size");
  EXPECT_EQ(specErrorPath(specJson("").replace(specJson("").find("\"image_size\": 0.04"), 18, "\"image_size\": 1.5")),
            "/image_size");
  EXPECT_EQ(specErrorPath(specJson(", \"cell_size\": 0.001")), "/image_size");  // both given
  EXPECT_EQ(specErrorPath(specJson(", \"w_planes\": 4")), "/w_planes");         // without a w_step
  EXPECT_EQ(specErrorPath(specJson("", R"({"stations": 1, "time_steps": 4, "channels": 4})")), "/observation/stations");
  EXPECT_EQ(specErrorPath(specJson("", R"({"stations": 4, "time_steps": 4})")), "/observation/channels");
  EXPECT_EQ(specErrorPath(specJson("", R"({"stations": 4, "time_steps": 4, "channels": 2})")), "/channels_per_subgrid");
  EXPECT_EQ(specErrorPath(specJson(", \"aterms\": true")), "/aterms");
  EXPECT_EQ(specErrorPath(specJson(", \"aterms\": {\"update_interval\": 0}")), "/aterms/update_interval");
  EXPECT_EQ(specErrorPath(specJson(", \"phasor\": \"fast\"")), "/phasor");
  EXPECT_EQ(specErrorPath(specJson(", \"adder\": \"maybe\"")), "/adder");
  EXPECT_EQ(specErrorPath(
                specJson(", \"adder\": \"tiles\"", R"({"stations": 6, "time_steps": 48, "channels": 8})", "degrid")),
            "/adder");
  EXPECT_EQ(specErrorPath(specJson(", \"tuning\": {\"pixels_per_thread\": 3}")), "/tuning/pixels_per_thread");
  EXPECT_EQ(specErrorPath(specJson(", \"tuning\": {\"pixels_per_thread\": 16}")),
            "/tuning/pixels_per_thread");  // 16 threads: not a warp
  EXPECT_EQ(specErrorPath(specJson(", \"tuning\": {\"stage_pixels\": 100}")), "/tuning/stage_pixels");
  EXPECT_EQ(specErrorPath(specJson(", \"tuning\": {\"stage_visibilities\": 2}")), "/tuning/stage_visibilities");
  EXPECT_EQ(specErrorPath(specJson(", \"tuning\": {\"stage_visibilities\": 4096}")),
            "/tuning/stage_visibilities");  // shared memory
  EXPECT_EQ(specErrorPath(specJson(", \"phase_centre_shift\": [0.5, 0]")), "/phase_centre_shift/0");
  EXPECT_EQ(specErrorPath(specJson(", \"max_subgrids\": 0")), "/max_subgrids");
  EXPECT_EQ(specErrorPath(specJson("", R"({"stations": 1024, "time_steps": 65536, "channels": 64})")),
            "/observation");  // > 2^31 values
  EXPECT_EQ(specErrorPath(specJson(", \"engine\": \"fp16\"")), "/engine");
  const std::string degridObs = R"({"stations": 6, "time_steps": 48, "channels": 8})";
  EXPECT_NO_THROW(spec(specJson(", \"engine\": \"tf32\"", degridObs, "degrid")));  // the tensor-core degridder
  EXPECT_EQ(specErrorPath(
                specJson(", \"engine\": \"tf32x3\", \"tuning\": {\"mma_visibility_tiles\": 9}", degridObs, "degrid")),
            "/tuning/mma_visibility_tiles");
  EXPECT_EQ(specErrorPath(
                specJson(", \"engine\": \"tf32x3\", \"tuning\": {\"stage_pixels\": 256, \"degridder_threads\": 100}",
                         degridObs, "degrid")),
            "/tuning/degridder_threads");
  {  // S = 40: 50 pixels divide S^2 = 1600 (the FMA degridder takes them) but are not whole k-steps of 4
    std::string j = specJson(", \"engine\": \"tf32\", \"tuning\": {\"stage_pixels\": 50}", degridObs, "degrid");
    j.replace(j.find("\"subgrid_size\": 16"), 18, "\"subgrid_size\": 40")
        .replace(j.find("\"grid_size\": 128"), 16, "\"grid_size\": 320");
    EXPECT_EQ(specErrorPath(j), "/tuning/stage_pixels");
    EXPECT_NO_THROW(spec(std::string(j).replace(j.find(", \"engine\": \"tf32\""), 18, "")));
    // 512 pixels x (16 + 8 x 16) B = 73728 B of staged operands (the FMA degridder's 512 x 48 B fit)
    j = specJson(", \"engine\": \"tf32\", \"tuning\": {\"stage_pixels\": 512}", degridObs, "degrid");
    j.replace(j.find("\"subgrid_size\": 16"), 18, "\"subgrid_size\": 32")
        .replace(j.find("\"grid_size\": 128"), 16, "\"grid_size\": 256");
    EXPECT_EQ(specErrorPath(j), "/tuning/stage_pixels");
    EXPECT_NO_THROW(spec(std::string(j).replace(j.find(", \"engine\": \"tf32\""), 18, "")));
  }
  EXPECT_EQ(specErrorPath(specJson(", \"engine\": \"tf32x3\", \"tuning\": {\"mma_tiles_per_warp\": 8}")),
            "/tuning/mma_tiles_per_warp");
  EXPECT_EQ(specErrorPath(specJson(", \"engine\": \"tf32x3\", \"tuning\": {\"stage_visibilities\": 512}")),
            "/tuning/stage_visibilities");  // fits the FMA kernel (20 KiB), not this one
}

// The tensor-core gridder's blocks: S^2 / 16 tiles of 16 pixels over at most 8 warps x mma_tiles_per_warp
// tiles per pass, the fewest passes first.
TEST(GridderSpec, TensorCoreBlockShapes) {
  struct Want {
    int S, tilesPerWarp, parts, warps, tiles;
  };
  const Want wants[] = {{8, 4, 1, 4, 1},  {16, 4, 1, 8, 2}, {24, 4, 2, 6, 3}, {32, 4, 2, 8, 4},
                        {32, 2, 4, 8, 2}, {32, 1, 8, 8, 1}, {64, 4, 8, 8, 4}};
  for (const Want& w : wants) {
    std::string j = specJson(
        fmt::format(R"(, "engine": "tf32x3", "tuning": {{"mma_tiles_per_warp": {}}})", w.tilesPerWarp));
    j.replace(j.find("\"subgrid_size\": 16"), 18, fmt::format("\"subgrid_size\": {}", w.S));
    j.replace(j.find("\"grid_size\": 128"), 16, fmt::format("\"grid_size\": {}", 8 * w.S));
    const GridderSpec s = spec(j);
    const GridderSpec::MmaShape m = s.mmaShape();
    EXPECT_EQ(m.parts, w.parts) << "S = " << w.S;
    EXPECT_EQ(m.warps, w.warps) << "S = " << w.S;
    EXPECT_EQ(m.tilesPerWarp, w.tiles) << "S = " << w.S;
  }
  EXPECT_EQ(spec(specJson("")).engine, GridEngine::Fma);  // the default
  EXPECT_EQ(spec(specJson(", \"engine\": \"tf32\"")).engine, GridEngine::MmaTf32);
}

TEST(GridderMma, OperandLayoutsGoThroughTheCommonCheck) {
  // Both tensor-core kernels' operand layouts pass the common check (generator/verify/MmaCheck.h); the register
  // positions the emitters use are read from them and are the atom's (PTX: a0 (g, t), a1 (g + 8, t), a2 (g, t + 4),
  // a3 (g + 8, t + 4); b0 (t, g), b1 (t + 4, g); c0, c1 (g, 2t + 0 / 1), c2, c3 (g + 8, ...)).
  const MmaShape& atom = *findMmaShape("m16n8k8", "tf32");
  for (bool degrid : {false, true}) {
    const GridderMmaLayouts l = gridderMmaLayouts(degrid);
    EXPECT_TRUE(gridderMmaProblems(l).empty()) << degrid;
    const QuadFragments q = tf32Fragments(degrid);
    for (int r = 0; r < 4; ++r) {
      EXPECT_EQ(atom.a.coord(Operand::A, 0, r, 0), std::make_pair(q.aRow[r], q.aK[r])) << r;
      EXPECT_EQ(atom.c.coord(Operand::C, 0, r, 0), std::make_pair(q.cRow[r], q.cCol[r])) << r;
    }
    for (int r = 0; r < 2; ++r) EXPECT_EQ(atom.b.coord(Operand::B, 0, r, 0).first, q.bK[r]) << r;
    // Mutations: the cos / sin registers of A exchanged with its row half, B's visibility bits on the wrong lanes.
    GridderMmaLayouts bad = l;
    bad.a = l.a.swapped({PhysKind::R, 0}, {PhysKind::R, 1});
    const auto pa = gridderMmaProblems(bad);
    ASSERT_FALSE(pa.empty()) << degrid;
    EXPECT_NE(pa[0].find(kRuleRows), std::string::npos) << pa[0];
    bad = l;
    bad.b = l.b.swapped({PhysKind::T, 1}, {PhysKind::T, 2});
    const auto pb = gridderMmaProblems(bad);
    ASSERT_FALSE(pb.empty()) << degrid;
    EXPECT_NE(pb[0].find(kRuleSummed), std::string::npos) << pb[0];
  }
}

TEST(GridderPlanner, AccountsForEveryVisibilityAndKeepsThemInsideTheirSubgrids) {
  // Wide channels and long integrations: runs split on the uv box; some baselines leave the grid.
  std::string j = specJson(R"(, "aterms": {"update_interval": 20}, "kernel_support": 4, "max_subgrids": 4000)",
                           R"({"stations": 8, "time_steps": 60, "channels": 7})");
  j.replace(j.find("\"channels_per_subgrid\": 4"), 25, "\"channels_per_subgrid\": 3");  // groups of 3, 3, 1 channels
  const GridderSpec s = spec(j);
  GridObsOptions o;
  o.channelWidth = 1.5e6;
  o.integration = 300;
  o.extent = 0.95;  // the outlier station's baselines reach 1.4x the grid's half width
  o.flaggedTimeFraction = 0.05;
  const GridGeometry geo = gridGeometry(s, o);
  const GridPlan plan = planGridder(s, geo.uvw.data(), geo.wavenumbers.data());
  const GridPlanCounts& n = plan.counts;
  std::printf("[gridder-plan] %s, %zu subgrids\n", n.str().c_str(), plan.subgrids.size());
  EXPECT_EQ(n.visibilities, n.gridded + n.flagged + n.offGrid + n.overCapacity);
  EXPECT_GT(n.flagged, 0);
  EXPECT_GT(n.offGrid, 0) << "the outlier station's long baselines leave the grid";
  EXPECT_GT(n.gridded, n.visibilities / 2);
  EXPECT_EQ(n.overCapacity, 0);
  std::vector<int> seen(static_cast<std::size_t>(s.visibilities()), 0);
  bool split = false, flaggedInside = false;
  const double half = s.kernelSupport / 2.0;
  for (const Subgrid& g : plan.subgrids) {
    ASSERT_GT(g.timeCount, 0);
    EXPECT_LE(g.timeCount, s.timeStepsPerSubgrid);
    EXPECT_EQ(g.time / s.atermInterval, (g.time + g.timeCount - 1) / s.atermInterval)
        << "a subgrid crosses an A-term interval";
    EXPECT_EQ(g.aterm, g.time / s.atermInterval);
    EXPECT_EQ(g.channel % s.channelsPerSubgrid, 0);
    EXPECT_EQ(g.channelCount, std::min(s.channelsPerSubgrid, s.channels - g.channel));
    EXPECT_GE(g.x, 0);
    EXPECT_LE(g.x, s.gridSize - s.subgridSize);
    EXPECT_GE(g.y, 0);
    EXPECT_LE(g.y, s.gridSize - s.subgridSize);
    const auto st = gridBaselineStations(s.stations, g.baseline);
    EXPECT_EQ(g.station1, st.first);
    EXPECT_EQ(g.station2, st.second);
    split |= g.timeCount < s.timeStepsPerSubgrid && g.timeCount < s.atermInterval - g.time % s.atermInterval;
    for (int t = g.time; t < g.time + g.timeCount; ++t) {
      const float* p = &geo.uvw[(g.baseline * s.timeSteps + t) * 3];
      if (t == g.time || t == g.time + g.timeCount - 1)
        EXPECT_TRUE(std::isfinite(p[0])) << "a run starts or ends on a flagged time step";
      if (!std::isfinite(p[0])) {
        flaggedInside = true;  // inside a run: the kernels zero it
        continue;
      }
      for (int c = g.channel; c < g.channel + g.channelCount; ++c) {
        ++seen[(g.baseline * s.timeSteps + t) * s.channels + c];
        const double gx = gridPixel(s, p[0], geo.wavenumbers[c]) - g.x,
                     gy = gridPixel(s, p[1], geo.wavenumbers[c]) - g.y;
        EXPECT_GE(gx, half - 1) << "visibility left of its subgrid's margin";
        EXPECT_LE(gx, s.subgridSize - half + 1);
        EXPECT_GE(gy, half - 1);
        EXPECT_LE(gy, s.subgridSize - half + 1);
      }
    }
  }
  EXPECT_TRUE(split) << "no run was split on its uv box: the test does not exercise the footprint rule";
  EXPECT_TRUE(flaggedInside) << "no flagged time step inside a run: the test does not exercise it";
  long long once = 0;
  for (int v : seen) {
    EXPECT_LE(v, 1);
    once += v;
  }
  EXPECT_EQ(once, n.gridded);
  // Tile lists: every subgrid is listed in exactly the tiles it overlaps.
  const int NT = s.tilesPerSide(), S = s.subgridSize;
  for (std::size_t i = 0; i < plan.subgrids.size(); ++i) {
    const Subgrid& g = plan.subgrids[i];
    for (int t = 0; t < NT * NT; ++t) {
      const int tx = t % NT, ty = t / NT;
      const bool overlaps = g.x < (tx + 1) * S && g.x + S > tx * S && g.y < (ty + 1) * S && g.y + S > ty * S;
      int listed = 0;
      for (int k = plan.tileOffsets[g.z * NT * NT + t]; k < plan.tileOffsets[g.z * NT * NT + t + 1]; ++k)
        listed += plan.tileSubgrids[k] == static_cast<int>(i);
      EXPECT_EQ(listed, overlaps ? 1 : 0);
    }
  }
}

TEST(GridderPlanner, ReportsVisibilitiesBeyondTheSlots) {
  GridderSpec s = spec(specJson(", \"max_subgrids\": 10"));
  const GridGeometry geo = gridGeometry(s);
  const GridPlan plan = planGridder(s, geo.uvw.data(), geo.wavenumbers.data());
  EXPECT_EQ(plan.subgrids.size(), 10u);
  EXPECT_GT(plan.counts.overCapacity, 0);
  EXPECT_EQ(plan.counts.visibilities,
            plan.counts.gridded + plan.counts.flagged + plan.counts.offGrid + plan.counts.overCapacity);
  // Fewer slots than the planning limits need are a warning that says so; the default is not.
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_NE(s.warnings[0].find("max_subgrids 10: the planning limits make at least"), std::string::npos)
      << s.warnings[0];
  EXPECT_TRUE(spec(specJson("")).warnings.empty());
}

TEST(GridderPlanner, WPlanesFromW) {
  GridderSpec s = spec(specJson(R"(, "w_step": 2, "w_planes": 8)"));
  const GridGeometry geo = gridGeometry(s);
  const GridPlan plan = planGridder(s, geo.uvw.data(), geo.wavenumbers.data());
  std::set<int> planes;
  for (const Subgrid& g : plan.subgrids) {
    planes.insert(g.z);
    for (int t = g.time; t < g.time + g.timeCount; ++t) {
      const double w = geo.uvw[(g.baseline * s.timeSteps + t) * 3 + 2] *
                       geo.wavenumbers[g.channel + g.channelCount / 2] / (2 * M_PI);
      EXPECT_NEAR(w, s.wOffset(g.z), s.wStep / 2 + 1e-9);
    }
  }
  EXPECT_GT(planes.size(), 1u);
}

// The grid the reference builds, transformed to the image at the pixels the subgrids sample
// (l = j L / S), equals the direct DFT image of the gridded visibilities (A-terms, taper,
// w-planes and a phase-centre shift included).
TEST(GridderReference, GridMatchesTheDirectDftImage) {
  GridderSpec s = spec(specJson(
      R"(, "aterms": {"update_interval": 24}, "w_step": 300, "w_planes": 8, "phase_centre_shift": [0.01, -0.02])",
      R"({"stations": 5, "time_steps": 32, "channels": 6})"));
  const TestData d = gridderInputs(s, 1, 11);
  const GridView v = gridView(s, d, 0);
  const GridPlan& plan = gridLogical(d).plan;
  std::printf("[gridder-dft] %s, %zu subgrids\n", plan.counts.str().c_str(), plan.subgrids.size());
  ASSERT_GT(plan.subgrids.size(), 4u);
  const std::vector<cd> grid = referenceGrid(s, v, plan);
  double maxErr = 0, maxRef = 0;
  for (auto [jx, jy] : std::vector<std::pair<int, int>>{{0, 0}, {3, -5}, {-8, 7}, {7, 7}, {-8, -8}, {1, 6}}) {
    const auto direct = directImage(s, v, plan, jx, jy);
    const auto fromGrid = gridImage(s, v, grid, jx, jy);
    for (int p = 0; p < s.correlations; ++p) {
      maxErr = std::max(maxErr, std::abs(direct[p] - fromGrid[p]));
      maxRef = std::max(maxRef, std::abs(direct[p]));
    }
  }
  std::printf("[gridder-dft] max |direct - grid image| = %.3g (max |direct| %.3g)\n", maxErr, maxRef);
  EXPECT_GT(maxRef, 1.0);
  EXPECT_LT(maxErr, 1e-9 * maxRef);
  // And a grid off by one subgrid's pixel does not match (the test can fail).
  std::vector<cd> wrong = grid;
  std::rotate(wrong.begin(), wrong.begin() + 1, wrong.end());
  const auto bad = gridImage(s, v, wrong, 3, -5), good = directImage(s, v, plan, 3, -5);
  EXPECT_GT(std::abs(bad[0] - good[0]), 1e-3 * maxRef);
}

// <grid(V), G> = S^2 <weight V, degrid(G)> (the degridder's 1/S^2 is IDG's).
TEST(GridderReference, GridAndDegridAreAdjoint) {
  for (int P : {1, 2, 4}) {
    const std::string extra = R"(, "aterms": {"update_interval": 16}, "w_step": 400, "w_planes": 8)";
    const std::string obs = R"({"stations": 4, "time_steps": 32, "channels": 5})";
    std::string gj = specJson(extra, obs), dj = specJson(extra, obs, "degrid");
    for (std::string* j : {&gj, &dj})
      j->replace(j->find("\"correlations\": 4"), 17, fmt::format("\"correlations\": {}", P));
    const GridderSpec gs = spec(gj), ds = spec(dj);
    GridObsOptions o;
    o.nanForZeroWeight = false;
    const TestData gd = gridderInputs(gs, 1, 5, o), dd = gridderInputs(ds, 1, 5, o);
    GridView gv = gridView(gs, gd, 0), dv = gridView(ds, dd, 0);
    dv.aterms = gv.aterms;  // the same A-terms on both sides
    const GridPlan& plan = gridLogical(gd).plan;
    const std::vector<cd> g1 = referenceGrid(gs, gv, plan);
    const std::vector<cd> v2 = referenceDegrid(ds, dv, plan);
    cd lhs = 0, rhs = 0;
    for (long long i = 0; i < gs.gridElems(); ++i) lhs += std::conj(g1[i]) * cd(dv.grid[2 * i], dv.grid[2 * i + 1]);
    const long long nvis = gs.visibilities();
    for (long long i = 0; i < nvis; ++i)
      for (int p = 0; p < P; ++p) {
        const cd vv(gv.vis[(i * P + p) * 2], gv.vis[(i * P + p) * 2 + 1]);
        rhs += std::conj(static_cast<double>(gv.weights[i]) * vv) * v2[i * P + p];
      }
    rhs *= static_cast<double>(gs.subgridSize) * gs.subgridSize;
    std::printf("[gridder-adjoint] P=%d: <grid(V), G> = (%.6g, %.6g), S^2 <WV, degrid(G)> = (%.6g, %.6g)\n", P,
                lhs.real(), lhs.imag(), rhs.real(), rhs.imag());
    EXPECT_GT(std::abs(lhs), 1.0);
    EXPECT_LT(std::abs(lhs - rhs), 1e-10 * std::abs(lhs));
  }
}

TEST(GridderPlan, ComposesTheStockhamFftThroughTheRegistry) {
  for (const char* dir : {"grid", "degrid"}) {
    const GridderSpec s = spec(
        specJson(R"(, "aterms": {"update_interval": 16})", R"({"stations": 6, "time_steps": 48, "channels": 8})", dir));
    auto fft = gridderFftSpec(s);
    EXPECT_EQ(fft->family().name(), "stockham");
    const GridderBuild b = buildGridderPlan(s, {"sm_90", nullptr});
    const LaunchPlan& p = b.plan;
    EXPECT_NO_THROW(p.check());
    EXPECT_GE(b.fftKernels, 1);
    std::vector<std::string> names;
    for (const auto& k : p.kernels) names.push_back(k.name);
    std::printf("[gridder-plan] %s: %s\n", dir, fmt::format("{}", fmt::join(names, " -> ")).c_str());
    if (s.grid()) {
      EXPECT_EQ(names.front(), "t_idg_gridder");
      EXPECT_EQ(names.back(), "t_idg_adder");
    } else {
      EXPECT_EQ(names.front(), "t_idg_zero_visibilities");
      EXPECT_EQ(names[1], "t_idg_splitter");
      EXPECT_EQ(names.back(), "t_idg_degridder");
    }
    // The FFT kernels run in place on our subgrids, one FFT per subgrid slot and correlation.
    const Generated fg = fft->emit({"sm_90", nullptr});
    for (int i = 0; i < b.fftKernels; ++i) {
      const PlanKernel& k = p.kernels[(s.grid() ? 1 : 2) + i];
      const PlanKernel& orig = fg.plan.kernels[i];
      EXPECT_EQ(k.name, orig.name);
      EXPECT_EQ(k.grid.unitsPerBatch, orig.grid.unitsPerBatch * s.maxSubgrids * s.correlations);
      for (const auto& a : k.args)
        if (a.kind == PlanArg::Kind::Buffer)
          EXPECT_TRUE(a.name == "subgrids" || a.name.rfind("fft_", 0) == 0) << a.name;
    }
    // Every user array the test data fill has the plan's size, and every input is filled.
    const TestData d = gridderInputs(s, 2, 3);
    for (const auto& buf : p.buffers) {
      if (buf.role != BufferRole::Input) continue;
      ASSERT_TRUE(d.arrays.count(buf.name)) << buf.name;
      EXPECT_EQ(static_cast<long long>(d.arrays.at(buf.name).size()),
                buf.elements(2, buf.perBatchElems) * buf.elementBytes)
          << buf.name;
    }
    EXPECT_EQ(gridderArrayNames(s).size(),
              std::count_if(p.buffers.begin(), p.buffers.end(), [](const PlanBuffer& x) { return x.isUser(); }));
    EXPECT_NE(launchPlanHeader(p).find(names.front()), std::string::npos);
  }
}

// check() on outputs made from the reference (in float): passes; perturbed or unwritten: fails.
TEST(GridderCheck, PassesTheReferenceAndCatchesErrors) {
  for (const char* dir : {"grid", "degrid"}) {
    const GridderSpec s = spec(
        specJson(R"(, "aterms": {"update_interval": 16})", R"({"stations": 5, "time_steps": 32, "channels": 5})", dir));
    const TestData d = gridderInputs(s, 1, 9);
    const GridView v = gridView(s, d, 0);
    const GridPlan& plan = gridLogical(d).plan;
    const std::vector<cd> ref = s.grid() ? referenceGrid(s, v, plan) : referenceDegrid(s, v, plan);
    const std::string name = s.grid() ? "grid" : "visibilities";
    std::map<std::string, std::vector<unsigned char>> out;
    std::vector<float> f(ref.size() * 2);
    for (std::size_t i = 0; i < ref.size(); ++i)
      f[2 * i] = static_cast<float>(ref[i].real()), f[2 * i + 1] = static_cast<float>(ref[i].imag());
    auto set = [&](const std::vector<float>& x) {
      out[name].resize(x.size() * 4);
      std::memcpy(out[name].data(), x.data(), out[name].size());
    };
    set(f);
    Check c = s.grid() ? gridderCheck(s, d, out, 1) : makeGridderSpec(s)->check(d, out, 1);
    std::printf("[gridder-check] %s: %s\n", dir, c.detail.c_str());
    EXPECT_TRUE(c.ok()) << c.detail;
    EXPECT_LT(c.error, 1e-6);
    // The sampled check (what large specs get) passes it too, and compares something.
    const Check sampled = gridderCheck(s, d, out, 1, 0.0);
    std::printf("[gridder-check] %s sampled: %s\n", dir, sampled.detail.c_str());
    EXPECT_TRUE(sampled.ok()) << sampled.detail;
    // A 1e-3 error on one in a hundred values is caught.
    std::vector<float> g = f;
    long long changed = 0;
    for (std::size_t i = 0; i < g.size(); i += 200)
      if (g[i] != 0) g[i] *= 1.01f, ++changed;
    ASSERT_GT(changed, 0);
    set(g);
    c = gridderCheck(s, d, out, 1);
    EXPECT_FALSE(c.ok()) << c.detail;
    // Sampled: a wrong value in every subgrid's area is caught too.
    for (std::size_t i = 0; i < g.size(); i += 7) g[i] *= 1.01f;
    set(g);
    c = gridderCheck(s, d, out, 1, 0.0);
    EXPECT_FALSE(c.ok()) << c.detail;
    // Unwritten values (poison) are counted.
    g = f;
    std::memset(&g[10], 0xff, 8);
    set(g);
    c = gridderCheck(s, d, out, 1);
    EXPECT_EQ(c.unwritten, 1);
    EXPECT_FALSE(c.ok());
    // A nonzero value where nothing may be (uncovered grid pixel / flagged visibility) is caught.
    g = f;
    std::size_t zero = 0;
    while (zero < ref.size() && ref[zero] != cd(0, 0)) ++zero;
    ASSERT_LT(zero, ref.size());
    g[2 * zero] = 1e-3f;
    set(g);
    c = gridderCheck(s, d, out, 1);
    EXPECT_FALSE(c.ok()) << c.detail;
  }
}

TEST(GridderKernels, CompileForSm80WithoutSpills) {
  struct Case {
    std::string extra;
    int S = 16, cs = 4, P = 4;  // S = 32, cs = 32: the benchmark's block shapes (8 warps x 4 tiles) and 8 k-steps
  };
  const std::vector<Case> cases = {
      {R"(, "phasor": "sfu", "aterms": {"update_interval": 16})"},
      {R"(, "phasor": "sfu", "engine": "tf32x3", "aterms": {"update_interval": 16})"},
      {R"(, "phasor": "sincos", "engine": "tf32", "phase_centre_shift": [0.01, 0.01])"},
      {R"(, "phasor": "sfu", "engine": "tf32x3", "tuning": {"mma_tiles_per_warp": 4})", 32},
      {R"(, "phasor": "sfu", "engine": "tf32x3", "tuning": {"mma_tiles_per_warp": 4})", 32, 32},
      {R"(, "phasor": "sfu", "engine": "tf32", "aterms": {"update_interval": 16}, "tuning": {"mma_visibility_tiles": 8})",
       32, 32},
      {R"(, "phasor": "sincos", "engine": "tf32x3", "taper": false)", 16, 4, 1},
      {R"(, "phasor": "sfu", "engine": "tf32x3", "tuning": {"mma_visibility_tiles": 3, "degridder_threads": 96})", 16,
       4, 2},
      {R"(, "phasor": "sincos", "taper": false, "adder": "atomic", "w_step": 300, "w_planes": 8, "phase_centre_shift": [0.01, 0.01])"}};
  for (const Case& c : cases)
    for (const char* dir : {"grid", "degrid"}) {
      const bool degrid = std::string(dir) == "degrid";
      if (!degrid && c.extra.find("degridder_threads") != std::string::npos) continue;
      std::string e = c.extra;
      if (degrid && e.find(R"(, "adder": "atomic")") != std::string::npos)
        e.erase(e.find(R"(, "adder": "atomic")"), 19);
      std::string j = specJson(e,
                               fmt::format(R"({{"stations": 6, "time_steps": 48, "channels": {}}})", std::max(8, c.cs)),
                               dir);
      j.replace(j.find("\"subgrid_size\": 16"), 18, fmt::format("\"subgrid_size\": {}", c.S));
      j.replace(j.find("\"grid_size\": 128"), 16, fmt::format("\"grid_size\": {}", 8 * c.S));
      j.replace(j.find("\"channels_per_subgrid\": 4"), 25, fmt::format("\"channels_per_subgrid\": {}", c.cs));
      j.replace(j.find("\"correlations\": 4"), 17, fmt::format("\"correlations\": {}", c.P));
      const GridderSpec s = spec(j);
      const Generated g = makeGridderSpec(s)->emit({"sm_80", nullptr});
      for (const auto& k : g.plan.kernels) {
        if (k.name.find("t_idg_sgfft") == 0) continue;  // the stockham family's own tests cover its kernels
        const CompileResult r = compileWithReport(g.plan.sources[k.source].text, s.name, "sm_80");
        std::printf("[gridder-nvrtc] %s S=%d P=%d %s: %d registers, spills %d/%d\n", dir, c.S, c.P, k.name.c_str(),
                    r.registers, r.spillStoreBytes, r.spillLoadBytes);
        EXPECT_GT(r.cubin.size(), 0u) << k.name << "\n" << r.log;
        EXPECT_EQ(r.spillStoreBytes, 0) << k.name;
        EXPECT_EQ(r.spillLoadBytes, 0) << k.name;
      }
    }
}

namespace {

// The tensor-core helpers' inline PTX (gr_tf32, gr_mma) replaced by the shim's emulation.
std::string emulateInlinePtx(std::string src) {
  test::replaceFunction(src, "gr_tf32", "static inline unsigned gr_tf32(float x) { return wf_cvt_rna_tf32(x); }");
  test::replaceFunction(src, "gr_mma",
                        "static inline void gr_mma(float4& c, unsigned a0, unsigned a1, unsigned a2, unsigned a3, "
                        "unsigned b0, unsigned b1) "
                        "{ wf_mma_tf32(c, a0, a1, a2, a3, b0, b1); }");
  return src;
}

// Runs the spec's plan on the CPU: our kernels from their generated source, the stockham kernels
// replaced by FFTW (the stockham family's GPU tests cover them). Returns the outputs; empty where
// no host compiler is available.
std::map<std::string, std::vector<unsigned char>> runOnCpu(const GridderSpec& s, const TestData& d, long long batch) {
  const GridderBuild b = buildGridderPlan(s, {"sm_90", nullptr});
  const std::string dir = ::testing::TempDir() + "/gridder_cpu_" + s.name;
  std::filesystem::create_directories(dir);
  std::map<std::string, std::vector<unsigned char>> mem;
  for (const auto& buf : b.plan.buffers) {
    if (buf.role == BufferRole::Input) mem[buf.name] = d.arrays.at(buf.name);
    else if (buf.role == BufferRole::Output || buf.role == BufferRole::Scratch)
      mem[buf.name].assign(static_cast<std::size_t>(buf.elements(batch, buf.perBatchElems) * buf.elementBytes), 0xff);
  }
  const int S = s.subgridSize;
  bool fftDone = false;
  for (const auto& k : b.plan.kernels) {
    if (k.name.find("_sgfft_") != std::string::npos) {
      if (fftDone) continue;
      fftDone = true;
      float* sg = reinterpret_cast<float*>(mem.at("subgrids").data());
      fftw_complex* buf = fftw_alloc_complex(static_cast<std::size_t>(S) * S);
      fftw_plan p = fftw_plan_dft_2d(S, S, buf, buf, s.grid() ? FFTW_BACKWARD : FFTW_FORWARD, FFTW_ESTIMATE);
      for (long long f = 0; f < batch * s.maxSubgrids * s.correlations; ++f) {
        float* x = sg + f * S * S * 2;
        for (int i = 0; i < S * S; ++i) buf[i][0] = x[2 * i], buf[i][1] = x[2 * i + 1];
        fftw_execute(p);
        for (int i = 0; i < S * S; ++i)
          x[2 * i] = static_cast<float>(buf[i][0]), x[2 * i + 1] = static_cast<float>(buf[i][1]);
      }
      fftw_destroy_plan(p);
      fftw_free(buf);
      continue;
    }
    if (!test::runKernelOnCpu(emulateInlinePtx(b.plan.sources[k.source].text), k, mem, batch, dir)) return {};
  }
  std::map<std::string, std::vector<unsigned char>> out;
  for (const auto& buf : b.plan.buffers)
    if (buf.role == BufferRole::Output) out[buf.name] = mem.at(buf.name);
  return out;
}

}  // namespace

TEST(GridderKernels, GeneratedCudaRunsOnTheCpuAndMatchesTheReference) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  const std::string obs = R"({"stations": 5, "time_steps": 40, "channels": 7})";
  struct Case {
    std::string dir, extra;
    int batch;
  };
  const std::vector<Case> cases = {
      {"grid", R"(, "aterms": {"update_interval": 20}, "phasor": "sfu")", 2},
      {"degrid",
       R"(, "aterms": {"update_interval": 20}, "tuning": {"visibilities_per_thread": 2, "degridder_threads": 64})", 1},
      {"grid", R"(, "adder": "atomic", "w_step": 300, "w_planes": 8, "phase_centre_shift": [0.01, -0.01])", 1},
      {"degrid",
       R"(, "w_step": 300, "w_planes": 8, "phase_centre_shift": [0.01, -0.01], "taper": false, "phasor": "sfu")", 1},
      // the tensor-core kernels, their mma.sync and shuffles emulated warp by warp as the PTX ISA defines them
      {"grid", R"(, "engine": "tf32x3", "aterms": {"update_interval": 20}, "phasor": "sincos")", 1},
      {"degrid",
       R"(, "engine": "tf32x3", "aterms": {"update_interval": 20}, "tuning": {"mma_visibility_tiles": 2, "degridder_threads": 64, "stage_pixels": 64})",
       1},
      {"degrid",
       R"(, "engine": "tf32", "w_step": 300, "w_planes": 8, "phase_centre_shift": [0.01, -0.01], "tuning": {"mma_visibility_tiles": 3, "degridder_threads": 32})",
       1}};
  int n = 0;
  for (const Case& c : cases) {
    std::string j = specJson(c.extra, obs, c.dir);
    j.replace(j.find("\"channels_per_subgrid\": 4"), 25,
              "\"channels_per_subgrid\": 3");  // 7 channels: groups of 3, 3, 1
    j.replace(j.find("\"t_idg\""), 7, fmt::format("\"t_cpu{}\"", n++));
    const GridderSpec s = spec(j);
    GridObsOptions o;
    o.flaggedTimeFraction = 0.08;
    o.zeroWeightFraction = 0.1;
    const TestData d = gridderInputs(s, c.batch, 700 + n, o);
    const auto out = runOnCpu(s, d, c.batch);
    ASSERT_FALSE(out.empty());
    const Check ck = makeGridderSpec(s)->check(d, out, c.batch);
    std::printf("[gridder-cpu] %s%s: %s\n", c.dir.c_str(), c.extra.c_str(), ck.detail.c_str());
    EXPECT_TRUE(ck.ok()) << ck.detail;
    if (s.engine != GridEngine::MmaTf32) EXPECT_LE(ck.error, 1e-5);
  }
}

// bench: the variants bind the same user arrays as the plan (bench runs them on one set), the
// microbenchmarks compile without spills, and the notes turn medians into the model's figures.
TEST(GridderBench, VariantsAndModelNotes) {
  const GridderSpec s = spec(specJson(R"(, "phasor": "sfu")"));
  const GridderBuild b = buildGridderPlan(s, {"sm_90", nullptr});
  const auto variants = gridderBenchVariants(s, b);
  ASSERT_EQ(variants.size(), 5u);
  auto users = [](const LaunchPlan& p) {
    std::set<std::string> u;
    for (const auto& x : p.buffers)
      if (x.isUser()) u.insert(x.name);
    return u;
  };
  for (const auto& v : variants) {
    EXPECT_NO_THROW(v.generated.plan.check()) << v.name;
    EXPECT_EQ(users(v.generated.plan), users(b.plan)) << v.name;
    ASSERT_FALSE(v.generated.plan.kernels.empty()) << v.name;
  }
  EXPECT_EQ(variants[0].generated.plan.kernels.size(), 1u);
  EXPECT_EQ(variants[0].generated.plan.kernels[0].name, "t_idg_gridder");
  EXPECT_EQ(variants[1].generated.plan.kernels.size(), b.plan.kernels.size());
  for (int i = 2; i < 5; ++i) {
    const auto& p = variants[i].generated.plan;
    const CompileResult r = compileWithReport(p.sources[p.kernels[0].source].text, s.name, "sm_90");
    std::printf("[gridder-bench] %s: %d registers, spills %d/%d\n", p.kernels[0].name.c_str(), r.registers,
                r.spillStoreBytes, r.spillLoadBytes);
    EXPECT_GT(r.cubin.size(), 0u) << r.log;
    EXPECT_EQ(r.spillStoreBytes, 0);
  }
  // Made-up medians: FMA 30 T/s, sincos 2 T/s -> bound min(30T / 17, 2T) / 256 visibility-pixels.
  using M = GridderMicro;
  const double fmaMs = M::kFmaBlocks * M::kThreads * M::kFmaChains * M::kFmaIters / 30e12 * 1e3;
  const double sfuMs = M::kSfuBlocks * M::kThreads * M::kSfuChains * M::kSfuIters / 2e12 * 1e3;
  const double mixMs = M::kMixBlocks * M::kThreads * M::kMixChains * M::kMixIters / 1.5e12 * 1e3;
  const std::string notes = gridderBenchNotes(s, {1.0, 2.0, fmaMs, sfuMs, mixMs}, {1, 1, 1, 1, 1});
  std::printf("%s", notes.c_str());
  EXPECT_NE(notes.find("3e+13 FMA/s"), std::string::npos) << notes;
  EXPECT_NE(notes.find("2e+12 sincos/s"), std::string::npos) << notes;
  EXPECT_NE(notes.find("1.765e+12 visibility-pixels/s"), std::string::npos) << notes;  // 30T / 17
  EXPECT_NE(notes.find("FMA-bound"), std::string::npos) << notes;
}
