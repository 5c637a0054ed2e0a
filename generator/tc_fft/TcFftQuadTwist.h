#pragma once
// The four-warp 4096-point kernel's twiddle W^(p m) folded into its quarter design's phases (PhaseTwist): with
// m = sum_k m_k 2^k, W^(p m) = prod_k W^(p 2^k m_k), and each factor depends on one input bit of the 1024-point
// quarter design. Every path from an input to an output of that design passes each of its phase operands once, so the
// factor of m_k joins one phase array whose phase factors name n_k: warp p's design then computes
// X_p[k] = sum_m E1024(k, m) W^(p m) y'_p[m] from the untwiddled y'_p[m] = sum_j x[m + 1024 j] W4^(p j), and the
// twiddle costs nothing per row (the phases are computed once per thread, warp p's own).
#include "generator/tc_fft/PhasePlan.h"
#include "generator/verify/Program.h"

namespace warpforge {

// A greedy placement, bit by bit from n0: each bit's factor joins the candidate array that leaves the fewest phase
// registers held (arrays whose twists differ no longer share registers), the earliest array on ties; input bits of
// zero padding take no factor.
PhaseTwist tcFftQuadTwist(const LayoutProgram& sub, bool packed);

// Throws std::logic_error unless `t` applies each of sub's input bits (below log2 n_in) exactly once, in a phase array
// that exactly one step reads and whose phase factors name that bit, at W = exp(sign 2 pi i / (4 n_out)) per warp.
void checkTcFftQuadTwist(const LayoutProgram& sub, const PhaseTwist& t);

}  // namespace warpforge
