#pragma once
// Timing device work: CUDA events on a stream, medians, and interleaved rounds
// (every job timed once per round, so clock drift over a run falls on all alike).
#include <cuda.h>

#include <functional>
#include <vector>

namespace warpforge {

class EventTimer {
 public:
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  // Milliseconds of the device work `f` enqueues on the default stream.
  double ms(const std::function<void()>& f);

 private:
  CUevent a_, b_;
};

double median(std::vector<double> v);

// Median milliseconds of each job: `warmups` untimed rounds of all jobs, then `reps` rounds timing each job in turn.
std::vector<double> interleavedMedians(const std::vector<std::function<void()>>& jobs, int warmups, int reps);

}  // namespace warpforge
