#pragma once
// The four-warp kernel's pass in f16x2 (HFMA2) instead of f32 (TcFftQuadEmitter.h): the radix-4 (n_in = 4096) or
// radix-2 (n_in = 2048) butterfly over j as half2 sums, the W4 products as swaps and sign flips, and each twiddle
// W^(p m) as one HMUL2 and one HFMA2 against a block table held in half2 (cos, cos) and (-sin, sin) per entry. Half
// the pass's arithmetic instructions and no f16 <-> f32 conversions, for a larger error bound (derived in the .cpp).
#include "generator/tc_fft/TcFftQuadEmitter.h"

namespace warpforge {

// Where the f16x2 pass is offered: the four-warp kernel at n_in >= 2048 (below, the pass is the twiddle alone and the
// f32 form costs little).
bool tcFftQuadHalfPassApplies(const LayoutProgram& spec);

// The helpers the kernel with the f16x2 pass adds to its source (wf_dif4_point_h2, wf_dif4_twiddles_h2).
const char* tcFftQuadHalfPassHelpers();

// The block's twiddle table: W^m, W^(2m), W^(3m) for m < 1024, 8 bytes each (two half2).
constexpr int kTcFftQuadHalfTwiddleBytes = 3 * 1024 * 8;

// The kernel's normwise bound relative to ||X|| with the f16x2 pass over `terms` = n_in / 1024 inputs per point.
double tcFftQuadHalfPassErrorBound(const TcFftQuadDesign& design, int terms);

}  // namespace warpforge
