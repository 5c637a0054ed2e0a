#pragma once
// Small RAII helpers shared by the GPU runs and benchmarks.
#include <cuda.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "runtime/Runtime.h"

namespace warpforge {

struct DeviceBuffer {
  CUdeviceptr p = 0;
  explicit DeviceBuffer(std::size_t bytes) { checkCu(cuMemAlloc(&p, std::max<std::size_t>(bytes, 16)), "cuMemAlloc"); }
  ~DeviceBuffer() {
    if (p) cuMemFree(p);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

// Times device work on the default stream with CUDA events, in milliseconds.
class EventTimer {
 public:
  EventTimer() {
    checkCu(cuEventCreate(&a_, CU_EVENT_DEFAULT), "cuEventCreate");
    checkCu(cuEventCreate(&b_, CU_EVENT_DEFAULT), "cuEventCreate");
  }
  ~EventTimer() {
    cuEventDestroy(a_);
    cuEventDestroy(b_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  template <class F>
  double ms(F&& f) {
    checkCu(cuEventRecord(a_, nullptr), "cuEventRecord");
    f();
    checkCu(cuEventRecord(b_, nullptr), "cuEventRecord");
    checkCu(cuEventSynchronize(b_), "cuEventSynchronize");
    float t = 0;
    checkCu(cuEventElapsedTime(&t, a_, b_), "cuEventElapsedTime");
    return t;
  }

 private:
  CUevent a_, b_;
};

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Median milliseconds of each job: `warmups` untimed rounds of all jobs, then `reps` rounds
// timing each job in turn, so that clock drift over the run falls on all of them alike.
inline std::vector<double> interleavedMedians(const std::vector<std::function<void()>>& jobs, int warmups, int reps) {
  for (int w = 0; w < warmups; ++w)
    for (const auto& job : jobs) job();
  EventTimer timer;
  std::vector<std::vector<double>> t(jobs.size());
  for (int r = 0; r < reps; ++r)
    for (std::size_t j = 0; j < jobs.size(); ++j) t[j].push_back(timer.ms(jobs[j]));
  std::vector<double> out;
  for (const auto& v : t) out.push_back(median(v));
  return out;
}

}  // namespace warpforge
