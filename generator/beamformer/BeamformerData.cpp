#include "generator/beamformer/BeamformerData.h"

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

// A 65536-entry table: f16 bits -> double.
const std::vector<double>& halfTable() {
  static const std::vector<double> t = [] {
    std::vector<double> v(65536);
    for (int i = 0; i < 65536; ++i) v[static_cast<std::size_t>(i)] = halfBitsToDouble(static_cast<std::uint16_t>(i));
    return v;
  }();
  return t;
}

// Element `idx` of an operand from its arrays (`b`: planar imaginary parts).
BfValue decodeAt(const BfOperand& o, const unsigned char* a, const unsigned char* b, long long idx, bool clamp128) {
  BfValue v;
  switch (o.type) {
    case BfType::CI8: {
      int re, im;
      if (o.planar) re = static_cast<signed char>(a[idx]), im = static_cast<signed char>(b[idx]);
      else re = static_cast<signed char>(a[2 * idx]), im = static_cast<signed char>(a[2 * idx + 1]);
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
    case BfType::CF16: {
      const auto& h = halfTable();
      std::uint16_t r, i;
      if (o.planar) std::memcpy(&r, a + 2 * idx, 2), std::memcpy(&i, b + 2 * idx, 2);
      else std::memcpy(&r, a + 4 * idx, 2), std::memcpy(&i, a + 4 * idx + 2, 2);
      v.re = h[r], v.im = h[i];
      break;
    }
  }
  return v;
}

BfValue decode(const BfOperand& o, const TestData& d, const std::vector<std::string>& names, long long idx,
               bool clamp128) {
  return decodeAt(o, d.arrays.at(names[0]).data(), o.planar ? d.arrays.at(names[1]).data() : nullptr, idx, clamp128);
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
  // One draw per byte: the low 8 bits the value, bits 8..31 whether it is an extreme one, bits 32..33 which.
  const std::uint64_t threshold = static_cast<std::uint64_t>(extremeFraction * 16777216.0);
  for (auto& x : bytes) {
    const std::uint64_t r = rng();
    x = static_cast<unsigned char>(r);
    if (((r >> 8) & 0xffffff) < threshold) x = (o.type == BfType::CI8 ? ext8 : ext4)[(r >> 32) & 3];
  }
}

}  // namespace

std::vector<std::string> bfArrayNames(const BeamformerSpec& s, bool weights) {
  const BfOperand& o = weights ? s.w : s.in;
  const std::string base = weights ? "weights" : "samples";
  if (o.planar) return {base + "_re", base + "_im"};
  return {base};
}

BfValue bfSample(const BeamformerSpec& s, const TestData& d, long long b, long long c, long long p, long long t,
                 long long k) {
  const BfOperand& o = s.in;
  return decode(o, d, bfArrayNames(s, false),
                b * o.batch + c * o.channel + p * o.polarization + t * o.outer + k * o.receiver, o.type == BfType::CI8);
}
BfValue bfWeight(const BeamformerSpec& s, const TestData& d, long long b, long long c, long long p, long long m,
                 long long k) {
  const BfOperand& o = s.w;
  return decode(o, d, bfArrayNames(s, true),
                b * o.batch + c * o.channel + p * o.polarization + m * o.outer + k * o.receiver, false);
}

BfReference::BfReference(const BeamformerSpec& s, const TestData& d) : s_(s) {
  for (int side = 0; side < 2; ++side) {
    Side& x = side == 0 ? in_ : w_;
    x.op = side == 0 ? &s.in : &s.w;
    const auto names = bfArrayNames(s, side == 1);
    x.a = d.arrays.at(names[0]).data();
    x.b = names.size() > 1 ? d.arrays.at(names[1]).data() : nullptr;
    x.rows = side == 0 ? s.samples : s.beams;
    x.clamp = side == 0 && s.in.type == BfType::CI8;
  }
}

