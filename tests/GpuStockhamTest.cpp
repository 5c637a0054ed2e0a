// Stockham plans on the GPU through the family interface and the generic runner
// (bench/RunCheck.h): fresh random input in the spec's own layout (seed printed),
// outputs NaN-poisoned and checked all written, error against FFTW in double
// within the family's bound (a few ulps of the precision; Check::detail), and
// cuFFT's error on the same numbers printed beside ours.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include <atomic>
#include <cmath>
#include <chrono>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "bench/RunCheck.h"
#include "generator/stockham/BluesteinLength.h"
#include "generator/stockham/CoopRadix.h"
#include "generator/stockham/StockhamFamily.h"
#include "generator/stockham/StockhamPlan.h"
#include "generator/stockham/StockhamSpec.h"
#include "warpforge/compiler.h"
#include "warpforge/device.h"
#include "warpforge/json.h"

using namespace warpforge;

namespace {

StockhamSpec spec(const std::string& json) { return parseStockhamSpecText(json, "gpu.json"); }

// The sweep uses one name and fixed distances so that Bluestein kernels of one
// convolution length are one source for every N (compiled once).
StockhamSpec sweepSpec(int n, const std::string& prec) {
  return spec(fmt::format(R"({{"name": "sweep", "family": "stockham", "precision": "{}", "length": {},
                               "input": {{"distance": 4096}}, "output": {{"distance": 4096}}}})",
                          prec, n));
}

// WF_NO_BASELINE=1 leaves cuFFT out (its error is printed beside ours, never checked): a faster pass over the long
// lists, whose pass or fail rests on FFTW alone either way.
bool withCufft() { return std::getenv("WF_NO_BASELINE") == nullptr; }

RunReport run(Compiler& c, const StockhamSpec& s, long long batch, std::uint64_t seed, int reps = 1) {
  RunOptions o;
  o.batch = batch;
  o.seed = seed;
  o.timedReps = reps;
  o.baseline = withCufft();
  return runSpec(c, *makeStockhamSpec(s), o);
}

// Emit (spill-free, through NVRTC) and compile every kernel of these specs on all cores, so the runs hit the caches.
void precompile(Compiler& c, const std::vector<StockhamSpec>& specs) {
  useDefaultDevice();
  CUdevice dev = 0;
  checkCu(cuCtxGetDevice(&dev), "cuCtxGetDevice");
  const std::string arch = deviceInfo(dev).arch;
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::max(1u, std::thread::hardware_concurrency()); ++t)
    pool.emplace_back([&] {
      NvrtcProbe probe;
      for (std::size_t i; (i = next++) < specs.size();)
        for (const auto& src : makeStockhamSpec(specs[i])->emit({arch, &probe}).plan.sources)
          c.compile(src.text, specs[i].name, arch);
    });
  for (auto& th : pool) th.join();
}

struct Tally {
  int cases = 0, failures = 0;
  double worst = 0, worstRatio = 0;
  std::string worstCase;
  void add(const RunReport& r, const std::string& label) {
    const Check& c = r.check;
    ++cases;
    EXPECT_EQ(c.unwritten, 0) << label;
    EXPECT_LE(c.error, c.bound) << label << ": ours " << c.error << ", cuFFT " << r.baselineError << "; " << c.detail;
    if (!c.ok()) ++failures;
    if (c.error > worst) {
      worst = c.error;
      worstCase = label;
    }
    if (r.baselineError > 0) worstRatio = std::max(worstRatio, c.error / r.baselineError);
  }
};

void report(const char* what, const Tally& t) {
  const std::string ratio = withCufft() ? fmt::format("{:.2f}", t.worstRatio) : "- (cuFFT not run)";
  std::printf("[gpu-stockham] %s: %d cases, %d failed, worst rel err %.3e (%s), worst ours/cuFFT error ratio %s\n",
              what, t.cases, t.failures, t.worst, t.worstCase.c_str(), ratio.c_str());
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

class GpuStockham : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!deviceAvailable()) GTEST_SKIP() << "no CUDA device: " << deviceUnavailableReason();
  }
};

