// The factorization of a one-kernel length into radix passes: a greedy rule, and a cost model of the kernel each
// factorization would make, scored over every factorization (FactorizationModel.h).
#include "generator/stockham/FactorizationModel.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

#include <fmt/format.h>

#include "generator/stockham/Butterfly.h"
#include "generator/stockham/CoopRadix.h"
#include "generator/stockham/StockhamEmitter.h"
#include "generator/stockham/StockhamSpec.h"

namespace warpforge {

std::vector<int> factorizeStockhamGreedy(int n, int maxRadix, int maxPrime) {
  std::vector<int> f;
  int rest = n, e = 0;
  while (rest % 2 == 0) {
    rest /= 2;
    ++e;
  }
  // Power-of-two part: as few passes as the largest power-of-two radix allows, spread evenly
  // (64 = 8 x 8, not 16 x 4; 8192 = 16 x 8 x 8 x 8, not 16 x 16 x 16 x 2): a small last radix
  // leaves few threads per FFT or a pass that does little work for its barrier.
  int maxBits = 0;
  while (maxBits < 4 && (2 << maxBits) <= maxRadix) ++maxBits;
  if (e > 0) {
    if (maxBits == 0)
      throw std::invalid_argument(
          fmt::format("length {}: the largest radix {} admits no power-of-two factor", n, maxRadix));
    const int passes = (e + maxBits - 1) / maxBits;
    for (int p = 0; p < passes; ++p) f.push_back(1 << (e / passes + (p < e % passes ? 1 : 0)));
  }
  // Odd part: greedily, largest radix first (composites 27, 25, 9 save passes).
  for (int r : stockhamRadices())
    while (r % 2 && (r <= maxRadix || (isLargePrimeRadix(r) && r <= maxPrime) || isCoopRadix(r, maxPrime)) &&
           rest % r == 0 && rest > 1) {
      f.push_back(r);
      rest /= r;
    }
  if (rest != 1) {
    int p = 3;
    while (rest % p) p += 2;
    throw std::invalid_argument(
        fmt::format("length {} has prime factor {}, which is not a radix prime (2..13, 17..{}, up to {} cooperatively)",
                    n, p, maxPrime, kMaxCoopRadix));
  }
  std::sort(f.rbegin(), f.rend());
  return f;
}

namespace {

// Instructions of a radix-R butterfly as Butterfly.h emits it (complex add/sub 2, real scale 2,
// constant rotation 4 = 2 mul + 2 fma; swaps and negations free).
struct CountOps {
  struct C {};
  double instr = 0;
  C add(C, C) {
    instr += 2;
    return {};
  }
  C sub(C, C) {
    instr += 2;
    return {};
  }
  C neg(C) { return {}; }
  C mulI(C) { return {}; }
  C scale(C, double) {
    instr += 2;
    return {};
  }
  C mulConst(C, double, double) {
    instr += 4;
    return {};
  }
};

double butterflyInstr(int R) {
  static const std::vector<double> table = [] {
    std::vector<double> t(65, 0.0);
    for (int r = 2; r <= 64; ++r) {
      CountOps ops;
      DftBuilder<CountOps> b(ops, -1);
      b.dft(std::vector<CountOps::C>(r));
      t[r] = ops.instr;
    }
    return t;
  }();
  return R < static_cast<int>(table.size()) ? table[R] : 8.0 * R * R;
}

int largestPrime(int r) {
  int p = 1;
  for (int q = 2; q <= r; ++q)
    while (r % q == 0) {
      p = q;
      r /= q;
    }
  return p;
}

// Radices the cost model may choose: powers of two up to 16 (f64: 8), the odd primes 3..13 and
// their powers 9, 25, 27 up to maxRadix, 6 and 10 (one pass instead of a radix-2 tail), the primes
// 17..maxPrime, and 49 where maxRadix admits it. Other mixed composites (12, 14, 15, 18, 20, 21)
// took 116-234 registers in kernels of 2464 .. 11232 points (NVRTC sm_90) where the greedy rule's
// took 80-128: explicit factors only.
std::vector<int> modelRadices(int maxRadix, int maxPrime) {
  std::vector<int> r;
  for (int R = 2; R <= std::max(maxRadix, kMaxCoopRadix); ++R) {
    const int p = largestPrime(R);
    bool ok;
    if ((R & (R - 1)) == 0) ok = R <= std::min(maxRadix, 16);
    else if (isCoopRadix(R, maxPrime)) ok = true;
    else if (isLargePrimeRadix(R)) ok = R <= maxPrime;
    else if (p > 13) ok = false;
    else if (R % 2) {  // odd primes and their powers (9, 25, 27)
      int q = R;
      while (q % p == 0) q /= p;
      ok = R <= maxRadix && q == 1;
    } else ok = (R == 6 || R == 10) && R <= std::max(maxRadix, 10);
    if (ok) r.push_back(R);
  }
  if (maxRadix >= 49) r.push_back(49);
  std::sort(r.rbegin(), r.rend());
  return r;
}

}  // namespace

// A time estimate per point of one FFT (SM clocks, H100-like SM: 128 lanes, 128 B/clk shared
// memory, ~14.5 B/clk of HBM per SM), from the kernel the generator would build for `f` (factors
// largest first) at balancedThreadsPerFft threads and 128-thread blocks:
//  - global traffic, fixed per point, and per radix pass a shared-memory round trip plus the
//    butterfly's instructions (Butterfly.h counted), its twiddle multiplies (not in the first pass)
//    and ~4 index/load/store instructions per point; a pass costs in proportion to the butterfly
//    slots it runs (iterations x threads x radix / L: idle threads in a last iteration count);
//  - divided by an occupancy efficiency: resident warps / 32 from the registers the kernel needs,
//    estimated from the peak of complex values a thread holds (see `est` below) against
//    the register target of Geometry.cpp (spill-free relaxation raises it a level of resident blocks at a time),
//    shared memory and threads per SM.
// Iterations above 2 per thread in a pass add registers (NVVM hoists every iteration's loads: 25 x 4
// for 100 runs 7 iterations of radix 4, 117 registers) and 5% per iteration to the score.
FactorCost factorizationCost(int n, const std::vector<int>& f, bool f64, bool r2cSplit) {
  FactorCost c;
  int T = balancedThreadsPerFft(f, n, f64, 1024);
  // Geometry.cpp: long f32 FFTs take 256 threads where that holds at most 32 values each.
  if (!f64 && T > 256 && T % 256 == 0 && n / 256 <= 32) T = 256;
  c.threads = T;
  c.held = heldValues(f, n, T, f64);
  double pass = 0;
  const double lanes = f64 ? 64.0 : 128.0, cb = f64 ? 16.0 : 8.0;
  for (std::size_t p = 0; p < f.size(); ++p) {
    const int R = f[p], bf = n / R, it = (bf + T - 1) / T;
    c.iterations = std::max(c.iterations, it);
    const double slots = static_cast<double>(it) * T * R / n;
    const double instr = butterflyInstr(R) / R + (p ? 5.0 * (R - 1) / R : 0.0) + 4.0;
    pass += slots * (2.0 * cb / 128.0 + instr / lanes);
  }
  const int F = std::max(1, 128 / T);
  int Fs = F;
  while (Fs > 1 && Fs * n * cb > 72 * 1024) --Fs;
  const int warpThreads = (T * Fs + 31) / 32 * 32;
  const int target = defaultRegisterTarget(T * Fs, f64);
  // Passes of more than 2 iterations cost more than their values: NVVM hoists every iteration's
  // loads and addresses (c2c f32 48 = 16 x 3 on 3 threads, 18 values: 96 registers; 12 x 4: 80).
  // Per value: a double2 and its share of twiddles take ~9 registers (f64 100 as 10 x 10: 116),
  // a float2 ~3. Radices 12 and up that mix primes (12, 14, 15, 18, 20, 21) cost ~16 more than their
  // values say (NVRTC sm_90: 12 x 12 96, 13 x 12 80 registers against 62-64 for 16 x 9, 13 x 4 x 3).
  // (The iteration term only for blocks of several FFTs: one-FFT blocks of hundreds of threads ran
  // 4-5 iterations at 70-80 registers, 16 x 16 x 8 x 5 and 19 x 19 x 5 x 4.)
  int est = 16 + (f64 ? 9 : 3) * c.held + (T < 128 ? 10 * std::max(0, c.iterations - 2) : 0);
  for (int R : f)
    if (R >= 12 && largestPrime(R) < R && (R & (R - 1)) != 0 && largestPrime(R) * largestPrime(R) != R && R != 27) {
      est += 16;
      break;
    }
  // r2c: the split fuses into the last pass only where two butterflies of the last radix fit in the
  // peak of values (Geometry.cpp); otherwise an element loop after the last pass, which took 117-128
  // registers (r2c 200 as 10 x 10, r2c 24 as 12).
  if (r2cSplit && !f.empty() && 2 * f.back() > c.held) est += 48;
  // Within the target ptxas fits the launch bounds (registers allocated in eights).
  // Above the target SpillFree.cpp relaxes it one level of resident blocks at a time, but never past what one block
  // can hold (65536 registers): there the kernel spills or runs fewer threads per FFT.
  const int blockCap = std::min(255, 65536 / warpThreads / 8 * 8);
  int regs = est <= target ? std::min((est + 7) / 8 * 8, std::max(8, target / 8 * 8)) : 255;
  if (est > target)
    for (int t : relaxedRegisterTargets(T * Fs, target))
      if (t >= est) {
        regs = t;
        break;
      }
  const bool overBlock = est > blockCap;
  regs = std::min(regs, blockCap);
  c.registers = regs;
  const int blocks = residentBlocksPerSm(T * Fs, regs, static_cast<long long>(Fs * n * cb));
  c.warps = blocks * warpThreads / 32;
  // Warps per SM that keep HBM busy: 32 for 8-byte elements, fewer for 16-byte ones.
  const double eff = std::max(0.05, std::min(1.0, c.warps / (f64 ? 20.0 : 32.0)));
  const double global = 2.0 * cb / 14.5;
  c.time = (global + pass) / eff;
  // Would spill or halve its threads; or more than 1024 butterflies of the largest radix, so that
  // every pass loops (12000 as 6 x 5^3 x 4 x 4: 2000 radix-6 butterflies, spilled at 1024 threads).
  // And 512+ threads holding more than 15 values: NVRTC spilled those at 64-80 registers and
  // SpillFree halved their threads (15000 as 10 x 10 x 6 x 5 x 5, 16000 as 16 x 10^3: 20 values on
  // ~1000 threads, ended at 250 threads and 222-254 registers; 5832 as 9^3 x 8: 16 values, 120).
  if (est > 255 || overBlock || (!f.empty() && n / f[0] > 1024) || (T >= 512 && c.held > 15)) c.time *= 2;
  c.score = c.time * (1.0 + 0.05 * std::max(0, c.iterations - 2));
  return c;
}

void forEachFactorization(int n, const std::vector<int>& radices, std::size_t maxFactors,
                          const std::function<void(const std::vector<int>&)>& visit) {
  std::vector<int> cur;
  auto rec = [&](auto&& self, int rest, std::size_t from) -> void {
    if (rest == 1) {
      visit(cur);
      return;
    }
    if (cur.size() >= maxFactors) return;
    for (std::size_t i = from; i < radices.size(); ++i)
      if (rest % radices[i] == 0) {
        cur.push_back(radices[i]);
        self(self, rest / radices[i], i);
        cur.pop_back();
      }
  };
  if (n > 1) rec(rec, n, 0);
}

std::vector<int> factorizeStockhamModel(int n, int maxRadix, int maxPrime, bool f64, bool r2cSplit) {
  if (n <= 1) return {};
  if (!isCoopSmooth(n, maxPrime)) return factorizeStockhamGreedy(n, maxRadix, maxPrime);  // throws naming the prime
  const std::vector<int> radices = modelRadices(maxRadix, maxPrime);
  std::vector<int> best;
  double bestScore = 0;
  // Every multiset of radices with product n, largest first (the order the kernels run them).
  forEachFactorization(n, radices, 16, [&](const std::vector<int>& f) {
    const FactorCost c = factorizationCost(n, f, f64, r2cSplit);
    if (best.empty() || c.score < bestScore - 1e-9) {
      best = f;
      bestScore = c.score;
    }
  });
  if (best.empty()) return factorizeStockhamGreedy(n, maxRadix, maxPrime);  // throws: no radix divides
  return best;
}

std::vector<int> factorizeStockham(int n, int maxRadix, int maxPrime, bool f64, bool r2cSplit, bool plainF32) {
  // Powers of two keep the even spread over the fewest radix-16 passes: their kernels are the best tuned, and the
  // model's estimate is least certain where every factorization is a power of two.
  std::vector<int> greedy = factorizeStockhamGreedy(n, maxRadix, maxPrime);
  if (n > 0 && (n & (n - 1)) == 0) return greedy;
  // The model replaces the greedy rule only where it expects a clear gain at no more registers than the greedy choice:
  // 30% for one FFT of 128 threads or more, where its register estimate is least certain (12288 as 8 x 6 x 4^4:
  // expected 64 registers on 1024 threads, NVRTC spilled there and the kernel went to 512 threads at 80); for blocks
  // of several FFTs 3.5 % in plain f32 row kernels (every f32 length to 16384 that 3.5 % admits and 10 % did not, 14
  // from 36 to 3720, was timed on an H200 with both factorizations: geomean 1.05x, worst 0.96x, c2c 425 1.35x as
  // 17 x 5 x 5 against 25 x 17), else 10 % (f64's 19 such lengths were level: 1.01x, 0.78x to 1.22x).
  std::vector<int> model = factorizeStockhamModel(n, maxRadix, maxPrime, f64, r2cSplit);
  if (model == greedy) return greedy;
  const FactorCost cm = factorizationCost(n, model, f64, r2cSplit), cg = factorizationCost(n, greedy, f64, r2cSplit);
  // Large kernels (128+ threads on one FFT) take the model's choice only at <= 15 values per thread
  // and at most one pass more than the greedy rule.
  const bool large = std::max(cm.threads, cg.threads) >= 128;
  const double gain = large ? 0.7 : plainF32 && !f64 && !r2cSplit ? 0.965 : 0.9;
  if (large && (cm.held > 15 || model.size() > greedy.size() + 1)) return greedy;
  if (cm.score < gain * cg.score && cm.registers <= cg.registers) return model;
  return greedy;
}

}  // namespace warpforge
