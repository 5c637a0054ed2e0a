#pragma once
// n_out = 4096 as four warps per FFT: decimation in frequency over two output bits, q0 q1 = p. With n = m + 1024 j and
// q = 4 k + p,
//   X[4 k + p] = sum_m E1024(k, m) y_p[m],   y_p[m] = W^(p m) sum_j x[m + 1024 j] W4^(p j),
// W = exp(sign 2 pi i / 4096), W4 = W^1024 = sign i. A pass over the row in shared memory forms every y_p (a radix-4
// butterfly over j in f32, or radix-2 for n_in = 2048, none for n_in <= 1024; then the twiddle W^(p m); one f16
// rounding), and warp p transforms y_p with the synthesized and verified {min(n_in, 1024) -> 1024} design: no combine
// after the FFTs, and each warp holds the 1024-point design's registers (32 data registers) instead of the 2048-point
// one's (64). The warps' outputs X[4 k + p] meet in shared memory and leave as 16-byte vectors of the natural order.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "generator/tc_fft/TcFftEmitter.h"
#include "generator/verify/Plan.h"
#include "generator/verify/Program.h"

namespace warpforge {

struct TcFftQuadDesign {
  LayoutProgram sub;  // the min(n_in, 1024) -> 1024 design each warp runs
  Plan plan;          // the Verifier's plan of `sub` (points into it: the design is heap-held, never moved)
};

// Where the four-warp kernel applies: whole rows (no batch bits), n_out = 4096, n_in = 512 .. 4096 (a power of two),
// f16 accumulators.
bool tcFftQuadApplies(const LayoutProgram& spec);

// Synthesizes and verifies the quarter-length design (throws VerifyError if the Verifier refuses it).
std::unique_ptr<TcFftQuadDesign> tcFftQuadDesign(const LayoutProgram& spec);

struct TcFftQuadOptions {
  int fftsPerBlock = 2;    // FFTs (groups of four warps) per block; each holds two 16 KiB row buffers
  int minBlocksPerSm = 0;  // __launch_bounds__'s minimum blocks per SM (0: none given): a register cap
  bool halfPass = false;   // the pass in f16x2 with a half2 twiddle table (TcFftQuadHalfPass.h; n_in >= 2048)
  int phaseBudget = 0;     // > 0: PhasePlan's register budget (data + held phases); the rest of the phases in a table
  // One FFT per block only: __syncthreads instead of a named barrier whose id is computed, for which ptxas reserves all
  // 16 of the block's barriers (then at most 4 blocks per SM, whatever the registers and shared memory allow).
  bool blockBarrier = false;
  // The next row's copy issued after the current row's wait and barrier (one barrier per row less; the copy starts a
  // little later); false: issued first, a barrier more (a bench variant).
  bool waitThenIssue = true;
  bool l2Prefetch = false;  // the row's copies ask L2 for 256-byte groups (cp.async ... .L2::256B)
  // Phases held unpacked (EmitOptions::packedPhases off for this kernel): no unpacking or negation per MMA operand at
  // use, more registers held.
  bool unpackedPhases = false;
  // n_in = 2048 only: no pass through shared memory; warp p forms y_p[m] = W^(p m) (x[m] + W4^p x[m + 1024]) in f32
  // from the row's two segments as it loads them (the pass's arithmetic and rounding, no pass writes, one barrier
  // less per row; a table of W^(p m), p = 1..3).
  bool fusedPass = false;
};

// The options `bench` times for `spec`, with their variant names (the first is the one `emit` uses: one FFT per block
// at n_in = 2048, two elsewhere).
std::vector<std::pair<std::string, TcFftQuadOptions>> tcFftQuadBenchOptions(const LayoutProgram& spec);

EmittedKernel emitTcFftQuad(const LayoutProgram& spec, const TcFftQuadDesign& design, const EmitOptions& opt = {},
                            const TcFftQuadOptions& quadOpt = {});

// The quarter-length design's bound (tcFftErrorBound) plus the pass's f16 rounding of y_p and its f32 arithmetic
// (TcFftQuadEmitter.cpp).
double tcFftQuadErrorBound(const TcFftQuadDesign& design);

}  // namespace warpforge
