#pragma once
// The correlate kernels' epilogue for the spec's output "visibilities" (TCC's model): each thread writes its share of
// the call's visibilities (int32 / f32 (re, im) pairs, [batch][channel][bl][p][q]) once, with no accumulator read.
// With two polarizations the two visibilities of a 16-byte store ([..][p][0..1] of one baseline: the inner
// polarization index) lie in one thread (the pipeline, polarization order r1_r2) or in two lanes of a warp, which
// exchange one visibility each (__shfl_xor_sync) so that both write 16 bytes; with one polarization consecutive
// baselines are never both in one thread and a store is 8 bytes.
// Exact: every int32 sum of a call is exact under the samples_per_call limit (CorrelatorSpec::maxExactSamples), so
// there is nothing to saturate.
#include <vector>

#include "ast/Ast.h"
#include "generator/correlator/CorrelatorEmitContext.h"
#include "generator/correlator/Pipeline.h"

namespace warpforge::corr_emit {

// mma.sync and the register-staged wgmma kernel (the m16n8 C layout per warp): the warp's visibilities to `visv`
// (int2* / float2*: the batch entry's and channel's first visibility), for rows from `trow` and columns from `tcol`.
std::vector<ast::NodePtr> emitVisibilityStore(const Ctx& x);

// The pipeline's consumer warpgroups: accumulator i of thread (warp, lane) holds row gi0 + 8 ((i / 2) % 2) and column
// input gj0 + 8 (i / 8) + i % 2, Re in d[i], Im in d[i + 4] ((i / 4) even), the constants read from the wgmma
// accumulator atom (pipeAccumulator); `half`: the loop form of the second
// warpgroup of a diagonal tile (two consumers), whose accumulators hold the columns of B's second half only;
// `columnInputs` (> 0): a whole-triangle piece's accumulators of that many column inputs (p: any tile of the same
// accumulator atom form).
std::vector<ast::NodePtr> emitPipelineVisibilityStore(const CorrelatorSpec& s, const CorrPipe& p, bool half,
                                                      int columnInputs = 0);

}  // namespace warpforge::corr_emit