const double* BfReference::row(Side& x, long long b, long long c, long long p, long long i) {
  const BfOperand& o = *x.op;
  if (o.batch == 0) b = 0;  // shared by every entry
  const long long key = ((b * s_.channels + c) * s_.polarizations + p) * x.rows + i;
  auto it = x.cache.find(key);
  if (it != x.cache.end()) return it->second.data();
  const long long K = s_.receivers;
  if (x.cached + 2 * K > (1LL << 24)) x.cache.clear(), x.cached = 0;  // at most 128 MB of rows per side
  std::vector<double> r(static_cast<std::size_t>(2 * K));
  const long long base = b * o.batch + c * o.channel + p * o.polarization + i * o.outer;
  for (long long k = 0; k < K; ++k) {
    const BfValue v = decodeAt(o, x.a, x.b, base + k * o.receiver, x.clamp);
    r[static_cast<std::size_t>(2 * k)] = v.re, r[static_cast<std::size_t>(2 * k + 1)] = v.im;
  }
  x.cached += 2 * K;
  return x.cache.emplace(key, std::move(r)).first->second.data();
}

const double* BfReference::sampleRow(long long b, long long c, long long p, long long t) {
  return row(in_, b, c, p, t);
}
const double* BfReference::weightRow(long long b, long long c, long long p, long long m) { return row(w_, b, c, p, m); }

BfBeam BfReference::beam(long long b, long long c, long long p, long long t, long long m) {
  const double* x = sampleRow(b, c, p, t);
  const double* w = weightRow(b, c, p, m);
  BfBeam r;
  // Integer inputs: every product and partial sum is an integer below 2^53 (|sum| < 2^31 K), so double sums are exact.
  double re = 0, im = 0, ar = 0, ai = 0;
  for (long long k = 0; k < s_.receivers; ++k) {
    const double xr = x[2 * k], xi = x[2 * k + 1], wr = w[2 * k], wi = w[2 * k + 1];
    const double p0 = xr * wr, p1 = xi * wi, p2 = xr * wi, p3 = xi * wr;
    re += p0 - p1;
    im += p2 + p3;
    ar += std::fabs(p0) + std::fabs(p1);
    ai += std::fabs(p2) + std::fabs(p3);
  }
  r.re = re, r.im = im, r.absRe = ar, r.absIm = ai;
  if (s_.integer()) {
    r.ire = static_cast<long long>(re), r.iim = static_cast<long long>(im);
    r.magRe = std::fabs(re), r.magIm = std::fabs(im);
  } else {
    r.magRe = ar, r.magIm = ai;
  }
  return r;
}

BfBeam bfReferenceBeam(const BeamformerSpec& s, const TestData& d, long long b, long long c, long long p, long long t,
                       long long m) {
  BfReference ref(s, d);
  return ref.beam(b, c, p, t, m);
}

int bfShiftSaturate(long long acc, int shift, int maxv) {
  shift = std::clamp(shift, 0, 31);
  long long v = acc;
  if (shift > 0) v = (v + (1LL << (shift - 1))) >> shift;
  return static_cast<int>(std::clamp<long long>(v, -maxv, maxv));
}

bool bfShiftClamps(long long acc, int shift, int maxv) {
  shift = std::clamp(shift, 0, 31);
  long long v = acc;
  if (shift > 0) v = (v + (1LL << (shift - 1))) >> shift;
  return v > maxv || v < -maxv;
}

