#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <regex>
#include <set>

#include "bench/Facets.h"
#include "generator/core/JsonReader.h"
#include "generator/emulate/Half.h"
#include "generator/emulate/Reference.h"
#include "generator/stockham/BluesteinLength.h"
#include "generator/stockham/Butterfly.h"
#include "generator/stockham/CoopRadix.h"
#include "generator/stockham/FactorizationModel.h"
#include "generator/stockham/LongFftFactors.h"
#include "generator/stockham/SpillFree.h"
#include "generator/stockham/StockhamEmitter.h"
#include "generator/stockham/StockhamFamily.h"
#include "generator/stockham/StockhamLaunch.h"
#include "generator/stockham/StockhamPlan.h"
#include "generator/stockham/StockhamSpec.h"
#include "generator/stockham/StockhamTune.h"
#include "generator/stockham/Twiddles.h"
#include "warpforge/compiler.h"
#include "warpforge/launch_plan.h"
#include "CudaOnCpu.h"
#include "TestUtil.h"

using namespace warpforge;

namespace {
Precision precisionOf(const std::string& p) {
  return p == "f16" ? Precision::F16 : p == "f32" ? Precision::F32 : Precision::F64;
}
std::string spec(long long n, const std::string& prec, const std::string& extra = "") {
  return fmt::format(R"({{"name": "s{}", "family": "stockham", "precision": "{}", "length": {}{}}})", n, prec, n,
                     extra);
}
std::pair<std::string, std::string> errorOf(const std::string& text) {
  try {
    parseStockhamSpecText(text, "s.json");
  } catch (const SpecError& e) {
    return {e.path(), e.detail()};
  }
  ADD_FAILURE() << "accepted: " << text;
  return {};
}
StockhamPlan plan(const std::string& text) { return planStockham(parseStockhamSpecText(text, "p.json"), "sm_90"); }

// Double-precision complex arithmetic: runs the butterfly generator numerically.
struct NumericOps {
  using C = std::complex<double>;
  int ops = 0;  // real multiplications
  C add(C a, C b) { return a + b; }
  C sub(C a, C b) { return a - b; }
  C neg(C a) { return -a; }
  C mulI(C a) { return {-a.imag(), a.real()}; }
  C scale(C a, double s) {
    ops += 2;
    return a * s;
  }
  C mulConst(C a, double re, double im) {
    ops += 4;
    return a * C(re, im);
  }
};

// The kernel's radix passes in double, as the emitter orders them: pass p (sub-transforms ns, radix R) takes
// x[j + r N / R] times table[offset_p + (r - 1) ns + j % ns] and writes y[(j / ns) ns R + j % ns + r ns].
std::vector<cdouble> stockhamPasses(const std::vector<int>& factors, const std::vector<std::complex<double>>& tab,
                                    int sign, std::vector<cdouble> x) {
  const int n = static_cast<int>(x.size());
  const std::vector<long long> off = twiddleOffsets(factors);
  std::vector<cdouble> y(n);
  long long ns = 1;
  for (std::size_t p = 0; p < factors.size(); ++p) {
    const int R = factors[p], B = n / R;
    for (int j = 0; j < B; ++j) {
      std::vector<cdouble> in(R);
      const long long k = j % ns;
      for (int r = 0; r < R; ++r)
        in[r] = x[j + r * B] * (r > 0 && ns > 1 ? tab[off[p] + (r - 1) * ns + k] : cdouble(1));
      NumericOps ops;
      DftBuilder<NumericOps> b(ops, sign);
      const std::vector<cdouble> out = b.dft(in);
      for (int r = 0; r < R; ++r) y[(j / ns) * ns * R + k + r * ns] = out[r];
    }
    std::swap(x, y);
    ns *= R;
  }
  return x;
}

// Generated CUDA made host C++ for tests/CudaOnCpu.h: the f16 storage conversions through the host compiler's
// _Float16 (IEEE binary16, round to nearest even, as cuda_fp16.h's _rn conversions), and the opaque thread-index read
// (indexPerGroup) as a plain one.
// The cp.async helpers of a kernel that copies its next group during the last pass (KernelGeometry::prefetch) on
// tests/CudaOnCpu.h's emulation: a copy lands at its wait, its destination poisoned until then.
std::vector<std::pair<std::string, std::string>> asyncCopyShim() {
  return {{"wf_copy_async8",
           "static inline void wf_copy_async8(void* dst, const void* src, bool valid) { wf_cp_async(dst, src, 8, "
           "valid); }"},
          {"wf_copy_async16",
           "static inline void wf_copy_async16(void* dst, const void* src, bool valid) { wf_cp_async(dst, src, 16, "
           "valid); }"},
          {"wf_copy_commit", "static inline void wf_copy_commit() { wf_cp_commit(); }"},
          {"wf_copy_wait_all", "static inline void wf_copy_wait_all() { wf_cp_commit(); wf_cp_wait(0); }"}};
}

std::string cpuRunnableSource(std::string src) {
  src = test::withHostHalf(std::move(src));
  const std::string asmIndex = "asm volatile(\"mov.u32 %0, %%tid.x;\" : \"=r\"(t));";
  if (const auto at = src.find(asmIndex); at != std::string::npos)
    src.replace(at, asmIndex.size(), "t = (int)threadIdx.x;");
  return src;
}
}  // namespace

TEST(Stockham, Factorization) {
  // The greedy rule (largest odd radices first), kept for powers of two and near-ties.
  EXPECT_EQ(factorizeStockhamGreedy(1000), (std::vector<int>{25, 8, 5}));
  EXPECT_EQ(factorizeStockhamGreedy(1000, 13), (std::vector<int>{8, 5, 5, 5}));  // f64: no composite odd radices
  EXPECT_EQ(factorizeStockhamGreedy(2187), (std::vector<int>{27, 27, 3}));
  EXPECT_EQ(factorizeStockhamGreedy(2 * 49 * 27 * 16), (std::vector<int>{27, 8, 7, 7, 4}));
  EXPECT_EQ(factorizeStockhamGreedy(23 * 27 * 8), (std::vector<int>{27, 23, 8}));
  // The cost model: near-uniform radices, at most a few butterflies per thread in any pass.
  EXPECT_EQ(factorizeStockham(1000), (std::vector<int>{10, 10, 10}));
  EXPECT_EQ(factorizeStockham(100),
            (std::vector<int>{10, 10}));  // was 25 x 4: 7 radix-4 butterflies per thread, 117 registers
  EXPECT_EQ(factorizeStockham(6561), (std::vector<int>{9, 9, 9, 9}));  // was 27 x 27 x 9 on 243 threads
  EXPECT_EQ(factorizeStockham(2187), (std::vector<int>{9, 9, 9, 3}));
  EXPECT_EQ(factorizeStockham(48), (std::vector<int>{8, 6}));  // was 16 x 3 (18 values on 3 threads, 96 registers)
  EXPECT_EQ(factorizeStockham(4096), (std::vector<int>{16, 16, 16}));
  EXPECT_EQ(factorizeStockham(1331), (std::vector<int>{11, 11, 11}));
  EXPECT_EQ(factorizeStockham(1), (std::vector<int>{}));
  // Powers of two spread evenly over the fewest radix-16 passes (no radix-2/4 tail).
  EXPECT_EQ(factorizeStockham(64), (std::vector<int>{8, 8}));
  EXPECT_EQ(factorizeStockham(512), (std::vector<int>{8, 8, 8}));
  EXPECT_EQ(factorizeStockham(8192), (std::vector<int>{16, 8, 8, 8}));
  EXPECT_EQ(factorizeStockham(1024, 13), (std::vector<int>{8, 8, 4, 4}));  // f64: radix <= 8 for powers of two
  // Radix 49 only where asked for (about 250 registers per thread).
  EXPECT_EQ(factorizeStockham(2401), (std::vector<int>{7, 7, 7, 7}));
  EXPECT_EQ(factorizeStockhamGreedy(2401, 49), (std::vector<int>{49, 49}));
  EXPECT_EQ(factorizeStockham(2401, 49),
            (std::vector<int>{49, 49}));                        // large kernels: at most one pass more than greedy
  EXPECT_THROW(factorizeStockham(131), std::invalid_argument);  // above the cooperative radices: Bluestein
  // 37..127: cooperative passes (CoopRadix.h); f64 from 29 (its thread butterflies stop at 23).
  EXPECT_EQ(factorizeStockham(37), (std::vector<int>{37}));
  EXPECT_TRUE(isCoopSmooth(37 * 2 * 127));
  EXPECT_FALSE(isCoopSmooth(131 * 2));
  EXPECT_TRUE(isCoopSmooth(29, maxPrimeRadix(Precision::F64)));
  EXPECT_FALSE(isCoopRadix(31, maxPrimeRadix(Precision::F32)));
  EXPECT_TRUE(isCoopRadix(31, maxPrimeRadix(Precision::F64)));
  {
    const auto p = plan(spec(10175, "f32"));  // 37 x 25 x 11: one kernel, the cooperative pass first (no twiddles)
    ASSERT_EQ(p.kernels.size(), 1u);
    EXPECT_FALSE(p.kernels[0].desc.convolve);
    EXPECT_EQ(p.kernels[0].desc.factors.front(), 37);
  }
  // Longer than one kernel: a two-kernel plan with the cooperative pass in one of its kernels, not a four-kernel
  // Bluestein convolution (f64 13583 = 17^2 x 47: 17 columns, rows of 799 = 47 x 17; f32 37 x 2^15; f64 15717 =
  // 3 x 13^2 x 31 and 5487 = 3 x 31 x 59 with f64's cooperative 31).
  for (const auto& [n, precision] : {std::pair<long long, const char*>{37 * 32768, "f32"},
                                     {13583, "f64"},
                                     {8509, "f64"},
                                     {15717, "f64"},
                                     {5487, "f64"}}) {
    const auto p = plan(spec(n, precision));
    ASSERT_EQ(p.kernels.size(), 2u) << n;
    bool coop = false;
    for (const auto& k : p.kernels) {
      EXPECT_FALSE(k.desc.convolve) << n;
      for (int r : k.desc.factors) coop = coop || isCoopRadix(r, maxPrimeRadix(precisionOf(precision)));
    }
    EXPECT_TRUE(coop) << n;
  }
  // A prime above 127 keeps Bluestein (f64 9738 = 2 x 3^2 x 541: four kernels past the one-kernel convolution).
  EXPECT_EQ(plan(spec(9738, "f64")).kernels.size(), 4u);
  EXPECT_TRUE(isSmooth(2 * 3 * 5 * 7 * 11 * 13));
  EXPECT_FALSE(isSmooth(37 * 2));
  // The primes 17..31 are radices at every precision (f64 keeps composites at 13 and below).
  EXPECT_EQ(factorizeStockham(17 * 19), (std::vector<int>{19, 17}));
  EXPECT_EQ(factorizeStockham(2 * 31 * 29, 13), (std::vector<int>{31, 29, 2}));
  EXPECT_TRUE(isSmooth(17 * 19 * 23 * 29 * 31LL));
  EXPECT_FALSE(
      isSmooth(29, maxPrimeRadix(Precision::F64)));  // f64 radix 29 spilled at 255 registers as one thread's butterfly:
  EXPECT_EQ(plan(spec(29 * 31, "f64")).kernels.size(), 1u);  // cooperative passes, no Bluestein convolution
  EXPECT_FALSE(plan(spec(29 * 31, "f64")).kernels[0].desc.convolve);
  EXPECT_EQ(plan(spec(29 * 31, "f64")).kernels[0].desc.factors, (std::vector<int>{31, 29}));
  EXPECT_EQ(plan(spec(29 * 31, "f32")).kernels.size(), 1u);
}

// The cost model never does worse than the greedy rule by its own estimate, keeps powers of two,
// holds few values per thread, and explicit factors in a spec are honoured.
TEST(Stockham, FactorizationCostModel) {
  for (bool f64 : {false, true}) {
    const int maxN = f64 ? 4096 : 16384, maxPrime = f64 ? 23 : 31, maxRadix = f64 ? 13 : 27;
    for (int n = 2; n <= maxN; ++n) {
      if (!isSmooth(n, maxPrime)) continue;
      const std::vector<int> f = factorizeStockham(n, maxRadix, maxPrime, f64),
                             g = factorizeStockhamGreedy(n, maxRadix, maxPrime);
      long long prod = 1;
      for (int r : f) prod *= r;
      ASSERT_EQ(prod, n) << n;
      ASSERT_TRUE(std::is_sorted(f.rbegin(), f.rend())) << n;
      if ((n & (n - 1)) == 0) EXPECT_EQ(f, g) << n;
      const FactorCost cf = factorizationCost(n, f, f64), cg = factorizationCost(n, g, f64);
      EXPECT_LE(cf.score, cg.score + 1e-12) << n;
      EXPECT_LE(cf.held, 64) << n;  // kStockhamMaxValuesPerThread
    }
  }
  EXPECT_EQ(factorizationCost(100, {25, 4}, false).iterations, 7);
  EXPECT_EQ(factorizationCost(100, {10, 10}, false).iterations, 1);
  EXPECT_EQ(plan(spec(100, "f32", R"(, "factors": [25, 4])")).kernels[0].desc.factors, (std::vector<int>{25, 4}));
  EXPECT_EQ(plan(spec(100, "f32")).kernels[0].desc.factors, (std::vector<int>{10, 10}));
  EXPECT_EQ(plan(spec(6561, "f32")).kernels[0].desc.factors, (std::vector<int>{9, 9, 9, 9}));
}

// The Stockham algorithm as the emitter writes it (butterfly j of pass p reads j + r L/R, multiplies
// by the table's W^(r k), k = j % ns, writes (j / ns) ns R + k + r ns), run in double over the
// default plan's factors: every cost-model factorization (mixed radices 6..21 in any position)
// is an exact DFT with the twiddle table the plan ships.
TEST(Stockham, ModelFactorizationsAreExactDfts) {
  std::vector<std::pair<int, std::string>> cases;
  for (int n = 2; n <= 400; ++n) cases.push_back({n, "f32"});
  for (int n : {625, 729, 1000, 1200, 2000, 2187, 3000, 4000, 6561, 7680, 9000, 10000, 12000, 12288})
    cases.push_back({n, "f32"});
  for (int n : {24, 48, 100, 200, 243, 1000, 1200, 2187, 3000, 4000}) cases.push_back({n, "f64"});
  int checked = 0;
  for (const auto& [n, prec] : cases) {
    if (!isSmooth(n, maxPrimeRadix(precisionOf(prec)))) continue;
    const KernelDesc d = plan(spec(n, prec)).kernels.at(0).desc;
    const std::vector<std::complex<double>> tab = twiddleTable(d.factors, -1);
    std::vector<cdouble> x = randomComplex(n, 7 + n);
    const std::vector<cdouble> ref = referenceDft(x, n, -1);
    x = stockhamPasses(d.factors, tab, -1, std::move(x));
    EXPECT_LT(relativeError(x, ref), 1e-13)
        << prec << " " << n << " as " << fmt::format("{}", fmt::join(d.factors, "x"));
    ++checked;
  }
  EXPECT_GT(checked, 200);
}

// Fused axes (KernelDesc::axes): the plane loaded digit-reversed, each axis's factors (fastest axis first) and
// twiddles, run as the kernel's passes in double, give the plane's D-dimensional DFT in row-major order. The
// digit reversal is written here independently of the emitter's; a table without the per-axis twiddles fails.
TEST(Stockham, FusedAxesPassesAreTheMultiDimensionalDft) {
  const std::vector<std::vector<int>> shapes{{20, 20},    {16, 16},    {3, 5},    {12, 40}, {64, 64},
                                             {9, 10, 11}, {17, 19, 8}, {8, 6, 4}, {2, 128}, {128, 2}};
  auto run = [](const KernelDesc& d, const std::vector<std::complex<double>>& tab, std::vector<cdouble> plane) {
    const int n = d.length, D = static_cast<int>(d.axes.size());
    std::vector<cdouble> x(n);
    for (int i = 0; i < n; ++i) {  // element (i_0 .. i_{D-1}) to sum_d i_d * (n_0 .. n_{d-1})
      long long rest = i, p = 0, weight = n;
      for (int a = D - 1; a >= 0; --a) {
        weight /= d.axes[a];
        p += (rest % d.axes[a]) * weight;
        rest /= d.axes[a];
      }
      x[p] = plane[i];
    }
    return stockhamPasses(d.factors, tab, d.sign, std::move(x));
  };
  for (const auto& shape : shapes)
    for (const char* prec : {"f64", "f32"}) {
      const std::string text = fmt::format(
          R"({{"name": "s", "family": "stockham", "precision": "{}", "lengths": [{}]}})", prec, fmt::join(shape, ", "));
      const StockhamPlan p = plan(text);
      const KernelDesc& d = p.kernels.at(0).desc;
      ASSERT_GE(d.axes.size(), 2u) << text;
      EXPECT_EQ(p.kernels.size(), shape.size() - d.axes.size() + 1) << text;
      const std::vector<int> inner(shape.end() - static_cast<long>(d.axes.size()), shape.end());
      EXPECT_EQ(d.axes, inner) << text;
      std::vector<cdouble> x = randomComplex(d.length, 31 + d.length);
      const std::vector<cdouble> ref = referenceDftNd(x, d.axes, d.sign);
      EXPECT_LT(relativeError(run(d, p.kernels[0].twiddles, x), ref), 1e-13)
          << text << " as " << fmt::format("{}", fmt::join(d.factors, "x"));
      // The one-axis table (twiddles across the axes) is a 1D FFT of the digit-reversed plane, not the D-dim DFT.
      EXPECT_GT(relativeError(run(d, twiddleTable(d.factors, d.sign), x), ref), 1e-3) << text;
    }
  // Not fused: a plane past one kernel, rows not dense in the input or the output, or tuning fuse_axes false.
  EXPECT_TRUE(
      plan(
          R"({"name": "s", "family": "stockham", "precision": "f32", "lengths": [12, 40], "output": {"strides": [41, 1], "distance": 500}})")
          .kernels.at(0)
          .desc.axes.empty());
  EXPECT_TRUE(plan(R"({"name": "s", "family": "stockham", "precision": "f32", "lengths": [1000, 64]})")
                  .kernels.at(0)
                  .desc.axes.empty());
  EXPECT_TRUE(
      plan(
          R"({"name": "s", "family": "stockham", "precision": "f32", "lengths": [12, 40], "input": {"strides": [90, 2]}})")
          .kernels.at(0)
          .desc.axes.empty());
  EXPECT_TRUE(
      plan(
          R"({"name": "s", "family": "stockham", "precision": "f32", "lengths": [20, 20], "tuning": {"fuse_axes": false}})")
          .kernels.at(0)
          .desc.axes.empty());
  EXPECT_EQ(plan(R"({"name": "s", "family": "stockham", "precision": "f64", "lengths": [64, 64, 64]})").kernels.size(),
            2u);  // 64 x 64 fused, then axis 0
}

// The tuner's search without a GPU: a fake timer that prefers plans with more kernels. On a Bluestein length (one
// convolution kernel) it must not try the spec's "factors" (c2c f64 1532 would stop with a spec error
// there); on a 2D shape the winner (one kernel per axis) must come back as tuning fuse_axes false.
TEST(Stockham, TunerSearchesBluesteinAndFusedAxesSpecs) {
  struct MoreKernelsFaster : TuneTimer {
    std::vector<double> time(const std::vector<Generated>& c, std::vector<std::string>*) override {
      std::vector<double> ms;
      for (const auto& g : c)
        ms.push_back(1.0 / static_cast<double>(g.plan.kernels.size()) + 1e-3 * static_cast<double>(ms.size()));
      return ms;
    }
    std::string arch() override { return "sm_90"; }
    CompileProbe* probe() override { return nullptr; }
  } timer;
  const TuneOutcome blue = tuneStockham(parseStockhamSpecText(spec(1532, "f64"), "t.json"), timer);
  EXPECT_FALSE(blue.specMembers.contains("factors"));
  EXPECT_GT(blue.trials.size(), 10u);
  for (const auto& t : blue.trials) EXPECT_TRUE(t.error.empty()) << t.stage << ": " << t.error;
  const TuneOutcome plane = tuneStockham(
      parseStockhamSpecText(R"({"name": "t", "family": "stockham", "precision": "f32", "lengths": [20, 20]})",
                            "t.json"),
      timer);
  EXPECT_EQ(plane.specMembers["tuning"].value("fuse_axes", true), false) << plane.specMembers.dump();
  EXPECT_LT(plane.trials[plane.best].ms, plane.trials[plane.baseline].ms);
}

// A length with a cooperative prime takes Bluestein where the tuning names a rule ("smooth", "power_of_two" or a
// length), else the cooperative passes; the tuner tries both and reports a Bluestein winner as "bluestein".
TEST(Stockham, CooperativeLengthsTakeBluesteinWhereTheTuningAsks) {
  auto convolves = [](const std::string& text) {
    return planStockham(parseStockhamSpecText(text, "b.json"), "sm_90", false).kernels.at(0).desc.convolve;
  };
  EXPECT_FALSE(convolves(spec(87, "f64")));  // 29 x 3
  EXPECT_TRUE(convolves(spec(87, "f64", R"(, "tuning": {"bluestein": "smooth"})")));
  EXPECT_FALSE(convolves(spec(4087, "f32")));  // 61 x 67
  EXPECT_TRUE(convolves(spec(4087, "f32", R"(, "tuning": {"bluestein": "power_of_two"})")));
  EXPECT_TRUE(convolves(spec(4087, "f32", R"(, "tuning": {"bluestein": 8192})")));
  struct ConvolutionFaster : TuneTimer {
    std::vector<double> time(const std::vector<Generated>& c, std::vector<std::string>*) override {
      std::vector<double> ms;
      for (const auto& g : c)
        ms.push_back((g.plan.sources.at(0).text.find("Bluestein") != std::string::npos ? 0.5 : 1.0) +
                     1e-3 * static_cast<double>(ms.size()));
      return ms;
    }
    std::string arch() override { return "sm_90"; }
    CompileProbe* probe() override { return nullptr; }
  } timer;
  const TuneOutcome t = tuneStockham(parseStockhamSpecText(spec(4087, "f32"), "t.json"), timer);
  EXPECT_EQ(t.specMembers["tuning"].value("bluestein", ""), "smooth") << t.specMembers.dump();
  EXPECT_FALSE(t.specMembers.contains("factors"));
  for (const auto& trial : t.trials) EXPECT_TRUE(trial.error.empty()) << trial.stage << ": " << trial.error;
}

// The f32 threshold of the factorization model (3.5 % in plain f32 row kernels, 10 % elsewhere): c2c f32 425 takes
// 17 x 5 x 5 (1.35x as fast as 25 x 17 on an H200); f64 425 keeps the greedy rule.
TEST(Stockham, PlainF32KernelsTakeTheModelsFactorsFromASmallerGain) {
  EXPECT_EQ(factorizeStockham(425, 27, 31, false, false, true), (std::vector<int>{17, 5, 5}));
  EXPECT_EQ(factorizeStockham(425, 27, 31, false, false, false), (std::vector<int>{25, 17}));
  EXPECT_EQ(plan(spec(425, "f32")).kernels.at(0).desc.factors, (std::vector<int>{17, 5, 5}));
  EXPECT_EQ(plan(spec(425, "f64")).kernels.at(0).desc.factors, factorizeStockhamGreedy(425, 13, 23));
}

// f32 r2c past one kernel: the longer side of the half as its columns, where the sides are within 2x and the longer
// is of radix primes; a given split, c2r, f64 and lopsided splits keep the rule (the largest divisor up to sqrt).
TEST(Stockham, LongF32R2cTakesTheLongerSideAsColumns) {
  auto columns = [](const std::string& text) { return plan(text).kernels.at(0).desc.length; };
  EXPECT_EQ(columns(spec(16777216, "f32", R"(, "transform": "r2c")")), 4096);  // half 2^23 = 4096 x 2048
  EXPECT_EQ(columns(spec(4194304, "f32", R"(, "transform": "r2c")")), 2048);   // half 2^21 = 2048 x 1024
  EXPECT_EQ(columns(spec(16777216, "f32", R"(, "transform": "r2c", "tuning": {"split": 2048})")), 2048);
  EXPECT_EQ(columns(spec(16777216, "f32", R"(, "transform": "c2r")")), 2048);
  EXPECT_EQ(columns(spec(8388608, "f64", R"(, "transform": "r2c")")), 2048);  // half 2^22: square either way
  EXPECT_EQ(columns(spec(4194304, "f64", R"(, "transform": "r2c")")), 1024);  // f64 keeps the rule
  // L = 2 x 73 x 113 (N = 32996 past one kernel): the rule's columns of 2; 8249 is neither within 2x nor radix-smooth.
  const StockhamPlan lopsided = plan(
      spec(32996, "f32", R"(, "transform": "r2c", "tuning": {"real_split": "mirrored"})"));
  EXPECT_EQ(lopsided.kernels.at(0).desc.length, 2);
}

// A spec the tuner prints parses: f64 87 = 29 x 3 takes one kernel with 29 as a cooperative prime, which "factors"
// cannot name, so the tuner neither varies nor records factors there (a winner with "factors": [29, 3] was refused
// by the parse of the tuned spec). With a timer that prefers the last candidate, every stage's last one wins.
TEST(Stockham, TunedSpecOfACooperativePrimeLengthParses) {
  struct LastFaster : TuneTimer {
    std::vector<double> time(const std::vector<Generated>& c, std::vector<std::string>*) override {
      std::vector<double> ms;
      for (std::size_t i = 0; i < c.size(); ++i) ms.push_back(1.0 - 1e-3 * static_cast<double>(i));
      return ms;
    }
    std::string arch() override { return "sm_90"; }
    CompileProbe* probe() override { return nullptr; }
  } timer;
  for (const char* precision : {"f64", "f32"}) {
    const std::string text = spec(87, precision);
    const TuneOutcome t = tuneStockham(parseStockhamSpecText(text, "t.json"), timer);
    EXPECT_EQ(t.specMembers.contains("factors"), std::string(precision) == "f32") << t.specMembers.dump();
    Json tuned = Json::parse(text);
    for (auto it = t.specMembers.begin(); it != t.specMembers.end(); ++it) tuned[it.key()] = it.value();
    EXPECT_NO_THROW(parseStockhamSpecText(tuned.dump(), "tuned.json")) << tuned.dump();
  }
}

