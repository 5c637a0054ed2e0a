#include "generator/pfb/PfbData.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "generator/core/ByteArrays.h"
#include "generator/pfb/PfbGeometry.h"

namespace warpforge {

namespace {

constexpr double kU = 0x1p-24;  // f32 unit roundoff

long long streamOffsetBytes(const PfbSpec& s, long long b, int q) { return (b * s.streams() + q) * s.streamBytes(); }

// Random samples, roughly Gaussian (the sum of four bytes) with sigma a quarter of the full scale, 1 in 256 at an
// extreme.
class SampleSource {
 public:
  SampleSource(int bits, std::uint64_t seed)
      : rng_(seed), max_((1LL << (bits - 1)) - 1), sigma_(static_cast<double>(1LL << (bits - 1)) / 4) {}
  long long next() {
    if (!left_) word_ = rng_(), left_ = 1;
    --left_;
    const std::uint64_t w = word_;
    const double sum = static_cast<double>((w & 0xff) + (w >> 8 & 0xff) + (w >> 16 & 0xff) + (w >> 24 & 0xff)) - 510.0;
    long long v = std::llround(sum * sigma_ / 147.8);
    if ((w >> 32 & 0xff) == 0) v = (w >> 40 & 1) ? max_ : -max_ - 1;
    return std::clamp(v, -max_ - 1, max_);
  }

