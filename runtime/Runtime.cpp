#include "runtime/Runtime.h"

#include <fmt/format.h>

#include "templates/Embedded.h"

namespace warpforge {

void checkCu(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  const char* str = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &str);
  throw std::runtime_error(fmt::format("{} failed: {} ({})", what, name ? name : "?", str ? str : "?"));
}

Runtime::Runtime(std::string cacheDir) : disk_(std::move(cacheDir)) {}

Runtime::~Runtime() {
  if (ctx_) {
    cuCtxSetCurrent(ctx_);
    for (CUmodule m : modules_) cuModuleUnload(m);
    cuDevicePrimaryCtxRelease(device_);
  }
}

CompiledModule Runtime::compile(const std::string& source, const std::string& specName, const std::string& arch) {
  std::vector<std::string> parts{source, arch, nvrtcVersion()};
  for (const auto& o : nvrtcOptions(arch)) parts.push_back(o);
  for (const auto& f : embeddedTemplates()) parts.push_back(f.text);
  CompiledModule m;
  m.key = cacheKey(parts);
  if (auto hit = memory_.get(m.key)) {
    m.cubin = std::move(*hit);
    m.memoryHit = true;
    return m;
  }
  if (auto hit = disk_.get(m.key)) {
    m.cubin = std::move(*hit);
    m.diskHit = true;
    memory_.put(m.key, m.cubin);
    return m;
  }
  NvrtcResult r;
  try {
    r = nvrtcCompile(source, specName, arch);
  } catch (const CompileError& e) {
    throw CompileError(fmt::format("spec '{}': {}", specName, e.what()), e.log());
  }
  m.cubin = std::move(r.cubin);
  m.log = std::move(r.log);
  memory_.put(m.key, m.cubin);
  disk_.put(m.key, m.cubin);  // best effort: a read-only disk only costs recompiles
  return m;
}

bool Runtime::deviceAvailable() {
  if (cuInit(0) != CUDA_SUCCESS) return false;
  int n = 0;
  return cuDeviceGetCount(&n) == CUDA_SUCCESS && n > 0;
}

void Runtime::ensureContext() {
  std::lock_guard<std::mutex> lock(ctxMutex_);
  if (!ctx_) {
    checkCu(cuInit(0), "cuInit");
    checkCu(cuDeviceGet(&device_, 0), "cuDeviceGet");
    checkCu(cuDevicePrimaryCtxRetain(&ctx_, device_), "cuDevicePrimaryCtxRetain");
  }
  checkCu(cuCtxSetCurrent(ctx_), "cuCtxSetCurrent");
}

CUcontext Runtime::context() {
  ensureContext();
  return ctx_;
}

std::string Runtime::deviceArch() {
  ensureContext();
  int major = 0, minor = 0;
  checkCu(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device_), "cuDeviceGetAttribute");
  checkCu(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device_), "cuDeviceGetAttribute");
  return fmt::format("sm_{}{}", major, minor);
}

std::string Runtime::deviceName() {
  ensureContext();
  char name[256] = {};
  checkCu(cuDeviceGetName(name, sizeof name, device_), "cuDeviceGetName");
  return name;
}

int Runtime::smCount() {
  ensureContext();
  int n = 0;
  checkCu(cuDeviceGetAttribute(&n, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device_), "cuDeviceGetAttribute");
  return n;
}

int Runtime::clockKHz() {
  ensureContext();
  int n = 0;
  checkCu(cuDeviceGetAttribute(&n, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, device_), "cuDeviceGetAttribute");
  return n;
}

