#pragma once
// Runs fn(i) for i in [0, count) on up to one thread per core, each thread taking the next index as it finishes; the
// first exception any call throws is rethrown after every thread has joined.
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace warpforge {

template <class Fn>
void parallelFor(long long count, Fn&& fn) {
  if (count <= 0) return;
  const unsigned workers = static_cast<unsigned>(
      std::max<long long>(1, std::min<long long>(std::thread::hardware_concurrency(), count)));
  std::atomic<long long> next{0};
  std::exception_ptr failure;
  std::mutex failureMutex;
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w)
    pool.emplace_back([&] {
      for (long long i; (i = next++) < count;) try {
          fn(i);
        } catch (...) {
          std::lock_guard<std::mutex> lock(failureMutex);
          if (!failure) failure = std::current_exception();
        }
    });
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace warpforge