// Every length 1..last in one precision (Bluestein for primes above 13), batch 3. WF_LENGTHS=a-b
// narrows the range (a cold machine needs more than one 10-minute call to compile all 4096).
void everyLength(const char* prec, int last) {
  Compiler c;
  int first = 1;
  if (const char* r = std::getenv("WF_LENGTHS")) {
    int a = 0, b = 0;
    ASSERT_TRUE(std::sscanf(r, "%d-%d", &a, &b) == 2 && a >= 1 && b >= a && a <= last)
        << "WF_LENGTHS=" << r << ": expected a-b within 1.." << last;
    first = a, last = std::min(last, b);
    std::printf("[gpu-stockham] WF_LENGTHS=%s: lengths %d..%d\n", r, first, last);
  }
  std::vector<StockhamSpec> specs;
  for (int n = first; n <= last; ++n) specs.push_back(sweepSpec(n, prec));
  const auto t0 = std::chrono::steady_clock::now();
  precompile(c, specs);
  std::printf("[gpu-stockham] %s: %zu lengths precompiled in %.0f s\n", prec, specs.size(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  std::fflush(stdout);
  Tally t;
  const auto t1 = std::chrono::steady_clock::now();
  for (const auto& s : specs) {
    t.add(run(c, s, 3, 1000 + s.length()), fmt::format("{} n={} seed={}", prec, s.length(), 1000 + s.length()));
    if (s.length() % 64 == 0)
      std::printf("[gpu-stockham] %s: lengths 1..%d done, %d failed so far\n", prec, s.length(), t.failures),
          std::fflush(stdout);
  }
  std::printf("[gpu-stockham] %s: %zu lengths run and checked in %.0f s\n", prec, specs.size(), secondsSince(t1));
  report(fmt::format("every length {}..{}, {}, batch 3", first, last, prec).c_str(), t);
  std::fflush(stdout);
}

TEST_F(GpuStockham, EveryLength1To4096F32) { everyLength("f32", 4096); }
TEST_F(GpuStockham, EveryLength1To4096F64) { everyLength("f64", 4096); }
TEST_F(GpuStockham, EveryLength1To4096F16) { everyLength("f16", 4096); }

// Specs by body, one name each kind (kernels of equal source share one compile), run at batch 3.
// WF_CASES=a-b runs cases a..b (1-based) only, so a long list can be split over device calls.
void runBodies(const char* what, std::vector<std::pair<std::string, std::string>> cases, long long batch = 3) {
  if (const char* r = std::getenv("WF_CASES")) {
    std::size_t a = 0, b = 0;
    ASSERT_TRUE(std::sscanf(r, "%zu-%zu", &a, &b) == 2 && a >= 1 && b >= a && a <= cases.size())
        << "WF_CASES=" << r << ": expected a-b within 1.." << cases.size();
    cases = {cases.begin() + static_cast<std::ptrdiff_t>(a - 1),
             cases.begin() + static_cast<std::ptrdiff_t>(std::min(b, cases.size()))};
    std::printf("[gpu-stockham] WF_CASES=%s: cases %zu..%zu: %s .. %s\n", r, a, a + cases.size() - 1,
                cases.front().first.c_str(), cases.back().first.c_str());
  }
  Compiler c;
  std::vector<StockhamSpec> specs;
  for (const auto& [label, body] : cases)
    specs.push_back(spec(fmt::format(R"({{"name": "sw", "family": "stockham", {}}})", body)));
  const auto t0 = std::chrono::steady_clock::now();
  precompile(c, specs);
  std::printf("[gpu-stockham] %s: %zu specs precompiled in %.0f s\n", what, specs.size(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  std::fflush(stdout);
  Tally t;
  const auto t1 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const std::uint64_t seed = 5000 + i;
    RunReport r = run(c, specs[i], batch, seed);
    t.add(r, fmt::format("{} seed={}", cases[i].first, seed));
    if ((i + 1) % 128 == 0)
      std::printf("[gpu-stockham] %s: %zu of %zu done, %d failed so far\n", what, i + 1, specs.size(), t.failures),
          std::fflush(stdout);
  }
  std::printf("[gpu-stockham] %s: %zu specs run and checked in %.0f s\n", what, specs.size(), secondsSince(t1));
  report(what, t);
  std::fflush(stdout);
}

std::pair<std::string, std::string> realCase(const char* transform, const char* prec, int n) {
  return {fmt::format("{} {} n={}", transform, prec, n),
          fmt::format(R"("precision": "{}", "transform": "{}", "length": {})", prec, transform, n)};
}

// r2c and c2r at every even length to 8192: N/2 smooth up to 4096 in one kernel with the split
// fused into the last pass (or the merge into the first), every other N/2 (a prime factor above
// 31, or above 4096) as a complex FFT by the general path plus a split/merge kernel.
TEST_F(GpuStockham, RealEveryEvenLengthTo8192F32) {
  std::vector<std::pair<std::string, std::string>> cases;
  for (int n = 2; n <= 8192; n += 2)
    for (const char* tr : {"r2c", "c2r"}) cases.push_back(realCase(tr, "f32", n));
  runBodies("r2c/c2r every even length 2..8192, f32, batch 3", cases);
}
// f64 and f16: every 6th even length, plus the lengths around each path's limits.
TEST_F(GpuStockham, RealEvenLengthsF64F16) {
  std::vector<std::pair<std::string, std::string>> cases;
  std::vector<int> lengths;
  for (int n = 2; n <= 8192; n += 12) lengths.push_back(n);
  for (int n : {4, 6, 8190, 8192, 8194, 8196, 8198, 9000, 12000, 16382, 16384, 2 * 4099, 2 * 8191, 2 * 37, 2 * 127,
                2 * 17 * 19, 2 * 2 * 31 * 31})
    lengths.push_back(n);
  for (const char* prec : {"f64", "f16"})
    for (int n : lengths)
      for (const char* tr : {"r2c", "c2r"}) cases.push_back(realCase(tr, prec, n));
  runBodies("r2c/c2r sampled even lengths to 16384, f64 and f16, batch 3", cases);
}

// Odd r2c / c2r with batch entries in pairs (one complex FFT for two; the last pair of an odd batch holds one entry):
// odd lengths to 8191 sampled in f32, fewer in f64 and f16, the Bluestein primes and lengths past one kernel, r2c of
// one kernel also paired (pair_batch true), each at batch 3 and 4.
TEST_F(GpuStockham, RealOddLengthsInPairs) {
  std::vector<std::pair<std::string, std::string>> cases;
  auto add = [&](const char* prec, int n, const char* extra = "") {
    for (const char* tr : {"r2c", "c2r"}) {
      auto c = realCase(tr, prec, n);
      c.first += *extra ? " (pair_batch true)" : "";
      c.second += extra;
      cases.push_back(c);
    }
  };
  for (int n = 3; n <= 8191; n += 64) add("f32", n);
  for (int n = 5; n <= 8191; n += 256)
    for (const char* prec : {"f64", "f16"}) add(prec, n);
  for (int n : {1009, 2003, 4099, 8191, 37 * 41, 15625, 59049, 138961})
    for (const char* prec : {"f32", "f64", "f16"}) add(prec, n);
  for (int n = 7; n <= 8191; n += 512) add("f32", n, R"(, "tuning": {"pair_batch": true})");
  runBodies("r2c/c2r odd lengths in pairs, batch 3", cases, 3);
  runBodies("r2c/c2r odd lengths in pairs, batch 4", cases, 4);
}

// The radices 17..31: every length p * m (p a radix prime 17..31, m up to 16384 / p in steps) and
// products of two of them, all precisions; their single kernels replace Bluestein pairs.
TEST_F(GpuStockham, PrimeRadices17To31) {
  std::vector<std::pair<std::string, std::string>> cases;
  std::vector<int> lengths;
  for (int p : {17, 19, 23, 29, 31}) {
    for (int m = 1; m * p <= 16384; m = m < 16 ? m + 1 : m * 2 + (m % 3 == 0 ? 1 : 0)) lengths.push_back(p * m);
    for (int q : {17, 19, 23, 29, 31})
      if (q >= p) lengths.push_back(p * q);
  }
  for (int n : {17 * 19 * 23, 2 * 17 * 19 * 2, 31 * 31 * 8, 29 * 27 * 16, 17 * 25 * 32}) lengths.push_back(n);
  for (const char* prec : {"f32", "f64", "f16"})
    for (int n : lengths)
      if (n <= (std::string(prec) == "f64" ? 4096 : 16384))
        cases.push_back(
            {fmt::format("c2c {} n={}", prec, n),
             fmt::format(
                 R"("precision": "{}", "length": {}, "input": {{"distance": 16384}}, "output": {{"distance": 16384}})",
                 prec, n)});
  runBodies("prime radices 17..31, all precisions, batch 3", cases);
}

// The cooperative radices 37..127 (CoopRadix.h): p * m for every such prime (m from 1 up to the
// one-kernel limit), products of two of them (the second pass with twiddles), two-kernel plans past the
// one-kernel limit, both directions, all precisions, and r2c/c2r whose half length has such a prime
// (general path).
TEST_F(GpuStockham, CooperativePrimeRadices37To127) {
  std::vector<std::pair<std::string, std::string>> cases;
  std::vector<int> lengths;
  for (int p = 37; p <= 127; ++p) {
    if (!isCoopRadix(p, threadPrimeLimit(false))) continue;
    for (int m : {1, 2, 3, 4, 5, 7, 8, 11, 16, 25, 27, 32, 49, 64, 100, 128})
      if (p * m <= 16384) lengths.push_back(p * m);
  }
  for (int n : {37 * 41, 97 * 101, 101 * 109, 127 * 127, 37 * 43 * 2, 41 * 59 * 3, 10175, 8300, 8789, 12980, 13079,
                8729, 9265, 9434, 11009})
    lengths.push_back(n);
  // Past one kernel (f64 4096, f32 16384): two-kernel plans with the prime in the column or the row kernel.
  for (int n : {13583, 8509, 6132, 89 * 400, 127 * 256, 41 * 2000, 127 * 1000, 53 * 43 * 16, 4096 * 37})
    lengths.push_back(n);
  for (const char* prec : {"f32", "f64", "f16"})
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      const int n = lengths[i];
      if (std::string(prec) == "f64" && n > 16384) continue;
      const char* dir = i % 2 ? "inverse" : "forward";
      cases.push_back(
          {fmt::format("c2c {} {} n={}", prec, dir, n),
           fmt::format(
               R"("precision": "{}", "length": {}, "direction": "{}", "input": {{"distance": {}}}, "output": {{"distance": {}}})",
               prec, n, dir, std::max(16384, n), std::max(16384, n))});
    }
  for (int n : {2 * 37, 2 * 127 * 4, 2 * 101 * 25, 2 * 53 * 64})
    for (const char* tr : {"r2c", "c2r"}) cases.push_back(realCase(tr, "f32", n));
  // f64 29 and 31 are cooperative too (f32 / f16: thread butterflies, PrimeRadices17To31): past f64's one kernel,
  // two-kernel plans (15717 = 3 x 13^2 x 31, 5487 = 3 x 31 x 59, 29^2 x 8, 31 x 512, 29 x 31 x 16).
  for (int n : {15717, 5487, 29 * 29 * 8, 31 * 512, 29 * 31 * 16, 29 * 4000 / 8})
    for (const char* dir : {"forward", "inverse"})
      cases.push_back(
          {fmt::format("c2c f64 {} n={}", dir, n),
           fmt::format(
               R"("precision": "f64", "length": {}, "direction": "{}", "input": {{"distance": 16384}}, "output": {{"distance": 16384}})",
               n, dir)});
  runBodies("cooperative prime radices 37..127 (f64 29..127), all precisions, batch 3", cases);
}

// Cooperative primes computed whole by one thread, outputs stored pair by pair where the length is
// p, 2p, p^2 or another multiple (f64 29..53, f32 / f16 37..61; those the rule keeps cooperative run too: 29 x 13, 37 x
// 25), both directions; f64 kernels
// of 257..512 threads at the register target of two resident blocks (2401 on 343 threads, 2187, 2025, 3087, 1029,
// 1715); c2r of short halves on one thread per FFT.
TEST_F(GpuStockham, StreamedPrimesAndTwoBlockF64) {
  std::vector<std::pair<std::string, std::string>> cases;
  auto add = [&](const char* prec, int n, const char* dir) {
    cases.push_back({fmt::format("c2c {} {} n={}", prec, dir, n),
                     fmt::format(R"("precision": "{}", "length": {}, "direction": "{}")", prec, n, dir)});
  };
  int i = 0;
  for (int p : {29, 31, 37, 41, 43, 47, 53})
    for (int m : {1, 2, 3, 10, p}) add("f64", p * m, i++ % 2 ? "inverse" : "forward");
  for (int n : {29 * 4, 29 * 7, 29 * 13, 29 * 50, 31 * 5}) add("f64", n, i++ % 2 ? "inverse" : "forward");
  for (const char* prec : {"f32", "f16"})
    for (int p : {37, 41, 43, 47, 53, 59, 61})
      for (int m : {1, 2, 3, 6, 32, p}) add(prec, p * m, i++ % 2 ? "inverse" : "forward");
  add("f32", 37 * 25, "forward");
  // c2r of short halves at one thread per FFT (f32 to N = 116, f64 to 58).
  for (int n : {4, 10, 20, 28, 36, 56, 100, 116}) cases.push_back(realCase("c2r", "f32", n));
  for (int n : {4, 10, 20, 28, 44, 58}) cases.push_back(realCase("c2r", "f64", n));
  for (int n : {2401, 2187, 2025, 3087, 1029, 1715, 343 * 2, 3125}) add("f64", n, i++ % 2 ? "inverse" : "forward");
  runBodies("streamed primes, f64 at two blocks", cases);
}

// Quick checks (< 3 minutes on the H100): small lengths (staged I/O, thread
// counts balanced over unequal radices), the prime radices, r2c/c2r fused and general paths, and
// the new tuning switches at a batch where blocks loop over many groups.
TEST_F(GpuStockham, QuickChecks) {
  std::vector<std::pair<std::string, std::string>> cases;
  for (const char* prec : {"f32", "f16", "f64"}) {
    for (int n = 1; n <= 72; ++n)
      cases.push_back(
          {fmt::format("c2c {} n={}", prec, n), fmt::format(R"("precision": "{}", "length": {})", prec, n)});
    for (int n :
         {100, 143, 162, 200, 323, 391, 437, 527, 589, 713, 899, 961, 1000, 2187, 6561, 7680, 2 * 17 * 31, 4 * 29 * 23})
      cases.push_back(
          {fmt::format("c2c {} n={}", prec, n), fmt::format(R"("precision": "{}", "length": {})", prec, n)});
    for (int n : {2,   4,   6,    8,    10,   12,   30,   32,   34,   64,   74,   100,  128,  200,
                  254, 646, 1000, 1024, 1200, 1202, 2048, 4096, 8192, 8194, 8198, 9000, 16384})
      for (const char* tr : {"r2c", "c2r"}) cases.push_back(realCase(tr, prec, n));
  }
  runBodies("quick: small, prime radices, r2c/c2r", cases);
  Compiler c;
  Tally t;
  const char* tunings[] = {R"({})", R"({"fused_split": false})", R"({"direct_load": true, "direct_store": true})",
                           R"({"direct_load": false, "direct_store": false})"};
  for (const char* body :
       {R"("precision": "f32", "length": 24)", R"("precision": "f16", "length": 48)",
        R"("precision": "f32", "length": 323)", R"("precision": "f32", "transform": "r2c", "length": 1000)",
        R"("precision": "f64", "transform": "r2c", "length": 64)",
        R"("precision": "f32", "transform": "r2c", "length": 32)"})
    for (const char* tuning : tunings) {
      StockhamSpec s = spec(fmt::format(R"({{"name": "q16", "family": "stockham", {}, "tuning": {}}})", body, tuning));
      const long long batch = (1LL << 22) / s.points() + 3;
      RunReport r = run(c, s, batch, 43);
      t.add(r, fmt::format("{} tuning {} batch {}", body, tuning, batch));
    }
  report("quick: tuning switches at large batch", t);
}

// Lengths with a prime factor above 31 (Bluestein) at the 7-smooth convolution lengths of tuning "bluestein": "smooth"
// (the default past one kernel): every 40th prime
// 37..4093 and the sweep's worst Bluestein lengths, three precisions, checked against FFTW; then ours (smooth, power of
// two) and cuFFT timed in one process, f32. (Every 15th prime ran past 200 s in the precompile step on the device.)
TEST_F(GpuStockham, BluesteinSmoothConvolutionLengths) {
  Compiler c;
  std::vector<long long> lengths;
  int k = 0;
  for (long long n = 37; n < 4096; n += 2) {
    bool prime = true;
    for (long long q = 3; q * q <= n && prime; q += 2) prime = n % q != 0;
    if (prime && k++ % 40 == 0) lengths.push_back(n);
  }
  for (long long n : {2629LL, 2879LL, 3005LL, 8924LL, 9150LL, 11223LL, 65537LL, 100003LL}) lengths.push_back(n);
  std::vector<StockhamSpec> specs;
  for (const char* prec : {"f32", "f64", "f16"})
    for (long long n : lengths)
      specs.push_back(spec(fmt::format(
          R"({{"name": "blue_{}_{}", "family": "stockham", "precision": "{}", "length": {}, "tuning": {{"bluestein": "smooth"}}}})",
          prec, n, prec, n)));
  // The timed pairs below, compiled here on every core too (compiled one by one they run past 200 s).
  const long long timedLengths[] = {1009, 2629, 2879, 3005, 4099, 6007, 8191, 8924, 9150, 11223};
  std::vector<StockhamSpec> timedSpecs;
  for (long long n : timedLengths)
    for (const char* b : {"smooth", "power_of_two"})
      timedSpecs.push_back(spec(fmt::format(
          R"({{"name": "bt_{}_{}", "family": "stockham", "precision": "f32", "length": {}, "tuning": {{"bluestein": "{}"}}}})",
          b, n, n, b)));
  std::vector<StockhamSpec> all = specs;
  all.insert(all.end(), timedSpecs.begin(), timedSpecs.end());
  precompile(c, all);
  Tally t;
  for (const auto& s : specs) {
    RunReport r = run(c, s, 3, 31 + s.points());
    t.add(r, fmt::format("{} n={} (M={}) seed={}", precisionName(s.precision), s.points(), bluesteinLength(s.points()),
                         31 + s.points()));
  }
  std::fflush(stdout);
  report("Bluestein lengths at 7-smooth convolution lengths", t);
  std::fflush(stdout);
  double logSmooth = 0, logPow2 = 0;
  int timed = 0;
  for (std::size_t i = 0; i < timedSpecs.size(); i += 2) {
    const StockhamSpec& a = timedSpecs[i];
    const StockhamSpec& b = timedSpecs[i + 1];
    const long long n = a.points();
    const long long batch = std::max<long long>(1, (1LL << 24) / n);
    RunReport ra = run(c, a, batch, 3, 15), rb = run(c, b, batch, 3, 15);
    EXPECT_LE(ra.check.error, ra.check.bound) << n;
    EXPECT_LE(rb.check.error, rb.check.bound) << n;
    if (ra.baselineMs <= 0) continue;
    std::printf(
        "[gpu-stockham] bluestein f32 n=%lld batch=%lld: M=%lld %.4f ms (%.2fx cuFFT) | M=%lld %.4f ms (%.2fx) | cuFFT "
        "%.4f ms\n",
        n, batch, bluesteinLength(n), ra.ourMs, ra.baselineMs / ra.ourMs, bluesteinLength(n, true), rb.ourMs,
        rb.baselineMs / rb.ourMs, ra.baselineMs);
    logSmooth += std::log(ra.baselineMs / ra.ourMs);
    logPow2 += std::log(rb.baselineMs / rb.ourMs);
    ++timed;
  }
  if (timed)
    std::printf("[gpu-stockham] bluestein f32 geometric mean vs cuFFT: smooth %.3fx, power of two %.3fx (%d lengths)\n",
                std::exp(logSmooth / timed), std::exp(logPow2 / timed), timed);
}

// The default convolution lengths (BluesteinLength.h: 2^a x 1, 3, 5, 7, 9 up to 8192, chosen by a model of
// the kernel; f64 2^a x 1, 3, 5): the first N that takes each length, c2c in three precisions and as the complex half
// of r2c / c2r, checked against FFTW.
TEST_F(GpuStockham, BluesteinDefaultConvolutionLengths) {
  Compiler c;
  std::vector<std::pair<StockhamSpec, long long>> specs;
  auto convolution = [](const StockhamSpec& s) {
    for (const auto& k : planStockham(s, "sm_90", false).kernels)
      if (k.desc.convolve) return static_cast<long long>(k.desc.length);
    return 0LL;
  };
  for (const char* prec : {"f32", "f64", "f16"})
    for (const char* transform : {"c2c", "r2c", "c2r"}) {
      if (std::string(prec) != "f32" && std::string(transform) != "c2c") continue;
      std::set<long long> seen;
      for (long long n = 37; n <= 8192; ++n) {
        const bool real = std::string(transform) != "c2c";
        if (real && n % 2) continue;
        const StockhamSpec s = spec(fmt::format(
            R"({{"name": "bd_{}_{}_{}", "family": "stockham", "precision": "{}", "transform": "{}", "length": {}}})",
            prec, transform, n, prec, transform, n));
        const long long m = convolution(s);
        if (m > 0 && seen.insert(m).second && (!real || seen.size() % 3 == 1)) specs.push_back({s, m});
      }
    }
  std::vector<StockhamSpec> all;
  for (const auto& [s, m] : specs) all.push_back(s);
  precompile(c, all);
  Tally t;
  for (const auto& [s, m] : specs) {
    RunReport r = run(c, s, 3, 41 + s.points());
    t.add(r, fmt::format("{} {} n={} (M={}) seed={}", precisionName(s.precision), transformName(s.transform),
                         s.points(), m, 41 + s.points()));
  }
  report("Bluestein at the default convolution lengths", t);
}

// One kernel past maxSingleKernelLength while one FFT fits the block's shared memory (maxOneKernelLength):
// f32 / f16 up to 27225 on sm_90, f64 up to 12856, the complex halves of r2c / c2r, Bluestein convolutions of 20480
// one kernel each way; forward and inverse, planar, strided and in place. Each one kernel on sm_90 (two for Bluestein;
// r2c / c2r one where the split or merge fuses into the half's kernel, else two), checked against FFTW.
TEST_F(GpuStockham, LongLengthsInOneKernel) {
  Compiler c;
  struct Case {
    StockhamSpec spec;
    std::size_t kernels;
    std::string extra;
  };
  std::vector<Case> cases;
  auto add = [&](const char* prec, long long n, std::size_t kernels, const std::string& extra = "") {
    cases.push_back(
        {spec(fmt::format(R"({{"name": "long_{}_{}_{}", "family": "stockham", "precision": "{}", "length": {}{}}})",
                          prec, n, cases.size(), prec, n, extra)),
         kernels, extra});
  };
  for (long long n : {16807LL, 17496LL, 18000LL, 19683LL, 20736LL, 24576LL, 26244LL, 27000LL}) add("f32", n, 1);
  add("f32", 19683, 1, R"(, "direction": "inverse", "output": {"layout": "planar"})");
  add("f32", 25000, 1, R"(, "placement": "in_place")");
  add("f32", 18750, 1, R"(, "input": {"stride": 3, "distance": 56251, "offset": 1})");
  for (long long n : {20000LL, 26244LL}) add("f16", n, 1);
  for (long long n :
       {4374LL, 4608LL, 5000LL, 6000LL, 6561LL, 7203LL, 7776LL, 8000LL, 8192LL, 9464LL, 10935LL, 12288LL, 12800LL})
    add("f64", n, 1);
  add("f64", 6561, 1, R"(, "direction": "inverse", "placement": "in_place")");
  add("f64", 9000, 2, R"(, "transform": "c2r")");
  add("f64", 12000, 1, R"(, "transform": "r2c")");
  add("f64", 16384, 1, R"(, "transform": "c2r", "input": {"layout": "planar"})");
  // Factored by the long-FFT search (LongFftFactors.h): radices 10, 12, 14, 15, 18, 24, 30, 49 and smallest-first
  // orders.
  for (long long n : {8232LL, 11375LL, 14520LL, 17820LL, 18750LL}) add("f32", n, 1);
  for (long long n : {4320LL, 5184LL, 8232LL, 9375LL, 10000LL}) add("f64", n, 1);
  add("f32", 10007, 2, "");  // Bluestein via 20480: one kernel each way
  add("f32", 12289, 2, R"(, "direction": "inverse")");
  std::vector<StockhamSpec> all;
  for (const auto& k : cases) all.push_back(k.spec);
  precompile(c, all);
  Tally t;
  for (const auto& k : cases) {
    const long long batch = std::max<long long>(1, (1LL << 22) / k.spec.points()), seed = 22 + k.spec.points();
    RunReport r = run(c, k.spec, batch, seed);
    EXPECT_EQ(r.kernels.size(), k.kernels) << k.spec.name;
    t.add(r, fmt::format("{} n={}{} batch={} seed={}", precisionName(k.spec.precision), k.spec.points(), k.extra, batch,
                         seed));
    std::printf("[gpu-stockham] %s n=%lld%s kernels=%zu batch=%lld err %.3e (cuFFT %.3e)\n",
                precisionName(k.spec.precision), k.spec.points(), k.extra.c_str(), r.kernels.size(), batch,
                r.check.error, r.baselineError);
  }
  report("one kernel past the single-kernel limit", t);
}

TEST_F(GpuStockham, PowersOfTwoAndLargeLengths) {
  Compiler c;
  std::vector<StockhamSpec> specs;
  auto add = [&](long long n, const char* prec) {
    specs.push_back(
        spec(fmt::format(R"({{"name": "big_{}_{}", "family": "stockham", "precision": "{}", "length": {}}})", prec, n,
                         prec, n)));
  };
  for (int e = 13; e <= 24; ++e) add(1LL << e, "f32"), add(1LL << e, "f16");
  for (int e = 13; e <= 22; ++e) add(1LL << e, "f64");
  for (long long n : {10000LL, 100000LL, 1000000LL, 5LL * 5 * 5 * 5 * 5 * 5 * 7 * 7 * 7, 4099LL, 65537LL, 1000003LL})
    add(n, "f32"), add(n, "f64");
  add(14348907LL, "f64");  // 3^15 = 2187 x 6561: the row kernel above the f64 single-kernel limit (maxSplitRowLength)
  precompile(c, specs);
  Tally t;
  for (const auto& s : specs) {
    long long batch = std::max<long long>(1, (1LL << 22) / s.points());
    RunReport r = run(c, s, batch, 7 + s.points());
    t.add(r, fmt::format("{} n={} batch={} seed={}", precisionName(s.precision), s.points(), batch, 7 + s.points()));
    std::printf("[gpu-stockham] %s n=%lld kernels=%zu batch=%lld err %.3e (cuFFT %.3e)\n", precisionName(s.precision),
                s.points(), r.kernels.size(), batch, r.check.error, r.baselineError);
  }
  report("powers of two to 2^24, large mixed and prime lengths", t);
}

// f16 scratch between kernels (default for f16), three kernels (by default for f16 where the two-kernel split has a
// side of 4096, odd f32 with a side of 2048, f64 with a side past 2048, f32 with both sides 4096; by tuning
// elsewhere), at user strides, planar and in place; and f16 with the scratch in float.
TEST_F(GpuStockham, ThreeKernelAndHalfScratchPlans) {
  Compiler c;
  std::vector<std::pair<StockhamSpec, std::string>> specs;
  auto add = [&](const char* prec, long long n, const std::string& extra) {
    specs.push_back(
        {spec(fmt::format(R"({{"name": "three_{}_{}", "family": "stockham", "precision": "{}", "length": {}{}}})", prec,
                          n, prec, n, extra)),
         extra});
  };
  for (long long n : {1LL << 23, 1LL << 24, 14348907LL, 9765625LL, 100000LL, 20000LL, 1LL << 16}) add("f16", n, "");
  add("f16", 1 << 23,
      R"(, "direction": "inverse", "input": {"stride": 2, "distance": 16777217}, "output": {"layout": "planar"})");
  add("f16", 1 << 16, R"(, "tuning": {"three_kernels": true})");
  add("f16", 1 << 24, R"(, "tuning": {"half_scratch": false})");
  add("f32", 32768, R"(, "tuning": {"three_kernels": true})");
  add("f32", 22050, R"(, "direction": "inverse", "tuning": {"three_kernels": true})");
  add("f32", 1 << 20,
      R"(, "input": {"stride": 3, "distance": 3145730, "offset": 2}, "output": {"layout": "planar"}, "tuning": {"three_kernels": true})");
  add("f32", 18432, R"(, "placement": "in_place", "tuning": {"three_kernels": true})");
  add("f64", 823543, R"(, "tuning": {"three_kernels": true})");
  // Three kernels by default for odd f32 lengths whose two-kernel split has a side of 2048 or more.
  add("f32", 823543, "");
  add("f32", 5764801, R"(, "direction": "inverse", "output": {"layout": "planar"})");
  add("f32", 1594323, R"(, "placement": "in_place")");
  add("f64", 32768, R"(, "direction": "inverse", "tuning": {"three_kernels": true})");
  // By default for f64 where a side passes 2048, and for f32 2^24.
  add("f64", 1 << 23, R"(, "direction": "inverse", "output": {"layout": "planar"})");
  add("f64", 5764801, "");
  add("f64", 1953125, R"(, "placement": "in_place")");
  add("f32", 1 << 24, "");
  std::vector<StockhamSpec> all;
  for (const auto& [s, e] : specs) all.push_back(s);
  precompile(c, all);
  Tally t;
  for (const auto& [s, extra] : specs) {
    const long long batch = std::max<long long>(1, (1LL << 22) / s.points()), seed = 20 + s.points();
    RunReport r = run(c, s, batch, seed);
    t.add(r, fmt::format("{} n={}{} batch={} seed={}", precisionName(s.precision), s.points(), extra, batch, seed));
    std::printf("[gpu-stockham] %s n=%lld%s kernels=%zu batch=%lld err %.3e (cuFFT %.3e)\n", precisionName(s.precision),
                s.points(), extra.c_str(), r.kernels.size(), batch, r.check.error, r.baselineError);
  }
  report("three-kernel plans and f16 scratch", t);
}

TEST_F(GpuStockham, MultiDimensional) {
  Compiler c;
  Tally t;
  // Fused planes (KernelDesc::axes): [20, 20], [3, 5], [2, 128], [128, 2], [16, 16, 16] whole; [100, 81], [64, 128]
  // (f32, f16), the inner two of [16, 32, 64], [25, 27, 8] (f64: 27 x 8) and [128, 128, 128]; [1000, 16] and [7, 4096]
  // one kernel per axis.
  std::vector<std::string> shapes = {"[64, 128]",    "[100, 81]",   "[1000, 16]",      "[7, 4096]",
                                     "[16, 32, 64]", "[25, 27, 8]", "[128, 128, 128]", "[20, 20]",
                                     "[3, 5]",       "[2, 128]",    "[128, 2]",        "[16, 16, 16]"};
  for (const auto& sh : shapes)
    for (const char* prec : {"f32", "f64", "f16"})
      for (const char* dir : {"forward", "inverse"}) {
        StockhamSpec s = spec(fmt::format(
            R"({{"name": "nd", "family": "stockham", "precision": "{}", "lengths": {}, "direction": "{}"}})", prec, sh,
            dir));
        t.add(run(c, s, 3, 77), fmt::format("{} {} {}", prec, sh, dir));
      }
  // Strided, offset, planar and in-place multi-dimensional layouts.
  StockhamSpec a = spec(R"({"name": "nd_strided", "family": "stockham", "precision": "f32", "lengths": [12, 40],
      "input": {"strides": [90, 2], "distance": 1200, "offset": 3},
      "output": {"strides": [1, 12], "distance": 500, "offset": 1, "layout": "planar"}})");
  t.add(run(c, a, 5, 78), "2D strided in, transposed planar out");
  StockhamSpec b = spec(
      R"({"name": "nd_inplace", "family": "stockham", "precision": "f64", "lengths": [9, 10, 11], "placement": "in_place"})");
  t.add(run(c, b, 4, 79), "3D in place");
  // A fused plane read at element stride 2 with an offset, written planar; at a batch that loops every block over many
  // planes; and the same shape with one kernel per axis (tuning fuse_axes false).
  StockhamSpec e = spec(R"({"name": "nd_fused_strided", "family": "stockham", "precision": "f32", "lengths": [12, 40],
      "input": {"strides": [80, 2], "distance": 1000, "offset": 3}, "output": {"layout": "planar", "distance": 500}})");
  t.add(run(c, e, 5, 80), "2D fused, strided in, planar out");
  for (const char* tuning : {"{}", R"({"fuse_axes": false})"}) {
    StockhamSpec f = spec(fmt::format(
        R"({{"name": "nd_big", "family": "stockham", "precision": "f32", "lengths": [20, 20], "tuning": {}}})",
        tuning));
    t.add(run(c, f, 20000, 81), fmt::format("2D 20 x 20 batch 20000, tuning {}", tuning));
  }
  report("2D/3D", t);
}

