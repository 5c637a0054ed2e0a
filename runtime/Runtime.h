#pragma once
// warpforge::Runtime: JIT-compiles generated kernels with NVRTC (cached in
// memory and on disk), loads them with the driver API and launches them from
// their LaunchInfo. Thread-safe. Compilation needs no GPU; loading does.
#include <cuda.h>

#include <memory>
#include <mutex>
#include <string>

#include "generator/tc_fft/TcFftEmitter.h"
#include "runtime/Cache.h"
#include "runtime/Nvrtc.h"

namespace warpforge {

// Throws with the driver's error name and string.
void checkCu(CUresult r, const char* what);

struct CompiledModule {
  std::vector<char> cubin;
  std::string log;          // NVRTC log (empty on a cache hit)
  std::string key;
  bool memoryHit = false, diskHit = false;
};

struct LoadedKernel {
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  LaunchInfo launch;
  int blocksPerSm = 0;
  int smCount = 0;
  int registers = 0;
};

class Runtime {
 public:
  explicit Runtime(std::string cacheDir = DiskCache::defaultDir());
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Compile (or fetch from cache) for `arch`; `specName` goes into errors.
  CompiledModule compile(const std::string& source, const std::string& specName, const std::string& arch);

  // GPU side. deviceAvailable() never throws.
  static bool deviceAvailable();
  std::string deviceArch();      // "sm_90" for the current device
  std::string deviceName();
  int smCount();
  int clockKHz();
  LoadedKernel load(const EmittedKernel& k);
  // input/output are device pointers to __half2; repeats only for in-register kernels.
  void launch(const LoadedKernel& k, CUdeviceptr input, CUdeviceptr output, long long batch, long long inputDistance,
              long long outputDistance, CUstream stream = nullptr, int repeats = 1, long long gridOverride = 0);
  CUcontext context();

  // Any generated kernel: compile for this device, load, look up `kernelName`;
  // sharedBytes is its dynamic shared memory (opted in above 48 KiB).
  LoadedKernel loadSource(const std::string& source, const std::string& specName, const std::string& kernelName, int blockThreads,
                          int sharedBytes);
  void launchRaw(const LoadedKernel& k, unsigned grid, unsigned blockX, unsigned blockY, void** args, CUstream stream = nullptr);

 private:
  void ensureContext();
  DiskCache disk_;
  MemoryCache memory_;
  std::mutex ctxMutex_;
  CUdevice device_ = 0;
  CUcontext ctx_ = nullptr;
  std::vector<CUmodule> modules_;
};

}  // namespace warpforge
