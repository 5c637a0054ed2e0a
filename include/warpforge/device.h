#pragma once
// The CUDA device, through the driver API (libcuda is opened at run time, so a
// program linking the runtime starts on machines without a driver).
#include <cuda.h>

#include <string>

namespace warpforge {

// Throws std::runtime_error with the driver's error name and string (every driver failure warpforge reports).
void checkCu(CUresult r, const char* what);

// Empty when a CUDA device can be used; otherwise why not, in words
// ("no CUDA driver: libcuda.so.1 could not be loaded", "the driver reports no CUDA device", ...).
std::string deviceUnavailableReason();
inline bool deviceAvailable() { return deviceUnavailableReason().empty(); }

// CUDA devices the driver sees (0 without a driver or device).
int deviceCount();
// The ordinal of the device holding `p` (false where the driver does not know the pointer).
bool pointerDevice(CUdeviceptr p, int* ordinal);

struct DeviceInfo {
  CUdevice device = 0;
  std::string name, arch;     // arch: "sm_90"
  int computeCapability = 0;  // x10
  int smCount = 0, clockKHz = 0;
};
DeviceInfo deviceInfo(CUdevice device);

// Makes `ctx` current for its lifetime and restores the caller's current context after,
// so that no call into warpforge changes which context the caller's thread has.
class ScopedContext {
 public:
  explicit ScopedContext(CUcontext ctx);
  ~ScopedContext();
  ScopedContext(const ScopedContext&) = delete;
  ScopedContext& operator=(const ScopedContext&) = delete;

 private:
  bool pushed_ = false;
};

// A non-blocking stream of the context current at construction (one per device's executor: devices run at once).
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  CUstream get() const { return s_; }
  void synchronize() const;

 private:
  CUstream s_ = nullptr;
};

// Device memory owned by one object (in the context current at construction).
struct DeviceBuffer {
  CUdeviceptr p = 0;
  std::size_t bytes = 0;
  explicit DeviceBuffer(std::size_t n);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

}  // namespace warpforge
