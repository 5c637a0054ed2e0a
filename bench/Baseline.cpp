#include "bench/Baseline.h"

#include <cublas_v2.h>
#include <cufftXt.h>

#include <cmath>
#include <cstring>

#include <fmt/format.h>

namespace warpforge {

namespace {

class CufftRun : public BaselineRun {
 public:
  CufftRun(const BaselineRequest& r, const TestData& data, long long batch, std::string* why) : sign_(r.sign) {
    const bool f16 = r.precision == "f16", f64 = r.precision == "f64";
    const bool realIn = r.transform == "r2c", realOut = r.transform == "c2r";
    const int scalar = f16 ? 2 : f64 ? 8 : 4;
    long long nin = 1, nout = 1;
    for (std::size_t d = 0; d < r.lengths.size(); ++d) {
      const bool last = d + 1 == r.lengths.size();
      nin *= last && realOut ? r.lengths[d] / 2 + 1 : r.lengths[d];
      nout *= last && realIn ? r.lengths[d] / 2 + 1 : r.lengths[d];
    }
    std::vector<unsigned char> in = r.denseInput(data, batch);
    outBytes_ = static_cast<std::size_t>(nout * batch * (realOut ? 1 : 2) * scalar);
    in_ = std::make_unique<DeviceBuffer>(in.size());
    out_ = std::make_unique<DeviceBuffer>(outBytes_);
    checkCu(cuMemcpyHtoD(in_->p, in.data(), in.size()), "cuMemcpyHtoD (baseline input)");
    if (cufftCreate(&plan_) != CUFFT_SUCCESS) throw std::runtime_error("cufftCreate failed");
    created_ = true;
    std::vector<long long> dims(r.lengths.begin(), r.lengths.end());
    // cuFFT's logical sizes for c2r are the real lengths; its input embeds N/2+1 complex values.
    cudaDataType ct = f16 ? CUDA_C_16F : f64 ? CUDA_C_64F : CUDA_C_32F, rt = f16 ? CUDA_R_16F : f64 ? CUDA_R_64F : CUDA_R_32F;
    size_t ws = 0;
    cufftResult res = cufftXtMakePlanMany(plan_, static_cast<int>(dims.size()), dims.data(), nullptr, 1, nin, realIn ? rt : ct, nullptr, 1, nout,
                                          realOut ? rt : ct, batch, &ws, ct);
    if (res != CUFFT_SUCCESS) {
      if (why) *why = fmt::format("cuFFT cannot plan this transform (cufftResult {})", static_cast<int>(res));
      return;
    }
    planned_ = true;
    name = r.description;
    exec();
    checkCu(cuCtxSynchronize(), "cuFFT");
    std::vector<unsigned char> out(outBytes_);
    checkCu(cuMemcpyDtoH(out.data(), out_->p, outBytes_), "cuMemcpyDtoH (baseline output)");
    if (r.error) error = r.error(out, data, batch);
  }
  ~CufftRun() override {
    if (created_) cufftDestroy(plan_);  // a handle may be any value, 0 included
  }
  bool planned() const { return planned_; }
  void exec() override {
    if (cufftXtExec(plan_, reinterpret_cast<void*>(in_->p), reinterpret_cast<void*>(out_->p), sign_ < 0 ? CUFFT_FORWARD : CUFFT_INVERSE) != CUFFT_SUCCESS)
      throw std::runtime_error("cufftXtExec failed");
  }

