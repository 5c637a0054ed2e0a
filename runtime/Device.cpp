#include "warpforge/device.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace warpforge {

bool cudaDriverLoaded();  // DriverShim.cpp

void checkCu(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  if (!cudaDriverLoaded())
    throw std::runtime_error(
        fmt::format("{} failed: no CUDA driver (libcuda.so.1 could not be loaded; a GPU and its driver are needed to "
                    "run kernels)",
                    what));
  const char* name = nullptr;
  const char* str = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &str);
  throw std::runtime_error(fmt::format("{} failed: {} ({})", what, name ? name : "?", str ? str : "?"));
}

std::string deviceUnavailableReason() {
  if (!cudaDriverLoaded())
    return "no CUDA driver: libcuda.so.1 could not be loaded (run, bench and the GPU tests need a GPU and its driver)";
  if (CUresult r = cuInit(0); r != CUDA_SUCCESS) {
    const char* str = nullptr;
    cuGetErrorString(r, &str);
    return fmt::format("the CUDA driver did not initialise: {}", str ? str : "unknown error");
  }
  int n = 0;
  if (cuDeviceGetCount(&n) != CUDA_SUCCESS || n == 0) return "the CUDA driver reports no CUDA device";
  return {};
}

int deviceCount() {
  if (!deviceUnavailableReason().empty()) return 0;
  int n = 0;
  return cuDeviceGetCount(&n) == CUDA_SUCCESS ? n : 0;
}

bool pointerDevice(CUdeviceptr p, int* ordinal) {
  int o = -1;
  if (!cudaDriverLoaded() || cuPointerGetAttribute(&o, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p) != CUDA_SUCCESS)
    return false;
  *ordinal = o;
  return true;
}

Stream::Stream() { checkCu(cuStreamCreate(&s_, CU_STREAM_NON_BLOCKING), "cuStreamCreate"); }
Stream::~Stream() {
  if (s_) cuStreamDestroy(s_);
}
void Stream::synchronize() const { checkCu(cuStreamSynchronize(s_), "cuStreamSynchronize"); }

DeviceInfo deviceInfo(CUdevice d) {
  checkCu(cuInit(0), "cuInit");
  DeviceInfo i;
  i.device = d;
  char name[256] = {};
  checkCu(cuDeviceGetName(name, sizeof name, d), "cuDeviceGetName");
  i.name = name;
  int major = 0, minor = 0;
  checkCu(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d), "cuDeviceGetAttribute");
  checkCu(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d), "cuDeviceGetAttribute");
  i.computeCapability = 10 * major + minor;
  i.arch = fmt::format("sm_{}{}", major, minor);
  checkCu(cuDeviceGetAttribute(&i.smCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d), "cuDeviceGetAttribute");
  checkCu(cuDeviceGetAttribute(&i.clockKHz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, d), "cuDeviceGetAttribute");
  return i;
}

ScopedContext::ScopedContext(CUcontext ctx) {
  CUcontext current = nullptr;
  checkCu(cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  if (current != ctx) {
    checkCu(cuCtxPushCurrent(ctx), "cuCtxPushCurrent");
    pushed_ = true;
  }
}

ScopedContext::~ScopedContext() {
  CUcontext popped = nullptr;
  if (pushed_) cuCtxPopCurrent(&popped);
}

DeviceBuffer::DeviceBuffer(std::size_t n) : bytes(n) {
  checkCu(cuMemAlloc(&p, std::max<std::size_t>(n, 16)), "cuMemAlloc");
}

DeviceBuffer::~DeviceBuffer() {
  if (p) cuMemFree(p);
}

}  // namespace warpforge
