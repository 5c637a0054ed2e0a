#pragma once
// What `bench` times for a tc_fft spec beside its default kernel: the emitter's
// other options, and the in-register kernel whose SM-cycles per FFT are set
// against the eq. 30 model.
#include <string>
#include <vector>

#include "generator/core/Facets.h"
#include "generator/tc_fft/TcFftLaunch.h"
#include "generator/verify/Plan.h"

namespace warpforge {

constexpr int kInRegisterRepeats = 64;

// The emitter variants (not the default, which is the spec's own emit), then the in-register kernel. `oneWarpVariants`:
// the default is the two-warp kernel (TcFftPairEmitter.h), so every variant's name says it is one warp per FFT.
std::vector<BenchVariant> tcFftBenchVariants(const Plan& plan, TcFftDistances distances, bool oneWarpVariants = false);

// `inRegisterMs` for `ffts` FFTs x `repeats`: SM-cycles per FFT at the max clock, against the model.
std::string tcFftInRegisterNote(const Plan& plan, double inRegisterMs, long long ffts, int repeats, double clockKHz,
                                int sms);

}  // namespace warpforge
