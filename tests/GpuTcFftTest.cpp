// GPU tests of synthesized tc_fft kernels: every covered size (n_out 16 .. 4096, n_in = n_out / 1, 2, 4, 8) and sign,
// from the transform alone, run through the family interface and the generic runner against FFTW in double: fresh
// random inputs (seed printed), outputs poisoned before the run and every one checked written, the gap after each
// output (padded distances) checked untouched, guard zones before and after the output allocation (poisoned with
// another pattern) checked untouched, odd batches that leave a warp's last group partial, the f16 bound of the design.
// Skipped without a device.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "bench/RunCheck.h"
#include "generator/tc_fft/Synthesizer.h"
#include "generator/tc_fft/TcFftFamily.h"
#include "generator/tc_fft/TcFftParser.h"
#include "warpforge/compiler.h"
#include "warpforge/device.h"
#include "warpforge/executor.h"

using namespace warpforge;

namespace {

std::string sizeSpec(int nIn, int nOut, int sign, const std::string& extra = "") {
  return fmt::format(
      R"({{"name": "gpu_{}_{}", "family": "tc_fft", "precision": "f16", {}"transform": {{"n_in": {}, "n_out": {}, "sign": {}}}}})",
      nIn, nOut, extra, nIn, nOut, sign);
}

void expectGood(const RunReport& r, const std::string& label) {
  const Check& c = r.check;
  std::printf(
      "[gpu-tc_fft] %s: batch=%lld seed=%llu checked=%lld unwritten=%lld max_rel_err=%.3e (bound %.1e) kernel=%.4f "
      "ms\n",
      label.c_str(), r.batch, static_cast<unsigned long long>(r.seed), c.checked, c.unwritten, c.error, c.bound,
      r.ourMs);
  EXPECT_EQ(c.unwritten, 0) << label << ": " << c.detail;
  EXPECT_LE(c.error, c.bound) << label << ": " << c.detail;
  EXPECT_TRUE(c.ok()) << label << ": " << c.detail;
  EXPECT_GT(c.checked, 0) << label;
}

// Bytes of guard before and after each output allocation: more than a warp's group of the largest FFT (16 KiB), so a
// kernel writing one FFT too many, or one before the first, lands in a guard.
constexpr std::size_t kGuardBytes = 256 * 1024;
constexpr unsigned char kGuardByte = 0xa5;  // not the outputs' 0xff poison: a write of the poison is seen too

struct GuardedRun {
  RunReport report;
  long long guardBytesChanged = 0;
  std::string firstChanged;  // "output: 12 bytes after the end" where one changed
};

// The spec run as runSpec does (the family's random inputs, outputs poisoned with 0xff, the family's check), with every
// output allocated inside a larger buffer whose guard zones before and after it are checked unchanged.
GuardedRun runGuarded(Compiler& compiler, const FamilySpec& spec, long long batch, std::uint64_t seed,
                      const ParamValues& params = {}) {
  useDefaultDevice();
  NvrtcProbe probe;
  CUdevice dev = 0;
  checkCu(cuCtxGetDevice(&dev), "cuCtxGetDevice");
  Generated g = spec.emit({deviceInfo(dev).arch, &probe});
  Executor exec(compiler, g.plan);
  TestData data = spec.randomInputs(batch, seed);
  ArrayBindings bindings;
  std::vector<std::unique_ptr<DeviceBuffer>> buffers;
  std::map<std::string, std::pair<CUdeviceptr, std::size_t>>
      outputs;  // output -> (guarded buffer, bytes of the output)
  for (const auto& b : g.plan.buffers) {
    if (!b.isUser()) continue;
    if (!b.aliasOf.empty()) throw std::logic_error("runGuarded: aliased arrays are not supported");
    const std::size_t bytes = static_cast<std::size_t>(exec.arrayBytes(b.name, batch, params));
    if (b.role == BufferRole::Input) {
      if (data.arrays.at(b.name).size() < bytes)
        throw std::logic_error("runGuarded: the family's input is smaller than the plan reads");
      buffers.push_back(std::make_unique<DeviceBuffer>(bytes));
      checkCu(cuMemcpyHtoD(buffers.back()->p, data.arrays.at(b.name).data(), bytes), "cuMemcpyHtoD (input)");
      bindings[b.name] = buffers.back()->p;
      continue;
    }
    buffers.push_back(std::make_unique<DeviceBuffer>(bytes + 2 * kGuardBytes));
    const CUdeviceptr base = buffers.back()->p;
    checkCu(cuMemsetD8(base, kGuardByte, bytes + 2 * kGuardBytes), "cuMemsetD8 (guards)");
    checkCu(cuMemsetD8(base + kGuardBytes, 0xff, bytes), "cuMemsetD8 (poison)");
    outputs[b.name] = {base, bytes};
    bindings[b.name] = base + kGuardBytes;
  }
  exec.run(bindings, batch, nullptr, 0, -1, params);
  checkCu(cuCtxSynchronize(), "kernel execution");
  GuardedRun r;
  std::map<std::string, std::vector<unsigned char>> outs;
  for (const auto& [name, where] : outputs) {
    const auto& [base, bytes] = where;
    std::vector<unsigned char> all(bytes + 2 * kGuardBytes);
    checkCu(cuMemcpyDtoH(all.data(), base, all.size()), "cuMemcpyDtoH (output and guards)");
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (i >= kGuardBytes && i < kGuardBytes + bytes) continue;
      if (all[i] == kGuardByte) continue;
      if (r.guardBytesChanged++ == 0)
        r.firstChanged = i < kGuardBytes ? fmt::format("{}: {} bytes before the start", name, kGuardBytes - i)
                                         : fmt::format("{}: {} bytes after the end", name, i - kGuardBytes - bytes);
    }
    outs[name] = std::vector<unsigned char>(all.begin() + kGuardBytes, all.begin() + kGuardBytes + bytes);
  }
  r.report.batch = batch;
  r.report.seed = seed;
  r.report.check = spec.check(data, outs, batch);
  return r;
}

