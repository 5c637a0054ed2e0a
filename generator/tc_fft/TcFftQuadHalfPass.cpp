#include "generator/tc_fft/TcFftQuadHalfPass.h"

#include <cmath>

#include "generator/tc_fft/TcFftData.h"

namespace warpforge {

bool tcFftQuadHalfPassApplies(const LayoutProgram& s) { return tcFftQuadApplies(s) && s.nIn >= 2048; }

const char* tcFftQuadHalfPassHelpers() {
  return R"(
// y t in f16x2 for y = (re, im) and t as the twiddle table holds it: t.x = (cos, cos), t.y = (-sin, sin). The product
// y (cos, cos) is rounded once, then the swapped y times (-sin, sin) is added with one rounding (HFMA2).
__device__ __forceinline__ wf_u32 wf_cmul_h2_table(wf_u32 y, uint2 t) {
  return wf_as_u32(__hfma2(wf_as_h2(__byte_perm(y, 0u, 0x1032)), wf_as_h2(t.y), __hmul2(wf_as_h2(y), wf_as_h2(t.x))));
}
// wf_dif4_point in f16x2: the butterfly over j as half2 sums (one rounding each), W4 d as a swap and a sign flip
// (exact), y_p t^p from the table (tw: this m's W^m; W^(2m), W^(3m) kSeg entries further). Same words read and written.
template <int kJ, int kSign, int kSeg>
__device__ __forceinline__ void wf_dif4_point_h2(wf_u32* stage, int word, const uint2* tw) {
  static_assert(kJ == 2 || kJ == 4, "the f16x2 pass is radix 2 or radix 4");
  const __half2 v0 = wf_as_h2(stage[word]), v1 = wf_as_h2(stage[kSeg + word]);
  __half2 a = v0, b = v0, c = v1, d = v1;
  if (kJ == 4) {
    const __half2 v2 = wf_as_h2(stage[2 * kSeg + word]), v3 = wf_as_h2(stage[3 * kSeg + word]);
    a = __hadd2(v0, v2), b = __hsub2(v0, v2), c = __hadd2(v1, v3), d = __hsub2(v1, v3);
  }
  // W4 d = kSign i d: (-d.im, d.re) for kSign = 1, (d.im, -d.re) for -1.
  const __half2 wd = wf_as_h2(__byte_perm(wf_as_u32(d), 0u, 0x1032) ^ (kSign > 0 ? 0x8000u : 0x80000000u));
  stage[word] = wf_as_u32(__hadd2(a, c));
  stage[kSeg + word] = wf_cmul_h2_table(wf_as_u32(__hadd2(b, wd)), tw[0]);
  stage[2 * kSeg + word] = wf_cmul_h2_table(wf_as_u32(__hsub2(a, c)), tw[kSeg]);
  stage[3 * kSeg + word] = wf_cmul_h2_table(wf_as_u32(__hsub2(b, wd)), tw[2 * kSeg]);
}
// The block's table for wf_dif4_point_h2: entry (k - 1) kSeg + m is W^(k m) (k = 1, 2, 3; m < kSeg, W =
// exp(kSign 2 pi i / kN)), one sincospif each, every component rounded to f16 once.
template <int kSign, int kSeg, int kN>
__device__ __forceinline__ void wf_dif4_twiddles_h2(uint2* tw, int first, int stride) {
  for (int e = first; e < 3 * kSeg; e += stride) {
    float c, s;
    wf_phase((1 + e / kSeg) * (e % kSeg), kN, kSign, c, s);
    tw[e] = make_uint2(wf_pack(c, c), wf_pack(-s, s));
  }
}
)";
}

double tcFftQuadHalfPassErrorBound(const TcFftQuadDesign& d, int terms) {
  // u = 2^-11; every half2 operation rounds each component once (relative u), so a complex sum or a rounded table
  // entry is off by at most u |result| in modulus. Norms below are over all p and m together (the X_p are disjoint
  // parts of X, so relative l2 errors of the y_p carry over to X through the 32-scaled 1024-point DFTs).
  //  Butterfly. Radix 2: y_p is one rounded sum, |dy_p| <= u |y_p|: e1 = u. Radix 4: a = x0 + x2 etc. (|da| <= u |a|),
  //  then y = a + c (|dy| <= u |y| + (1 + u)(|da| + |dc|) <= u |y| + u (1 + u)(|a| + |c|)); over p the (|a| + |c|)^2
  //  sum to at most 8 ||x||^2 while ||y||^2 = 4 ||x||^2, so e1 = u (1 + sqrt(2) (1 + u)).
  //  Twiddle. t' = t (1 + d) with |t' - t| <= u. Re(y t') = fl(fl(yr c) - yi s): error <= u |yr c| (1 + u) + u |Re|;
  //  with the imaginary part, |fl(y t') - y t'| <= 2 u (1 + u) |y| |t'| (each of (yr c, yi c) and (Re, Im) has modulus
  //  <= |y| |t'|). With y's own error e1: |fl(y' t') - y t| <= 2 u (1 + u)^2 |y'| + (1 + u) |y' - y| + u |y|, relative
  //  e1 + 3 u + 16 u^2 (e1 <= 2.5 u; p = 0 has no twiddle and less).
  //  Design. The quarter design's bound b is relative to its exact output on its (f16) input y'_p, whose DFT is within
  //  e of X_p: total b (1 + e) + e.
  const double u = std::ldexp(1.0, -11);
  const double e1 = terms == 4 ? u * (1 + std::sqrt(2.0) * (1 + u)) : u;
  const double e = e1 + 3 * u + 16 * u * u;
  const double b = tcFftErrorBound(d.sub);
  return b * (1 + e) + e;
}

}  // namespace warpforge
