#include "generator/stockham/BluesteinLength.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "generator/stockham/StockhamEmitter.h"
#include "generator/stockham/StockhamPlan.h"

namespace warpforge {

namespace {

// The convolution kernel does not depend on the architecture (its length is within every arch's one-kernel limit);
// its plan is made for the one the model was fitted on.
const std::string kConvolutionModelArch = "sm_90";

// Relative cost of a pass by its radix: powers of two cheapest, 3 / 6 / 12 close, 5 and 7 more arithmetic per point,
// the composite 9 and 10 most (their kernels ran 8-9 ps per point where 8 x 8 x 6 ran 6-8).
double passWeight(int R) {
  if ((R & (R - 1)) == 0) return 1.0;
  if (R == 3 || R == 6 || R == 12) return 1.1;
  if (R == 9 || R == 10) return 1.6;
  return 1.3;
}

const KernelDesc* convolutionKernel(const StockhamPlan& p) {
  for (const auto& k : p.kernels)
    if (k.desc.convolve) return &k.desc;
  return nullptr;
}

}  // namespace

// Fitted to the 107 measured (n, M) pairs (BluesteinLength.h): per pass and point, kernels with three or more
// resident blocks ran ~1.6 ps, two blocks ~1.9 (at 768-1024 threads), one block 3-4 (nothing overlaps its
// barriers); fewer resident threads than 768 slow each further. With the registers as compiled, the fit picks the
// measured best M for 10 of the 11 n; at the assumed registers (pinBluesteinLength) for 8 of 11, the other three
// within 0.71-0.98x of the best (139: 288 for 320, 311: 640 for 768, 554: 1152 for 1280).
double convolutionKernelTime(const KernelDesc& d, const KernelGeometry& g, int registers) {
  const int threads = g.threadsPerFft * g.fftsPerBlock;
  const int blocks = residentBlocksPerSm(threads, registers, g.sharedBytes, "sm_90");
  if (blocks <= 0) return std::numeric_limits<double>::infinity();
  const double resident = static_cast<double>(blocks) * ((threads + 31) / 32 * 32);
  const double occupancy = (blocks >= 3 ? 1.0 : blocks == 2 ? 1.2 : 1.9) * std::pow(std::max(1.0, 768.0 / resident), 0.8);
  double passes = 0;
  for (int R : d.factors) passes += passWeight(R);
  return static_cast<double>(d.length) * passes * occupancy;
}

StockhamSpec pinBluesteinLength(const StockhamSpec& spec) {
  if (spec.tuning.bluesteinLength > 0 || spec.tuning.bluesteinPow2 >= 0 || spec.lengths.size() != 1) return spec;
  const long long n = spec.complexLength();
  if (isCoopSmooth(n, maxPrimeRadix(spec.precision))) return spec;  // no Bluestein up to 4096 (the candidates' limit)
  const long long maxM = std::min<long long>(8192, maxConvolveKernelLength(spec.precision));
  std::vector<long long> candidates;
  // f64: powers of two only. Their kernels compiled to 64-102 registers (4096 on 512 threads, 2048 on 256); with an
  // odd factor 124-255, 3584 = 8^3 x 7 spilling 120 B at every try (NVRTC 13, sm_90, session 21).
  const std::vector<long long> odd = spec.precision == "f64" ? std::vector<long long>{1} : std::vector<long long>{1, 3, 5, 7, 9};
  for (long long c : odd) {
    long long m = c;
    while (m < 2 * n - 1) m *= 2;
    if (m <= maxM) candidates.push_back(m);
  }
  if (candidates.empty()) return spec;
  StockhamSpec best = spec;
  double bestTime = std::numeric_limits<double>::infinity();
  for (long long m : candidates) {
    StockhamSpec s = spec;
    s.tuning.bluesteinLength = m;
    const StockhamPlan plan = planStockham(s, kConvolutionModelArch, false);
    const KernelDesc* conv = convolutionKernel(plan);
    if (!conv) return spec;  // no Bluestein convolution in one kernel: nothing to choose
    const double t = convolutionKernelTime(*conv, chooseGeometry(*conv), 64);
    if (t < bestTime) {
      bestTime = t;
      best = s;
    }
  }
  return best;
}

}  // namespace warpforge
