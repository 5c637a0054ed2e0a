#pragma once
// n_out = 4096 as four warps per FFT: decimation in frequency over two output bits, q0 q1 = p. With n = m + 1024 j and
// q = 4 k + p,
//   X[4 k + p] = sum_m E1024(k, m) W^(p m) y'_p[m],   y'_p[m] = sum_j x[m + 1024 j] W4^(p j),
// W = exp(sign 2 pi i / 4096), W4 = W^1024 = sign i. Warp p transforms its y'_p with the synthesized and verified
// {min(n_in, 1024) -> 1024} design: no combine after the FFTs, and each warp holds the 1024-point design's registers
// (32 data registers) instead of the 2048-point one's (64). The warps' outputs X[4 k + p] meet in shared memory and
// leave as 16-byte vectors of the natural order.
// By default (foldedTwiddles) the twiddle W^(p m) is folded into warp p's phases (TcFftQuadTwist.h) and warp p forms
// its own y'_p at its load: a butterfly over j in f16x2 (radix 4 at n_in = 4096, 2 at 2048, none below). Otherwise a
// pass over the row in shared memory forms every y_p = W^(p m) y'_p (f32 or f16x2, one f16 rounding) first.
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
  int fftsPerBlock = 1;    // FFTs (groups of four warps) per block; each holds its 16 KiB row buffers
  int minBlocksPerSm = 0;  // __launch_bounds__'s minimum blocks per SM (0: none given): a register cap
  bool halfPass = false;   // the pass in f16x2 with a half2 twiddle table (TcFftQuadHalfPass.h; n_in >= 2048)
  // The twiddle W^(p m) folded into warp p's phases (TcFftQuadTwist.h) and no pass: warp p forms its own untwiddled
  // y'_p[m] = sum_j x[m + 1024 j] W4^(p j) at its load in f16x2 (n_in >= 2048; warp p reads x[m] as is below), and its
  // outputs go to an output-only row buffer: two barriers per row. Off: the pass (three barriers per row, the outputs
  // overwrite the inputs' segments).
  bool foldedTwiddles = true;
  // Folded twiddles only: rows in flight per FFT while one is transformed (1: two input row buffers; 2: three).
  int rowsAhead = 1;
  // Folded twiddles only: two output buffers, and each row's store deferred into the next row's iteration, after its
  // barrier: one barrier per row, and the store's shared reads and global writes overlap the next row's work.
  bool deferredStore = false;
};

// The options `bench` times for `spec`, with their variant names (the first is the one `emit` uses).
std::vector<std::pair<std::string, TcFftQuadOptions>> tcFftQuadBenchOptions(const LayoutProgram& spec);

EmittedKernel emitTcFftQuad(const LayoutProgram& spec, const TcFftQuadDesign& design, const EmitOptions& opt = {},
                            const TcFftQuadOptions& quadOpt = {});

// The quarter-length design's bound (tcFftErrorBound) plus the pass's f16 rounding of y_p and its f32 arithmetic
// (TcFftQuadEmitter.cpp).
double tcFftQuadErrorBound(const TcFftQuadDesign& design);
// The same with the twiddles folded into the phases (TcFftQuadOptions::foldedTwiddles): y'_p's f16x2 sums instead of
// the pass.
double tcFftQuadFoldedErrorBound(const TcFftQuadDesign& design, int terms);

}  // namespace warpforge
