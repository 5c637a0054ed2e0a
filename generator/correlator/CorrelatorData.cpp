#include "generator/correlator/CorrelatorData.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "generator/core/ByteArrays.h"
#include "generator/emulate/Half.h"

namespace warpforge {

namespace {

long long elemBytes(const CorrelatorSpec& s) {
  return s.type == SampleType::CI4 ? 1 : s.type == SampleType::CI8 ? 2 : 4;
}

// (c, bl, pp, qq, reim) of component e, and the receivers / polarizations of each side.
struct Component {
  long long c, bl, r1, r2, p, q;
  int reim;
};
Component component(const CorrelatorSpec& s, long long e) {
  const long long P = s.polarizations;
  Component k;
  k.reim = static_cast<int>(e & 1);
  e >>= 1;
  const long long qq = e % P, pp = (e / P) % P;
  e /= P * P;
  k.bl = e % s.baselines();
  k.c = e / s.baselines();
  baselineReceivers(k.bl, k.r1, k.r2);
  k.p = s.polOrder == "r1_r2" ? pp : qq;  // p: r1's polarization
  k.q = s.polOrder == "r1_r2" ? qq : pp;
  return k;
}

}  // namespace

long long sampleOffset(const CorrelatorSpec& s, long long b, long long c, long long t, long long r, long long p) {
  const CorrelatorInput& in = s.input;
  const long long T = in.timesPerBlock;
  return b * in.batch + c * in.channel + r * in.receiver + p * in.polarization + (t / T) * in.timeBlock +
         (T > 1 ? (t % T) * in.time : 0);
}

SampleValue correlatorSample(const CorrelatorSpec& s, const std::vector<unsigned char>& input, long long b, long long c,
                             long long t, long long r, long long p) {
  const long long off = sampleOffset(s, b, c, t, r, p);
  SampleValue v;
  switch (s.type) {
    case SampleType::CI8: {
      int re = static_cast<signed char>(input[2 * off]), im = static_cast<signed char>(input[2 * off + 1]);
      v.re = std::max(re, -127);
      v.im = std::max(im, -127);
      break;
    }
    case SampleType::CI4: {
      const int byte = input[off];
      const int hi = sext4(byte >> 4), lo = sext4(byte & 15);
      v.re = std::max(s.ci4RealHigh ? hi : lo, -7);
      v.im = std::max(s.ci4RealHigh ? lo : hi, -7);
      break;
    }
    case SampleType::CF16: {
      v.re = halfBitsToDouble(loadAt<std::uint16_t>(input, 2 * off));
      v.im = halfBitsToDouble(loadAt<std::uint16_t>(input, 2 * off + 1));
      break;
    }
  }
  return v;
}

// s1 conj(s2) (conjugate "r2") or s2 conj(s1) = conj(s1 conj(s2)) ("r1"): the imaginary part changes sign.
long long referenceProductInt(const CorrelatorSpec& s, const std::vector<unsigned char>& input, long long b,
                              long long e) {
  const Component k = component(s, e);
  long long sum = 0;
  for (long long t = 0; t < s.samples; ++t) {
    const SampleValue x = correlatorSample(s, input, b, k.c, t, k.r1, k.p),
                      y = correlatorSample(s, input, b, k.c, t, k.r2, k.q);
    const long long a1 = static_cast<long long>(x.re), b1 = static_cast<long long>(x.im),
                    a2 = static_cast<long long>(y.re), b2 = static_cast<long long>(y.im);
    sum += k.reim == 0 ? a1 * a2 + b1 * b2 : b1 * a2 - a1 * b2;
  }
  return k.reim == 1 && s.conjugate == "r1" ? -sum : sum;
}

double referenceProductF(const CorrelatorSpec& s, const std::vector<unsigned char>& input, long long b, long long e) {
  const Component k = component(s, e);
  double sum = 0;
  for (long long t = 0; t < s.samples; ++t) {
    const SampleValue x = correlatorSample(s, input, b, k.c, t, k.r1, k.p),
                      y = correlatorSample(s, input, b, k.c, t, k.r2, k.q);
    sum += k.reim == 0 ? x.re * y.re + x.im * y.im : x.im * y.re - x.re * y.im;
  }
  return k.reim == 1 && s.conjugate == "r1" ? -sum : sum;
}

TestData correlatorInputs(const CorrelatorSpec& s, long long batch, std::uint64_t seed,
                          const CorrelatorInputOptions& o) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  TestData d;
  // Samples: the whole byte range (so -128 / -8 occur; not for sample_range "symmetric"), a fraction from the
  // extremes; f16 uniform in [-1, 1].
  auto& in = d.arrays["input"];
  in.resize(static_cast<std::size_t>(elemBytes(s) * s.input.batch * batch));
  // 64 random bits per draw (the arrays of the benchmark configurations reach a gigabyte).
  if (s.type == SampleType::CF16) {
    // Uniform multiples of 2^-15 in [-1, 1), exact in f16 only to 11 bits: rounded once through a table.
    static const std::vector<std::uint16_t> table = [] {
      std::vector<std::uint16_t> t(65536);
      for (int i = 0; i < 65536; ++i) t[i] = floatToHalfBits(static_cast<std::int16_t>(i) / 32768.0);
      return t;
    }();
    for (std::size_t i = 0; i + 1 < in.size();) {
      std::uint64_t r = rng();
      for (int k = 0; k < 4 && i + 1 < in.size(); ++k, i += 2, r >>= 16) {
        std::uint16_t h = table[r & 0xffff];
        if ((r & 0x7) == 0 && u(rng) < 8 * o.extremeFraction) h = (r & 8) ? 0x3c00 : 0xbc00;  // +-1
        std::memcpy(&in[i], &h, 2);
      }
    }
  } else {
    const bool ci8 = s.type == SampleType::CI8;
    const std::uint64_t extremeBelow = static_cast<std::uint64_t>(o.extremeFraction * 65536);
    for (std::size_t i = 0; i < in.size();) {
      std::uint64_t r = rng(), e = rng();
      for (int k = 0; k < 4 && i < in.size(); ++k, ++i, r >>= 8, e >>= 16) {
        unsigned char x = static_cast<unsigned char>(r);
        if ((e & 0xffff) < extremeBelow) {
          static const unsigned char ext8[4] = {0x80, 0x81, 0x7f, 0x80}, ext4[4] = {0x88, 0x99, 0x77, 0x8f};
          x = (ci8 ? ext8 : ext4)[(r >> 32) & 3];
        }
        if (s.symmetric) {  // no minimum in the data: -128 -> -127 (ci8), a nibble -8 -> -7 (ci4)
          if (ci8 && x == 0x80) x = 0x81;
          if (!ci8 && (x & 0xf0) == 0x80) x = static_cast<unsigned char>(x + 0x10);
          if (!ci8 && (x & 0x0f) == 0x08) x = static_cast<unsigned char>(x + 0x01);
        }
        in[i] = x;
      }
    }
  }
  d.logical = seed;
  if (s.writesVisibilities()) return d;  // TCC's model: samples only
  // Accumulators: what earlier calls of the dump left; near +-2^31 for a fraction, so the reduction saturates
  // on both sides and lands on both sides of the limits.
  const long long n = s.visibilities() * 2 * batch;
  auto& acc = d.arrays["accumulators"];
  if (s.integer()) {
    std::vector<std::int64_t> a(static_cast<std::size_t>(n), 0);
    if (o.accumulators != CorrelatorInputOptions::Accumulators::Zero) {
      const bool near = o.accumulators == CorrelatorInputOptions::Accumulators::NearSaturation;
      for (auto& x : a) {
        const std::uint64_t r = rng();
        const std::uint64_t v = r & 0xffff;  // 2% near +-2^31, 1% at +-2^40 (saturating), else within +-2^23
        const std::int64_t sign = (r >> 16) & 1 ? 1 : -1;
        if (near && v < 1311) x = sign * ((1LL << 31) + static_cast<std::int64_t>((r >> 17) & 0xfffff) - (1 << 19));
        else if (near && v < 1966) x = sign * (1LL << 40);
        else x = static_cast<std::int64_t>((r >> 40) & 0xffffff) - (1 << 23);
      }
    }
    acc.resize(a.size() * 8);
    std::memcpy(acc.data(), a.data(), acc.size());
  } else {
    std::vector<float> a(static_cast<std::size_t>(n), 0.f);
    if (o.accumulators != CorrelatorInputOptions::Accumulators::Zero)
      for (auto& x : a) x = static_cast<float>(std::ldexp(std::round((2 * u(rng) - 1) * 1024), -4));
    acc.resize(a.size() * 4);
    std::memcpy(acc.data(), a.data(), acc.size());
  }
  auto& miss = d.arrays["missing"];
  miss.assign(static_cast<std::size_t>(s.receivers), 0);
  for (auto& m : miss) m = u(rng) < o.missingFraction ? 1 : 0;
  return d;
}

