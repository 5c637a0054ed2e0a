#pragma once
// Empirical tuning of a stockham spec's launch geometry on the device behind a
// TuneTimer: a coordinate search over the factorization (1D single-kernel
// lengths), threads per FFT, threads per block, register target, direct or
// staged first/last pass, persistent or full grid, thread indices, twiddles and
// the work queue. Each stage's candidates are emitted and made spill-free on all
// host cores, then timed together on the same buffers. The winner is a "factors"
// and "tuning" block for the spec (TuneOutcome::specMembers).
#include <functional>

#include "generator/core/Facets.h"
#include "generator/stockham/StockhamSpec.h"

namespace warpforge {

// The timer's probe is called from several host threads at once.
TuneOutcome tuneStockham(const StockhamSpec& spec, TuneTimer& timer,
                         const std::function<void(const TuneTrialReport&)>& onTrial = {});

// The spec's "factors" / "tuning" members for what ran (factors only for 1D single-kernel c2c specs).
Json stockhamTuningMembers(const std::vector<int>& factors, const KernelTuning& ran);

}  // namespace warpforge
