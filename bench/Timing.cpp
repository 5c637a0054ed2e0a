#include "bench/Timing.h"

#include <algorithm>

#include "warpforge/device.h"

namespace warpforge {

EventTimer::EventTimer() {
  checkCu(cuEventCreate(&a_, CU_EVENT_DEFAULT), "cuEventCreate");
  checkCu(cuEventCreate(&b_, CU_EVENT_DEFAULT), "cuEventCreate");
}

EventTimer::~EventTimer() {
  cuEventDestroy(a_);
  cuEventDestroy(b_);
}

double EventTimer::ms(const std::function<void()>& f) {
  checkCu(cuEventRecord(a_, nullptr), "cuEventRecord");
  f();
  checkCu(cuEventRecord(b_, nullptr), "cuEventRecord");
  checkCu(cuEventSynchronize(b_), "cuEventSynchronize");
  float t = 0;
  checkCu(cuEventElapsedTime(&t, a_, b_), "cuEventElapsedTime");
  return t;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::vector<double> interleavedMedians(const std::vector<std::function<void()>>& jobs, int warmups, int reps) {
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
