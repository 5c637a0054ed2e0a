#pragma once
// n_out = 4096 as two warps per FFT: decimation in time over one warp bit w0 = n0. Warp w of a pair transforms the
// polyphase half x[2i + w] with the synthesized and verified {n_in / 2 -> 2048} design (its 64 data registers fit a
// thread without spilling; the one-warp 4096 design holds 128 and spills), the halves meet in shared memory, and one
// radix-2 combine moves w0 to q11: X[k] = E[k] + W^k O[k], X[k + 2048] = E[k] - W^k O[k], W = exp(sign 2 pi i / 4096).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "generator/tc_fft/TcFftEmitter.h"
#include "generator/verify/Plan.h"
#include "generator/verify/Program.h"

namespace warpforge {

struct TcFftPairDesign {
  LayoutProgram sub;  // the n_in / 2 -> 2048 design each warp runs
  Plan plan;          // the Verifier's plan of `sub` (points into it: the design is heap-held, never moved)
};

// Where `emit` uses the pair kernel: whole rows (no batch bits), n_out = 4096 and n_in = 512 .. 4096, a power of two
// (the half-length design pads at most 8x).
bool tcFftPairApplies(const LayoutProgram& spec);

// Synthesizes and verifies the half-length design (throws VerifyError if the Verifier refuses it).
std::unique_ptr<TcFftPairDesign> tcFftPairDesign(const LayoutProgram& spec);

// Pairs of warps per block (the default): each pair keeps two 4096-word shared buffers (cp.async double buffer), 32
// KiB.
constexpr int kTcFftPairsPerBlock = 2;

struct TcFftPairOptions {
  // Each warp reads single words at row element 2 i + part of the row as copied (what `emit` uses: measured faster);
  // false: the copy de-interleaves the row by part (TcFftPairBuffer.h; a bench variant).
  bool wordReads = true;
  int pairsPerBlock = kTcFftPairsPerBlock;
  // __launch_bounds__'s minimum resident blocks per SM (0: none given): NVRTC then keeps each thread within
  // 65536 / (block threads x minBlocksPerSm) registers, spilling if it must, so that more warps are in flight.
  int minBlocksPerSm = 0;
};

// The pair kernel's options that `bench` times beside the default, each with its variant name: the copy that
// de-interleaves the row by part (first), then register caps through __launch_bounds__ and one pair per block (half
// the shared memory per block, so more blocks fit an SM where registers allow).
std::vector<std::pair<std::string, TcFftPairOptions>> tcFftPairBenchOptions();

EmittedKernel emitTcFftPair(const LayoutProgram& spec, const TcFftPairDesign& design, const EmitOptions& opt = {},
                            const TcFftPairOptions& pairOpt = {});

// The half-length design's bound (tcFftErrorBound) plus the combine's f16 rounding and f32 arithmetic
// (TcFftPairEmitter.cpp).
double tcFftPairErrorBound(const TcFftPairDesign& design);

}  // namespace warpforge
