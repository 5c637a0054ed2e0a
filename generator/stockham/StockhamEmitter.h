#pragma once
// Stockham autosort FFT kernels (one FFT per thread group, shared memory),
// generated through the AST: the per-pass butterflies are unrolled with their
// DFT coefficients as literals (0 and +-1 folded away).
#include <string>
#include <vector>

#include "generator/stockham/StockhamSpec.h"

namespace warpforge {

struct StockhamKernel {
  std::string source;
  std::string kernelName;
  int threadsPerFft = 1;    // blockDim.x
  int fftsPerBlock = 1;     // blockDim.y
  int sharedBytes = 0;      // static shared memory
  std::vector<int> factors;
  int elementBytes = 8;     // sizeof(float2) or sizeof(double2)
  // grid: enough blocks for the batch, capped by the caller at resident blocks
};

StockhamKernel emitStockham(const StockhamSpec& spec);

}  // namespace warpforge
