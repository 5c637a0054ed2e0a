#pragma once
// Progress of work that may take seconds (NVRTC compiles: the spill probe, `compile`, the executor's build): after
// the first second a line on stderr, rewritten in place on a terminal or printed every few seconds with --progress;
// nothing where stderr is not a terminal and --progress was not given, and nothing for work under a second.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "warpforge/family.h"

namespace warpforge::cli {

class Progress {
 public:
  // `what`: "emitting fft_4096 for sm_90"; `forced`: --progress.
  Progress(std::string what, bool forced);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void compiled() { ++compiles_; }
  // A probe that counts each compile of `inner` here.
  CompileProbe* counting(CompileProbe* inner);

 private:
  struct Probe : CompileProbe {
    CompileReport compile(const std::string& source, const std::string& name, const std::string& arch) override;
    Progress* progress = nullptr;
    CompileProbe* inner = nullptr;
  };
  void tick();
  std::string line(double seconds) const;

  std::string what_;
  bool terminal_ = false, enabled_ = false, printed_ = false;
  std::atomic<int> compiles_{0};
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
  Probe probe_;
};

}  // namespace warpforge::cli
