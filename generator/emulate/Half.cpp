#include "generator/emulate/Half.h"

#include <cmath>
#include <limits>

namespace warpforge {

double roundToHalf(double x) {
  if (std::isnan(x) || x == 0) return x;
  double a = std::fabs(x);
  int e;
  std::frexp(a, &e);                                    // a = m * 2^e, m in [0.5, 1)
  double quantum = e - 1 >= -14 ? std::ldexp(1.0, e - 1 - 10) : std::ldexp(1.0, -24);
  double r = std::nearbyint(a / quantum) * quantum;     // ties to even (default mode)
  if (r > 65504.0) r = std::numeric_limits<double>::infinity();
  return std::copysign(r, x);
}

std::uint16_t floatToHalfBits(double x) {
  double r = roundToHalf(x);
  std::uint16_t sign = std::signbit(r) ? 0x8000 : 0;
  double a = std::fabs(r);
  if (std::isnan(r)) return 0x7e00;
  if (std::isinf(a)) return sign | 0x7c00;
  if (a == 0) return sign;
  int e;
  double m = std::frexp(a, &e);  // a = m 2^e, m in [0.5, 1)
  int exp = e - 1 + 15;
  if (exp <= 0) return sign | static_cast<std::uint16_t>(std::lround(a / std::ldexp(1.0, -24)));  // subnormal
  std::uint16_t mant = static_cast<std::uint16_t>(std::lround((m * 2 - 1) * 1024));
  return sign | static_cast<std::uint16_t>(exp << 10) | mant;
}

double halfBitsToDouble(std::uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 31, mant = h & 1023;
  double v;
  if (exp == 0) v = std::ldexp(mant, -24);
  else if (exp == 31) v = mant ? NAN : INFINITY;
  else v = std::ldexp(1024 + mant, exp - 25);
  return sign ? -v : v;
}

}  // namespace warpforge
