#pragma once
// The correlate kernel's store with the operands as stored (PipelineDirect.h): each consumer warpgroup's 64 row
// inputs x the tile's columns from its accumulators (d0: row inputs 0..31, d1: 32..63), to the triangle of
// visibilities (16-byte stores from registers, or staged for bulk stores: DirectPipe::bulkStore) or added to
// katgpucbf's accumulators.
#include "generator/correlator/CorrelatorSpec.h"
#include "generator/correlator/PipelineCode.h"
#include "generator/correlator/PipelineDirect.h"

namespace warpforge {

// half: the wgmmas took rows / 2 column inputs from column fromCol (0 or rows / 2).
void emitDirectStore(corr_emit::Code& c, const CorrelatorSpec& s, const DirectPipe& p, bool half, int fromCol);

}  // namespace warpforge