 private:
  int sign_;
  cufftHandle plan_ = 0;
  bool created_ = false, planned_ = false;
  std::size_t outBytes_ = 0;
  std::unique_ptr<DeviceBuffer> in_, out_;
};

// "herk": per batch b < lengths[0] (times the bench batch), C[b] = S[b] S[b]^H for S n x k complex
// (n = lengths[1], k = lengths[2]), the input dense [b][n][k] with k fastest. cuBLAS has no batched
// complex-int8 HERK, so it is the batched GEMM C^T = X^H X with X = S^T (k x n, column-major, the data as
// given): both triangles, twice the work HERK would do — what a user calling cuBLAS for it gets.
// "ci8": CUDA_C_8I -> CUDA_C_32F; "cf16": widened to complex f32 on the host (cuBLAS has no complex-f16 GEMM).
class BlasHerkRun : public BaselineRun {
 public:
  BlasHerkRun(const BaselineRequest& r, const TestData& data, long long batch, std::string* why) {
    if (r.lengths.size() != 3) {
      if (why) *why = "herk baseline needs lengths {batches, n, k}";
      return;
    }
    batches_ = r.lengths[0] * batch;
    n_ = r.lengths[1];
    k_ = r.lengths[2];
    std::vector<unsigned char> in = r.denseInput(data, batch);
    int8_ = r.precision == "ci8";
    if (!int8_) {  // complex f16 -> complex f32
      std::vector<unsigned char> wide(in.size() * 2);
      for (std::size_t i = 0; i < in.size() / 2; ++i) {
        std::uint16_t h;
        std::memcpy(&h, &in[2 * i], 2);
        const std::uint32_t sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
        float f;
        if (e == 0) f = std::ldexp(static_cast<float>(m), -24) * (sign ? -1.f : 1.f);
        else if (e == 31) f = m ? NAN : (sign ? -INFINITY : INFINITY);
        else {
          std::uint32_t bits = sign | ((e + 112) << 23) | (m << 13);
          std::memcpy(&f, &bits, 4);
        }
        std::memcpy(&wide[4 * i], &f, 4);
      }
      in.swap(wide);
    }
    in_ = std::make_unique<DeviceBuffer>(in.size());
    out_ = std::make_unique<DeviceBuffer>(static_cast<std::size_t>(batches_ * n_ * n_ * 8));
    checkCu(cuMemcpyHtoD(in_->p, in.data(), in.size()), "cuMemcpyHtoD (herk baseline input)");
    if (cublasCreate(&handle_) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
    created_ = true;
    name = r.description + " (cublasGemmStridedBatchedEx, both triangles)";
    exec();
    checkCu(cuCtxSynchronize(), "cuBLAS");
    ok_ = true;
  }
  ~BlasHerkRun() override {
    if (created_) cublasDestroy(handle_);
  }
  bool ok() const { return ok_; }
  void exec() override {
    const float alpha[2] = {1, 0}, beta[2] = {0, 0};
    const cudaDataType in = int8_ ? CUDA_C_8I : CUDA_C_32F;
    cublasStatus_t st = cublasGemmStridedBatchedEx(handle_, CUBLAS_OP_C, CUBLAS_OP_N, static_cast<int>(n_), static_cast<int>(n_), static_cast<int>(k_),
                                                   alpha, reinterpret_cast<const void*>(in_->p), in, static_cast<int>(k_), n_ * k_,
                                                   reinterpret_cast<const void*>(in_->p), in, static_cast<int>(k_), n_ * k_, beta,
                                                   reinterpret_cast<void*>(out_->p), CUDA_C_32F, static_cast<int>(n_), n_ * n_,
                                                   static_cast<int>(batches_), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (st != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(fmt::format("cublasGemmStridedBatchedEx failed: status {}", static_cast<int>(st)));
  }

 private:
  cublasHandle_t handle_ = nullptr;
  bool created_ = false, ok_ = false, int8_ = true;
  long long batches_ = 0, n_ = 0, k_ = 0;
  std::unique_ptr<DeviceBuffer> in_, out_;
};

}  // namespace

std::unique_ptr<BaselineRun> makeBaseline(const BaselineRequest& request, const TestData& data, long long batch, std::string* why) {
  if (request.kind == "fft") {
    auto run = std::make_unique<CufftRun>(request, data, batch, why);
    if (run->planned()) return run;
    return nullptr;
  }
  if (request.kind == "herk") {
    try {
      auto run = std::make_unique<BlasHerkRun>(request, data, batch, why);
      if (run->ok()) return run;
    } catch (const std::exception& e) {  // a baseline the library refuses is reported, not fatal
      if (why) *why = e.what();
    }
    return nullptr;
  }
  if (why) *why = fmt::format("no baseline of kind '{}' is known to bench/", request.kind);
  return nullptr;
}

}  // namespace warpforge
