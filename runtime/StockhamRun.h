#pragma once
// GPU runs of stockham kernels: against FFTW (double) and cuFFT, same input.
#include <cstdint>
#include <string>

#include "generator/stockham/StockhamSpec.h"
#include "runtime/Runtime.h"

namespace warpforge {

struct StockhamCheck {
  long long batch = 0, checked = 0, unwritten = 0;
  double maxRelErr = 0;        // ours vs FFTW, max over FFTs
  double cufftMaxRelErr = 0;   // cuFFT vs FFTW on the same input (contiguous layouts only; -1 otherwise)
  double ourMs = 0, cufftMs = 0;  // medians (bench) or one timed run
};

StockhamCheck runStockham(Runtime& rt, const StockhamSpec& spec, long long batch, std::uint64_t seed, int timedReps = 1);

}  // namespace warpforge
