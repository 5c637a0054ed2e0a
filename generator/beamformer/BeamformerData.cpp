#include "generator/beamformer/BeamformerData.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "generator/emulate/Half.h"

namespace warpforge {

namespace {

int sext4(int x) { return (x & 8) ? x - 16 : x; }

template <class T>
T loadAt(const std::vector<unsigned char>& bytes, long long index) {
  T v;
  std::memcpy(&v, bytes.data() + index * static_cast<long long>(sizeof(T)), sizeof(T));
  return v;
}

// Bytes of one element of each array of an operand.
int arrayElemBytes(const BfOperand& o) { return o.planar ? (o.type == BfType::CF16 ? 2 : 1) : bfComplexBytes(o.type); }

BfValue decode(const BfOperand& o, const TestData& d, const std::vector<std::string>& names, long long idx, bool clamp128) {
  BfValue v;
  const auto& a = d.arrays.at(names[0]);
  switch (o.type) {
    case BfType::CI8: {
      int re, im;
      if (o.planar) {
        const auto& bb = d.arrays.at(names[1]);
        re = static_cast<signed char>(a[idx]), im = static_cast<signed char>(bb[idx]);
      } else {
        re = static_cast<signed char>(a[2 * idx]), im = static_cast<signed char>(a[2 * idx + 1]);
      }
      if (clamp128) re = std::max(re, -127), im = std::max(im, -127);
      v.re = re, v.im = im;
      break;
    }
    case BfType::CI4: {
      const int byte = a[idx];
      const int hi = sext4(byte >> 4), lo = sext4(byte & 15);
      v.re = o.ci4RealHigh ? hi : lo;
      v.im = o.ci4RealHigh ? lo : hi;
      break;
    }
    case BfType::CF16:
      if (o.planar) {
        v.re = halfBitsToDouble(loadAt<std::uint16_t>(a, idx));
        v.im = halfBitsToDouble(loadAt<std::uint16_t>(d.arrays.at(names[1]), idx));
      } else {
        v.re = halfBitsToDouble(loadAt<std::uint16_t>(a, 2 * idx));
        v.im = halfBitsToDouble(loadAt<std::uint16_t>(a, 2 * idx + 1));
      }
      break;
  }
  return v;
}

void fillOperand(const BfOperand& o, std::vector<unsigned char>& bytes, std::mt19937_64& rng, double extremeFraction) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  if (o.type == BfType::CF16) {
    for (std::size_t i = 0; i + 1 < bytes.size(); i += 2) {
      std::uint16_t h = floatToHalfBits(std::ldexp(std::round((2 * u(rng) - 1) * 32768), -15));
      if (u(rng) < extremeFraction / 4) h = u(rng) < 0.5 ? 0x3c00 : 0xbc00;
      std::memcpy(&bytes[i], &h, 2);
    }
    return;
  }
  static const unsigned char ext8[4] = {0x80, 0x81, 0x7f, 0x80}, ext4[4] = {0x88, 0x99, 0x77, 0x8f};
  for (auto& x : bytes) {
    const std::uint64_t r = rng();
    x = static_cast<unsigned char>(r);
    if (u(rng) < extremeFraction) x = (o.type == BfType::CI8 ? ext8 : ext4)[(r >> 32) & 3];
  }
}

}  // namespace

std::vector<std::string> bfArrayNames(const BeamformerSpec& s, bool weights) {
  const BfOperand& o = weights ? s.w : s.in;
  const std::string base = weights ? "weights" : "samples";
  if (o.planar) return {base + "_re", base + "_im"};
  return {base};
}

BfValue bfSample(const BeamformerSpec& s, const TestData& d, long long b, long long c, long long p, long long t, long long k) {
  const BfOperand& o = s.in;
  return decode(o, d, bfArrayNames(s, false), b * o.batch + c * o.channel + p * o.polarization + t * o.outer + k * o.receiver, o.type == BfType::CI8);
}
BfValue bfWeight(const BeamformerSpec& s, const TestData& d, long long b, long long c, long long p, long long m, long long k) {
  const BfOperand& o = s.w;
  return decode(o, d, bfArrayNames(s, true), b * o.batch + c * o.channel + p * o.polarization + m * o.outer + k * o.receiver, false);
}

