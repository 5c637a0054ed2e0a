#include "bench/Baseline.h"

#include <cufftXt.h>

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

}  // namespace

std::unique_ptr<BaselineRun> makeBaseline(const BaselineRequest& request, const TestData& data, long long batch, std::string* why) {
  if (request.kind == "fft") {
    auto run = std::make_unique<CufftRun>(request, data, batch, why);
    if (run->planned()) return run;
    return nullptr;
  }
  if (why) *why = fmt::format("no baseline of kind '{}' is known to bench/", request.kind);
  return nullptr;
}

}  // namespace warpforge