TestData beamformerInputs(const BeamformerSpec& s, long long batch, std::uint64_t seed, const BfInputOptions& o) {
  std::mt19937_64 rng(seed);
  TestData d;
  for (int side = 0; side < 2; ++side) {
    const BfOperand& op = side == 0 ? s.in : s.w;
    // What the plan declares: `batch` whole entries of the batch stride (>= one entry's extent), or one shared span.
    const long long elems = op.batch ? op.batch * batch : op.span;
    for (const auto& n : bfArrayNames(s, side == 1)) {
      auto& a = d.arrays[n];
      a.resize(static_cast<std::size_t>(elems * arrayElemBytes(op)));
      fillOperand(op, a, rng, o.extremeFraction);
    }
  }
  if (s.intOut()) {
    // Shifts around the one that maps a typical beam (sqrt(K) x sample x weight rms) to the output range, a few out of
    // 0..31.
    const double rms = std::sqrt(static_cast<double>(s.receivers)) * (s.in.type == BfType::CI4 ? 4.6 : 73.0) *
                       (s.w.type == BfType::CI4 ? 4.6 : 73.0);
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

namespace {

// The elements whose values are compared: all when the reference work fits the budget, else a seeded sample
// (first and last always), sorted so that the cached rows of one (batch, channel, pol) are reused.
std::vector<long long> sampleElements(long long total, double perElem, std::uint64_t salt) {
  std::vector<long long> which;
  if (static_cast<double>(total) * perElem <= kBfCheckBudget) {
    which.resize(static_cast<std::size_t>(total));
    for (long long e = 0; e < total; ++e) which[static_cast<std::size_t>(e)] = e;
    return which;
  }
  std::mt19937_64 rng(0x5eed ^ static_cast<std::uint64_t>(total) ^ salt);
  const long long k = std::max(64LL, static_cast<long long>(kBfCheckBudget / perElem));
  which = {0, total - 1};
  for (long long i = 0; i < k; ++i) which.push_back(static_cast<long long>(rng() % static_cast<std::uint64_t>(total)));
  std::sort(which.begin(), which.end());
  which.erase(std::unique(which.begin(), which.end()), which.end());
  return which;
}

}  // namespace

Check beamformerCheck(const BeamformerSpec& s, const TestData& data,
                      const std::map<std::string, std::vector<unsigned char>>& outputs, long long batch) {
  const std::string outName = s.power ? "power" : "beams";
  // Planar beams: interleaved here from beams_re / beams_im (component by component: the poison stays per component).
  std::vector<unsigned char> merged;
  if (!s.power && s.outPlanar) {
    const auto& re = outputs.at("beams_re");
    const auto& im = outputs.at("beams_im");
    const std::size_t cb = static_cast<std::size_t>(bfOutBytes(s.outType) / 2), n = std::min(re.size(), im.size()) / cb;
    merged.resize(2 * n * cb);
    for (std::size_t e = 0; e < n; ++e) {
      std::memcpy(&merged[2 * e * cb], &re[e * cb], cb);
      std::memcpy(&merged[(2 * e + 1) * cb], &im[e * cb], cb);
    }
  }
  const auto& out = !s.power && s.outPlanar ? merged : outputs.at(outName);
  const long long perBatch = s.outElems();
  const long long total = perBatch * batch;
  const int ob = s.power ? 4 : bfOutBytes(s.outType);
  if (static_cast<long long>(out.size()) < total * ob)
    throw std::invalid_argument(
        fmt::format("beamformer check: output {} has {} bytes, the spec needs {}", outName, out.size(), total * ob));
  Check ck;
  const double u = std::ldexp(1.0, -24);
  const double perElem = static_cast<double>(s.receivers) * (s.power ? s.integrate * s.polarizations : 1);
  BfReference ref(s, data);

  // 1. Written: every element. Float outputs: the poison (0xff bytes) is a NaN no correct result has. Integer beams:
  //    0xff bytes are also a value ((-1, -1)), so those elements are compared with the reference below (a seeded
  //    sample of them if they are too many); a mismatch there counts as unwritten.
  long long unwritten = 0;
  std::string firstBad;
  std::vector<long long> suspects;
  for (long long e = 0; e < total; ++e) {
    bool poison = false;
    if (s.power) {
      const float f = loadAt<float>(out, e);
      poison = loadAt<std::uint32_t>(out, e) == 0xffffffffu || !std::isfinite(f);
    } else {
      switch (s.outType) {
        case BfOutType::CF32:
          poison = loadAt<std::uint32_t>(out, 2 * e) == 0xffffffffu ||
                   loadAt<std::uint32_t>(out, 2 * e + 1) == 0xffffffffu;
          break;
        case BfOutType::CF16:
          poison = loadAt<std::uint16_t>(out, 2 * e) == 0xffff || loadAt<std::uint16_t>(out, 2 * e + 1) == 0xffff;
          break;
        case BfOutType::CI8:
          if (out[2 * e] == 0xff && out[2 * e + 1] == 0xff) suspects.push_back(e);
          break;
        case BfOutType::CI4:
          if (out[e] == 0xff) suspects.push_back(e);
          break;
      }
    }
    if (poison) {
      if (firstBad.empty()) firstBad = fmt::format("element {} unwritten", e);
      ++unwritten;
    }
  }
  const long long suspectCount = static_cast<long long>(suspects.size());
  if (static_cast<double>(suspects.size()) * perElem > kBfCheckBudget) {
    std::mt19937_64 rng(0xbad5eed ^ static_cast<std::uint64_t>(total));
    std::shuffle(suspects.begin(), suspects.end(), rng);
    suspects.resize(static_cast<std::size_t>(std::max(64.0, kBfCheckBudget / perElem)));
  }
  std::sort(suspects.begin(), suspects.end());

  // 2. Values of the sampled elements (and of the integer elements that look poisoned).
  std::vector<long long> which = sampleElements(total, perElem, 0);
  std::vector<long long> all;
  std::set_union(which.begin(), which.end(), suspects.begin(), suspects.end(), std::back_inserter(all));
  long long mismatches = 0, saturated = 0, suspectsBad = 0, clampedRef = 0;
  double maxErr = 0;
  const bool exact = s.integer() && !s.power;
  const double gamma = s.integer() ? 0.0
                                   : 2.0 * (2.0 * s.receivers + 2) *
                                         u;  // f32 accumulation of 2K products (tensor cores may truncate: 2u)
  for (long long e : all) {
    const long long m = e % s.beams;
    long long r = e / s.beams;
    if (s.power) {
      const long long win = r % s.windows();
      r /= s.windows();
      const long long c = r % s.channels, b = r / s.channels;
      double want = 0, mag = 0;
      for (long long p = 0; p < s.polarizations; ++p)
        for (long long t = win * s.integrate; t < (win + 1) * s.integrate; ++t) {
          const BfBeam bm = ref.beam(b, c, p, t, m);
          want += bm.re * bm.re + bm.im * bm.im;
          mag += bm.magRe * bm.magRe + bm.magIm * bm.magIm;
        }
      const float got = loadAt<float>(out, e);
      if (!std::isfinite(got) || loadAt<std::uint32_t>(out, e) == 0xffffffffu) continue;  // counted above
      const double err = std::fabs(got - want) / std::max(mag, 1e-300);
      if (err > maxErr) {
        maxErr = err;
        firstBad =
            fmt::format("largest error at element {} (batch {}, channel {}, window {}, beam {}): got {}, want {}", e, b,
                        c, win, m, got, want);
      }
      continue;
    }
    const long long t = r % s.samples;
    r /= s.samples;
    const long long p = r % s.polarizations;
    r /= s.polarizations;
    const long long c = r % s.channels, b = r / s.channels;
    const BfBeam bm = ref.beam(b, c, p, t, m);
    bool bad = false;
    std::string got, want;
    switch (s.outType) {
      case BfOutType::CF32: {
        const float gr = loadAt<float>(out, 2 * e), gi = loadAt<float>(out, 2 * e + 1);
        if (loadAt<std::uint32_t>(out, 2 * e) == 0xffffffffu || loadAt<std::uint32_t>(out, 2 * e + 1) == 0xffffffffu)
          continue;  // counted above
        if (exact) {
          bad = gr != static_cast<float>(bm.ire) || gi != static_cast<float>(bm.iim);
        } else {
          const double err = std::max(std::fabs(gr - bm.re) / std::max(bm.magRe, 1e-300),
                                      std::fabs(gi - bm.im) / std::max(bm.magIm, 1e-300));
          maxErr = std::max(maxErr,
                            (bm.magRe == 0 && gr == 0 && bm.magIm == 0 && gi == 0) ? 0.0 : (err == err ? err : 1.0));
        }
        got = fmt::format("({}, {})", gr, gi);
        want = fmt::format("({}, {})", bm.re, bm.im);
        break;
      }
      case BfOutType::CF16: {
        const std::uint16_t hr = loadAt<std::uint16_t>(out, 2 * e), hi = loadAt<std::uint16_t>(out, 2 * e + 1);
        if (hr == 0xffff || hi == 0xffff) continue;  // counted above
        if (exact) {
          bad = hr != floatToHalfBits(static_cast<float>(bm.ire)) || hi != floatToHalfBits(static_cast<float>(bm.iim));
        } else {
          const double gr = halfBitsToDouble(hr), gi = halfBitsToDouble(hi);
          // f16 output rounding (2^-11 relative to the value, which is at most sum |terms|) on top of the f32
          // accumulation.
          const double err = std::max(std::fabs(gr - bm.re) / std::max(bm.magRe, 1e-300),
                                      std::fabs(gi - bm.im) / std::max(bm.magIm, 1e-300));
          maxErr = std::max(maxErr, std::isfinite(gr) && std::isfinite(gi) ? err : 1.0);
        }
        got = fmt::format("({:#06x}, {:#06x})", hr, hi);
        want = fmt::format("({}, {})", bm.re, bm.im);
        break;
      }
      case BfOutType::CI8:
      case BfOutType::CI4: {
        const int sh = loadAt<std::int32_t>(data.arrays.at("shifts"),
                                            ((b * s.channels + c) * s.polarizations + p) * s.beams + m);
        const int wr = bfShiftSaturate(bm.ire, sh, s.outMax()), wi = bfShiftSaturate(bm.iim, sh, s.outMax());
        int gr, gi;
        bool looksPoisoned;
        if (s.outType == BfOutType::CI8) {
          gr = static_cast<signed char>(out[2 * e]), gi = static_cast<signed char>(out[2 * e + 1]);
          looksPoisoned = out[2 * e] == 0xff && out[2 * e + 1] == 0xff;
        } else {
          const int byte = out[e];
          const int hi = sext4(byte >> 4), lo = sext4(byte & 15);
          gr = s.outCi4RealHigh ? hi : lo, gi = s.outCi4RealHigh ? lo : hi;
          looksPoisoned = byte == 0xff;
        }
        bad = gr != wr || gi != wi;
        if (looksPoisoned && bad) {  // still the poison: unwritten, not a wrong value
          ++suspectsBad;
          if (firstBad.empty()) firstBad = fmt::format("element {} unwritten (still 0xff; want ({}, {}))", e, wr, wi);
          continue;
        }
        if (!std::binary_search(which.begin(), which.end(), e))
          continue;  // a suspect that holds its value: counted once
        saturated += std::abs(wr) == s.outMax() || std::abs(wi) == s.outMax();
        clampedRef += bfShiftClamps(bm.ire, sh, s.outMax()) || bfShiftClamps(bm.iim, sh, s.outMax());
        got = fmt::format("({}, {})", gr, gi);
        want = fmt::format("({}, {}) = sat(({}, {}) >> {})", wr, wi, bm.ire, bm.iim, sh);
        break;
      }
    }
    if (bad) {
      ++mismatches;
      if (firstBad.empty())
        firstBad =
            fmt::format("first mismatch: element {} (batch {}, channel {}, pol {}, time {}, beam {}): got {}, want {}",
                        e, b, c, p, t, m, got, want);
    }
  }
  // 3. Integer beams: the kernel's count of clamped beams. Exact where every element was compared; else it must lie
  //    between the clamped beams among the compared ones and the number of elements (the 0xff poison does not).
  std::string satNote;
  if (s.intOut()) {
    auto it = outputs.find("saturated");
    if (it == outputs.end() || it->second.size() < 8)
      throw std::invalid_argument("beamformer check: output saturated (uint64) missing");
    const std::uint64_t got = loadAt<std::uint64_t>(it->second, 0);
    const bool full = static_cast<long long>(which.size()) == total;
    const bool good = full ? got == static_cast<std::uint64_t>(clampedRef)
                           : got >= static_cast<std::uint64_t>(clampedRef) && got <= static_cast<std::uint64_t>(total);
    if (!good) {
      ++mismatches;
      if (firstBad.empty())
        firstBad = full ? fmt::format("saturated count {} (want {})", got, clampedRef)
                        : fmt::format("saturated count {} outside [{}, {}] (sampled)", got, clampedRef, total);
    }
    satNote = fmt::format("; saturated count {} ({} {})", got, full ? "exact, want" : "sampled: at least", clampedRef);
  }
  ck.checked = static_cast<long long>(which.size());
  ck.unwritten = unwritten + suspectsBad;
  if (exact) {
    ck.exact = true;
    ck.error = static_cast<double>(mismatches);
    ck.bound = 0;
  } else if (s.power) {
    ck.error = maxErr;
    // |beam'|^2 - |beam|^2 <= (2 gamma + gamma^2) (S_re^2 + S_im^2) per term, then P I f32 additions and two roundings
    // per square.
    ck.bound = 2 * gamma + gamma * gamma + (s.polarizations * static_cast<double>(s.integrate) + 4) * u;
  } else {
    ck.error = maxErr;
    ck.bound = gamma + (s.outType == BfOutType::CF16 ? std::ldexp(1.0, -11) : u);
  }
  const std::string suspectNote =
      s.intOut() ? fmt::format("; {} elements still 0xff (a value too), {} of them compared, {} not written",
                               suspectCount, suspects.size(), suspectsBad)
                 : "";
  ck.detail = fmt::format(
      "all {} {} elements checked written (poison){}; {} of them compared {} against the {} reference; {} mismatches, "
      "{} unwritten{}{}; error {:.3g} "
      "(bound {:.3g}){}{}",
      total, outName, suspectNote, which.size(), exact ? "bit-exactly" : "with |out - ref| / sum|terms|",
      s.integer() ? "exact integer" : "double", mismatches, ck.unwritten,
      s.intOut() ? fmt::format(", {} at +-max", saturated) : "", satNote, ck.error, ck.bound,
      firstBad.empty() ? "" : "; ", firstBad);
  return ck;
}

double bfBaselineBeamsError(const BeamformerSpec& s, const TestData& data, const std::vector<unsigned char>& dense,
                            long long batch) {
  const long long G = static_cast<long long>(s.channels) * s.polarizations * batch, NM = s.samples * s.beams;
  if (static_cast<long long>(dense.size()) < G * NM * 8) return -1;
  BfReference ref(s, data);
  double maxErr = 0;
  for (long long e : sampleElements(G * NM, static_cast<double>(s.receivers), 0xba5e)) {
    const long long g = e / NM, t = (e % NM) / s.beams, m = e % s.beams;
    const long long p = g % s.polarizations, c = (g / s.polarizations) % s.channels,
                    b = g / (static_cast<long long>(s.polarizations) * s.channels);
    const BfBeam bm = ref.beam(b, c, p, t, m);
    const float gr = loadAt<float>(dense, 2 * e), gi = loadAt<float>(dense, 2 * e + 1);
    const double er = bm.absRe > 0 ? std::fabs(gr - bm.re) / bm.absRe : std::fabs(gr),
                 ei = bm.absIm > 0 ? std::fabs(gi - bm.im) / bm.absIm : std::fabs(gi);
    const double err = std::max(er, ei);
    if (!(err <= maxErr)) maxErr = err == err ? err : INFINITY;  // NaN: as large as it gets
  }
  return maxErr;
}

std::vector<unsigned char> bfBaselineDenseInput(const BeamformerSpec& s, const TestData& data, long long batch) {
  BfReference ref(s, data);
  const long long K = s.receivers, G = static_cast<long long>(s.channels) * s.polarizations * batch;
  const bool f16 = !s.integer();
  const long long values = G * (s.beams + s.samples) * K;  // complex values
  std::vector<unsigned char> out(static_cast<std::size_t>(values * (f16 ? 4 : 2)));
  // Planar f16: the real plane of a matrix set, then its imaginary plane; the weights' set first, then the samples'.
  const long long wValues = G * s.beams * K;
  for (int side = 1; side >= 0; --side) {
    const long long rows = side ? s.beams : s.samples;
    const long long setBase = side ? 0 : wValues, setValues = side ? wValues : G * s.samples * K;
    for (long long g = 0; g < G; ++g) {
      const long long p = g % s.polarizations, c = (g / s.polarizations) % s.channels,
                      b = g / (static_cast<long long>(s.polarizations) * s.channels);
      for (long long i = 0; i < rows; ++i) {
        const double* v = side ? ref.weightRow(b, c, p, i) : ref.sampleRow(b, c, p, i);
        for (long long k = 0; k < K; ++k) {
          const long long at = (g * rows + i) * K + k;  // inside the set
          if (f16) {
            const std::uint16_t hr = floatToHalfBits(v[2 * k]), hi = floatToHalfBits(v[2 * k + 1]);
            std::memcpy(&out[static_cast<std::size_t>(2 * (setBase * 2 + at))], &hr, 2);
            std::memcpy(&out[static_cast<std::size_t>(2 * (setBase * 2 + setValues + at))], &hi, 2);
          } else {
            out[static_cast<std::size_t>(2 * (setBase + at))] = static_cast<unsigned char>(
                static_cast<signed char>(v[2 * k]));
            out[static_cast<std::size_t>(2 * (setBase + at) + 1)] = static_cast<unsigned char>(
                static_cast<signed char>(v[2 * k + 1]));
          }
        }
      }
    }
  }
  return out;
}

}  // namespace warpforge
