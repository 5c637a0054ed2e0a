#pragma once
// Empirical tuning of a stockham spec's launch geometry on the current GPU:
// a coordinate search over the factorization (1D single-kernel lengths),
// threads per FFT, threads per block, register target, direct or staged
// first/last pass, and persistent or full grid. Each candidate is emitted,
// made spill-free and compiled (in parallel on the host), then timed on the
// same buffers (median of `reps` after warm-up). The winner is a "factors" and
// "tuning" block for the spec; `warpforge bench --tune` prints it, and checks
// it against FFTW and cuFFT before recommending it.
#include <functional>
#include <string>
#include <vector>

#include "generator/stockham/StockhamSpec.h"
#include "runtime/Runtime.h"

namespace warpforge {

struct TuneTrial {
  std::string stage;             // which coordinate this trial varied
  std::vector<int> factors;      // as asked (empty: the generator's)
  KernelTuning tuning;           // as asked
  std::string geometry;          // what ran, per kernel: threads, FFTs per block, registers, direct I/O
  std::vector<int> ranFactors;   // what ran (first kernel; 1D single-kernel specs only, else empty)
  KernelTuning ran;              // the first kernel's geometry as a tuning block (what to paste)
  double ms = -1;                // median; -1 where the candidate failed
  std::string error;
};

struct TuneResult {
  std::vector<TuneTrial> trials;
  std::size_t best = 0;          // index into trials
  std::size_t baseline = 0;      // the spec as given
};

// The spec's "factors" / "tuning" JSON members of what a trial ran (what to paste into the spec).
std::string tuningJson(const TuneTrial& t);

TuneResult tuneStockham(Runtime& rt, const StockhamSpec& spec, long long batch, int reps,
                        const std::function<void(const TuneTrial&)>& onTrial = {});

}  // namespace warpforge