namespace {

// Which components to compare: all when the work is small, else a seeded sample (and always the first and last).
std::vector<long long> componentsToCompare(const CorrelatorSpec& s, long long nComp, long long batch) {
  const double work = static_cast<double>(nComp) * static_cast<double>(batch) * static_cast<double>(s.samples);
  std::vector<long long> which;
  if (work <= 4e8) {
    for (long long e = 0; e < nComp; ++e) which.push_back(e);
  } else {
    std::mt19937_64 rng(0x5eed ^ static_cast<std::uint64_t>(nComp));
    const long long k = std::max(64LL, static_cast<long long>(4e8 / (static_cast<double>(batch) * s.samples)));
    which = {0, 1, nComp - 2, nComp - 1};
    for (long long i = 0; i < k; ++i)
      which.push_back(static_cast<long long>(rng() % static_cast<std::uint64_t>(nComp)));
  }
  return which;
}

// Output "visibilities": every batch entry's visibilities are its own products, int32 bit-exact (no saturation can
// occur within the samples_per_call limit), f32 within 2 (samples + 2) 2^-24 of sum |terms|; every element written.
Check visibilitiesCheck(const CorrelatorSpec& s, const TestData& data,
                        const std::map<std::string, std::vector<unsigned char>>& outputs, long long batch) {
  const auto& in = data.arrays.at("input");
  const auto& vis = outputs.at("visibilities");
  const long long nComp = s.visibilities() * 2;
  if (static_cast<long long>(vis.size()) < nComp * batch * 4)
    throw std::invalid_argument(
        fmt::format("correlator check: {} bytes of visibilities do not fit the spec's {} x {} components", vis.size(),
                    batch, nComp));
  const std::vector<long long> which = componentsToCompare(s, nComp, batch);
  long long mismatches = 0, unwritten = 0;
  double maxErr = 0;
  std::string firstBad;
  for (long long b = 0; b < batch; ++b)
    for (long long e : which) {
      const long long at = b * nComp + e;
      const std::uint32_t bits = loadAt<std::uint32_t>(vis, at);
      if (s.integer()) {
        const long long want = referenceProductInt(s, in, b, e);
        const std::int32_t got = loadAt<std::int32_t>(vis, at);
        if (got != want) {
          ++mismatches;
          unwritten += bits == 0xffffffffu;
          if (firstBad.empty()) {
            const Component k = component(s, e);
            firstBad = fmt::format(
                "first mismatch: batch entry {} component {} (channel {}, r1 {}, r2 {}, p {}, q {}, {}): got {}, want "
                "{}",
                b, e, k.c, k.r1, k.r2, k.p, k.q, k.reim ? "im" : "re", got, want);
          }
        }
      } else {
        const Component k = component(s, e);
        double mag = 0;
        for (long long t = 0; t < s.samples; ++t) {
          const SampleValue x = correlatorSample(s, in, b, k.c, t, k.r1, k.p),
                            y = correlatorSample(s, in, b, k.c, t, k.r2, k.q);
          mag += std::fabs(x.re * y.re) + std::fabs(x.im * y.im) + std::fabs(x.im * y.re) + std::fabs(x.re * y.im);
        }
        const float got = loadAt<float>(vis, at);
        if (bits == 0xffffffffu || !std::isfinite(got)) ++unwritten;
        else maxErr = std::max(maxErr, std::fabs(got - referenceProductF(s, in, b, e)) / std::max(mag, 1e-30));
      }
    }
  Check c;
  c.exact = s.integer();
  c.checked = static_cast<long long>(which.size()) * batch;
  c.unwritten = unwritten;
  c.error = s.integer() ? static_cast<double>(mismatches) : maxErr;
  c.bound = s.integer() ? 0 : 2.0 * static_cast<double>(s.samples + 2) * std::ldexp(1.0, -24);
  c.detail = fmt::format(
      "{} of {} visibility components x {} batch entries compared {} against the {} reference (output "
      "\"visibilities\"); {} mismatches, {} unwritten (0xffffffff){}{}",
      which.size(), nComp, batch, s.integer() ? "bit-exactly" : "with |out - ref| / sum|terms|",
      s.integer() ? "int64" : "double", mismatches, unwritten, firstBad.empty() ? "" : "; ", firstBad);
  return c;
}

}  // namespace

