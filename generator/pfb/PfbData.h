#pragma once
// The pfb family's test data and its CPU reference in double (no FFTW: a radix-2 FFT of its own).
//
// Arrays of a run (names as in the LaunchPlan):
//   input     real samples [batch][receiver][pol][sample], the spec's encoding
//   gains     complex f32 [receiver][pol][channel]                  (spec gain "per_channel")
//   delays    (delay in samples, phase in radians) f32 [batch][receiver][pol][spectrum]   (spec delay true)
// Outputs: spectra (cf32 or ci8 in the spec's layout), saturated (ci8: uint64 per stream).
#include <complex>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "generator/pfb/PfbSpec.h"
#include "warpforge/family.h"

namespace warpforge {

TestData pfbInputs(const PfbSpec& s, long long batch, std::uint64_t seed);

// Sample `index` of stream q of batch entry b, decoded from the input bytes (a bit reader, independent of the
// kernel's).
long long pfbSample(const PfbSpec& s, const std::vector<unsigned char>& input, long long b, int q, long long index);
// Writes sample `index` (the inverse, for building inputs).
void pfbPutSample(const PfbSpec& s, std::vector<unsigned char>& input, long long b, int q, long long index,
                  long long value);

// One spectrum in double: X[k] (k < N) of the FIR output, its post-processed value V[k], and the sums the f32 error
// bound needs (|terms| of the FIR).
struct PfbReferenceSpectrum {
  std::vector<std::complex<double>> X, V;
  double firAbsNorm = 0;      // || (sum_j |w_j x_j|)_i ||_2
  double firNorm = 0;         // ||y||_2: the FIR's outputs
  std::vector<double> scale;  // |gain| of each channel (the constant or per-channel gain as f32)
};
PfbReferenceSpectrum pfbReference(const PfbSpec& s, const TestData& data, long long b, int q, long long spectrum);

// The bound on ||out - V|| / ||X|| (gains divided out) of one spectrum for the f32 kernels (see PfbData.cpp).
double pfbErrorBound(const PfbSpec& s, const PfbReferenceSpectrum& r);

// compareCounts false: the saturation counts are not compared (a baseline that does not count them).
Check pfbCheck(const PfbSpec& s, const TestData& data, const std::map<std::string, std::vector<unsigned char>>& outputs,
               long long batch, bool compareCounts = true);

// The double-precision FFT the reference uses: y_k = sum_n x_n e^{sign 2 pi i nk / L}, L a power of two.
void pfbFftDouble(std::vector<std::complex<double>>& x, int sign);

}  // namespace warpforge
