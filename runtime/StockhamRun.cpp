#include "runtime/StockhamRun.h"

#include <cuda.h>
#include <cufftXt.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <random>

#include <fmt/format.h>

#include "generator/emulate/Half.h"
#include "generator/emulate/Reference.h"
#include "runtime/DeviceUtil.h"
#include "runtime/StockhamExec.h"

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
      case Scalar::F16: { std::uint16_t h = floatToHalfBits(x); std::memcpy(p, &h, 2); break; }
      case Scalar::F32: { float f = static_cast<float>(x); std::memcpy(p, &f, 4); break; }
      case Scalar::F64: std::memcpy(p, &x, 8); break;
      default: { signed char c = static_cast<signed char>(x); std::memcpy(p, &c, 1); break; }
    }
  }
  double take(const std::vector<unsigned char>& v, long long s) const {
    const unsigned char* p = v.data() + s * bytes();
    switch (sc_) {
      case Scalar::F16: { std::uint16_t h; std::memcpy(&h, p, 2); return halfBitsToDouble(h); }
      case Scalar::F32: { float f; std::memcpy(&f, p, 4); return f; }
      case Scalar::F64: { double d; std::memcpy(&d, p, 8); return d; }
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
  long long a = io.offset + (batch - 1) * io.distance;
  for (std::size_t d = 0; d < shape.size(); ++d) a += (shape[d] - 1) * io.strides[d];
  return a + 1;
}
long long product(const std::vector<long long>& v) {
  long long p = 1;
  for (long long x : v) p *= x;
  return p;
}

Scalar scalarOf(const std::string& precision) { return precision == "f16" ? Scalar::F16 : precision == "f32" ? Scalar::F32 : Scalar::F64; }

double roundTo(const std::string& precision, double v) {
  return precision == "f16" ? roundToHalf(v) : precision == "f32" ? static_cast<double>(static_cast<float>(v)) : v;
}

// Logical input of one batch entry, already rounded to what the storage holds.
std::vector<cdouble> makeInput(const StockhamSpec& s, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  const long long n = product(s.inShape());
  std::vector<cdouble> x(n);
  if (s.transform == "c2r") {
    const int N = s.length();
    std::vector<cdouble> real(N);
    for (auto& v : real) v = u(rng);
    auto X = referenceDft(real, N, -1);
    for (long long k = 0; k < n; ++k) x[k] = X[k];
    x[0].imag(0);
    x[n - 1].imag(0);
  } else if (s.input.type == "ci8") {
    std::uniform_int_distribution<int> q(-127, 127);
    for (auto& v : x) v = cdouble(q(rng), q(rng));
  } else if (s.input.type == "ci4") {
    std::uniform_int_distribution<int> q(-8, 7);
    for (auto& v : x) v = cdouble(q(rng), q(rng));
  } else {
    for (auto& v : x) v = cdouble(u(rng), s.transform == "r2c" ? 0.0 : u(rng));
  }
  if (s.input.validLength >= 0)
    for (long long i = s.input.validLength; i < n; ++i) x[i] = 0;
  for (auto& v : x) v = cdouble(roundTo(s.precision, v.real()), roundTo(s.precision, v.imag()));
  return x;
}

std::vector<cdouble> reference(const StockhamSpec& s, const std::vector<cdouble>& x) {
  if (s.transform == "c2c") {
    if (s.lengths.size() == 1) return referenceDft(x, s.length(), s.sign);
    return referenceDftNd(x, s.lengths, s.sign);
  }
  const int N = s.length(), L = N / 2;
  if (s.transform == "r2c") {
    auto X = referenceDft(x, N, -1);
    X.resize(L + 1);
    return X;
  }
  std::vector<cdouble> full(N);
  for (int k = 0; k <= L; ++k) full[k] = k == 0 || k == L ? cdouble(x[k].real(), 0) : x[k];
  for (int k = 1; k < L; ++k) full[N - k] = std::conj(x[k]);
  auto y = referenceDft(full, N, +1);
  for (auto& v : y) v = v.real();
  return y;
}

// cuFFT on the same numbers in a dense layout (the layout does not change its arithmetic).
// Built and checked once; exec() is then timed interleaved with ours.
class CufftRun {
 public:
  double err = -1;
  std::string timed;

  CufftRun(const StockhamSpec& s, long long batch, const std::vector<std::vector<cdouble>>& inputs, const std::vector<std::vector<cdouble>>& refs)
      : sign_(s.sign) {
    const bool f16 = s.precision == "f16";
    if (s.lengths.size() > 1 && s.transform != "c2c") return;
    bool pow2 = true;
    for (int n : s.lengths) pow2 &= (n & (n - 1)) == 0;
    if (f16 && !pow2) return;  // cuFFT's half precision needs powers of two
    const bool f64 = s.precision == "f64";
    const long long nin = product(s.inShape()), nout = product(s.outShape());
    const bool realIn = s.transform == "r2c", realOut = s.transform == "c2r";
    Scalar sc = scalarOf(s.precision);
    HostArray hin(sc, !realIn, false, nin * batch);
    for (long long b = 0; b < batch; ++b)
      for (long long i = 0; i < nin; ++i) hin.set(b * nin + i, inputs[b][i]);
    din_ = std::make_unique<DeviceBuffer>(hin.re().size());
    dout_ = std::make_unique<DeviceBuffer>(nout * batch * (realOut ? 1 : 2) * hin.bytes());
    checkCu(cuMemcpyHtoD(din_->p, hin.re().data(), hin.re().size()), "cuMemcpyHtoD");
    if (cufftCreate(&plan_) != CUFFT_SUCCESS) throw std::runtime_error("cufftCreate failed");
    created_ = true;
    std::vector<long long> dims(s.lengths.begin(), s.lengths.end());
    cudaDataType ct = f16 ? CUDA_C_16F : f64 ? CUDA_C_64F : CUDA_C_32F, rt = f16 ? CUDA_R_16F : f64 ? CUDA_R_64F : CUDA_R_32F;
    cudaDataType it = realIn ? rt : ct, ot = realOut ? rt : ct;
    size_t ws = 0;
    if (cufftXtMakePlanMany(plan_, static_cast<int>(dims.size()), dims.data(), nullptr, 1, nin, it, nullptr, 1, nout, ot, batch, &ws, ct) !=
        CUFFT_SUCCESS)
      return;
    planned_ = true;
    exec();
    checkCu(cuCtxSynchronize(), "cuFFT");
    HostArray hout(sc, !realOut, false, nout * batch);
    checkCu(cuMemcpyDtoH(hout.re().data(), dout_->p, hout.re().size()), "cuMemcpyDtoH");
    err = 0;
    for (std::size_t b = 0; b < refs.size(); ++b) {
      std::vector<cdouble> y(nout);
      for (long long i = 0; i < nout; ++i) y[i] = hout.get(static_cast<long long>(b) * nout + i);
      err = std::max(err, relativeError(y, refs[b]));
    }
    timed = fmt::format("cuFFT {} {} on a dense{} array", s.transform, s.precision, s.input.validLength >= 0 ? " zero-padded" : "");
    if (!s.input.type.empty()) timed = fmt::format("cuFFT c2c {} on the input already widened to {}", s.precision, s.precision);
  }
  ~CufftRun() {
    if (created_) cufftDestroy(plan_);  // a handle may be any value, 0 included
  }
  CufftRun(const CufftRun&) = delete;
  CufftRun& operator=(const CufftRun&) = delete;

  bool ok() const { return planned_; }
  void exec() {
    if (cufftXtExec(plan_, reinterpret_cast<void*>(din_->p), reinterpret_cast<void*>(dout_->p), sign_ < 0 ? CUFFT_FORWARD : CUFFT_INVERSE) !=
        CUFFT_SUCCESS)
      throw std::runtime_error("cufftXtExec failed");
  }

 private:
  int sign_;
  cufftHandle plan_ = 0;
  bool created_ = false, planned_ = false;
  std::unique_ptr<DeviceBuffer> din_, dout_;
};

}  // namespace

