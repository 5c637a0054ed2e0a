// The CUDA driver API, loaded on first use with dlopen("libcuda.so.1"), so the
// warpforge binary starts (and verifies, emits, NVRTC-compiles) on machines
// without a GPU driver. Each entry point resolves through cuGetProcAddress to
// the exact versioned symbol that cuda.h maps the name to (cuMemAlloc ->
// cuMemAlloc_v2, cuEventElapsedTime -> cuEventElapsedTime_v2, ...). Not
// cuGetProcAddress: for cuCtxSynchronize it hands out the CUDA 13 `_v2`, which
// takes a context argument.
#include <cuda.h>
#include <dlfcn.h>

#include <mutex>

namespace {

void* lookup(const char* versionedName) {
  static void* lib = nullptr;
  static std::once_flag once;
  std::call_once(once, [] { lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL); });
  return lib ? dlsym(lib, versionedName) : nullptr;
}

}  // namespace

namespace warpforge {
bool cudaDriverLoaded() { return lookup("cuInit") != nullptr; }
}  // namespace warpforge

// WF_STR(name) stringifies the name after cuda.h's macros have versioned it.
#define WF_STR2(x) #x
#define WF_STR(x) WF_STR2(x)
#define WF_DRIVER(name, params, args, missing)                 \
  extern "C" CUresult CUDAAPI name params {                    \
    using Fn = CUresult(CUDAAPI*) params;                      \
    static Fn fn = reinterpret_cast<Fn>(lookup(WF_STR(name))); \
    return fn ? fn args : (missing);                           \
  }

WF_DRIVER(cuInit, (unsigned int f), (f), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuDriverGetVersion, (int* v), (v), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuDeviceGet, (CUdevice * d, int o), (d, o), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuDeviceGetCount, (int* n), (n), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuDevicePrimaryCtxRetain, (CUcontext * c, CUdevice d), (c, d), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuDevicePrimaryCtxRelease, (CUdevice d), (d), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuCtxSetCurrent, (CUcontext c), (c), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuCtxSynchronize, (void), (), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuCtxGetCurrent, (CUcontext * c), (c), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuCtxPushCurrent, (CUcontext c), (c), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuCtxPopCurrent, (CUcontext * c), (c), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuCtxGetDevice, (CUdevice * d), (d), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuStreamSynchronize, (CUstream s), (s), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuStreamCreate, (CUstream * s, unsigned int f), (s, f), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuStreamDestroy, (CUstream s), (s), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuPointerGetAttribute, (void* v, CUpointer_attribute a, CUdeviceptr p), (v, a, p), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuDeviceGetAttribute, (int* v, CUdevice_attribute a, CUdevice d), (v, a, d), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuDeviceGetName, (char* s, int n, CUdevice d), (s, n, d), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuModuleLoadData, (CUmodule * m, const void* img), (m, img), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuModuleUnload, (CUmodule m), (m), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuModuleGetFunction, (CUfunction * f, CUmodule m, const char* n), (f, m, n), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuOccupancyMaxActiveBlocksPerMultiprocessor, (int* n, CUfunction f, int b, size_t s), (n, f, b, s),
          CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuFuncSetAttribute, (CUfunction f, CUfunction_attribute a, int v), (f, a, v), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuFuncGetAttribute, (int* v, CUfunction_attribute a, CUfunction f), (v, a, f), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuLaunchKernel,
          (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem,
           CUstream s, void** params, void** extra),
          (f, gx, gy, gz, bx, by, bz, smem, s, params, extra), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuTensorMapEncodeTiled,
          (CUtensorMap * m, CUtensorMapDataType t, cuuint32_t rank, void* base, const cuuint64_t* dims,
           const cuuint64_t* strides, const cuuint32_t* box, const cuuint32_t* steps, CUtensorMapInterleave il,
           CUtensorMapSwizzle sw, CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob),
          (m, t, rank, base, dims, strides, box, steps, il, sw, l2, oob), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuGetErrorName, (CUresult e, const char** s), (e, s), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuGetErrorString, (CUresult e, const char** s), (e, s), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuMemAlloc, (CUdeviceptr * p, size_t n), (p, n), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuMemFree, (CUdeviceptr p), (p), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuMemGetInfo, (size_t * free, size_t* total), (free, total), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuMemcpyHtoD, (CUdeviceptr d, const void* h, size_t n), (d, h, n), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuMemcpyDtoH, (void* h, CUdeviceptr d, size_t n), (h, d, n), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuMemsetD16, (CUdeviceptr d, unsigned short v, size_t n), (d, v, n), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuMemsetD8, (CUdeviceptr d, unsigned char v, size_t n), (d, v, n), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuMemsetD8Async, (CUdeviceptr d, unsigned char v, size_t n, CUstream s), (d, v, n, s), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuMemcpyDtoDAsync, (CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st), (d, s, n, st), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuEventCreate, (CUevent * e, unsigned int f), (e, f), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuEventRecord, (CUevent e, CUstream s), (e, s), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuEventSynchronize, (CUevent e), (e), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuEventElapsedTime, (float* ms, CUevent a, CUevent b), (ms, a, b), CUDA_ERROR_NO_DEVICE)
WF_DRIVER(cuEventDestroy, (CUevent e), (e), CUDA_ERROR_NO_DEVICE)
