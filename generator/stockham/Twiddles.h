#pragma once
// Stockham twiddle table: pass p (sub-transform length ns, radix R) holds
// w^(r k) = exp(sign 2 pi i r k / (ns R)) at offset_p + (r - 1) ns + k.
// k runs fastest so that each of a butterfly's R - 1 twiddle loads is one
// contiguous run over the warp (consecutive threads, consecutive k): one or two
// L1 wavefronts per load. rocFFT's order, offset_p + k (R - 1) + (r - 1), makes
// every load a stride-(R - 1) gather: up to 30 wavefronts per load for radix 16,
// which made the L1 the busiest unit of our kernels. Pass 0 (ns = 1) needs none.
#include <bit>
#include <cmath>
#include <complex>
#include <vector>

namespace warpforge {

// Derived twiddles (KernelGeometry::deriveTwiddles): W^(kr) is loaded for r a power of two;
// any other r is the product W^(k hi) W^(k (r - hi)) of two earlier ones, hi = derivedSplit(r).
inline bool twiddleLoaded(int r, bool derive) { return !derive || std::has_single_bit(static_cast<unsigned>(r)); }
inline int derivedSplit(int r) { return static_cast<int>(std::bit_floor(static_cast<unsigned>(r))); }

// offsets[p] for each pass, plus the total length at the end.
inline std::vector<long long> twiddleOffsets(const std::vector<int>& factors) {
  std::vector<long long> off{0};
  long long ns = 1;
  for (int R : factors) {
    off.push_back(off.back() + (ns > 1 ? ns * (R - 1) : 0));
    ns *= R;
  }
  return off;
}

// Fused axes (KernelDesc::axes, slowest first): the product of the axes the passes up to sub-transform length ns
// have finished (they run fastest axis first). 1 for one axis.
inline long long finishedAxes(const std::vector<int>& axes, long long ns) {
  long long done = 1;
  for (auto a = axes.rbegin(); a != axes.rend() && ns % (done * *a) == 0; ++a) done *= *a;
  return done;
}
// Whether a pass at sub-transform length ns multiplies by twiddles: not the first pass of the FFT, nor the first
// pass of a fused axis (its sub-transforms restart at length 1).
inline bool passTwiddled(const std::vector<int>& axes, long long ns) { return ns > 1 && finishedAxes(axes, ns) != ns; }

// With fused axes, a pass inside an axis takes that axis's twiddle: k = done * kk + (finished axes' output index),
// w = exp(sign 2 pi i r kk / ((ns / done) R)); the table keeps the one-axis layout (ones where passTwiddled is false).
inline std::vector<std::complex<double>> twiddleTable(const std::vector<int>& factors, int sign,
                                                      const std::vector<int>& axes = {}) {
  std::vector<std::complex<double>> t;
  long long ns = 1;
  for (int R : factors) {
    const long long done = finishedAxes(axes, ns), len = ns / done * R;
    if (ns > 1)
      for (int r = 1; r < R; ++r)
        for (long long k = 0; k < ns; ++k) {
          double a = 2.0 * M_PI * static_cast<double>((r * (k / done)) % len) / static_cast<double>(len);
          t.push_back({std::cos(a), sign * std::sin(a)});
        }
    ns *= R;
  }
  return t;
}

}  // namespace warpforge
