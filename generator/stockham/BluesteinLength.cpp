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

// Fitted to timed (n, M) pairs (BluesteinLength.h): per pass and point, kernels with three or more resident blocks
// ran ~1.6 ps, two blocks ~1.9 (at 768-1024 threads), one block 3-4 (nothing overlaps its barriers); fewer resident
// threads than 768 slow each further.
double convolutionKernelTime(const KernelDesc& d, const KernelGeometry& g, int registers) {
  const int threads = g.threadsPerFft * g.fftsPerBlock;
  const int blocks = residentBlocksPerSm(threads, registers, g.sharedBytes, "sm_90");
  if (blocks <= 0) return std::numeric_limits<double>::infinity();
  const double resident = static_cast<double>(blocks) * ((threads + 31) / 32 * 32);
  const double occupancy = (blocks >= 3   ? 1.0
                            : blocks == 2 ? 1.2
                                          : 1.9) *
                           std::pow(std::max(1.0, 768.0 / resident), 0.8);
  double passes = 0;
  for (int R : d.factors) passes += passWeight(R);
  return static_cast<double>(d.length) * passes * occupancy;
}

long long bluesteinLength(long long n, bool powerOfTwo) {
  const long long need = 2 * n - 1;
  long long pow2 = 1;
  while (pow2 < need) pow2 *= 2;
  if (powerOfTwo) return pow2;
  // Cost M (1 + 0.05 x its odd prime factors with multiplicity): a mixed-radix pass costs more per point than a
  // power-of-two one.
  // Past 4096 points the one-kernel convolution spilled at every try of the spill-free search wherever M had two odd
  // factors (sm_90: 5488 = 7^3 x 16, 5600, 6272, 6400, 8960, 9216, 10752 .. 12800: 16-688 B, f32 and f16; sm_80 from
  // 4480 = 5 x 7 x 128) or a 7 beyond 8192 (14336 = 7 x 2048: 40-48 B); 2^a times one 3, 5 or 7 (up to 8192) compiles
  // clean (NVRTC 13). There a one-kernel M takes at most one odd factor; `SweepCompilesWithoutSpills` compiles each.
  // (Longer convolutions run as separate FFT kernels, unaffected.)
  auto oneKernelClean = [](long long m, int odd, int sevens) {
    return m <= 4096 || m > maxConvolveKernelLength(Precision::F32) || (odd <= 1 && (sevens == 0 || m <= 8192));
  };
  long long best = pow2;
  double bestCost = static_cast<double>(pow2);
  for (long long a = 1; a <= pow2; a *= 2)
    for (long long b = a, nb = 0; b <= pow2; b *= 3, ++nb)
      for (long long c = b, nc = nb; c <= pow2; c *= 5, ++nc)
        for (long long d = c, nd = nc; d <= pow2; d *= 7, ++nd)
          if (d >= need && oneKernelClean(d, static_cast<int>(nd), static_cast<int>(nd - nc))) {
            const double cost = static_cast<double>(d) * (1.0 + 0.05 * static_cast<double>(nd));
            if (cost < bestCost) {
              best = d;
              bestCost = cost;
            }
          }
  return best;
}

StockhamSpec pinBluesteinLength(const StockhamSpec& spec) {
  if (spec.tuning.bluesteinLength > 0 || spec.tuning.bluestein != BluesteinRule::Model || spec.lengths.size() != 1)
    return spec;
  const long long n = spec.complexLength();
  if (isCoopSmooth(n, maxPrimeRadix(spec.precision))) return spec;  // no Bluestein up to 4096 (the candidates' limit)
  const long long maxM = std::min<long long>(8192, maxConvolveKernelLength(spec.precision));
  std::vector<long long> candidates;
  // f64: a power of two times 1, 3 or 5. Those kernels compile to 64-128 registers (NVRTC 13, sm_90); a 7 or 9 to
  // 164-250 (3584 = 8^3 x 7 spilled 120 B), and ran slower than the next power of two (H200: f64 809 with 1728 =
  // 9 x 8 x 8 x 3 0.64x, 307 with 648 0.87x). Against powers of two only, 15 lengths 274..3001 ran 1.15-1.46x.
  const std::vector<long long> odd = spec.f64() ? std::vector<long long>{1, 3, 5}
                                                : std::vector<long long>{1, 3, 5, 7, 9};
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
