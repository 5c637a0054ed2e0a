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

}  // namespace warpforge
