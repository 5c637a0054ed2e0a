#pragma once
// The host planner (IDG's Plan): uvw tracks per baseline and time step, the channels'
// wavenumbers, the grid and subgrid sizes and the kernel support -> the subgrid metadata the
// kernels read (which time steps and channels go to which subgrid, its grid position and
// w-plane, its A-term interval and stations), and for the tile adder the subgrids that touch
// each grid tile. Every visibility is accounted for: gridded, flagged (non-finite uvw), off the
// grid (its channel group's uv footprint does not fit a subgrid, or lies outside the grid or the
// w-planes), or beyond the plan's subgrid slots; none is dropped silently.
//
// Per baseline, channel group and A-term interval, time steps join the current subgrid while the
// uv box of the group's extreme channels (in grid pixels) plus the kernel support stays below S,
// the w-plane is the same and the run is shorter than time_steps_per_subgrid (as IDG's planner).
// A flagged time step (non-finite uvw) inside a run does not end it: the kernels read it as zero.
#include <cstdint>
#include <string>
#include <vector>

#include "generator/gridder/GridderSpec.h"

namespace warpforge {

// The metadata of one subgrid slot as the kernels read it: kGridMetaInts int32 per slot.
enum GridMeta {
  kMetaBaseline = 0,
  kMetaTime,       // first time step (index into the observation)
  kMetaTimeCount,  // 0: an unused slot (the kernels skip it)
  kMetaChannel,    // first channel
  kMetaChannelCount,
  kMetaX,  // top-left grid pixel of the subgrid, 0 <= x, y <= G - S
  kMetaY,
  kMetaZ,      // w-plane, 0 <= z < w_planes
  kMetaAterm,  // A-term interval
  kMetaStation1,
  kMetaStation2,
  kGridMetaInts = 12,
};

struct Subgrid {
  int baseline = 0, time = 0, timeCount = 0, channel = 0, channelCount = 0, x = 0, y = 0, z = 0, aterm = 0,
      station1 = 0, station2 = 0;
  long long visibilities() const { return static_cast<long long>(timeCount) * channelCount; }
};

struct GridPlanCounts {
  long long visibilities = 0;  // baselines x time steps x channels
  long long gridded = 0;  // in a subgrid with finite uvw (zero weights included: the kernels see them and add nothing)
  long long flagged = 0;  // non-finite uvw
  long long offGrid = 0;  // footprint too wide for a subgrid, or outside the grid / the w-planes
  long long overCapacity = 0;  // placeable, but all max_subgrids slots were taken
  std::string str() const;
};

struct GridPlan {
  std::vector<Subgrid> subgrids;  // at most max_subgrids, in slot order
  GridPlanCounts counts;
  // Tile adder: tiles of S x S grid pixels, tilesPerSide^2 per w-plane; the subgrids touching tile
  // (z, t) are tileSubgrids[tileOffsets[z T + t] .. tileOffsets[z T + t + 1]).
  std::vector<std::int32_t> tileOffsets, tileSubgrids;

  std::vector<std::int32_t> metadata(long long slots) const;  // kGridMetaInts per slot, unused slots zero
};

// The two stations of baseline `bl` (cross-correlations in the order (0,1), (0,2), ..., (1,2), ...).
std::pair<int, int> gridBaselineStations(int stations, long long bl);

// `uvw`: [baseline][time][3] metres; `wavenumbers`: [channel] 2 pi f / c (radians per metre); both as
// the kernels read them (float).
GridPlan planGridder(const GridderSpec& s, const float* uvw, const float* wavenumbers);

// Grid pixel coordinate (from the grid's top-left) of u metres at wavenumber k.
inline double gridPixel(const GridderSpec& s, double metres, double k) {
  return metres * k / (2 * 3.14159265358979323846) * s.imageSize + s.gridSize / 2;
}

}  // namespace warpforge
