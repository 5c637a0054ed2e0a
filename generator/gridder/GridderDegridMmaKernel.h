#pragma once
// The tensor-core degridder (spec "engine": "tf32x3" or "tf32" on a degrid spec). Each visibility is a
// sum over the subgrid's corrected pixels of pixel x phasor; the kernel computes the phase (3 FMAs) and
// the phasor (1 sincos) per visibility and pixel on the CUDA cores and sums the products as a real
// matrix product on the tensor cores (mma.sync m16n8k8 tf32), transposed so that the phasors are the
// B operand, which each thread builds from exactly one sincos:
//   C[(p, Re / Im)][vis] += sum over pixels of A[(p, Re / Im)][(pixel, cos / sin)] x B[(pixel, cos / sin)][vis]
// with A rows 2p = (Re, -Im) and 2p + 1 = (Im, Re) of correlation p of the pixel (staged in shared memory,
// shared by every visibility of the warp) and B = (cos, sin) of the phase. C's columns are 8 visibilities.
// tf32x3 puts A's f32 remainder in rows 8..15 (A hi x B hi and A lo x B hi in one product) and adds
// A hi x B lo in a second: two products per term instead of three. tf32 rounds each operand once.
#include "generator/gridder/GridderKernels.h"

namespace warpforge {

GridderKernel emitDegridderMmaKernel(const GridderSpec& s);

}  // namespace warpforge
