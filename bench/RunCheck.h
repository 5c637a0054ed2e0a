#pragma once
// Runs any family's spec on the GPU the way `warpforge run` does: the family's
// random inputs (seed printed by the caller), every output poisoned with 0xff
// bytes (NaN for floating types), the plan run by the Executor, the outputs
// checked by the family against its CPU reference; with timedReps > 1 the plan,
// the baseline library (cuFFT, ...) and a device-to-device copy of the same bytes
// (the copy ceiling) are timed interleaved.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/Facets.h"
#include "warpforge/executor.h"
#include "warpforge/family.h"

namespace warpforge {

struct RunOptions {
  long long batch = 1;
  std::uint64_t seed = 1;
  int timedReps = 1;     // > 1: medians of that many interleaved rounds after warm-up
  bool baseline = true;  // also run the family's baseline (its error, and its time when timed)
  ParamValues params;    // plan parameters (distances, ...)
};

struct RunReport {
  DeviceInfo device;
  Check check;
  long long batch = 0;
  std::uint64_t seed = 0;
  std::vector<KernelStats> kernels;
  double ourMs = 0;                            // one run, or the median of the timed runs
  double baselineMs = -1, baselineError = -1;  // -1: no baseline for this spec
  std::string baselineName;
  double copyMs = -1;  // device-to-device copy of `bytes` in total (half read, half written); timed runs only
  double bytes = 0;    // bytes of the user arrays read + written per run
};

// The primary context of device 0 made current on this thread (bench and run are the application:
// they may set a context; the Executor uses whatever is current).
void useDefaultDevice();
// Makes the default device current (useDefaultDevice) and returns its arch ("sm_90", ...).
std::string defaultDeviceArch();

// A plan's user arrays on the device for `batch` entries: inputs uploaded, outputs poisoned with 0xff bytes.
class DeviceArrays {
 public:
  DeviceArrays(const Executor& exec, const TestData& data, long long batch, const ParamValues& params = {});
  void poisonOutputs();
  const ArrayBindings& bindings() const { return bindings_; }
  std::map<std::string, std::vector<unsigned char>> downloadOutputs() const;

 private:
  const Executor& exec_;
  std::map<std::string, std::unique_ptr<DeviceBuffer>> buffers_;
  ArrayBindings bindings_;
  std::map<std::string, std::pair<std::string, std::size_t>> outputs_;  // output -> (buffer holding it, bytes)
};

RunReport runSpec(Compiler& compiler, const FamilySpec& spec, const RunOptions& options);
// The same with kernels already generated (a variant of the spec's own).
RunReport runGenerated(Compiler& compiler, const FamilySpec& spec, const Generated& generated,
                       const RunOptions& options);

}  // namespace warpforge
