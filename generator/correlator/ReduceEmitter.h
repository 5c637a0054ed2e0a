#pragma once
// The reduction kernel of the katgpucbf accumulation model (see CorrelatorEmitter.h).
#include <string>
#include <vector>

#include "ast/Ast.h"
#include "generator/correlator/CorrelatorSpec.h"

namespace warpforge {
// Units (16-byte accumulator loads) per thread and sweep of the reduce kernel (independent loads in flight).
constexpr int kReduceUnroll = 4;
// Resident blocks per SM the reduce kernel is compiled for (__launch_bounds__: at most 65536 / (256 x this)
// registers).
constexpr int kReduceMinBlocks = 4;

// How emitReduce builds its sweep (the default, or a bench variant's choice).
struct ReduceOptions {
  int unroll = kReduceUnroll;   // units per thread and sweep
  bool prefetch = true;         // the next sweep's loads issued before this sweep's stores (else after them)
  bool resetWithLoads = false;  // the accumulators' resets issued right after their loads (else once the data is in)
};

// The reduce kernel (persistent: its grid is capped at the resident blocks and loops over the sweeps).
std::string emitReduce(const CorrelatorSpec& s, const std::string& name, int threads, int unroll = kReduceUnroll);
std::string emitReduce(const CorrelatorSpec& s, const std::string& name, int threads, const ReduceOptions& o);
// Visibilities of one sweep of emitReduce's kernel (threads x unroll units of 1 or 2 visibilities).
long long reduceSweepVisibilities(const CorrelatorSpec& s, int threads, int unroll);

// Bench variants kept beside it (one block per sweep of threads x unroll visibilities, an uncapped grid):
// the previous kernel: loads first, the flags staged while they fly, one decode per baseline;
std::string emitReduceOneBlockPerSweep(const CorrelatorSpec& s, const std::string& name, int threads,
                                       int unroll = kReduceUnroll);
// the kernel before it: the receivers' flags staged before the loads, the baseline decoded on every visibility
// (decodeFirst: right after the first accumulator's loads, else one by one with their stores).
std::string emitReducePrevious(const CorrelatorSpec& s, const std::string& name, int threads,
                               int unroll = kReduceUnroll, bool decodeFirst = false);

// The reduce kernels' parameters (every variant: the plan binds them by position).
std::vector<ast::NodePtr> reduceParameters(bool f32);
// The exact baseline decode of one visibility unit (statements appended to `out`, names suffixed `J`): bl = numerator
// mod B, r2 = floor((sqrt(8 bl + 1) - 1) / 2) from rsqrtf with one correction step each way, r1 = bl - r2 (r2 + 1) / 2;
// returns "either receiver flagged in `flags`" (a bool expression).
ast::NodePtr reduceBaselineDecode(std::vector<ast::NodePtr>& out, const std::string& J, ast::NodePtr numerator,
                                  const std::string& rT, const std::string& idxT, long long B,
                                  const std::string& flags);
// DRAM bytes the reduce kernel must move for `batch` accumulators: read + reset each, write the output.
long long reduceBytes(const CorrelatorSpec& s, long long batch);
}  // namespace warpforge
