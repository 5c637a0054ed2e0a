#pragma once
// Synthetic observations for the gridder's tests and benchmarks (no downloads): stations on a
// spiral (or at random) in a disk scaled to the grid, earth-rotation uvw tracks, channel
// wavenumbers, random visibilities and weights, some flagged (non-finite uvw for whole time
// steps; zero weights, whose visibilities are NaN so that any use of them shows), random A-terms
// near the identity and a separable taper. The host planner runs on the tracks and its metadata
// become the kernels' inputs.
//
// The geometry (layout, tracks, flags) depends on the spec and `geometrySeed` only, so that the
// plan and the visibility count of a spec are known without its random values (bench notes).
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "generator/gridder/GridderPlanner.h"
#include "generator/gridder/GridderSpec.h"
#include "warpforge/family.h"

namespace warpforge {

struct GridObsOptions {
  std::uint64_t geometrySeed = 1;
  bool spiral = true;             // stations on a spiral; false: uniform in the disk
  double extent = 0.8;            // longest regular baseline at the top channel, as a fraction of the grid's half width
  bool outlier = true;            // one station at twice the radius: some of its baselines leave the grid
  double startFrequency = 150e6;  // Hz
  double channelWidth = 12.2e3;   // Hz
  double integration = 1.0;       // seconds per time step
  double declination = 0.87;      // radians (~50 deg)
  double latitude = 0.923;        // radians (~52.9 deg, LOFAR)
  double flaggedTimeFraction = 0.01;  // (baseline, time) with NaN uvw
  double zeroWeightFraction = 0.02;   // visibilities with weight 0 (and NaN values)
  bool nanForZeroWeight = true;
};

// The observation's geometry: what the planner reads.
struct GridGeometry {
  std::vector<float> uvw;          // [baseline][time][3] metres
  std::vector<float> wavenumbers;  // [channel] 2 pi f / c
};
GridGeometry gridGeometry(const GridderSpec& s, const GridObsOptions& o = {});

// What check() needs besides the arrays: the plan of every batch entry (the same geometry).
struct GridLogical {
  GridPlan plan;
  GridObsOptions options;
};

// Every Input buffer of the spec's plan for `batch` entries (the same geometry, independent values).
TestData gridderInputs(const GridderSpec& s, long long batch, std::uint64_t seed, const GridObsOptions& o = {});
const GridLogical& gridLogical(const TestData& d);

// Read-only views of one batch entry's arrays, as the kernels read them.
struct GridView {
  const float* uvw = nullptr;
  const float* wavenumbers = nullptr;
  const float* vis = nullptr;      // [bl][t][c][corr] (re, im); grid direction
  const float* weights = nullptr;  // [bl][t][c]
  const float* aterms = nullptr;   // [interval][station][S][S][corr] (re, im), or null
  const float* taper = nullptr;    // [S][S], or null
  const float* grid = nullptr;     // [plane][corr][G][G] (re, im); degrid direction
};
GridView gridView(const GridderSpec& s, const TestData& d, long long b);

}  // namespace warpforge
