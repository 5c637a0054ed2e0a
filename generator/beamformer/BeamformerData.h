#pragma once
// The beamformer's test data, its exact CPU reference and the check.
// Arrays (names as in the LaunchPlan): samples (or samples_re / samples_im when planar), weights (or
// weights_re / weights_im), shifts (int32 [batch][channel][pol][beam], integer beams only); output
// beams [batch][channel][pol][time][beam] or power [batch][channel][window][beam] (f32).
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
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
BfValue bfSample(const BeamformerSpec& s, const TestData& d, long long b, long long c, long long p, long long t,
                 long long k);
BfValue bfWeight(const BeamformerSpec& s, const TestData& d, long long b, long long c, long long p, long long m,
                 long long k);

// The exact beam (integer inputs: int64 re, im) and, for float inputs, the double beam and sum |terms| per component
// (integer inputs: magRe = |re|, magIm = |im|). absRe / absIm: sum |terms| for every type.
struct BfBeam {
  long long ire = 0, iim = 0;
  double re = 0, im = 0, magRe = 0, magIm = 0, absRe = 0, absIm = 0;
};

// The reference with decoded operand rows cached (one decode per row, not per product): what the check,
// the baseline's error and the baseline's dense input use. Rows are (re, im) doubles of receivers 0..K-1.
class BfReference {
 public:
  BfReference(const BeamformerSpec& s, const TestData& d);
  const double* sampleRow(long long b, long long c, long long p, long long t);
  const double* weightRow(long long b, long long c, long long p, long long m);
  BfBeam beam(long long b, long long c, long long p, long long t, long long m);

 private:
  struct Side {
    const BfOperand* op = nullptr;
    const unsigned char *a = nullptr, *b = nullptr;  // planar: b = imaginary parts
    long long rows = 0;
    bool clamp = false;
    std::unordered_map<long long, std::vector<double>> cache;
    long long cached = 0;  // doubles held
  };
  const double* row(Side& side, long long b, long long c, long long p, long long i);
  const BeamformerSpec& s_;
  Side in_, w_;
};

BfBeam bfReferenceBeam(const BeamformerSpec& s, const TestData& d, long long b, long long c, long long p, long long t,
                       long long m);

// Integer beams: round half up of acc / 2^shift (shift clamped to 0..31), saturated to +-max.
int bfShiftSaturate(long long acc, int shift, int maxv);
// Whether that saturation clamps (the rounded value lies outside +-max): what the kernel's `saturated` counts,
// once per complex beam with a clamped component.
bool bfShiftClamps(long long acc, int shift, int maxv);

// The names of the input arrays of an operand ("samples" or "samples_re", "samples_im").
std::vector<std::string> bfArrayNames(const BeamformerSpec& s, bool weights);

// Reference multiply-adds one check may spend comparing values; beyond it a seeded sample of the elements
// is compared (every element is still checked written).
constexpr double kBfCheckBudget = 4e7;

// Integer beams: `outputs` holds "saturated" (uint64, the kernel's count of complex beams with a clamped component
// in this call); compared exactly when every element is compared, else bounded by the sampled count and the total.
Check beamformerCheck(const BeamformerSpec& s, const TestData& data,
                      const std::map<std::string, std::vector<unsigned char>>& outputs, long long batch);

// The baseline library's complex f32 beams, dense per GEMM g = (b C + c) P + p as [g][t][m] (column-major M x N),
// against the reference: max over a seeded sample (kBfCheckBudget) of |out - ref| / sum |terms| per component.
double bfBaselineBeamsError(const BeamformerSpec& s, const TestData& data, const std::vector<unsigned char>& dense,
                            long long batch);

// The baseline's dense input for `batch` entries: the weights of every GEMM [g][m][k], then the samples [g][t][k],
// as the kernel uses them: "ci8" interleaved (re, im) int8 (ci4 widened; ci8 samples' -128 read as -127), or
// "cf16" planar (real parts of all weights, imaginary parts of all weights, then the same for the samples).
std::vector<unsigned char> bfBaselineDenseInput(const BeamformerSpec& s, const TestData& data, long long batch);

}  // namespace warpforge
