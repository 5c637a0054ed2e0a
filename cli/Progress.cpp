#include "cli/Progress.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace warpforge::cli {

Progress::Progress(std::string what, bool forced) : what_(std::move(what)), start_(std::chrono::steady_clock::now()) {
  terminal_ = ::isatty(STDERR_FILENO) == 1;
  enabled_ = terminal_ || forced;
  if (enabled_) thread_ = std::thread([this] { tick(); });
}

Progress::~Progress() {
  if (!enabled_) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
  if (printed_) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    // On a terminal the line is replaced by its final state; in a log the last line says it finished.
    fmt::print(stderr, "{}{}: done in {:.1f} s{}\n", terminal_ ? "\r\033[K" : "", what_, s,
               compiles_ ? fmt::format(" ({} NVRTC compile{})", compiles_.load(), compiles_ == 1 ? "" : "s") : "");
  }
}

std::string Progress::line(double seconds) const {
  const int n = compiles_;
  return fmt::format("{}: {:.0f} s{}", what_, seconds,
                     n ? fmt::format(", {} NVRTC compile{} so far", n, n == 1 ? "" : "s") : "");
}

void Progress::tick() {
  using namespace std::chrono;
  std::unique_lock<std::mutex> lock(mutex_);
  if (wake_.wait_for(lock, seconds(1), [this] { return stop_; })) return;  // done within the first second: say nothing
  const auto every = terminal_ ? milliseconds(250) : seconds(5);
  do {
    const double s = duration<double>(steady_clock::now() - start_).count();
    if (terminal_) fmt::print(stderr, "\r\033[K{}", line(s));
    else fmt::print(stderr, "{}\n", line(s));
    std::fflush(stderr);
    printed_ = true;
  } while (!wake_.wait_for(lock, every, [this] { return stop_; }));
}

CompileProbe* Progress::counting(CompileProbe* inner) {
  probe_.progress = this;
  probe_.inner = inner;
  return &probe_;
}

CompileReport Progress::Probe::compile(const std::string& source, const std::string& name, const std::string& arch) {
  CompileReport r = inner->compile(source, name, arch);
  progress->compiled();
  return r;
}

}  // namespace warpforge::cli