// A spec the tuner prints rebuilds the plan it timed where the plan's kernels ran different geometries: c2c f32 2^21
// as 512-point columns (32 threads per FFT) and 4096-point rows. The columns' thread count asked of both kernels would
// leave the rows 128 values per thread, past the limit of 64 (bench --tune on an H200 printed such a spec and recorded
// it as wisdom); such candidates are recorded as asked.
TEST(Stockham, TunedSpecOfATwoKernelPlanRebuildsWhatWasTimed) {
  struct Split512Faster : TuneTimer {
    std::vector<std::pair<double, std::string>> timed;  // (ms, the plan's sources)
    std::vector<double> time(const std::vector<Generated>& c, std::vector<std::string>*) override {
      std::vector<double> ms;
      for (std::size_t i = 0; i < c.size(); ++i) {
        const std::string& k0 = c[i].plan.sources.at(0).text;
        ms.push_back((k0.find("C2C of length 512 =") != std::string::npos ? 0.5 : 1.0) -
                     (k0.find("Block: 256 threads = 32 per FFT") != std::string::npos ? 0.25 : 0.0) -
                     1e-3 * static_cast<double>(timed.size()));
        std::string all;
        for (const auto& src : c[i].plan.sources) all += src.text;
        timed.push_back({ms.back(), all});
      }
      return ms;
    }
    std::string arch() override { return "sm_90"; }
    CompileProbe* probe() override { return nullptr; }
  } timer;
  const std::string text = spec(2097152, "f32");
  const TuneOutcome t = tuneStockham(parseStockhamSpecText(text, "t.json"), timer);
  EXPECT_EQ(t.specMembers["tuning"].value("split", 0), 512) << t.specMembers.dump();
  EXPECT_NE(t.trials[t.best].geometry.find("8x8x8 = 32x8 thr"), std::string::npos) << t.trials[t.best].geometry;
  Json tuned = Json::parse(text);
  for (auto it = t.specMembers.begin(); it != t.specMembers.end(); ++it) tuned[it.key()] = it.value();
  const StockhamSpec replay = parseStockhamSpecText(tuned.dump(), "t.json");
  std::string rebuilt;
  ASSERT_NO_THROW({
    for (const auto& src : buildStockham(replay, "sm_90", nullptr).launchPlan(replay).sources) rebuilt += src.text;
  }) << tuned.dump();
  const auto best = std::min_element(timer.timed.begin(), timer.timed.end());
  ASSERT_NE(best, timer.timed.end());
  EXPECT_NEAR(best->first, t.trials[t.best].ms, 1e-12);
  EXPECT_TRUE(rebuilt == best->second) << "the tuned spec must rebuild the kernels timed fastest: " << tuned.dump();
}

// The tuner tries a cooperative prime both ways and records the cooperative winner as streamed_prime false (f64 87 =
// 29 x 3 streams by default).
TEST(Stockham, TunerRecordsTheCooperativePass) {
  struct CooperativeFaster : TuneTimer {
    std::vector<double> time(const std::vector<Generated>& c, std::vector<std::string>*) override {
      std::vector<double> ms;
      for (std::size_t i = 0; i < c.size(); ++i)
        ms.push_back((c[i].plan.sources.at(0).text.find("cooperatively") != std::string::npos ? 0.5 : 1.0) +
                     1e-3 * static_cast<double>(i));
      return ms;
    }
    std::string arch() override { return "sm_90"; }
    CompileProbe* probe() override { return nullptr; }
  } timer;
  const TuneOutcome t = tuneStockham(parseStockhamSpecText(spec(87, "f64"), "t.json"), timer);
  EXPECT_EQ(t.specMembers["tuning"].value("streamed_prime", true), false) << t.specMembers.dump();
  EXPECT_EQ(t.trials[t.baseline].ms, 1.0) << "the default streams";
}

// The tuner's real_split stage: with a fake timer that prefers more kernels, r2c 32768 (default: one kernel of 16384,
// the split fused) comes back as real_split "kernel" (the FFT of 16384, then a split kernel), the first of the
// two-kernel forms.
TEST(Stockham, TunerRecordsTheRealSplit) {
  struct MoreKernelsFaster : TuneTimer {
    std::vector<double> time(const std::vector<Generated>& c, std::vector<std::string>*) override {
      std::vector<double> ms;
      for (const auto& g : c)
        ms.push_back(10.0 - static_cast<double>(g.plan.kernels.size()) + 1e-3 * static_cast<double>(ms.size()));
      return ms;
    }
    std::string arch() override { return "sm_90"; }
    CompileProbe* probe() override { return nullptr; }
  } timer;
  EXPECT_EQ(plan(spec(32768, "f32", R"(, "transform": "r2c")")).kernels.size(), 1u);
  const TuneOutcome real = tuneStockham(parseStockhamSpecText(spec(32768, "f32", R"(, "transform": "r2c")"), "t.json"),
                                        timer);
  EXPECT_EQ(real.specMembers["tuning"].value("real_split", ""), "kernel") << real.specMembers.dump();
  EXPECT_EQ(plan(spec(32768, "f32", R"(, "transform": "r2c", "tuning": {"real_split": "kernel"})")).kernels.size(), 2u);
}

// Tuning column_values: the column tiles of a two-kernel plan hold at most that many values per thread.
TEST(Stockham, ColumnValuesTuning) {
  const StockhamPlan a = plan(spec(1 << 20, "f32")),
                     b = plan(spec(1 << 20, "f32", R"(, "tuning": {"column_values": 16})"));
  ASSERT_EQ(a.kernels.size(), 2u);
  ASSERT_EQ(b.kernels.size(), 2u);
  EXPECT_EQ(emitStockhamKernel(a.kernels[0].desc).geom.threadsPerFft, 32);  // 1024 / 32 values
  EXPECT_EQ(emitStockhamKernel(b.kernels[0].desc).geom.threadsPerFft, 64);
  EXPECT_EQ(stockhamTuningMembers({}, b.kernels[0].desc.tuning)["tuning"]["column_values"], 16);
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "tuning": {"column_values": 0})")).first, "/tuning/column_values");
}

// Column tiles of 625 = 5^4 (390625 = 625 x 625) take a thread per radix-5 butterfly: 125 threads per FFT, where 8
// values per thread would leave 79 threads two rounds of butterflies with the second part idle. The tile's rows stay
// whole 64-byte runs (f32: 8 FFTs side by side; f64: 4).
TEST(Stockham, PowerOfFiveColumnsTakeAThreadPerButterfly) {
  for (const char* precision : {"f32", "f64"}) {
    const StockhamPlan p = plan(spec(390625, precision));
    ASSERT_EQ(p.kernels.size(), 2u) << precision;
    for (const auto& k : p.kernels) {
      const KernelGeometry g = emitStockhamKernel(k.desc).geom;
      EXPECT_EQ(g.threadsPerFft, 125) << precision;
      EXPECT_GE(g.fftsPerBlock * (std::string(precision) == "f64" ? 16 : 8), 64) << precision;
    }
  }
}

// f64 Bluestein convolutions of up to 256 threads take 80 registers (768 resident threads per SM); longer ones keep
// their target (4096 points: 512 threads at 64).
TEST(Stockham, F64ConvolutionKernelsKeepThreeBlocksResident) {
  auto convolutionTarget = [](long long n) {
    for (const auto& k : plan(spec(n, "f64", R"(, "tuning": {"bluestein": "power_of_two"})")).kernels)
      if (k.desc.convolve) return emitStockhamKernel(k.desc).geom.registerTarget;
    return -1;
  };
  EXPECT_EQ(convolutionTarget(211), 80);   // 512 points, 128 threads
  EXPECT_EQ(convolutionTarget(647), 80);   // 2048 points, 256 threads
  EXPECT_EQ(convolutionTarget(1194), 64);  // 4096 points, 512 threads
}

// Every radix, both directions, against a DFT in double; and the butterflies
// are cheap: fewer real multiplications than the naive 4 R^2.
TEST(Stockham, ButterfliesAreExactDfts) {
  for (int R : {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 23, 25, 27, 29, 31, 49})
    for (int sign : {-1, +1}) {
      NumericOps ops;
      DftBuilder<NumericOps> b(ops, sign);
      std::vector<cdouble> x = randomComplex(R, 100 + R);
      std::vector<cdouble> y = b.dft(x);
      std::vector<cdouble> ref = referenceDft(x, R, sign);
      EXPECT_LT(relativeError(y, ref), 1e-15) << "radix " << R << " sign " << sign;
      EXPECT_LT(ops.ops, 4 * R * R / 2) << "radix " << R;
    }
  NumericOps ops;
  DftBuilder<NumericOps> b(ops, -1);
  b.dft(randomComplex(16, 1));
  EXPECT_LE(ops.ops, 48) << "radix 16 as 4 x 4 needs 2 eighth-turn scales per column plus 3 general rotations";
}

TEST(Stockham, SpecErrorsNameThePath) {
  EXPECT_EQ(errorOf(spec(64, "f8")).first, "/precision");
  EXPECT_EQ(errorOf(spec((1LL << 26) + 1, "f32")).first, "/length");
  EXPECT_EQ(errorOf(spec((1LL << 24) + 1, "f64")).first, "/length");
  EXPECT_NE(errorOf(spec(33554467, "f32")).second.find("Bluestein"),
            std::string::npos);  // prime, convolution of 2^26 too long
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "factors": [8, 4])")).first, "/factors");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "factors": [8, 6, 2])")).first, "/factors/2");  // any radix to 32; 96 > 64
  EXPECT_EQ(errorOf(spec(66, "f32", R"(, "factors": [2, 33])")).first, "/factors/1");
  EXPECT_NO_THROW(parseStockhamSpecText(spec(48, "f32", R"(, "factors": [12, 4])"), "ok.json"));
  EXPECT_EQ(errorOf(spec(37, "f32", R"(, "factors": [37])")).first, "/factors");
  // Factors up to the longest one kernel takes (sm_90: f32 27225, f64 12856); an arch whose shared memory keeps the
  // length in two kernels refuses them naming /factors.
  EXPECT_NO_THROW(parseStockhamSpecText(spec(19683, "f32", R"(, "factors": [27, 27, 27])"), "ok.json"));
  EXPECT_EQ(errorOf(spec(28672, "f32", R"(, "factors": [16, 16, 16, 7])")).first, "/factors");
  EXPECT_EQ(errorOf(spec(13122, "f64", R"(, "factors": [9, 9, 9, 9, 2])")).first, "/factors");
  try {
    planStockham(parseStockhamSpecText(spec(20736, "f32", R"(, "factors": [16, 16, 9, 9])"), "long.json"), "sm_80");
    ADD_FAILURE() << "20736 is two kernels on sm_80: its factors cannot hold";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.path(), "/factors");
    EXPECT_NE(std::string(e.what()).find("sm_80"), std::string::npos) << e.what();
  }
  EXPECT_EQ(planStockham(parseStockhamSpecText(spec(20736, "f32", R"(, "factors": [16, 16, 9, 9])"), "long.json"),
                         "sm_90")
                .kernels.at(0)
                .desc.factors,
            (std::vector<int>{16, 16, 9, 9}));
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "direction": "sideways")")).first, "/direction");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "input": {"stride": 0})")).first, "/input/stride");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "placement": "in_place", "output": {"stride": 2})")).first, "/output");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "tiling": 3)")).first, "/tiling");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "input": {"type": "ci2"})")).first, "/input/type");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "input": {"length": 65})")).first, "/input/length");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "output": {"type": "ci8"})")).first, "/output/type");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "input": {"layout": "blocked"})")).first, "/input/layout");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "transform": "r2c", "direction": "inverse")")).first, "/direction");
  // Real lengths run to 2^24 (f16, f32) and 2^23 (f64), odd ones included; past that the error names the limit.
  EXPECT_NO_THROW(parseStockhamSpecText(spec(63, "f32", R"(, "transform": "r2c")"), "s.json"));
  EXPECT_NO_THROW(parseStockhamSpecText(spec(16386, "f64", R"(, "transform": "r2c")"), "s.json"));
  EXPECT_EQ(errorOf(spec((1 << 24) + 2, "f32", R"(, "transform": "c2r")")).first, "/length");
  EXPECT_EQ(errorOf(spec((1 << 23) + 2, "f64", R"(, "transform": "r2c")")).first, "/length");
  EXPECT_NE(
      errorOf(spec((1 << 23) + 2, "f64", R"(, "transform": "r2c")")).second.find("r2c lengths run to 8388608 in f64"),
      std::string::npos);
  // f16 real transforms run to 2^24 both ways.
  EXPECT_NO_THROW(parseStockhamSpecText(spec(16386, "f16", R"(, "transform": "c2r")"), "s.json"));
  EXPECT_NO_THROW(parseStockhamSpecText(spec(1 << 24, "f16", R"(, "transform": "c2r")"), "s.json"));
  EXPECT_NO_THROW(parseStockhamSpecText(spec(1 << 20, "f16", R"(, "transform": "r2c")"), "s.json"));
  EXPECT_EQ(errorOf(spec((1 << 24) + 2, "f16", R"(, "transform": "c2r")")).first, "/length");
  // An odd prime past Bluestein's convolution limit (the complex FFT of N itself).
  EXPECT_EQ(errorOf(spec(16777213, "f32", R"(, "transform": "r2c")")).first, "/length");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "transform": "r2c", "input": {"layout": "planar"})")).first, "/input/layout");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "transform": "c2r", "placement": "in_place")")).first, "/placement");
  EXPECT_EQ(errorOf(R"({"name": "x", "family": "stockham", "precision": "f32", "lengths": [2, 3, 4, 5]})").first,
            "/lengths");
  // Axes of any length (Bluestein per axis), to 16384 (f64 4096) each.
  EXPECT_NO_THROW(
      parseStockhamSpecText(R"({"name": "x", "family": "stockham", "precision": "f32", "lengths": [37, 4]})",
                            "s.json"));
  EXPECT_EQ(errorOf(
                R"({"name": "x", "family": "stockham", "precision": "f64", "transform": "r2c", "lengths": [4, 4097]})")
                .first,
            "/lengths/1");
  EXPECT_EQ(
      errorOf(
          R"({"name": "x", "family": "stockham", "precision": "f32", "lengths": [8, 4], "input": {"strides": [1]}})")
          .first,
      "/input/strides");
  EXPECT_EQ(errorOf(R"({"name": "x", "family": "stockham", "precision": "f32", "length": 8, "lengths": [8]})").first,
            "/length");
  {  // "length" with an array names "lengths"
    const auto e = errorOf(R"({"name": "x", "family": "stockham", "precision": "f32", "length": [512, 512]})");
    EXPECT_EQ(e.first, "/length");
    EXPECT_NE(e.second.find("\"lengths\""), std::string::npos) << e.second;
  }
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "tuning": 3)")).first, "/tuning");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "tuning": {"threads_per_fft": 0})")).first, "/tuning/threads_per_fft");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "tuning": {"block_threads": 2048})")).first, "/tuning/block_threads");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "tuning": {"register_target": 16})")).first, "/tuning/register_target");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "tuning": {"direct_load": 1})")).first, "/tuning/direct_load");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "tuning": {"warps": 4})")).first, "/tuning/warps");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "tuning": {"index_per_group": "yes"})")).first, "/tuning/index_per_group");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "tuning": {"derive_twiddles": 0})")).first, "/tuning/derive_twiddles");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "tuning": {"work_queue": "yes"})")).first, "/tuning/work_queue");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "tuning": {"prefetch": 1})")).first, "/tuning/prefetch");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "tuning": {"streamed_prime": "yes"})")).first, "/tuning/streamed_prime");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "input": {"stride": 2, "strides": [3]})")).first, "/input/stride");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "output": {"strides": [3], "stride": 2})")).first, "/output/stride");
  EXPECT_EQ(
      errorOf(
          R"({"name": "s", "family": "stockham", "precision": "f32", "lengths": [20, 20], "tuning": {"fuse_axes": "no"}})")
          .first,
      "/tuning/fuse_axes");
  EXPECT_EQ(errorOf(spec(1 << 24, "f16", R"(, "tuning": {"three_kernels": 3})")).first, "/tuning/three_kernels");
  // "bluestein" as a convolution length: at least 2n - 1 (r2c / c2r: of the complex half), radix-smooth, an integer.
  auto shortConvolution = errorOf(spec(1399, "f32", R"(, "tuning": {"bluestein": 2744})"));
  EXPECT_EQ(shortConvolution.first, "/tuning/bluestein");
  EXPECT_NE(shortConvolution.second.find("2797"), std::string::npos) << shortConvolution.second;
  EXPECT_EQ(errorOf(spec(1384, "f32", R"(, "transform": "r2c", "tuning": {"bluestein": 1382})")).first,
            "/tuning/bluestein");
  EXPECT_NO_THROW(
      parseStockhamSpecText(spec(1384, "f32", R"(, "transform": "r2c", "tuning": {"bluestein": 1400})"), "ok.json"));
  EXPECT_EQ(errorOf(spec(1399, "f32", R"(, "tuning": {"bluestein": 4097})")).first, "/tuning/bluestein");  // 17 x 241
  EXPECT_EQ(errorOf(spec(1399, "f32", R"(, "tuning": {"bluestein": 4096.5})")).first, "/tuning/bluestein");
  EXPECT_EQ(errorOf(spec(1399, "f32", R"(, "tuning": {"bluestein": 1073741824})")).first, "/tuning/bluestein");
  EXPECT_EQ(errorOf(spec(1 << 24, "f16", R"(, "tuning": {"half_scratch": "half"})")).first, "/tuning/half_scratch");
}

// A spec's "tuning" block reaches every kernel's geometry; what the emitter cannot do
// (direct I/O through a column tile or the r2c split) stays staged.
TEST(Stockham, TuningOverridesGeometry) {
  auto p = plan(spec(1024, "f32", R"(, "tuning": {"threads_per_fft": 32, "block_threads": 256, "register_target": 96,
                                                  "direct_load": false, "persistent": false})"));
  KernelGeometry g = chooseGeometry(p.kernels[0].desc);
  EXPECT_EQ(g.threadsPerFft, 32);
  EXPECT_EQ(g.fftsPerBlock, 8);
  EXPECT_EQ(g.registerTarget, 96);
  EXPECT_FALSE(g.directLoad);
  EXPECT_TRUE(g.directStore);
  EXPECT_FALSE(g.persistent);
  p = plan(spec(1024, "f32", R"(, "transform": "r2c", "tuning": {"direct_store": true, "fused_split": false})"));
  EXPECT_FALSE(chooseGeometry(p.kernels[0].desc).directStore);
  // r2c by default: the split fused into the last pass, which writes global memory itself.
  KernelGeometry split = chooseGeometry(plan(spec(1000, "f32", R"(, "transform": "r2c")")).kernels[0].desc);
  EXPECT_TRUE(split.fusedSplit && split.directStore);
  EXPECT_FALSE(
      chooseGeometry(
          plan(spec(1000, "f32", R"(, "transform": "r2c", "tuning": {"direct_store": false})")).kernels[0].desc)
          .fusedSplit);
  // ... where two butterflies of the last radix do not raise the values a thread holds (4096 = 16 x 16 x 16 would).
  EXPECT_FALSE(chooseGeometry(plan(spec(8192, "f32", R"(, "transform": "r2c")")).kernels[0].desc).fusedSplit);
  EXPECT_TRUE(chooseGeometry(
                  plan(spec(8192, "f32", R"(, "transform": "r2c", "tuning": {"fused_split": true})")).kernels[0].desc)
                  .fusedSplit);
  // Defaults: 128-thread blocks; f32 8192 on 256 threads holding 32 values (f16 on 512); 16384 on 1024 threads.
  EXPECT_EQ(emitStockhamKernel(plan(spec(1024, "f32")).kernels[0].desc).geom.fftsPerBlock * 64, 128);
  EXPECT_EQ(chooseGeometry(plan(spec(8192, "f32")).kernels[0].desc).threadsPerFft, 256);
  EXPECT_EQ(chooseGeometry(plan(spec(8192, "f16")).kernels[0].desc).threadsPerFft,
            512);  // half storage keeps 16 values per thread
  EXPECT_EQ(chooseGeometry(plan(spec(16384, "f16")).kernels[0].desc).threadsPerFft, 1024);
}

// Work queue: persistent kernels take groups after the first from work[0]; thread 0 fetches
// the ticket at the top of a group and every thread reads it only after a barrier, from the
// slot of this iteration's parity; the last block out zeroes the counters.
TEST(Stockham, WorkQueueTicketsAreReadAfterABarrier) {
  for (int n : {8, 64, 1024, 2187}) {
    StockhamKernel k = emitStockhamKernel(plan(spec(n, "f32", R"(, "tuning": {"persistent": true})")).kernels[0].desc);
    ASSERT_TRUE(k.geom.workQueue) << n;
    const std::string& src = k.source;
    const auto fetch = src.find("if (threadIdx.x == 0) wf_ticket[wf_it & 1] = atomicAdd(work, 1ull);");
    const auto read = src.find("wf_next = (long long)wf_ticket[wf_it & 1];");
    ASSERT_NE(fetch, std::string::npos) << n;
    ASSERT_NE(read, std::string::npos) << n;
    const auto barrier = src.rfind("__syncthreads();", read);
    EXPECT_TRUE(barrier != std::string::npos && barrier > fetch)
        << n << ": the ticket would be read before thread 0 wrote it";
    EXPECT_NE(src.find("atomicExch(work, 0ull);"), std::string::npos);
  }
  EXPECT_FALSE(emitStockhamKernel(plan(spec(1024, "f32", R"(, "tuning": {"persistent": false})")).kernels[0].desc)
                   .geom.workQueue);
  // By default a block per group, except the column and row steps of a 1D FFT past one kernel: two and three kernels,
  // a long real half, a long Bluestein convolution's four steps.
  EXPECT_FALSE(emitStockhamKernel(plan(spec(1024, "f32")).kernels[0].desc).geom.persistent);
  const std::vector<std::pair<std::string, std::size_t>> longPlans = {
      {spec(262144, "f32"), 2},
      {spec(16777216, "f32", R"(, "tuning": {"three_kernels": true})"), 3},
      {spec(1048576, "f32", R"(, "transform": "r2c")"), 2},
      {spec(100003, "f32"), 4}};
  for (const auto& [text, kernels] : longPlans) {
    const auto p = plan(text);
    EXPECT_EQ(p.kernels.size(), kernels) << text;
    for (const auto& k : p.kernels) {
      EXPECT_TRUE(k.desc.longStep) << text << " " << k.desc.kernelName;
      EXPECT_TRUE(emitStockhamKernel(k.desc).geom.persistent) << text << " " << k.desc.kernelName;
    }
  }
  StockhamKernel fixed = emitStockhamKernel(
      plan(spec(1024, "f32", R"(, "tuning": {"work_queue": false})")).kernels[0].desc);
  EXPECT_FALSE(fixed.geom.workQueue);
  EXPECT_EQ(fixed.source.find("atomicAdd(work"), std::string::npos);
  EXPECT_NE(fixed.source.find("group += (long long)gridDim.x"), std::string::npos);
}

// Thread indices are either computed once before the group loop (default) or, with
// index_per_group, from an opaque threadIdx read inside it; SpillFree picks the latter only
// where the hoisted kernel spills and the kernel's FFTs are long, and never against the tuning.
// A last pass that loops over short runs of 8/16-byte values stores staged; one butterfly per
// thread or half storage stays direct; the fused r2c split only on runs of 64 B or more; tuning pins either.
TEST(Stockham, ShortLoopingStoresAreStaged) {
  auto geom = [](const std::string& text) {
    return emitStockhamKernel(planStockham(parseStockhamSpecText(text, "g.json"), "sm_90").kernels[0].desc).geom;
  };
  EXPECT_FALSE(geom(spec(170, "f32")).directStore) << "17 x 10 on 10 threads: the radix-10 pass loops, 80-byte runs";
  EXPECT_FALSE(geom(spec(35, "f64")).directStore);
  EXPECT_TRUE(geom(spec(170, "f32")).directLoad) << "the load is not the store";
  EXPECT_TRUE(geom(spec(100, "f32")).directStore) << "10 x 10 on 10 threads: one butterfly per thread";
  EXPECT_TRUE(geom(spec(1000, "f32")).directStore);
  EXPECT_TRUE(geom(spec(200, "f16")).directStore) << "half storage: not measured, left direct";
  EXPECT_TRUE(geom(spec(170, "f32", R"(, "tuning": {"direct_store": true})")).directStore);
  for (int n : {28, 64, 68, 120}) {
    const KernelGeometry g = geom(spec(n, "f32", R"(, "transform": "r2c")"));
    EXPECT_FALSE(g.fusedSplit || g.directStore) << "r2c " << n << ": runs under 64 B, the split is a staged loop";
  }
  EXPECT_TRUE(geom(spec(1000, "f32", R"(, "transform": "r2c")")).fusedSplit);
  EXPECT_TRUE(geom(spec(2048, "f32", R"(, "transform": "r2c")")).fusedSplit);
  EXPECT_TRUE(geom(spec(120, "f32", R"(, "transform": "r2c", "tuning": {"fused_split": true})")).fusedSplit);
}

// A spilling kernel's register target is relaxed one level of resident blocks at a time (Geometry.cpp): the old
// fixed list (80, 96, 128, 168, 255) never asked for two blocks of 448 threads (72) or four of 200 (72).
TEST(Stockham, RegisterTargetsRelaxByResidentBlocks) {
  EXPECT_EQ(relaxedRegisterTargets(448, 48), (std::vector<int>{72, 144}));
  EXPECT_EQ(relaxedRegisterTargets(200, 58), (std::vector<int>{72, 96, 144, 255}));
  EXPECT_EQ(relaxedRegisterTargets(256, 64), (std::vector<int>{80, 128, 255}));
  EXPECT_EQ(relaxedRegisterTargets(128, 128), (std::vector<int>{168, 255}));
  EXPECT_TRUE(relaxedRegisterTargets(1024, 64).empty());  // one block already
  for (int threads : {64, 200, 448})                      // (up to 4 blocks by threads per SM)
    for (int blocks = 1; blocks <= 4; ++blocks) {
      const int t = registerTargetForBlocks(threads, blocks);
      EXPECT_GE(residentBlocksPerSm(threads, t, 0), blocks) << threads << " threads at " << t << " registers";
    }
}

