#pragma once
// The correlator's test data and its exact CPU reference.
//
// Arrays of a run (names as in the LaunchPlan):
//   input             samples, the spec's layout, `input.batch` samples per batch entry
//   accumulators      int64 (f32 for cf16) [batch][channel][bl][p][q][re, im]: what the batch entries add to
//   missing           one byte per receiver: nonzero = the receiver's data are absent for this dump
// Outputs after a run with dump = 1 (the default):
//   visibilities      int32 (f32) [channel][bl][p][q][re, im] = saturate(sum over the batch's accumulators
//                     + this call's products), or the missing marker -2^31 (NaN 0x7fc00000 for f32)
//   accumulators_out  the accumulators (same memory) after the dump: all zero
//   saturated         uint64: visibilities (complex) with a component clamped to +-(2^31 - 1)
// Output "visibilities" (TCC's model): the input only; the output visibilities [batch][channel][bl][p][q][re, im] are
// each batch entry's products of this call (int32 exact, f32 within the bound), with no accumulators and no marker.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "generator/correlator/CorrelatorSpec.h"
#include "warpforge/family.h"

namespace warpforge {

struct CorrelatorInputOptions {
  double extremeFraction = 0.125;  // samples drawn from {min, min + 1, max} (min: -128 / -8, clamped by the kernel)
  enum class Accumulators { Zero, Random, NearSaturation } accumulators = Accumulators::NearSaturation;
  double missingFraction = 0.05;  // receivers flagged missing
};

TestData correlatorInputs(const CorrelatorSpec& s, long long batch, std::uint64_t seed,
                          const CorrelatorInputOptions& o = {});

// One sample, decoded and clamped as the kernel sees it (the -128 / -8 rule), and the accumulator element index.
struct SampleValue {
  double re = 0, im = 0;  // exact small integers for ci4 / ci8
};
SampleValue correlatorSample(const CorrelatorSpec& s, const std::vector<unsigned char>& input, long long b, long long c,
                             long long t, long long r, long long p);
long long sampleOffset(const CorrelatorSpec& s, long long b, long long c, long long t, long long r, long long p);

// Exact reference of one visibility component e = ((c * baselines + bl) * P + pp) * P + qq) * 2 + reim of one batch
// entry's products (no accumulators, no saturation): int64 for integer samples (as a double-free integer), double for
// cf16.
long long referenceProductInt(const CorrelatorSpec& s, const std::vector<unsigned char>& input, long long b,
                              long long e);
double referenceProductF(const CorrelatorSpec& s, const std::vector<unsigned char>& input, long long b, long long e);

// Compares every output with the reference (all components when the work is small, else a seeded
// sample of them plus the all-written and all-zero scans of every element).
Check correlatorCheck(const CorrelatorSpec& s, const TestData& data,
                      const std::map<std::string, std::vector<unsigned char>>& outputs, long long batch);

constexpr std::int32_t kMissingMarker = INT32_MIN;
constexpr std::uint32_t kMissingMarkerF32 = 0x7fc00000u;

}  // namespace warpforge