// Runs each {label, spec members, batch} case: compiled first (NVRTC, every thread), then each on fresh inputs with the
// seed printed, outputs poisoned (RunCheck), against FFTW in double, cuFFT's error printed beside ours.
namespace {
struct RealCase {
  std::string label, body;
  long long batch;
};
void runCases(const std::vector<RealCase>& cases, std::uint64_t firstSeed, const char* title) {
  Compiler c;
  std::vector<StockhamSpec> specs;
  for (const auto& k : cases)
    specs.push_back(spec(fmt::format(R"({{"name": "re", "family": "stockham", {}}})", k.body)));
  precompile(c, specs);
  Tally t;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const std::uint64_t seed = firstSeed + i;
    RunReport r = run(c, specs[i], cases[i].batch, seed);
    t.add(r, fmt::format("{} seed={}", cases[i].label, seed));
    std::printf("[gpu-stockham] %-44s kernels=%zu err %.3e (cuFFT %.3e) unwritten %lld\n", cases[i].label.c_str(),
                r.kernels.size(), r.check.error, r.baselineError, r.check.unwritten);
  }
  report(title, t);
}
}  // namespace

// 1D r2c / c2r past one kernel: halves past 4096 in one kernel with the split / merge fused, or in a kernel of its
// own; the half's two-kernel plan with the split / merge fused through mirrored FFT pairs (to 2^24 f32 / f16, 2^23
// f64), Bluestein halves with a mirrored split / merge kernel, odd lengths as the complex FFT
// of N; odd batches, padded distances and offsets, planar complex sides.
TEST_F(GpuStockham, RealTransformsLong) {
  std::vector<RealCase> cases;
  auto real = [&](const char* prec, long long n, long long batch, const std::string& extra = "") {
    for (const char* tr : {"r2c", "c2r"})
      cases.push_back({fmt::format("{} {} n={}{} batch {}", tr, prec, n,
                                   extra.empty()                               ? ""
                                   : extra.find("tuning") != std::string::npos ? " (tuning)"
                                                                               : " (layout)",
                                   batch),
                       fmt::format(R"("precision": "{}", "transform": "{}", "length": {}{})", prec, tr, n, extra),
                       batch});
  };
  real("f32", 1 << 24, 1);
  real("f16", 1 << 24, 1);
  // f16 past one kernel: mirrored two-kernel plans (65536 and 2^21: the c2r lengths whose test data once overflowed
  // f16's range), a Bluestein half with a mirrored split / merge kernel, and the complex half in f16 scratch.
  real("f16", 1 << 16, 3);
  real("f16", 1 << 21, 3);
  real("f16", 16416, 5, R"(, "tuning": {"real_split": "kernel"})");  // the FFT of 8208, then the split (merge) kernel
  real("f16", 32832, 3);                                             // mirrored pairs past a half of 16384
  real("f16", 2 * 9973 * 3, 3);
  for (const char* tr : {"r2c", "c2r"})
    cases.push_back(
        {fmt::format("{} f16 n=2097152 f16 scratch batch 3", tr),
         fmt::format(R"("precision": "f16", "transform": "{}", "length": 2097152, "tuning": {{"half_scratch": true}})",
                     tr),
         3});
  real("f64", 1 << 23, 1);
  real("f32", 1 << 20, 3);
  real("f64", 3 << 18, 3);
  real("f32", 16416, 5);  // a half of 8208 (2^4 3^3 19): one kernel, the split fused (the default past 4096)
  real("f32", 32768, 3);  // a half of 16384: one kernel, the split fused
  real("f32", 32832, 3);  // mirrored pairs
  real("f32", 32768, 3, R"(, "tuning": {"real_split": "mirrored"})");  // a half of 16384 through mirrored pairs
  real("f32", 32768, 5, R"(, "tuning": {"real_split": "kernel"})");    // one kernel of 16384, then the split kernel
  real("f32", 24000, 3);  // a half of 12000 (25 x 8 x 5 x 4 x 3 on 240 threads), fused
  real("f32", 20000, 3);  // one kernel of 10000 (25 x 25 x 16), fused
  real("f64", 16384, 3);  // one kernel of 8192, fused
  real("f16", 32768, 3, R"(, "tuning": {"real_split": "fused"})");   // one kernel of 16384 in f16 storage
  real("f32", 65536, 5, R"(, "tuning": {"real_split": "kernel"})");  // the FFT of 32768, then a mirrored split pass
  real("f32", 2 * 9973 * 3, 3);  // a half of 3 x 9973: Bluestein, mirrored split / merge kernel
  real("f64", 2 * 65537, 3);     // a prime half past one kernel
  real("f32", 1001, 7);
  real("f64", 59049, 3);
  real("f32", 1000003, 1);  // odd prime: Bluestein of N (one pair holding one entry)
  real("f32", 138961, 4);   // 79 x 1759: Bluestein of N, entries in pairs
  real("f16", 674393, 3);   // prime
  // Padded distances: the real side holds 2^20 values, the complex side 2^19 + 1 (r2c: input real; c2r: output).
  cases.push_back(
      {"r2c f32 n=1048576 (layout) batch 3",
       R"("precision": "f32", "transform": "r2c", "length": 1048576, "input": {"distance": 1048640, "offset": 8}, "output": {"distance": 524321, "offset": 3})",
       3});
  cases.push_back(
      {"c2r f32 n=1048576 (layout) batch 3",
       R"("precision": "f32", "transform": "c2r", "length": 1048576, "input": {"distance": 524321, "offset": 3}, "output": {"distance": 1048640, "offset": 8})",
       3});
  cases.push_back({"r2c f32 2^20 planar out batch 3",
                   R"("precision": "f32", "transform": "r2c", "length": 1048576, "output": {"layout": "planar"})", 3});
  cases.push_back({"c2r f64 20000 planar in batch 3",
                   R"("precision": "f64", "transform": "c2r", "length": 20000, "input": {"layout": "planar"})", 3});
  runCases(cases, 6100, "r2c / c2r 1D past one kernel");
}

