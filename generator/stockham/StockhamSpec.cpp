#include "generator/stockham/StockhamSpec.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

#include "generator/core/JsonReader.h"
#include "generator/stockham/Butterfly.h"
#include "generator/stockham/CoopRadix.h"
#include "generator/stockham/StockhamEmitter.h"
#include "generator/stockham/StockhamLayout.h"
#include "generator/stockham/StockhamPlan.h"

namespace warpforge {

const std::vector<int>& stockhamRadices() {
  // Largest first: composite odd radices (9 = 3x3, 25 = 5x5, 27, 49) save passes and barriers.
  // The primes 17..31 are butterflies of the symmetric odd-prime form (Butterfly.h, constants in
  // the code): a length such as 323 = 17 x 19 is one kernel instead of a 1024-point Bluestein pair.
  // The primes 37..127 are cooperative passes (CoopRadix.h), taken where the whole FFT is one kernel.
  static const std::vector<int> r = {127, 113, 109, 107, 103, 101, 97, 89, 83, 79, 73, 71, 67, 61, 59, 53, 47, 43, 41, 37,
                                     49, 31, 29, 27, 25, 23, 19, 17, 16, 13, 11, 9, 8, 7, 5, 4, 3, 2};
  return r;
}

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
    if (maxBits == 0) throw std::invalid_argument(fmt::format("length {}: the largest radix {} admits no power-of-two factor", n, maxRadix));
    const int passes = (e + maxBits - 1) / maxBits;
    for (int p = 0; p < passes; ++p) f.push_back(1 << (e / passes + (p < e % passes ? 1 : 0)));
  }
  // Odd part: greedily, largest radix first (composites 27, 25, 9 save passes).
  for (int r : stockhamRadices())
    while (r % 2 && (r <= maxRadix || (isLargePrimeRadix(r) && r <= maxPrime) || isCoopRadix(r, maxPrime)) && rest % r == 0 && rest > 1) {
      f.push_back(r);
      rest /= r;
    }
  if (rest != 1) {
    int p = 3;
    while (rest % p) p += 2;
    throw std::invalid_argument(fmt::format("length {} has prime factor {}, which is not a radix prime (2..13, 17..{}, up to {} cooperatively)", n, p, maxPrime, kMaxCoopRadix));
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
  C add(C, C) { instr += 2; return {}; }
  C sub(C, C) { instr += 2; return {}; }
  C neg(C) { return {}; }
  C mulI(C) { return {}; }
  C scale(C, double) { instr += 2; return {}; }
  C mulConst(C, double, double) { instr += 4; return {}; }
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

void forEachFactorization(int n, const std::vector<int>& radices, std::size_t maxFactors, const std::function<void(const std::vector<int>&)>& visit) {
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

std::vector<int> factorizeStockham(int n, int maxRadix, int maxPrime, bool f64, bool r2cSplit) {
  // Powers of two keep the measured even spread over the fewest radix-16 passes (their benchmarks
  // are the "no slower than today" reference).
  std::vector<int> greedy = factorizeStockhamGreedy(n, maxRadix, maxPrime);
  if (n > 0 && (n & (n - 1)) == 0) return greedy;
  // The model replaces the greedy rule only where it expects a clear gain at no more registers
  // than the greedy choice: 10% for blocks of several FFTs, 30% for one FFT of 128 threads or more,
  // where its register estimate is least certain (12288 as 8 x 6 x 4^4: expected 64 registers on
  // 1024 threads, NVRTC spilled there and the kernel went to 512 threads at 80).
  std::vector<int> model = factorizeStockhamModel(n, maxRadix, maxPrime, f64, r2cSplit);
  if (model == greedy) return greedy;
  const FactorCost cm = factorizationCost(n, model, f64, r2cSplit), cg = factorizationCost(n, greedy, f64, r2cSplit);
  // Large kernels (128+ threads on one FFT) take the model's choice only at <= 15 values per thread
  // and at most one pass more than the greedy rule.
  const bool large = std::max(cm.threads, cg.threads) >= 128;
  const double gain = large ? 0.7 : 0.9;
  if (large && (cm.held > 15 || model.size() > greedy.size() + 1)) return greedy;
  if (cm.score < gain * cg.score && cm.registers <= cg.registers) return model;
  return greedy;
}

bool isLargePrimeRadix(int r) { return r >= 17 && r <= kMaxCoopRadix && isPrimeNumber(r); }

int maxPrimeRadix(const std::string& precision) { return threadPrimeLimit(precision == "f64"); }

long long bluesteinLength(long long n, bool powerOfTwo) {
  const long long need = 2 * n - 1;
  long long pow2 = 1;
  while (pow2 < need) pow2 *= 2;
  if (powerOfTwo) return pow2;
  // Cost M (1 + 0.05 x its odd prime factors with multiplicity): a mixed-radix pass costs more per point than a
  // power-of-two one (session 8's sweep: c2c any length 0.76x vs powers of two ~1.0x of cuFFT).
  // Past 4096 points the one-kernel convolution spilled at every try of the spill-free search wherever M had two odd
  // factors (sm_90: 5488 = 7^3 x 16, 5600, 6272, 6400, 8960, 9216, 10752 .. 12800: 16-688 B, f32 and f16, 14-41 s of
  // NVRTC each; sm_80 from 4480 = 5 x 7 x 128) or a 7 beyond 8192 (14336 = 7 x 2048: 40-48 B); 2^a times one 3, 5
  // or 7 (up to 8192) compiled clean (NVRTC 13, session 16). There a one-kernel M takes at most one odd factor;
  // `SweepCompilesWithoutSpills` compiles each. (Longer convolutions run as separate FFT kernels, unaffected.)
  auto oneKernelClean = [](long long m, int odd, int sevens) {
    return m <= 4096 || m > maxConvolveKernelLength("f32") || (odd <= 1 && (sevens == 0 || m <= 8192));
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

bool isCoopSmooth(long long n, int maxPrime) {
  for (int p = maxPrime + 1; p <= kMaxCoopRadix; ++p)
    if (isCoopRadix(p, maxPrime))
      while (n % p == 0) n /= p;
  return isSmooth(n, maxPrime);
}

bool isSmooth(long long n, int maxPrime) {
  for (int p = 2; p <= std::max(13, maxPrime); ++p)
    if (isPrimeNumber(p))
      while (n % p == 0) n /= p;
  return n == 1;
}

// One FFT per block: 16384 complex floats (f16 computes in float) take 139 KiB of shared
// memory and 1024 threads holding 16 values each in 64 registers; f64 stops at 4096.
int maxSingleKernelLength(const std::string& precision) { return precision == "f64" ? 4096 : 16384; }
int maxConvolveKernelLength(const std::string& precision) { return precision == "f64" ? 4096 : 16384; }
int maxSplitRowLength(const std::string& precision) { return precision == "f64" ? 8192 : 16384; }
// The fused r2c/c2r kernel stages its split through shared memory; past 4096 complex points the
// staged kernel spilled (8192: ptxas ran for minutes), so longer halves take the general path.
int maxFusedRealHalf(const std::string&) { return 4096; }
long long maxLength(const std::string& precision) { return precision == "f64" ? 1LL << 24 : 1LL << 26; }
// The tables of a length-M convolution for n <= M / 2 hold n + M + n complex values in the
// compute type: 256 MiB at M = 2^24 (f32) or 2^23 (f64). At 2^26 emit took 104 s and 10 GB and
// wrote a 4 GB header.
long long maxBluesteinLength(const std::string& precision) { return precision == "f64" ? 1LL << 23 : 1LL << 24; }

long long StockhamSpec::points() const {
  long long p = 1;
  for (int n : lengths) p *= n;
  return p;
}

std::vector<long long> StockhamSpec::inShape() const {
  std::vector<long long> s(lengths.begin(), lengths.end());
  if (transform == "c2r") s.back() = s.back() / 2 + 1;
  return s;
}

std::vector<long long> StockhamSpec::outShape() const {
  std::vector<long long> s(lengths.begin(), lengths.end());
  if (transform == "r2c") s.back() = s.back() / 2 + 1;
  return s;
}

namespace {

std::vector<long long> denseStrides(const std::vector<long long>& shape) {
  std::vector<long long> st(shape.size());
  long long acc = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    st[d] = acc;
    acc *= shape[d];
  }
  return st;
}

StockhamIo parseIo(const JsonReader& rd, const Json& j, const std::string& path, const std::vector<long long>& shape, bool isInput) {
  StockhamIo io;
  io.strides = denseStrides(shape);
  io.distance = 1;
  for (long long n : shape) io.distance *= n;
  if (j.is_null()) return io;
  rd.needObject(j, path);
  if (isInput) rd.onlyKeys(j, path, {"stride", "strides", "distance", "offset", "layout", "type", "length"});
  else rd.onlyKeys(j, path, {"stride", "strides", "distance", "offset", "layout"});
  if (j.contains("stride")) {
    if (shape.size() != 1) rd.fail(path + "/stride", fmt::format("'stride' is for 1D transforms; use 'strides' with {} entries", shape.size()));
    io.strides = {rd.integer(j["stride"], path + "/stride", 1, 1LL << 40)};
    io.stridesKey = "stride";
  }
  if (j.contains("strides")) {
    const Json& s = j["strides"];
    if (!s.is_array() || s.size() != shape.size())
      rd.fail(path + "/strides", fmt::format("expected an array of {} strides (one per dimension, outermost first)", shape.size()));
    for (std::size_t d = 0; d < shape.size(); ++d) io.strides[d] = rd.integer(s[d], fmt::format("{}/strides/{}", path, d), 1, 1LL << 40);
    io.stridesKey = "strides";
  }
  if (j.contains("distance")) io.distance = rd.integer(j["distance"], path + "/distance", 1, 1LL << 40);
  if (j.contains("offset")) io.offset = rd.integer(j["offset"], path + "/offset", 0, 1LL << 40);
  if (j.contains("layout")) {
    std::string l = rd.string(j["layout"], path + "/layout");
    if (l != "interleaved" && l != "planar") rd.fail(path + "/layout", fmt::format("unknown layout '{}' (expected interleaved or planar)", l));
    io.planar = l == "planar";
  }
  if (j.contains("type")) {
    io.type = rd.string(j["type"], path + "/type");
    if (io.type != "ci8" && io.type != "ci4")
      rd.fail(path + "/type", fmt::format("unknown input type '{}' (expected ci8 or ci4; omit for the precision's own type)", io.type));
  }
  if (j.contains("length")) {
    if (shape.size() != 1) rd.fail(path + "/length", "an input length (implicit zero padding) is supported for 1D transforms only");
    io.validLength = rd.integer(j["length"], path + "/length", 1, shape[0]);
  }
  return io;
}

// "tuning": launch-geometry overrides, as `warpforge bench --tune` prints them.
KernelTuning parseTuning(const JsonReader& rd, const Json& j, const std::string& precision) {
  const std::string path = "/tuning";
  rd.needObject(j, path);
  rd.onlyKeys(j, path, {"threads_per_fft", "block_threads", "register_target", "direct_load", "direct_store", "persistent", "index_per_group", "derive_twiddles",
                          "work_queue", "fused_split", "column_values", "bluestein", "fuse_axes", "three_kernels", "half_scratch"});
  KernelTuning t;
  if (j.contains("threads_per_fft")) t.threadsPerFft = static_cast<int>(rd.integer(j["threads_per_fft"], path + "/threads_per_fft", 1, 1024));
  if (j.contains("block_threads")) t.blockThreads = static_cast<int>(rd.integer(j["block_threads"], path + "/block_threads", 32, 1024));
  if (j.contains("bluestein")) {
    // "smooth", "power_of_two", or the convolution length M itself (checked against the length below, in parseStockhamSpec)
    if (j["bluestein"].is_number_integer()) {
      t.bluesteinLength = rd.integer(j["bluestein"], path + "/bluestein", 3, maxBluesteinLength(precision));
      if (!isSmooth(t.bluesteinLength, maxPrimeRadix(precision)))
        rd.fail(path + "/bluestein", fmt::format("{} is not a product of radix primes (2..{})", t.bluesteinLength, maxPrimeRadix(precision)));
    } else {
      const std::string b = rd.string(j["bluestein"], path + "/bluestein");
      if (b != "smooth" && b != "power_of_two")
        rd.fail(path + "/bluestein", fmt::format("\"{}\" (expected \"smooth\", \"power_of_two\" or a convolution length)", b));
      t.bluesteinPow2 = b == "power_of_two" ? 1 : 0;
    }
  }
  if (j.contains("column_values")) t.columnValues = static_cast<int>(rd.integer(j["column_values"], path + "/column_values", 1, 64));
  if (j.contains("register_target")) t.registerTarget = static_cast<int>(rd.integer(j["register_target"], path + "/register_target", 32, 255));
  auto flag = [&](const char* key, int& out) {
    if (!j.contains(key)) return;
    if (!j[key].is_boolean()) rd.fail(path + "/" + key, fmt::format("expected true or false, found {}", j[key].type_name()));
    out = j[key].get<bool>() ? 1 : 0;
  };
  flag("direct_load", t.directLoad);
  flag("direct_store", t.directStore);
  flag("persistent", t.persistent);
  flag("index_per_group", t.indexPerGroup);
  flag("derive_twiddles", t.deriveTwiddles);
  flag("work_queue", t.workQueue);
  flag("fused_split", t.fusedSplit);
  flag("fuse_axes", t.fuseAxes);
  flag("three_kernels", t.threeKernels);
  flag("half_scratch", t.halfScratch);
  return t;
}

}  // namespace

StockhamSpec parseStockhamSpec(const Json& root, const std::string& file) {
  JsonReader rd(file);
  rd.needObject(root, "");
  rd.onlyKeys(root, "", {"name", "family", "description", "precision", "transform", "length", "lengths", "direction", "placement", "input",
                         "output", "factors", "tuning"});
  StockhamSpec s;
  s.file = file;
  s.name = rd.identifier(rd.need(root, "", "name"), "/name", "name");
  if (rd.string(rd.need(root, "", "family"), "/family") != "stockham") rd.fail("/family", "expected stockham");
  s.precision = rd.string(rd.need(root, "", "precision"), "/precision");
  if (s.precision != "f16" && s.precision != "f32" && s.precision != "f64")
    rd.fail("/precision", fmt::format("unknown precision '{}' (expected f16, f32 or f64)", s.precision));
  if (root.contains("transform")) {
    s.transform = rd.string(root["transform"], "/transform");
    if (s.transform != "c2c" && s.transform != "r2c" && s.transform != "c2r")
      rd.fail("/transform", fmt::format("unknown transform '{}' (expected c2c, r2c or c2r)", s.transform));
  }
  const long long maxLen = maxLength(s.precision);
  const int maxDimLen = maxSingleKernelLength(s.precision);
  if (root.contains("length") == root.contains("lengths")) rd.fail("/length", "give exactly one of 'length' (1D) or 'lengths' (1 to 3 dimensions)");
  if (root.contains("length")) {
    s.lengths = {static_cast<int>(rd.integer(root["length"], "/length", 1, maxLen))};
  } else {
    const Json& l = root["lengths"];
    if (!l.is_array() || l.empty() || l.size() > 3) rd.fail("/lengths", "expected an array of 1 to 3 lengths, outermost first");
    for (std::size_t d = 0; d < l.size(); ++d)
      s.lengths.push_back(static_cast<int>(rd.integer(l[d], fmt::format("/lengths/{}", d), 1, l.size() == 1 ? maxLen : maxDimLen)));
  }
  const std::string lenPath = root.contains("length") ? "/length" : fmt::format("/lengths/{}", s.lengths.size() - 1);
  if (s.transform == "c2r") s.sign = +1;
  if (root.contains("direction")) {
    std::string d = rd.string(root["direction"], "/direction");
    if (d != "forward" && d != "inverse") rd.fail("/direction", fmt::format("unknown direction '{}' (expected forward or inverse)", d));
    s.sign = d == "forward" ? -1 : +1;
  }
  if (s.transform == "r2c" && s.sign != -1) rd.fail("/direction", "r2c is a forward transform");
  if (s.transform == "c2r" && s.sign != +1) rd.fail("/direction", "c2r is an inverse transform");
  if (s.transform != "c2c") {
    if (s.lengths.size() != 1) rd.fail("/lengths", "r2c/c2r are implemented for 1D transforms only");
    // N/2 up to kMaxRealHalf: a smooth N/2 up to maxFusedRealHalf in one kernel, every other even N
    // as a complex FFT of N/2 by the general path plus a split/merge kernel (StockhamPlan.cpp).
    int n = s.length();
    if (n % 2 || n / 2 > kMaxRealHalf)
      rd.fail(lenPath, fmt::format("{} needs an even length N with N/2 <= {} (found {})", s.transform, kMaxRealHalf, n));
  }
  if (s.lengths.size() > 1)
    for (std::size_t d = 0; d < s.lengths.size(); ++d)
      if (!isSmooth(s.lengths[d], maxPrimeRadix(s.precision)))
        rd.fail(fmt::format("/lengths/{}", d), fmt::format("multi-dimensional lengths must have radix prime factors only (found {})", s.lengths[d]));
  if (s.lengths.size() == 1 && !isSmooth(s.length(), maxPrimeRadix(s.precision))) {
    // Bluestein: a convolution of length >= 2n - 1 (bluesteinLength)
    const long long m = bluesteinLength(s.length(), true);  // the limit holds for either choice (power of two: the longer)
    const long long maxConv = maxBluesteinLength(s.precision);
    if (m > maxConv)
      rd.fail(lenPath, fmt::format("length {} has a prime factor above 31; Bluestein would need a length-{} convolution, above {} (the limit "
                                   "that keeps its chirp tables within 256 MiB; the largest such length is {})",
                                   s.length(), m, maxConv, maxConv / 2));
  }
  if (root.contains("placement")) {
    std::string p = rd.string(root["placement"], "/placement");
    if (p != "in_place" && p != "out_of_place") rd.fail("/placement", fmt::format("unknown placement '{}' (expected in_place or out_of_place)", p));
    s.inPlace = p == "in_place";
  }
  s.input = parseIo(rd, root.contains("input") ? root["input"] : Json(), "/input", s.inShape(), true);
  s.output = parseIo(rd, root.contains("output") ? root["output"] : Json(), "/output", s.outShape(), false);
  if (s.transform == "r2c" && s.input.planar) rd.fail("/input/layout", "the real input of r2c has no planar form");
  if (s.transform == "c2r" && s.output.planar) rd.fail("/output/layout", "the real output of c2r has no planar form");
  if (!s.input.type.empty() && s.transform != "c2c") rd.fail("/input/type", "int8/int4 input is implemented for c2c only");
  if (s.input.type == "ci4" && s.input.planar) rd.fail("/input/type", "ci4 packs re and im in one byte; it has no planar form");
  if (s.input.validLength >= 0 && s.transform != "c2c") rd.fail("/input/length", "implicit zero padding is implemented for c2c only");
  if (s.inPlace) {
    if (s.transform != "c2c") rd.fail("/placement", "in_place is implemented for c2c only");
    if (!s.input.type.empty() || s.input.validLength >= 0) rd.fail("/placement", "in_place needs the input and output in the same type and length");
    if (s.input.strides != s.output.strides || s.input.distance != s.output.distance || s.input.offset != s.output.offset ||
        s.input.planar != s.output.planar)
      rd.fail("/output", "an in_place transform needs the same strides, distance, offset and layout for input and output");
  }
  if (root.contains("factors")) {
    // (Up to the longest one kernel takes on any arch; planning for an arch with less shared memory says so.)
    const int maxOne = maxOneKernelLength(s.precision, "sm_90");
    if (s.lengths.size() != 1 || s.transform != "c2c" || s.length() > maxOne || !isSmooth(s.length(), maxPrimeRadix(s.precision)))
      rd.fail("/factors", fmt::format("explicit factors are for 1D c2c lengths up to {} (one kernel on sm_90) with radix prime factors", maxOne));
    const Json& f = root["factors"];
    if (!f.is_array()) rd.fail("/factors", fmt::format("expected an array of radices, found {}", f.type_name()));
    long long prod = 1;
    for (std::size_t i = 0; i < f.size(); ++i) {
      int r = static_cast<int>(rd.integer(f[i], fmt::format("/factors/{}", i), 2, 49));
      // Any radix up to 32 is a straight-line DFT (Butterfly.h splits composites, primes take the
      // symmetric form), so a factorization such as 48 = 12 x 4 can be tried; 49 as the largest.
      if (r > 32 && r != 49)
        rd.fail(fmt::format("/factors/{}", i), fmt::format("radix {} is not supported (expected 2..32 or 49)", r));
      s.factors.push_back(r);
      // Stop as soon as the running product passes the length: a long list must not wrap around
      // 2^64 back to the length and hand the planner millions of passes.
      prod *= r;  // <= 16384 * 49 here: no overflow
      if (prod > s.length())
        rd.fail(fmt::format("/factors/{}", i), fmt::format("the factors up to here multiply to {}, more than the length {}", prod, s.length()));
    }
    if (prod != s.length()) rd.fail("/factors", fmt::format("the factors multiply to {}, expected the length {}", prod, s.length()));
  }
  if (root.contains("tuning")) s.tuning = parseTuning(rd, root["tuning"], s.precision);
  if (s.tuning.bluesteinLength > 0) {
    // A Bluestein convolution serves the transform's length (c2c) or its complex half (r2c / c2r).
    const long long n = s.complexLength();
    if (s.tuning.bluesteinLength < 2 * n - 1)
      rd.fail("/tuning/bluestein", fmt::format("a convolution of length {} is too short for length {} (expected at least 2 x {} - 1 = {})",
                                               s.tuning.bluesteinLength, n, n, 2 * n - 1));
  }
  checkStockhamLayouts(s);
  return s;
}

StockhamSpec parseStockhamSpecText(const std::string& text, const std::string& file) { return parseStockhamSpec(parseJsonText(text, file), file); }
StockhamSpec parseStockhamSpecFile(const std::string& file) { return parseStockhamSpecText(readSpecFileText(file), file); }

}  // namespace warpforge
