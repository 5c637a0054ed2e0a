#pragma once
// The library a user would otherwise call, run on the same numbers as ours: a
// family describes it (BaselineRequest, generator/core/Facets.h) and this file runs it:
// FftBaseline: cuFFT, through cufftXtMakePlanMany so that f16/f32/f64 share one path; on dense arrays, or on the
// family's own strided / in-place arrays where the request gives cuFFT's advanced layout.
// HerkBaseline: cuBLAS batched complex GEMM S S^H, int8 or widened f16 -> complex f32.
// GemmBaseline: complex GEMMs C = A^T B: cgemm_i8 (cublasGemmStridedBatchedEx CUDA_C_8I -> CUDA_C_32F), cgemm_lt_f16
// (cuBLASLt planar complex f16, f32 compute), cgemm (cublasCgemmStridedBatched on complex f32 copies). See BlasGemmRun
// in Baseline.cpp.
// FirR2cBaseline: a FIR kernel, cufftExecR2C and a gain / phase / requantise kernel (FirR2cBaseline.cpp).
#include <memory>
#include <string>

#include "generator/core/Facets.h"
#include "warpforge/device.h"

namespace warpforge {

class BaselineRun {
 public:
  virtual ~BaselineRun() = default;
  virtual void exec() = 0;  // enqueue once on the default stream
  double error = -1;        // against the family's reference, after the first run (-1: not comparable)
  std::string name;         // what its time covers
};

// nullptr where the library has no such transform or refuses it (the reason in *why).
std::unique_ptr<BaselineRun> makeBaseline(const BaselineRequest& request, const TestData& data, long long batch,
                                          std::string* why = nullptr);

}  // namespace warpforge
