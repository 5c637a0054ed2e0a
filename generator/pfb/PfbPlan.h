#pragma once
// The pfb family's LaunchPlan: buffers (input, gains, delays, spectra, saturated; the scratch; the weight and
// twiddle tables; the saturation counters) and the two kernels in order.
#include "generator/pfb/PfbEmitter.h"
#include "warpforge/launch_plan.h"

namespace warpforge {

LaunchPlan pfbLaunchPlan(const PfbSpec& s, const PfbKernels& k);

}  // namespace warpforge
