#pragma once
// Stockham kernels are emitted with a register target (__launch_bounds__
// minimum blocks) that keeps several blocks resident; where ptxas would spill
// at that target for an architecture, the thread indices are first recomputed
// per group (long FFTs only; see KernelGeometry::indexPerGroup), then the
// target is relaxed step by step until it does not. The result is deterministic
// per (kernel, arch) and memoised, so emit, compile, the runtime and CI agree on
// the source. Without a probe (no compiler at hand) the first try is returned.
#include <string>

#include "generator/stockham/StockhamEmitter.h"
#include "warpforge/family.h"

namespace warpforge {

// Spill (bytes stored, and loaded) a row kernel (not column-tiled) may take for a second resident block where its
// one-block variant is clean (H100, sweep A/B, session 22: the Bluestein convolution kernels of r2c / c2r f32 6602,
// 6492, 5998, 4706 at two blocks of 72-80 registers spilling 8-16 bytes, against one block of 114-163 registers:
// 0.69x -> 0.88x, 0.62x -> 0.77x, 0.71x -> 0.88x, 0.79x -> 0.88x cuFFT; allowing 40 bytes gave the same).
constexpr int kTolerableSpillBytes = 16;

struct SpillFreeKernel {
  StockhamKernel kernel;
  CompileReport compiled;  // ptxas's report of the chosen source (all -1 without a probe)
};

SpillFreeKernel emitStockhamSpillFree(const KernelDesc& desc, const std::string& arch, CompileProbe* probe);

}  // namespace warpforge
