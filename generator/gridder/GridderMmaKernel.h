#pragma once
// The tensor-core gridder (spec "engine": "tf32x3" or "tf32"). Per subgrid pixel and staged
// visibility it computes the phase (1 FMA) and the phasor (1 sincos) as the FMA gridder does, but
// sums visibility x phasor as a real matrix product on the tensor cores instead of 16 FMAs per term:
//   C[pixel][2p, 2p + 1] += sum over visibilities of [cos, sin](pixel, vis) x [[Re, Im], [Im, -Re]](vis, p)
// with mma.sync m16n8k8 tf32 (A = phasors, built in registers straight into the fragment; B = the
// staged, weighted visibilities; C = the pixels, 16 per tile). tf32x3 splits both operands into a
// tf32 hi part and an f32 remainder and sums hi x hi + hi x lo + lo x hi (about f32 accuracy);
// tf32 rounds each operand once (2^-11 each: up to 2^-10 per term). The fragment positions come from the
// fragment table (generator/layout) and are checked for every lane when the kernel is emitted.
#include "generator/gridder/GridderKernels.h"

namespace warpforge {

GridderKernel emitGridderMmaKernel(const GridderSpec& s);

}  // namespace warpforge