// A 1D length of radix primes is one kernel while one FFT fits a block's shared memory on the plan's arch
// (maxOneKernelLength), past maxSingleKernelLength too. Longer lengths take two.
TEST(Stockham, LongLengthsTakeOneKernelWhereSharedMemoryHoldsThem) {
  auto kernels = [](long long n, const char* precision, const char* arch, const std::string& extra = "") {
    return planStockham(parseStockhamSpecText(spec(n, precision, extra), "l.json"), arch).kernels.size();
  };
  EXPECT_EQ(kernels(19683, "f32", "sm_90"), 1u);
  EXPECT_EQ(kernels(27000, "f32", "sm_90"), 1u);
  EXPECT_EQ(kernels(20000, "f16", "sm_90"), 1u);
  EXPECT_EQ(kernels(28672, "f32", "sm_90"), 2u);
  EXPECT_EQ(kernels(19440, "f32", "sm_80"), 1u);
  EXPECT_EQ(kernels(20736, "f32", "sm_80"), 2u);
  EXPECT_EQ(kernels(11664, "f32", "sm_86"), 1u);
  EXPECT_EQ(kernels(16384, "f32", "sm_86"), 2u) << "139 KiB of shared memory: more than sm_86 lends";
  EXPECT_EQ(kernels(8192, "f64", "sm_90"), 1u);
  EXPECT_EQ(kernels(6561, "f64", "sm_80"), 1u);
  EXPECT_EQ(kernels(12800, "f64", "sm_90"), 1u);
  EXPECT_EQ(kernels(13122, "f64", "sm_90"), 2u);
  EXPECT_EQ(kernels(9600, "f64", "sm_80"), 2u);
  // Real halves past 4096: one kernel with the split / merge fused where it runs 256 threads (f64 512) or more.
  EXPECT_EQ(kernels(9000, "f64", "sm_90", R"(, "transform": "c2r")"), 2u) << "merge, then one kernel of 4500";
  EXPECT_EQ(kernels(9000, "f64", "sm_90", R"(, "transform": "c2r", "tuning": {"real_split": "fused"})"), 1u)
      << "one kernel of 4500, merge fused";
  EXPECT_EQ(kernels(20000, "f32", "sm_90", R"(, "transform": "r2c")"), 1u) << "one kernel of 10000, split fused";
  EXPECT_EQ(kernels(16384, "f64", "sm_90", R"(, "transform": "r2c")"), 1u) << "one kernel of 8192, split fused";
  EXPECT_EQ(kernels(16384, "f64", "sm_86", R"(, "transform": "r2c")"), 2u)
      << "mirrored pairs: a split kernel holding 8193 f64 values needs more shared memory than sm_86 lends";
  EXPECT_EQ(kernels(32768, "f32", "sm_90", R"(, "transform": "r2c")"), 1u) << "one kernel of 16384, split fused";
  EXPECT_EQ(kernels(32768, "f32", "sm_90", R"(, "transform": "r2c", "tuning": {"real_split": "kernel"})"), 2u)
      << "one kernel of 16384, then the split";
  EXPECT_EQ(kernels(32832, "f32", "sm_90", R"(, "transform": "r2c")"), 2u) << "mirrored pairs past 16384";
  // Cooperative primes (37..127) keep the old limit; so do the axes of 2D / 3D transforms.
  EXPECT_EQ(kernels(37 * 512, "f32", "sm_90"), 2u);
  EXPECT_EQ(errorOf(R"({"name": "l", "family": "stockham", "precision": "f32", "lengths": [2, 19683]})").first,
            "/lengths/1");
  // Every kernel at the limit fits: shared memory (with its pad elements) within the arch's block.
  for (const char* arch : {"sm_80", "sm_86", "sm_90"})
    for (const char* precision : {"f32", "f64"}) {
      const int limit = maxOneKernelLength(precisionOf(precision), arch);
      int checked = 0;
      for (int n = limit; n > limit - 400 && checked < 6; --n) {
        if (!isSmooth(n, maxPrimeRadix(precisionOf(precision)))) continue;
        const StockhamPlan p = planStockham(parseStockhamSpecText(spec(n, precision), "l.json"), arch);
        ASSERT_EQ(p.kernels.size(), 1u) << n << " " << precision << " " << arch;
        EXPECT_LE(emitStockhamKernel(p.kernels[0].desc).geom.sharedBytes + 1024, maxSharedPerBlock(arch))
            << n << " " << precision << " " << arch;
        ++checked;
      }
      EXPECT_GT(checked, 0) << precision << " " << arch;
      // r2c / c2r whose half is at the split kernel's limit (one FFT's L + 1 values in shared memory) and just past
      // it (mirrored pairs): every kernel within the arch's block.
      const int half = std::min(maxSplitKernelHalf(precisionOf(precision)), limit - 1);
      for (int L : {half - 1, half, half + 2})
        for (const char* transform : {"r2c", "c2r"}) {
          const StockhamPlan p = planStockham(
              parseStockhamSpecText(spec(2 * L, precision, fmt::format(R"(, "transform": "{}")", transform)), "l.json"),
              arch);
          for (const auto& k : p.kernels)
            EXPECT_LE(emitStockhamKernel(k.desc).geom.sharedBytes + 1024, maxSharedPerBlock(arch))
                << transform << " " << 2 * L << " " << precision << " " << arch << " " << k.desc.kernelName;
        }
    }
}

// Column tiles: each tile row is fftsPerBlock consecutive values in global memory; rows of a whole number of 32-byte
// sectors (Geometry.cpp wholeSectorRows): part-used sectors widen to 128 B, whole ones (2^20: 64 B) stay.
TEST(Stockham, ColumnTileRowsAreWholeSectors) {
  for (const auto& [n, precision] : {std::pair<long long, const char*>{59049, "f32"},
                                     {43904, "f32"},
                                     {100000, "f32"},
                                     {117649, "f32"},
                                     {1LL << 20, "f32"},
                                     {1LL << 22, "f32"},  // 2048-point columns: 8 FFTs (512 threads gave 4, 32 B)
                                     {20000, "f64"},
                                     {30000, "f16"}}) {
    const StockhamPlan p = plan(spec(n, precision));
    ASSERT_EQ(p.kernels.size(), 2u) << n;
    for (const auto& k : p.kernels) {
      const KernelGeometry g = emitStockhamKernel(k.desc).geom;
      ASSERT_TRUE(g.fftMajorLoad || g.fftMajorStore) << k.desc.kernelName;
      const int row = g.fftsPerBlock * tileRowValueBytes(k.desc, g);
      EXPECT_EQ(row % 32, 0) << k.desc.kernelName << ": " << g.fftsPerBlock << " FFTs per block, " << row
                             << "-byte rows";
      EXPECT_GE(row, 64) << k.desc.kernelName;
    }
  }
  // The row step of 59049 = 243 x 243: 243-point rows on 27 threads, 16 side by side (9 would leave 72-byte runs).
  EXPECT_EQ(emitStockhamKernel(plan(spec(59049, "f32")).kernels[1].desc).geom.fftsPerBlock, 16);
  // 343 x 343: a thread per radix-7 butterfly (49 per FFT), not 43 threads of 8 values with a second round of 6
  // (Geometry.cpp tile); f64 too, and column_values pins the old choice.
  for (const char* precision : {"f32", "f64"})
    for (const auto& k : plan(spec(117649, precision)).kernels)
      EXPECT_EQ(emitStockhamKernel(k.desc).geom.threadsPerFft, 49) << precision;
  EXPECT_EQ(emitStockhamKernel(plan(spec(117649, "f64", R"(, "tuning": {"column_values": 8})")).kernels[0].desc)
                .geom.threadsPerFft,
            43);
  // Pinned block sizes are kept: 243 threads = 9 FFTs.
  EXPECT_EQ(emitStockhamKernel(plan(spec(59049, "f32", R"(, "tuning": {"block_threads": 243})")).kernels[1].desc)
                .geom.fftsPerBlock,
            9);
}

TEST(Stockham, ThreadIndicesHeldOrRecomputedPerGroup) {
  auto loopBody = [](const std::string& src) { return src.substr(src.find("for (long long group")); };
  StockhamKernel held = emitStockhamKernel(plan(spec(1024, "f32")).kernels[0].desc);
  EXPECT_FALSE(held.geom.indexPerGroup);
  // (the work queue's `threadIdx.x == 0` test for the ticket fetch is the one read left in the loop)
  EXPECT_FALSE(std::regex_search(loopBody(held.source), std::regex(R"(threadIdx\.x(?! == 0))")))
      << "an index read inside the group loop";
  EXPECT_EQ(held.source.find("wf_thread_index"), std::string::npos);
  StockhamKernel perGroup = emitStockhamKernel(
      plan(spec(1024, "f32", R"(, "tuning": {"index_per_group": true})")).kernels[0].desc);
  EXPECT_TRUE(perGroup.geom.indexPerGroup);
  EXPECT_NE(loopBody(perGroup.source).find("const int tid = wf_thread_index();"), std::string::npos);
  EXPECT_NE(perGroup.source.find("thread indices recomputed per group"), std::string::npos);

  const std::string arch = "sm_90";
  NvrtcProbe probe;
  // r2c 8192 (a 4096-point kernel): held indices spill at 64 registers; recomputed, they fit.
  SpillFreeKernel r2c = emitStockhamSpillFree(plan(spec(8192, "f32", R"(, "transform": "r2c")")).kernels[0].desc, arch,
                                              &probe);
  EXPECT_TRUE(r2c.kernel.geom.indexPerGroup);
  EXPECT_EQ(r2c.kernel.geom.registerTarget, 64);
  // The tuning's "false" is kept: the target is relaxed instead.
  SpillFreeKernel r2cHeld = emitStockhamSpillFree(
      plan(spec(8192, "f32", R"(, "transform": "r2c", "tuning": {"index_per_group": false})")).kernels[0].desc, arch,
      &probe);
  EXPECT_FALSE(r2cHeld.kernel.geom.indexPerGroup);
  EXPECT_GT(r2cHeld.kernel.geom.registerTarget, 64);
  // Short FFTs keep held indices (r2c 512: faster held at more registers).
  EXPECT_FALSE(emitStockhamSpillFree(plan(spec(512, "f32", R"(, "transform": "r2c")")).kernels[0].desc, arch, &probe)
                   .kernel.geom.indexPerGroup);
}

// Column tiles at one block per SM by their registers try the same tile with fewer live registers (twiddles derived,
// indices per group), then half its FFTs: 7^6 = 343 x 343, whose column kernel took 784 threads at 80 registers (one
// block), on an H200 1.14x faster so (bench --ab, 2026-12-02). Pinned by the tuning, the old tile stays.
TEST(Stockham, OneBlockColumnTilesTryLeanerRegisters) {
  NvrtcProbe probe;
  auto columns = [&](const std::string& extra) {
    const StockhamPlan p = planStockham(parseStockhamSpecText(spec(117649, "f32", extra), "c.json"), "sm_90");
    return emitStockhamSpillFree(p.kernels[0].desc, "sm_90", &probe);
  };
  auto resident = [](const SpillFreeKernel& k) {
    const int threads = k.kernel.geom.threadsPerFft * k.kernel.geom.fftsPerBlock;
    return residentBlocksPerSm(threads, k.compiled.registers, k.kernel.geom.sharedBytes, "sm_90") * threads;
  };
  const SpillFreeKernel lean = columns("");
  ASSERT_TRUE(lean.kernel.geom.fftMajorLoad);
  EXPECT_FALSE(lean.compiled.spills());
  EXPECT_TRUE(lean.kernel.geom.deriveTwiddles);
  EXPECT_TRUE(lean.kernel.geom.indexPerGroup);
  const SpillFreeKernel old = columns(R"(, "tuning": {"derive_twiddles": false, "index_per_group": false})");
  EXPECT_FALSE(old.compiled.spills());
  EXPECT_FALSE(old.kernel.geom.deriveTwiddles);
  EXPECT_GT(resident(lean), resident(old)) << lean.compiled.registers << " against " << old.compiled.registers;
  // Rows of the lean tile stay 64 bytes or more.
  EXPECT_GE(lean.kernel.geom.fftsPerBlock * 8, 64);
}

// Twiddles: one pointer per butterfly with constant offsets (row r - 1 of the pass's table, k
// fastest); with derive_twiddles only rows r = 1, 2, 4, 8 are loaded, the rest are products.
TEST(Stockham, TwiddleLoadsAndDerivedTwiddles) {
  auto count = [](const std::string& src, const std::string& re) {
    std::regex r(re);
    return std::distance(std::sregex_iterator(src.begin(), src.end(), r), std::sregex_iterator());
  };
  // 4096 = 16 x 16 x 16: passes 1 and 2 each load 15 twiddles per butterfly.
  StockhamKernel table = emitStockhamKernel(plan(spec(4096, "f32")).kernels[0].desc);
  EXPECT_EQ(count(table.source, R"(float2 w\d+ = tw\[\d+\];)"), 30);
  EXPECT_NE(table.source.find("float2 w15 = tw[3584];"), std::string::npos);  // pass 2: ns = 256, row 14
  StockhamKernel derived = emitStockhamKernel(
      plan(spec(4096, "f32", R"(, "tuning": {"derive_twiddles": true})")).kernels[0].desc);
  EXPECT_TRUE(derived.geom.deriveTwiddles);
  EXPECT_EQ(count(derived.source, R"(float2 w\d+ = tw\[\d+\];)"), 8);  // w1, w2, w4, w8 in two passes
  EXPECT_NE(derived.source.find("float2 w15 = make_float2(w8.x * w7.x"), std::string::npos);
  EXPECT_NE(derived.source.find("twiddles W^(k r) for r not a power of two derived"), std::string::npos);
  // The default: derived for half storage from length 4096 on, from the table otherwise.
  EXPECT_TRUE(emitStockhamKernel(plan(spec(4096, "f16")).kernels[0].desc).geom.deriveTwiddles);
  EXPECT_FALSE(emitStockhamKernel(plan(spec(2048, "f16")).kernels[0].desc).geom.deriveTwiddles);
  EXPECT_FALSE(emitStockhamKernel(plan(spec(4096, "f16", R"(, "tuning": {"derive_twiddles": false})")).kernels[0].desc)
                   .geom.deriveTwiddles);
  EXPECT_FALSE(table.geom.deriveTwiddles);
  // The table itself: pass 1 (ns = 16, R = 16) holds W^(r k) at (r - 1) 16 + k.
  std::vector<std::complex<double>> t = twiddleTable({16, 16, 16}, -1);
  ASSERT_EQ(t.size(), 15u * 16 + 15u * 256);
  const double a = -2 * M_PI * 3 * 5 / 256.0;  // r = 3, k = 5
  EXPECT_NEAR(std::abs(t[2 * 16 + 5] - std::complex<double>(std::cos(a), std::sin(a))), 0, 1e-15);

  // Derived twiddles in float, by the emitter's product tree (w_r = w_hi w_(r - hi)) from the
  // float-rounded table, stay within 6 ulp of the exact value for every radix 2..16 pass.
  double worst = 0;
  for (const std::vector<int>& factors :
       std::vector<std::vector<int>>{{16, 16, 16}, {13, 11, 7, 5, 3}, {8, 8, 8, 2}, {9, 12, 10}}) {
    std::vector<std::complex<double>> tab = twiddleTable(factors, -1);
    long long ns = 1, off = 0;
    for (int R : factors) {
      if (ns > 1) {
        for (long long k = 0; k < ns; ++k) {
          std::vector<std::complex<float>> w(R);
          for (int r = 1; r < R; ++r) {
            const int hi = derivedSplit(r);
            if (twiddleLoaded(r, true)) {
              w[r] = std::complex<float>(tab[off + (r - 1) * ns + k]);
            } else {
              const std::complex<float> x = w[hi], y = w[r - hi];
              w[r] = {x.real() * y.real() - x.imag() * y.imag(), x.real() * y.imag() + x.imag() * y.real()};
            }
            worst = std::max(worst, std::abs(std::complex<double>(w[r]) - tab[off + (r - 1) * ns + k]));
          }
        }
        off += ns * (R - 1);
      }
      ns *= R;
    }
  }
  std::printf("[stockham] derived f32 twiddles: worst error %.2e (ulp of 1: %.2e)\n", worst, std::ldexp(1.0, -23));
  EXPECT_LT(worst, 6 * std::ldexp(1.0, -24));
  EXPECT_GT(worst, 0);  // the products do round: the check is not vacuous
}

// Where the first pass reads a staged copy in shared memory and the last pass writes global
// memory itself, the next group's staged load must wait for every thread's last reads: the
// group loop ends with a barrier. (Found by `bench --tune`: without it, staged-load/direct-store
// variants raced at large batch; c2r kernels have this shape by default.)
TEST(Stockham, StagedLoadEndsGroupWithBarrier) {
  std::vector<std::string> texts = {spec(1024, "f32", R"(, "tuning": {"direct_load": false})"),
                                    spec(1024, "f16", R"(, "tuning": {"direct_load": false, "direct_store": false})"),
                                    spec(128, "f32", R"(, "transform": "c2r")"), spec(1 << 20, "f32")};
  int checked = 0;
  for (const auto& t : texts)
    for (const auto& pk : plan(t).kernels) {
      StockhamKernel k = emitStockhamKernel(pk.desc);
      if (k.geom.directLoad) continue;
      // the group body: up to the work-queue ticket read, or to the loop's closing brace
      const std::string body = k.geom.workQueue ? k.source.substr(0, k.source.find("    wf_next = "))
                                                : k.source.substr(0, k.source.size() - std::string("  }\n}\n").size());
      const std::string tail = "__syncthreads();\n";
      ASSERT_GE(body.size(), tail.size());
      EXPECT_EQ(body.substr(body.size() - tail.size()), tail) << pk.desc.kernelName;
      ++checked;
    }
  EXPECT_GE(checked, 4);
}

TEST(Stockham, PlansChooseKernels) {
  auto p = plan(spec(1000, "f32"));
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].desc.factors, (std::vector<int>{10, 10, 10}));  // the cost model (was 25 x 8 x 5)
  // f64 3^15 in two kernels: no split has both sides within 4096; the row kernel takes 6561 (maxSplitRowLength).
  p = plan(spec(14348907, "f64", R"(, "tuning": {"three_kernels": false})"));
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(p.kernels[0].desc.length, 2187);
  EXPECT_EQ(p.kernels[1].desc.length, 6561);
  // 2^20: 1024 columns of 1024 then rows, through tmp0, with the four-step twiddle on the first store.
  p = plan(spec(1 << 20, "f32"));
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(p.kernels[0].desc.length * p.kernels[1].desc.length, 1 << 20);
  EXPECT_EQ(p.kernels[0].dst, Buffer::Tmp0);
  EXPECT_EQ(p.kernels[1].src, Buffer::Tmp0);
  EXPECT_EQ(p.kernels[0].desc.bigN, 1 << 20);
  EXPECT_EQ(p.tmpElemsPerBatch[0], 1 << 20);
  // A prime: Bluestein with a power-of-two convolution >= 2N - 1 in one kernel (it fits in shared
  // memory): chirp fused into the load and the store, FFT(conj chirp)/M between the halves.
  p = plan(spec(1009, "f32"));
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].desc.length, 2048);
  EXPECT_TRUE(p.kernels[0].desc.convolve);
  EXPECT_EQ(p.kernels[0].desc.inValid, 1009);
  EXPECT_EQ(p.kernels[0].desc.outValid, 1009);
  EXPECT_TRUE(p.kernels[0].desc.loadTable && p.kernels[0].desc.storeTable);
  EXPECT_EQ(p.kernels[0].bigLo.size(), 2048u);
  EXPECT_EQ(p.tmpElemsPerBatch[0] + p.tmpElemsPerBatch[1] + p.tmpElemsPerBatch[2], 0) << "no scratch buffer";
  p = plan(spec(16381, "f32"));  // convolution of 32768: two kernels each way
  EXPECT_EQ(p.kernels.size(), 4u);
  EXPECT_FALSE(p.kernels[0].desc.convolve);
  // 3D: the inner 32 x 64 plane in one kernel (KernelDesc::axes), then axis 0 in place on the output; with
  // fuse_axes false one kernel per axis, last axis first.
  p = plan(R"({"name": "x", "family": "stockham", "precision": "f32", "lengths": [16, 32, 64]})");
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(p.kernels[0].desc.length, 32 * 64);
  EXPECT_EQ(p.kernels[0].desc.axes, (std::vector<int>{32, 64}));
  EXPECT_EQ(p.kernels[1].desc.length, 16);
  EXPECT_EQ(p.kernels[1].src, Buffer::Output);
  EXPECT_EQ(p.kernels[1].desc.in.elemStride, 32 * 64);
  p = plan(
      R"({"name": "x", "family": "stockham", "precision": "f32", "lengths": [16, 32, 64], "tuning": {"fuse_axes": false}})");
  ASSERT_EQ(p.kernels.size(), 3u);
  EXPECT_EQ(p.kernels[0].desc.length, 64);
  EXPECT_EQ(p.kernels[2].desc.length, 16);
  EXPECT_EQ(p.kernels[2].src, Buffer::Output);
  EXPECT_EQ(p.kernels[2].desc.in.elemStride, 32 * 64);
  // r2c: one complex FFT of N/2 with the split fused into the store.
  p = plan(spec(1024, "f32", R"(, "transform": "r2c")"));
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].desc.length, 512);
  EXPECT_EQ(p.kernels[0].desc.fuse, Fuse::R2CPost);
  EXPECT_EQ(p.kernels[0].storeTable.size(), 513u);
}

// f64 column tiles take the fewest passes (StockhamPlan.cpp kernel()): 3^10 = 243 x 243 as 9 x 9 x 3 both ways,
// where the factorization model's 3^5 ran 0.58x of 9 x 9 x 3's speed; f32 columns and f64 rows keep the model.
TEST(Stockham, DoublePrecisionColumnTilesTakeTheFewestPasses) {
  auto p = plan(spec(59049, "f64"));
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(p.kernels[0].desc.factors, (std::vector<int>{9, 9, 3}));
  EXPECT_EQ(p.kernels[1].desc.factors, (std::vector<int>{9, 9, 3}));
  EXPECT_EQ(plan(spec(243, "f64",
                      R"(, "input": {"stride": 4096, "distance": 1}, "output": {"stride": 4096, "distance": 1})"))
                .kernels[0]
                .desc.factors,
            (std::vector<int>{9, 9, 3}));
  EXPECT_EQ(plan(spec(243, "f64")).kernels[0].desc.factors,
            factorizeStockham(243, 13, maxPrimeRadix(Precision::F64), true, false));
}

TEST(Stockham, GeometryTilesColumns) {
  auto p = plan(spec(1 << 20, "f32"));
  KernelGeometry cols = chooseGeometry(p.kernels[0].desc), rows = chooseGeometry(p.kernels[1].desc);
  EXPECT_TRUE(cols.fftMajorLoad && cols.fftMajorStore);
  EXPECT_GE(cols.fftsPerBlock, 8) << "column tiles need several FFTs side by side for full sectors";
  EXPECT_FALSE(rows.fftMajorLoad);
  EXPECT_TRUE(rows.fftMajorStore);  // stored at stride N1
}

