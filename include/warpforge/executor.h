#pragma once
// Runs any LaunchPlan: compiles its sources for the device (NVRTC, cached),
// loads them, uploads its tables, zeroes its counters, and launches its
// kernels in order on a stream. The runtime knows no family: everything it
// does is read from the plan.
//
// Contexts: an Executor works in the CUDA context current on the constructing
// thread, or, where none is current, in the primary context of the device it is
// given. It never changes the caller's current context (it pushes and pops its
// own around each call). One Executor per device: each loads its own modules.
//
// Scratch: run() allocates the plan's workspace itself (kept for later calls)
// unless the caller hands one in, of at least workspaceBytes(batch) bytes; with a
// workspace given, run() allocates nothing and can be captured in a CUDA graph.
#include <cuda.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "warpforge/launch_plan.h"
#include "warpforge/compiler.h"
#include "warpforge/device.h"

namespace warpforge {

struct ExecutorOptions {
  int device = 0;                 // used only where no context is current on the constructing thread
  bool useCurrentContext = true;  // false: always the primary context of `device`
};

// The caller's arrays: device pointers by the plan's buffer names ("input", "output", ...).
using ArrayBindings = std::map<std::string, CUdeviceptr>;
using ParamValues = std::map<std::string, long long>;

struct KernelStats {
  std::string name;
  int registers = 0, localBytes = 0, blocksPerSm = 0;
};

class Executor {
 public:
  Executor(Compiler& compiler, LaunchPlan plan, ExecutorOptions options = {});
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // One run at a time per Executor (its counters and internal workspace are its own).
  // Throws std::invalid_argument for a missing, misaligned or overlapping array, a bad
  // parameter or a workspace that is too small.
  void run(const ArrayBindings& arrays, long long batch, CUstream stream = nullptr, CUdeviceptr workspace = 0,
           long long workspaceSize = -1, const ParamValues& params = {});
  long long workspaceBytes(long long batch) const { return plan_.scratchBytes(batch); }
  // Bytes of each user array for `batch` entries (what the caller must allocate).
  long long arrayBytes(const std::string& buffer, long long batch, const ParamValues& params = {}) const;

  const LaunchPlan& plan() const { return plan_; }
  const std::vector<KernelStats>& kernelStats() const { return stats_; }
  const DeviceInfo& device() const { return device_; }
  CUcontext context() const { return ctx_; }

 private:
  struct Loaded {
    CUfunction function = nullptr;
    long long residentBlocks = 1;
  };
  long long paramValue(const std::string& name, const ParamValues& params) const;

  Compiler& compiler_;
  LaunchPlan plan_;
  CUcontext ctx_ = nullptr;
  bool ownsPrimary_ = false;
  DeviceInfo device_;
  std::vector<CUmodule> modules_;
  std::vector<Loaded> loaded_;
  std::vector<KernelStats> stats_;
  std::map<std::string, std::unique_ptr<DeviceBuffer>> constants_;  // tables and counters
  std::unique_ptr<DeviceBuffer> workspace_;
};

}  // namespace warpforge