// 2D / 3D r2c / c2r in cuFFT's layout (the innermost axis halved plus one), odd and non-smooth axes, padded rows; c2c
// 2D / 3D with axes of any length (Bluestein per axis).
TEST_F(GpuStockham, RealTransformsMultiDimensional) {
  std::vector<RealCase> cases;
  for (const char* sh :
       {"[512, 512]", "[100, 1000]", "[64, 64, 64]", "[30, 50, 49]", "[415, 40]", "[7, 11, 13]", "[2, 4096]",
        // planes that fit one block: one kernel for an even innermost length (odd: one kernel per axis)
        "[4, 12]", "[6, 10]", "[32, 31]", "[3, 5, 7]", "[104, 55]"})
    for (const char* prec : {"f32", "f64"})
      for (const char* tr : {"r2c", "c2r"})
        cases.push_back({fmt::format("{} {} {} batch 3", tr, prec, sh),
                         fmt::format(R"("precision": "{}", "transform": "{}", "lengths": {})", prec, tr, sh), 3});
  for (const char* tr : {"r2c", "c2r"}) {
    // many planes per block, the last block partial; the odd planes fuse_axes asks for; f16 planes
    cases.push_back({fmt::format("{} f32 [6, 10] batch 1001", tr),
                     fmt::format(R"("precision": "f32", "transform": "{}", "lengths": [6, 10])", tr), 1001});
    for (const char* sh : {"[4, 13]", "[32, 31]", "[8, 8, 9]", "[11, 15]"})
      cases.push_back(
          {fmt::format("{} f32 {} fuse_axes true batch 5", tr, sh),
           fmt::format(R"("precision": "f32", "transform": "{}", "lengths": {}, "tuning": {{"fuse_axes": true}})", tr,
                       sh),
           5});
    cases.push_back({fmt::format("{} f16 [6, 10] batch 7", tr),
                     fmt::format(R"("precision": "f16", "transform": "{}", "lengths": [6, 10])", tr), 7});
  }
  cases.push_back(
      {"r2c f16 [256, 256] batch 5", R"("precision": "f16", "transform": "r2c", "lengths": [256, 256])", 5});
  cases.push_back(
      {"c2r f16 [32, 64, 128] batch 5", R"("precision": "f16", "transform": "c2r", "lengths": [32, 64, 128])", 5});
  cases.push_back(
      {"r2c f32 [100, 1000] padded rows batch 3",
       R"("precision": "f32", "transform": "r2c", "lengths": [100, 1000], "input": {"strides": [1024, 1], "distance": 102500, "offset": 4},
                      "output": {"strides": [512, 1], "distance": 51300, "offset": 2})",
       3});
  cases.push_back(
      {"c2r f64 [100, 1000] padded rows batch 3",
       R"("precision": "f64", "transform": "c2r", "lengths": [100, 1000], "input": {"strides": [512, 1], "distance": 51300, "offset": 2},
                      "output": {"strides": [1024, 1], "distance": 102500, "offset": 4})",
       3});
  for (const char* sh : {"[415, 40]", "[131, 12]", "[9, 17, 131]", "[1009, 3]"})
    for (const char* prec : {"f32", "f64"})
      cases.push_back({fmt::format("c2c {} {} batch 3", prec, sh),
                       fmt::format(R"("precision": "{}", "lengths": {})", prec, sh), 3});
  runCases(cases, 6200, "r2c / c2r 2D/3D, c2c 2D/3D of any length");
}

