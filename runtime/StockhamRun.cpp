#include "runtime/StockhamRun.h"

#include <cuda.h>
#include <cufftXt.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "generator/emulate/Reference.h"
#include "generator/stockham/StockhamEmitter.h"
#include "runtime/DeviceUtil.h"

namespace warpforge {


StockhamCheck runStockham(Runtime& rt, const StockhamSpec& s, long long batch, std::uint64_t seed, int timedReps) {
  const int n = s.length;
  auto disjoint = [&](const StockhamIo& io) {
    return batch <= 1 || io.distance >= (n - 1) * io.stride + 1 || io.stride >= batch * io.distance;
  };
  if (!disjoint(s.input) || !disjoint(s.output))
    throw std::invalid_argument(fmt::format("{}: with batch {} the FFTs of the given strides/distances overlap in memory", s.name, batch));
  StockhamKernel k = emitStockham(s);
  LoadedKernel lk = rt.loadSource(k.source, s.name, k.kernelName, k.threadsPerFft * k.fftsPerBlock, k.sharedBytes);
  const bool f64 = s.precision == "f64";
  const int eb = k.elementBytes;
  auto extent = [&](const StockhamIo& io) { return io.offset + (batch - 1) * io.distance + (n - 1) * io.stride + 1; };
  const long long inElems = extent(s.input), outElems = s.inPlace ? inElems : extent(s.output);
  // Host buffers as doubles (re, im), converted to the device type.
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> in(2 * inElems);
  for (auto& v : in) v = u(rng);
  if (!f64)
    for (auto& v : in) v = static_cast<float>(v);
  auto toDevice = [&](const std::vector<double>& h) {
    std::vector<char> raw(h.size() * (eb / 2));
    for (std::size_t i = 0; i < h.size(); ++i) {
      if (f64) std::memcpy(raw.data() + 8 * i, &h[i], 8);
      else {
        float f = static_cast<float>(h[i]);
        std::memcpy(raw.data() + 4 * i, &f, 4);
      }
    }
    return raw;
  };
  auto fromDevice = [&](const std::vector<char>& raw) {
    std::vector<double> h(raw.size() / (eb / 2));
    for (std::size_t i = 0; i < h.size(); ++i) {
      if (f64) std::memcpy(&h[i], raw.data() + 8 * i, 8);
      else {
        float f;
        std::memcpy(&f, raw.data() + 4 * i, 4);
        h[i] = f;
      }
    }
    return h;
  };
  std::vector<char> inRaw = toDevice(in);
  DeviceBuffer din(inRaw.size());
  DeviceBuffer dout(outElems * eb);
  CUdeviceptr outPtr = s.inPlace ? din.p : dout.p;
  StockhamCheck c;
  c.batch = batch;
  long long grid = std::min<long long>((batch + k.fftsPerBlock - 1) / k.fftsPerBlock, 1LL * lk.smCount * std::max(1, lk.blocksPerSm));
  long long b = batch, io = s.input.offset, is = s.input.stride, id = s.input.distance, oo = s.output.offset, os = s.output.stride,
            od = s.output.distance;
  CUdeviceptr inPtr = din.p;
  void* args[] = {&inPtr, &outPtr, &b, &io, &is, &id, &oo, &os, &od};
  auto launch = [&] { rt.launchRaw(lk, static_cast<unsigned>(grid), k.threadsPerFft, k.fftsPerBlock, args); };
  checkCu(cuMemcpyHtoD(din.p, inRaw.data(), inRaw.size()), "cuMemcpyHtoD");
  if (!s.inPlace) checkCu(cuMemsetD8(dout.p, 0xff, outElems * eb), "cuMemsetD8");  // NaN poison
  launch();
  checkCu(cuCtxSynchronize(), "stockham kernel");
  std::vector<char> outRaw(outElems * eb);
  checkCu(cuMemcpyDtoH(outRaw.data(), outPtr, outRaw.size()), "cuMemcpyDtoH");
  std::vector<double> out = fromDevice(outRaw);
  auto gather = [&](const std::vector<double>& h, const StockhamIo& io2, long long f) {
    std::vector<cdouble> v(n);
    for (int i = 0; i < n; ++i) {
      long long e = io2.offset + f * io2.distance + i * io2.stride;
      v[i] = cdouble(h[2 * e], h[2 * e + 1]);
    }
    return v;
  };
  std::vector<long long> which;
  for (long long f = 0; f < batch && f < 2048; ++f) which.push_back(f);
  if (batch > 2048) which.push_back(batch - 1);
  std::vector<std::vector<cdouble>> refs;
  for (long long f : which) {
    auto ref = referenceDft(gather(in, s.input, f), n, s.sign);
    auto y = gather(out, s.output, f);
    for (auto& z : y)
      if (!std::isfinite(z.real()) || !std::isfinite(z.imag())) ++c.unwritten;
    c.maxRelErr = std::max(c.maxRelErr, relativeError(y, ref));
    refs.push_back(std::move(ref));
    ++c.checked;
  }
  // cuFFT on the same device input and layout.
  cufftHandle plan;
  if (cufftCreate(&plan) != CUFFT_SUCCESS) throw std::runtime_error("cufftCreate failed");
  long long nn = n, inembed = n, onembed = n;
  size_t ws = 0;
  DeviceBuffer dcu(outElems * eb);
  cudaDataType t = f64 ? CUDA_C_64F : CUDA_C_32F;
  if (cufftXtMakePlanMany(plan, 1, &nn, &inembed, is, id, t, &onembed, os, od, t, batch, &ws, t) != CUFFT_SUCCESS)
    throw std::runtime_error("cufftXtMakePlanMany failed");
  auto runCufft = [&] {
    if (cufftXtExec(plan, reinterpret_cast<char*>(din.p) + io * eb, reinterpret_cast<char*>(dcu.p) + oo * eb,
                    s.sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE) != CUFFT_SUCCESS)
      throw std::runtime_error("cufftXtExec failed");
  };
  if (s.inPlace) checkCu(cuMemcpyHtoD(din.p, inRaw.data(), inRaw.size()), "cuMemcpyHtoD");  // restore the input
  runCufft();
  checkCu(cuCtxSynchronize(), "cuFFT");
  std::vector<char> cuRaw(outElems * eb);
  checkCu(cuMemcpyDtoH(cuRaw.data(), dcu.p, cuRaw.size()), "cuMemcpyDtoH");
  std::vector<double> cu = fromDevice(cuRaw);
  for (std::size_t w = 0; w < which.size(); ++w) c.cufftMaxRelErr = std::max(c.cufftMaxRelErr, relativeError(gather(cu, s.output, which[w]), refs[w]));
  std::vector<double> ours, theirs;
  EventTimer timer;
  for (int r = 0; r < timedReps; ++r) {
    ours.push_back(timer.ms(launch));
    theirs.push_back(timer.ms(runCufft));
  }
  c.ourMs = median(ours);
  c.cufftMs = median(theirs);
  cufftDestroy(plan);
  return c;
}

}  // namespace warpforge