Check correlatorCheck(const CorrelatorSpec& s, const TestData& data,
                      const std::map<std::string, std::vector<unsigned char>>& outputs, long long batch) {
  if (s.writesVisibilities()) return visibilitiesCheck(s, data, outputs, batch);
  const auto& in = data.arrays.at("input");
  const auto& accIn = data.arrays.at("accumulators");
  const auto& miss = data.arrays.at("missing");
  const auto& vis = outputs.at("visibilities");
  const auto& accOut = outputs.at("accumulators_out");
  const auto& sat = outputs.at("saturated");
  const long long nComp = s.visibilities() * 2;
  const long long accBytes = s.integer() ? 8 : 4;
  if (static_cast<long long>(vis.size()) < nComp * 4 ||
      static_cast<long long>(accOut.size()) < nComp * batch * accBytes || sat.size() < 8)
    throw std::invalid_argument(fmt::format("correlator check: output sizes {} / {} / {} do not fit the spec",
                                            vis.size(), accOut.size(), sat.size()));

  Check c;
  c.exact = s.integer();
  const std::vector<long long> which = componentsToCompare(s, nComp, batch);
  long long mismatches = 0, unwritten = 0, saturatedRef = 0, flagged = 0;
  double maxErr = 0;
  std::string firstBad;
  std::vector<char> satCounted;
  for (long long e : which) {
    const Component k = component(s, e);
    const bool isMissing = miss[k.r1] || miss[k.r2];
    if (s.integer()) {
      __int128 sum = 0;
      for (long long b = 0; b < batch; ++b)
        sum += loadAt<std::int64_t>(accIn, b * nComp + e) + referenceProductInt(s, in, b, e);
      std::int32_t want;
      bool clamped = false;
      if (isMissing) want = kMissingMarker;
      else if (sum > INT32_MAX) want = INT32_MAX, clamped = true;
      else if (sum < -INT32_MAX) want = -INT32_MAX, clamped = true;
      else want = static_cast<std::int32_t>(sum);
      const std::int32_t got = loadAt<std::int32_t>(vis, e);
      if (got != want) {
        ++mismatches;
        if (got == -1) ++unwritten;
        if (firstBad.empty())
          firstBad =
              fmt::format("first mismatch: component {} (channel {}, r1 {}, r2 {}, p {}, q {}, {}): got {}, want {}", e,
                          k.c, k.r1, k.r2, k.p, k.q, k.reim ? "im" : "re", got, want);
      }
      flagged += isMissing;
      saturatedRef += clamped;  // components; the complex count is checked only where every component is compared
    } else {
      double sum = 0, mag = 0;
      for (long long b = 0; b < batch; ++b) {
        const double a = loadAt<float>(accIn, b * nComp + e);
        sum += a + referenceProductF(s, in, b, e);
        mag += std::fabs(a);
        for (long long t = 0; t < s.samples; ++t) {
          const SampleValue x = correlatorSample(s, in, b, k.c, t, k.r1, k.p),
                            y = correlatorSample(s, in, b, k.c, t, k.r2, k.q);
          mag += std::fabs(x.re * y.re) + std::fabs(x.im * y.im) + std::fabs(x.im * y.re) + std::fabs(x.re * y.im);
        }
      }
      const std::uint32_t bits = loadAt<std::uint32_t>(vis, e);
      const float got = loadAt<float>(vis, e);
      if (isMissing) {
        if (bits != kMissingMarkerF32) ++mismatches;
        ++flagged;
      } else if (bits == 0xffffffffu || !std::isfinite(got)) {
        ++unwritten;
      } else {
        maxErr = std::max(maxErr, std::fabs(got - sum) / std::max(mag, 1e-30));
      }
    }
  }
  // The saturation count: exact where every component was compared (a complex visibility counts once).
  const std::uint64_t satGot = loadAt<std::uint64_t>(sat, 0);
  bool satChecked = false;
  if (s.integer() && static_cast<long long>(which.size()) == nComp) {
    std::uint64_t want = 0;
    for (long long e = 0; e < nComp; e += 2) {
      const Component k = component(s, e);
      if (miss[k.r1] || miss[k.r2]) continue;
      bool clamped = false;
      for (int ri = 0; ri < 2; ++ri) {
        __int128 sum = 0;
        for (long long b = 0; b < batch; ++b)
          sum += loadAt<std::int64_t>(accIn, b * nComp + e + ri) + referenceProductInt(s, in, b, e + ri);
        clamped |= sum > INT32_MAX || sum < -INT32_MAX;
      }
      want += clamped;
    }
    satChecked = true;
    if (satGot != want) {
      ++mismatches;
      if (firstBad.empty()) firstBad = fmt::format("saturated count {} (want {})", satGot, want);
    }
  } else if (!s.integer() && satGot != 0) {
    ++mismatches;
  }
  // The accumulators are reset by the dump: every element zero (bit pattern).
  long long accNonZero = 0;
  for (long long i = 0; i < nComp * batch * accBytes; ++i) accNonZero += accOut[static_cast<std::size_t>(i)] != 0;
  c.checked = static_cast<long long>(which.size());
  c.unwritten = unwritten + (accNonZero ? 1 : 0);
  if (s.integer()) {
    c.error = static_cast<double>(mismatches);
    c.bound = 0;
  } else {
    c.error = maxErr + static_cast<double>(mismatches);
    // f32 accumulation: each visibility sums samples x batch products (exact in f32: f16 x f16 fits 22 bits)
    // plus the accumulators, in some order; the worst case of n additions is n u sum|terms| with u = 2^-24.
    // Tensor cores may truncate instead of rounding below the MMA: 2 u. Bound: 2 (samples + batch + 2) 2^-24.
    c.bound = 2.0 * static_cast<double>(s.samples + batch + 2) * std::ldexp(1.0, -24);
  }
  c.detail = fmt::format(
      "{} of {} visibility components compared {} against the {} reference ({} flagged missing, {} components "
      "saturated); "
      "{} mismatches, {} unwritten (0xffffffff where the reference differs), {} accumulator bytes not reset; saturated "
      "count {}{}; {}",
      which.size(), nComp, s.integer() ? "bit-exactly" : "with |out - ref| / sum|terms|",
      s.integer() ? "int64" : "double", flagged, saturatedRef, mismatches, unwritten, accNonZero, satGot,
      satChecked ? " (checked)" : " (not checked: sampled)", firstBad);
  return c;
}

}  // namespace warpforge