 private:
  std::mt19937_64 rng_;
  std::uint64_t word_ = 0;
  int left_ = 0;
  long long max_;
  double sigma_;
};

}  // namespace

long long pfbSample(const PfbSpec& s, const std::vector<unsigned char>& input, long long b, int q, long long index) {
  const long long base = streamOffsetBytes(s, b, q);
  switch (s.sampleType) {
    case PfbSampleType::Int8: return static_cast<signed char>(input[static_cast<std::size_t>(base + index)]);
    case PfbSampleType::Int16: return loadAt<std::int16_t>(input, (base / 2) + index);
    case PfbSampleType::Packed: {
      // Bit (index * bits + i) of the stream, most significant bit of each byte first.
      const int bits = s.sampleBits;
      long long v = 0;
      for (int i = 0; i < bits; ++i) {
        const long long bit = index * bits + i;
        v = v << 1 | ((input[static_cast<std::size_t>(base + bit / 8)] >> (7 - bit % 8)) & 1);
      }
      return v >= (1LL << (bits - 1)) ? v - (1LL << bits) : v;
    }
  }
  return 0;
}

void pfbPutSample(const PfbSpec& s, std::vector<unsigned char>& input, long long b, int q, long long index,
                  long long value) {
  const long long base = streamOffsetBytes(s, b, q);
  switch (s.sampleType) {
    case PfbSampleType::Int8: input[static_cast<std::size_t>(base + index)] = static_cast<unsigned char>(value); break;
    case PfbSampleType::Int16: {
      const std::int16_t v = static_cast<std::int16_t>(value);
      std::memcpy(&input[static_cast<std::size_t>(base + 2 * index)], &v, 2);
      break;
    }
    case PfbSampleType::Packed: {
      const int bits = s.sampleBits;
      for (int i = 0; i < bits; ++i) {
        const long long bit = index * bits + i;
        unsigned char& byte = input[static_cast<std::size_t>(base + bit / 8)];
        const int mask = 1 << (7 - bit % 8);
        if ((value >> (bits - 1 - i)) & 1) byte = static_cast<unsigned char>(byte | mask);
        else byte = static_cast<unsigned char>(byte & ~mask);
      }
      break;
    }
  }
}

TestData pfbInputs(const PfbSpec& s, long long batch, std::uint64_t seed) {
  TestData d;
  auto& in = d.arrays["input"];
  in.assign(static_cast<std::size_t>(s.inputBytesPerBatch() * batch), 0);
  SampleSource src(s.sampleBits, seed);
  const long long n = s.streamSamples();
  for (long long b = 0; b < batch; ++b)
    for (int q = 0; q < s.streams(); ++q) {
      unsigned char* p = in.data() + streamOffsetBytes(s, b, q);
      if (s.sampleType == PfbSampleType::Packed) {
        // Most significant bits first into a 64-bit accumulator, whole bytes out.
        unsigned long long acc = 0;
        int held = 0;
        const unsigned long long mask = (1ULL << s.sampleBits) - 1;
        for (long long i = 0; i < n; ++i) {
          acc = acc << s.sampleBits | (static_cast<unsigned long long>(src.next()) & mask);
          held += s.sampleBits;
          while (held >= 8) *p++ = static_cast<unsigned char>(acc >> (held - 8)), held -= 8;
        }
        if (held) throw std::logic_error("pfbInputs: a stream is not a whole number of bytes");
      } else if (s.sampleType == PfbSampleType::Int8) {
        for (long long i = 0; i < n; ++i) p[i] = static_cast<unsigned char>(src.next());
      } else {
        for (long long i = 0; i < n; ++i) {
          const std::int16_t v = static_cast<std::int16_t>(src.next());
          std::memcpy(p + 2 * i, &v, 2);
        }
      }
    }
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  if (s.perChannelGain) {
    // |X| is about the samples' sigma (unit-energy weights); gains put the output near 20, and 1 channel in 32 at 8x
    // (saturating).
    const double sigma = static_cast<double>(1LL << (s.sampleBits - 1)) / 4;
    std::vector<float> g(static_cast<std::size_t>(2 * s.streams() * s.channels));
    for (std::size_t i = 0; i < g.size(); i += 2) {
      double mag = 20.0 / sigma * (0.5 + u(rng));
      if (u(rng) < 1.0 / 32) mag *= 8;
      const double ph = 2 * M_PI * u(rng);
      g[i] = static_cast<float>(mag * std::cos(ph));
      g[i + 1] = static_cast<float>(mag * std::sin(ph));
    }
    auto& gb = d.arrays["gains"];
    gb.resize(g.size() * 4);
    std::memcpy(gb.data(), g.data(), gb.size());
  }
  if (s.delay) {
    std::vector<float> dl(static_cast<std::size_t>(2 * batch * s.streams() * s.spectra));
    for (std::size_t i = 0; i < dl.size(); i += 2) {
      dl[i] = static_cast<float>(2 * u(rng) - 1);               // delay, samples
      dl[i + 1] = static_cast<float>(M_PI * (2 * u(rng) - 1));  // phase, radians
    }
    auto& db = d.arrays["delays"];
    db.resize(dl.size() * 4);
    std::memcpy(db.data(), dl.data(), db.size());
  }
  d.logical = seed;
  return d;
}

void pfbFftDouble(std::vector<std::complex<double>>& x, int sign) {
  const std::size_t L = x.size();
  if (L & (L - 1)) throw std::invalid_argument("pfbFftDouble: length must be a power of two");
  for (std::size_t i = 1, j = 0; i < L; ++i) {
    std::size_t bit = L >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(x[i], x[j]);
  }
  // Twiddles of the largest stage, each from cos / sin of its own angle (no recurrence).
  std::vector<std::complex<double>> w(L / 2);
  for (std::size_t k = 0; k < L / 2; ++k) {
    const double a = sign * 2.0 * M_PI * static_cast<double>(k) / static_cast<double>(L);
    w[k] = {std::cos(a), std::sin(a)};
  }
  for (std::size_t len = 2; len <= L; len <<= 1) {
    const std::size_t step = L / len;
    for (std::size_t i = 0; i < L; i += len)
      for (std::size_t k = 0; k < len / 2; ++k) {
        const std::complex<double> t = w[k * step] * x[i + k + len / 2];
        x[i + k + len / 2] = x[i + k] - t;
        x[i + k] += t;
      }
  }
}

PfbReferenceSpectrum pfbReference(const PfbSpec& s, const TestData& data, long long b, int q, long long spectrum) {
  const auto& in = data.arrays.at("input");
  const long long L = s.fftLength(), N = s.channels;
  std::vector<std::complex<double>> y(static_cast<std::size_t>(L));
  PfbReferenceSpectrum r;
  double absNorm = 0, norm = 0;
  for (long long i = 0; i < L; ++i) {
    double acc = 0, mag = 0;
    for (int j = 0; j < s.taps; ++j) {
      const double w = static_cast<float>(
          s.weights.values[static_cast<std::size_t>(j * L + i)]);  // as the table holds it
      const double x = static_cast<double>(pfbSample(s, in, b, q, (spectrum + j) * L + i));
      acc += w * x;
      mag += std::fabs(w * x);
    }
    y[static_cast<std::size_t>(i)] = acc;
    absNorm += mag * mag;
    norm += acc * acc;
  }
  r.firAbsNorm = std::sqrt(absNorm);
  r.firNorm = std::sqrt(norm);
  pfbFftDouble(y, -1);
  r.X.assign(y.begin(), y.begin() + N);
  r.V.resize(static_cast<std::size_t>(N));
  r.scale.resize(static_cast<std::size_t>(N));
  double d = 0, phi = 0;
  if (s.delay) {
    const auto& dl = data.arrays.at("delays");
    const long long at = (b * s.streams() + q) * s.spectra + spectrum;
    d = loadAt<float>(dl, 2 * at);
    phi = loadAt<float>(dl, 2 * at + 1);
  }
  for (long long k = 0; k < N; ++k) {
    std::complex<double> g = static_cast<float>(s.gain);
    if (s.perChannelGain) {
      const auto& gb = data.arrays.at("gains");
      g = {loadAt<float>(gb, 2 * (q * N + k)), loadAt<float>(gb, 2 * (q * N + k) + 1)};
    }
    const double angle = phi - M_PI * d * static_cast<double>(k) / static_cast<double>(N);
    r.V[static_cast<std::size_t>(k)] = g * std::polar(1.0, angle) * r.X[static_cast<std::size_t>(k)];
    r.scale[static_cast<std::size_t>(k)] = std::abs(g);
  }
  return r;
}

// ||out - V|| / ||X|| with the gains divided out, for the f32 kernels:
//  - FIR: T fused multiply-adds per output, |dy_i| <= gamma_T sum_j |w_j x_j| (gamma_T = T u / (1 - T u)); through the
//    (exact) real FFT, ||dX|| <= sqrt(2N) ||dy|| (Parseval over the full spectrum; the kept half has less);
//  - FFT: N-point complex FFT as radix-2 levels (radix-4 / 8 butterflies are such levels, with exact +-i and one
//    rounded sqrt(1/2)), each level adding at most eta = mu + gamma_4 (sqrt2 + mu) relative (Higham, Accuracy and
//    Stability, 24.1; mu <= u for twiddles rounded once from double): < 7 u per level, log2 N levels; the four-step
//    twiddle and the real-FFT split are one level each;
//  - post: the complex gain (7 u), the phase (sincospif, 2 ulp per part, and its f32 arguments' roundings: phi/pi
//    with a rounded 1/pi, d times exact fractions k / N, their difference: pi 3 u (|phi/pi| + |d|), |phi| <= pi,
//    |d| <= 1 in the tests: 20 u; the post kernel's tables H[ih] L[il] split k = base + n1 il and round as that), the
//    rotation product (7 u). Total 30 u.
double pfbErrorBound(const PfbSpec& s, const PfbReferenceSpectrum& r) {
  double xNorm = 0;
  for (const auto& x : r.X) xNorm += std::norm(x);
  xNorm = std::sqrt(xNorm);
  if (xNorm == 0) return 0;
  const double T = s.taps;
  const double gammaT = T * kU / (1 - T * kU);
  const double levels = std::log2(static_cast<double>(s.channels)) + 2;
  // `scratch` "f16": each part of Y rounded once to f16 between the kernels, |dY| <= u_h |Y| (u_h = 2^-11), or 2^-25
  // where subnormal. The row FFTs keep norms up to their scale, ||Z|| = sqrt(n2) ||Y|| = sqrt(N) ||y|| (Parseval, the
  // column FFTs and unit twiddles), and the split moves at most sqrt2 ||dZ|| into the kept channels (X[0] = Re + Im of
  // Z[0]; the Nyquist channel dropped): ||dX|| <= sqrt2 (u_h sqrt(N) ||y|| + 2^-25 sqrt(n2) sqrt(2N)).
  const double N = static_cast<double>(s.channels);
  const double half = s.halfScratch
                          ? std::sqrt(2.0) *
                                (0x1p-11 * std::sqrt(N) * r.firNorm +
                                 0x1p-25 * std::sqrt(static_cast<double>(pfbGeometry(s).n2)) * std::sqrt(2 * N)) /
                                xNorm
                          : 0.0;
  return gammaT * std::sqrt(static_cast<double>(s.fftLength())) * r.firAbsNorm / xNorm + kU * (7 * levels + 30) + half;
}

Check pfbCheck(const PfbSpec& s, const TestData& data, const std::map<std::string, std::vector<unsigned char>>& outputs,
               long long batch, bool compareCounts) {
  const bool ci8 = s.outputType == PfbOutputType::CI8;
  const auto& out = outputs.at("spectra");
  const long long epb = s.outputElementsPerBatch(), N = s.channels;
  if (static_cast<long long>(out.size()) < epb * batch * s.outputElementBytes())
    throw std::invalid_argument(
        fmt::format("pfb check: output of {} bytes, expected {}", out.size(), epb * batch * s.outputElementBytes()));
  // Which spectra: all while the reference stays cheap, else a seeded sample (first and last always).
  const long long total = batch * s.streams() * s.spectra;
  const double perSpectrum = static_cast<double>(s.fftLength()) *
                             (s.taps + 5 * std::log2(static_cast<double>(s.fftLength())));
  std::vector<long long> which;
  const long long most = std::max<long long>(48, static_cast<long long>(3e8 / perSpectrum));
  if (total <= most) {
    for (long long i = 0; i < total; ++i) which.push_back(i);
  } else {
    std::mt19937_64 rng(0x5eed ^ static_cast<std::uint64_t>(total));
    which = {0, total - 1};
    for (long long i = 0; i < most; ++i)
      which.push_back(static_cast<long long>(rng() % static_cast<std::uint64_t>(total)));
  }
  const bool full = static_cast<long long>(which.size()) == total;
  Check c;
  c.exact = ci8;
  c.checked = static_cast<long long>(which.size());
  double worst = 0, bound = 1e300;
  long long mismatches = 0, unwritten = 0, ambiguousUsed = 0;
  std::vector<long long> satRef(static_cast<std::size_t>(s.streams()), 0),
      satSlack(static_cast<std::size_t>(s.streams()), 0);
  std::string firstBad;
  for (long long w : which) {
    const long long spectrum = w % s.spectra, b = w / s.spectra / s.streams();
    const int q = static_cast<int>(w / s.spectra % s.streams());
    const PfbReferenceSpectrum r = pfbReference(s, data, b, q, spectrum);
    const double B = pfbErrorBound(s, r);
    bound = std::min(bound, B);
    double xNorm = 0;
    for (const auto& x : r.X) xNorm += std::norm(x);
    xNorm = std::sqrt(xNorm);
    double err = 0;
    // ci8: a part that took the other neighbour of a rounding boundary needs an error of at least its reference's
    // distance to that boundary before the rounding; the bound caps the norm of those errors (gains divided out), so
    // the flips of a spectrum must satisfy sum (distance / gain)^2 <= (B ||X||)^2, however many there are.
    double flipCost = 0;
    for (long long k = 0; k < N; ++k) {
      const long long at = b * epb + s.outputOffset(q, spectrum, k);
      const std::complex<double> v = r.V[static_cast<std::size_t>(k)];
      const double g = r.scale[static_cast<std::size_t>(k)];
      if (!ci8) {
        const float re = loadAt<float>(out, 2 * at), im = loadAt<float>(out, 2 * at + 1);
        if (!std::isfinite(re) || !std::isfinite(im)) {
          ++unwritten;
          continue;
        }
        err += std::norm(std::complex<double>(re, im) - v) / (g * g);
        continue;
      }
      // ci8: exact, except a part whose reference lies within the f32 bound of a rounding boundary (x.5), where
      // either neighbour is right.
      const double eps = B * xNorm * g;
      const int got[2] = {static_cast<signed char>(out[static_cast<std::size_t>(2 * at)]),
                          static_cast<signed char>(out[static_cast<std::size_t>(2 * at + 1)])};
      const double ref[2] = {v.real(), v.imag()};
      bool clipped = false, clipAmbiguous = false, bad = false;
      for (int part = 0; part < 2; ++part) {
        const double rounded = std::nearbyint(ref[part]);  // ties to even (the default rounding mode)
        const long long want = static_cast<long long>(std::clamp(rounded, -127.0, 127.0));
        const double toBoundary = std::fabs(std::fabs(ref[part] - std::floor(ref[part])) - 0.5);
        const bool ambiguous = toBoundary < eps;
        clipped |= std::fabs(rounded) > 127;
        clipAmbiguous |= ambiguous && std::fabs(std::fabs(ref[part]) - 127.5) < eps + 1e-9;
        if (got[part] == want) continue;
        if (ambiguous && std::llabs(got[part] - want) <= 1) {
          ++ambiguousUsed;
          flipCost += (toBoundary / g) * (toBoundary / g);
          continue;
        }
        bad = true;
      }
      satRef[static_cast<std::size_t>(q)] += clipped;
      satSlack[static_cast<std::size_t>(q)] += clipAmbiguous;
      if (bad) {
        ++mismatches;
        if (got[0] == -1 && got[1] == -1) ++unwritten;
        if (firstBad.empty())
          firstBad = fmt::format(
              "first mismatch: batch {} stream {} spectrum {} channel {}: got ({}, {}), want ({:.4f}, {:.4f})", b, q,
              spectrum, k, got[0], got[1], ref[0], ref[1]);
      }
    }
    if (ci8 && std::sqrt(flipCost) > B * xNorm) {
      ++mismatches;
      if (firstBad.empty())
        firstBad = fmt::format(
            "batch {} stream {} spectrum {}: its rounding flips need an error of norm {:.3e} before the rounding, "
            "beyond the bound's {:.3e}",
            b, q, spectrum, std::sqrt(flipCost), B * xNorm);
    }
    if (!ci8) {
      const double e = xNorm > 0 ? std::sqrt(err) / xNorm : std::sqrt(err);
      if (e > worst) worst = e;
      if (!(e <= B) && firstBad.empty())
        firstBad = fmt::format("batch {} stream {} spectrum {}: error {:.3e} > bound {:.3e}", b, q, spectrum, e, B);
    }
  }
  // Saturation counts: exact where every spectrum was compared (a clipped part at the boundary may go either way).
  std::string satText = compareCounts ? "saturation counts not compared (sampled spectra)"
                                      : "saturation counts not compared (not asked)";
  if (ci8 && full && compareCounts) {
    const auto& sat = outputs.at("saturated");
    long long off = 0;
    for (int q = 0; q < s.streams(); ++q) {
      const long long got = static_cast<long long>(loadAt<std::uint64_t>(sat, q));
      if (std::llabs(got - satRef[static_cast<std::size_t>(q)]) > satSlack[static_cast<std::size_t>(q)]) {
        ++off;
        if (firstBad.empty())
          firstBad = fmt::format("stream {}: saturated {} (reference {} +- {})", q, got,
                                 satRef[static_cast<std::size_t>(q)], satSlack[static_cast<std::size_t>(q)]);
      }
    }
    long long totalRef = 0;
    for (long long x : satRef) totalRef += x;
    satText = fmt::format("saturation counts {} (reference total {})", off ? "WRONG" : "match", totalRef);
    mismatches += off;
  }
  if (!ci8) {
    // Unwritten anywhere: the poison (NaN) in any element, compared or not.
    for (long long i = 0; i < epb * batch; ++i) {
      const float re = loadAt<float>(out, 2 * i), im = loadAt<float>(out, 2 * i + 1);
      if (!std::isfinite(re) || !std::isfinite(im)) ++unwritten;
    }
  }
  c.unwritten = unwritten;
  if (ci8) {
    c.error = static_cast<double>(mismatches);
    c.bound = 0;
    c.detail = fmt::format(
        "{} of {} spectra compared channel by channel against the double reference: {} mismatches, {} parts within the "
        "{} bound of a rounding boundary took the other neighbour, {} unwritten; {}{}{}",
        which.size(), total, mismatches, ambiguousUsed, s.halfScratch ? "f16-scratch" : "f32", unwritten, satText,
        firstBad.empty() ? "" : "; ", firstBad);
  } else {
    c.error = worst;
    c.bound = bound;
    c.detail = fmt::format(
        "{} of {} spectra compared: max ||out - ref|| / ||X|| = {:.3e} (gains divided out), bound {:.3e} (the smallest "
        "of the spectra's f32 bounds: FIR gamma_T sqrt(2N) ||sum|w x||| / ||X|| + 7 u per FFT level + 30 u post{}), {} "
        "unwritten{}{}",
        which.size(), total, worst, bound,
        s.halfScratch ? " + the f16 scratch's sqrt2 (2^-11 sqrt(N) ||y|| + subnormals) / ||X||" : "", unwritten,
        firstBad.empty() ? "" : "; ", firstBad);
  }
  return c;
}

}  // namespace warpforge
