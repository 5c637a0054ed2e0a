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
// one-block variant is clean: a second block hides the barriers of the passes, worth far more than 8-16 bytes of
// spill to L1 (Bluestein convolution kernels of 114-163 registers ran faster at two blocks of 72-80 registers).
constexpr int kTolerableSpillBytes = 16;

struct SpillFreeKernel {
  StockhamKernel kernel;
  CompileReport compiled;  // ptxas's report of the chosen source (all -1 without a probe)
};

SpillFreeKernel emitStockhamSpillFree(const KernelDesc& desc, const std::string& arch, CompileProbe* probe);

}  // namespace warpforge
