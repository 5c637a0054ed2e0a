#include "generator/stockham/StockhamData.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "generator/core/ParallelFor.h"
#include "generator/emulate/Half.h"
#include "generator/emulate/Reference.h"
#include "generator/stockham/StockhamLaunch.h"

namespace warpforge {

namespace {

// Scalar encodings of the user's arrays.
enum class Scalar { F16, F32, F64, I8, I4Pair };

// One user array (two for planar) in its raw storage, addressed in elements.
class HostArray {
 public:
  HostArray(Scalar sc, bool complex, bool planar, long long elems) : sc_(sc), complex_(complex), planar_(planar) {
    long long scalars = sc == Scalar::I4Pair ? elems : complex && !planar ? 2 * elems : elems;
    a_.assign(scalars * bytes(), 0xff);  // NaN for the float types: unwritten outputs show
    if (planar) b_.assign(scalars * bytes(), 0xff);
  }
  int bytes() const { return sc_ == Scalar::F16 ? 2 : sc_ == Scalar::F32 ? 4 : sc_ == Scalar::F64 ? 8 : 1; }
  std::vector<unsigned char>& re() { return a_; }
  std::vector<unsigned char>& im() { return b_; }

  void set(long long e, cdouble v) {
    if (sc_ == Scalar::I4Pair) {
      int r = static_cast<int>(v.real()), i = static_cast<int>(v.imag());
      a_[e] = static_cast<unsigned char>(((r & 15) << 4) | (i & 15));
      return;
    }
    if (!complex_) return put(a_, e, v.real());
    if (planar_) {
      put(a_, e, v.real());
      put(b_, e, v.imag());
    } else {
      put(a_, 2 * e, v.real());
      put(a_, 2 * e + 1, v.imag());
    }
  }
  cdouble get(long long e) const {
    if (!complex_) return {take(a_, e), 0.0};
    if (planar_) return {take(a_, e), take(b_, e)};
    return {take(a_, 2 * e), take(a_, 2 * e + 1)};
  }