LoadedKernel Runtime::load(const EmittedKernel& k) {
  std::string arch = deviceArch();
  int cc = std::stoi(arch.substr(3));
  if (cc < k.launch.minArch)
    throw std::runtime_error(fmt::format("kernel '{}' needs sm_{} or newer; this device is {}", k.launch.kernelName, k.launch.minArch, arch));
  CompiledModule m = compile(k.source, k.launch.specName, arch);
  LoadedKernel lk;
  lk.launch = k.launch;
  std::lock_guard<std::mutex> lock(ctxMutex_);
  checkCu(cuModuleLoadData(&lk.module, m.cubin.data()), "cuModuleLoadData");
  modules_.push_back(lk.module);
  checkCu(cuModuleGetFunction(&lk.function, lk.module, k.launch.kernelName.c_str()), "cuModuleGetFunction");
  checkCu(cuOccupancyMaxActiveBlocksPerMultiprocessor(&lk.blocksPerSm, lk.function, k.launch.blockThreads, k.launch.dynamicSharedBytes),
          "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  checkCu(cuFuncGetAttribute(&lk.registers, CU_FUNC_ATTRIBUTE_NUM_REGS, lk.function), "cuFuncGetAttribute");
  checkCu(cuDeviceGetAttribute(&lk.smCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device_), "cuDeviceGetAttribute");
  return lk;
}

LoadedKernel Runtime::loadSource(const std::string& source, const std::string& specName, const std::string& kernelName, int blockThreads,
                                 int sharedBytes) {
  CompiledModule m = compile(source, specName, deviceArch());
  LoadedKernel lk;
  lk.launch.kernelName = kernelName;
  lk.launch.specName = specName;
  lk.launch.blockThreads = blockThreads;
  std::lock_guard<std::mutex> lock(ctxMutex_);
  checkCu(cuModuleLoadData(&lk.module, m.cubin.data()), "cuModuleLoadData");
  modules_.push_back(lk.module);
  checkCu(cuModuleGetFunction(&lk.function, lk.module, kernelName.c_str()), "cuModuleGetFunction");
  lk.launch.dynamicSharedBytes = sharedBytes;
  if (sharedBytes > 48 * 1024)  // above the default limit: opt in
    checkCu(cuFuncSetAttribute(lk.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, sharedBytes), "cuFuncSetAttribute");
  checkCu(cuOccupancyMaxActiveBlocksPerMultiprocessor(&lk.blocksPerSm, lk.function, blockThreads, sharedBytes),
          "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  checkCu(cuFuncGetAttribute(&lk.registers, CU_FUNC_ATTRIBUTE_NUM_REGS, lk.function), "cuFuncGetAttribute");
  checkCu(cuDeviceGetAttribute(&lk.smCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device_), "cuDeviceGetAttribute");
  if (lk.blocksPerSm < 1)
    throw std::runtime_error(fmt::format("kernel '{}' cannot run: {} threads with {} bytes of shared memory fit no SM", kernelName, blockThreads, sharedBytes));
  return lk;
}

void Runtime::launchRaw(const LoadedKernel& k, unsigned grid, unsigned blockX, unsigned blockY, void** args, CUstream stream) {
  checkCu(cuLaunchKernel(k.function, grid, 1, 1, blockX, blockY, 1, k.launch.dynamicSharedBytes, stream, args, nullptr), "cuLaunchKernel");
}

void Runtime::launch(const LoadedKernel& k, CUdeviceptr input, CUdeviceptr output, long long batch, long long inputDistance,
                     long long outputDistance, CUstream stream, int repeats, long long gridOverride) {
  const LaunchInfo& li = k.launch;
  if (batch < 0) throw std::invalid_argument("batch must be >= 0");
  if (batch == 0) return;
  if (inputDistance % li.inputVectorElems || outputDistance % li.outputVectorElems || input % (4 * li.inputVectorElems) ||
      output % (4 * li.outputVectorElems))
    throw std::invalid_argument(fmt::format("kernel '{}' needs input pointer/distance aligned to {} and output to {} complex elements",
                                            li.kernelName, li.inputVectorElems, li.outputVectorElems));
  if (inputDistance < li.nIn || outputDistance < li.nOut)
    throw std::invalid_argument(fmt::format("distances ({}, {}) must be at least n_in = {} and n_out = {}", inputDistance,
                                            outputDistance, li.nIn, li.nOut));
  long long grid = gridOverride > 0 ? gridOverride : li.gridFor(batch, k.smCount, k.blocksPerSm);
  void* args[] = {&input, &output, &batch, &inputDistance, &outputDistance, &repeats};
  checkCu(cuLaunchKernel(k.function, static_cast<unsigned>(grid), 1, 1, li.blockThreads, 1, 1, li.dynamicSharedBytes, stream, args, nullptr),
          "cuLaunchKernel");
}

}  // namespace warpforge
