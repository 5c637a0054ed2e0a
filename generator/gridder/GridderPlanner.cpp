#include "generator/gridder/GridderPlanner.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace warpforge {

std::string GridPlanCounts::str() const {
  return fmt::format(
      "{} visibilities: {} gridded, {} flagged (non-finite uvw), {} off the grid, {} beyond the subgrid slots",
      visibilities, gridded, flagged, offGrid, overCapacity);
}

std::pair<int, int> gridBaselineStations(int stations, long long bl) {
  int a = 0;
  long long rest = bl;
  while (rest >= stations - 1 - a) {
    rest -= stations - 1 - a;
    ++a;
  }
  return {a, static_cast<int>(a + 1 + rest)};
}

std::vector<std::int32_t> GridPlan::metadata(long long slots) const {
  std::vector<std::int32_t> m(static_cast<std::size_t>(slots * kGridMetaInts), 0);
  for (std::size_t i = 0; i < subgrids.size() && static_cast<long long>(i) < slots; ++i) {
    const Subgrid& g = subgrids[i];
    std::int32_t* r = &m[i * kGridMetaInts];
    r[kMetaBaseline] = g.baseline;
    r[kMetaTime] = g.time;
    r[kMetaTimeCount] = g.timeCount;
    r[kMetaChannel] = g.channel;
    r[kMetaChannelCount] = g.channelCount;
    r[kMetaX] = g.x;
    r[kMetaY] = g.y;
    r[kMetaZ] = g.z;
    r[kMetaAterm] = g.aterm;
    r[kMetaStation1] = g.station1;
    r[kMetaStation2] = g.station2;
  }
  return m;
}

namespace {

// The subgrid being filled: the uv box (grid pixels) of its time steps' extreme channels.
struct Box {
  double uMin = 0, uMax = 0, vMin = 0, vMax = 0;
  int z = 0, first = 0, last = -1;
  long long flagged = 0;  // flagged time steps inside [first, last] (the kernels zero them)
  bool empty() const { return last < first; }
  int count() const { return last - first + 1; }
};

struct Point {
  double u0, v0, u1, v1;  // grid pixels at the group's first and last channel
  int z;
};

}  // namespace

