#pragma once
// The library a user would otherwise call, run on the same numbers as ours: a
// family describes it (BaselineRequest) and this file runs it. Known kinds:
// "fft" (cuFFT, through cufftXtMakePlanMany so that f16/f32/f64 share one path); "herk" (cuBLAS batched
// complex GEMM S S^H, int8 or widened f16 -> complex f32).
#include <memory>
#include <string>

#include "warpforge/device.h"
#include "warpforge/family.h"

namespace warpforge {

class BaselineRun {
 public:
  virtual ~BaselineRun() = default;
  virtual void exec() = 0;       // enqueue once on the default stream
  double error = -1;             // against the family's reference, after the first run (-1: not comparable)
  std::string name;              // what its time covers
};

// nullptr where the kind is unknown or the library has no such transform (the reason in *why).
std::unique_ptr<BaselineRun> makeBaseline(const BaselineRequest& request, const TestData& data, long long batch, std::string* why = nullptr);

}  // namespace warpforge
