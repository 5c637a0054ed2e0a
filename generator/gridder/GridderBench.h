#pragma once
// What `warpforge bench` times beside the spec's whole plan, as bench variants (same arrays):
//   0  the gridder (or degridder) kernel alone
//   1  the whole plan again (its rate in the notes)
//   2  microbenchmark: FP32 FMA peak (16 independent FMA chains per thread)
//   3  microbenchmark: SFU sincos peak (8 independent __sincosf chains per thread)
//   4  microbenchmark: the gridder's inner loop in registers (per step 1 FMA + 1 __sincosf + 4 P FMAs)
// and the notes: visibilities per second of the kernel alone and of the whole plan, the measured
// FMA and sincos rates and the model's bound min(FMA rate / (4 P + 1), sincos rate) / S^2
// visibilities per second (17 FMAs + 1 sincos per visibility and pixel at P = 4).
#include <string>
#include <vector>

#include "generator/core/Facets.h"
#include "generator/gridder/GridderLaunch.h"

namespace warpforge {

std::vector<BenchVariant> gridderBenchVariants(const GridderSpec& s, const GridderBuild& build);
std::string gridderBenchNotes(const GridderSpec& s, const std::vector<double>& variantMs,
                              const std::vector<long long>& variantBatch);

// The microbenchmarks' work per batch entry (blocks x threads x chains x iterations).
struct GridderMicro {
  static constexpr int kThreads = 256;
  static constexpr long long kFmaBlocks = 4096, kFmaIters = 2048, kFmaChains = 16;
  static constexpr long long kSfuBlocks = 2048, kSfuIters = 512, kSfuChains = 8;
  static constexpr long long kMixBlocks = 2048, kMixIters = 256, kMixChains = 4;
};

}  // namespace warpforge