void expectGuarded(const GuardedRun& r, const std::string& label) {
  expectGood(r.report, label);
  EXPECT_EQ(r.guardBytesChanged, 0) << label
                                    << ": bytes outside the output allocation written (first: " << r.firstChanged
                                    << ")";
}

}  // namespace

class GpuTcFft : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!deviceAvailable()) GTEST_SKIP() << "no CUDA device: " << deviceUnavailableReason();
  }
};

// WF_TCFFT_LOG2=a-b narrows the sizes to n_out = 2^a .. 2^b (the whole list takes more than one 10-minute device call
// on a cold machine); the seeds stay those of the whole list.
TEST_F(GpuTcFft, EveryCoveredSizeAndSignMatchesFftw) {
  Compiler compiler;
  std::uint64_t seed = 37000;
  int first = kMinSynthesisLog2, last = kMaxSynthesisLog2;
  if (const char* r = std::getenv("WF_TCFFT_LOG2")) {
    int a = 0, b = 0;
    ASSERT_TRUE(std::sscanf(r, "%d-%d", &a, &b) == 2 && a >= first && b >= a && b <= last)
        << "WF_TCFFT_LOG2=" << r << ": expected a-b within " << first << ".." << last;
    first = a, last = b;
    std::printf("[gpu-tc_fft] WF_TCFFT_LOG2=%s: n_out 2^%d..2^%d\n", r, first, last);
  }
  for (int L = kMinSynthesisLog2; L <= kMaxSynthesisLog2; ++L)
    for (int j = 0; j <= kMaxPaddingLog2; ++j)
      for (int sign : {+1, -1}) {
        const int nOut = 1 << L, nIn = nOut >> j;
        if (L < first || L > last) {
          seed += 2;
          continue;
        }
        const std::string label = fmt::format("{} -> {} sign {:+d}", nIn, nOut, sign);
        // Dense distances, an odd batch of a few thousand FFTs.
        auto dense = tcFftFamily().parse(Json::parse(sizeSpec(nIn, nOut, sign)), "gpu.json");
        expectGuarded(runGuarded(compiler, *dense, 4097, seed++), label + " dense");
        // Padded distances (4 elements of gap after each input and output), an odd batch below one warp's group.
        auto padded = makeTcFftSpec(parseTcFftSpecText(sizeSpec(nIn, nOut, sign), "gpu.json"), {nIn + 4, nOut + 4});
        expectGuarded(runGuarded(compiler, *padded, 3, seed++), label + " padded");
      }
}

// A large odd batch against cuFFT on the zero-padded input, at the sizes the benchmark table leads with.
TEST_F(GpuTcFft, LargeOddBatchesAndBaseline) {
  Compiler compiler;
  for (auto [nIn, nOut] : {std::pair{256, 512}, std::pair{16, 16}, std::pair{1024, 2048}}) {
    auto spec = tcFftFamily().parse(Json::parse(sizeSpec(nIn, nOut, 1)), "gpu.json");
    RunOptions o;
    o.batch = (1LL << 18) + 3;
    o.seed = 4242;
    o.baseline = true;
    RunReport r = runSpec(compiler, *spec, o);
    expectGood(r, fmt::format("{} -> {} large", nIn, nOut));
    std::printf("[gpu-tc_fft] %s: max_rel_err=%.3e\n", r.baselineName.c_str(), r.baselineError);
    EXPECT_GE(r.baselineError, 0);
  }
}

// The f32-accumulating kernels (f32-C mma.sync, complex multiplies in f32) at a few sizes and both signs: dense odd
// batches and padded distances, outputs poisoned and guarded, within the f32 variant's bound; the error beside the
// f16 kernel of the same design on the same inputs.
TEST_F(GpuTcFft, F32AccumulatorsMatchFftw) {
  Compiler compiler;
  std::uint64_t seed = 52000;
  for (auto [nIn, nOut] : {std::pair{16, 16}, std::pair{64, 512}, std::pair{256, 512}, std::pair{1024, 1024},
                           std::pair{2048, 2048}, std::pair{4096, 4096}})
    for (int sign : {+1, -1}) {
      const std::string label = fmt::format("{} -> {} sign {:+d} f32 accumulators", nIn, nOut, sign);
      const std::string f32 = sizeSpec(nIn, nOut, sign, R"("accumulate": "f32", )");
      auto dense = tcFftFamily().parse(Json::parse(f32), "gpu.json");
      const GuardedRun r32 = runGuarded(compiler, *dense, 4097, seed);
      expectGuarded(r32, label + " dense");
      auto f16 = tcFftFamily().parse(Json::parse(sizeSpec(nIn, nOut, sign)), "gpu.json");
      const GuardedRun r16 = runGuarded(compiler, *f16, 4097, seed++);
      std::printf("[gpu-tc_fft] %s: error %.3e (f16 accumulators %.3e), %.4f ms (f16 %.4f ms)\n", label.c_str(),
                  r32.report.check.error, r16.report.check.error, r32.report.ourMs, r16.report.ourMs);
      auto padded = makeTcFftSpec(parseTcFftSpecText(f32, "gpu.json"), {nIn + 4, nOut + 4});
      expectGuarded(runGuarded(compiler, *padded, 3, seed++), label + " padded");
    }
}
