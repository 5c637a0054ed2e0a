#include "runtime/GpuRun.h"

#include <cuda.h>
#include <cufftXt.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "generator/emulate/Half.h"
#include "generator/emulate/Reference.h"
#include "runtime/DeviceUtil.h"

namespace warpforge {

namespace {

constexpr std::uint16_t kPoison = 0x7fff;  // a NaN no arithmetic produces by default (canonical NaN is 0x7fff? see check)

void checkCufft(cufftResult r, const char* what) {
  if (r != CUFFT_SUCCESS) throw std::runtime_error(fmt::format("{} failed: cufftResult {}", what, static_cast<int>(r)));
}

std::vector<std::uint16_t> randomHalfInput(long long count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<std::uint16_t> v(count);
  for (auto& x : v) x = floatToHalfBits(u(rng));
  return v;
}

}  // namespace

RunCheck runAgainstFftw(Runtime& rt, const Plan& plan, const EmitOptions& opt, long long batch, std::uint64_t seed, bool checkAll,
                        long long padIn, long long padOut) {
  const TcFftSpec& s = *plan.spec;
  EmittedKernel k = emitTcFft(plan, opt);
  LoadedKernel lk = rt.load(k);
  const long long inDist = s.nIn + padIn, outDist = s.nOut + padOut;
  RunCheck rc;
  rc.batch = batch;
  rc.seed = seed;
  auto in = randomHalfInput(2 * inDist * batch, seed);
  DeviceBuffer din(in.size() * 2), dout(2 * outDist * batch * 2);
  checkCu(cuMemcpyHtoD(din.p, in.data(), in.size() * 2), "cuMemcpyHtoD");
  // Poison the output, run, and make sure everything was written.
  checkCu(cuMemsetD16(dout.p, kPoison, 2 * outDist * batch), "cuMemsetD16");
  rt.launch(lk, din.p, dout.p, batch, inDist, outDist);
  checkCu(cuCtxSynchronize(), "kernel execution");
  std::vector<std::uint16_t> out(2 * outDist * batch);
  checkCu(cuMemcpyDtoH(out.data(), dout.p, out.size() * 2), "cuMemcpyDtoH");
  for (long long b = 0; b < batch; ++b)
    for (long long q = 0; q < 2 * s.nOut; ++q) {
      std::uint16_t h = out[2 * outDist * b + q];
      if (h == kPoison) ++rc.unwrittenValues;
      else if (!std::isfinite(halfBitsToDouble(h))) ++rc.nonFinite;
    }
  // Padding between FFTs must be left alone.
  for (long long b = 0; b < batch; ++b)
    for (long long q = 2 * s.nOut; q < 2 * outDist; ++q)
      if (out[2 * outDist * b + q] != kPoison) ++rc.unwrittenValues;  // counted as a write error
  std::vector<long long> which;
  if (checkAll || batch <= 4096) {
    for (long long b = 0; b < batch; ++b) which.push_back(b);
  } else {
    std::mt19937_64 rng(seed ^ 0x5eed);
    which = {0, batch - 1};
    for (int i = 0; i < 4096; ++i) which.push_back(static_cast<long long>(rng() % batch));
  }
  for (long long b : which) {
    std::vector<cdouble> x(s.nIn), y(s.nOut);
    for (int n = 0; n < s.nIn; ++n)
      x[n] = cdouble(halfBitsToDouble(in[2 * (inDist * b + n)]), halfBitsToDouble(in[2 * (inDist * b + n) + 1]));
    for (int q = 0; q < s.nOut; ++q)
      y[q] = cdouble(halfBitsToDouble(out[2 * (outDist * b + q)]), halfBitsToDouble(out[2 * (outDist * b + q) + 1]));
    rc.maxRelErr = std::max(rc.maxRelErr, relativeError(y, referenceDft(x, s.nOut, s.sign)));
    ++rc.checkedFfts;
  }
  EventTimer t;
  rc.kernelMs = t.ms([&] { rt.launch(lk, din.p, dout.p, batch, inDist, outDist); });
  return rc;
}

BenchReport benchmarkTcFft(Runtime& rt, const Plan& plan, long long batch, int reps) {
  const TcFftSpec& s = *plan.spec;
  BenchReport r;
  r.device = rt.deviceName();
  r.batch = batch;
  r.reps = reps;
  r.smCount = rt.smCount();
  r.clockKHz = rt.clockKHz();
  r.modelCycles = plan.total.smCycles;
  r.variants = {{"packed, staged, synchronous load (default)", EmitOptions{}},
                {"packed, staged, cp.async double buffer", EmitOptions{true, false, false, true, true, true}},
                {"unpacked, staged, cp.async double buffer", EmitOptions{false, false, false, true, true, true}},
                {"packed, staged, no cache hints, synchronous", EmitOptions{true, false, false, true, false, false}},
                {"packed phases, direct I/O", EmitOptions{true, false, false, false}},
                {"packed phases, direct I/O, prefetch", EmitOptions{true, false, true, false}}};
  std::vector<LoadedKernel> kernels;
  for (auto& v : r.variants) {
    kernels.push_back(rt.load(emitTcFft(plan, v.options)));
    v.registers = kernels.back().registers;
    v.blocksPerSm = kernels.back().blocksPerSm;
  }
  const LoadedKernel& lp = kernels[0];
  r.registers = lp.registers;
  r.blocksPerSm = lp.blocksPerSm;

  // batch x 1 KiB of input (1 GiB at 2^20) is far larger than L2: timings are of DRAM traffic.
  auto in = randomHalfInput(2LL * s.nIn * batch, 777);
  DeviceBuffer din(in.size() * 2), dout(4LL * s.nOut * batch);
  checkCu(cuMemcpyHtoD(din.p, in.data(), in.size() * 2), "cuMemcpyHtoD");
  // cuFFT on the zero-padded input (it cannot read the 256 inputs implicitly padded).
  DeviceBuffer dpad(4LL * s.nOut * batch), dcu(4LL * s.nOut * batch);
  {
    std::vector<std::uint16_t> padded(2LL * s.nOut * batch, 0);
    for (long long f = 0; f < batch; ++f)
      std::copy(in.begin() + 2LL * s.nIn * f, in.begin() + 2LL * s.nIn * (f + 1), padded.begin() + 2LL * s.nOut * f);
    checkCu(cuMemcpyHtoD(dpad.p, padded.data(), padded.size() * 2), "cuMemcpyHtoD");
  }
  cufftHandle plan16;
  checkCufft(cufftCreate(&plan16), "cufftCreate");
  long long n = s.nOut, ws = 0;
  checkCufft(cufftXtMakePlanMany(plan16, 1, &n, nullptr, 1, n, CUDA_C_16F, nullptr, 1, n, CUDA_C_16F, batch, reinterpret_cast<size_t*>(&ws),
                                 CUDA_C_16F),
             "cufftXtMakePlanMany");
  int dir = s.sign > 0 ? CUFFT_INVERSE : CUFFT_FORWARD;

  EventTimer t;
  std::vector<double> theirs, copy;
  std::vector<std::vector<double>> times(kernels.size());
  auto runOurs = [&](const LoadedKernel& k) { rt.launch(k, din.p, dout.p, batch, s.nIn, s.nOut); };
  auto runCufft = [&] { checkCufft(cufftXtExec(plan16, reinterpret_cast<void*>(dpad.p), reinterpret_cast<void*>(dcu.p), dir), "cufftXtExec"); };
  auto runCopy = [&] { checkCu(cuMemcpyDtoDAsync(dcu.p, dpad.p, 4LL * s.nOut * batch, nullptr), "cuMemcpyDtoD"); };
  for (int w = 0; w < 3; ++w) {
    for (const auto& k : kernels) runOurs(k);
    runCufft();
    runCopy();
  }
  checkCu(cuCtxSynchronize(), "warm-up");
  for (int i = 0; i < reps; ++i) {  // interleaved so drift hits all alike
    for (std::size_t v = 0; v < kernels.size(); ++v) times[v].push_back(t.ms([&] { runOurs(kernels[v]); }));
    theirs.push_back(t.ms(runCufft));
    copy.push_back(t.ms(runCopy));
  }
  cufftDestroy(plan16);
  for (std::size_t v = 0; v < kernels.size(); ++v) r.variants[v].medianMs = median(times[v]);
  r.ourMedianMs = r.variants[0].medianMs;  // the default is what users get
  r.cufftMedianMs = median(theirs);
  r.copyMedianMs = median(copy);
  r.bytesPerFft = 4.0 * (s.nIn + s.nOut);
  double ourBytes = 4.0 * (s.nIn + s.nOut) * batch, cuBytes = 4.0 * (2 * s.nOut) * batch;
  r.ourFftPerSec = batch / (r.ourMedianMs * 1e-3);
  r.cufftFftPerSec = batch / (r.cufftMedianMs * 1e-3);
  r.ourGBs = ourBytes / (r.ourMedianMs * 1e-3) / 1e9;
  r.cufftGBs = cuBytes / (r.cufftMedianMs * 1e-3) / 1e9;
  r.copyGBs = 2.0 * 4 * s.nOut * batch / (r.copyMedianMs * 1e-3) / 1e9;

  // In-register throughput: load once, repeat the steps, store once.
  EmittedKernel ir = emitTcFft(plan, {true, true, false, false});
  LoadedKernel li = rt.load(ir);
  r.inRegisterRepeats = 64;
  // One FFT per warp of a full wave of resident blocks.
  r.inRegisterBatch = static_cast<long long>(li.smCount) * li.blocksPerSm * li.launch.fftsPerBlock * 4;
  std::vector<double> irt;
  for (int w = 0; w < 2; ++w) rt.launch(li, din.p, dout.p, r.inRegisterBatch, s.nIn, s.nOut, nullptr, r.inRegisterRepeats);
  checkCu(cuCtxSynchronize(), "in-register warm-up");
  for (int i = 0; i < std::max(5, reps / 4); ++i)
    irt.push_back(t.ms([&] { rt.launch(li, din.p, dout.p, r.inRegisterBatch, s.nIn, s.nOut, nullptr, r.inRegisterRepeats); }));
  r.inRegisterMedianMs = median(irt);
  double ffts = static_cast<double>(r.inRegisterBatch) * r.inRegisterRepeats;
  r.inRegisterCyclesPerFft = r.inRegisterMedianMs * 1e-3 * r.clockKHz * 1e3 * r.smCount / ffts;
  return r;
}

std::string formatBench(const BenchReport& r, const std::string& specName) {
  std::string o;
  o += fmt::format("device: {} ({} SMs, {} MHz max clock)\nspec: {}  batch: {}  timed reps: {} (median, CUDA events)\n", r.device,
                   r.smCount, r.clockKHz / 1000, specName, r.batch, r.reps);
  o += fmt::format("kernel: {} registers/thread, {} blocks/SM resident\n\n", r.registers, r.blocksPerSm);
  o += fmt::format("{:<52} {:>10} {:>14} {:>10}\n", "", "median ms", "FFT/s", "GB/s");
  for (const auto& v : r.variants)
    o += fmt::format("{:<52} {:>10.4f} {:>14.4g} {:>10.1f}   ({} regs, {} blocks/SM)\n", "warpforge: " + v.name, v.medianMs,
                     r.batch / (v.medianMs * 1e-3), r.bytesPerFft * r.batch / (v.medianMs * 1e-3) / 1e9, v.registers, v.blocksPerSm);
  o += fmt::format("{:<52} {:>10.4f} {:>14.4g} {:>10.1f}\n", "cuFFT f16 C2C 512 (zero-padded input)", r.cufftMedianMs, r.cufftFftPerSec, r.cufftGBs);
  o += fmt::format("{:<52} {:>10.4f} {:>14} {:>10.1f}\n", "device-to-device copy (ceiling)", r.copyMedianMs, "-", r.copyGBs);
  double best = r.ourMedianMs;
  for (const auto& v : r.variants) best = std::min(best, v.medianMs);
  o += fmt::format("\nspeedup vs cuFFT: default {:.2f}x, best variant {:.2f}x   (target >= 1.25x)\n", r.cufftMedianMs / r.ourMedianMs,
                   r.cufftMedianMs / best);
  o += fmt::format("in-register: {:.1f} SM-cycles/FFT at the max clock ({} FFTs x {} repeats, {:.4f} ms); model (eq. 30): {} ; target <= 120\n",
                   r.inRegisterCyclesPerFft, r.inRegisterBatch, r.inRegisterRepeats, r.inRegisterMedianMs, r.modelCycles);
  return o;
}

}  // namespace warpforge
