#pragma once
// Stockham kernels are emitted with a register target (__launch_bounds__
// minimum blocks) that keeps several blocks resident; where ptxas would spill
// at that target for an architecture, the thread indices are first recomputed
// per group (long FFTs only; see KernelGeometry::indexPerGroup), then the
// target is relaxed step by step until it does not. The result is deterministic per (kernel, arch) and
// memoised, so emit, compile, the runtime and CI agree on the source.
#include <string>

#include "generator/stockham/StockhamEmitter.h"
#include "runtime/Nvrtc.h"

namespace warpforge {

struct SpillFreeKernel {
  StockhamKernel kernel;
  NvrtcResult compiled;  // the spill-free compile (its CUBIN is for `arch`)
};

SpillFreeKernel emitStockhamSpillFree(const KernelDesc& desc, const std::string& arch);

}  // namespace warpforge
