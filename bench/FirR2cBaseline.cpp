// FirR2cBaseline: the real-input channeliser a cuFFT user writes (generator/core/Facets.h): a FIR kernel in katgpucbf's
// style (one thread per sample position, its T weights and a T-sample window in registers, looping over a run of
// spectra, f32 out), cufftExecR2C, and a post kernel (gain, delay phase, cf32 or ci8 with round half to even and
// saturation at +-127) that transposes 32 x 32 tiles through shared memory so both its loads and stores coalesce.
// The two kernels are generated here and run by the Executor like any plan.
#include "bench/FirR2cBaseline.h"

#include <cufft.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "warpforge/executor.h"

namespace warpforge {

namespace {

constexpr int kRun = 64;  // spectra per FIR thread

std::string sampleExpr(const FirR2cBaseline& f) {
  if (!f.packed && f.sampleBits == 8) return "(float)(signed char)stream[e]";
  if (!f.packed) return "(float)((const short*)stream)[e]";
  return "sample_packed(stream, e)";
}

std::string firSource(const FirR2cBaseline& f) {
  const long long S = f.spectra, L = f.length;
  const int T = static_cast<int>(f.taps);
  std::string o =
      "// baseline FIR: one thread per sample position, a window of T samples in registers, runs of spectra\n";
  if (f.packed)
    o += fmt::format(
        "static __device__ __forceinline__ float sample_packed(const unsigned char* s, long long e) {{\n"
        "  const long long bit = e * {0};\n"
        "  const unsigned char* p = s + (bit >> 3);\n"
        "  const int sh = (int)(bit & 7);\n"
        "  unsigned v = (unsigned)p[0] << 24;\n"
        "  if (sh + {0} > 8) v |= (unsigned)p[1] << 16;\n"
        "  if (sh + {0} > 16) v |= (unsigned)p[2] << 8;\n"
        "  return (float)((int)(v << sh) >> {1});\n"
        "}}\n",
        f.sampleBits, 32 - f.sampleBits);
  const long long posBlocks = (L + 255) / 256, runs = (S + kRun - 1) / kRun;
  o += fmt::format(
      "extern \"C\" __global__ void __launch_bounds__(256) baseline_fir(const unsigned char* __restrict__ input, const "
      "float* __restrict__ weights, "
      "float* __restrict__ out) {{\n"
      "  const int pos = (int)(blockIdx.x % {0}) * 256 + (int)threadIdx.x;\n"
      "  const int run = (int)(blockIdx.x / {0} % {1});\n"
      "  const long long sb = blockIdx.x / {2};\n"
      "  if (pos >= {3}) return;\n"
      "  const unsigned char* const stream = input + sb * {4}LL;\n"
      "  float* const o = out + sb * {5}LL + pos;\n"
      "  const int first = run * {6}, end = min({7}, first + {6});\n",
      posBlocks, runs, posBlocks * runs, L, f.streamBytes, S * L, kRun, S);
  for (int j = 0; j < T; ++j)
    o += fmt::format("  const float w{} = weights[{} + pos];\n  float x{} = 0.f;\n", j, j * L, j);
  for (int j = 0; j + 1 < T; ++j)
    o += fmt::format("  {{ const long long e = (long long)(first + {}) * {} + pos; x{} = {}; }}\n", j, L, j,
                     sampleExpr(f));
  o += fmt::format("  for (int base = first; base < end; base += {}) {{\n", T);
  for (int i = 0; i < T; ++i) {
    o += fmt::format(
        "    if (base + {} < end) {{\n      const long long e = (long long)(base + {}) * {} + pos;\n      x{} = {};\n  "
        "    o[(long long)(base + {}) * {}] = ",
        i, i + T - 1, L, (i + T - 1) % T, sampleExpr(f), i, L);
    for (int j = 0; j < T; ++j) o += fmt::format("{}w{} * x{}", j ? " + " : "", j, (i + j) % T);
    o += ";\n    }\n";
  }
  o += "  }\n}\n";
  return o;
}

std::string postSource(const FirR2cBaseline& f) {
  const long long Q = f.streams, S = f.spectra, L = f.length, N = L / 2;
  const long long ct = N / 32, st = (S + 31) / 32;
  const bool direct = f.channelStride == 1;
  const std::string outT = f.ci8 ? "unsigned short" : "float2";
  std::string o =
      "// baseline post: gain, delay phase, store (ci8: round half to even, saturate); 32 x 32 tiles transposed in "
      "shared memory\n";
  o += fmt::format(
      "extern \"C\" __global__ void __launch_bounds__(256) baseline_post(const float2* __restrict__ spectra, const "
      "float2* __restrict__ gains, "
      "const float2* __restrict__ delays, {0}* __restrict__ out) {{\n"
      "  __shared__ {0} tile[32][33];\n"
      "  const int kt = (int)(blockIdx.x % {1}), stile = (int)(blockIdx.x / {1} % {2});\n"
      "  const long long sb = blockIdx.x / {3};\n"
      "  const int q = (int)(sb % {4});\n"
      "  const long long b = sb / {4};\n"
      "  const int tx = (int)threadIdx.x % 32, ty = (int)threadIdx.x / 32;\n",
      outT, ct, st, ct * st, Q);
  auto dest = [&](const std::string& s, const std::string& k) {
    return fmt::format(
        "b * {}LL + (q / {}) * {}LL + (q % {}) * {}LL + (long long){} * {}LL + ({} / {}) * {}LL + ({} % {}) * {}LL",
        f.outputPerBatch, f.pols, f.receiverStride, f.pols, f.polStride, k, f.channelStride, s, f.timeBlock,
        f.blockStride, s, f.timeBlock, f.timeStride);
  };
  o += "  for (int row = ty; row < 32; row += 8) {\n";
  o += fmt::format("    const int s = stile * 32 + row, k = kt * 32 + tx;\n    if (s >= {}) continue;\n", S);
  o += fmt::format("    float2 v = spectra[(sb * {} + s) * {}LL + k];\n", S, N + 1);
  if (!f.delays.empty())
    o += fmt::format(
        "    {{ const float2 d = delays[sb * {} + s]; float sn, cs; sincospif(fmaf(-d.x, (float)k * {:.9g}f, d.y * "
        "{:.9g}f), &sn, &cs);\n"
        "      v = make_float2(v.x * cs - v.y * sn, v.x * sn + v.y * cs); }}\n",
        S, 1.0 / static_cast<double>(N), 1.0 / M_PI);
  if (!f.gains.empty())
    o += fmt::format(
        "    {{ const float2 g = gains[q * {}LL + k]; v = make_float2(v.x * g.x - v.y * g.y, v.x * g.y + v.y * g.x); "
        "}}\n",
        N);
  else if (f.gain != 1.0f) o += fmt::format("    v = make_float2(v.x * {0:.9g}f, v.y * {0:.9g}f);\n", f.gain);
  if (f.ci8) {
    o += "    const int re = (int)fminf(fmaxf(rintf(v.x), -127.f), 127.f), im = (int)fminf(fmaxf(rintf(v.y), -127.f), "
         "127.f);\n";
    o += "    const unsigned short val = (unsigned short)((re & 0xff) | (im & 0xff) << 8);\n";
  } else {
    o += "    const float2 val = v;\n";
  }
  if (direct) o += fmt::format("    out[{}] = val;\n  }}\n}}\n", dest("s", "k"));
  else {
    o += "    tile[row][tx] = val;\n  }\n  __syncthreads();\n";
    o += fmt::format(
        "  for (int row = ty; row < 32; row += 8) {{\n    const int k = kt * 32 + row, s = stile * 32 + tx;\n    if (s "
        "< {}) out[{}] = tile[tx][row];\n  }}\n}}\n",
        S, dest("s", "k"));
  }
  return o;
}

PlanBuffer userBuffer(const std::string& name, BufferRole role, const std::string& type, int bytes, long long perBatch,
                      long long fixed) {
  PlanBuffer b;
  b.name = name;
  b.role = role;
  b.elementType = type;
  b.elementBytes = bytes;
  b.perBatchElems = perBatch;
  b.fixedElems = fixed;
  b.alignment = 16;
  return b;
}

}  // namespace

FirR2cPlans firR2cBaselinePlans(const FirR2cBaseline& f) {
  const long long Q = f.streams, S = f.spectra, L = f.length, T = f.taps, N = L / 2;
  // The FIR.
  LaunchPlan fir;
  fir.specName = "baseline_fir";
  fir.family = "baseline";
  fir.sources.push_back({"baseline_fir.cu", firSource(f)});
  fir.buffers.push_back(userBuffer("input", BufferRole::Input, "unsigned char", 1, Q * f.streamBytes, 0));
  fir.buffers.push_back(userBuffer("real", BufferRole::Output, "float", 4, Q * S * L, 0));
  PlanBuffer w = userBuffer("weights", BufferRole::Table, "float", 4, 0, T * L);
  w.scalar = "float";
  w.contents.resize(f.weights.size() * 4);
  std::memcpy(w.contents.data(), f.weights.data(), w.contents.size());
  fir.buffers.push_back(w);
  PlanKernel fk;
  fk.name = "baseline_fir";
  fk.blockX = 256;
  fk.grid = GridRule{Q * ((L + 255) / 256) * ((S + kRun - 1) / kRun), 1, false};
  fk.args = {PlanArg::buffer("input", "const unsigned char*", "input"),
             PlanArg::buffer("weights", "const float*", "weights"), PlanArg::buffer("real", "float*", "out")};
  fir.kernels.push_back(fk);
  fir.check();
  // The post kernel.
  LaunchPlan post;
  post.specName = "baseline_post";
  post.family = "baseline";
  post.sources.push_back({"baseline_post.cu", postSource(f)});
  post.buffers.push_back(userBuffer("spectra", BufferRole::Input, "float2", 8, Q * S * (N + 1), 0));
  post.buffers.push_back(userBuffer("gains", BufferRole::Input, "float2", 8, 0, f.gains.empty() ? 1 : Q * N));
  post.buffers.push_back(
      userBuffer("delays", BufferRole::Input, "float2", 8, f.delays.empty() ? 0 : Q * S, f.delays.empty() ? 1 : 0));
  post.buffers.push_back(
      userBuffer("out", BufferRole::Output, f.ci8 ? "unsigned short" : "float2", f.ci8 ? 2 : 8, f.outputPerBatch, 0));
  PlanKernel pk;
  pk.name = "baseline_post";
  pk.blockX = 256;
  pk.grid = GridRule{Q * (N / 32) * ((S + 31) / 32), 1, false};
  pk.args = {PlanArg::buffer("spectra", "const float2*", "spectra"), PlanArg::buffer("gains", "const float2*", "gains"),
             PlanArg::buffer("delays", "const float2*", "delays"),
             PlanArg::buffer("out", f.ci8 ? "unsigned short*" : "float2*", "out")};
  post.kernels.push_back(pk);
  post.check();
  return {fir, post};
}

namespace {

class FirR2cRun : public BaselineRun {
 public:
  FirR2cRun(const BaselineRequest& r, const FirR2cBaseline& f, const TestData& data, long long batch, std::string* why)
      : batch_(batch) {
    const long long Q = f.streams, S = f.spectra, L = f.length, T = f.taps, N = L / 2;
    if (static_cast<long long>(f.weights.size()) != T * L || N % 32) {
      if (why) *why = "fir_r2c baseline: weights of the wrong size or L / 2 not a multiple of 32";
      return;
    }
    const auto [fir, post] = firR2cBaselinePlans(f);
    firExec_ = std::make_unique<Executor>(compiler_, fir);
    postExec_ = std::make_unique<Executor>(compiler_, post);
    auto alloc = [&](Executor& e, const std::string& name) {
      auto buf = std::make_unique<DeviceBuffer>(static_cast<std::size_t>(e.arrayBytes(name, batch)));
      const CUdeviceptr p = buf->p;
      buffers_.push_back(std::move(buf));
      return p;
    };
    firArrays_["input"] = alloc(*firExec_, "input");
    firArrays_["real"] = alloc(*firExec_, "real");
    postArrays_["spectra"] = alloc(*postExec_, "spectra");
    postArrays_["gains"] = alloc(*postExec_, "gains");
    postArrays_["delays"] = alloc(*postExec_, "delays");
    postArrays_["out"] = alloc(*postExec_, "out");
    const std::vector<unsigned char> in = r.denseInput(data, batch);
    checkCu(cuMemcpyHtoD(firArrays_["input"], in.data(),
                         std::min<std::size_t>(in.size(),
                                               static_cast<std::size_t>(firExec_->arrayBytes("input", batch)))),
            "cuMemcpyHtoD (baseline input)");
    // The data's values, repeated where the timed batch is larger than the data's (a sweep times more entries than
    // it checks): every entry the post kernel reads is a real gain or delay, not uninitialized memory.
    auto upload = [&](const std::string& array, const std::string& buffer) {
      if (array.empty()) return;
      const auto& bytes = data.arrays.at(array);
      const std::size_t size = static_cast<std::size_t>(postExec_->arrayBytes(buffer, batch));
      if (bytes.empty() || size == 0) return;
      std::vector<unsigned char> tiled(size);
      for (std::size_t i = 0; i < size; i += bytes.size())
        std::copy_n(bytes.begin(), std::min(bytes.size(), size - i), tiled.begin() + static_cast<std::ptrdiff_t>(i));
      checkCu(cuMemcpyHtoD(postArrays_[buffer], tiled.data(), size), "cuMemcpyHtoD (baseline gains / delays)");
    };
    upload(f.gains, "gains");
    upload(f.delays, "delays");
    int n = static_cast<int>(L);
    if (cufftPlanMany(&plan_, 1, &n, nullptr, 1, static_cast<int>(L), nullptr, 1, static_cast<int>(N + 1), CUFFT_R2C,
                      static_cast<int>(Q * S * batch)) != CUFFT_SUCCESS) {
      if (why) *why = "cuFFT cannot plan the R2C transform";
      return;
    }
    planned_ = true;
    name = r.description;
    exec();
    checkCu(cuCtxSynchronize(), "fir_r2c baseline");
    std::vector<unsigned char> out(static_cast<std::size_t>(postExec_->arrayBytes("out", batch)));
    checkCu(cuMemcpyDtoH(out.data(), postArrays_["out"], out.size()), "cuMemcpyDtoH (baseline output)");
    if (r.error) error = r.error(out, data, batch);
  }
  ~FirR2cRun() override {
    if (planned_) cufftDestroy(plan_);
  }
  bool planned() const { return planned_; }
  void exec() override {
    firExec_->run(firArrays_, batch_);
    if (cufftExecR2C(plan_, reinterpret_cast<cufftReal*>(firArrays_["real"]),
                     reinterpret_cast<cufftComplex*>(postArrays_["spectra"])) != CUFFT_SUCCESS)
      throw std::runtime_error("cufftExecR2C failed");
    postExec_->run(postArrays_, batch_);
  }

 private:
  long long batch_;
  Compiler compiler_;
  std::unique_ptr<Executor> firExec_, postExec_;
  std::vector<std::unique_ptr<DeviceBuffer>> buffers_;
  ArrayBindings firArrays_, postArrays_;
  cufftHandle plan_ = 0;
  bool planned_ = false;
};

}  // namespace

std::unique_ptr<BaselineRun> makeFirR2cBaseline(const BaselineRequest& request, const FirR2cBaseline& fir,
                                                const TestData& data, long long batch, std::string* why) {
  auto run = std::make_unique<FirR2cRun>(request, fir, data, batch, why);
  if (run->planned()) return run;
  return nullptr;
}

}  // namespace warpforge
