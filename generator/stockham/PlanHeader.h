#pragma once
// The launch header of a stockham plan: a C++ header users include to launch
// the emitted kernels themselves (names, block size, dynamic shared memory,
// FFTs per block and per batch entry, which buffers each reads and writes,
// which tables it takes and their lengths).
#include <string>
#include <vector>

#include "generator/stockham/StockhamEmitter.h"
#include "generator/stockham/StockhamPlan.h"

namespace warpforge {

std::string stockhamLaunchHeader(const StockhamPlan& plan, const std::vector<StockhamKernel>& kernels);

}  // namespace warpforge
