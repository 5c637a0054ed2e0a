#pragma once
// The pfb family's bench facet: the cuFFT-user baseline (a FIR kernel, cufftExecR2C, a post kernel: bench's
// "fir_r2c"), the per-kernel variants and the notes `bench` prints (bytes, ceilings).
#include <optional>
#include <string>
#include <vector>

#include "generator/core/Facets.h"
#include "generator/pfb/PfbGeometry.h"
#include "generator/pfb/PfbSpec.h"

namespace warpforge {

std::optional<BaselineRequest> pfbBaseline(const PfbSpec& s);
// `spectrumPostChannels`: the emit target's limit (pfbSpectrumPostChannelsFor), for the default and every variant.
std::vector<BenchVariant> pfbBenchVariants(const PfbSpec& s, long long spectrumPostChannels = kMaxSpectrumPostChannels);
std::string pfbBenchNotes(const PfbSpec& s, const std::vector<double>& variantMs,
                          const std::vector<long long>& variantBatch, double clockKHz, int sms);

// Bytes one call of `batch` entries moves: the user's arrays (input, output) and the scratch written and read.
struct PfbTraffic {
  double inputBytes = 0, outputBytes = 0, scratchBytes = 0, rereadBytes = 0;
  double own() const { return inputBytes + outputBytes; }
  double total() const { return own() + 2 * scratchBytes + rereadBytes; }
};
PfbTraffic pfbTraffic(const PfbSpec& s, long long batch);

}  // namespace warpforge