// Every tuning switch at a batch large enough that each resident block loops over many
// groups (shared memory reused): a missing barrier between one group's last pass and
// the next group's staged load shows here, not at the small batches above. Persistent blocks unless a tuning says
// otherwise (one-kernel plans default to a block per group).
TEST_F(GpuStockham, TuningVariantsAtLargeBatch) {
  Compiler c;
  Tally t;
  const char* tunings[] = {R"({"direct_load": false})",
                           R"({"direct_store": false})",
                           R"({"direct_load": false, "direct_store": false})",
                           R"({"persistent": false})",
                           R"({"block_threads": 512, "register_target": 128})",
                           "FEW_THREADS",
                           R"({"index_per_group": true})",
                           R"({"index_per_group": false})",
                           R"({"derive_twiddles": true})",
                           R"({"derive_twiddles": false})",
                           R"({"work_queue": true})",
                           R"({"work_queue": false})",
                           R"({"work_queue": true, "persistent": false})",
                           R"({"fused_split": false})"};
  // Each body with the fewest threads per FFT its spec allows (at most 64 values per thread), for the threads_per_fft
  // variant.
  const std::vector<std::pair<std::string, int>> bodies = {{R"("precision": "f32", "length": 1024)", 32},
                                                           {R"("precision": "f16", "length": 8192)", 128},
                                                           {R"("precision": "f64", "length": 2187)", 64},
                                                           {R"("precision": "f32", "transform": "c2r", "length": 2048)",
                                                            32},
                                                           {R"("precision": "f32", "transform": "r2c", "length": 2048)",
                                                            32}};
  for (const auto& [body, fewThreads] : bodies)
    for (const char* tuningText : tunings) {
      Json tuningJson = Json::parse(std::string(tuningText) == "FEW_THREADS"
                                        ? fmt::format(R"({{"threads_per_fft": {}}})", fewThreads)
                                        : std::string(tuningText));
      if (!tuningJson.contains("persistent")) tuningJson["persistent"] = true;
      const std::string tuning = tuningJson.dump();
      StockhamSpec s = spec(
          fmt::format(R"({{"name": "tuned", "family": "stockham", {}, "tuning": {}}})", body, tuning));
      const long long batch = (1LL << 22) / s.points() + 3;
      RunReport r = run(c, s, batch, 41);
      t.add(r, fmt::format("{} tuning {} batch {}", body, tuning, batch));
      std::printf("[gpu-stockham] %-60s %-50s err %.3e (cuFFT %.3e) unwritten %lld\n", body.c_str(), tuning.c_str(),
                  r.check.error, r.baselineError, r.check.unwritten);
    }
  report("tuning variants at large batch", t);
}