GridPlan planGridder(const GridderSpec& s, const float* uvw, const float* wavenumbers) {
  GridPlan plan;
  const int S = s.subgridSize, G = s.gridSize;
  const double half = s.kernelSupport / 2.0;
  const long long B = s.baselines(), T = s.timeSteps;
  plan.counts.visibilities = B * T * s.channels;
  for (long long bl = 0; bl < B; ++bl) {
    const auto [st1, st2] = gridBaselineStations(s.stations, bl);
    for (int g = 0; g < s.channelGroups(); ++g) {
      const int c0 = g * s.channelsPerSubgrid, nc = std::min(s.channelsPerSubgrid, s.channels - c0);
      const double k0 = wavenumbers[c0], k1 = wavenumbers[c0 + nc - 1], kMid = wavenumbers[c0 + nc / 2];
      for (long long ai = 0; ai < s.atermIntervals(); ++ai) {
        const long long tBegin = s.aterms ? ai * s.atermInterval : 0;
        const long long tEnd = s.aterms ? std::min(T, tBegin + s.atermInterval) : T;
        Box box;
        long long pendingFlagged = 0;  // flagged time steps since the run's last one
        auto close = [&] {
          pendingFlagged = 0;
          if (box.empty()) return;
          if (static_cast<long long>(plan.subgrids.size()) >= s.maxSubgrids) {
            plan.counts.overCapacity += (box.count() - box.flagged) * nc;
          } else {
            Subgrid sg;
            sg.baseline = static_cast<int>(bl);
            sg.time = box.first;
            sg.timeCount = box.count();
            sg.channel = c0;
            sg.channelCount = nc;
            // Centred on the box, clamped into the grid (every point keeps its margin: each was checked alone).
            sg.x = std::clamp(static_cast<int>(std::lround((box.uMin + box.uMax) / 2)) - S / 2, 0, G - S);
            sg.y = std::clamp(static_cast<int>(std::lround((box.vMin + box.vMax) / 2)) - S / 2, 0, G - S);
            sg.z = box.z;
            sg.aterm = static_cast<int>(ai);
            sg.station1 = st1;
            sg.station2 = st2;
            plan.subgrids.push_back(sg);
            plan.counts.gridded += (box.count() - box.flagged) * nc;
          }
          box = Box{};
        };
        for (long long t = tBegin; t < tEnd; ++t) {
          const float* p = uvw + (bl * T + t) * 3;
          if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2])) {
            // Flagged: excluded, but the run goes on past it (the kernels zero such a time step; the
            // reference skips it); a run never starts or ends on one.
            plan.counts.flagged += nc;
            if (!box.empty()) ++pendingFlagged;
            continue;
          }
          Point q{gridPixel(s, p[0], k0), gridPixel(s, p[1], k0), gridPixel(s, p[0], k1), gridPixel(s, p[1], k1), 0};
          if (s.wStep > 0)
            q.z = static_cast<int>(std::floor(p[2] * kMid / (2 * 3.14159265358979323846) / s.wStep)) + s.wPlanes / 2;
          const double uLo = std::min(q.u0, q.u1), uHi = std::max(q.u0, q.u1), vLo = std::min(q.v0, q.v1),
                       vHi = std::max(q.v0, q.v1);
          // Alone: inside the grid with the support's margin, narrow enough for a subgrid, on a w-plane.
          const bool placeable = uLo - half >= 0 && uHi + half <= G - 1 && vLo - half >= 0 && vHi + half <= G - 1 &&
                                 std::max(uHi - uLo, vHi - vLo) + s.kernelSupport < S - 1 && q.z >= 0 &&
                                 q.z < s.wPlanes;
          if (!placeable) {
            close();
            plan.counts.offGrid += nc;
            continue;
          }
          if (!box.empty()) {
            const double w = std::max(std::max(box.uMax, uHi) - std::min(box.uMin, uLo),
                                      std::max(box.vMax, vHi) - std::min(box.vMin, vLo));
            if (w + s.kernelSupport >= S - 1 || q.z != box.z || t - box.first + 1 > s.timeStepsPerSubgrid) close();
          }
          if (box.empty()) {
            box.uMin = uLo, box.uMax = uHi, box.vMin = vLo, box.vMax = vHi, box.z = q.z,
            box.first = static_cast<int>(t);
          } else {
            box.uMin = std::min(box.uMin, uLo), box.uMax = std::max(box.uMax, uHi);
            box.vMin = std::min(box.vMin, vLo), box.vMax = std::max(box.vMax, vHi);
            box.flagged += pendingFlagged;
          }
          pendingFlagged = 0;
          box.last = static_cast<int>(t);
        }
        close();
      }
    }
  }
  // Slot order = launch order: the largest subgrids first (longest-processing-time first), so the last
  // wave of blocks holds the smallest ones and the tail of the kernel is short (a plan is a few waves).
  std::stable_sort(plan.subgrids.begin(), plan.subgrids.end(),
                   [](const Subgrid& a, const Subgrid& b) { return a.visibilities() > b.visibilities(); });
  // Tile lists: every subgrid in the (at most 2 x 2) S x S tiles it overlaps.
  const int NT = s.tilesPerSide();
  const long long tiles = static_cast<long long>(s.wPlanes) * NT * NT;
  std::vector<std::int32_t> count(static_cast<std::size_t>(tiles), 0);
  auto forTiles = [&](const Subgrid& g, auto&& f) {
    for (int ty = g.y / S; ty <= (g.y + S - 1) / S && ty < NT; ++ty)
      for (int tx = g.x / S; tx <= (g.x + S - 1) / S && tx < NT; ++tx)
        f((static_cast<long long>(g.z) * NT + ty) * NT + tx);
  };
  for (const Subgrid& g : plan.subgrids) forTiles(g, [&](long long t) { ++count[t]; });
  plan.tileOffsets.assign(static_cast<std::size_t>(tiles + 1), 0);
  for (long long t = 0; t < tiles; ++t) plan.tileOffsets[t + 1] = plan.tileOffsets[t] + count[t];
  plan.tileSubgrids.assign(static_cast<std::size_t>(plan.tileOffsets.back()), 0);
  std::vector<std::int32_t> fill(plan.tileOffsets.begin(), plan.tileOffsets.end() - 1);
  for (std::size_t i = 0; i < plan.subgrids.size(); ++i)
    forTiles(plan.subgrids[i], [&](long long t) { plan.tileSubgrids[fill[t]++] = static_cast<std::int32_t>(i); });
  return plan;
}

}  // namespace warpforge
