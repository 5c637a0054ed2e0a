#pragma once
// A per-call count of saturated outputs, for kernels that clamp integer results: each block
// sums its threads' counts, adds them to the Counter `sat_count`; the last block to finish (Counter `blocks_done`,
// threadfence reduction) moves the total to the Output `saturated` and re-zeroes both counters for the next call.
#include <string>
#include <vector>

#include "ast/Ast.h"
#include "warpforge/launch_plan.h"

namespace warpforge::cmma {

// `saturated` (Output, one uint64), `sat_count` and `blocks_done` (Counters), with the notes given.
std::vector<PlanBuffer> saturationCountBuffers(const std::string& savedNote, const std::string& countNote,
                                               const std::string& doneNote);

// Thread 0's statements once the block's per-warp partial counts are in the shared array `parts` (`warps` of them):
// add the block's total to sat_count; the last block publishes it and re-zeroes the counters.
std::vector<ast::NodePtr> publishSaturationCount(const std::string& parts, int warps);

}  // namespace warpforge::cmma