TEST_F(GpuStockham, EveryLayoutOption) {
  Compiler c;
  Tally t;
  std::vector<std::pair<std::string, std::string>> cases = {
      {"strided out of place",
       R"("length": 360, "direction": "inverse", "input": {"stride": 3, "distance": 1100, "offset": 5}, "output": {"stride": 2, "distance": 800, "offset": 7})"},
      {"interleaved batches in place",
       R"("length": 729, "placement": "in_place", "input": {"stride": 6, "distance": 1}, "output": {"stride": 6, "distance": 1})"},
      {"planar in and out", R"("length": 1024, "input": {"layout": "planar"}, "output": {"layout": "planar"})"},
      {"planar in, interleaved out", R"("length": 1000, "input": {"layout": "planar"})"},
      {"interleaved in, planar out, strided",
       R"("length": 2187, "input": {"stride": 2, "distance": 4374}, "output": {"layout": "planar", "distance": 3000})"},
      {"in place planar",
       R"("length": 4096, "placement": "in_place", "input": {"layout": "planar"}, "output": {"layout": "planar"})"},
      {"ci8 input", R"("length": 512, "input": {"type": "ci8"})"},
      {"ci8 planar input", R"("length": 1000, "input": {"type": "ci8", "layout": "planar"})"},
      {"ci4 input", R"("length": 256, "input": {"type": "ci4"})"},
      {"zero padded 256 of 512", R"("length": 512, "input": {"length": 256, "distance": 256})"},
      {"zero padded Bluestein", R"("length": 1009, "input": {"length": 100, "distance": 100})"},
      {"ci8 zero padded 2^20 (two kernels)", R"("length": 1048576, "input": {"type": "ci8", "length": 1000})"},
      {"large in place strided",
       R"("length": 65536, "placement": "in_place", "input": {"stride": 2, "distance": 131072, "offset": 1}, "output": {"stride": 2, "distance": 131072, "offset": 1})"},
      {"large Bluestein planar out", R"("length": 10007, "output": {"layout": "planar"})"},
      {"explicit factors", R"("length": 4096, "factors": [4, 4, 4, 4, 4, 4])"},
      {"r2c", R"("transform": "r2c", "length": 1024)"},
      {"r2c strided",
       R"("transform": "r2c", "length": 1000, "input": {"stride": 3, "distance": 3100}, "output": {"stride": 2, "distance": 1100, "offset": 4})"},
      {"r2c planar out", R"("transform": "r2c", "length": 8192, "output": {"layout": "planar"})"},
      {"c2r", R"("transform": "c2r", "length": 1024)"},
      {"c2r strided planar in",
       R"("transform": "c2r", "length": 1000, "input": {"layout": "planar", "stride": 2, "distance": 1100}, "output": {"stride": 3, "distance": 3000})"},
      {"c2r 4", R"("transform": "c2r", "length": 4)"},
      {"r2c 4", R"("transform": "r2c", "length": 4)"},
  };
  for (const char* prec : {"f32", "f64", "f16"})
    for (const auto& [label, body] : cases) {
      StockhamSpec s = spec(
          fmt::format(R"({{"name": "layout", "family": "stockham", "precision": "{}", {}}})", prec, body));
      RunReport r = run(c, s, 6, 31);
      t.add(r, fmt::format("{} {}", prec, label));
      std::printf("[gpu-stockham] %s %-40s err %.3e (cuFFT %.3e) unwritten %lld\n", prec, label.c_str(), r.check.error,
                  r.baselineError, r.check.unwritten);
    }
  report("layout options", t);
}