 private:
  void put(std::vector<unsigned char>& v, long long s, double x) {
    unsigned char* p = v.data() + s * bytes();
    switch (sc_) {
      case Scalar::F16: {
        std::uint16_t h = floatToHalfBits(x);
        std::memcpy(p, &h, 2);
        break;
      }
      case Scalar::F32: {
        float f = static_cast<float>(x);
        std::memcpy(p, &f, 4);
        break;
      }
      case Scalar::F64: std::memcpy(p, &x, 8); break;
      default: {
        signed char c = static_cast<signed char>(x);
        std::memcpy(p, &c, 1);
        break;
      }
    }
  }
  double take(const std::vector<unsigned char>& v, long long s) const {
    const unsigned char* p = v.data() + s * bytes();
    switch (sc_) {
      case Scalar::F16: {
        std::uint16_t h;
        std::memcpy(&h, p, 2);
        return halfBitsToDouble(h);
      }
      case Scalar::F32: {
        float f;
        std::memcpy(&f, p, 4);
        return f;
      }
      case Scalar::F64: {
        double d;
        std::memcpy(&d, p, 8);
        return d;
      }
      default: return static_cast<signed char>(*p);
    }
  }
  Scalar sc_;
  bool complex_, planar_;
  std::vector<unsigned char> a_, b_;
};

// Element address of logical element `flat` (row-major over shape) of batch entry b.
long long addressOf(const StockhamIo& io, const std::vector<long long>& shape, long long b, long long flat) {
  long long a = io.offset + b * io.distance;
  for (std::size_t d = shape.size(); d-- > 0;) {
    a += (flat % shape[d]) * io.strides[d];
    flat /= shape[d];
  }
  return a;
}
long long extentOf(const StockhamIo& io, const std::vector<long long>& shape, long long batch) {
  return io.offset + (batch - 1) * io.distance + stockhamSpan(io, shape);
}
long long product(const std::vector<long long>& v) {
  long long p = 1;
  for (long long x : v) p *= x;
  return p;
}

// The first `valid` logical inputs of each of `batch` entries written at the addresses `io` gives them (the rest
// keeps HostArray's NaN fill).
HostArray placedInputs(const StockhamIo& io, const std::vector<long long>& shape, Scalar scalar, bool complex,
                       const std::vector<std::vector<cdouble>>& inputs, long long batch, long long valid) {
  HostArray h(scalar, complex, io.planar, extentOf(io, shape, batch));
  for (long long b = 0; b < batch; ++b)
    for (long long i = 0; i < valid; ++i) h.set(addressOf(io, shape, b, i), inputs.at(b)[i]);
  return h;
}

Scalar scalarOf(Precision precision) {
  return precision == Precision::F16 ? Scalar::F16 : precision == Precision::F32 ? Scalar::F32 : Scalar::F64;
}

double roundTo(Precision precision, double v) {
  return precision == Precision::F16   ? roundToHalf(v)
         : precision == Precision::F32 ? static_cast<double>(static_cast<float>(v))
                                       : v;
}

// The row-major index of the outer axes' index -i (every digit negated modulo its length).
long long negatedIndex(long long r, const std::vector<int>& dims) {
  long long out = 0, pitch = 1;
  for (std::size_t d = dims.size(); d-- > 0;) {
    const long long digit = r % dims[d];
    r /= dims[d];
    out += ((dims[d] - digit) % dims[d]) * pitch;
    pitch *= dims[d];
  }
  return out;
}

// Logical input of one batch entry, already rounded to what the storage holds.
std::vector<cdouble> makeInput(const StockhamSpec& s, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  const long long n = product(s.inShape());
  std::vector<cdouble> x(n);
  if (s.transform == Transform::C2R) {
    // The half spectrum of a real signal: c2r's input as a user has it.
    const std::vector<int> dims(s.lengths.begin(), s.lengths.end());
    // An unnormalised c2r returns the signal times the point count: in f16 the signal is scaled so that the outputs
    // stay within the format's range (65504) with a factor of two to spare, as a user's f16 data must.
    const double scale = s.precision == Precision::F16 ? std::min(1.0, 32768.0 / static_cast<double>(s.points())) : 1.0;
    std::vector<cdouble> real(s.points());
    for (auto& v : real) v = scale * u(rng);
    const std::vector<cdouble> X = dims.size() == 1 ? referenceDft(real, dims[0], -1) : referenceDftNd(real, dims, -1);
    const long long N = s.length(), H = N / 2 + 1;
    for (long long k = 0; k < n; ++k) x[k] = X[k / H * N + k % H];
    // Exactly Hermitian where the half holds both X[k] and its mirror (the columns k = 0 and N/2): real on the rows
    // that mirror themselves, conjugate pairs on the others.
    const std::vector<int> outer(dims.begin(), dims.end() - 1);
    for (long long k : {0LL, N % 2 ? -1LL : N / 2}) {
      if (k < 0) continue;
      for (long long r = 0; r < n / H; ++r) {
        const long long mr = negatedIndex(r, outer);
        if (mr == r) x[r * H + k].imag(0);
        else if (r > mr) x[r * H + k] = std::conj(x[mr * H + k]);
      }
    }
  } else if (s.input.type == InputType::CI8) {
    std::uniform_int_distribution<int> q(-127, 127);
    for (auto& v : x) v = cdouble(q(rng), q(rng));
  } else if (s.input.type == InputType::CI4) {
    std::uniform_int_distribution<int> q(-8, 7);
    for (auto& v : x) v = cdouble(q(rng), q(rng));
  } else {
    for (auto& v : x) v = cdouble(u(rng), s.transform == Transform::R2C ? 0.0 : u(rng));
  }
  if (s.input.validLength >= 0)
    for (long long i = s.input.validLength; i < n; ++i) x[i] = 0;
  for (auto& v : x) v = cdouble(roundTo(s.precision, v.real()), roundTo(s.precision, v.imag()));
  return x;
}

std::vector<cdouble> reference(const StockhamSpec& s, const std::vector<cdouble>& x) {
  if (s.transform == Transform::C2C) {
    if (s.lengths.size() == 1) return referenceDft(x, s.length(), s.sign);
    return referenceDftNd(x, s.lengths, s.sign);
  }
  const std::vector<int> dims(s.lengths.begin(), s.lengths.end());
  const long long N = s.length(), H = N / 2 + 1, rows = s.points() / N;
  if (s.transform == Transform::R2C) {
    const std::vector<cdouble> X = dims.size() == 1 ? referenceDft(x, dims[0], -1) : referenceDftNd(x, dims, -1);
    std::vector<cdouble> half(rows * H);
    for (long long k = 0; k < rows * H; ++k) half[k] = X[k / H * N + k % H];
    return half;
  }
  // c2r: the full spectrum from the half by Hermitian symmetry (X[k] = conj X[-k] over every axis), its inverse DFT,
  // the real part.
  std::vector<cdouble> full(s.points());
  const long long outer = rows;
  std::vector<int> outerDims(dims.begin(), dims.end() - 1);
  for (long long r = 0; r < outer; ++r)
    for (long long k = 0; k < N; ++k) {
      if (k < H) {
        full[r * N + k] = x[r * H + k];
        continue;
      }
      full[r * N + k] = std::conj(x[negatedIndex(r, outerDims) * H + (N - k)]);
    }
  auto y = dims.size() == 1 ? referenceDft(full, dims[0], +1) : referenceDftNd(full, dims, +1);
  for (auto& v : y) v = v.real();
  return y;
}

// What TestData::logical holds: the inputs as stored (per batch entry), and the references
// computed so far (check and the baseline's error compare the same entries against one reference).
struct Logical {
  std::vector<std::vector<cdouble>> inputs;
  mutable std::mutex mutex;
  mutable std::map<long long, std::vector<cdouble>> refs;
};

const Logical& logicalOf(const TestData& data) {
  const auto* p = std::any_cast<std::shared_ptr<const Logical>>(&data.logical);
  if (!p || !*p) throw std::invalid_argument("stockham: test data not made by this family's randomInputs");
  return **p;
}

const std::vector<cdouble>& referenceOf(const StockhamSpec& s, const Logical& l, long long b) {
  {
    std::lock_guard<std::mutex> lock(l.mutex);
    if (auto it = l.refs.find(b); it != l.refs.end()) return it->second;
  }
  auto ref = reference(s, l.inputs.at(b));
  std::lock_guard<std::mutex> lock(l.mutex);
  return l.refs.emplace(b, std::move(ref)).first->second;  // std::map: references stay valid
}

// Errors on up to ~4M points of reference: the first entries, and the last (the end of the arrays).
std::vector<long long> checkedEntries(long long batch, long long nout) {
  const long long first = std::max<long long>(1,
                                              std::min<long long>(batch, (1LL << 22) / std::max<long long>(nout, 1)));
  std::vector<long long> e;
  for (long long b = 0; b < first; ++b) e.push_back(b);
  if (first < batch) e.push_back(batch - 1);
  return e;
}

// Worst errors measured on the H100 over the GPU sweeps (tests/GpuStockhamTest.cpp).
const char* measuredWorst(Precision p) {
  return p == Precision::F64 ? "9.8e-16" : p == Precision::F32 ? "2.6e-7" : "3.9e-4";
}

}  // namespace

double stockhamErrorBound(Precision precision) {
  return precision == Precision::F64 ? 1e-14 : precision == Precision::F32 ? 1e-6 : 2e-3;
}

TestData stockhamRandomInputs(const StockhamSpec& s, long long batch, std::uint64_t seed) {
  if (batch < 1) throw std::invalid_argument("batch must be >= 1");
  const auto inShape = s.inShape(), outShape = s.outShape();
  const long long nin = product(inShape), nout = product(outShape);
  {  // every output element has its own address (else the result depends on write order)
    std::vector<long long> addr;
    for (long long b = 0; b < batch && addr.size() < (1u << 26); ++b)
      for (long long i = 0; i < nout; ++i) addr.push_back(addressOf(s.output, outShape, b, i));
    std::sort(addr.begin(), addr.end());
    if (std::adjacent_find(addr.begin(), addr.end()) != addr.end())
      throw std::invalid_argument(
          fmt::format("{}: with batch {} the output strides/distance make transforms overlap in memory", s.name,
                      batch));
  }
  const bool realIn = s.transform == Transform::R2C;
  Scalar inScalar = s.input.type == InputType::CI8   ? Scalar::I8
                    : s.input.type == InputType::CI4 ? Scalar::I4Pair
                                                     : scalarOf(s.precision);
  auto logical = std::make_shared<Logical>();
  logical->inputs.resize(batch);
  std::mt19937_64 rng(seed);
  if (s.transform == Transform::C2R && batch > 1) {
    // A c2r entry is the DFT of a random real signal (a Bluestein reference per entry at prime lengths: 0.15 s at
    // 138961): entries from seeds drawn in order, made on every core.
    std::vector<std::uint64_t> seeds(batch);
    for (auto& e : seeds) e = rng();
    parallelFor(batch, [&](long long b) {
      std::mt19937_64 own(seeds[b]);
      logical->inputs[b] = makeInput(s, own);
    });
  } else {
    for (long long b = 0; b < batch; ++b) logical->inputs[b] = makeInput(s, rng);
  }
  const long long valid = s.input.validLength >= 0 ? s.input.validLength : nin;
  HostArray hin = placedInputs(s.input, inShape, inScalar, !realIn, logical->inputs, batch, valid);
  TestData d;
  d.arrays["input"] = std::move(hin.re());
  if (s.input.planar) d.arrays["input_im"] = std::move(hin.im());
  d.logical = std::shared_ptr<const Logical>(std::move(logical));
  return d;
}

Check stockhamCheck(const StockhamSpec& s, const TestData& data,
                    const std::map<std::string, std::vector<unsigned char>>& outputs, long long batch) {
  const Logical& l = logicalOf(data);
  if (static_cast<long long>(l.inputs.size()) != batch)
    throw std::invalid_argument(
        fmt::format("{}: test data for batch {}, outputs for batch {}", s.name, l.inputs.size(), batch));
  const auto outShape = s.outShape();
  const long long nout = product(outShape);
  const bool realOut = s.transform == Transform::C2R;
  HostArray hout(scalarOf(s.precision), !realOut, s.output.planar, extentOf(s.output, outShape, batch));
  // In place, the output is the input's memory: a harness may hand it back under either name.
  auto take = [&](const std::string& name, const std::string& alias, std::vector<unsigned char>& into) {
    auto it = outputs.find(name);
    if (it == outputs.end() && s.inPlace) it = outputs.find(alias);
    if (it == outputs.end())
      throw std::invalid_argument(fmt::format("{}: no output array '{}' to check", s.name, name));
    if (it->second.size() < into.size())
      throw std::invalid_argument(fmt::format("{}: output array '{}' has {} bytes, batch {} needs {}", s.name, name,
                                              it->second.size(), batch, into.size()));
    std::memcpy(into.data(), it->second.data(), into.size());
  };
  take("output", "input", hout.re());
  if (s.output.planar) take("output_im", "input_im", hout.im());

  Check c;
  const auto entries = checkedEntries(batch, nout);
  std::vector<cdouble> y(nout);
  long long infinite = 0;  // overflow, not the poison (a NaN): counted apart so that the detail tells them apart
  for (long long b = 0, next = 0; b < batch; ++b) {
    for (long long i = 0; i < nout; ++i) {
      y[i] = hout.get(addressOf(s.output, outShape, b, i));
      if (!std::isfinite(y[i].real()) || !std::isfinite(y[i].imag())) ++c.unwritten;
      if (std::isinf(y[i].real()) || std::isinf(y[i].imag())) ++infinite;
    }
    if (next < static_cast<long long>(entries.size()) && entries[next] == b) {
      const double e = relativeError(y, referenceOf(s, l, b));
      if (e != e || e > c.error) c.error = e;  // a NaN must fail the check, not vanish in std::max
      ++c.checked;
      ++next;
    }
  }
  c.bound = stockhamErrorBound(s.precision);
  c.detail = fmt::format(
      "||out - ref|| / ||ref|| against a double-precision FFT on the input as stored, max over {} batch entries{}; "
      "bound {:.0e}, a few ulps of {} "
      "(the worst measured over every length 1..4096, powers of two to 2^24, 2D/3D and every layout option was {})",
      c.checked, static_cast<long long>(entries.size()) < batch ? " (the first ones and the last)" : "", c.bound,
      precisionName(s.precision), measuredWorst(s.precision));
  if (infinite)
    c.detail += fmt::format("; {} of the {} non-finite outputs are infinite: written, but past the range of {}",
                            infinite, c.unwritten, precisionName(s.precision));
  return c;
}

std::optional<BaselineRequest> stockhamBaseline(const StockhamSpec& s) {
  bool pow2 = true;
  for (int n : s.lengths) pow2 &= (n & (n - 1)) == 0;
  if (s.precision == Precision::F16 && !pow2) return std::nullopt;  // cuFFT's half precision needs powers of two
  BaselineRequest r;
  FftBaseline fft;
  fft.lengths.assign(s.lengths.begin(), s.lengths.end());
  fft.transform = s.transform == Transform::R2C   ? FftBaseline::Transform::R2C
                  : s.transform == Transform::C2R ? FftBaseline::Transform::C2R
                                                  : FftBaseline::Transform::C2C;
  fft.precision = s.precision == Precision::F16   ? FftBaseline::Precision::F16
                  : s.precision == Precision::F64 ? FftBaseline::Precision::F64
                                                  : FftBaseline::Precision::F32;
  fft.sign = s.sign;
  const std::string transform = transformName(s.transform), precision = precisionName(s.precision);
  r.description = fmt::format("cuFFT {} {} on a dense{} array", transform, precision,
                              s.input.validLength >= 0 ? " zero-padded" : "");
  if (s.input.type != InputType::Native)
    r.description = fmt::format("cuFFT c2c {} on the input already widened to {}", precision, precision);
  // The same numbers in a dense interleaved layout (the layout does not change cuFFT's arithmetic).
  r.denseInput = [s](const TestData& data, long long batch) {
    const Logical& l = logicalOf(data);
    const long long nin = product(s.inShape());
    HostArray h(scalarOf(s.precision), s.transform != Transform::R2C, false, nin * batch);
    for (long long b = 0; b < batch; ++b)
      for (long long i = 0; i < nin; ++i) h.set(b * nin + i, l.inputs.at(b)[i]);
    return std::move(h.re());
  };
  r.error = [s](const std::vector<unsigned char>& dense, const TestData& data, long long batch) {
    const Logical& l = logicalOf(data);
    const long long nout = product(s.outShape());
    HostArray h(scalarOf(s.precision), s.transform != Transform::C2R, false, nout * batch);
    if (dense.size() < h.re().size()) return -1.0;
    std::memcpy(h.re().data(), dense.data(), h.re().size());
    double err = 0;
    std::vector<cdouble> y(nout);
    for (long long b : checkedEntries(batch, nout)) {
      for (long long i = 0; i < nout; ++i) y[i] = h.get(b * nout + i);
      err = std::max(err, relativeError(y, referenceOf(s, l, b)));
    }
    return err;
  };
  // Like for like where cuFFT's advanced layout expresses the spec's arrays (each axis's stride a multiple of the
  // next one's): a user with strided, padded or in-place data would plan cuFFT on them as they are rather than pay
  // a copy into a dense array. cuFFT has no planar layout: a planar side is timed as interleaved arrays of the same
  // strides, distance and offset (the sectors a strided side touches are the layout's cost, which a dense baseline
  // would not pay; the interleave a user would add around cuFFT is not timed). Integer and zero-padded inputs stay
  // dense.
  auto layoutOf = [&](const StockhamIo& io, const std::vector<long long>& shape) -> std::optional<FftBaseline::Layout> {
    const std::size_t d = shape.size();
    FftBaseline::Layout l;
    l.stride = io.strides[d - 1];
    l.embed.assign(d, shape[0]);
    for (std::size_t k = d - 1; k >= 1; --k) {
      if (io.strides[k] <= 0 || io.strides[k - 1] % io.strides[k]) return std::nullopt;
      l.embed[k] = io.strides[k - 1] / io.strides[k];
      if (l.embed[k] < shape[k]) return std::nullopt;
    }
    if (l.stride <= 0) return std::nullopt;
    l.distance = io.distance;
    l.offset = io.offset;
    l.span = stockhamSpan(io, shape);
    return l;
  };
  auto dense = [](const StockhamIo& io, const std::vector<long long>& shape) {
    long long pitch = 1;
    for (std::size_t d = shape.size(); d-- > 0;) {
      if (io.strides[d] != pitch) return false;
      pitch *= shape[d];
    }
    return io.offset == 0 && io.distance == pitch && !io.planar;
  };
  const std::vector<long long> inShape = s.inShape(), outShape = s.outShape();
  const bool plain = dense(s.input, inShape) && dense(s.output, outShape) && !s.inPlace;
  if (!plain && s.input.type == InputType::Native && s.input.validLength < 0 && (!s.inPlace || !s.real())) {
    StockhamSpec interleaved = s;  // the same arrays, interleaved (what cuFFT can be given)
    interleaved.input.planar = interleaved.output.planar = false;
    auto in = layoutOf(interleaved.input, inShape), out = layoutOf(interleaved.output, outShape);
    if (in && out) {
      const bool planar = s.input.planar || s.output.planar;
      fft.inLayout = in;
      fft.outLayout = out;
      fft.inPlace = s.inPlace;
      r.description = fmt::format("cuFFT {} {} on the spec's own {}strided arrays (advanced layout{})", transform,
                                  precision, s.inPlace ? "in-place " : "",
                                  planar ? "; planar sides interleaved at the same strides" : "");
      r.denseInput = [s, interleaved](const TestData& data, long long batch) {
        if (!s.input.planar) return data.arrays.at("input");
        const std::vector<long long> shape = s.inShape();
        HostArray h = placedInputs(interleaved.input, shape, scalarOf(s.precision), true, logicalOf(data).inputs, batch,
                                   product(shape));
        return std::move(h.re());
      };
      r.error = [interleaved](const std::vector<unsigned char>& output, const TestData& data, long long batch) {
        return stockhamCheck(interleaved, data, {{"output", output}}, batch).error;
      };
    }
  }
  r.library = fft;
  return r;
}

}  // namespace warpforge
