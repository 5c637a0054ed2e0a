// r2c / c2r of N = 2L real points as a complex FFT of L on the real array viewed as L pairs, with the split (r2c) or
// merge (c2r) that relates it to the N-point transform (RealFusion.h).
#include <fmt/format.h>

#include "generator/stockham/PlanBuilder.h"

namespace warpforge {

// r2c / c2r of N = 2L as a complex FFT of L on the real array viewed as L pairs, with the
// split (r2c) or merge (c2r) that relates it to the N-point transform:
//  - L smooth and at most kMaxFusedHalf: one kernel, the split fused into its store (the merge
//    into its first pass);
//  - otherwise: the complex FFT of L by the general path (two kernels or Bluestein) into scratch,
//    and a copy kernel that applies the split (r2c); or the merge into scratch first (c2r).
void PlanBuilder::buildReal() {
  const int N = s_.length(), L = N / 2;
  const bool r2c = s_.transform == Transform::R2C;
  Job j;
  j.n = L;
  j.fuseN = N;
  j.factors = {};
  const Side realSide = r2c ? Side{Buffer::Input, userReal(), false, s_.input.offset, s_.input.strides[0], {s_.input.distance}}
                            : Side{Buffer::Output, userReal(), false, s_.output.offset, s_.output.strides[0], {s_.output.distance}};
  const Side complexSide = r2c ? Side{Buffer::Output, userComplex(), s_.output.planar, s_.output.offset, s_.output.strides[0], {s_.output.distance}}
                               : Side{Buffer::Input, userComplex(), s_.input.planar, s_.input.offset, s_.input.strides[0], {s_.input.distance}};
  std::vector<cd> w;
  for (int k = 0; k <= L; ++k) w.push_back(unitRoot(k, N, r2c ? -1 : +1));
  if (L <= maxFusedRealHalf(s_.precision) && isSmooth(L, maxPrime_)) {
    if (r2c) {
      j.sign = -1;
      j.fuse = Fuse::R2CPost;
      j.role = fmt::format("r2c of {} as a complex FFT of {} with the split fused into the store", N, L);
      j.in = realSide;
      j.out = complexSide;
      j.storeTable = std::move(w);
      j.hasStoreTable = true;
    } else {
      j.sign = +1;
      j.fuse = Fuse::C2RPre;
      j.role = fmt::format("c2r of {} as a complex FFT of {} with the merge fused into the first pass", N, L);
      j.in = complexSide;
      j.out = realSide;
      j.loadTable = std::move(w);
      j.hasLoadTable = true;
    }
    addSingle(j);
    return;
  }
  const Buffer half = Buffer::Tmp0;
  reserve(half, L);
  Job fft = j, fix = j;
  fix.copyOnly = true;
  fix.fuseN = N;
  if (r2c) {
    fft.sign = -1;
    fft.role = fmt::format("r2c of {}, step 1: complex FFT of {} on the real pairs into scratch", N, L);
    fft.in = realSide;
    fft.out = dense(half, L, {});
    fix.role = fmt::format("r2c of {}, last step: the split X[k] = E[k] + W_N^k O[k], k = 0..{}", N, L);
    fix.sign = -1;
    fix.fuse = Fuse::R2CPost;
    fix.in = dense(half, L, {});
    fix.out = complexSide;
    fix.storeTable = std::move(w);
    fix.hasStoreTable = true;
    addJob(fft);
    addSingle(fix);
  } else {
    fix.role = fmt::format("c2r of {}, step 1: the merge Z[k] = (X[k] + conj X[L-k]) + i W_N^-k (X[k] - conj X[L-k]) into scratch", N);
    fix.sign = +1;
    fix.fuse = Fuse::C2RPre;
    fix.in = complexSide;
    fix.out = dense(half, L, {});
    fix.loadTable = std::move(w);
    fix.hasLoadTable = true;
    fft.sign = +1;
    fft.role = fmt::format("c2r of {}, step 2: inverse complex FFT of {} from scratch onto the real pairs", N, L);
    fft.in = dense(half, L, {});
    fft.out = realSide;
    addSingle(fix);
    addJob(fft);
  }
}

}  // namespace warpforge
