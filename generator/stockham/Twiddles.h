#pragma once
// Stockham twiddle table, laid out per pass in the order a pass reads it
// (as rocFFT does): pass p (sub-transform length ns, radix R) holds
// w^(r k) = exp(sign 2 pi i r k / (ns R)) at offset_p + k (R - 1) + (r - 1),
// so the R - 1 twiddles of a butterfly are adjacent and the threads of a warp
// (consecutive k) read one contiguous run. Pass 0 (ns = 1) needs none.
#include <cmath>
#include <complex>
#include <vector>

namespace warpforge {

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
      for (long long k = 0; k < ns; ++k)
        for (int r = 1; r < R; ++r) {
          double a = 2.0 * M_PI * static_cast<double>((r * k) % (ns * R)) / static_cast<double>(ns * R);
          t.push_back({std::cos(a), sign * std::sin(a)});
        }
    ns *= R;
  }
  return t;
}

}  // namespace warpforge