StockhamArrayBytes stockhamArrayBytes(const StockhamSpec& s, long long batch) {
  const bool realIn = s.transform == "r2c", realOut = s.transform == "c2r";
  const int scalar = s.precision == "f16" ? 2 : s.precision == "f32" ? 4 : 8;
  const int inScalar = s.input.type == "ci8" ? 1 : s.input.type == "ci4" ? 1 : scalar;
  const long long inExtent = extentOf(s.input, s.inShape(), batch), outExtent = extentOf(s.output, s.outShape(), batch);
  // ci4 packs a complex element in one byte; other complex interleaved arrays hold two scalars per element
  const long long inScalars = s.input.type == "ci4" ? inExtent : !realIn && !s.input.planar ? 2 * inExtent : inExtent;
  const long long outScalars = !realOut && !s.output.planar ? 2 * outExtent : outExtent;
  StockhamArrayBytes b;
  b.in = static_cast<std::size_t>(inScalars * inScalar);
  b.inIm = s.input.planar ? b.in : 0;
  b.out = static_cast<std::size_t>(outScalars * scalar);
  b.outIm = s.output.planar ? b.out : 0;
  return b;
}

double stockhamErrorBound(const StockhamSpec& s, const StockhamCheck& c) {
  double floor = s.precision == "f64" ? 1e-14 : s.precision == "f32" ? 1e-6 : 2e-3;
  return std::max(2 * c.cufftMaxRelErr, floor);
}

