#pragma once
// The FIR's named windows, as katgpucbf's F-engine makes its default weights (fgpu generate_pfb_weights):
// for i < W = taps x step (step = 2 x channels, the FFT length),
//   w[i] = window(i) x sinc(cutoff x ((i + 0.5) / step - taps / 2)),   sinc(x) = sin(pi x) / (pi x), sinc(0) = 1,
//   window(i) = sin^2(pi i / (W - 1))  ("hann")  or 1  ("rect"),
// then scaled so that sum w[i]^2 = 1. Computed in double; the kernels read them as f32.
#include <string>
#include <vector>

namespace warpforge {

std::vector<double> pfbWindowWeights(const std::string& window, double cutoff, int taps, long long step);

}  // namespace warpforge
