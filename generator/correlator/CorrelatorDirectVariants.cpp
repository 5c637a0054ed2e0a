// bench's variants of the correlate kernel with the operands as stored (CorrelatorDirectVariants.h).
#include "generator/correlator/CorrelatorDirectVariants.h"

#include <algorithm>

#include <fmt/format.h>

#include "generator/correlator/CorrelatorPlan.h"
#include "generator/correlator/PipelineDirect.h"

namespace warpforge {

void addDirectVariants(std::vector<BenchVariant>& v, const CorrelatorSpec& s, const CorrelatorChoice& c) {
  const CorrelatorSpec none = asStoredSpec(s);
  const int otherRows = c.rows == 128 ? 64 : 128;
  if (directSharedFits(directPipe(none, otherRows)))
    v.push_back({"correlate only, operands as stored, 64 <-> 128-input tile",
                 Generated{correlatorLaunchPlan(none, emitCorrelatorDirect(none, otherRows), false)}, 1, 0});
  // The other stages per wait on 128-input tiles (two per wait exceed a 64-input tile's registers).
  const CorrelatorSpec perWaitNone = asStoredSpec(s,
                                                  s.tuning.stagesPerSyncGiven && s.tuning.stagesPerSync == 2 ? 1 : 2);
  if (c.rows == 128)
    v.push_back({"correlate only, operands as stored, 1 <-> 2 stages per wait",
                 Generated{correlatorLaunchPlan(perWaitNone, emitCorrelatorDirect(perWaitNone, 128), false)}, 1, 0});
  // The last column tile, where it holds at most half a tile of inputs, at full width (no half-width wgmmas).
  if (directPipe(none, c.rows).narrowEdge)
    v.push_back(
        {"correlate only, operands as stored, the narrow edge tile at full width",
         Generated{correlatorLaunchPlan(none, emitCorrelatorDirect(none, c.rows, 0, DirectVariant{false, 0}), false)},
         1, 0});
  // Persistent blocks (the grid of the resident blocks looping over the tiles) <-> one block per tile.
  if (!directPipe(none, c.rows).pairs) {
    CorrelatorSpec other = none;
    other.tuning.persistent = directPipe(none, c.rows).persistent ? 0 : 1;
    v.push_back({"correlate only, operands as stored, persistent blocks <-> a block per tile",
                 Generated{correlatorLaunchPlan(other, emitCorrelatorDirect(other, c.rows), false)}, 1, 0});
  }
  // Persistent blocks whose consumers start a quarter of a tile's time apart (block % 4), so that the blocks'
  // stores do not all meet the memory at once: a tile's time estimated as 300 ns per stage and 3 us of store.
  if (!directPipe(none, c.rows).pairs) {
    CorrelatorSpec persistent = none;
    persistent.tuning.persistent = 1;
    const DirectPipe pp = directPipe(persistent, c.rows);
    const long long tileStages = (s.samples + pp.ts - 1) / pp.ts;
    const int quarter = static_cast<int>(std::min<long long>(200000, (300 * tileStages + 3000) / 4));
    v.push_back({fmt::format("correlate only, operands as stored, persistent blocks starting {} ns apart", quarter),
                 Generated{correlatorLaunchPlan(
                     persistent, emitCorrelatorDirect(persistent, c.rows, 0, DirectVariant{true, quarter}), false)},
                 1, 0});
  }
  // Ping-pong: the second warpgroup a few stages behind the first, so that each one's store overlaps the
  // other's wgmmas (where a tile holds at least a ring of stages).
  {
    const DirectPipe dp = directPipe(none, c.rows);
    const int lag = directLagStages(dp, (s.samples + dp.ts - 1) / dp.ts);
    if (lag)
      v.push_back(
          {fmt::format("correlate only, operands as stored, the second warpgroup {} stages behind the first "
                       "(one stores while the other computes)",
                       lag),
           Generated{
               correlatorLaunchPlan(none, emitCorrelatorDirect(none, c.rows, 0, DirectVariant{true, 0, lag}), false)},
           1, 0});
    // The same with the deepest ring that fits (beyond the spec's 8 slots) and holds at most a tile (the arrivals pair
    // tile by tile), so that the lag can reach half a tile.
    const long long tileStages = (s.samples + dp.ts - 1) / dp.ts;
    CorrelatorSpec deep = none;
    for (int slots = static_cast<int>(std::min<long long>(16, tileStages)); slots > dp.stages; --slots) {
      deep.tuning.stages = slots;
      if (directSharedFits(directPipe(deep, c.rows))) break;
      deep.tuning.stages = 0;
    }
    const int deepLag = deep.tuning.stages ? directLagStages(directPipe(deep, c.rows), tileStages) : 0;
    if (deepLag > lag)
      v.push_back(
          {fmt::format("correlate only, operands as stored, {} slots, the second warpgroup {} stages behind "
                       "the first",
                       deep.tuning.stages, deepLag),
           Generated{correlatorLaunchPlan(deep, emitCorrelatorDirect(deep, c.rows, 0, DirectVariant{true, 0, deepLag}),
                                          false)},
           1, 0});
  }
  // An ablation, not a plan: the default kernel without its store (no output written, never checked), so that a
  // call weighs the tile's store against its fill and wgmmas.
  v.push_back(
      {"correlate only, operands as stored, ablation: the store left out (no outputs; timing only)",
       Generated{
           correlatorLaunchPlan(none, emitCorrelatorDirect(none, c.rows, 0, DirectVariant{true, 0, 0, true}), false)},
       1, 0, true});
  // The visibilities staged in shared memory and copied out by bulk stores, with and without persistent blocks.
  if (s.tuning.bulkStore != 1 && !bulkStoreBlocker(none, directPipe(none, c.rows))) {
    for (const int persistent : {1, 0}) {
      CorrelatorSpec staged = none;
      staged.tuning.bulkStore = 1;
      staged.tuning.persistent = persistent;
      if (!directSharedFits(directPipe(staged, c.rows))) continue;
      v.push_back({persistent ? "correlate only, operands as stored, persistent blocks, visibilities by bulk stores"
                              : "correlate only, operands as stored, visibilities by bulk stores (a block per tile)",
                   Generated{correlatorLaunchPlan(staged, emitCorrelatorDirect(staged, c.rows), false)}, 1, 0});
    }
  }
  // The column side by tensor copies <-> 16-byte cp.async, where tensor copies apply.
  if (!columnTensorBlocker(none, directPipe(none, c.rows))) {
    CorrelatorSpec columnCopies = none;
    columnCopies.tuning.columnCopies = directPipe(none, c.rows).tensorB ? 0 : 1;
    v.push_back({"correlate only, operands as stored, column side by tensor copies <-> cp.async",
                 Generated{correlatorLaunchPlan(columnCopies, emitCorrelatorDirect(columnCopies, c.rows), false)}, 1,
                 0});
  }
  // The row side by bulk copies <-> 16-byte cp.async, where the layout lets a time block's inputs be one copy.
  if (!rowBulkBlocker(s)) {
    CorrelatorSpec rowCopies = none;
    rowCopies.tuning.rowCopies = directPipe(none, c.rows).bulkA ? 0 : 1;
    v.push_back(
        {"correlate only, operands as stored, row side by bulk copies <-> cp.async (a cp.async row side "
         "takes the column side by cp.async too)",
         Generated{correlatorLaunchPlan(rowCopies, emitCorrelatorDirect(rowCopies, c.rows), false)}, 1, 0});
    if (s.tuning.rowCopies != 2) {
      CorrelatorSpec multicast = none;
      multicast.tuning.rowCopies = 2;
      v.push_back(
          {"correlate only, operands as stored, row side multicast in cluster pairs (column side by "
           "cp.async)",
           Generated{correlatorLaunchPlan(multicast, emitCorrelatorDirect(multicast, c.rows), false)}, 1, 0});
    }
  }
}

}  // namespace warpforge
