#include "generator/emulate/Reference.h"

#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <utility>

#include <kissfft.hh>  // BSD-3-Clause, header-only (Debian libkissfft-dev): the installed libraries link no GPL code

namespace warpforge {

namespace {

using Kiss = kissfft<double>;

// Lengths whose prime factors are all at most this go to kissfft's mixed radix; kissfft does a larger prime p with a
// generic butterfly of O(p) per output, so a length with one goes through Bluestein instead (power-of-two FFTs).
constexpr long long kLargestDirectPrime = 61;

long long largestPrimeFactor(long long n) {
  long long largest = 1;
  for (long long p = 2; p * p <= n; ++p)
    while (n % p == 0) largest = p, n /= p;
  return n > 1 ? n : largest;
}

// kissfft plans are kept for the next call of the same length, one cache per thread: a plan is not safe to share, as
// its generic butterfly (radices other than 2..5) works in a scratch buffer the plan owns.
std::shared_ptr<const Kiss> kissPlan(long long n, bool inverse) {
  thread_local std::map<std::pair<long long, bool>, std::shared_ptr<const Kiss>> plans;
  const auto key = std::make_pair(n, inverse);
  if (auto it = plans.find(key); it != plans.end()) return it->second;
  if (plans.size() >= 64) plans.clear();  // references of many lengths (a sweep): memory stays bounded
  auto p = std::make_shared<const Kiss>(static_cast<std::size_t>(n), inverse);
  plans.emplace(key, p);
  return p;
}

std::vector<cdouble> dft(const std::vector<cdouble>& x, int sign);

// exp(sign pi i k^2 / n), with k^2 reduced modulo 2n in integers so that the angle carries no rounding of k^2.
cdouble chirp(long long k, long long n, int sign) {
  const long long r = static_cast<long long>(static_cast<unsigned __int128>(k) * static_cast<unsigned __int128>(k) %
                                             (2 * n));
  const double a = M_PI * static_cast<double>(r > n ? r - 2 * n : r) / static_cast<double>(n);
  return {std::cos(a), sign * std::sin(a)};
}

// Bluestein: q n = (q^2 + n^2 - (q - n)^2) / 2 turns the length-n DFT into a convolution of length M >= 2n - 1.
std::vector<cdouble> bluestein(const std::vector<cdouble>& x, int sign) {
  const long long n = static_cast<long long>(x.size());
  long long M = 1;
  while (M < 2 * n - 1) M *= 2;
  std::vector<cdouble> w(n), a(M, 0.0), b(M, 0.0);
  for (long long k = 0; k < n; ++k) {
    w[k] = chirp(k, n, sign);
    a[k] = x[k] * w[k];
    b[k] = std::conj(w[k]);
    if (k) b[M - k] = b[k];
  }
  std::vector<cdouble> A = dft(a, -1), B = dft(b, -1);
  for (long long i = 0; i < M; ++i) A[i] *= B[i] / static_cast<double>(M);
  std::vector<cdouble> c = dft(A, +1), out(n);
  for (long long q = 0; q < n; ++q) out[q] = c[q] * w[q];
  return out;
}

// The unscaled DFT of x, Y_q = sum_n exp(sign 2 pi i q n / N) x_n.
std::vector<cdouble> dft(const std::vector<cdouble>& x, int sign) {
  const long long n = static_cast<long long>(x.size());
  if (n <= 1) return x;
  if (largestPrimeFactor(n) > kLargestDirectPrime) return bluestein(x, sign);
  std::vector<cdouble> out(n);
  kissPlan(n, sign > 0)->transform(x.data(), out.data());
  return out;
}

}  // namespace

std::vector<cdouble> referenceDft(const std::vector<cdouble>& x, int nOut, int sign) {
  if (nOut < 0) throw std::invalid_argument("referenceDft: negative length");
  std::vector<cdouble> in(nOut, 0.0);
  for (std::size_t i = 0; i < x.size() && i < in.size(); ++i) in[i] = x[i];
  return dft(in, sign);
}

std::vector<cdouble> referenceDftNd(const std::vector<cdouble>& x, const std::vector<int>& dims, int sign) {
  std::size_t total = 1;
  for (int d : dims) total *= static_cast<std::size_t>(d);
  if (total != x.size()) throw std::invalid_argument("referenceDftNd: the dimensions do not match the data");
  std::vector<cdouble> y(x), line;
  std::size_t inner = total;
  for (int d : dims) {  // axis d: lines of length d at stride inner / d, outermost axis first
    const std::size_t n = static_cast<std::size_t>(d), stride = inner / n, outer = total / inner;
    line.resize(n);
    for (std::size_t o = 0; o < outer; ++o)
      for (std::size_t s = 0; s < stride; ++s) {
        cdouble* base = y.data() + o * inner + s;
        for (std::size_t i = 0; i < n; ++i) line[i] = base[i * stride];
        std::vector<cdouble> t = dft(line, sign);
        for (std::size_t i = 0; i < n; ++i) base[i * stride] = t[i];
      }
    inner = stride;
  }
  return y;
}

double relativeError(const std::vector<cdouble>& out, const std::vector<cdouble>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    cdouble o = i < out.size() ? out[i] : cdouble(NAN, NAN);
    num += std::norm(o - ref[i]);
    den += std::norm(ref[i]);
  }
  double e = std::sqrt(num / den);
  return std::isnan(e) ? INFINITY : e;
}

std::vector<cdouble> randomComplex(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<cdouble> v(n);
  for (auto& z : v) {
    double re = u(rng);
    z = cdouble(re, u(rng));
  }
  return v;
}

}  // namespace warpforge
