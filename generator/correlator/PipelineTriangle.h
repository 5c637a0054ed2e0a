#pragma once
// The pipeline's consumer warpgroups when one block holds the whole triangle of a channel (CorrPipe::wholeTriangle):
// each warpgroup issues the wgmmas of its pieces (64-row strips of A = B's sample rows times a run of column inputs),
// with accumulators per piece, and stores them; and the accumulation epilogue both consumer forms share.
#include <string>

#include "generator/correlator/CorrelatorSpec.h"
#include "generator/correlator/Pipeline.h"
#include "generator/correlator/PipelineCode.h"

namespace warpforge {

// Adds a consumer's accumulators (d: `blocks` blocks of place.inputBlock column inputs from gj0, rows from gi0, as the
// kernel declared them) to the batch entry's int64 / f32 accumulators; `guard`: more of the store predicate.
void emitAccumulatorAdd(corr_emit::Code& c, const CorrelatorSpec& s, const PipeAccumulator& place, int blocks,
                        const std::string& guard);

// The consumer warpgroups of a whole-triangle block (after setmaxnreg and `cg`, inside the consumers' branch): one
// branch per warpgroup with its pieces' accumulators, descriptors, stage loop and epilogue.
void emitTriangleConsumers(corr_emit::Code& c, const CorrelatorSpec& s, const CorrPipe& p);

// The accumulator positions of a whole-triangle piece (the same for every width: read from a 64-input tile's atom).
PipeAccumulator trianglePlace(const CorrPipe& p);

}  // namespace warpforge