// Three kernels (tuning three_kernels): N = n1 x m1 x m2 with each length near the cube root; every step tiles its
// strided side (the inner rows store k1-innermost, stride-1 runs). Not where a split is impossible or the rows carry
// a table (Bluestein's convolution halves keep two kernels).
TEST(Stockham, ThreeKernelPlans) {
  auto p = plan(spec(1 << 24, "f16", R"(, "tuning": {"three_kernels": true})"));
  ASSERT_EQ(p.kernels.size(), 3u);
  for (const auto& k : p.kernels) EXPECT_EQ(k.desc.length, 256);
  EXPECT_EQ(p.kernels[0].desc.bigN, 1 << 24);
  EXPECT_EQ(p.kernels[1].desc.bigN, 1 << 16);
  EXPECT_EQ(p.kernels[0].dst, Buffer::Tmp0);
  EXPECT_EQ(p.kernels[1].src, Buffer::Tmp0);
  EXPECT_EQ(p.kernels[1].dst, Buffer::Tmp1);
  EXPECT_EQ(p.kernels[2].src, Buffer::Tmp1);
  EXPECT_EQ(p.kernels[2].dst, Buffer::Output);
  EXPECT_EQ(p.kernels[2].desc.out.elemStride, 1 << 16);
  EXPECT_EQ(p.kernels[2].desc.out.batchStride.at(0), 1) << "k1 innermost";
  for (int k : {0, 1}) {
    const KernelGeometry g = chooseGeometry(p.kernels[k].desc);
    EXPECT_TRUE(g.fftMajorLoad && g.fftMajorStore) << k;
  }
  EXPECT_TRUE(chooseGeometry(p.kernels[2].desc).fftMajorStore);
  // The default: f16 (scratch in f16) where the two-kernel split has a side of 4096 (2^23 = 2048 x 4096, 3^15 = 2187
  // x 6561); not 2^22 = 2048 x 2048, not with the scratch in float or three_kernels false.
  EXPECT_EQ(plan(spec(1 << 24, "f16")).kernels.size(), 3u);
  EXPECT_EQ(plan(spec(1 << 23, "f16")).kernels.size(), 3u);
  EXPECT_EQ(plan(spec(14348907, "f16")).kernels.size(), 3u);
  EXPECT_EQ(plan(spec(1 << 22, "f16")).kernels.size(), 2u);
  EXPECT_EQ(plan(spec(1 << 24, "f16", R"(, "tuning": {"half_scratch": false})")).kernels.size(), 2u);
  EXPECT_EQ(plan(spec(1 << 24, "f16", R"(, "tuning": {"three_kernels": false})")).kernels.size(), 2u);
  // And odd f32 lengths whose split has a side of 2048 or more (7^8 = 2401^2, 7^7 = 343 x 2401, 3^13 = 729 x 2187),
  // not shorter sides (7^6 = 343^2, 3^12 = 729^2), even lengths (2^21 = 1024 x 2048) or f64.
  for (long long n : {5764801LL, 823543LL, 1594323LL, 1953125LL})
    EXPECT_EQ(plan(spec(n, "f32")).kernels.size(), 3u) << n;
  for (long long n : {117649LL, 531441LL, 390625LL, 1LL << 21}) EXPECT_EQ(plan(spec(n, "f32")).kernels.size(), 2u) << n;
  // f64 where a side passes 2048 (2^23 = 2048 x 4096, 3^14 = 2187^2, 7^8, 5^9 = 625 x 3125), not at sides of 2048 or
  // less (2^21, 2^22, 5^8 = 625^2); f32 where both sides are 4096 or more (2^24), not 2^23 = 2048 x 4096.
  for (long long n : {1LL << 23, 4782969LL, 5764801LL, 1953125LL})
    EXPECT_EQ(plan(spec(n, "f64")).kernels.size(), 3u) << n;
  for (long long n : {1LL << 21, 1LL << 22, 390625LL}) EXPECT_EQ(plan(spec(n, "f64")).kernels.size(), 2u) << n;
  EXPECT_EQ(plan(spec(1 << 24, "f32")).kernels.size(), 3u);
  EXPECT_EQ(plan(spec(1 << 23, "f32")).kernels.size(), 2u);
  EXPECT_EQ(plan(spec(1 << 23, "f64", R"(, "tuning": {"three_kernels": false})")).kernels.size(), 2u);
  EXPECT_EQ(plan(spec(5764801, "f32", R"(, "tuning": {"three_kernels": false})")).kernels.size(), 2u);
  p = plan(spec(100000, "f32", R"(, "tuning": {"three_kernels": true})"));
  ASSERT_EQ(p.kernels.size(), 3u);
  EXPECT_EQ(p.kernels[0].desc.length * p.kernels[1].desc.length * p.kernels[2].desc.length, 100000);
  EXPECT_LE(std::max({p.kernels[0].desc.length, p.kernels[1].desc.length, p.kernels[2].desc.length}), 50);
  EXPECT_EQ(plan(spec(40009, "f32", R"(, "tuning": {"three_kernels": true})")).kernels.size(), 4u)
      << "Bluestein: two kernels each way";
  // An f16 plan's intermediates in f16 by default (scratch buffers typed so); float with half_scratch false; f32 float.
  p = plan(spec(1 << 24, "f16"));
  EXPECT_TRUE(p.tmpHalf[0] && p.tmpHalf[1]);
  EXPECT_EQ(p.kernels[0].desc.out.storage, Storage::C16);
  EXPECT_EQ(p.kernels[1].desc.in.storage, Storage::C16);
  EXPECT_EQ(p.kernels[2].desc.in.storage, Storage::C16);
  EXPECT_EQ(p.kernels[2].desc.out.storage, Storage::C16);
  p = plan(spec(1 << 20, "f16", R"(, "tuning": {"half_scratch": false})"));
  EXPECT_FALSE(p.tmpHalf[0]);
  EXPECT_EQ(p.kernels[0].desc.out.storage, Storage::C32);
  EXPECT_TRUE(plan(spec(1 << 20, "f16")).tmpHalf[0]);
  p = plan(spec(1 << 20, "f32", R"(, "tuning": {"half_scratch": true})"));
  EXPECT_FALSE(p.tmpHalf[0]);
  EXPECT_EQ(p.kernels[0].desc.out.storage, Storage::C32);
  EXPECT_FALSE(plan(spec(40009, "f16")).tmpHalf[0]) << "Bluestein's convolution halves keep float";
}

TEST(Stockham, LaunchHeaderListsEveryKernel) {
  auto fs = makeStockhamSpec(parseStockhamSpecText(spec(16381, "f32"), "h.json"));
  StockhamPlan p = planStockham(parseStockhamSpecText(spec(16381, "f32"), "h.json"), "sm_90");
  LaunchPlan lp = fs->emit(EmitTarget{"sm_90", nullptr}).plan;
  std::string h = launchPlanHeader(lp);
  EXPECT_NE(h.find("namespace wf_s16381"), std::string::npos);
  EXPECT_NE(h.find("kernel_count = 4"), std::string::npos);
  for (const auto& k : p.kernels) EXPECT_NE(h.find(k.desc.kernelName), std::string::npos);
  EXPECT_NE(h.find("static const float k0_load_table[]"), std::string::npos)
      << "Bluestein's chirp, fused into the first load";
}

// The LaunchPlan: the user's arrays sized by their layout (extent = offset + (B - 1) distance + span),
// the output aliasing the input in place, scratch in the compute type, tables as float2/double2,
// every kernel's 13 arguments in the emitter's order.
TEST(Stockham, LaunchPlanBuffersAndArguments) {
  auto emit = [](const std::string& text) {
    return makeStockhamSpec(parseStockhamSpecText(text, "lp.json"))->emit(EmitTarget{"sm_90", nullptr}).plan;
  };
  LaunchPlan a = emit(spec(
      360, "f32",
      R"(, "input": {"stride": 3, "distance": 1100, "offset": 5}, "output": {"layout": "planar", "distance": 400},)"
      R"( "tuning": {"persistent": true})"));
  const PlanBuffer* in = a.buffer("input");
  ASSERT_TRUE(in);
  EXPECT_EQ(in->elementType, "float2");
  EXPECT_EQ(in->elementBytes, 8);
  EXPECT_EQ(in->elements(4, in->perBatchElems), 5 + 3 * 1100 + 359 * 3 + 1);
  ASSERT_TRUE(a.buffer("output_im"));
  EXPECT_EQ(a.buffer("output_im")->elementType, "float");
  EXPECT_EQ(a.buffer("output")->elements(2, 400), 400 + 360);
  EXPECT_FALSE(a.buffer("input_im"));
  ASSERT_EQ(a.kernels.size(), 1u);
  const PlanKernel& k = a.kernels[0];
  ASSERT_EQ(k.args.size(), 13u);
  EXPECT_EQ(k.args[0].name, "input");
  EXPECT_EQ(k.args[1].kind, PlanArg::Kind::Null);
  EXPECT_EQ(k.args[3].name, "output_im");
  EXPECT_EQ(k.args[3].cType, "float*");
  EXPECT_EQ(k.args[4].name, "k0_twiddles");
  EXPECT_EQ(k.args[9].kind, PlanArg::Kind::BatchTimes);
  EXPECT_EQ(k.args[10].value, -1);
  EXPECT_EQ(k.args[12].name, "k0_work");
  EXPECT_TRUE(k.grid.capAtResident);
  EXPECT_NE(a.sources[0].text.find("extern \"C\" __global__"), std::string::npos);
  EXPECT_EQ(a.sources[0].fileName, a.kernels[0].name + ".cu");
  // Twiddles in float: each part rounded once from the double table.
  const PlanBuffer* tw = a.buffer("k0_twiddles");
  ASSERT_TRUE(tw);
  std::vector<std::complex<double>> t =
      twiddleTable(planStockham(parseStockhamSpecText(spec(360, "f32"), "x"), "sm_90").kernels[0].desc.factors, -1);
  ASSERT_EQ(tw->contents.size(), t.size() * 8);
  float f[2];
  std::memcpy(f, tw->contents.data() + 8 * 3, 8);
  EXPECT_EQ(f[0], static_cast<float>(t[3].real()));
  EXPECT_EQ(f[1], static_cast<float>(t[3].imag()));

  LaunchPlan b = emit(
      R"({"name": "x", "family": "stockham", "precision": "f64", "lengths": [9, 10, 11], "placement": "in_place", "tuning": {"fuse_axes": false}})");
  EXPECT_EQ(b.buffer("output")->aliasOf, "input");
  EXPECT_EQ(b.buffer("input")->elementType, "double2");
  ASSERT_EQ(b.kernels.size(), 3u);
  for (const auto& kk : b.kernels) EXPECT_EQ(kk.args[0].name, "output") << "in place, every kernel reads the output";

  LaunchPlan c = emit(spec(1 << 20, "f32", R"(, "input": {"type": "ci8", "length": 1000})"));
  EXPECT_EQ(c.buffer("input")->elementType, "char2");
  ASSERT_TRUE(c.buffer("tmp0"));
  EXPECT_EQ(c.buffer("tmp0")->role, BufferRole::Scratch);
  EXPECT_EQ(c.buffer("tmp0")->perBatchElems * c.buffer("tmp0")->elementBytes, (1LL << 20) * 8);
  EXPECT_TRUE(c.buffer("k0_big_lo") && c.buffer("k0_big_hi"));
  EXPECT_EQ(c.kernels[0].args[10].value, 1000);

  LaunchPlan d = emit(
      spec(1024, "f32", R"(, "transform": "r2c", "tuning": {"work_queue": false, "persistent": false})"));
  EXPECT_EQ(d.buffer("input")->elementType, "float");
  EXPECT_EQ(d.buffer("output")->elements(1, d.buffer("output")->perBatchElems), 513);
  EXPECT_EQ(d.kernels[0].args[12].kind, PlanArg::Kind::Null);
  EXPECT_FALSE(d.buffer("k0_work"));
  EXPECT_FALSE(d.kernels[0].grid.capAtResident);
}

// verify() reports what the plan is; the family parses, names and registers itself.
TEST(Stockham, FamilyVerifyAndParse) {
  auto fs = stockhamFamily().parse(parseJsonText(spec(1000, "f32"), "v.json"), "v.json");
  EXPECT_EQ(fs->name(), "s1000");
  EXPECT_EQ(&fs->family(), &stockhamFamily());
  VerifyReport r = fs->verify();
  EXPECT_EQ(r.text.rfind("v.json: s1000 (stockham f32 c2c 1000, forward): OK, 1 kernel(s)\n", 0), 0u) << r.text;
  EXPECT_EQ(r.counts["passes"], 3);
  EXPECT_EQ(r.counts["kernels"][0]["factors"], Json({10, 10, 10}));
  EXPECT_NE(fs->explain(EmitTarget{"sm_90", nullptr}).find("pass 2: radix 10"), std::string::npos);
  try {
    stockhamFamily().parse(parseJsonText(spec(64, "f8"), "e.json"), "e.json");
    ADD_FAILURE() << "accepted f8";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.path(), "/precision");
  }
  EXPECT_FALSE(baselineOf(*makeStockhamSpec(parseStockhamSpecText(spec(1000, "f16"), "b.json"))))
      << "cuFFT half needs powers of two";
  EXPECT_EQ(std::get<FftBaseline>(
                baselineOf(*makeStockhamSpec(parseStockhamSpecText(spec(1024, "f16"), "b.json")))->library)
                .transform,
            FftBaseline::Transform::C2C);
  // Like for like: strided and in-place arrays that cuFFT's advanced layout expresses run cuFFT on the
  // spec's own arrays; dense specs and transposed layouts keep the dense baseline; planar sides are
  // timed as interleaved arrays of the same strides.
  auto request = [](const std::string& text) {
    return *baselineOf(*makeStockhamSpec(parseStockhamSpecText(text, "b.json")));
  };
  auto base = [&](const std::string& text) { return std::get<FftBaseline>(request(text).library); };
  EXPECT_FALSE(base(spec(1000, "f32")).inLayout);
  FftBaseline strided = base(
      spec(100, "f32",
           R"(, "input": {"stride": 3, "distance": 400, "offset": 5}, "output": {"stride": 2, "distance": 250})"));
  ASSERT_TRUE(strided.inLayout && strided.outLayout);
  EXPECT_EQ(strided.inLayout->stride, 3);
  EXPECT_EQ(strided.inLayout->distance, 400);
  EXPECT_EQ(strided.inLayout->offset, 5);
  EXPECT_EQ(strided.inLayout->span, 99 * 3 + 1);
  EXPECT_EQ(strided.outLayout->stride, 2);
  FftBaseline padded2d = base(
      R"({"name": "b", "family": "stockham", "precision": "f32", "lengths": [12, 40], "input": {"strides": [48, 1], "distance": 600}})");
  ASSERT_TRUE(padded2d.inLayout);
  EXPECT_EQ(padded2d.inLayout->embed, (std::vector<long long>{12, 48}));
  EXPECT_TRUE(
      base(R"({"name": "b", "family": "stockham", "precision": "f32", "lengths": [9, 10], "placement": "in_place"})")
          .inPlace)
      << "in place: cuFFT in place";
  EXPECT_FALSE(
      base(
          R"({"name": "b", "family": "stockham", "precision": "f32", "lengths": [12, 40], "input": {"strides": [1, 12], "distance": 480}})")
          .inLayout)
      << "transposed axes: no embed expresses them";
  const BaselineRequest planarRequest = request(
      spec(100, "f32",
           R"(, "input": {"layout": "planar"}, "output": {"layout": "planar", "stride": 8, "distance": 800})"));
  const FftBaseline& planar = std::get<FftBaseline>(planarRequest.library);
  ASSERT_TRUE(planar.inLayout && planar.outLayout);
  EXPECT_EQ(planar.outLayout->stride, 8);
  EXPECT_EQ(planar.outLayout->distance, 800);
  EXPECT_NE(planarRequest.description.find("planar sides interleaved"), std::string::npos) << planarRequest.description;
}

// A planar input reaches cuFFT interleaved at the spec's strides, and the baseline's error reads an interleaved
// output at the output's strides: exact reference -> ~0, one wrong value -> large.
TEST(Stockham, PlanarBaselineInterleavesAtTheSpecsStrides) {
  auto fs = makeStockhamSpec(parseStockhamSpecText(
      spec(
          12, "f64",
          R"(, "input": {"layout": "planar", "stride": 2, "distance": 25}, "output": {"stride": 3, "distance": 40, "offset": 2})"),
      "p.json"));
  TestData d = fs->randomInputs(3, 7);
  auto base = baselineOf(*fs);
  ASSERT_TRUE(base);
  const auto& fft = std::get<FftBaseline>(base->library);
  ASSERT_TRUE(fft.inLayout && fft.outLayout);
  const std::vector<unsigned char> in = base->denseInput(d, 3);
  ASSERT_EQ(in.size(), (2u * 25 + 11 * 2 + 1) * 16);
  std::vector<unsigned char> out((2 + 2 * 40 + 11 * 3 + 1) * 16, 0xff);
  for (int b = 0; b < 3; ++b) {
    std::vector<cdouble> x(12);
    for (int i = 0; i < 12; ++i) {
      double re, im, pre, pim;
      std::memcpy(&re, in.data() + 16 * (25 * b + 2 * i), 8);
      std::memcpy(&im, in.data() + 16 * (25 * b + 2 * i) + 8, 8);
      std::memcpy(&pre, d.arrays.at("input").data() + 8 * (25 * b + 2 * i), 8);
      std::memcpy(&pim, d.arrays.at("input_im").data() + 8 * (25 * b + 2 * i), 8);
      EXPECT_EQ(re, pre);
      EXPECT_EQ(im, pim);
      x[i] = {re, im};
    }
    auto y = referenceDft(x, 12, -1);
    for (int i = 0; i < 12; ++i) std::memcpy(out.data() + 16 * (2 + 40 * b + 3 * i), &y[i], 16);
  }
  EXPECT_LT(base->error(out, d, 3), 1e-14);
  out[16 * (2 + 40 * 2 + 3 * 7) + 7] ^= 0x01;
  EXPECT_GT(base->error(out, d, 3), 1e-3);
}

// Inputs in the spec's own storage; check() finds unwritten (NaN) and wrong outputs, and
// accepts the reference stored in the output's layout.
TEST(Stockham, RandomInputsAndCheck) {
  auto fs = makeStockhamSpec(
      parseStockhamSpecText(spec(12, "f64", R"(, "output": {"stride": 2, "distance": 30, "offset": 1})"), "c.json"));
  TestData d = fs->randomInputs(3, 5);
  ASSERT_EQ(d.arrays.at("input").size(), 3u * 12 * 16);
  std::vector<cdouble> x(12);
  for (int i = 0; i < 12; ++i) std::memcpy(&x[i], d.arrays.at("input").data() + 16 * (12 + i), 16);  // entry 1
  std::vector<unsigned char> out((1 + 2 * 30 + 11 * 2 + 1) * 16, 0xff);
  auto poisoned = fs->check(d, {{"output", out}}, 3);
  EXPECT_EQ(poisoned.unwritten, 3 * 12);
  EXPECT_FALSE(poisoned.ok());
  // Write the reference for every entry (from the stored inputs).
  for (int b = 0; b < 3; ++b) {
    std::vector<cdouble> xb(12);
    for (int i = 0; i < 12; ++i) std::memcpy(&xb[i], d.arrays.at("input").data() + 16 * (12 * b + i), 16);
    auto y = referenceDft(xb, 12, -1);
    for (int i = 0; i < 12; ++i) std::memcpy(out.data() + 16 * (1 + 30 * b + 2 * i), &y[i], 16);
  }
  Check good = fs->check(d, {{"output", out}}, 3);
  EXPECT_TRUE(good.ok()) << good.error << " " << good.detail;
  EXPECT_EQ(good.checked, 3);
  EXPECT_EQ(good.bound, 1e-14);
  out[16 * (1 + 30 * 2 + 2 * 5) + 7] ^= 0x01;  // an exponent bit: a wrong value in the last entry
  EXPECT_FALSE(fs->check(d, {{"output", out}}, 3).ok());
  // The baseline's view: the same numbers, dense.
  auto base = baselineOf(*fs);
  ASSERT_TRUE(base);
  std::vector<unsigned char> dense = base->denseInput(d, 3);
  EXPECT_EQ(dense, d.arrays.at("input"));
  // Overlapping entries are a spec error now (verify); past an interleaved layout's batch limit, randomInputs refuses.
  EXPECT_EQ(errorOf(spec(12, "f32", R"(, "output": {"distance": 4})")).first, "/output/distance");
  EXPECT_THROW(makeStockhamSpec(
                   parseStockhamSpecText(spec(12, "f32", R"(, "output": {"stride": 2, "distance": 1})"), "o.json"))
                   ->randomInputs(3, 1),
               std::invalid_argument);
}

TEST(Stockham, SweepCompilesWithoutSpills) {
  std::vector<std::string> texts;
  for (int n : {1, 2, 3, 5, 7, 11, 13, 16, 60, 64, 1000, 1024, 2187, 3125, 4096}) texts.push_back(spec(n, "f32"));
  for (int n : {2, 12, 343, 1024, 2048}) texts.push_back(spec(n, "f64"));
  for (int n : {256, 4096}) texts.push_back(spec(n, "f16"));
  for (const char* extra :
       {R"(, "input": {"layout": "planar"}, "output": {"layout": "planar"})", R"(, "input": {"type": "ci8"})",
        R"(, "input": {"type": "ci4", "length": 100})", R"(, "transform": "r2c")", R"(, "transform": "c2r")",
        R"(, "input": {"stride": 3, "distance": 1})"})
    texts.push_back(spec(1024, "f32", extra));
  texts.push_back(spec(1 << 20, "f32"));
  texts.push_back(spec(1 << 22, "f64"));
  texts.push_back(spec(10007, "f32"));
  texts.push_back(spec(16384, "f32"));
  texts.push_back(spec(16384, "f16"));
  texts.push_back(spec(8192, "f32", R"(, "transform": "c2r")"));
  texts.push_back(spec(2401, "f32", R"(, "factors": [49, 49])"));
  // Fused r2c split (the last pass writes mirrored pairs), the general r2c/c2r path, prime
  // radices 17..31, staged small lengths.
  for (int n : {32, 1000, 2048, 8192, 16384, 1202}) texts.push_back(spec(n, "f32", R"(, "transform": "r2c")"));
  texts.push_back(spec(12000, "f32", R"(, "transform": "c2r")"));
  texts.push_back(spec(1000, "f64", R"(, "transform": "r2c")"));
  for (int n : {24, 48, 323, 31 * 31 * 8, 29 * 23, 17 * 64}) texts.push_back(spec(n, "f32"));
  texts.push_back(spec(23 * 19, "f64"));
  for (const char* tuning :
       {R"({"direct_load": false, "direct_store": false})", R"({"block_threads": 1024})", R"({"threads_per_fft": 64})",
        R"({"register_target": 32})", R"({"index_per_group": true})", R"({"derive_twiddles": true})"})
    texts.push_back(spec(2048, "f32", fmt::format(R"(, "tuning": {})", tuning)));
  texts.push_back(spec(8192, "f32"));
  // 20480 = 128 x 160 spilled 680 B in its 160-point column-tiled rows at every register target until
  // SpillFree retried with fewer values per thread; Bluestein at a 7-smooth convolution length reaches the same plan.
  texts.push_back(spec(20480, "f32"));
  texts.push_back(spec(10007, "f32", R"(, "tuning": {"bluestein": "smooth"})"));
  texts.push_back(spec(4096, "f64"));
  texts.push_back(spec(2187, "f64", R"(, "tuning": {"derive_twiddles": true})"));
  texts.push_back(R"({"name": "s3d", "family": "stockham", "precision": "f32", "lengths": [16, 32, 64]})");
  // Fused 2D / 3D planes (KernelDesc::axes), and every Bluestein convolution length past 4096 that
  // bluesteinLength picks for f32 / f16 up to 8192 points (its smallest N): each one kernel, none may spill.
  for (const char* shape : {"[20, 20]", "[128, 128]", "[16, 16, 16]", "[9, 10, 11]", "[17, 19, 8]"})
    texts.push_back(
        fmt::format(R"({{"name": "s2d", "family": "stockham", "precision": "f32", "lengths": {}}})", shape));
  texts.push_back(R"({"name": "s2d", "family": "stockham", "precision": "f64", "lengths": [64, 64]})");
  texts.push_back(R"({"name": "s2d", "family": "stockham", "precision": "f16", "lengths": [64, 128]})");
  // One kernel past maxSingleKernelLength (maxOneKernelLength): 27^3 and f64 9^4 compile clean.
  texts.push_back(spec(19683, "f32"));
  texts.push_back(spec(6561, "f64"));
  // (The default up to 8192 is one of 2^a x 1, 3, 5, 7, 9, BluesteinLength.h; one N per default length.)
  std::set<long long> convolutions;
  for (int n = 2049; n <= 8192; ++n) {
    if (isCoopSmooth(n, maxPrimeRadix(Precision::F32))) continue;
    const int m =
        planStockham(parseStockhamSpecText(spec(n, "f32"), "m.json"), "sm_90", false).kernels.at(0).desc.length;
    if (convolutions.insert(m).second)
      for (const char* prec : {"f32", "f16"}) texts.push_back(spec(n, prec));
  }
  EXPECT_GE(convolutions.size(), 6u);
  // The specs in specs/ are Specs.EverySpecCompilesForSm80AndSm90WithoutSpills's (no spill allowed there).
  NvrtcProbe probe;
  for (const auto& t : texts) {
    StockhamSpec s = parseStockhamSpecText(t, "sweep.json");
    for (const char* arch : {"sm_80", "sm_90"}) {
      for (const SpillFreeKernel& sf : buildStockham(s, arch, &probe, false).kernels) {
        const StockhamKernel& k = sf.kernel;
        const CompileReport& r = sf.compiled;
        EXPECT_LE(k.geom.threadsPerFft * k.geom.fftsPerBlock, 1024);
        EXPECT_LE(k.geom.sharedBytes, k.geom.fftsPerBlock == 1 ? maxSharedPerBlock(arch) - 1024 : 160 * 1024);
        // Known exception: the one-kernel Bluestein convolution at M = 16384 (N 6145..8191) spills up to ~100 B in
        // every try of the spill-free search (1024 threads at 64 registers); kept, as its alternative, separate FFT
        // kernels through global memory, moves 2M more elements per FFT. One FFT past maxSingleKernelLength in one
        // kernel (f32 20480 as 16^3 x 5 on 512 threads: 360 B; the Bluestein halves of 10007 via 20480: 368-620 B) runs
        // faster than its two kernels despite the spill. Elsewhere a kernel may take kTolerableSpillBytes for a second
        // resident block (SpillFree.h).
        const int allowed = k.desc.convolve && k.desc.length == 16384 ? 128
                            : k.desc.length > maxSingleKernelLength(s.precision) && k.geom.fftsPerBlock == 1
                                ? 1024
                                : kTolerableSpillBytes;
        EXPECT_LE(r.spillStoreBytes, allowed) << k.desc.kernelName << " " << arch;
        EXPECT_LE(r.spillLoadBytes, allowed) << k.desc.kernelName << " " << arch;
        EXPECT_LE(r.stackFrameBytes, allowed) << k.desc.kernelName << " " << arch;
      }
    }
  }
}

TEST(Stockham, DoublePrecisionKernelsHaveNoFloatLiterals) {
  StockhamSpec s = parseStockhamSpecText(spec(3 * 5 * 7 * 11, "f64"), "f64.json");
  std::string src = emitStockhamKernel(planStockham(s, "sm_90").kernels[0].desc).source;
  EXPECT_FALSE(std::regex_search(src, std::regex(R"([0-9]f\b)"))) << "a float literal would cap f64 accuracy at ~1e-8";
  EXPECT_NE(src.find("double2"), std::string::npos);
}

// ---- Memory safety, limits, honest tuning, clean emitted source ----
namespace {
std::unique_ptr<FamilySpec> family(const std::string& text, const std::string& file = "f.json") {
  return makeStockhamSpec(parseStockhamSpecText(text, file));
}
std::string spec2d(const std::string& lengths, const std::string& extra) {
  return fmt::format(R"({{"name": "x", "family": "stockham", "precision": "f32", "lengths": {}{}}})", lengths, extra);
}
// A probe whose every compile spills: what explain and verify then say.
struct SpillingProbe : CompileProbe {
  CompileReport compile(const std::string&, const std::string&, const std::string&) override {
    return {255, 96, 96, 96};
  }
};
// Every candidate compiles clean at 96 registers.
struct CleanProbe : CompileProbe {
  CompileReport compile(const std::string&, const std::string&, const std::string&) override { return {96, 0, 0, 0}; }
};
bool anyContains(const std::vector<std::string>& v, const std::string& a, const std::string& b = "") {
  for (const auto& s : v)
    if (s.find(a) != std::string::npos && s.find(b) != std::string::npos) return true;
  return false;
}
}  // namespace

