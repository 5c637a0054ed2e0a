#pragma once
// The reduction kernel of the katgpucbf accumulation model (see CorrelatorEmitter.h).
#include <string>

#include "generator/correlator/CorrelatorSpec.h"

namespace warpforge {
// Visibilities per thread and grid sweep of the reduce kernel (independent loads in flight).
constexpr int kReduceUnroll = 4;
// Resident blocks per SM the reduce kernel is compiled for (__launch_bounds__: at most 65536 / (256 x this)
// registers).
constexpr int kReduceMinBlocks = 4;
// unroll: visibilities per thread and sweep (kReduceUnroll unless a bench variant asks for another).
std::string emitReduce(const CorrelatorSpec& s, const std::string& name, int threads, int unroll = kReduceUnroll);
// The previous kernel, kept as a bench variant: the receivers' flags staged before the loads, the baseline decoded on
// every visibility (decodeFirst: right after the first accumulator's loads, else one by one with their stores).
std::string emitReducePrevious(const CorrelatorSpec& s, const std::string& name, int threads,
                               int unroll = kReduceUnroll, bool decodeFirst = false);
// DRAM bytes the reduce kernel must move for `batch` accumulators: read + reset each, write the output.
long long reduceBytes(const CorrelatorSpec& s, long long batch);
}  // namespace warpforge
