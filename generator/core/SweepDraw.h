#pragma once
// The random draws of the families' `bench --sweep` specs: splitmix64, so that a seed gives the same specs on every
// platform and compiler.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace warpforge {

class SweepDraw {
 public:
  explicit SweepDraw(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in [lo, hi].
  long long between(long long lo, long long hi) {
    return lo + static_cast<long long>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  // Log-uniform in [lo, hi]: small and large sizes equally likely per octave.
  long long logBetween(long long lo, long long hi) {
    const double a = std::log(static_cast<double>(lo)), b = std::log(static_cast<double>(hi) + 1);
    return std::clamp(static_cast<long long>(std::exp(a + unit() * (b - a))), lo, hi);
  }
  bool chance(double p) { return unit() < p; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[next() % v.size()];
  }

 private:
  std::uint64_t s_;
};

}  // namespace warpforge