// Batched throughput against cuFFT in the same process (medians of 25), as recorded in bench/RESULTS.md.
TEST_F(GpuStockham, BenchAgainstCufft) {
  Compiler c;
  struct Case {
    std::string label, body;
  };
  std::vector<Case> cases;
  for (const char* prec : {"f32", "f16"}) {
    for (int n = 64; n <= 16384; n *= 2)
      cases.push_back({fmt::format("c2c {} {}", prec, n), fmt::format(R"("precision": "{}", "length": {})", prec, n)});
    for (int n : {1000, 2187, 3125, 2401, 1331})
      cases.push_back({fmt::format("c2c {} {}", prec, n), fmt::format(R"("precision": "{}", "length": {})", prec, n)});
  }
  for (int n = 128; n <= 8192; n *= 4)
    cases.push_back(
        {fmt::format("r2c f32 {}", n), fmt::format(R"("precision": "f32", "transform": "r2c", "length": {})", n)});
  std::vector<Case> fused = {
      {"fused ci8 -> f32 c2c 1024", R"("precision": "f32", "length": 1024, "input": {"type": "ci8"})"},
      {"fused ci4 -> f32 c2c 4096", R"("precision": "f32", "length": 4096, "input": {"type": "ci4"})"},
      {"fused zero pad 256 -> 512 f32",
       R"("precision": "f32", "length": 512, "input": {"length": 256, "distance": 256})"},
      {"fused ci8 + zero pad 256 -> 512 f16",
       R"("precision": "f16", "length": 512, "input": {"type": "ci8", "length": 256, "distance": 256})"},
  };
  double logSum = 0, fusedLogSum = 0;
  int count = 0, fusedCount = 0;
  auto runCase = [&](const Case& cs, bool isFused) {
    StockhamSpec s = spec(fmt::format(R"({{"name": "bench", "family": "stockham", {}}})", cs.body));
    long long batch = std::max<long long>(1, (1LL << 25) / s.points());
    RunReport r = run(c, s, batch, 5, 25);
    EXPECT_EQ(r.check.unwritten, 0) << cs.label;
    EXPECT_LE(r.check.error, r.check.bound) << cs.label;
    double ratio = r.baselineMs > 0 ? r.baselineMs / r.ourMs : 0;
    const double copyGBs = r.copyMs > 0 ? r.bytes / (r.copyMs * 1e-3) / 1e9 : 0;
    // The copy moves the bytes of *our* arrays; for the fused cases cuFFT moves more than that.
    const std::string cu = r.baselineMs > 0 ? fmt::format("cuFFT {:.4f} ms | ratio {:.2f}x", r.baselineMs, ratio)
                                            : "no cuFFT for this case";
    const std::string cuCopy = r.baselineMs > 0 ? fmt::format(" cuFFT {:3.0f}%", 100 * r.copyMs / r.baselineMs) : "";
    std::printf(
        "[bench-stockham] %-36s batch %8lld: ours %.4f ms %5.0f GB/s %.3g FFT/s | %s | copy %5.0f GB/s: ours %3.0f%%%s "
        "| err %.2e (cuFFT %.2e)\n",
        cs.label.c_str(), batch, r.ourMs, r.bytes / (r.ourMs * 1e-3) / 1e9, batch / (r.ourMs * 1e-3), cu.c_str(),
        copyGBs, 100 * r.copyMs / r.ourMs, cuCopy.c_str(), r.check.error, r.baselineError);
    if (ratio > 0) {
      (isFused ? fusedLogSum : logSum) += std::log(ratio);
      ++(isFused ? fusedCount : count);
    }
  };
  for (const auto& cs : cases) runCase(cs, false);
  for (const auto& cs : fused) runCase(cs, true);
  std::printf("[bench-stockham] geometric mean vs cuFFT: %.3fx over %d plain cases; %.3fx over %d fused cases\n",
              std::exp(logSum / count), count, std::exp(fusedLogSum / std::max(1, fusedCount)), fusedCount);
}
