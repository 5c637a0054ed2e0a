// The CPU references' double-precision DFT (generator/emulate/Reference.cpp: kissfft's mixed radix, Bluestein for
// lengths with a large prime factor) against FFTW, the independent reference only tests link: every length class
// (small, smooth, primes on both sides of the Bluestein threshold, products with a large prime, powers of two to
// 2^20), zero padding and truncation, both signs, and the multi-dimensional transform.
#include <gtest/gtest.h>

#include <fftw3.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <thread>

#include "generator/emulate/Reference.h"

namespace warpforge {
namespace {

std::vector<cdouble> fftw(const std::vector<cdouble>& x, const std::vector<int>& dims, int sign) {
  std::vector<cdouble> in(x), out(x.size());
  fftw_plan p = fftw_plan_dft(static_cast<int>(dims.size()), dims.data(), reinterpret_cast<fftw_complex*>(in.data()),
                              reinterpret_cast<fftw_complex*>(out.data()), sign > 0 ? FFTW_BACKWARD : FFTW_FORWARD,
                              FFTW_ESTIMATE);
  fftw_execute(p);
  fftw_destroy_plan(p);
  return out;
}

// Both are double FFTs: their difference is a few ulps per butterfly level, so the bound grows with log2 N.
double bound(long long n) { return 16 * std::ldexp(1.0, -52) * std::log2(static_cast<double>(n) + 1); }

std::uint64_t freshSeed() {
  const std::uint64_t s = std::random_device()();
  std::printf("seed %llu\n", static_cast<unsigned long long>(s));
  return s;
}

TEST(ReferenceDft, MatchesFftwOnEveryLengthClass) {
  const std::uint64_t seed = freshSeed();
  std::vector<int> lengths;
  for (int n = 1; n <= 70; ++n) lengths.push_back(n);
  for (int n : {97, 101, 127, 128, 202, 243, 343, 1000, 1024, 2187, 4087 /* 61 x 67 */, 4096, 4099, 9797, 10007, 16384,
                65537, 1 << 20})
    lengths.push_back(n);
  double worst = 0;
  for (int n : lengths)
    for (int sign : {-1, +1}) {
      const auto x = randomComplex(n, seed + n);
      const double e = relativeError(referenceDft(x, n, sign), fftw(x, {n}, sign));
      EXPECT_LE(e, bound(n)) << "length " << n << " sign " << sign << " seed " << seed;
      worst = std::max(worst, e / bound(n));
    }
  std::printf("worst error / bound: %.3f\n", worst);
}

// Threads computing the same length at once (the test data of a batch are made on every core): each gets FFTW's
// result. kissfft's generic butterflies (radices 7..61, e.g. 1001 = 7 x 11 x 13) work in a scratch buffer of the plan,
// so a plan shared between threads mixed their values.
TEST(ReferenceDft, ThreadsOfOneLengthAtOnce) {
  const std::uint64_t seed = freshSeed();
  const int n = 1001, threads = 8;
  std::vector<std::vector<cdouble>> x(threads), got(threads);
  for (int t = 0; t < threads; ++t) x[t] = randomComplex(n, seed + t);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int rep = 0; rep < 200; ++rep) got[t] = referenceDft(x[t], n, -1);
    });
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t)
    EXPECT_LE(relativeError(got[t], fftw(x[t], {n}, -1)), bound(n)) << "thread " << t << " seed " << seed;
}

TEST(ReferenceDft, ZeroPadsAndTruncates) {
  const std::uint64_t seed = freshSeed();
  auto x = randomComplex(300, seed);
  std::vector<cdouble> padded(x);
  padded.resize(512, 0.0);
  EXPECT_LE(relativeError(referenceDft(x, 512, -1), fftw(padded, {512}, -1)), bound(512));
  std::vector<cdouble> cut(x.begin(), x.begin() + 256);
  EXPECT_LE(relativeError(referenceDft(x, 256, +1), fftw(cut, {256}, +1)), bound(256));
}

TEST(ReferenceDft, MultiDimensionalMatchesFftw) {
  const std::uint64_t seed = freshSeed();
  for (const std::vector<int>& dims : std::vector<std::vector<int>>{{12, 40}, {7, 11, 13}, {64, 101}, {3, 1, 5}}) {
    long long n = 1;
    for (int d : dims) n *= d;
    const auto x = randomComplex(static_cast<std::size_t>(n), seed + n);
    for (int sign : {-1, +1})
      EXPECT_LE(relativeError(referenceDftNd(x, dims, sign), fftw(x, dims, sign)), bound(n))
          << dims.size() << "D, n " << n;
  }
}

TEST(ReferenceDft, AWrongTransformIsCaught) {
  // The comparison can fail: the opposite sign, or one value off by an ulp-scale amount at a large length, exceeds it.
  const auto x = randomComplex(4099, 7);
  EXPECT_GT(relativeError(referenceDft(x, 4099, +1), fftw(x, {4099}, -1)), 0.5);
  auto y = referenceDft(x, 4099, -1);
  y[17] += cdouble(1e-9, 0);
  EXPECT_GT(relativeError(y, fftw(x, {4099}, -1)), bound(4099));
}

}  // namespace
}  // namespace warpforge
