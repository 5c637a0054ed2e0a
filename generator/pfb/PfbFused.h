#pragma once
// Bench's fused channeliser (variant): one persistent kernel doing the fir kernel's and the post kernel's units in
// ticket order, with the scratch a ring of one batch entry's runs that the post units read back while it is still in
// L2.
#include "generator/pfb/PfbEmitter.h"
#include "warpforge/launch_plan.h"

namespace warpforge {

// Whether the fused kernel covers the spec: a post unit's spectra lie in one fir run, the default (non-previous)
// geometry, and the post block fits in the fir block.
bool pfbFusable(const PfbSpec& s, const PfbGeometry& g);
// The fused kernel's source from the default kernels' sources (each becomes a device function of its unit index).
std::string pfbFusedSource(const PfbSpec& s, const PfbKernels& k, const std::string& name, int blocksPerSm);
// A plan of the one fused kernel (the scratch one batch entry's, reused by every entry).
LaunchPlan pfbFusedLaunchPlan(const PfbSpec& s, const PfbKernels& k, int blocksPerSm);

}  // namespace warpforge