// Outputs whose elements collide within one entry, or whose entries 0 and 1 collide, are
// rejected at the JSON path; extents are computed in checked 64-bit arithmetic.
TEST(Stockham, OverlappingOutputsAndExtentOverflowAreSpecErrors) {
  EXPECT_EQ(errorOf(spec2d("[8, 4]", R"(, "output": {"strides": [1, 1], "distance": 64})")).first, "/output/strides");
  EXPECT_EQ(errorOf(spec2d("[8, 4]", R"(, "output": {"strides": [2, 1], "distance": 64})")).first,
            "/output/strides");  // 2*1 + 0 = 0*2 + 2
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "output": {"distance": 1})")).first, "/output/distance");
  auto r2c = errorOf(spec(1024, "f32", R"(, "transform": "r2c", "output": {"distance": 512})"));
  EXPECT_EQ(r2c.first, "/output/distance");
  EXPECT_NE(r2c.second.find("513"), std::string::npos) << r2c.second;
  EXPECT_NO_THROW(
      parseStockhamSpecText(spec(1024, "f32", R"(, "transform": "r2c", "output": {"distance": 513})"), "ok.json"));
  // Strides that are not nested but still distinct (addresses 0 2 4 3 5 7), and entries apart at any batch.
  EXPECT_EQ(family(spec2d("[2, 3]", R"(, "output": {"strides": [3, 2]})"))->emit({}).plan.buffer("output")->maxBatch,
            -1);
  // Overflowing extents: (2^26 - 1) * 2^40 wraps 64 bits; 16383 * 2^40 * 3 exceeds the 2^52 limit.
  EXPECT_EQ(errorOf(spec(1 << 26, "f32", R"(, "input": {"stride": 1099511627776})")).first, "/input/stride");
  EXPECT_EQ(errorOf(spec2d("[16384, 16384, 16384]",
                           R"(, "output": {"strides": [1099511627776, 1099511627776, 1099511627776]})"))
                .first,
            "/output/strides");
  EXPECT_EQ(errorOf(spec(1 << 26, "f32", R"(, "input": {"stride": 67108864, "offset": 1099511627776})")).first,
            "/input/offset");
  // In place, input and output are one layout.
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "placement": "in_place", "input": {"offset": 3})")).first, "/output");
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "placement": "in_place", "input": {"layout": "planar"})")).first, "/output");
  // A spec built in code gets the same checks.
  StockhamSpec bad = parseStockhamSpecText(spec(64, "f32"), "code.json");
  bad.output.distance = 1;
  EXPECT_THROW(makeStockhamSpec(bad), SpecError);
}

// stockham_729_f64_strided interleaves 4 entries (element stride 4, distance 1): the plan says
// so (maxBatch, enforced by the executor), verify warns, and the default batch keeps to it.
TEST(Stockham, InterleavedOutputStatesItsBatchLimit) {
  auto fs = makeStockhamSpec(
      parseStockhamSpecFile(std::string(WARPFORGE_SOURCE_DIR) + "/specs/stockham_729_f64_strided.json"));
  Generated g = fs->emit({});
  EXPECT_EQ(g.plan.buffer("output")->maxBatch, 4);
  EXPECT_EQ(g.plan.buffer("input")->maxBatch, -1);
  VerifyReport r = fs->verify();
  EXPECT_TRUE(anyContains(r.warnings, "/output", "batch 4")) << fmt::format("{}", fmt::join(r.warnings, "\n"));
  EXPECT_EQ(r.counts["max_batch"], 4);
  EXPECT_EQ(fs->defaultBatch(), 4);
  EXPECT_NO_THROW(fs->randomInputs(4, 1));
  EXPECT_THROW(fs->randomInputs(5, 1), std::invalid_argument);
  // Other interleavings: stride 3 over 8 entries of distance 2 collide at k = 3 (3 * 2 = 2 * 3).
  EXPECT_EQ(
      family(spec(64, "f32", R"(, "output": {"stride": 3, "distance": 2})"))->emit({}).plan.buffer("output")->maxBatch,
      3);
  EXPECT_EQ(
      family(spec(64, "f32", R"(, "output": {"stride": 2, "distance": 1})"))->emit({}).plan.buffer("output")->maxBatch,
      2);
  // Dense and padded layouts: any batch, no warning.
  auto dense = family(spec(1000, "f32", R"(, "output": {"distance": 1003})"));
  EXPECT_EQ(dense->emit({}).plan.buffer("output")->maxBatch, -1);
  EXPECT_TRUE(dense->verify().warnings.empty());
  EXPECT_EQ(dense->defaultBatch(), 33554);  // 512 MiB / 16000 B
  EXPECT_EQ(family(spec(64, "f32", ""))->defaultBatch(), 1 << 16);
  // Long FFTs: about 512 MiB of input and output (2^20 f32 points: 16 MiB per entry), not 2^16 entries.
  EXPECT_EQ(family(spec(1 << 20, "f32", ""))->defaultBatch(), 32);
  EXPECT_EQ(family(spec(1 << 24, "f16", ""))->defaultBatch(), 4);
}

// A radix list is checked as it is multiplied: it cannot wrap 2^64 back to the length.
TEST(Stockham, FactorProductIsChecked) {
  EXPECT_EQ(errorOf(spec(4096, "f32", R"(, "factors": [16, 16, 16, 16])")).first, "/factors/3");
  std::string many = "2";
  for (int i = 0; i < 80; ++i) many += ", 2";  // 2^81: wraps to 0 in 64 bits
  EXPECT_EQ(errorOf(spec(64, "f32", ", \"factors\": [" + many + "]")).first, "/factors/6");
}

// The stated limit on generated kernel size: at most 64 values per thread.
TEST(Stockham, KernelSizeIsLimited) {
  auto tiny = family(spec(4096, "f32", R"(, "tuning": {"threads_per_fft": 1})"));
  try {
    tiny->verify();
    ADD_FAILURE() << "threads_per_fft 1 on 4096 accepted";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.path(), "/tuning/threads_per_fft");
    EXPECT_NE(e.detail().find("64"), std::string::npos) << e.detail();
  }
  EXPECT_THROW(tiny->emit({}), SpecError);
  EXPECT_THROW(tiny->explain({}), SpecError);
  EXPECT_NO_THROW(family(spec(4096, "f32", R"(, "tuning": {"threads_per_fft": 64})"))->verify());
  // Every spec in specs/ is within the limit.
  for (const auto& e : std::filesystem::directory_iterator(std::string(WARPFORGE_SOURCE_DIR) + "/specs"))
    if (e.path().filename().string().rfind("stockham_", 0) == 0)
      EXPECT_NO_THROW(makeStockhamSpec(parseStockhamSpecFile(e.path().string()))->verify()) << e.path();
}

// verify of the longest prime the f32 planner accepts (a 2^26 Bluestein convolution) computes no
// tables: it took 38 s and 9 GB.
TEST(Stockham, VerifyOfAHugePrimeIsCheap) {
  // 33554393 (a 2^26 convolution) is past the stated table limit now; emit of it took 104 s and 10 GB.
  auto huge = errorOf(spec(33554393, "f32"));
  EXPECT_EQ(huge.first, "/length");
  EXPECT_NE(huge.second.find("256 MiB"), std::string::npos) << huge.second;
  EXPECT_EQ(errorOf(spec(4194319, "f64")).first, "/length");  // prime: f64 stops at a 2^23 convolution
  auto fs = family(spec(8388593, "f32"));                     // the largest prime under 2^23: a 2^24 convolution
  auto t0 = std::chrono::steady_clock::now();
  VerifyReport r = fs->verify();
  std::string ex = fs->explain({});
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 5.0);
  EXPECT_EQ(r.counts["kernels"].size(), 4u);
  EXPECT_NE(ex.find("Bluestein"), std::string::npos);
  // The table-less plan describes the same kernels as the full one (small case, both computed).
  auto small = parseStockhamSpecText(spec(10007, "f64"), "p.json");
  StockhamPlan full = planStockham(small, "sm_90"), bare = planStockham(small, "sm_90", false);
  ASSERT_EQ(full.kernels.size(), bare.kernels.size());
  for (std::size_t i = 0; i < full.kernels.size(); ++i)
    EXPECT_EQ(emitStockhamKernel(full.kernels[i].desc).source, emitStockhamKernel(bare.kernels[i].desc).source);
}

// Tuning values a kernel cannot honour are warnings naming the path; spills found by a probe too.
TEST(Stockham, UnhonouredTuningAndSpillsAreReported) {
  auto big = family(spec(64, "f32", R"(, "tuning": {"threads_per_fft": 512})"));
  EXPECT_TRUE(anyContains(big->verify().warnings, "/tuning/threads_per_fft", "512 asked"));
  auto wide = family(spec(4096, "f32", R"(, "tuning": {"block_threads": 1024})"));
  auto w = wide->verify().warnings;
  EXPECT_TRUE(anyContains(w, "/tuning/block_threads", "1024 asked")) << fmt::format("{}", fmt::join(w, "\n"));
  auto regs = family(
      spec(1024, "f32", R"(, "tuning": {"register_target": 255, "block_threads": 1024, "threads_per_fft": 64})"));
  EXPECT_TRUE(anyContains(regs->verify().warnings, "/tuning/register_target"));
  auto direct = family(
      spec(256, "f32", R"(, "transform": "r2c", "tuning": {"direct_store": true, "fused_split": false})"));
  EXPECT_TRUE(anyContains(direct->verify().warnings, "/tuning/direct_store"));
  // A prime half (Bluestein) has no two-kernel plan of its own to hold mirrored pairs, nor one smooth kernel.
  auto primeHalf = family(spec(2 * 8209, "f32", R"(, "transform": "r2c", "tuning": {"real_split": "mirrored"})"));
  EXPECT_TRUE(anyContains(primeHalf->verify().warnings, "/tuning/real_split", "no two-kernel plan"));
  auto c2c = family(spec(4096, "f32", R"(, "tuning": {"real_split": "fused"})"));
  EXPECT_TRUE(anyContains(c2c->verify().warnings, "/tuning/real_split", "c2c"));
  EXPECT_TRUE(
      family(spec(2, "f32", R"(, "transform": "r2c", "tuning": {"real_split": "fused"})"))->verify().warnings.empty());
  // Past the split kernel's limit (f32 16384) a fused half would spill: the plan keeps its rule and says so.
  auto longFused = family(spec(2 * 18432, "f32", R"(, "transform": "r2c", "tuning": {"real_split": "fused"})"));
  EXPECT_TRUE(anyContains(longFused->verify().warnings, "/tuning/real_split", "longer than one kernel holds"));
  // fuse_axes true where no plane fits one kernel (f64 keeps 31 out of its radices): one kernel per axis, said.
  auto noPlane = family(R"({"name": "np", "family": "stockham", "precision": "f64", "transform": "r2c", )"
                        R"("lengths": [32, 31], "tuning": {"fuse_axes": true}})");
  EXPECT_TRUE(anyContains(noPlane->verify().warnings, "/tuning/fuse_axes", "one kernel per axis"));
  EXPECT_FALSE(anyContains(family(R"({"name": "p", "family": "stockham", "precision": "f32", "transform": "r2c", )"
                                  R"("lengths": [32, 31], "tuning": {"fuse_axes": true}})")
                               ->verify()
                               .warnings,
                           "/tuning/fuse_axes", ""));
  auto odd = family(spec(2049, "f32", R"(, "transform": "c2r", "tuning": {"real_split": "kernel"})"));
  EXPECT_TRUE(anyContains(odd->verify().warnings, "/tuning/real_split", "odd length"));
  auto prime = family(spec(2 * 8209, "f32", R"(, "transform": "r2c", "tuning": {"real_split": "fused"})"));
  EXPECT_TRUE(anyContains(prime->verify().warnings, "/tuning/real_split", "not radix-smooth"));
  for (const char* form : {"fused", "kernel", "mirrored"})
    EXPECT_TRUE(
        family(spec(16416, "f32", fmt::format(R"(, "transform": "r2c", "tuning": {{"real_split": "{}"}})", form)))
            ->verify()
            .warnings.empty())
        << form;
  // Switches with nothing to switch, and the copy ahead (prefetch) overriding the grid and load it needs.
  EXPECT_TRUE(anyContains(family(spec(1024, "f32", R"(, "tuning": {"fuse_axes": true})"))->verify().warnings,
                          "/tuning/fuse_axes", "1D"));
  EXPECT_TRUE(anyContains(family(spec(1024, "f32", R"(, "tuning": {"half_scratch": true})"))->verify().warnings,
                          "/tuning/half_scratch", "f16"));
  EXPECT_TRUE(anyContains(family(spec(1024, "f32", R"(, "tuning": {"three_kernels": true})"))->verify().warnings,
                          "/tuning/three_kernels", "no FFT past one kernel"));
  EXPECT_TRUE(family(spec(1 << 20, "f32", R"(, "tuning": {"three_kernels": true})"))->verify().warnings.empty());
  EXPECT_TRUE(anyContains(
      family(spec(1024, "f32", R"(, "tuning": {"persistent": false, "work_queue": true})"))->verify().warnings,
      "/tuning/work_queue", "persistent"));
  EXPECT_TRUE(anyContains(
      family(spec(65536, "f32", R"(, "transform": "r2c", "tuning": {"prefetch": true})"))->verify().warnings,
      "/tuning/prefetch", "no kernel of this plan"));
  EXPECT_TRUE(anyContains(
      family(spec(1024, "f32", R"(, "tuning": {"prefetch": true, "persistent": false})"))->verify().warnings,
      "/tuning/prefetch", "persistent, work_queue and direct_load as given do not apply"));
  EXPECT_TRUE(family(spec(1024, "f32", R"(, "tuning": {"prefetch": true})"))->verify().warnings.empty());
  EXPECT_TRUE(anyContains(family(spec(1024, "f32", R"(, "tuning": {"streamed_prime": true})"))->verify().warnings,
                          "/tuning/streamed_prime", "nothing to switch"));
  EXPECT_TRUE(anyContains(family(spec(201, "f32", R"(, "tuning": {"streamed_prime": true})"))->verify().warnings,
                          "/tuning/streamed_prime", "radix 67 cooperatively"));  // 67 x 3: above the limit of 61
  EXPECT_TRUE(family(spec(87, "f64", R"(, "tuning": {"streamed_prime": false})"))->verify().warnings.empty());
  EXPECT_TRUE(family(spec(87, "f64", R"(, "tuning": {"streamed_prime": true})"))->verify().warnings.empty());
  EXPECT_TRUE(family(spec(1517, "f32", R"(, "tuning": {"streamed_prime": true})"))->verify().warnings.empty())
      << "41 x 37: only the largest prime streams";
  EXPECT_TRUE(family(spec(16384, "f32", R"(, "tuning": {"persistent": false})"))->verify().warnings.empty());
  // Honoured tuning: silence.
  EXPECT_TRUE(
      makeStockhamSpec(parseStockhamSpecFile(std::string(WARPFORGE_SOURCE_DIR) + "/specs/stockham_2187_f32_tuned.json"))
          ->verify()
          .warnings.empty());
  SpillingProbe probe;
  std::string ex = family(spec(64, "f32"))->explain(EmitTarget{"sm_90", &probe});
  EXPECT_NE(ex.find("warning: kernel s64_k0 spills on sm_90: 96 bytes stored"), std::string::npos) << ex;
  EXPECT_NE(ex.find("least spilling choice: 1 kernel(s) spill"), std::string::npos) << ex;
  EXPECT_EQ(ex.find("(spill-free)"), std::string::npos) << "the header must not call a spilling kernel spill-free";
  CleanProbe clean;
  EXPECT_NE(family(spec(64, "f32"))->explain(EmitTarget{"sm_90", &clean}).find("(spill-free)"), std::string::npos);
}

// A probe modelling ptxas under __launch_bounds__(threads, minBlocks): a kernel needs `need(threads)` registers and
// gets at most 65536 / (minBlocks x threads in warps), in eights; short of its need it spills.
struct LaunchBoundsProbe : CompileProbe {
  std::function<int(int)> need;
  CompileReport compile(const std::string& source, const std::string&, const std::string&) override {
    std::smatch m;
    if (!std::regex_search(source, m, std::regex(R"(__launch_bounds__\((\d+), (\d+)\))"))) return {};
    const int threads = std::stoi(m[1]), warpThreads = (threads + 31) / 32 * 32, minBlocks = std::stoi(m[2]);
    const int cap = std::min(255, 65536 / (minBlocks * warpThreads) / 8 * 8), want = need(threads);
    const int spill = want > cap ? 4 * (want - cap) : 0;
    return {std::min(want, cap), spill, spill, spill};
  }
};

// tuning split: the column FFT length n1 of a two-kernel plan N = n1 x n2 (c2c, and the half of a long r2c through
// mirrored pairs); a value that is no such split keeps the rule's and is a warning.
TEST(Stockham, TuningSplitSetsTheColumnLength) {
  auto lengths = [](const std::string& extra) {
    std::vector<int> v;
    for (const auto& k : planStockham(parseStockhamSpecText(spec(32768, "f32", extra), "s.json"), "sm_90").kernels)
      v.push_back(k.desc.length);
    return v;
  };
  EXPECT_EQ(lengths(""), (std::vector<int>{128, 256}));
  EXPECT_EQ(lengths(R"(, "tuning": {"split": 32})"), (std::vector<int>{32, 1024}));
  EXPECT_EQ(lengths(R"(, "tuning": {"split": 64})"), (std::vector<int>{64, 512}));
  const StockhamPlan real = planStockham(
      parseStockhamSpecText(spec(65536, "f32", R"(, "transform": "r2c", "tuning": {"split": 64})"), "s.json"), "sm_90");
  ASSERT_EQ(real.kernels.size(), 2u);
  EXPECT_EQ(real.kernels[0].desc.length, 64);
  EXPECT_TRUE(real.kernels[1].desc.mirrored);
  auto none = family(spec(32768, "f32", R"(, "tuning": {"split": 3})"));
  EXPECT_TRUE(anyContains(none->verify().warnings, "/tuning/split", "columns of 3"));
  auto oneKernel = family(spec(4096, "f32", R"(, "tuning": {"split": 64})"));
  EXPECT_TRUE(anyContains(oneKernel->verify().warnings, "/tuning/split"));
  EXPECT_TRUE(family(spec(32768, "f32", R"(, "tuning": {"split": 32})"))->verify().warnings.empty());
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "tuning": {"split": 1})")).first, "/tuning/split");
}

// tuning spill_bytes: a first try spilling at most that much is kept (the fused r2c 32768 half at 1024 threads and
// 64 registers); without it the search relaxes the same kernel to fewer threads.
TEST(Stockham, SpillBytesKeepsAFirstTryThatSpillsLittle) {
  LaunchBoundsProbe probe;
  probe.need = [](int threads) { return threads >= 1024 ? 68 : 100; };  // 16 bytes of spill at 1024 threads
  auto built = [&](const std::string& tuning) {
    const KernelDesc d = planStockham(parseStockhamSpecText(spec(32768, "f32", R"(, "transform": "r2c")" + tuning),
                                                            "s.json"),
                                      "sm_90")
                             .kernels[0]
                             .desc;
    return emitStockhamSpillFree(d, "sm_90", &probe);
  };
  const SpillFreeKernel relaxed = built("");
  EXPECT_FALSE(relaxed.compiled.spills());
  EXPECT_LT(relaxed.kernel.geom.threadsPerFft, 1024);
  const SpillFreeKernel kept = built(R"(, "tuning": {"spill_bytes": 16})");
  EXPECT_EQ(kept.kernel.geom.threadsPerFft, 1024);
  EXPECT_EQ(kept.compiled.spillStoreBytes, 16);
  const SpillFreeKernel tooMuch = built(R"(, "tuning": {"spill_bytes": 15})");
  EXPECT_LT(tooMuch.kernel.geom.threadsPerFft, 1024);
  EXPECT_EQ(errorOf(spec(64, "f32", R"(, "tuning": {"spill_bytes": 300})")).first, "/tuning/spill_bytes");
  EXPECT_EQ(stockhamTuningMembers(
                {}, parseStockhamSpecText(spec(32768, "f32", R"(, "transform": "r2c", "tuning": {"spill_bytes": 16})"),
                                          "s.json")
                        .tuning)["tuning"]
                .value("spill_bytes", 0),
            16);
}

// A spill-free kernel that fits one block per SM by its registers is traded for a spill-free variant that fits
// two or more (SpillFree.cpp moreResident); a geometry the tuning pins is kept.
TEST(Stockham, OneBlockPerSmKernelsGetAVariantWithMoreResidentThreads) {
  LaunchBoundsProbe probe;
  probe.need = [](int threads) { return threads >= 400 ? 100 : 80; };  // a one-kernel Bluestein convolution's shape
  // (2688 = 8 x 8 x 7 x 6, pinned)
  const KernelDesc d = planStockham(parseStockhamSpecText(spec(1329, "f32", R"(, "tuning": {"bluestein": 2688})"),
                                                          "o.json"),
                                    "sm_90")
                           .kernels[0]
                           .desc;
  ASSERT_TRUE(d.convolve);
  ASSERT_EQ(d.length, 2688);
  ASSERT_EQ(emitStockhamKernel(d).geom.threadsPerFft, 448) << "the first choice: one radix-6 butterfly per thread";
  auto blocks = [](const SpillFreeKernel& k) {
    const int warps = (k.kernel.geom.threadsPerFft * k.kernel.geom.fftsPerBlock + 31) / 32;
    return 65536 / (warps * 32 * k.compiled.registers);
  };
  SpillFreeKernel k = emitStockhamSpillFree(d, "sm_90", &probe);
  EXPECT_FALSE(k.compiled.spills());
  EXPECT_GE(blocks(k), 2) << k.kernel.geom.threadsPerFft << " threads, " << k.compiled.registers << " registers";
  EXPECT_LT(k.kernel.geom.threadsPerFft, 448);
  // Column tiles keep whole rows: the 1024-point columns of 2^20 at 145 registers run 8 FFTs per block (64-byte rows);
  // 128-thread blocks would fit three blocks at 32-byte rows (rows too short for their gain) and are not taken.
  struct ColumnProbe : LaunchBoundsProbe {
  } columns;
  columns.need = [](int) { return 145; };
  const KernelDesc c = planStockham(parseStockhamSpecText(spec(1 << 20, "f32"), "c.json"), "sm_90").kernels[0].desc;
  SpillFreeKernel ck = emitStockhamSpillFree(c, "sm_90", &columns);
  ASSERT_TRUE(ck.kernel.geom.fftMajorLoad);
  EXPECT_EQ(ck.kernel.geom.fftsPerBlock, 8);
  EXPECT_EQ(blocks(ck), 1);
  // Pinned by the tuning: 448 threads at the relaxed target, one block.
  KernelDesc pinned = d;
  pinned.tuning.registerTarget = 56;  // (not 48, the default: SpillFree memoises by the first source)
  SpillFreeKernel p = emitStockhamSpillFree(pinned, "sm_90", &probe);
  EXPECT_EQ(p.kernel.geom.threadsPerFft, 448);
  EXPECT_EQ(blocks(p), 1);
  // Where no variant fits two blocks spill-free, the first spill-free choice stays.
  struct GreedyProbe : LaunchBoundsProbe {
  } greedy;  // another type: SpillFree memoises per probe type
  greedy.need = [](int threads) { return threads >= 400 ? 100 : 250; };  // fewer threads would spill at two blocks
  SpillFreeKernel g = emitStockhamSpillFree(d, "sm_90", &greedy);
  EXPECT_FALSE(g.compiled.spills());
  EXPECT_EQ(g.kernel.geom.threadsPerFft, 448);
  EXPECT_EQ(blocks(g), 1);
}

// Nothing from the spec's file name or description reaches the emitted source.
TEST(Stockham, EmittedSourceHoldsNoSpecText) {
  const std::string file = "evil\n static int injected_path = 1; //\r/x.json";
  auto fs = family(spec(64, "f32", R"(, "description": "line\nstatic int injected_desc = 2;\r")"), file);
  Generated g = fs->emit({});
  for (const auto& src : g.plan.sources) {
    EXPECT_EQ(src.text.find("injected"), std::string::npos) << src.fileName;
    EXPECT_EQ(src.text.find("evil"), std::string::npos) << src.fileName;
    for (char c : src.text)
      EXPECT_TRUE(c == '\n' || static_cast<unsigned char>(c) >= 0x20)
          << src.fileName << ": control character " << int(c);
  }
}

// ---- The plan's semantics, run on the CPU ----
// Every kernel of a plan interpreted in double from its KernelDesc, as the emitter reads it:
// digits of the FFT index, addresses through the Access (real arrays as pairs, imStride), the
// valid bounds, load/store tables, the c2r merge, a DFT of the kernel's length (none for a copy
// kernel), the four-step twiddle, the r2c split. The outputs go through the family's own check
// against FFTW, so the plans' strides, scratch buffers and fusions are checked without a GPU
// (the emitted code's own reading of a KernelDesc is what the GPU tests check).
namespace {
struct EmuBuffer {
  std::vector<double> re, im;  // interleaved complex: re holds (re, im) pairs; planar: two arrays; real: re
  bool planar = false, real = false;
  cdouble get(long long a, long long imOff) const {
    if (real) return {re.at(a), re.at(a + imOff)};
    if (planar) return {re.at(a), im.at(a)};
    return {re.at(2 * a), re.at(2 * a + 1)};
  }
  void put(long long a, long long imOff, cdouble v) {
    if (real) {
      re.at(a) = v.real();
      re.at(a + imOff) = v.imag();
    } else if (planar) {
      re.at(a) = v.real();
      im.at(a) = v.imag();
    } else {
      re.at(2 * a) = v.real();
      re.at(2 * a + 1) = v.imag();
    }
  }
};

std::vector<double> decodeScalars(const std::vector<unsigned char>& bytes, bool f64) {
  std::vector<double> out(bytes.size() / (f64 ? 8 : 4));
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (f64) std::memcpy(&out[i], bytes.data() + 8 * i, 8);
    else {
      float f;
      std::memcpy(&f, bytes.data() + 4 * i, 4);
      out[i] = f;
    }
  }
  return out;
}
std::vector<unsigned char> encodeScalars(const std::vector<double>& v, bool f64) {
  std::vector<unsigned char> out(v.size() * (f64 ? 8 : 4));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (f64) std::memcpy(out.data() + 8 * i, &v[i], 8);
    else {
      float f = static_cast<float>(v[i]);
      std::memcpy(out.data() + 4 * i, &f, 4);
    }
  }
  return out;
}

