#pragma once
// GPU runs of stockham specs: fresh random input in the spec's own layout and
// storage, outputs poisoned with NaN, every output element checked written,
// error against FFTW in double, and cuFFT on the same numbers (dense layout)
// for its error and time in the same process.
#include <cstdint>
#include <string>

#include "generator/stockham/StockhamSpec.h"
#include "runtime/Runtime.h"

namespace warpforge {

struct StockhamCheck {
  long long batch = 0, checked = 0, unwritten = 0;
  double maxRelErr = 0;         // ours vs FFTW, max over the checked batch entries
  double cufftMaxRelErr = -1;   // cuFFT vs FFTW on the same numbers; -1 where cuFFT has no such transform
  double ourMs = 0, cufftMs = -1;  // medians of the timed runs (interleaved with each other)
  double copyMs = -1;             // median device-to-device copy of `bytes` in total (half read, half written); timed runs > 1 only
  std::string cufftTimed;       // what the cuFFT time covers
  double bytes = 0;             // bytes of user arrays read + written per run (valid parts)
  int kernels = 0;
};

// Bytes of the user's arrays for `batch` entries (the *Im parts only for planar layouts).
struct StockhamArrayBytes {
  std::size_t in = 0, inIm = 0, out = 0, outIm = 0;
};
StockhamArrayBytes stockhamArrayBytes(const StockhamSpec& spec, long long batch);

StockhamCheck runStockham(Runtime& rt, const StockhamSpec& spec, long long batch, std::uint64_t seed, int timedReps = 1);

// The error bound the tests and the CLI use: no worse than 2x cuFFT's error on the
// same input, or below a floor of a few ulps of the precision where both are tiny.
double stockhamErrorBound(const StockhamSpec& spec, const StockhamCheck& c);

}  // namespace warpforge
