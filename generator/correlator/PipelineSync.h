#pragma once
// The pipeline's grouped stage loops (tuning.stages_per_sync N > 1): the loader issues the copies of N stages, waits
// for and transforms them, then one proxy fence and their arrivals; the consumers wait for N operand slots, issue the N
// stages' wgmmas as one commit group and release the previous group's N slots. The fixed cost of a loader iteration
// and of a consumer wait is paid once per N stages. Square tiles and the whole-triangle block share them.
#include <functional>
#include <string>

#include "generator/correlator/CorrelatorSpec.h"
#include "generator/correlator/Pipeline.h"
#include "generator/correlator/PipelineCode.h"

namespace warpforge {

// The loader warpgroup's loop (after issue_stage and the unit variables): A (square tiles, loader transform, off the
// diagonal) and B of every stage.
void emitGroupedLoader(corr_emit::Code& c, const CorrelatorSpec& s, const CorrPipe& p, long long nst);

// The consumers' transform of A for the shared transform: `transform_a(s0)` waits for and transforms stages s0 ..
// s0 + N - 1 (those before the call's end), then one proxy fence and their arrivals.
void emitGroupedTransformA(corr_emit::Code& c, const CorrelatorSpec& s, const CorrPipe& p, long long nst);

// The consumers' loop: `issue(so)` prints one stage's wgmmas with `so` the slot's start offset (an expression);
// `afterRelease(k)` (may be empty) prints what follows the release of the previous group in the step of group k (an
// expression), e.g. the shared transform of the next group. A last group of fewer stages is a step of its own after the
// loop (no branch around wgmmas inside it).
void emitGroupedConsumerLoop(corr_emit::Code& c, const CorrPipe& p, long long nst, unsigned perSlot,
                             const std::function<void(const std::string&)>& issue,
                             const std::function<void(const std::string&)>& afterRelease = {});

}  // namespace warpforge
