#pragma once
// The convolution length M of a Bluestein plan that runs its convolution in one kernel. Any M >= 2n - 1 gives the
// same transform; the kernels differ by the passes M takes and by how many blocks of them stay resident, which
// ptxas decides (registers) more than M's size does. Over many (n, M) pairs the time per point of M was a property of
// M's kernel alone, and the cheapest 7-smooth M could lose 2x to a longer one: n = 1399 at M = 2800 (10 x 8 x 7 x 5,
// 128 registers, one block) against M = 4096 (16^3, 64 registers, four blocks).
#include "generator/stockham/StockhamSpec.h"

namespace warpforge {

struct KernelDesc;
struct KernelGeometry;

// Bluestein's convolution length for a transform of length n (tuning "bluestein": "smooth"): the 7-smooth
// M >= 2n - 1 of least cost M (1 + 0.05 x its odd prime factors), the next power of two costing M (a mixed-radix pass
// costs more per point than a power-of-two one). powerOfTwo: the next power of two.
long long bluesteinLength(long long n, bool powerOfTwo = false);

// Expected time of a convolution kernel, up to a constant: M x the passes (weighted by radix) x an occupancy
// factor of its resident blocks and threads, at `registers` per thread.
double convolutionKernelTime(const KernelDesc& d, const KernelGeometry& g, int registers);

// The spec with tuning.bluesteinLength pinned to the best candidate, where its plan runs a Bluestein convolution in
// one kernel and the spec pins neither the length nor "smooth" / "power_of_two"; else the spec as given. Candidates:
// the least M >= 2n - 1 of each form 2^a x c, c = 1, 3, 5, 7, 9, up to 8192 (an M with two odd factors ran slower than
// one of these; past 8192, where the model was not fitted, bluesteinLength's rule stays; f64 takes powers of two
// only). Scored at 64 registers, what most candidates compile to: compiling each candidate would cost 20-140 s of
// NVRTC per spec (spill-free searches of long kernels).
StockhamSpec pinBluesteinLength(const StockhamSpec& spec);

}  // namespace warpforge