StockhamCheck runStockham(Runtime& rt, const StockhamSpec& s, long long batch, std::uint64_t seed, int timedReps) {
  if (batch < 1) throw std::invalid_argument("batch must be >= 1");
  const auto inShape = s.inShape(), outShape = s.outShape();
  const long long nin = product(inShape), nout = product(outShape);
  const bool realIn = s.transform == "r2c", realOut = s.transform == "c2r";
  {  // every output element has its own address (else the result depends on write order)
    std::vector<long long> addr;
    for (long long b = 0; b < batch && addr.size() < (1u << 26); ++b)
      for (long long i = 0; i < nout; ++i) addr.push_back(addressOf(s.output, outShape, b, i));
    std::sort(addr.begin(), addr.end());
    if (std::adjacent_find(addr.begin(), addr.end()) != addr.end())
      throw std::invalid_argument(fmt::format("{}: with batch {} the output strides/distance make transforms overlap in memory", s.name, batch));
  }
  StockhamExecutor exec(rt, s);
  StockhamCheck c;
  c.batch = batch;
  c.kernels = static_cast<int>(exec.plan().kernels.size());

  Scalar inScalar = s.input.type == "ci8" ? Scalar::I8 : s.input.type == "ci4" ? Scalar::I4Pair : scalarOf(s.precision);
  long long inExtent = extentOf(s.input, inShape, batch), outExtent = extentOf(s.output, outShape, batch);
  HostArray hin(inScalar, !realIn, s.input.planar, inExtent);
  std::mt19937_64 rng(seed);
  std::vector<std::vector<cdouble>> inputs(batch);
  for (long long b = 0; b < batch; ++b) {
    inputs[b] = makeInput(s, rng);
    long long valid = s.input.validLength >= 0 ? s.input.validLength : nin;
    for (long long i = 0; i < valid; ++i) hin.set(addressOf(s.input, inShape, b, i), inputs[b][i]);
  }
  DeviceBuffer dinRe(hin.re().size()), dinIm(std::max<std::size_t>(hin.im().size(), 1));
  checkCu(cuMemcpyHtoD(dinRe.p, hin.re().data(), hin.re().size()), "cuMemcpyHtoD");
  if (s.input.planar) checkCu(cuMemcpyHtoD(dinIm.p, hin.im().data(), hin.im().size()), "cuMemcpyHtoD");
  HostArray hout(scalarOf(s.precision), !realOut, s.output.planar, outExtent);  // NaN-poisoned
  std::unique_ptr<DeviceBuffer> doutRe, doutIm;
  StockhamBuffers bufs{dinRe.p, dinIm.p, dinRe.p, dinIm.p};
  if (!s.inPlace) {
    doutRe = std::make_unique<DeviceBuffer>(hout.re().size());
    doutIm = std::make_unique<DeviceBuffer>(std::max<std::size_t>(hout.im().size(), 1));
    checkCu(cuMemcpyHtoD(doutRe->p, hout.re().data(), hout.re().size()), "cuMemcpyHtoD (poison)");
    if (s.output.planar) checkCu(cuMemcpyHtoD(doutIm->p, hout.im().data(), hout.im().size()), "cuMemcpyHtoD (poison)");
    bufs.out = doutRe->p;
    bufs.outIm = doutIm->p;
  }
  exec.run(bufs, batch);
  checkCu(cuCtxSynchronize(), "stockham plan");
  checkCu(cuMemcpyDtoH(hout.re().data(), bufs.out, hout.re().size()), "cuMemcpyDtoH");
  if (s.output.planar) checkCu(cuMemcpyDtoH(hout.im().data(), bufs.outIm, hout.im().size()), "cuMemcpyDtoH");

  // Every output element written; errors on up to ~4M points of reference.
  long long checkEntries = std::max<long long>(1, std::min<long long>(batch, (1LL << 22) / std::max<long long>(nout, 1)));
  std::vector<std::vector<cdouble>> refs;
  for (long long b = 0; b < batch; ++b) {
    std::vector<cdouble> y(nout);
    for (long long i = 0; i < nout; ++i) {
      y[i] = hout.get(addressOf(s.output, outShape, b, i));
      if (!std::isfinite(y[i].real()) || !std::isfinite(y[i].imag())) ++c.unwritten;
    }
    if (b < checkEntries || b == batch - 1) {
      auto ref = reference(s, inputs[b]);
      c.maxRelErr = std::max(c.maxRelErr, relativeError(y, ref));
      if (b < checkEntries) refs.push_back(std::move(ref));
      ++c.checked;
    }
  }
  long long inScalarBytes = inScalar == Scalar::I4Pair ? 1 : inScalar == Scalar::I8 ? 2 : (realIn ? 1 : 2) * (s.precision == "f16" ? 2 : s.precision == "f32" ? 4 : 8);
  long long outScalarBytes = (realOut ? 1 : 2) * (s.precision == "f16" ? 2 : s.precision == "f32" ? 4 : 8);
  c.bytes = static_cast<double>(batch) * ((s.input.validLength >= 0 ? s.input.validLength : nin) * inScalarBytes + nout * outScalarBytes);
  CufftRun cu(s, batch, inputs, refs);
  c.cufftMaxRelErr = cu.err;
  c.cufftTimed = cu.timed;
  // Timing: ours, cuFFT and a device-to-device copy of the same bytes (the copy ceiling),
  // warmed up, then interleaved rep by rep so that clock drift falls on all three alike.
  const bool timeCu = cu.ok(), timeCopy = timedReps > 1;
  const std::size_t copyBytes = static_cast<std::size_t>(c.bytes / 2);
  std::unique_ptr<DeviceBuffer> copySrc, copyDst;
  if (timeCopy) {
    copySrc = std::make_unique<DeviceBuffer>(copyBytes);
    copyDst = std::make_unique<DeviceBuffer>(copyBytes);
  }
  auto copy = [&] { checkCu(cuMemcpyDtoDAsync(copyDst->p, copySrc->p, copyBytes, nullptr), "cuMemcpyDtoDAsync (copy ceiling)"); };
  std::vector<std::function<void()>> jobs{[&] { exec.run(bufs, batch); }};
  if (timeCu) jobs.push_back([&] { cu.exec(); });
  if (timeCopy) jobs.push_back(copy);
  std::vector<double> ms = interleavedMedians(jobs, timedReps > 1 ? 3 : 0, timedReps);
  c.ourMs = ms[0];
  if (timeCu) c.cufftMs = ms[1];
  if (timeCopy) c.copyMs = ms.back();
  return c;
}

}  // namespace warpforge
