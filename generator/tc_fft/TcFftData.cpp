#include "generator/tc_fft/TcFftData.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "generator/core/ParallelFor.h"
#include "generator/core/SweepDraw.h"
#include "generator/emulate/Half.h"
#include "generator/emulate/Reference.h"

namespace warpforge {

namespace {

// The runner fills outputs with 0xff bytes: as f16 0xffff, a NaN no arithmetic
// produces (the hardware's canonical NaN is 0x7fff).
constexpr std::uint16_t kPoison = 0xffff;

// Element i of interleaved f16 complex data held as bytes (read in place: a batch of 2^20 4096-point FFTs is 16 GiB).
std::uint16_t halfAt(const std::vector<unsigned char>& bytes, long long i) {
  std::uint16_t h;
  std::memcpy(&h, bytes.data() + 2 * i, 2);
  return h;
}

const TcFftTestData& logicalOf(const TestData& d) {
  const auto* l = std::any_cast<TcFftTestData>(&d.logical);
  if (!l) throw std::invalid_argument("tc_fft: test data was not made by this family's randomInputs");
  return *l;
}

// The FFTs compared with the double reference: all of a small batch, else first, last and a seeded sample.
std::vector<long long> checkedEntries(long long batch, std::uint64_t seed) {
  std::vector<long long> which;
  if (batch <= 4096) {
    for (long long b = 0; b < batch; ++b) which.push_back(b);
    return which;
  }
  std::mt19937_64 rng(seed ^ 0x5eed);
  which = {0, batch - 1};
  for (int i = 0; i < 4096; ++i) which.push_back(static_cast<long long>(rng() % batch));
  return which;
}

std::vector<cdouble> complexAt(const std::vector<unsigned char>& h, long long offset, int n) {
  std::vector<cdouble> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = cdouble(halfBitsToDouble(halfAt(h, 2 * (offset + i))), halfBitsToDouble(halfAt(h, 2 * (offset + i) + 1)));
  return x;
}

// Max relative error against the double reference of `out` (FFT b at b * outDist) over the checked entries, the
// entries on every core.
double maxError(const LayoutProgram& p, const std::vector<unsigned char>& in, long long inDist,
                const std::vector<unsigned char>& out, long long outDist, const std::vector<long long>& which) {
  std::vector<double> err(which.size());
  parallelFor(static_cast<long long>(which.size()), [&](long long i) {
    const long long b = which[i];
    auto ref = referenceDft(complexAt(in, inDist * b, p.nIn), p.nOut, p.sign);
    err[i] = relativeError(complexAt(out, outDist * b, p.nOut), ref);
  });
  return err.empty() ? 0.0 : *std::max_element(err.begin(), err.end());  // relativeError gives no NaN
}

}  // namespace

TestData tcFftRandomInputs(const LayoutProgram& p, long long inputDistance, long long batch, std::uint64_t seed) {
  if (inputDistance < p.nIn || batch < 0)
    throw std::invalid_argument(
        fmt::format("tc_fft: input distance {} < n_in = {} or batch {} < 0", inputDistance, p.nIn, batch));
  // Uniform in [-1, 1) per component, made on every core in chunks of 2^20 values, chunk c from its own generator
  // seeded with draw c + 1 of splitmix64 from `seed` (SweepDraw, started c draws on), so the data depend on the seed
  // alone, not on the number of cores.
  constexpr long long kChunk = 1LL << 20;
  const long long values = 2 * inputDistance * batch;
  TestData d;
  auto& bytes = d.arrays["input"];
  bytes.resize(2 * values);
  parallelFor((values + kChunk - 1) / kChunk, [&](long long c) {
    std::mt19937_64 rng(SweepDraw(seed + 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(c)).next());
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (long long i = c * kChunk; i < std::min(values, (c + 1) * kChunk); ++i) {
      const std::uint16_t h = floatToHalfBits(u(rng));
      std::memcpy(bytes.data() + 2 * i, &h, 2);
    }
  });
  d.logical = TcFftTestData{seed, inputDistance};
  return d;
}

Check tcFftCheck(const LayoutProgram& p, const TestData& data,
                 const std::map<std::string, std::vector<unsigned char>>& outputs, long long batch, double bound) {
  const TcFftTestData& t = logicalOf(data);
  const auto& outBytes = outputs.at("output");
  if (batch < 1 || outBytes.size() % (4 * batch) || static_cast<long long>(outBytes.size() / (4 * batch)) < p.nOut)
    throw std::invalid_argument(
        fmt::format("tc_fft check: {} output bytes are not batch {} x a distance >= {} of 4-byte elements",
                    outBytes.size(), batch, p.nOut));
  const long long outDist = static_cast<long long>(outBytes.size() / (4 * batch));
  const auto& in = data.arrays.at("input");
  long long poison = 0, nonFinite = 0, padding = 0;
  for (long long b = 0; b < batch; ++b) {
    const long long y = 2 * outDist * b;
    for (long long q = 0; q < 2 * p.nOut; ++q) {
      const std::uint16_t h = halfAt(outBytes, y + q);
      if (h == kPoison) ++poison;
      else if ((h & 0x7c00) == 0x7c00) ++nonFinite;  // exponent all ones: an infinity or a NaN
    }
    for (long long q = 2 * p.nOut; q < 2 * outDist; ++q)
      padding += halfAt(outBytes, y + q) != kPoison;  // the gap between FFTs is not ours to write
  }
  const auto which = checkedEntries(batch, t.seed);
  Check c;
  c.checked = static_cast<long long>(which.size());
  c.unwritten = poison + nonFinite + padding;
  c.error = maxError(p, in, t.inputDistance, outBytes, outDist, which);
  c.bound = bound > 0 ? bound : tcFftErrorBound(p);
  c.detail = fmt::format(
      "{:.2e} = max over {} FFTs of ||y - ref|| / ||ref||, ref = a double-precision FFT of the f16 inputs (distances "
      "{}, {}); "
      "{} values unwritten, {} non-finite, {} padding values overwritten; bound {:.2e}: first-order f16 rounding of "
      "each step "
      "(tcFftErrorBound), a wrong layout bit gives O(1)",
      c.error, c.checked, t.inputDistance, outDist, poison, nonFinite, padding, c.bound);
  return c;
}

double tcFftErrorBound(const LayoutProgram& p) {
  // First order in u = 2^-11 (f16), normwise: every step maps its input to its output with a norm scaled uniformly (a
  // DFT on the summed bits, a unit-modulus twiddle, a permutation), so the relative errors of the steps add.
  //  - an MMA summing K = 2^s complex terms: its phase entries rounded to f16 (relative u each) perturb an output by
  //    at most u sum_j (|c_j| + |s_j|) |x_j| <= u sqrt(2) sqrt(K) ||x|| (Cauchy-Schwarz), against |y| ~ sqrt(K) ||x||
  //    for a DFT block: u sqrt(2K) normwise; the sum is rounded to f16 once more: u (1 + sqrt(2K));
  //  - a complex multiply: the phase rounded, one HMUL2, one HFMA2: 3u;
  //  - a relayout moves bits: exact; the f16 inputs are the reference's inputs: exact.
  // With f32 accumulators (p.accumulate == "f32") the f32 roundings are O(2^-24), second order in u; what is left:
  //  - an MMA: the phases rounded, u sqrt(2K), and one rounding of its f32 result to f16, u, as before; but where a
  //    complex multiply follows it directly (f32ComplexMultiplies), that rounding happens after the multiply instead;
  //  - such a multiply, in f32 on the f32 results: only its f16 phase rounded, u (the f16 one's HMUL2 and HFMA2
  //    roundings are gone): 2u less than an f16 MMA followed by an f16 multiply. Any other multiply stays f16: 3u.
  const double u = std::ldexp(1.0, -11);
  double bound = 0;
  for (const auto& st : p.steps) {
    if (st.op == StepOp::Mma) bound += u * (1 + std::sqrt(std::ldexp(1.0, static_cast<int>(st.sum.size()) + 1)));
    if (st.op == StepOp::Cmul) bound += 3 * u;
  }
  if (p.accumulate == "f32") bound -= 2 * u * f32ComplexMultiplies(p);
  return bound;
}

int f32ComplexMultiplies(const LayoutProgram& p) {
  LayoutProgram q;  // the same steps with f32 accumulators
  q.steps = p.steps;
  q.output = p.output;
  q.accumulate = "f32";
  int n = 0;
  for (std::size_t i = 0; i < q.steps.size(); ++i) n += q.f32Handoff(i);
  return n;
}

double tcFftErrorBound(const LayoutProgram& p, const std::string& accumulate) {
  LayoutProgram q;  // only what the bound reads: the steps and the output's name
  q.steps = p.steps;
  q.output = p.output;
  q.accumulate = accumulate;
  return tcFftErrorBound(q);
}

BaselineRequest tcFftBaseline(const LayoutProgram& p) {
  BaselineRequest r;
  FftBaseline fft;
  fft.lengths = {p.nOut};
  fft.transform = FftBaseline::Transform::C2C;
  fft.precision = FftBaseline::Precision::F16;
  fft.sign = p.sign;
  r.library = fft;
  r.description = fmt::format("cuFFT f16 C2C {} (zero-padded input)", p.nOut);
  // cuFFT cannot read the n_in inputs implicitly padded: it gets them padded with zeros.
  const int nIn = p.nIn, nOut = p.nOut;
  r.denseInput = [nIn, nOut](const TestData& data, long long batch) {
    const long long inDist = logicalOf(data).inputDistance;
    const auto& in = data.arrays.at("input");
    std::vector<unsigned char> padded(4ULL * nOut * batch, 0);
    for (long long b = 0; b < batch; ++b)
      std::memcpy(padded.data() + 4 * nOut * b, in.data() + 4 * inDist * b, 4ULL * nIn);
    return padded;
  };
  LayoutProgram shape;  // only the sizes and the sign: the request must not point into the spec
  shape.nIn = p.nIn;
  shape.nOut = p.nOut;
  shape.sign = p.sign;
  r.error = [shape](const std::vector<unsigned char>& denseOutput, const TestData& data, long long batch) {
    const TcFftTestData& t = logicalOf(data);
    if (static_cast<long long>(denseOutput.size()) != 4LL * shape.nOut * batch) return -1.0;
    return maxError(shape, data.arrays.at("input"), t.inputDistance, denseOutput, shape.nOut,
                    checkedEntries(batch, t.seed));
  };
  return r;
}

}  // namespace warpforge
