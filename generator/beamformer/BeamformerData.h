#pragma once
// The beamformer's test data, its exact CPU reference and the check.
// Arrays (names as in the LaunchPlan): samples (or samples_re / samples_im when planar), weights (or
// weights_re / weights_im), shifts (int32 [batch][channel][pol][beam], integer beams only); output
// beams [batch][channel][pol][time][beam] or power [batch][channel][window][beam] (f32).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "generator/beamformer/BeamformerSpec.h"
#include "warpforge/family.h"

namespace warpforge {

struct BfInputOptions {
  double extremeFraction = 0.125;  // integer components drawn from {min, min + 1, max} (min: -128 / -8)
};
TestData beamformerInputs(const BeamformerSpec& s, long long batch, std::uint64_t seed, const BfInputOptions& o = {});

// One value as the kernel uses it: ci8 samples' -128 reads as -127 (weights' -128 and every ci4 value as is).
struct BfValue {
  double re = 0, im = 0;
};
BfValue bfSample(const BeamformerSpec& s, const TestData& d, long long b, long long c, long long p, long long t, long long k);
BfValue bfWeight(const BeamformerSpec& s, const TestData& d, long long b, long long c, long long p, long long m, long long k);

// The exact beam (integer inputs: int64 re, im) and, for float inputs, the double beam and sum |terms| per component.
struct BfBeam {
  long long ire = 0, iim = 0;
  double re = 0, im = 0, magRe = 0, magIm = 0;
};
BfBeam bfReferenceBeam(const BeamformerSpec& s, const TestData& d, long long b, long long c, long long p, long long t, long long m);

// Integer beams: round half up of acc / 2^shift (shift clamped to 0..31), saturated to +-max.
int bfShiftSaturate(long long acc, int shift, int maxv);

// The names of the input arrays of an operand ("samples" or "samples_re", "samples_im").
std::vector<std::string> bfArrayNames(const BeamformerSpec& s, bool weights);

Check beamformerCheck(const BeamformerSpec& s, const TestData& data, const std::map<std::string, std::vector<unsigned char>>& outputs, long long batch);

}  // namespace warpforge
