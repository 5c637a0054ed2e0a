#include "generator/pfb/PfbWeights.h"

#include <cmath>
#include <stdexcept>

namespace warpforge {

std::vector<double> pfbWindowWeights(const std::string& window, double cutoff, int taps, long long step) {
  if (window != "hann" && window != "rect") throw std::invalid_argument("pfbWindowWeights: unknown window " + window);
  const long long W = static_cast<long long>(taps) * step;
  std::vector<double> w(static_cast<std::size_t>(W));
  double energy = 0;
  for (long long i = 0; i < W; ++i) {
    const double h = window == "rect" || W == 1
                         ? 1.0
                         : std::pow(std::sin(M_PI * static_cast<double>(i) / static_cast<double>(W - 1)), 2);
    const double x = cutoff * ((static_cast<double>(i) + 0.5) / static_cast<double>(step) - taps / 2.0);
    const double sinc = x == 0 ? 1.0 : std::sin(M_PI * x) / (M_PI * x);
    w[static_cast<std::size_t>(i)] = h * sinc;
    energy += h * sinc * h * sinc;
  }
  const double scale = energy > 0 ? 1.0 / std::sqrt(energy) : 1.0;
  for (double& v : w) v *= scale;
  return w;
}

}  // namespace warpforge
