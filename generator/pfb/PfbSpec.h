#pragma once
// The `pfb` family's spec: an F-engine front end (polyphase filter bank) for real digitiser samples.
// For every stream q = receiver * P + polarization and spectrum s < S of one call:
//   y_s[i] = sum_{j < T} w[j * 2N + i] x_q[(s + j) * 2N + i]                 i < 2N   (FIR, katgpucbf's indexing)
//   X_s[k] = sum_{i < 2N} y_s[i] exp(-2 pi i ik / 2N)                          k < N    (real FFT, Nyquist dropped)
//   V_s[k] = g_q[k] exp(i (phi_{q,s} - pi d_{q,s} k / N)) X_s[k]                         (gain, delay phase slope)
// stored as cf32, or as ci8 (round half to even, saturate to +-127, saturations counted) in the
// correlator's input layouts. See README.md.
#include <string>
#include <vector>

#include "warpforge/json.h"

namespace warpforge {

enum class PfbSampleType { Int8, Int16, Packed };
enum class PfbOutputType { CI8, CF32 };
enum class PfbLayout { Katgpucbf, Tcc, Spectra };
const char* pfbLayoutName(PfbLayout l);

struct PfbWeights {
  std::string source;          // "window", "file" or "values"
  std::string window;          // "hann" or "rect" (source "window")
  double cutoff = 1.0;         // sinc width factor (source "window")
  std::string file;            // as written in the spec (source "file")
  std::vector<double> values;  // T x 2N, tap-major: w[j * 2N + i]
};

struct PfbSpec {
  std::string file, name;
  long long channels = 0;  // N: channels kept (the FFT has 2N real points)
  int taps = 16;           // T
  int receivers = 1, polarizations = 2;
  long long spectra = 0;  // S: spectra per stream per call
  PfbSampleType sampleType = PfbSampleType::Int8;
  int sampleBits = 8;  // bits per sample (8, 16, or the packed width)
  PfbWeights weights;
  bool perChannelGain = false;  // Input `gains` [receiver][pol][channel] complex f32
  double gain = 1.0;            // a real constant (when not per channel)
  bool delay = false;           // Input `delays` [batch][receiver][pol][spectrum] (delay in samples, phase in radians)
  PfbOutputType outputType = PfbOutputType::CI8;
  PfbLayout layout = PfbLayout::Katgpucbf;
  // `scratch` "f16": Y between the kernels as __half2 (half the scratch bytes; each value rounded once to f16).
  bool halfScratch = false;

  long long fftLength() const { return 2 * channels; }
  // The scratch's element type and bytes (`scratch`).
  const char* scratchElement() const { return halfScratch ? "__half2" : "float2"; }
  int scratchElementBytes() const { return halfScratch ? 4 : 8; }
  int streams() const { return receivers * polarizations; }
  // Samples of one stream per call: the call's spectra plus the T - 1 spectra of history before them.
  long long streamSamples() const { return (spectra + taps - 1) * fftLength(); }
  long long streamBytes() const { return streamSamples() * sampleBits / 8; }
  long long inputBytesPerBatch() const { return streamBytes() * streams(); }
  int outputElementBytes() const { return outputType == PfbOutputType::CI8 ? 2 : 8; }
  long long outputElementsPerBatch() const { return static_cast<long long>(streams()) * spectra * channels; }
  // Element offset of (stream q, spectrum s, channel k) in one batch entry of the output.
  long long outputOffset(int q, long long s, long long k) const;
};

// Errors are SpecErrors naming `file` and the JSON path.
PfbSpec parsePfbSpec(const Json& root, const std::string& file);
PfbSpec parsePfbSpecText(const std::string& text, const std::string& file);
// Why `scratch` "f16" cannot hold this spec's values ("" where it can): a part of Y reaches at most sqrt2 x 32 x
// max_i sum_j |w[j L + i]| x 2^(bits - 1) (a complex point of two samples, a column FFT of at most 32 points, a unit
// twiddle), which must stay within f16's largest finite value.
std::string pfbHalfScratchOverflow(const PfbSpec& s);

}  // namespace warpforge