BfBeam bfReferenceBeam(const BeamformerSpec& s, const TestData& d, long long b, long long c, long long p, long long t, long long m) {
  BfBeam r;
  for (long long k = 0; k < s.receivers; ++k) {
    const BfValue x = bfSample(s, d, b, c, p, t, k), w = bfWeight(s, d, b, c, p, m, k);
    if (s.integer()) {
      const long long xr = static_cast<long long>(x.re), xi = static_cast<long long>(x.im), wr = static_cast<long long>(w.re),
                      wi = static_cast<long long>(w.im);
      r.ire += xr * wr - xi * wi;
      r.iim += xr * wi + xi * wr;
    } else {
      r.re += x.re * w.re - x.im * w.im;
      r.im += x.re * w.im + x.im * w.re;
      r.magRe += std::fabs(x.re * w.re) + std::fabs(x.im * w.im);
      r.magIm += std::fabs(x.re * w.im) + std::fabs(x.im * w.re);
    }
  }
  if (s.integer()) {
    r.re = static_cast<double>(r.ire), r.im = static_cast<double>(r.iim);
    r.magRe = std::fabs(r.re), r.magIm = std::fabs(r.im);
  }
  return r;
}

int bfShiftSaturate(long long acc, int shift, int maxv) {
  shift = std::clamp(shift, 0, 31);
  long long v = acc;
  if (shift > 0) v = (v + (1LL << (shift - 1))) >> shift;
  return static_cast<int>(std::clamp<long long>(v, -maxv, maxv));
}

TestData beamformerInputs(const BeamformerSpec& s, long long batch, std::uint64_t seed, const BfInputOptions& o) {
  std::mt19937_64 rng(seed);
  TestData d;
  for (int side = 0; side < 2; ++side) {
    const BfOperand& op = side == 0 ? s.in : s.w;
    const long long elems = op.batch ? op.batch * (batch - 1) + op.span : op.span;
    for (const auto& n : bfArrayNames(s, side == 1)) {
      auto& a = d.arrays[n];
      a.resize(static_cast<std::size_t>(elems * arrayElemBytes(op)));
      fillOperand(op, a, rng, o.extremeFraction);
    }
  }
  if (s.intOut()) {
    // Shifts around the one that maps a typical beam (sqrt(K) x sample x weight rms) to the output range, a few out of 0..31.
    const double rms = std::sqrt(static_cast<double>(s.receivers)) * (s.in.type == BfType::CI4 ? 4.6 : 73.0) * (s.w.type == BfType::CI4 ? 4.6 : 73.0);
    const int centre = std::max(0, static_cast<int>(std::lround(std::log2(rms / s.outMax()))));
    std::vector<std::int32_t> sh(static_cast<std::size_t>(batch * s.channels * s.polarizations * s.beams));
    for (auto& x : sh) {
      const std::uint64_t r = rng() % 64;
      x = r == 0 ? -3 : r == 1 ? 40 : r == 2 ? 0 : centre + static_cast<int>(r % 5) - 2;
    }
    auto& a = d.arrays["shifts"];
    a.resize(sh.size() * 4);
    std::memcpy(a.data(), sh.data(), a.size());
  }
  d.logical = seed;
  return d;
}