// Runs the plan of a f32/f64 spec (plain float storage) on `batch` random entries and checks it.
Check emulatePlan(const std::string& text, long long batch, std::uint64_t seed,
                  const std::function<void(StockhamPlan&)>& mutate = {}, const std::string& arch = "sm_90") {
  const StockhamSpec s = parseStockhamSpecText(text, "emu.json");
  auto fs = makeStockhamSpec(s);
  StockhamPlan p = planStockham(s, arch);
  if (mutate) mutate(p);
  const LaunchPlan lp = fs->emit(EmitTarget{arch, nullptr}).plan;
  const bool f64 = s.f64();
  TestData data = fs->randomInputs(batch, seed);
  std::map<Buffer, EmuBuffer> bufs;
  EmuBuffer& in = bufs[Buffer::Input];
  in.real = s.transform == Transform::R2C;
  in.planar = s.input.planar;
  in.re = decodeScalars(data.arrays.at("input"), f64);
  if (in.planar) in.im = decodeScalars(data.arrays.at("input_im"), f64);
  EmuBuffer& out = bufs[Buffer::Output];
  out.real = s.transform == Transform::C2R;
  out.planar = s.output.planar;
  const PlanBuffer* ob = lp.buffer("output");
  const long long outScalars = ob->elements(batch, ob->perBatchElems) * (!out.real && !out.planar ? 2 : 1);
  out.re.assign(outScalars, std::nan(""));
  if (out.planar) out.im.assign(outScalars, std::nan(""));
  if (s.inPlace) out = in;
  const Buffer tmps[3] = {Buffer::Tmp0, Buffer::Tmp1, Buffer::Tmp2};
  for (int t = 0; t < 3; ++t) bufs[tmps[t]].re.assign(2 * p.tmpElemsPerBatch[t] * batch, std::nan(""));
  for (const StockhamPlanKernel& pk : p.kernels) {
    const KernelDesc& d = pk.desc;
    EmuBuffer& src = bufs[s.inPlace && pk.src == Buffer::Input ? Buffer::Output : pk.src];
    EmuBuffer& dst = bufs[pk.dst];
    const int L = d.length;
    auto es = [](const Access& a) { return isReal(a.storage) && !a.scalarReal ? 2 * a.elemStride : a.elemStride; };
    auto read = [&](long long addr) {
      return d.in.scalarReal ? cdouble(src.re.at(addr), 0) : src.get(addr, d.in.imOffset());
    };
    auto write = [&](long long addr, cdouble v) {
      if (d.out.scalarReal) dst.re.at(addr) = v.real();
      else dst.put(addr, d.out.imOffset(), v);
    };
    // Digit 0 of a mirrored kernel runs over all its FFTs for each value of the other digits (their split and merge
    // pair FFT r with m - r); other kernels: one group per FFT.
    const long long m = d.mirrored ? d.batchCount.at(0) : 1;
    // A paired batch: the last digit runs over pairs of entries, the second of an odd count's last pair absent.
    long long groups = d.pairedBatch ? (batch + 1) / 2 : batch;
    for (std::size_t c = d.mirrored ? 1 : 0; c < d.batchCount.size(); ++c) groups *= d.batchCount[c];
    // A real plane (RealPlanes.h): rows of M in Z, rows of H = N/2 + 1 on the complex side, each row r paired with
    // its mirror (every outer index negated).
    const bool plane = d.fuse == Fuse::PlaneSplit || d.fuse == Fuse::PlaneMerge;
    const int M = plane ? d.axes.back() : 1, rows = L / M, H = d.fuseN / 2 + 1;
    auto mirrorRow = [&](long long r) {
      long long mirror = 0, after = rows;
      for (std::size_t a = 0; a + 1 < d.axes.size(); ++a) {
        after /= d.axes[a];
        mirror += (d.axes[a] - (r / after) % d.axes[a]) % d.axes[a] * after;
      }
      return mirror;
    };
    const int countIn = d.fuse == Fuse::PlaneMerge ? rows * H : L + (d.fuse == Fuse::C2RPre ? 1 : 0),
              countOut = d.fuse == Fuse::PlaneSplit ? rows * H : L + (d.fuse == Fuse::R2CPost ? 1 : 0);
    auto table = [&](const std::vector<cdouble>& t, long long i, long long d0) { return t.at(i) * t.at(L + 1 + d0); };
    for (long long grp = 0; grp < groups; ++grp) {
      std::vector<std::vector<long long>> dig(m);
      std::vector<std::vector<cdouble>> X(m), Y(m);
      for (long long r = 0; r < m; ++r) {
        long long q = grp;
        if (d.mirrored) dig[r].push_back(r);
        for (std::size_t c = d.mirrored ? 1 : 0; c < d.batchCount.size(); ++c) {
          dig[r].push_back(q % d.batchCount[c]);
          q /= d.batchCount[c];
        }
        dig[r].push_back(q);
      }
      auto base = [&](const Access& a, long long r) {
        long long b = a.offset;
        for (std::size_t k = 0; k < dig[r].size(); ++k) b += dig[r][k] * a.batchStride.at(k);
        return b;
      };
      for (long long r = 0; r < m; ++r) {
        const long long bin = base(d.in, r), d0 = dig[r][0];
        X[r].assign(countIn, 0.0);
        for (int i = 0; i < countIn; ++i) {
          if (d.mirrored && i == L && d0 != 0) continue;  // the half's element L is FFT 0's
          const long long nat = i * d.natInElem + d0 * d.natInDigit0;
          if ((d.inValid >= 0 && nat >= d.inValid) || (d.inZeroFrom >= 0 && i >= d.inZeroFrom)) continue;
          const long long addr = bin + i * es(d.in);
          const bool mirror = d.in.hermitianN && nat > d.in.hermitianN / 2;
          const long long at = mirror ? addr + (d.in.hermitianN - 2 * nat) * d.in.hermitianStride : addr;
          X[r][i] = mirror ? std::conj(read(at)) : read(at);
          if (d.in.pairOffset) {  // x_2p + i x_2p+1 (a real scalar each, or Hermitian halves)
            const bool second = 2 * dig[r].back() + 1 < batch;
            cdouble a = d.in.scalarReal ? cdouble(src.re.at(at), 0) : X[r][i];
            cdouble b = !second           ? 0.0
                        : d.in.scalarReal ? cdouble(src.re.at(at + d.in.pairOffset), 0)
                                          : read(at + d.in.pairOffset);
            if (mirror) b = std::conj(b);
            if (d.in.hermitianN && nat == 0) a.imag(0), b.imag(0);  // X[0]'s imaginary part is dropped
            X[r][i] = a + cdouble(0, 1) * b;
          }
          if (d.loadTable) X[r][i] *= pk.loadTable.at(nat);
        }
      }
      for (long long r = 0; r < m; ++r) {
        const long long d0 = dig[r][0], mr = (m - r) % m;
        std::vector<cdouble> z(L);
        for (int k = 0; k < L; ++k) {
          if (d.fuse == Fuse::PlaneMerge) {
            const long long pr = k / M, pc = k % M, pm = mirrorRow(pr);
            if (d.fuseN % 2) {
              z[k] = pc <= d.fuseN / 2 ? X[r][pr * H + pc] : std::conj(X[r][pm * H + d.fuseN - pc]);
              continue;
            }
            const cdouble a = X[r][pr * H + pc], b = X[r][pm * H + M - pc];
            const cdouble o = pk.loadTable.at(pc) * cdouble(a.real() - b.real(), a.imag() + b.imag());
            z[k] = {a.real() + b.real() - o.imag(), a.imag() - b.imag() + o.real()};
            continue;
          }
          if (d.fuse != Fuse::C2RPre) {
            z[k] = X[r][k];
            continue;
          }
          const cdouble a = X[r][k];
          const cdouble b = d.mirrored ? X[mr][d0 == 0 ? L - k : L - 1 - k] : X[r][L - k];
          const cdouble w = d.mirrored ? table(pk.loadTable, k, d0) : pk.loadTable.at(k);
          const cdouble o = w * cdouble(a.real() - b.real(), a.imag() + b.imag());
          z[k] = {a.real() + b.real() - o.imag(), a.imag() - b.imag() + o.real()};
        }
        std::vector<cdouble> y = d.factors.empty()   ? z
                                 : d.axes.size() > 1 ? referenceDftNd(z, d.axes, d.sign)
                                                     : referenceDft(z, L, d.sign);
        if (d.convolve) {  // Bluestein in one kernel: times FFT(conj chirp)/M (the big_lo slot), inverse FFT
          for (int i = 0; i < L; ++i) y[i] *= pk.bigLo.at(i);
          y = referenceDft(y, L, +1);
        }
        if (d.bigN > 0)
          for (int i = 0; i < L; ++i) {
            const long long mm = i * d0;
            y[i] *= pk.bigLo.at(mm % d.bigSplit) * pk.bigHi.at(mm / d.bigSplit);
          }
        Y[r] = std::move(y);
      }
      for (long long r = 0; r < m; ++r) {
        const long long bout = base(d.out, r), d0 = dig[r][0], mr = (m - r) % m;
        for (int i = 0; i < countOut; ++i) {
          if (d.mirrored && i == L && d0 != 0) continue;
          cdouble v = i < L ? Y[r][i] : 0.0;
          if (d.fuse == Fuse::PlaneSplit) {
            const long long pr = i / H, pc = i % H, pm = mirrorRow(pr);
            const cdouble za = Y[r][pr * M + pc % M], zb = Y[r][pm * M + (M - pc) % M];
            const cdouble ev(0.5 * (za.real() + zb.real()), 0.5 * (za.imag() - zb.imag()));
            const cdouble od(0.5 * (za.imag() + zb.imag()), -0.5 * (za.real() - zb.real()));
            v = d.fuseN % 2 ? Y[r][pr * M + pc] : ev + pk.storeTable.at(pc) * od;
          }
          if (d.fuse == Fuse::R2CPost) {
            const cdouble za = Y[r][i % L],
                          zb = d.mirrored ? Y[mr][d0 == 0 ? (L - i) % L : L - 1 - i] : Y[r][(L - i) % L];
            const cdouble ev(0.5 * (za.real() + zb.real()), 0.5 * (za.imag() - zb.imag()));
            const cdouble od(0.5 * (za.imag() + zb.imag()), -0.5 * (za.real() - zb.real()));
            v = ev + (d.mirrored ? table(pk.storeTable, i, d0) : pk.storeTable.at(i)) * od;
          }
          const long long nat = i * d.natOutElem + d0 * d.natOutDigit0;
          if ((d.outValid >= 0 && nat >= d.outValid) || (d.outDropFrom >= 0 && i >= d.outDropFrom)) continue;
          if (d.storeTable) v *= pk.storeTable.at(nat);
          if (!d.out.pairOffset) {
            write(bout + i * es(d.out), v);
            continue;
          }
          const bool second = 2 * dig[r].back() + 1 < batch;
          const long long at = bout + i * es(d.out);
          if (d.fuse == Fuse::PairSplit) {  // outputs k <= N / 2 from the lower FFT of each mirrored pair
            if (r > m / 2) continue;
            const cdouble za = Y[r][0], zb = std::conj(Y[mr][0]);
            write(at, 0.5 * (za + zb));
            if (second) write(at + d.out.pairOffset, (za - zb) / cdouble(0, 2));
          } else {  // a scalar real array: real part to entry 2p, imaginary part to 2p + 1
            dst.re.at(at) = v.real();
            if (second) dst.re.at(at + d.out.pairOffset) = v.imag();
          }
        }
      }
    }
  }
  std::map<std::string, std::vector<unsigned char>> outputs;
  outputs["output"] = encodeScalars(bufs[Buffer::Output].re, f64);
  if (out.planar) outputs["output_im"] = encodeScalars(bufs[Buffer::Output].im, f64);
  return fs->check(data, outputs, batch);
}
}  // namespace

// The plans of every path (one kernel, two kernels, Bluestein, r2c/c2r fused and general, 2D/3D,
// strided/planar/in place) compute the transform the spec names, run in double on the CPU.
TEST(Stockham, PlansComputeTheTransformOnTheCpu) {
  std::vector<std::string> texts;
  auto add = [&](const std::string& prec, const std::string& body) {
    texts.push_back(fmt::format(R"({{"name": "emu", "family": "stockham", "precision": "{}", {}}})", prec, body));
  };
  for (const char* prec : {"f64", "f32"}) {
    for (int n : {1, 12, 323, 1000, 1009, 4096, 4100, 7 * 4096, 1 << 14}) add(prec, fmt::format(R"("length": {})", n));
    add(prec,
        R"("length": 360, "direction": "inverse", "input": {"stride": 3, "distance": 1100, "offset": 5}, "output": {"stride": 2, "distance": 800, "offset": 7, "layout": "planar"})");
    add(prec,
        R"("length": 12288, "input": {"stride": 2, "distance": 24600, "offset": 1}, "output": {"layout": "planar"})");
    add(prec,
        R"("lengths": [12, 40], "input": {"strides": [90, 2], "distance": 1200, "offset": 3}, "output": {"strides": [1, 12], "distance": 500, "offset": 1, "layout": "planar"})");
    add(prec, R"("lengths": [9, 10, 11], "placement": "in_place")");
    add(prec, R"("lengths": [17, 19, 8])");
    // r2c / c2r: fused (N/2 smooth, <= 4096) and the general path (N/2 with a prime above 31, or above 4096).
    for (int n : {2, 4, 6, 74, 646, 1000, 1202, 8192, 8198, 9000, 16384}) {
      add(prec, fmt::format(R"("transform": "r2c", "length": {})", n));
      add(prec, fmt::format(R"("transform": "c2r", "length": {})", n));
    }
    add(prec,
        R"("transform": "r2c", "length": 1202, "input": {"stride": 3, "distance": 3700, "offset": 2}, "output": {"stride": 2, "distance": 1300, "offset": 4, "layout": "planar"})");
    add(prec,
        R"("transform": "c2r", "length": 12000, "input": {"layout": "planar", "stride": 2, "distance": 12010}, "output": {"stride": 3, "distance": 36001, "offset": 1})");
    add(prec, R"("transform": "r2c", "length": 16382, "input": {"stride": 2, "distance": 32770, "offset": 1})");
    // r2c / c2r past maxFusedRealHalf: the FFT of the half into scratch and a split (merge) kernel holding one FFT
    // (f32 16416 = 2 x 8208, 24000); past maxSplitKernelHalf the half's two-kernel plan with the split in its row
    // kernel and the merge in its column kernel (mirrored FFT pairs; f64 16416 and 24000, 2^17), a long Bluestein half
    // with a mirrored split or merge kernel of its own (16418 = 2 x 8209); odd lengths as complex transforms of N
    // (1001, 1009, 3^10 in two kernels, 4097 = 17 x 241 by Bluestein).
    for (int n : {16416, 24000, 1 << 17, 16418, 1001, 1009, 59049, 4097}) {
      add(prec, fmt::format(R"("transform": "r2c", "length": {})", n));
      add(prec, fmt::format(R"("transform": "c2r", "length": {})", n));
    }
    add(prec,
        R"("transform": "r2c", "length": 16416, "input": {"stride": 3, "distance": 49300, "offset": 2}, "output": {"stride": 2, "distance": 16500, "offset": 1, "layout": "planar"})");
    add(prec,
        R"("transform": "c2r", "length": 1001, "input": {"layout": "planar", "stride": 2, "distance": 1010}, "output": {"stride": 3, "distance": 3004, "offset": 1})");
    // 2D / 3D r2c / c2r in cuFFT's layout (innermost axis halved plus one on the complex side), odd and non-smooth
    // axes.
    add(prec, R"("transform": "r2c", "lengths": [12, 40])");
    add(prec, R"("transform": "c2r", "lengths": [12, 40])");
    add(prec, R"("transform": "r2c", "lengths": [6, 10, 9])");
    add(prec, R"("transform": "c2r", "lengths": [9, 17, 21])");
    add(prec,
        R"("transform": "r2c", "lengths": [5, 100], "input": {"strides": [110, 1], "distance": 600, "offset": 3}, "output": {"strides": [60, 1], "distance": 320, "layout": "planar"})");
    add(prec,
        R"("transform": "c2r", "lengths": [7, 8], "input": {"layout": "planar", "strides": [5, 1], "distance": 40, "offset": 1})");
    add(prec, R"("transform": "r2c", "lengths": [3, 4, 4096])");
    add(prec, R"("transform": "r2c", "lengths": [415, 40])");
    add(prec, R"("transform": "c2r", "lengths": [415, 40])");
    // 2D / 3D c2c with axes of any length (Bluestein per axis).
    add(prec, R"("lengths": [131, 12])");
    add(prec, R"("lengths": [10, 263], "direction": "inverse")");
    add(prec, R"("lengths": [9, 17, 131], "placement": "in_place")");
    // Three kernels (N = n1 x m1 x m2, the inner rows ordered k1 first), at user strides and in place.
    add(prec, R"("length": 32768, "tuning": {"three_kernels": true})");
    add(prec, R"("length": 22050, "direction": "inverse", "tuning": {"three_kernels": true})");
    add(prec,
        R"("length": 65536, "input": {"stride": 3, "distance": 196700, "offset": 2}, "output": {"stride": 2, "distance": 131100, "offset": 1, "layout": "planar"}, "tuning": {"three_kernels": true})");
    add(prec, R"("length": 18432, "placement": "in_place", "tuning": {"three_kernels": true})");
  }
  // Each planned for sm_90 and for sm_86, whose smaller shared memory keeps lengths past maxSingleKernelLength (the
  // three-kernel cases, 22050 and 18432) and f64 halves past ~5900 in several kernels (maxOneKernelLength).
  int n = 0;
  for (const auto& t : texts)
    for (const char* arch : {"sm_90", "sm_86"}) {
      const std::uint64_t seed = 16000 + n++;
      Check c = emulatePlan(t, 3, seed, {}, arch);
      EXPECT_TRUE(c.ok()) << t << " " << arch << " seed " << seed << ": error " << c.error << " (bound " << c.bound
                          << "), unwritten " << c.unwritten;
    }
  std::printf("[stockham] %d plans run on the CPU against FFTW\n", n);
  // The check can fail: a split kernel that pairs real parts with the wrong imaginary offset, or a
  // column kernel of the wrong direction, is caught.
  // (Planned for sm_86, whose shared memory leaves an f64 half of 8192 two kernels: the column kernel reads real
  // pairs.)
  const std::string general =
      R"({"name": "emu", "family": "stockham", "precision": "f64", "transform": "r2c", "length": 16384})";
  auto caught = [&](const std::function<void(StockhamPlan&)>& m) {
    try {
      return !emulatePlan(general, 2, 1, m, "sm_86").ok();
    } catch (const std::out_of_range&) {
      return true;  // reads past the array: caught as well
    }
  };
  EXPECT_TRUE(emulatePlan(general, 2, 1, {}, "sm_86").ok());
  EXPECT_TRUE(caught([](StockhamPlan& p) {
    p.kernels[0].desc.in.imStride = 0;
  }));  // the column kernel's pairs: imaginary part N2 away
  EXPECT_TRUE(caught([](StockhamPlan& p) { p.kernels[0].desc.sign = +1; }));
  // A mirrored split kernel that pairs FFTs r and m - r wrongly, or a mirrored merge table off by one, is caught.
  const std::string mirrored =
      R"({"name": "emu", "family": "stockham", "precision": "f64", "transform": "r2c", "length": 16416})";
  auto fails = [&](const std::string& text, const std::function<void(StockhamPlan&)>& m) {
    try {
      return !emulatePlan(text, 2, 3, m).ok();
    } catch (const std::out_of_range&) {
      return true;  // reads past the array: caught as well
    }
  };
  EXPECT_TRUE(emulatePlan(mirrored, 2, 3).ok());
  EXPECT_TRUE(fails(mirrored, [](StockhamPlan& p) { p.kernels.back().desc.mirrored = false; }));
  const std::string merged =
      R"({"name": "emu", "family": "stockham", "precision": "f64", "transform": "c2r", "length": 16416})";
  EXPECT_TRUE(emulatePlan(merged, 2, 3).ok());
  EXPECT_TRUE(fails(merged, [](StockhamPlan& p) {
    auto& t = p.kernels[0].loadTable;
    std::rotate(t.begin(), t.begin() + 1, t.end());
  }));
  // A Bluestein kernel whose convolution table is off by one element is caught too.
  const std::string prime = R"({"name": "emu", "family": "stockham", "precision": "f64", "length": 1009})";
  EXPECT_FALSE(emulatePlan(prime, 2, 1, [](StockhamPlan& p) {
                 std::rotate(p.kernels[0].bigLo.begin(), p.kernels[0].bigLo.begin() + 1, p.kernels[0].bigLo.end());
               }).ok());
}

// A one-kernel Bluestein convolution's length (BluesteinLength.h): among M = 2^a x 1, 3, 5, 7, 9 up to 8192 (the least
// >= 2n - 1 of each), the one whose kernel the model expects fastest. A pinned length, "smooth" and "power_of_two"
// are kept; past 8192 the earlier rule.
TEST(Stockham, BluesteinLengthFromTheKernels) {
  auto via = [](const std::string& text) {
    return planStockham(parseStockhamSpecText(text, "b.json"), "sm_90", false).kernels.at(0).desc.length;
  };
  EXPECT_EQ(via(spec(1399, "f32")), 4096);  // not the cheapest 7-smooth 2800 (10 x 8 x 7 x 5, one block per SM)
  EXPECT_EQ(via(spec(2287, "f32")), 6144);  // not 5120 = 10 x 8^3 on 640 threads, one block per SM
  EXPECT_EQ(via(spec(1093, "f32")), 2304);
  EXPECT_EQ(via(spec(554, "f32")), 1152);
  const int half = via(spec(1384, "f32", R"(, "transform": "r2c")"));  // the complex half 692 = 4 x 173
  EXPECT_GE(half, 1383);
  EXPECT_LE(half, 2560);
  EXPECT_EQ(via(spec(1399, "f32", R"(, "tuning": {"bluestein": 3584})")), 3584);
  EXPECT_EQ(via(spec(1399, "f32", R"(, "tuning": {"bluestein": "smooth"})")), 2800);
  EXPECT_EQ(via(spec(1399, "f32", R"(, "tuning": {"bluestein": "power_of_two"})")), 4096);
  EXPECT_EQ(via(spec(5323, "f32")), bluesteinLength(5323)) << "M > 8192: the earlier rule";
  EXPECT_EQ(via(spec(1561, "f64")), 4096) << "f64: no 7 (3584 = 8^3 x 7 spilled), 3072 too short";
  EXPECT_EQ(via(spec(695, "f64")), 1536);
  EXPECT_EQ(via(spec(1194, "f64")), 2560);
  EXPECT_EQ(via(spec(809, "f64")), 2048) << "not 1728 = 9 x 8 x 8 x 3 (246 registers)";
  for (long long n = 131; n <= 4096; n += 53) {
    const StockhamSpec s = parseStockhamSpecText(spec(n, "f64"), "b.json");
    const long long m = pinBluesteinLength(s).tuning.bluesteinLength;
    if (m == 0) continue;
    long long odd = m;
    while (odd % 2 == 0) odd /= 2;
    EXPECT_TRUE(m >= 2 * n - 1 && (odd == 1 || odd == 3 || odd == 5)) << n << " -> " << m;
  }
  for (long long n = 130; n <= 4096; n += 37) {
    const StockhamSpec s = parseStockhamSpecText(spec(n, "f32"), "b.json");
    const long long m = pinBluesteinLength(s).tuning.bluesteinLength;
    if (isCoopSmooth(n, maxPrimeRadix(Precision::F32))) {
      EXPECT_EQ(m, 0) << n << ": no Bluestein";
      continue;
    }
    long long odd = m;
    while (odd % 2 == 0) odd /= 2;
    EXPECT_TRUE(m >= 2 * n - 1 && m <= 8192 && odd <= 9) << n << " -> " << m;
  }
}

// The next group's copy during the last pass (tuning prefetch: persistent blocks, cp.async into shared memory while
// the last butterflies compute and store), generated CUDA run on the CPU (tests/CudaOnCpu.h: a copy lands at its
// wait, its destination poisoned until then) against FFTW. Blocks take several groups each (the grid capped), the
// last group partial; a kernel whose wait is gone reads the poison and is caught.
namespace {

LaunchPlan prefetchingPlan(const FamilySpec& fs, const std::string& label) {
  LaunchPlan lp = fs.emit(EmitTarget{"sm_90", nullptr}).plan;
  EXPECT_NE(lp.sources.at(0).text.find("the next group's copy"), std::string::npos) << label << ": no prefetch";
  for (auto& src : lp.sources) src.text = cpuRunnableSource(src.text);
  for (auto& k : lp.kernels) k.grid.unitsPerBlock *= 3;  // each block loops over about three groups
  return lp;
}
}  // namespace

