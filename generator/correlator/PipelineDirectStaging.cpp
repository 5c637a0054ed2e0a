// The proof of the staged visibility store (tuning.store "bulk", PipelineDirect.h): the 16-byte staging stores as the
// kernel computes them put each visibility where the documented layout (stageOffset) says, once, conflict-free per
// quarter warp; and each bulk store's run, as the kernel computes it, copies exactly the staged bytes to the global
// bytes the 16-byte stores from registers write (the register path's formula, which the GPU tests check).
#include <map>

#include <fmt/format.h>

#include "generator/correlator/PipelineDirect.h"
#include "generator/layout/Wgmma.h"

namespace warpforge {

namespace {

struct StagedVis {
  int gi, gj;
};

}  // namespace

void checkBulkStore(const CorrelatorSpec& s, const DirectPipe& p, std::vector<PipeIssue>& issues,
                    std::vector<std::string>& proved) {
  auto fail = [&](const std::string& m) { issues.push_back({"/tuning/store", m}); };
  const bool rowFirst = s.polOrder == "r1_r2", shuffle = !rowFirst;
  const long long N = p.N, R = N / 2;
  const int tps = static_cast<int>((N + p.rows - 1) / p.rows), stride = p.stageRunStride;
  // The register path's byte of visibility (row input gi, column input gj) in a channel's output.
  auto registerByte = [&](int gi, int gj) {
    const long long r1 = gi >> 1, r2 = gj >> 1, bl = r2 * (r2 + 1) / 2 + r1;
    return (bl * 4 + (rowFirst ? 2 * (gi & 1) + (gj & 1) : 2 * (gj & 1) + (gi & 1))) * 8;
  };
  std::vector<std::pair<int, int>> tiles = {{0, 0}, {0, tps - 1}, {tps - 1, tps - 1}, {tps / 2, tps / 2}};
  if (tps > 1) tiles.push_back({0, 1});
  if (p.stageRunBytes != 32 * 32 || stride % 16 || p.staging % 16 || p.stageRuns != p.rows / 2)
    return fail("the staging's runs are not a warpgroup's 32 row receivers of 32 bytes, 16-byte aligned");
  for (const auto& [ti, tj] : tiles)
    for (int cg = 0; cg < p.consumers; ++cg) {
      const int row0 = ti * p.rows, col0 = tj * p.rows;
      const bool diag = ti == tj;
      // The kernel's paths: a diagonal tile's second warpgroup from column rows / 2, a narrow edge tile at half
      // width from column 0, else every column.
      const bool secondHalf = diag && cg == 1 && p.consumers == 2;
      const bool narrow = !secondHalf && p.narrowEdge && col0 + p.rows / 2 >= N;
      const int fromCol = secondHalf ? p.rows / 2 : 0, blocks = (secondHalf || narrow ? p.rows / 2 : p.rows) / 8;
      std::map<int, StagedVis> staged;
      for (int h = 0; h < 2; ++h)
        for (int j = 0; j < blocks; ++j) {
          unsigned quarter[8];
          for (int t = 0; t < 128; ++t) {
            const int warp = t / 32, lane = t % 32;
            const int gi = row0 + 64 * cg + 8 * warp + (lane >> 2) + 32 * h;
            const int gj = col0 + fromCol + 2 * (lane & 3) + 8 * j;
            const bool hi = (lane & 4) != 0;
            const int chunk = p.staging + cg * p.stageRuns * stride + ((gj - col0) >> 1) * stride +
                              ((gi - row0 - 64 * cg) >> 1) * 32 + (shuffle ? (hi ? 16 : 0) : (gi & 1) * 16);
            quarter[t % 8] = static_cast<unsigned>(chunk);
            if (t % 8 == 7 && sharedWavefronts16(quarter) > 1)
              return fail(
                  fmt::format("the staging stores of threads {} .. {} (tile ({}, {}), warpgroup {}) meet a "
                              "bank group twice",
                              t - 7, t, ti, tj, cg));
            if ((gi >> 1) > (gj >> 1) || gj >= N) continue;  // the kernel's condition: no store
            // The chunk's two visibilities, in the kernel's make_uint4 order.
            const StagedVis held[2] = {shuffle ? (hi ? StagedVis{gi - 1, gj + 1} : StagedVis{gi, gj})
                                               : StagedVis{gi, gj},
                                       shuffle ? (hi ? StagedVis{gi, gj + 1} : StagedVis{gi + 1, gj})
                                               : StagedVis{gi, gj + 1}};
            for (int k = 0; k < 2; ++k) {
              const int at = chunk + 8 * k;
              const int want = p.stageOffset(cg, held[k].gi - row0, held[k].gj - col0, rowFirst);
              if (at != want)
                return fail(fmt::format("visibility ({}, {}) is staged at {}, the layout's byte is {}", held[k].gi,
                                        held[k].gj, at, want));
              if (!staged.insert({at, held[k]}).second)
                return fail(fmt::format("two visibilities are staged at byte {} (tile ({}, {}))", at, ti, tj));
            }
          }
        }
      // The runs as the kernel issues them: column receiver r2 = col0 / 2 + run, row receivers rr0 .. min(r2, rr0 +
      // 31), from the run's staging to the register path's bytes of (rr0, r2).
      const int rr0 = (row0 + 64 * cg) >> 1;
      long long copied = 0;
      for (int run = 0; run < p.stageRuns; ++run) {
        const long long r2 = col0 / 2 + run, last = std::min<long long>(r2, rr0 + 31);
        if (r2 >= R || last < rr0) continue;
        const int from = p.staging + cg * p.stageRuns * stride + run * stride;
        const long long to = (r2 * (r2 + 1) / 2 + rr0) * 4 * 8, bytes = (last - rr0 + 1) * 32;
        if (from % 16 || to % 16) return fail(fmt::format("run {} is not 16-byte aligned", run));
        for (long long b = 0; b < bytes; b += 8) {
          auto it = staged.find(from + static_cast<int>(b));
          if (it == staged.end())
            return fail(
                fmt::format("the bulk store of column receiver {} (tile ({}, {}), warpgroup {}) copies "
                            "staging byte {}, which no thread stages",
                            r2, ti, tj, cg, from + b));
          if (registerByte(it->second.gi, it->second.gj) != to + b)
            return fail(fmt::format("visibility ({}, {}) is copied to byte {}; the store from registers writes {}",
                                    it->second.gi, it->second.gj, to + b, registerByte(it->second.gi, it->second.gj)));
        }
        copied += bytes / 8;
      }
      if (copied != static_cast<long long>(staged.size()))
        return fail(fmt::format("tile ({}, {}), warpgroup {}: {} visibilities staged, {} copied out", ti, tj, cg,
                                staged.size(), copied));
    }
  proved.push_back(fmt::format(
      "store bulk: each visibility is staged once at its run's byte, 16-byte stores conflict-free per quarter warp; "
      "the bulk stores copy exactly the staged visibilities to the bytes the register store writes ({} tile kinds, "
      "both warpgroups)",
      tiles.size()));
}

}  // namespace warpforge
