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

inline std::vector<std::complex<double>> twiddleTable(const std::vector<int>& factors, int sign) {
  std::vector<std::complex<double>> t;
  long long ns = 1;
  for (int R : factors) {
    if (ns > 1)
      for (int r = 1; r < R; ++r)
        for (long long k = 0; k < ns; ++k) {
          double a = 2.0 * M_PI * static_cast<double>((r * k) % (ns * R)) / static_cast<double>(ns * R);
          t.push_back({std::cos(a), sign * std::sin(a)});
        }
    ns *= R;
  }
  return t;
}

}  // namespace warpforge
