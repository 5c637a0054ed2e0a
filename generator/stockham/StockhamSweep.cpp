// `warpforge bench --sweep stockham`: specs a user might write, drawn at random from classes of transforms
// (every c2c length 2..16384, even r2c/c2r lengths, prime factors 17..127, powers of 3, 5, 7,
// 1D lengths to 2^24, 2D/3D shapes, strided and planar layouts). Nothing here is filtered by what the
// generator supports: a spec it cannot build fails to parse and the sweep counts it as unsupported.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "generator/core/Facets.h"
#include "generator/core/SweepDraw.h"

namespace warpforge {

namespace {

// Deterministic for a seed on every platform (std:: distributions are not): splitmix64 draws.
using Draw = SweepDraw;

bool smoothOver(long long n, const std::vector<int>& primes) {
  for (int p : primes)
    while (n % p == 0) n /= p;
  return n == 1;
}
const std::vector<int> kRadixPrimes = {2, 3, 5, 7, 11, 13};

// A log-uniform length in [lo, hi] whose prime factors are all in `primes` (the nearest found in a bounded search).
long long smoothLength(Draw& d, long long lo, long long hi, const std::vector<int>& primes = kRadixPrimes) {
  for (int tries = 0; tries < 4096; ++tries)
    if (long long n = d.logBetween(lo, hi); smoothOver(n, primes)) return n;
  long long n = 1;
  while (n * 2 <= hi) n *= 2;
  return std::max(n, lo);
}

std::string pickPrecision(Draw& d, double pF16, double pF64) {
  const double u = d.unit();
  return u < pF16 ? "f16" : u < pF16 + pF64 ? "f64" : "f32";
}

std::string shapeName(const std::vector<long long>& lengths) { return fmt::format("{}", fmt::join(lengths, "x")); }

// The spec's required members; the caller adds layouts.
Json baseSpec(const std::string& precision, const std::string& transform, const std::vector<long long>& lengths,
              Draw& d) {
  Json j = Json::object();
  j["name"] = fmt::format("{}_{}_{}", transform, precision, shapeName(lengths));
  j["family"] = "stockham";
  j["precision"] = precision;
  j["transform"] = transform;
  if (lengths.size() == 1) j["length"] = lengths[0];
  else j["lengths"] = lengths;
  if (transform == "c2c") j["direction"] = d.chance(0.5) ? "forward" : "inverse";
  return j;
}

// c2c length, uniform over every length 2..16384 (most are not smooth: Bluestein or native large primes).
Json c2cUniform(Draw& d, const std::string& precision) { return baseSpec(precision, "c2c", {d.between(2, 16384)}, d); }
// The same per octave: small lengths (one FFT per thread or per few threads) as often as large ones.
Json c2cLog(Draw& d, const std::string& precision) { return baseSpec(precision, "c2c", {d.logBetween(2, 16384)}, d); }

Json realEven(Draw& d) {
  const std::string precision = pickPrecision(d, 0.1, 0.1);
  const long long n = 2 * (d.chance(0.5) ? d.between(2, 8192) : d.logBetween(2, 8192));
  return baseSpec(precision, d.chance(0.5) ? "r2c" : "c2r", {n}, d);
}

// One or two primes 17..127 times a 2,3,5,7-smooth cofactor (323 = 17 x 19, 1000 + ... as users pick them).
Json largePrimes(Draw& d) {
  static const std::vector<int> primes = {17, 19, 23, 29, 31, 37, 41,  43,  47,  53,  59,  61, 67,
                                          71, 73, 79, 83, 89, 97, 101, 103, 107, 109, 113, 127};
  long long n = d.pick(primes);
  if (d.chance(0.2)) n *= d.pick(primes);
  const bool real = d.chance(0.2);
  const long long maxCofactor = std::max<long long>(1, 16384 / n / (real ? 2 : 1));
  const long long m = smoothLength(d, 1, maxCofactor, {2, 3, 5, 7}) * (real ? 2 : 1);  // r2c/c2r: even lengths
  const std::string precision = pickPrecision(d, 0.1, 0.1);
  return baseSpec(precision, real ? (d.chance(0.5) ? "r2c" : "c2r") : "c2c", {n * m}, d);
}

// High powers of 3, 5, 7 (3^8 = 6561 ... 3^15), mostly as one kernel's length.
Json smallPrimePowers(Draw& d) {
  static const std::vector<int> bases = {3, 5, 7};
  const int base = d.pick(bases);
  const int maxSmall = base == 3 ? 8 : base == 5 ? 6 : 4;    // <= 16384
  const int maxLarge = base == 3 ? 15 : base == 5 ? 10 : 8;  // <= 2^24
  const int k = d.chance(0.75) ? static_cast<int>(d.between(3, maxSmall))
                               : static_cast<int>(d.between(maxSmall + 1, maxLarge));
  long long n = 1;
  for (int i = 0; i < k; ++i) n *= base;
  const bool real = n <= 8192 && d.chance(0.15);
  return baseSpec(pickPrecision(d, 0.1, 0.15), real ? "r2c" : "c2c", {real ? 2 * n : n}, d);
}

// 1D lengths past one kernel, to 2^24 (f16, f32): powers of two, smooth lengths, and any length.
Json large1d(Draw& d) {
  const std::string precision = d.chance(0.5) ? "f16" : "f32";
  long long n;
  const double u = d.unit();
  if (u < 0.4) n = 1LL << d.between(15, 24);
  else if (u < 0.8) n = smoothLength(d, 16385, 1LL << 24, {2, 3, 5, 7});
  else n = d.logBetween(16385, 1LL << 24);
  return baseSpec(precision, "c2c", {n}, d);
}

// 2D and 3D shapes, square/cubic and not, points <= 2^24; one in ten has a non-smooth axis or is real.
Json multiDim(Draw& d, int dims) {
  const long long maxAxis = dims == 2 ? 4096 : 512;
  std::vector<long long> lengths;
  for (int tries = 0; tries < 64; ++tries) {
    lengths.clear();
    if (d.chance(dims == 2 ? 0.5 : 0.4)) {
      lengths.assign(dims, smoothLength(d, 4, dims == 2 ? 4096 : 256));
    } else {
      for (int k = 0; k < dims; ++k) lengths.push_back(smoothLength(d, 2, maxAxis));
    }
    if (d.chance(0.08)) lengths[d.between(0, dims - 1)] = d.logBetween(17, maxAxis);  // any axis length
    long long points = 1;
    for (long long n : lengths) points *= n;
    if (points <= (1LL << 24) && points >= 16) break;
  }
  std::string transform = "c2c";
  if (d.chance(0.1)) {
    transform = d.chance(0.5) ? "r2c" : "c2r";
    if (lengths.back() % 2) lengths.back() *= 2;
  }
  return baseSpec(pickPrecision(d, dims == 2 ? 0.15 : 0.2, dims == 2 ? 0.15 : 0.2), transform, lengths, d);
}

// 1D r2c / c2r past one kernel, to 2^24 (f16, f32) and 2^23 (f64): powers of two, smooth lengths, any even length and,
// one in ten, an odd length.
Json largeReal(Draw& d) {
  const std::string precision = pickPrecision(d, 0.2, 0.2);
  const long long maxN = precision == "f64" ? 1LL << 23 : 1LL << 24;
  long long n;
  const double u = d.unit();
  if (u < 0.35) n = 1LL << d.between(15, precision == "f64" ? 23 : 24);
  else if (u < 0.7) n = 2 * smoothLength(d, 8193, maxN / 2, {2, 3, 5, 7});
  else if (u < 0.9) n = 2 * d.logBetween(8193, maxN / 2);
  else n = 2 * d.logBetween(8193, maxN / 4) + 1;
  const bool c2r = d.chance(0.5);
  return baseSpec(precision, c2r ? "c2r" : "r2c", {n}, d);
}

// 2D and 3D r2c / c2r in cuFFT's layout (the innermost axis halved plus one on the complex side), points <= 2^24; one
// in ten has an axis of any length, one in six an odd innermost length.
Json multiDimReal(Draw& d) {
  const int dims = d.chance(0.6) ? 2 : 3;
  const long long maxAxis = dims == 2 ? 4096 : 512;
  std::vector<long long> lengths;
  for (int tries = 0; tries < 64; ++tries) {
    lengths.clear();
    for (int k = 0; k < dims; ++k) lengths.push_back(smoothLength(d, 2, maxAxis));
    if (d.chance(0.1)) lengths[d.between(0, dims - 1)] = d.logBetween(17, maxAxis);
    if (d.chance(1.0 / 6)) lengths.back() |= 1;
    else if (lengths.back() % 2) lengths.back() *= 2;
    long long points = 1;
    for (long long n : lengths) points *= n;
    if (points <= (1LL << 24) && points >= 16) break;
  }
  return baseSpec(pickPrecision(d, 0.15, 0.2), d.chance(0.5) ? "r2c" : "c2r", lengths, d);
}

// Strided, padded and planar layouts, and in-place transforms, on 1D and 2D c2c.
Json layouts(Draw& d) {
  const bool twoD = d.chance(0.25);
  std::vector<long long> lengths;
  if (twoD) lengths = {smoothLength(d, 4, 512), smoothLength(d, 4, 512)};
  else lengths = {smoothLength(d, 8, 8192)};
  Json j = baseSpec(pickPrecision(d, 0.15, 0.15), "c2c", lengths, d);
  long long points = 1;
  for (long long n : lengths) points *= n;
  auto layout = [&](const char* which) {
    Json io = Json::object();
    const double u = d.unit();
    if (u < 0.35) {
      io["layout"] = "planar";
    } else if (u < 0.7) {  // every s-th element (an array of structures, or a sub-sampled signal)
      const long long s = d.pick(std::vector<long long>{2, 3, 4, 8});
      if (twoD) io["strides"] = Json::array({lengths[1] * s, s});
      else io["stride"] = s;
      io["distance"] = points * s;
    } else {  // padded entries (rows padded for alignment, or an offset header)
      const long long pad = d.pick(std::vector<long long>{1, 3, 8, 64});
      if (twoD) {
        io["strides"] = Json::array({lengths[1] + pad, 1});
        io["distance"] = lengths[0] * (lengths[1] + pad);
      } else {
        io["distance"] = points + pad;
      }
      if (d.chance(0.3)) io["offset"] = d.between(1, 32);
    }
    if (d.chance(0.2) && !io.contains("layout")) io["layout"] = "planar";
    j[which] = io;
    j["name"] = j["name"].get<std::string>() + "_" + which + "_" +
                (io.contains("layout")                                      ? "planar"
                 : io.contains("stride") || (twoD && io["strides"][1] != 1) ? "strided"
                                                                            : "padded");
  };
  const double u = d.unit();
  if (u < 0.15) {  // in place: one layout for both
    layout("input");
    j["output"] = j["input"];
    j["placement"] = "in_place";
    j["name"] = j["name"].get<std::string>() + "_in_place";
  } else {
    if (u < 0.6) layout("input");
    if (u >= 0.4) layout("output");
  }
  return j;
}

struct Group {
  const char* name;
  int weight;  // cases per 300
  Json (*make)(Draw&);
};

const std::vector<Group>& groups() {
  static const std::vector<Group> g = {
      {"c2c f32, any length 2..16384", 60, [](Draw& d) { return c2cUniform(d, "f32"); }},
      {"c2c f32, log-uniform 2..16384", 40, [](Draw& d) { return c2cLog(d, "f32"); }},
      {"c2c f16, 2..16384", 15, [](Draw& d) { return d.chance(0.5) ? c2cUniform(d, "f16") : c2cLog(d, "f16"); }},
      {"c2c f64, 2..16384", 15, [](Draw& d) { return d.chance(0.5) ? c2cUniform(d, "f64") : c2cLog(d, "f64"); }},
      {"r2c/c2r, even lengths to 16384", 40, realEven},
      {"prime factors 17..127", 25, largePrimes},
      {"powers of 3, 5, 7", 20, smallPrimePowers},
      {"1D to 2^24 (f16, f32)", 25, large1d},
      {"2D", 25, [](Draw& d) { return multiDim(d, 2); }},
      {"3D", 20, [](Draw& d) { return multiDim(d, 3); }},
      {"strided, padded, planar, in place", 15, layouts},
      {"r2c/c2r 1D past one kernel (to 2^24)", 20, largeReal},
      {"r2c/c2r 2D/3D", 20, multiDimReal},
  };
  return g;
}

}  // namespace

// Each class gets its share of `count` (at least one case where count allows), in an order shuffled by the
// seed so that a sweep cut short by its time budget still samples every class; each case draws from its own
// stream (seed, index).
std::vector<SweepSpec> stockhamSweepSpecs(std::uint64_t seed, int count) {
  const auto& g = groups();
  std::vector<int> quota(g.size(), 0);
  int total = 0, weights = 0;
  for (const auto& x : g) weights += x.weight;
  for (std::size_t i = 0; i < g.size(); ++i) total += quota[i] = count * g[i].weight / weights;
  for (std::size_t i = 0; total < count; i = (i + 1) % g.size()) ++quota[i], ++total;
  if (count >= static_cast<int>(g.size()))
    for (auto& q : quota)
      if (q == 0) --*std::max_element(quota.begin(), quota.end()), ++q;
  std::vector<int> order;
  for (std::size_t i = 0; i < g.size(); ++i) order.insert(order.end(), quota[i], static_cast<int>(i));
  Draw shuffle(seed ^ 0x5bd1e995ULL);
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[shuffle.next() % i]);
  std::vector<SweepSpec> out;
  for (std::size_t i = 0; i < order.size(); ++i) {
    Draw d(seed * 0x100000001b3ULL + i);
    Json spec = g[order[i]].make(d);
    spec["name"] = fmt::format("s{}_{}", i, spec["name"].get<std::string>());
    spec["description"] = fmt::format("bench --sweep seed {} case {}: {}", seed, i, g[order[i]].name);
    out.push_back({g[order[i]].name, std::move(spec)});
  }
  return out;
}

}  // namespace warpforge
