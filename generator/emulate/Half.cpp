#include "generator/emulate/Half.h"

#include <array>
#include <cmath>
#include <cstring>

namespace warpforge {

// Bit manipulation rather than frexp / nearbyint: the f16 test data of a large transform converts ~10^8 values
// (`warpforge bench` of f16 32768 spent 11 s making its inputs; tests/EmulatorTest.cpp checks every half and ties).
std::uint16_t floatToHalfBits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  const auto sign = static_cast<std::uint16_t>((b >> 48) & 0x8000);
  const std::uint64_t a = b & 0x7fffffffffffffffULL;
  if (a > 0x7ff0000000000000ULL) return sign | 0x7e00;  // NaN
  const int e = static_cast<int>(a >> 52) - 1023;       // |x| = 1.f x 2^e
  if (e >= 16) return sign | 0x7c00;                    // 65536 and above, infinity
  if (e < -25) return sign;                             // below 2^-25 (half the least subnormal): zero
  const std::uint64_t m = (a & ((1ULL << 52) - 1)) | (1ULL << 52);
  // Normal halves keep 10 fraction bits; subnormals count units of 2^-24.
  const int shift = e >= -14 ? 42 : 28 - e;
  std::uint64_t q = m >> shift;
  const std::uint64_t rest = m & ((1ULL << shift) - 1), halfway = 1ULL << (shift - 1);
  if (rest > halfway || (rest == halfway && (q & 1))) ++q;  // to nearest, ties to even
  // q = 2048 (normal) or 1024 (subnormal) carries into the exponent by the addition; past 65504 that is infinity.
  const std::uint64_t bits = e >= -14 ? (static_cast<std::uint64_t>(e + 15) << 10) + (q - 1024) : q;
  return sign | static_cast<std::uint16_t>(bits >= 0x7c00 ? 0x7c00 : bits);
}

double halfBitsToDouble(std::uint16_t h) {
  static const std::array<double, 65536> table = [] {
    std::array<double, 65536> t{};
    for (int i = 0; i < 65536; ++i) {
      const int sign = i >> 15, exp = (i >> 10) & 31, mant = i & 1023;
      double v;
      if (exp == 0) v = std::ldexp(mant, -24);
      else if (exp == 31) v = mant ? NAN : INFINITY;
      else v = std::ldexp(1024 + mant, exp - 25);
      t[i] = sign ? -v : v;
    }
    return t;
  }();
  return table[h];
}

double roundToHalf(double x) { return std::isnan(x) ? x : halfBitsToDouble(floatToHalfBits(x)); }

}  // namespace warpforge
