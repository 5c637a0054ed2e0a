#pragma once
// The correlator's LaunchPlan: the correlate kernel (one block per batch entry x
// channel x triangle tile) then the reduce kernel (grid-stride, capped at the
// resident blocks), the caller's arrays (CorrelatorData.h lists them), a `dump`
// parameter (0: accumulate only; 1, the default: also reduce, store, reset) and
// two counters the reduction leaves zeroed.
#include "generator/correlator/CorrelatorEmitter.h"
#include "warpforge/launch_plan.h"

namespace warpforge {
// withReduce = false: the correlate kernel alone (a bench variant: the TCC-comparable part); withCorrelate = false: the
// reduction alone.
LaunchPlan correlatorLaunchPlan(const CorrelatorSpec& s, const CorrelatorKernels& k, bool withReduce = true,
                                bool withCorrelate = true);
}  // namespace warpforge
