#pragma once
// Cooperative radices: the primes above a thread's butterflies (37..127; f64 29..127) as one Stockham
// pass computed by several threads per butterfly from shared memory, instead of one thread holding all
// R inputs in registers (the straight-line form of Butterfly.h took 168-255 registers from radix 37
// on, f64 spilled) or a Bluestein convolution of twice the length in four kernels past one kernel's
// convolution (cuFFT has native kernels for primes up to 127).
//
// The pass, for butterfly b (inputs x_j at b + j B, B = L / R, h = (R - 1) / 2):
//  1. fold in place: x_j and x_{R-j} times their twiddles, then a_j = x_j + x_{R-j} in slot j and
//     b_j = x_j - x_{R-j} in slot R - j (one work item per pair, element-wise, no hazard);
//  2. items of G output pairs: y_k = x_0 + sum_j cos(2 pi jk/R) a_j + i sum_j sin(sign 2 pi jk/R) b_j
//     and y_{R-k} = its mirror, k = gG + 1 .. gG + G, in a rolled loop over j with the constants from a
//     table copied to shared memory at kernel start (lanes on different items need different entries,
//     which __constant__ memory serializes); the item of group 0
//     also sums y_0 = x_0 + sum_j a_j;
//  3. after a barrier, the outputs held in registers go to their Stockham slots.
// About R real multiply-adds per point: 37..127 FMAs against ~2 log2(M) for a Bluestein pair of
// length M ~ 2L, but one kernel and no second trip through global memory.
#include <algorithm>

namespace warpforge {

constexpr int kMaxCoopRadix = 127;
// The values a cooperative pass aims to leave per thread (the thread count of its kernel follows): its
// outputs wait in registers for the barrier, ~2 registers per value plus ~25 (16 spilled at 64 registers).
constexpr int kCoopHeldValues = 8;

inline bool isPrimeNumber(int r) {
  if (r < 2) return false;
  for (int d = 2; d * d <= r; ++d)
    if (r % d == 0) return false;
  return true;
}

// The largest prime a thread holds whole as one butterfly (Butterfly.h): the straight-line radix 37 took
// 168-255 registers in f32, and f64 spilled from 29 on.
inline int threadPrimeLimit(bool f64) { return f64 ? 23 : 31; }
// A prime above a thread's butterflies (maxPrime: threadPrimeLimit of the precision computed in) up to 127 runs
// cooperatively (so f64 29 and 31 are no four-kernel Bluestein convolutions past 4096 points).
inline bool isCoopRadix(int r, int maxPrime) { return r > maxPrime && r <= kMaxCoopRadix && isPrimeNumber(r); }

// The largest cooperative prime that one thread still computes whole where its pass gives each thread one butterfly
// (StockhamEmitter streamedPass, Geometry.cpp streamedPrime): the R inputs folded into (R - 1) / 2 sums and
// differences in registers, then each output pair computed with constant coefficients and stored at once, so a thread
// holds about R values, not the 2R of Butterfly.h's form (which spilled from f64 29 on); its coefficients are literals
// (f32) or one __constant__ row per output pair, the same entry in every lane (f64), not per-lane shared-table reads.
// Where the pass is the whole FFT or nearly (f64 29..53, 2 x 29; f32 37^2, 43^2), the cooperative pass's table reads
// and three barriers dominate the kernel; at other multiples (f32 to 61, f64 29 and 31) the streamed pass
// ran 1.02-1.95x the cooperative one where the other passes hold few values (Geometry.cpp streamedPrime).
inline int streamedPrimeLimit(bool f64) { return f64 ? 53 : 61; }

struct CoopShape {
  int pairs = 1;                                        // G: output pairs per work item
  int groups = 1;                                       // ceil(h / G) items per butterfly
  int items = 1;                                        // butterflies x groups
  int iters = 1;                                        // items per thread (rounded up)
  int held() const { return iters * (2 * pairs + 1); }  // complex outputs a thread holds until the barrier
};

// Items of G pairs over T threads: the G that holds the fewest values (ties: the larger G, more
// multiply-adds per shared-memory load).
inline CoopShape coopShape(int R, int L, int T) {
  const int h = (R - 1) / 2, B = L / R;
  CoopShape best;
  bool have = false;
  for (int G : {4, 3, 2}) {  // 6 and 8 pairs: 32-48 accumulator registers, spilled at 612 threads (9797)
    CoopShape s;
    s.pairs = G;
    s.groups = (h + G - 1) / G;
    s.items = B * s.groups;
    s.iters = (s.items + T - 1) / T;
    if (!have || s.held() < best.held()) best = s;
    have = true;
  }
  return best;
}

}  // namespace warpforge
