#pragma once
// The LaunchPlan of an emitted tc_fft kernel: one kernel, the caller's input and
// output arrays at chosen distances, a grid-stride grid capped at the resident
// blocks. The Executor runs it; `emit` prints it as <name>_plan.h.
#include <string>
#include <vector>

#include "generator/tc_fft/TcFftEmitter.h"
#include "warpforge/launch_plan.h"

namespace warpforge {

// Complex elements from one FFT's input (output) to the next: the defaults of the
// plan's input_distance / output_distance parameters. 0: dense (n_in, n_out).
struct TcFftDistances {
  long long input = 0, output = 0;
};

LaunchPlan tcFftLaunchPlan(const EmittedKernel& kernel, TcFftDistances defaults = {});

// The embedded helper headers `source` #includes, directly or through one another,
// in first-include order (what nvcc users need beside the .cu).
std::vector<std::string> includedHelpers(const std::string& source);

}  // namespace warpforge