TEST(Stockham, PrefetchingKernelsRunOnTheCpu) {
  struct Case {
    std::string label, body;
    long long batch;
  };
  const std::vector<Case> cases = {
      {"f32 256, 8 FFTs per block, batch 61", R"("precision": "f32", "length": 256)", 61},
      {"f32 1000 inverse, batch 7", R"("precision": "f32", "length": 1000, "direction": "inverse")", 7},
      {"f64 720, batch 9", R"("precision": "f64", "length": 720)", 9},
      {"f32 6144, two butterflies per thread in the last pass, batch 5", R"("precision": "f32", "length": 6144,
         "tuning": {"threads_per_fft": 256, "prefetch": true})",
       5},
      {"r2c f32 2048 (the split fused into the last pass), batch 13",
       R"("precision": "f32", "transform": "r2c", "length": 2048)", 13},
      {"r2c f64 1000, batch 6", R"("precision": "f64", "transform": "r2c", "length": 1000)", 6},
      {"f32 2048 into a padded, offset output, batch 11",
       R"("precision": "f32", "length": 2048, "output": {"distance": 2100, "offset": 1})", 11},
      // A long FFT's column step copies its next column tile while it stores this one.
      {"f32 32768 in two kernels, the column step's tiles, batch 2", R"("precision": "f32", "length": 32768)", 2},
      {"f32 32768 inverse from a padded, offset input, batch 3",
       R"("precision": "f32", "length": 32768, "direction": "inverse", "input": {"distance": 32800, "offset": 3})", 3},
  };
  int n = 0;
  for (const auto& c : cases) {
    const std::string body = c.body.find("tuning") == std::string::npos ? c.body + R"(, "tuning": {"prefetch": true})"
                                                                        : c.body;
    auto fs = makeStockhamSpec(
        parseStockhamSpecText(R"({"name": "cpupf", "family": "stockham", )" + body + "}", "cpu.json"));
    const LaunchPlan lp = prefetchingPlan(*fs, c.label);
    const Check ck = test::runPlanOnCpu(*fs, lp, c.batch, 3900 + n++, "stockham-cpu", c.label, asyncCopyShim());
    EXPECT_TRUE(ck.ok()) << c.label;
    EXPECT_GT(ck.checked, 0) << c.label;
    std::printf("[stockham-cpu] prefetch %s: error %.2e (bound %.0e), unwritten %lld\n", c.label.c_str(), ck.error,
                ck.bound, ck.unwritten);
  }
  // Mutations (1000 points: one FFT per block, so that a batch of 2 runs two groups on one block): the loop does not
  // wait for its group's copy; the last pass copies its own group again, or issues no copy (the next group then
  // transforms this one's last intermediate values). A wait moved after the barrier or a copy issued before it are
  // races the emulation does not order (its threads run concurrently), so they are not among these.
  auto fs = makeStockhamSpec(parseStockhamSpecText(
      R"({"name": "cpupf", "family": "stockham", "precision": "f32", "length": 1000, "tuning": {"prefetch": true}})",
      "cpu.json"));
  const LaunchPlan lp = prefetchingPlan(*fs, "mutated");
  test::expectMutationsCaught(
      *fs, lp,
      {{{"no wait for the group's copy", "    wf_copy_wait_all();\n    __syncthreads();", "    __syncthreads();"},
        {"this group copied again", "const long long first = group + (long long)gridDim.x;",
         "const long long first = group;"},
        {"no next copy", "const long long first = group + (long long)gridDim.x;", "const long long first = ffts;"}}},
      3990, "stockham-cpu", asyncCopyShim());
  // The column step's copy: of this group again, or none.
  auto columns = makeStockhamSpec(parseStockhamSpecText(
      R"({"name": "cpupf", "family": "stockham", "precision": "f32", "length": 32768, "tuning": {"prefetch": true}})",
      "cpu.json"));
  const LaunchPlan columnPlan = prefetchingPlan(*columns, "mutated columns");
  const std::string& text = columnPlan.sources.at(0).text;
  const std::string nextTileHead = "const long long first = (group + (long long)gridDim.x) * ";
  const std::size_t at = text.find(nextTileHead);
  ASSERT_NE(at, std::string::npos);
  const std::string nextTile = text.substr(at, text.find(';', at) + 1 - at);
  const std::string tileWidth = nextTile.substr(nextTileHead.size());  // "16;"
  test::expectMutationsCaught(*columns, columnPlan,
                              {{{"this tile copied again", nextTile, "const long long first = group * " + tileWidth},
                                {"no next tile", nextTile, "const long long first = ffts;"}}},
                              3995, "stockham-cpu", asyncCopyShim());
}

// Where the prefetch cannot be (a load that is no contiguous run of the compute type, or no last pass that stores to
// global memory: a c2r's merged load, an r2c split staged), the kernel keeps its synchronous load; the work counter
// gives way to it.
TEST(Stockham, PrefetchOnlyWhereItHolds) {
  auto geom = [](const std::string& body) {
    auto fs = makeStockhamSpec(
        parseStockhamSpecText(R"({"name": "pf", "family": "stockham", )" + body + "}", "pf.json"));
    const LaunchPlan lp = fs->emit(EmitTarget{"sm_90", nullptr}).plan;
    return lp.sources.at(0).text.find("wf_copy_wait_all();") != std::string::npos;
  };
  EXPECT_TRUE(geom(R"("precision": "f32", "length": 4096, "tuning": {"prefetch": true})"));
  EXPECT_TRUE(geom(R"("precision": "f32", "length": 4096, "tuning": {"prefetch": true, "work_queue": true})"));
  EXPECT_FALSE(geom(R"("precision": "f32", "length": 4096)"));
  EXPECT_FALSE(geom(R"("precision": "f32", "length": 4096, "tuning": {"prefetch": false})"));
  // By default: c2c FFTs of 96 KiB and more (one block per SM), not shorter ones, not the fused r2c split.
  EXPECT_TRUE(geom(R"("precision": "f32", "length": 16384)"));
  EXPECT_TRUE(geom(R"("precision": "f32", "length": 12288)"));
  EXPECT_FALSE(geom(R"("precision": "f32", "length": 12000)"));
  EXPECT_TRUE(geom(R"("precision": "f64", "length": 8192)"));
  EXPECT_FALSE(geom(R"("precision": "f64", "length": 4096)"));
  EXPECT_FALSE(geom(R"("precision": "f32", "length": 16384, "tuning": {"prefetch": false})"));
  // The default gives way to a grid or load the spec asks for and the copy cannot take.
  EXPECT_FALSE(geom(R"("precision": "f32", "length": 16384, "tuning": {"persistent": false})"));
  EXPECT_FALSE(geom(R"("precision": "f32", "length": 16384, "tuning": {"work_queue": true})"));
  EXPECT_FALSE(geom(R"("precision": "f32", "length": 16384, "tuning": {"direct_load": true})"));
  EXPECT_FALSE(geom(R"("precision": "f32", "transform": "r2c", "length": 32768)"));
  EXPECT_FALSE(geom(R"("precision": "f16", "length": 16384)"));
  EXPECT_FALSE(geom(R"("precision": "f16", "length": 4096, "tuning": {"prefetch": true})"));
  EXPECT_FALSE(geom(R"("precision": "f32", "length": 4096, "input": {"type": "ci8"}, "tuning": {"prefetch": true})"));
  EXPECT_FALSE(geom(R"("precision": "f32", "length": 4096, "input": {"stride": 2, "distance": 8192},
                        "tuning": {"prefetch": true})"));
  EXPECT_TRUE(geom(R"("precision": "f32", "transform": "r2c", "length": 4096, "tuning": {"prefetch": true})"));
  EXPECT_FALSE(geom(R"("precision": "f32", "transform": "c2r", "length": 4096, "tuning": {"prefetch": true})"));
  EXPECT_FALSE(geom(R"("precision": "f32", "transform": "r2c", "length": 4096,
                        "tuning": {"prefetch": true, "fused_split": false})"));
  // `bench` times the prefetching form beside the default where it applies and the spec leaves it open; where the
  // default copies ahead, the synchronous load is the variant.
  auto timesVariant = [](const std::string& body, const std::string& name) {
    auto fs = makeStockhamSpec(
        parseStockhamSpecText(R"({"name": "pf", "family": "stockham", )" + body + "}", "pf.json"));
    int n = 0;
    for (const BenchVariant& v : dynamic_cast<const BenchFacet&>(*fs).benchVariants({"sm_90", nullptr}))
      n += v.name.find(name) != std::string::npos;
    return n;
  };
  auto timesPrefetch = [&](const std::string& body) { return timesVariant(body, "prefetch true"); };
  auto timesSynchronous = [&](const std::string& body) { return timesVariant(body, "prefetch false"); };
  EXPECT_EQ(timesPrefetch(R"("precision": "f32", "length": 4096)"), 1);
  EXPECT_EQ(timesPrefetch(R"("precision": "f32", "length": 4096, "tuning": {"prefetch": false})"), 0);
  EXPECT_EQ(timesPrefetch(R"("precision": "f16", "length": 4096)"), 0);
  EXPECT_EQ(timesSynchronous(R"("precision": "f32", "length": 16384)"), 1);
  EXPECT_EQ(timesPrefetch(R"("precision": "f32", "length": 16384)"), 0);
  EXPECT_EQ(timesSynchronous(R"("precision": "f32", "length": 4096)"), 0);
}

// Bluestein's convolution length: "bluestein": "smooth" takes the cheapest 7-smooth M >= 2N - 1; the
// default stays the next power of two.
TEST(Stockham, BluesteinConvolutionLengths) {
  EXPECT_EQ(bluesteinLength(9150), 18432);
  EXPECT_EQ(bluesteinLength(9150, true), 32768);
  EXPECT_EQ(bluesteinLength(10007), 20480);
  for (long long n = 2; n <= 5000; ++n) {
    const long long m = bluesteinLength(n), p = bluesteinLength(n, true);
    ASSERT_GE(m, 2 * n - 1) << n;
    ASSERT_LE(m, p) << n;
    ASSERT_EQ(p & (p - 1), 0) << n;
    long long r = m;
    for (long long q : {2, 3, 5, 7})
      while (r % q == 0) r /= q;
    ASSERT_EQ(r, 1) << n << " -> " << m;
  }
  auto via = [](const std::string& text) {
    std::string roles;
    for (const auto& k : planStockham(parseStockhamSpecText(text, "b.json"), "sm_90").kernels) roles += k.note + "\n";
    return roles;
  };
  EXPECT_NE(via(spec(10007, "f32")).find("Bluestein 10007 via 20480"),
            std::string::npos);  // smooth: the default past one kernel
  EXPECT_NE(via(spec(10007, "f32", R"(, "tuning": {"bluestein": "smooth"})")).find("Bluestein 10007 via 20480"),
            std::string::npos);
  EXPECT_NE(via(spec(10007, "f32", R"(, "tuning": {"bluestein": "power_of_two"})")).find("via 32768"),
            std::string::npos);
  EXPECT_EQ(errorOf(spec(10007, "f32", R"(, "tuning": {"bluestein": "fast"})")).first, "/tuning/bluestein");
}

// The generated CUDA of fused-plane plans (KernelDesc::axes) run on the CPU (tests/CudaOnCpu.h: one std::thread per
// CUDA thread) against FFTW: the 2D / 3D planes whole, a plane with the outer axis as a column kernel, a strided plane
// into planar output, in place. f32 / f64 only (the shim has no half type: cuda_fp16.h is swapped for stubs that are
// never called). A kernel whose load skips the digit reversal is caught.
TEST(Stockham, FusedPlaneKernelsRunOnTheCpu) {
  struct Case {
    std::string label, text;
  };
  const std::vector<Case> cases = {
      {"f32 20 x 20",
       R"({"name": "cpu2d", "family": "stockham", "precision": "f32", "lengths": [20, 20], "direction": "inverse"})"},
      {"f64 9 x 10 x 11 in place",
       R"({"name": "cpu3d", "family": "stockham", "precision": "f64", "lengths": [9, 10, 11], "placement": "in_place"})"},
      {"f32 6 x 8 x 12 (8 x 12 fused, then axis 0)",
       R"({"name": "cpu3c", "family": "stockham", "precision": "f32", "lengths": [6, 8, 12]})"},
      {"f32 12 x 40 strided in, planar out",
       R"({"name": "cpust", "family": "stockham", "precision": "f32", "lengths": [12, 40],
          "input": {"strides": [80, 2], "distance": 1000, "offset": 3}, "output": {"layout": "planar", "distance": 500}})"},
  };
  int n = 0;
  for (const auto& c : cases) {
    auto fs = makeStockhamSpec(parseStockhamSpecText(c.text, "cpu.json"));
    LaunchPlan lp = fs->emit(EmitTarget{"sm_90", nullptr}).plan;
    ASSERT_NE(lp.sources.at(0).text.find("digit-reversed"), std::string::npos) << c.label << ": not a fused plane";
    for (auto& src : lp.sources) src.text = cpuRunnableSource(src.text);
    const Check ck = test::runPlanOnCpu(*fs, lp, 3, 1600 + n++, "stockham-cpu", c.label, asyncCopyShim());
    EXPECT_TRUE(ck.ok()) << c.label;
    EXPECT_GT(ck.checked, 0) << c.label;
    std::printf("[stockham-cpu] %s: error %.2e (bound %.0e), unwritten %lld\n", c.label.c_str(), ck.error, ck.bound,
                ck.unwritten);
  }
  // Mutation: the 20 x 20 kernel loading the plane in its natural order (a 400-point 1D FFT with per-axis twiddles).
  auto fs = makeStockhamSpec(parseStockhamSpecText(cases[0].text, "cpu.json"));
  LaunchPlan lp = fs->emit(EmitTarget{"sm_90", nullptr}).plan;
  std::string& src = lp.sources.at(0).text;
  src = cpuRunnableSource(src);
  // The load's index within the plane, i / 20 + i % 20 * 20 (i = e % 400), back to i.
  const std::regex reversed(R"(\(((?:\([^()]*\)|[^()])*?% 400) / 20 \+ \1 % 20 \* 20\))");
  ASSERT_TRUE(std::regex_search(src, reversed)) << "the digit-reversed load index";
  src = std::regex_replace(src, reversed, "($1)");
  ::testing::TestPartResultArray failures;
  Check mutated;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    mutated = test::runPlanOnCpu(*fs, lp, 2, 1700, "stockham-cpu", "mutated: natural-order load", asyncCopyShim());
  }
  std::printf("[stockham-cpu] mutated: error %.2e (bound %.0e)\n", mutated.error, mutated.bound);
  // Caught by a wrong output of a kernel that ran, not by a kernel the host compiler refused.
  EXPECT_GT(mutated.checked, 0) << "the mutated kernel did not run";
  EXPECT_GT(mutated.error, mutated.bound) << "a fused plane loaded without its digit reversal must fail the check";
}

// r2c / c2r of 2D / 3D planes that fit one block run as one real-plane kernel (RealPlanes.h): odd and even innermost
// lengths, f32 and f64, offsets, padded distances and planar complex sides; the planes that do not fit whole (3D
// whose inner plane fits) add the outer axis c2c. Each runs from its generated source on the CPU against FFTW.
TEST(Stockham, RealPlaneKernelsRunOnTheCpu) {
  struct Case {
    std::string label, text;
    std::size_t kernels;
  };
  std::vector<Case> cases;
  // An odd innermost length takes the plane where fuse_axes asks for it (the default there is one kernel per axis).
  auto add = [&](const std::string& prec, const std::string& transform, const std::string& lengths, std::size_t kernels,
                 const std::string& extra = "") {
    const int inner = std::stoi(lengths.substr(lengths.find_last_of(" [") + 1));
    const std::string tuning = inner % 2 ? R"(, "tuning": {"fuse_axes": true})" : "";
    cases.push_back({fmt::format("{} {} {}{}{}", transform, prec, lengths, extra.empty() ? "" : " (strided)",
                                 inner % 2 ? " (fuse_axes true)" : ""),
                     fmt::format(R"({{"name": "cpupl", "family": "stockham", "precision": "{}", "transform": "{}", )"
                                 R"("lengths": {}{}{}}})",
                                 prec, transform, lengths, extra, tuning),
                     kernels});
  };
  for (const char* prec : {"f32", "f64"})
    for (const char* t : {"r2c", "c2r"}) {
      for (const char* lengths : {"[4, 13]", "[6, 10]", "[3, 5, 7]", "[8, 8, 9]", "[2, 4]", "[5, 3]"})
        add(prec, t, lengths, 1);
      // f64 keeps 31 out of its butterflies (maxPrimeRadix): the rows of 31 take the per-axis plan there.
      add(prec, t, "[32, 31]", std::string(prec) == "f32" ? 1 : 2);
    }
  // The inner 16 x 1024 plane (16 x 512 in Z) as one kernel, the outer axis c2c (after it for r2c, before for c2r).
  add("f32", "r2c", "[3, 16, 1024]", 2);
  add("f32", "c2r", "[3, 16, 1024]", 2);
  add("f32", "r2c", "[4, 6, 10]", 1,
      R"(, "input": {"distance": 250, "offset": 3}, "output": {"layout": "planar", "distance": 150, "offset": 1})");
  add("f64", "c2r", "[6, 9]", 1,
      R"(, "input": {"layout": "planar", "distance": 31, "offset": 2}, "output": {"distance": 57, "offset": 1})");
  add("f32", "c2r", "[4, 12]", 1, R"(, "input": {"distance": 30}, "output": {"distance": 50, "offset": 2})");
  int n = 0;
  for (const auto& c : cases) {
    auto fs = makeStockhamSpec(parseStockhamSpecText(c.text, "cpu.json"));
    LaunchPlan lp = fs->emit(EmitTarget{"sm_90", nullptr}).plan;
    EXPECT_EQ(lp.kernels.size(), c.kernels) << c.label;
    if (c.kernels == 1) {
      EXPECT_NE(lp.sources.at(0).text.find("Real plane:"), std::string::npos) << c.label << ": not a real plane";
    }
    for (auto& src : lp.sources) src.text = cpuRunnableSource(src.text);
    const Check ck = test::runPlanOnCpu(*fs, lp, 3, 3600 + n++, "stockham-cpu", c.label, asyncCopyShim());
    EXPECT_TRUE(ck.ok()) << c.label;
    EXPECT_GT(ck.checked, 0) << c.label;
    std::printf("[stockham-cpu] %s: %zu kernel(s), error %.2e (bound %.0e), unwritten %lld\n", c.label.c_str(),
                lp.kernels.size(), ck.error, ck.bound, ck.unwritten);
  }
  // An odd innermost length is one kernel per axis by default.
  for (const char* t : {"r2c", "c2r"}) {
    const std::string text = fmt::format(
        R"({{"name": "cpuodd", "family": "stockham", "precision": "f32", "transform": "{}", "lengths": [4, 13]}})", t);
    EXPECT_EQ(makeStockhamSpec(parseStockhamSpecText(text, "cpu.json"))
                  ->emit(EmitTarget{"sm_90", nullptr})
                  .plan.kernels.size(),
              2u)
        << t;
  }
  // The per-axis plans (tuning fuse_axes false) of the same shapes still run.
  for (
      const char* text :
      {R"({"name": "cpupa", "family": "stockham", "precision": "f32", "transform": "c2r", "lengths": [32, 31], "tuning": {"fuse_axes": false}})",
       R"({"name": "cpupa", "family": "stockham", "precision": "f32", "transform": "r2c", "lengths": [6, 10], "tuning": {"fuse_axes": false}})"}) {
    auto fs = makeStockhamSpec(parseStockhamSpecText(text, "cpu.json"));
    LaunchPlan lp = fs->emit(EmitTarget{"sm_90", nullptr}).plan;
    EXPECT_EQ(lp.kernels.size(), 2u) << text;
    for (auto& src : lp.sources) src.text = cpuRunnableSource(src.text);
    EXPECT_TRUE(test::runPlanOnCpu(*fs, lp, 3, 3700 + n++, "stockham-cpu", "per axis", asyncCopyShim()).ok()) << text;
  }
  // Mutations: each row's mirror taken as the row itself (the split, the merge, the odd c2r's mirrored half), and
  // the split's twiddle from the wrong entry.
  auto mutate = [&](const std::string& text, const std::vector<std::array<std::string, 3>>& m) {
    auto fs = makeStockhamSpec(parseStockhamSpecText(text, "cpu.json"));
    LaunchPlan lp = fs->emit(EmitTarget{"sm_90", nullptr}).plan;
    for (auto& src : lp.sources) src.text = cpuRunnableSource(src.text);
    test::expectMutationsCaught(*fs, lp, m, 3800 + n++, "stockham-cpu", asyncCopyShim());
  };
  mutate(R"({"name": "cpupm", "family": "stockham", "precision": "f64", "transform": "r2c", "lengths": [6, 10]})",
         {{"split: the row as its own mirror", "const int pm = (6 - pr) % 6;", "const int pm = pr;"},
          {"split: twiddle of k + 1", "store_table[pc]", "store_table[pc + 1]"}});
  mutate(R"({"name": "cpupm", "family": "stockham", "precision": "f64", "transform": "c2r", "lengths": [6, 10]})",
         {{"merge: the row as its own mirror", "const int pm = (6 - pr) % 6;", "const int pm = pr;"}});
  mutate(R"({"name": "cpupm", "family": "stockham", "precision": "f64", "transform": "c2r", "lengths": [4, 13], )"
         R"("tuning": {"fuse_axes": true}})",
         {{"odd c2r: the row as its own mirror", "const int pm = (4 - pr) % 4;", "const int pm = pr;"}});
}

// Long one-FFT kernels (LongFftFactors.h): the candidates are factorizations of the length over the search's radices,
// fewest passes first, at 256..1024 threads; the ones the search takes compute the transform (emulated against the
// double reference); a candidate replaces the plan's kernel only where the compiler's report allows it.
TEST(Stockham, LongFftSearchCandidatesAndChoice) {
  auto allowed = [](int r, bool f64) {
    if (r == 49) return !f64;
    if (r > (f64 ? 16 : 32) || r % 21 == 0) return false;
    for (int p : {2, 3, 5, 7, 11, 13})
      while (r % p == 0) r /= p;
    return r == 1;
  };
  struct Want {
    int n;
    bool f64;
    std::vector<int> first;
  };
  for (const Want& w :
       {Want{16807, false, {49, 49, 7}}, Want{5000, true, {10, 10, 10, 5}}, Want{8000, true, {10, 10, 10, 8}},
        Want{17496, false, {27, 27, 24}}, Want{7776, true, {12, 12, 9, 6}}}) {
    const auto c = longFftFactorizations(w.n, w.f64);
    ASSERT_FALSE(c.empty()) << w.n;
    EXPECT_EQ(c.front(), w.first) << w.n;
    std::size_t passes = 0;
    for (const auto& f : c) {
      long long product = 1;
      for (int r : f) {
        product *= r;
        EXPECT_TRUE(allowed(r, w.f64)) << w.n << " radix " << r;
      }
      EXPECT_EQ(product, w.n);
      EXPECT_TRUE(std::is_sorted(f.rbegin(), f.rend())) << w.n;
      EXPECT_GE(f.size(), passes) << w.n;
      passes = f.size();
      const int T = w.n / f.front();
      EXPECT_TRUE(T >= kLongFftMinThreads && T <= 1024) << w.n;
    }
  }
  // Kernels the search takes, generated CUDA run on the CPU (tests/CudaOnCpu.h) against FFTW: largest radix first and
  // smallest first, at the candidate's threads with indices recomputed per group (as compileCandidate builds them).
  for (const auto& [label, text] : std::vector<std::pair<std::string, std::string>>{
           {"f64 5000 = 10 x 10 x 10 x 5 on 500 threads",
            R"({"name": "cpul1", "family": "stockham", "precision": "f64", "length": 5000,
              "factors": [10, 10, 10, 5], "tuning": {"threads_per_fft": 500, "index_per_group": true}})"},
           {"f64 7776 = 6 x 12 x 12 x 9 on 648 threads",
            R"({"name": "cpul2", "family": "stockham", "precision": "f64", "length": 7776,
              "direction": "inverse", "factors": [6, 12, 12, 9], "tuning": {"threads_per_fft": 648, "index_per_group": true}})"}}) {
    auto fs = makeStockhamSpec(parseStockhamSpecText(text, "cpu.json"));
    LaunchPlan lp = fs->emit(EmitTarget{"sm_90", nullptr}).plan;
    ASSERT_EQ(lp.sources.size(), 1u) << label;
    lp.sources[0].text = cpuRunnableSource(lp.sources[0].text);
    const Check ck = test::runPlanOnCpu(*fs, lp, 2, 2300, "stockham-cpu", label, asyncCopyShim());
    EXPECT_TRUE(ck.ok()) << label << ": error " << ck.error << " bound " << ck.bound << " unwritten " << ck.unwritten;
    EXPECT_GT(ck.checked, 0) << label;
    std::printf("[stockham-cpu] %s: error %.2e (bound %.0e), unwritten %lld\n", label.c_str(), ck.error, ck.bound,
                ck.unwritten);
  }
  // Which kernels are searched: one-FFT row kernels of 64 KB or more with nothing pinned.
  const StockhamSpec f64long = parseStockhamSpecText(spec(5000, "f64"), "l.json");
  StockhamPlan plan = planStockham(f64long, "sm_90");
  EXPECT_TRUE(isLongFftKernel(plan.kernels[0].desc, false));
  EXPECT_FALSE(isLongFftKernel(plan.kernels[0].desc, true));  // factors named by the spec
  EXPECT_FALSE(
      isLongFftKernel(planStockham(parseStockhamSpecText(spec(4096, "f32"), "s.json"), "sm_90").kernels[0].desc,
                      false));  // 32 KB
  EXPECT_FALSE(isLongFftKernel(
      planStockham(parseStockhamSpecText(spec(5000, "f64", R"(, "tuning": {"threads_per_fft": 500})"), "t.json"),
                   "sm_90")
          .kernels[0]
          .desc,
      false));
  // Every compile spilling: the plan's kernel stays. Every compile clean: the candidate with fewer passes replaces it,
  // with its twiddle table.
  SpillingProbe spilling;
  StockhamPlanKernel k = plan.kernels[0];
  emitLongFftKernel(k, "sm_90", &spilling);
  EXPECT_EQ(k.desc.factors, plan.kernels[0].desc.factors);
  CleanProbe clean;
  ASSERT_GT(plan.kernels[0].desc.factors.size(), 4u) << "the plan's own factorization of f64 5000 has five passes";
  const SpillFreeKernel sf = emitLongFftKernel(k, "sm_90", &clean);
  EXPECT_EQ(k.desc.factors, (std::vector<int>{10, 10, 10, 5}));
  EXPECT_EQ(sf.kernel.desc.factors, k.desc.factors);
  EXPECT_EQ(sf.kernel.geom.threadsPerFft, 500);
  EXPECT_EQ(k.twiddles, twiddleTable(k.desc.factors, k.desc.sign));
}

