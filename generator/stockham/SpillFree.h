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

struct SpillFreeKernel {
  StockhamKernel kernel;
  CompileReport compiled;  // ptxas's report of the chosen source (all -1 without a probe)
};

SpillFreeKernel emitStockhamSpillFree(const KernelDesc& desc, const std::string& arch, CompileProbe* probe);

}  // namespace warpforge