Check beamformerCheck(const BeamformerSpec& s, const TestData& data, const std::map<std::string, std::vector<unsigned char>>& outputs, long long batch) {
  const std::string outName = s.power ? "power" : "beams";
  const auto& out = outputs.at(outName);
  const long long perBatch = s.outElems();
  const long long total = perBatch * batch;
  const int ob = s.power ? 4 : bfOutBytes(s.outType);
  if (static_cast<long long>(out.size()) < total * ob)
    throw std::invalid_argument(fmt::format("beamformer check: output {} has {} bytes, the spec needs {}", outName, out.size(), total * ob));
  Check ck;
  const double u = std::ldexp(1.0, -24);
  // Which elements: all when the reference work is small, else a seeded sample (first and last always).
  const double perElem = static_cast<double>(s.receivers) * (s.power ? s.integrate * s.polarizations : 1);
  std::vector<long long> which;
  if (static_cast<double>(total) * perElem <= 3e8) {
    for (long long e = 0; e < total; ++e) which.push_back(e);
  } else {
    std::mt19937_64 rng(0x5eed ^ static_cast<std::uint64_t>(total));
    const long long k = std::max(64LL, static_cast<long long>(3e8 / perElem));
    which = {0, total - 1};
    for (long long i = 0; i < k; ++i) which.push_back(static_cast<long long>(rng() % static_cast<std::uint64_t>(total)));
  }
  long long mismatches = 0, unwritten = 0, saturated = 0;
  double maxErr = 0;
  std::string firstBad;
  const bool exact = s.integer() && !s.power;
  const double gamma = s.integer() ? 0.0 : 2.0 * (2.0 * s.receivers + 2) * u;  // f32 accumulation of 2K products (tensor cores may truncate: 2u)
  for (long long e : which) {
    const long long m = e % s.beams;
    long long r = e / s.beams;
    if (s.power) {
      const long long win = r % s.windows();
      r /= s.windows();
      const long long c = r % s.channels, b = r / s.channels;
      double ref = 0, mag = 0;
      for (long long p = 0; p < s.polarizations; ++p)
        for (long long t = win * s.integrate; t < (win + 1) * s.integrate; ++t) {
          const BfBeam bm = bfReferenceBeam(s, data, b, c, p, t, m);
          ref += bm.re * bm.re + bm.im * bm.im;
          mag += bm.magRe * bm.magRe + bm.magIm * bm.magIm;
        }
      const std::uint32_t bits = loadAt<std::uint32_t>(out, e);
      const float got = loadAt<float>(out, e);
      if (bits == 0xffffffffu || !std::isfinite(got)) {
        ++unwritten;
        if (firstBad.empty()) firstBad = fmt::format("element {} unwritten", e);
      } else {
        const double err = std::fabs(got - ref) / std::max(mag, 1e-300);
        if (err > maxErr) {
          maxErr = err;
          if (err > 0) firstBad = fmt::format("largest error at element {} (batch {}, channel {}, window {}, beam {}): got {}, want {}", e, b, c, win, m, got, ref);
        }
      }
      continue;
    }
    const long long t = r % s.samples;
    r /= s.samples;
    const long long p = r % s.polarizations;
    r /= s.polarizations;
    const long long c = r % s.channels, b = r / s.channels;
    const BfBeam bm = bfReferenceBeam(s, data, b, c, p, t, m);
    bool bad = false, poison = false;
    std::string got, want;
    switch (s.outType) {
      case BfOutType::CF32: {
        const float gr = loadAt<float>(out, 2 * e), gi = loadAt<float>(out, 2 * e + 1);
        poison = loadAt<std::uint32_t>(out, 2 * e) == 0xffffffffu || loadAt<std::uint32_t>(out, 2 * e + 1) == 0xffffffffu;
        if (exact) {
          bad = gr != static_cast<float>(bm.ire) || gi != static_cast<float>(bm.iim);
        } else if (!poison) {
          const double err = std::max(std::fabs(gr - bm.re) / std::max(bm.magRe, 1e-300), std::fabs(gi - bm.im) / std::max(bm.magIm, 1e-300));
          maxErr = std::max(maxErr, (bm.magRe == 0 && gr == 0 && bm.magIm == 0 && gi == 0) ? 0.0 : err);
        }
        got = fmt::format("({}, {})", gr, gi);
        want = fmt::format("({}, {})", bm.re, bm.im);
        break;
      }
      case BfOutType::CF16: {
        const std::uint16_t hr = loadAt<std::uint16_t>(out, 2 * e), hi = loadAt<std::uint16_t>(out, 2 * e + 1);
        poison = hr == 0xffff || hi == 0xffff;
        if (exact) {
          bad = hr != floatToHalfBits(static_cast<float>(bm.ire)) || hi != floatToHalfBits(static_cast<float>(bm.iim));
        } else if (!poison) {
          const double gr = halfBitsToDouble(hr), gi = halfBitsToDouble(hi);
          // f16 output rounding (2^-11 relative to the value, which is at most sum |terms|) on top of the f32 accumulation.
          const double err = std::max(std::fabs(gr - bm.re) / std::max(bm.magRe, 1e-300), std::fabs(gi - bm.im) / std::max(bm.magIm, 1e-300));
          maxErr = std::max(maxErr, std::isfinite(gr) && std::isfinite(gi) ? err : 1.0);
        }
        got = fmt::format("({:#06x}, {:#06x})", hr, hi);
        want = fmt::format("({}, {})", bm.re, bm.im);
        break;
      }
      case BfOutType::CI8:
      case BfOutType::CI4: {
        const int sh = loadAt<std::int32_t>(data.arrays.at("shifts"), ((b * s.channels + c) * s.polarizations + p) * s.beams + m);
        const int wr = bfShiftSaturate(bm.ire, sh, s.outMax()), wi = bfShiftSaturate(bm.iim, sh, s.outMax());
        saturated += std::abs(wr) == s.outMax() || std::abs(wi) == s.outMax();
        int gr, gi;
        if (s.outType == BfOutType::CI8) {
          gr = static_cast<signed char>(out[2 * e]), gi = static_cast<signed char>(out[2 * e + 1]);
          poison = out[2 * e] == 0xff && out[2 * e + 1] == 0xff;
        } else {
          const int byte = out[e];
          const int hi = sext4(byte >> 4), lo = sext4(byte & 15);
          gr = s.outCi4RealHigh ? hi : lo, gi = s.outCi4RealHigh ? lo : hi;
          poison = byte == 0xff;
        }
        bad = gr != wr || gi != wi;
        got = fmt::format("({}, {})", gr, gi);
        want = fmt::format("({}, {}) = sat(({}, {}) >> {})", wr, wi, bm.ire, bm.iim, sh);
        break;
      }
    }
    const bool unw = poison && (bad || !s.intOut());
    if (bad) ++mismatches;
    if (unw) ++unwritten;
    if (bad || unw) {
      if (firstBad.empty())
        firstBad = fmt::format("first mismatch: element {} (batch {}, channel {}, pol {}, time {}, beam {}): got {}, want {}", e, b, c, p, t, m, got, want);
    }
  }
  ck.checked = static_cast<long long>(which.size());
  ck.unwritten = unwritten;
  if (exact) {
    ck.exact = true;
    ck.error = static_cast<double>(mismatches);
    ck.bound = 0;
  } else if (s.power) {
    ck.error = maxErr;
    // |beam'|^2 - |beam|^2 <= (2 gamma + gamma^2) (S_re^2 + S_im^2) per term, then P I f32 additions and two roundings per square.
    ck.bound = 2 * gamma + gamma * gamma + (s.polarizations * static_cast<double>(s.integrate) + 4) * u * (s.integer() ? 1 : 1);
  } else {
    ck.error = maxErr;
    ck.bound = gamma + (s.outType == BfOutType::CF16 ? std::ldexp(1.0, -11) : u);
  }
  ck.detail = fmt::format("{} of {} {} elements compared {} against the {} reference; {} mismatches, {} unwritten (poison){}; error {:.3g} (bound {:.3g}){}{}",
                          which.size(), total, outName, exact ? "bit-exactly" : "with |out - ref| / sum|terms|", s.integer() ? "int64" : "double",
                          mismatches, unwritten, s.intOut() ? fmt::format(", {} saturated", saturated) : "", ck.error, ck.bound,
                          firstBad.empty() ? "" : "; ", firstBad);
  return ck;
}

}  // namespace warpforge