// The limits of the streamed-prime, two-block and one-thread-c2r rules, each back to the earlier kernels where they
// would not pay or were never measured: column tiles never stream; f64 kernels of 257..512 threads take the two-block
// register target only where shared memory lets two blocks reside, and not as column tiles; c2r copy-only kernels keep
// their threads; no fused r2c split after a cooperative last radix. (Each check fails with its rule's guard taken out
// of Geometry.cpp.)
TEST(Stockham, RulesKeepToTheirRange) {
  EXPECT_EQ(streamedPrime({37}, 37, true, /*columnTile=*/true), 0);
  EXPECT_FALSE(streamsPass({37}, 37, 37, 1, true, /*columnTile=*/true));
  EXPECT_LT(defaultRegisterTarget(343, true), 128);  // two blocks of 343 threads
  EXPECT_EQ(defaultRegisterTarget(343, true, /*oneBlock=*/true), 128);
  EXPECT_EQ(defaultRegisterTarget(343, false), defaultRegisterTarget(343, false, true));  // f32: one rule
  const KernelGeometry g2401 = chooseGeometry(plan(spec(2401, "f64")).kernels.at(0).desc);
  EXPECT_GT(g2401.threadsPerFft, 256);
  EXPECT_GE(residentBlocksPerSm(g2401.threadsPerFft * g2401.fftsPerBlock, 32, g2401.sharedBytes, "sm_80"), 2);
  EXPECT_LT(g2401.registerTarget, 128) << "f64 2401: two resident blocks";
  // f64 5000 as 10 x 10 x 10 x 5 on 500 threads (the long-FFT search, every candidate compiling clean): 80 KB of
  // shared memory keeps one block resident, so the register target stays the one-block one.
  CleanProbe clean;
  StockhamPlanKernel k5000 = plan(spec(5000, "f64")).kernels.at(0);
  const KernelGeometry g5000 = emitLongFftKernel(k5000, "sm_90", &clean).kernel.geom;
  EXPECT_EQ(g5000.threadsPerFft * g5000.fftsPerBlock, 500);
  EXPECT_EQ(residentBlocksPerSm(500, 32, g5000.sharedBytes, "sm_80"), 1);
  EXPECT_EQ(g5000.registerTarget, 128);
  int copyOnly = 0;
  for (long long n = 4; n <= 260; n += 2)
    for (const StockhamPlanKernel& k : plan(spec(n, "f32", R"(, "transform": "c2r")")).kernels)
      if (k.desc.factors.empty()) {
        ++copyOnly;
        EXPECT_GT(chooseGeometry(k.desc).threadsPerFft, 1) << "c2r " << n << ": a copy-only kernel keeps its threads";
      }
  EXPECT_GT(copyOnly, 0);
  // Plans fuse the r2c split only into FFTs of smooth halves; a kernel description with a cooperative last radix
  // (here r2c 1000's, its half refactored as 4 x 37 = 148) is not fused even where its tuning asks for it.
  KernelDesc d = plan(spec(1000, "f32", R"(, "transform": "r2c", "tuning": {"fused_split": true})")).kernels.at(0).desc;
  ASSERT_TRUE(chooseGeometry(d).fusedSplit);
  d.length = 148;
  d.fuseN = 296;
  d.factors = {4, 37};
  EXPECT_FALSE(chooseGeometry(d).fusedSplit);
}

// Cooperative primes that one thread computes whole, outputs stored pair by pair (CoopRadix.h streamedPrimeLimit):
// where the prime is the whole FFT, twice it (f64), its square, or another multiple whose other passes hold few values.
// Their generated CUDA run on the CPU against FFTW: f64's rolled loop over output pairs (coefficients from a
// __constant__ row per pair) and f32's literal ones, staged and direct (37^2: the first pass reads and the last pass
// writes global memory), twiddled second passes, both directions.
TEST(Stockham, StreamedPrimePassesRunOnTheCpu) {
  EXPECT_EQ(streamedPrime({37}, 37, true), 37);
  EXPECT_EQ(streamedPrime({29, 2}, 58, true), 29);
  EXPECT_EQ(streamedPrime({43, 43}, 1849, false), 43);
  EXPECT_EQ(streamedPrime({37, 25}, 925, false), 0);   // the radix-25 pass would hold 50 values: cooperative
  EXPECT_EQ(streamedPrime({67}, 67, false), 0);        // above the limit
  EXPECT_EQ(streamedPrime({61, 61}, 3721, false), 0);  // 255 registers: slower than cooperative
  EXPECT_EQ(streamedPrime({47, 2}, 94, true), 0);      // spills on sm_90
  EXPECT_EQ(streamedPrime({37, 2}, 74, true), 0);      // spills on sm_80
  EXPECT_EQ(streamedPrime({53}, 53, true), 0);         // spills on sm_80
  EXPECT_EQ(streamedPrime({53, 53}, 2809, true), 53);
  EXPECT_EQ(streamedPrime({59, 2}, 118, false), 59);
  EXPECT_EQ(streamedPrime({23}, 23, true), 0);       // a thread radix already
  EXPECT_FALSE(streamsPass({37}, 37, 37, 0, true));  // no thread for the butterfly: cooperative
  // Other multiples m R on m threads, while the other passes hold at most 4/3 R values.
  EXPECT_EQ(streamedPrime({29, 3}, 87, true), 29);
  EXPECT_EQ(streamedPrime({29, 10}, 290, true), 29);
  EXPECT_EQ(streamedPrime({43, 4, 4, 2}, 1376, false), 43);  // radix-2 pass: 44 values on 32 threads
  EXPECT_EQ(streamedPrime({29, 13}, 377, true), 0);          // the radix-13 pass would hold 39 values
  EXPECT_EQ(streamedPrime({37, 3}, 111, true), 0);           // f64 above 31
  EXPECT_EQ(streamedPrime({37, 37, 2}, 2738, false), 0);     // R twice: only m = R streams (61^2 x 2: 255 registers)
  EXPECT_EQ(streamedPrime({29, 3}, 87, true, false, false), 0);  // the tuning asks for the cooperative pass
  EXPECT_EQ(streamedPrime({37, 25}, 925, false, false, true), 37);
  EXPECT_EQ(heldValues({29, 3}, 87, 3, true), 30);
  EXPECT_EQ(heldValues({29, 3}, 87, 3, true, false, false), coopShape(29, 87, 3).held());
  struct Case {
    std::string label, text;
  };
  const std::vector<Case> cases = {
      {"f64 37", R"({"name": "cpus1", "family": "stockham", "precision": "f64", "length": 37})"},
      {"f64 58 = 29 x 2 inverse",
       R"({"name": "cpus2", "family": "stockham", "precision": "f64", "length": 58, "direction": "inverse"})"},
      {"f64 1369 = 37^2", R"({"name": "cpus3", "family": "stockham", "precision": "f64", "length": 1369})"},
      {"f32 1849 = 43^2 inverse",
       R"({"name": "cpus4", "family": "stockham", "precision": "f32", "length": 1849, "direction": "inverse"})"},
      {"f64 87 = 29 x 3", R"({"name": "cpus5", "family": "stockham", "precision": "f64", "length": 87})"},
      {"f64 290 = 29 x 10 inverse",
       R"({"name": "cpus6", "family": "stockham", "precision": "f64", "length": 290, "direction": "inverse"})"},
      {"f32 1376 = 43 x 32", R"({"name": "cpus7", "family": "stockham", "precision": "f32", "length": 1376})"},
      {"f32 246 = 41 x 6 inverse",
       R"({"name": "cpus8", "family": "stockham", "precision": "f32", "length": 246, "direction": "inverse"})"},
  };
  int n = 0;
  for (const auto& c : cases) {
    auto fs = makeStockhamSpec(parseStockhamSpecText(c.text, "cpu.json"));
    LaunchPlan lp = fs->emit(EmitTarget{"sm_90", nullptr}).plan;
    ASSERT_EQ(lp.sources.size(), 1u) << c.label;
    ASSERT_NE(lp.sources[0].text.find("outputs stored pair by pair"), std::string::npos) << c.label << ": not streamed";
    lp.sources[0].text = cpuRunnableSource(lp.sources[0].text);
    const Check ck = test::runPlanOnCpu(*fs, lp, 3, 2400 + n++, "stockham-cpu", c.label, asyncCopyShim());
    EXPECT_TRUE(ck.ok()) << c.label << ": error " << ck.error << " bound " << ck.bound << " unwritten " << ck.unwritten;
    EXPECT_GT(ck.checked, 0) << c.label;
    std::printf("[stockham-cpu] %s: error %.2e (bound %.0e), unwritten %lld\n", c.label.c_str(), ck.error, ck.bound,
                ck.unwritten);
  }
  // The check can fail: the coefficients of pair k read from the row of pair k + 1 are caught.
  auto fs = makeStockhamSpec(parseStockhamSpecText(cases[0].text, "cpu.json"));
  LaunchPlan lp = fs->emit(EmitTarget{"sm_90", nullptr}).plan;
  std::string& src = lp.sources[0].text;
  src = cpuRunnableSource(src);
  const std::string row = "wf_pairs37_fwd + (k - 1) * 18;";
  const auto at = src.find(row);
  ASSERT_NE(at, std::string::npos) << "the row of pair k's coefficients";
  src.replace(at, row.size(), "wf_pairs37_fwd + k % 18 * 18;");
  ::testing::TestPartResultArray failures;
  Check mutated;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    mutated = test::runPlanOnCpu(*fs, lp, 2, 2500, "stockham-cpu", "mutated: coefficients of the next pair",
                                 asyncCopyShim());
  }
  EXPECT_GT(mutated.checked, 0) << "the mutated kernel did not run";
  EXPECT_GT(mutated.error, mutated.bound) << "coefficients of the wrong pair must fail the check";
}

// A streamed prime that spills at every register target falls back to the cooperative pass; one pinned by the tuning
// does not.
TEST(Stockham, SpillingStreamedPrimeFallsBackToCooperative) {
  struct StreamedSpills : CompileProbe {
    CompileReport compile(const std::string& source, const std::string&, const std::string&) override {
      if (source.find("outputs stored pair by pair") != std::string::npos) return {255, 64, 64, 64};
      return {120, 0, 0, 0};
    }
  } probe;
  const SpillFreeKernel k = emitStockhamSpillFree(plan(spec(87, "f64")).kernels.at(0).desc, "sm_90", &probe);
  EXPECT_EQ(k.kernel.source.find("outputs stored pair by pair"), std::string::npos);
  EXPECT_NE(k.kernel.source.find("cooperatively"), std::string::npos);
  EXPECT_FALSE(k.compiled.spills());
  EXPECT_EQ(k.kernel.desc.tuning.streamedPrime, false) << "the kernel's description says what it computes";
  const SpillFreeKernel pinned = emitStockhamSpillFree(
      plan(spec(87, "f64", R"(, "tuning": {"streamed_prime": true})")).kernels.at(0).desc, "sm_90", &probe);
  EXPECT_NE(pinned.kernel.source.find("outputs stored pair by pair"), std::string::npos);
}

// Odd r2c / c2r with batch entries in pairs (one complex FFT of x_2p + i x_2p+1), on the CPU against FFTW at odd and
// even batches (an odd count's last pair holds one entry, its second neither read nor written): c2r in the FFT's load
// and store, r2c through scratch and the mirrored split kernel. A pair read without its second entry is caught.
TEST(Stockham, OddRealBatchesPairOnTheCpu) {
  struct Case {
    std::string label, text;
    std::size_t kernels;
  };
  const std::vector<Case> cases = {
      {"c2r f32 1001 (one kernel, paired)",
       R"({"name": "pair1", "family": "stockham", "precision": "f32", "transform": "c2r", "length": 1001})", 1},
      {"c2r f16 1001 (one kernel, paired)",
       R"({"name": "pair2", "family": "stockham", "precision": "f16", "transform": "c2r", "length": 1001})", 1},
      {"c2r f32 1009 (Bluestein in one kernel, paired)",
       R"({"name": "pair3", "family": "stockham", "precision": "f32", "transform": "c2r", "length": 1009})", 1},
      {"r2c f32 1009 (Bluestein in one kernel into scratch, then the pair split)",
       R"({"name": "pair4", "family": "stockham", "precision": "f32", "transform": "r2c", "length": 1009})", 2},
      {"r2c f64 59049 (pair_batch true: two kernels into scratch, then the pair split)",
       R"({"name": "pair5", "family": "stockham", "precision": "f64", "transform": "r2c", "length": 59049, "tuning": {"pair_batch": true}})",
       3},
      {"c2r f32 59049 (two kernels, paired)",
       R"({"name": "pair6", "family": "stockham", "precision": "f32", "transform": "c2r", "length": 59049})", 2},
      {"r2c f16 1001 (pair_batch true: one kernel into scratch, then the pair split)",
       R"({"name": "pair7", "family": "stockham", "precision": "f16", "transform": "r2c", "length": 1001, "tuning": {"pair_batch": true}})",
       2},
      {"c2r f32 1001 (pair_batch false: one FFT per entry)",
       R"({"name": "pair8", "family": "stockham", "precision": "f32", "transform": "c2r", "length": 1001, "tuning": {"pair_batch": false}})",
       1},
      {"r2c f32 3003, padded distances (pair_batch true)",
       R"({"name": "pair9", "family": "stockham", "precision": "f32", "transform": "r2c", "length": 3003, "input": {"distance": 3010}, "output": {"distance": 1510}, "tuning": {"pair_batch": true}})",
       2},
  };
  int n = 0;
  for (const auto& c : cases) {
    auto fs = makeStockhamSpec(parseStockhamSpecText(c.text, "cpu.json"));
    LaunchPlan lp = fs->emit(EmitTarget{"sm_90", nullptr}).plan;
    EXPECT_EQ(lp.kernels.size(), c.kernels) << c.label;
    const bool paired = c.text.find("\"pair_batch\": false") == std::string::npos;
    EXPECT_EQ(lp.sources[0].text.find("batch_entries") != std::string::npos, paired) << c.label;
    for (auto& src : lp.sources) src.text = cpuRunnableSource(src.text);
    for (long long batch : {3LL, 4LL}) {
      const Check ck = test::runPlanOnCpu(*fs, lp, batch, 2800 + n++, "stockham-cpu", c.label, asyncCopyShim());
      EXPECT_TRUE(ck.ok()) << c.label << " batch " << batch;
      EXPECT_GT(ck.checked, 0) << c.label;
      std::printf("[stockham-cpu] %s, batch %lld: %zu kernels, error %.2e (bound %.0e), unwritten %lld\n",
                  c.label.c_str(), batch, lp.kernels.size(), ck.error, ck.bound, ck.unwritten);
    }
  }
  // A c2r input whose X[0] has an imaginary part (the data otherwise keep it zero): a single c2r drops it with the
  // outputs' imaginary parts, as cuFFT and FFTW do, so the outputs must be the drawn input's (the reference's);
  // paired, the load drops it, or it would land in the other entry (caught before the load did).
  {
    auto fs = makeStockhamSpec(parseStockhamSpecText(cases[0].text, "cpu.json"));
    LaunchPlan lp = fs->emit(EmitTarget{"sm_90", nullptr}).plan;
    for (auto& src : lp.sources) src.text = cpuRunnableSource(src.text);
    const Check ck = test::runPlanOnCpu(*fs, lp, 4, 2950, "stockham-cpu", "c2r 1001, Im X[0] != 0", asyncCopyShim(), {},
                                        [](TestData& d) {
                                          auto& in = d.arrays.at("input");  // float2 entries of 501 elements
                                          for (int e = 0; e < 4; ++e) {
                                            const float im = 0.75f * (e + 1);
                                            std::memcpy(in.data() + 8 * 501 * e + 4, &im, 4);
                                          }
                                        });
    EXPECT_TRUE(ck.ok()) << "error " << ck.error << " bound " << ck.bound;
  }
  // pair_batch where nothing pairs is a warning.
  EXPECT_TRUE(anyContains(
      family(spec(1000, "f32", R"(, "transform": "c2r", "tuning": {"pair_batch": true})"))->verify().warnings,
      "/tuning/pair_batch"));
  EXPECT_TRUE(
      family(spec(1001, "f32", R"(, "transform": "c2r", "tuning": {"pair_batch": false})"))->verify().warnings.empty());
  // Mutation: the c2r pair's second entry read as zero.
  auto fs = makeStockhamSpec(parseStockhamSpecText(cases[0].text, "cpu.json"));
  LaunchPlan lp = fs->emit(EmitTarget{"sm_90", nullptr}).plan;
  lp.sources[0].text = cpuRunnableSource(lp.sources[0].text);
  test::expectMutationsCaught(*fs, lp, {{"the pair's second entry as zero", "2 * d0 + 1 < batch_entries ?", "false ?"}},
                              2900, "stockham-cpu", asyncCopyShim());
}

// An f16 c2r's outputs are its signal times the point count. The test data keep them within f16's range: from a
// signal in [-1, 1], c2r f16 of 65536 points and more overflowed to infinity, which the check counts as non-finite
// (the GPU runs of 65536 and 2^21 failed so, the plans being right). The reference stored in f16 passes the check,
// and an infinite output is named as such in its detail.
TEST(Stockham, HalfC2rTestDataStaysInRange) {
  for (long long n : {65536LL, 1LL << 21}) {
    auto fs = makeStockhamSpec(parseStockhamSpecText(spec(n, "f16", R"(, "transform": "c2r")"), "s.json"));
    const TestData d = fs->randomInputs(1, 11);
    const std::vector<unsigned char>& in = d.arrays.at("input");
    const long long h = n / 2 + 1;
    std::vector<cdouble> full(n);
    for (long long k = 0; k < h; ++k) {
      std::uint16_t re, im;
      std::memcpy(&re, in.data() + 4 * k, 2);
      std::memcpy(&im, in.data() + 4 * k + 2, 2);
      full[k] = {halfBitsToDouble(re), halfBitsToDouble(im)};
      if (k > 0 && n - k >= h) full[n - k] = std::conj(full[k]);
    }
    const std::vector<cdouble> y = referenceDft(full, static_cast<int>(n), +1);
    std::vector<unsigned char> out(2 * n);
    double peak = 0;
    for (long long i = 0; i < n; ++i) {
      const std::uint16_t b = floatToHalfBits(y[i].real());
      std::memcpy(out.data() + 2 * i, &b, 2);
      peak = std::max(peak, std::abs(y[i].real()));
    }
    EXPECT_LT(peak, 65504.0) << n;
    const Check ck = fs->check(d, {{"output", out}}, 1);
    EXPECT_EQ(ck.unwritten, 0) << n << ": " << ck.detail;
    EXPECT_TRUE(ck.ok()) << n << ": error " << ck.error << " bound " << ck.bound;
    const std::uint16_t inf = 0x7c00;
    std::memcpy(out.data() + 2 * (n / 3), &inf, 2);
    const Check over = fs->check(d, {{"output", out}}, 1);
    EXPECT_EQ(over.unwritten, 1) << n;
    EXPECT_NE(over.detail.find("1 of the 1 non-finite outputs are infinite"), std::string::npos) << over.detail;
  }
}

// r2c / c2r kernels run on the CPU (tests/CudaOnCpu.h) against FFTW: the two-kernel plans of long halves with the
// split / merge as mirrored FFT pairs, odd lengths (the real input read as (x, 0), the Hermitian half read with its
// conjugate mirror, real parts stored), 2D / 3D in cuFFT's layout, at odd batches. A split that takes its mirror from
// the wrong FFT is caught.
TEST(Stockham, RealTransformsRunOnTheCpu) {
  struct Case {
    std::string label, text;
  };
  const std::vector<Case> cases = {
      {"r2c f32 32832 (mirrored split)",
       R"({"name": "cpur1", "family": "stockham", "precision": "f32", "transform": "r2c", "length": 32832})"},
      {"r2c f32 16416 (the FFT of 8208 into scratch, then the split kernel)",
       R"({"name": "cpur1s", "family": "stockham", "precision": "f32", "transform": "r2c", "length": 16416})"},
      {"c2r f64 16416 (mirrored merge)",
       R"({"name": "cpur2", "family": "stockham", "precision": "f64", "transform": "c2r", "length": 16416})"},
      {"r2c f32 1001 (odd)",
       R"({"name": "cpur3", "family": "stockham", "precision": "f32", "transform": "r2c", "length": 1001})"},
      {"c2r f64 1001 (odd, planar in)",
       R"({"name": "cpur4", "family": "stockham", "precision": "f64", "transform": "c2r", "length": 1001, "input": {"layout": "planar"}})"},
      {"r2c f32 6 x 40",
       R"({"name": "cpur5", "family": "stockham", "precision": "f32", "transform": "r2c", "lengths": [6, 40]})"},
      {"c2r f64 5 x 9 x 12",
       R"({"name": "cpur6", "family": "stockham", "precision": "f64", "transform": "c2r", "lengths": [5, 9, 12]})"},
      {"r2c f16 32832 (mirrored split)",
       R"({"name": "cpur7", "family": "stockham", "precision": "f16", "transform": "r2c", "length": 32832})"},
      {"r2c f16 32832 (mirrored split, f16 scratch)",
       R"({"name": "cpur8", "family": "stockham", "precision": "f16", "transform": "r2c", "length": 32832, "tuning": {"half_scratch": true}})"},
      {"c2r f16 32832 (mirrored merge)",
       R"({"name": "cpur9", "family": "stockham", "precision": "f16", "transform": "c2r", "length": 32832})"},
      {"c2r f16 16416 (real_split kernel: the merge kernel, then the FFT of 8208)",
       R"({"name": "cpur9s", "family": "stockham", "precision": "f16", "transform": "c2r", "length": 16416, "tuning": {"real_split": "kernel"}})"},
      {"r2c f32 16416 (real_split mirrored: the split in the half's two-kernel plan)",
       R"({"name": "cpur10", "family": "stockham", "precision": "f32", "transform": "r2c", "length": 16416, "tuning": {"real_split": "mirrored"}})"},
      {"c2r f32 16416 (real_split mirrored: the merge in the half's two-kernel plan)",
       R"({"name": "cpur11", "family": "stockham", "precision": "f32", "transform": "c2r", "length": 16416, "tuning": {"real_split": "mirrored"}})"},
      {"r2c f32 32832 (real_split kernel: the FFT of 16416 into scratch, then a mirrored split pass)",
       R"({"name": "cpur12", "family": "stockham", "precision": "f32", "transform": "r2c", "length": 32832, "tuning": {"real_split": "kernel"}})"},
      {"r2c f32 32768 (real_split fused: one kernel of 16384, the split in its last pass)",
       R"({"name": "cpur13", "family": "stockham", "precision": "f32", "transform": "r2c", "length": 32768, "tuning": {"real_split": "fused"}})"},
      {"c2r f32 20000 (real_split fused: one kernel of 10000, the merge in its first read)",
       R"({"name": "cpur14", "family": "stockham", "precision": "f32", "transform": "c2r", "length": 20000, "tuning": {"real_split": "fused"}})"},
      {"r2c f32 3 x 16384 (real_split mirrored: the directly loaded row kernel with an outer axis digit)",
       R"({"name": "cpur17", "family": "stockham", "precision": "f32", "transform": "r2c", "lengths": [3, 16384], "tuning": {"real_split": "mirrored"}})"},
      {"c2r f32 3 x 16384 (real_split mirrored)",
       R"({"name": "cpur18", "family": "stockham", "precision": "f32", "transform": "c2r", "lengths": [3, 16384], "tuning": {"real_split": "mirrored"}})"},
      {"r2c f32 2048 (real_split mirrored on a short half: 32 x 32)",
       R"({"name": "cpur16", "family": "stockham", "precision": "f32", "transform": "r2c", "length": 2048, "tuning": {"real_split": "mirrored"}})"},
      {"r2c f64 16384 (real_split fused: one kernel of 8192)",
       R"({"name": "cpur15", "family": "stockham", "precision": "f64", "transform": "r2c", "length": 16384, "tuning": {"real_split": "fused"}})"},
  };
  int n = 0;
  for (const auto& c : cases) {
    auto fs = makeStockhamSpec(parseStockhamSpecText(c.text, "cpu.json"));
    LaunchPlan lp = fs->emit(EmitTarget{"sm_90", nullptr}).plan;
    for (auto& src : lp.sources) src.text = cpuRunnableSource(src.text);
    const Check ck = test::runPlanOnCpu(*fs, lp, 3, 2600 + n++, "stockham-cpu", c.label, asyncCopyShim());
    EXPECT_TRUE(ck.ok()) << c.label;
    EXPECT_GT(ck.checked, 0) << c.label;
    std::printf("[stockham-cpu] %s: %zu kernels, error %.2e (bound %.0e), unwritten %lld\n", c.label.c_str(),
                lp.kernels.size(), ck.error, ck.bound, ck.unwritten);
  }
  // Mutation: the mirrored row kernel of r2c 32832 taking FFT 0's mirror as if it were any other FFT's.
  auto fs = makeStockhamSpec(parseStockhamSpecText(cases[0].text, "cpu.json"));
  LaunchPlan lp = fs->emit(EmitTarget{"sm_90", nullptr}).plan;
  for (auto& s : lp.sources) s.text = cpuRunnableSource(s.text);
  std::string& src = lp.sources.back().text;
  const std::string self = "d0 == 0 ? ";
  ASSERT_NE(src.find(self), std::string::npos) << "the split's mirror of FFT 0";
  src.replace(src.find(self), self.size(), "d0 == -1 ? ");
  ::testing::TestPartResultArray failures;
  Check mutated;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    mutated = test::runPlanOnCpu(*fs, lp, 2, 2700, "stockham-cpu", "mutated: FFT 0 mirrored as the others",
                                 asyncCopyShim());
  }
  EXPECT_GT(mutated.checked, 0) << "the mutated kernel did not run";
  EXPECT_GT(mutated.error, mutated.bound) << "a split taking FFT 0's mirror from the wrong element must fail the check";
}
