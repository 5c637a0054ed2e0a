#include "warpforge/executor.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace warpforge {

namespace {

// A plan's tensor map over the buffer at `base` for this call's batch (uint8 elements; out-of-bounds reads give zeros).
void encodeTensorMap(CUtensorMap& out, const PlanArg& arg, CUdeviceptr base, long long batch,
                     const std::string& kernel) {
  const PlanTensorMap& m = arg.map;
  const std::size_t rank = m.dims.size();
  cuuint64_t dims[5] = {}, strides[4] = {};
  cuuint32_t box[5] = {}, steps[5] = {};
  for (std::size_t d = 0; d < rank && d < 5; ++d) {
    dims[d] = static_cast<cuuint64_t>(m.dims[d] * (static_cast<int>(d) == m.batchDim ? batch : 1));
    box[d] = static_cast<cuuint32_t>(m.box[d]);
    steps[d] = 1;
    if (d) strides[d - 1] = static_cast<cuuint64_t>(m.strides[d - 1]);
  }
  const CUtensorMapSwizzle sw = m.swizzle == 32    ? CU_TENSOR_MAP_SWIZZLE_32B
                                : m.swizzle == 64  ? CU_TENSOR_MAP_SWIZZLE_64B
                                : m.swizzle == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                                                   : CU_TENSOR_MAP_SWIZZLE_NONE;
  checkCu(cuTensorMapEncodeTiled(&out, CU_TENSOR_MAP_DATA_TYPE_UINT8, static_cast<cuuint32_t>(rank),
                                 reinterpret_cast<void*>(base), dims, strides, box, steps,
                                 CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
          fmt::format("cuTensorMapEncodeTiled ({}'s argument {} over '{}', batch {})", kernel, arg.param, arg.name,
                      batch)
              .c_str());
}

}  // namespace

Executor::Executor(Compiler& compiler, LaunchPlan plan, ExecutorOptions options)
    : compiler_(compiler), plan_(std::move(plan)) {
  plan_.check();
  if (std::string why = deviceUnavailableReason(); !why.empty())
    throw std::runtime_error(fmt::format("{}: {}", plan_.specName, why));
  CUcontext current = nullptr;
  checkCu(cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  CUdevice dev = 0;
  if (current && options.useCurrentContext) {
    ctx_ = current;
    checkCu(cuCtxGetDevice(&dev), "cuCtxGetDevice");
  } else {
    checkCu(cuDeviceGet(&dev, options.device), "cuDeviceGet");
    checkCu(cuDevicePrimaryCtxRetain(&ctx_, dev), "cuDevicePrimaryCtxRetain");
    ownsPrimary_ = true;
  }
  device_ = deviceInfo(dev);
  if (device_.computeCapability < plan_.minArch)
    throw std::runtime_error(fmt::format("{}: the plan needs sm_{} or newer; device {} is {}", plan_.specName,
                                         plan_.minArch, device_.name, device_.arch));
  if (plan_.onlyArch && device_.computeCapability != plan_.onlyArch)
    throw std::runtime_error(
        fmt::format("{}: the plan was made for sm_{}a (arch-specific instructions) and runs on that arch only; device "
                    "{} is {}: emit it for this device",
                    plan_.specName, plan_.onlyArch, device_.name, device_.arch));
  ScopedContext scope(ctx_);
  std::vector<CUmodule> bySource(plan_.sources.size(), nullptr);
  for (const auto& k : plan_.kernels) {
    CUmodule& m = bySource[k.source];
    if (!m) {
      const KernelSource& s = plan_.sources[k.source];
      const std::string target = compileTarget(s, device_.arch);
      if (auto it = s.cubins.find(target); it != s.cubins.end()) {
        checkCu(cuModuleLoadData(&m, it->second.data()), "cuModuleLoadData (the plan's CUBIN)");
      } else {
        CompiledModule c = compiler_.compile(s.text, plan_.specName, target);
        checkCu(cuModuleLoadData(&m, c.cubin.data()), "cuModuleLoadData");
      }
      modules_.push_back(m);
    }
    Loaded l;
    checkCu(cuModuleGetFunction(&l.function, m, k.name.c_str()), "cuModuleGetFunction");
    // Opt in to the dynamic size always: the 48 KiB default counts static shared memory too (a kernel with
    // 48888 dynamic bytes and a 792-byte static table fit no block without it).
    if (k.sharedBytes > 0)
      checkCu(cuFuncSetAttribute(l.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, k.sharedBytes),
              "cuFuncSetAttribute");
    KernelStats st;
    st.name = k.name;
    checkCu(cuOccupancyMaxActiveBlocksPerMultiprocessor(&st.blocksPerSm, l.function, k.blockX * k.blockY,
                                                        k.sharedBytes),
            "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    if (st.blocksPerSm < 1)
      throw std::runtime_error(
          fmt::format("{}: kernel '{}' cannot run: {} threads with {} bytes of shared memory fit no SM of {}",
                      plan_.specName, k.name, k.blockX * k.blockY, k.sharedBytes, device_.name));
    checkCu(cuFuncGetAttribute(&st.registers, CU_FUNC_ATTRIBUTE_NUM_REGS, l.function), "cuFuncGetAttribute");
    checkCu(cuFuncGetAttribute(&st.localBytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, l.function), "cuFuncGetAttribute");
    l.residentBlocks = 1LL * st.blocksPerSm * device_.smCount;
    loaded_.push_back(l);
    stats_.push_back(st);
  }
  for (const auto& b : plan_.buffers) {
    if (b.role == BufferRole::Table) {
      auto d = std::make_unique<DeviceBuffer>(b.contents.size());
      checkCu(cuMemcpyHtoD(d->p, b.contents.data(), b.contents.size()), "cuMemcpyHtoD (plan table)");
      constants_[b.name] = std::move(d);
    } else if (b.role == BufferRole::Counter) {
      const std::size_t bytes = static_cast<std::size_t>(b.fixedElems * b.elementBytes);
      auto d = std::make_unique<DeviceBuffer>(bytes);
      checkCu(cuMemsetD8(d->p, 0, bytes), "cuMemsetD8 (plan counter)");
      constants_[b.name] = std::move(d);
    }
  }
}

Executor::~Executor() {
  if (!ctx_) return;
  // Never throws: push our context if the driver still answers, free, pop.
  CUcontext current = nullptr, popped = nullptr;
  if (cuCtxGetCurrent(&current) == CUDA_SUCCESS) {
    const bool push = current != ctx_ && cuCtxPushCurrent(ctx_) == CUDA_SUCCESS;
    if (push || current == ctx_) {
      workspace_.reset();
      constants_.clear();
      for (CUmodule m : modules_) cuModuleUnload(m);
    }
    if (push) cuCtxPopCurrent(&popped);
  }
  if (ownsPrimary_) cuDevicePrimaryCtxRelease(device_.device);
}

long long Executor::paramValue(const std::string& name, const ParamValues& params) const {
  const PlanParam* p = plan_.param(name);
  auto it = params.find(name);
  return it != params.end() ? it->second : p->defaultValue;
}

long long Executor::arrayBytes(const std::string& name, long long batch, const ParamValues& params) const {
  const PlanBuffer* b = plan_.buffer(name);
  if (!b || !b->isUser())
    throw std::invalid_argument(fmt::format("{}: the plan has no array '{}'", plan_.specName, name));
  long long per = b->perBatchParam.empty() ? b->perBatchElems : paramValue(b->perBatchParam, params);
  long long elems = 0, bytes = 0;
  if (__builtin_mul_overflow(per, batch, &elems) || __builtin_add_overflow(elems, b->fixedElems, &elems) ||
      __builtin_mul_overflow(elems, static_cast<long long>(b->elementBytes), &bytes))
    throw std::invalid_argument(
        fmt::format("{}: array '{}' for batch {} would be more than 2^63 bytes", plan_.specName, name, batch));
  return bytes;
}

void Executor::run(const ArrayBindings& arrays, long long batch, CUstream stream, CUdeviceptr workspace,
                   long long workspaceSize, const ParamValues& params) {
  const std::string& spec = plan_.specName;
  if (batch < 1) throw std::invalid_argument(fmt::format("{}: batch must be >= 1 (got {})", spec, batch));
  // Kernels that run one block per unit launch whole or not at all: a grid past 2^31 - 1 blocks would skip work.
  if (const long long most = plan_.maxBatch(); batch > most)
    throw std::invalid_argument(
        fmt::format("{}: batch {} is more than the {} entries one call takes (a kernel would need more than 2^31 - 1 "
                    "blocks); split it into calls of at most {}",
                    spec, batch, most, most));
  for (const auto& [name, v] : params) {
    const PlanParam* p = plan_.param(name);
    if (!p) throw std::invalid_argument(fmt::format("{}: the plan has no parameter '{}'", spec, name));
    if (v < p->minValue || v % std::max(1LL, p->multipleOf))
      throw std::invalid_argument(fmt::format("{}: parameter {} = {} must be at least {} and a multiple of {}", spec,
                                              name, v, p->minValue, p->multipleOf));
  }
  for (const auto& [name, ptr] : arrays) {
    const PlanBuffer* b = plan_.buffer(name);
    if (!b || !b->isUser() || !b->aliasOf.empty())
      throw std::invalid_argument(fmt::format("{}: the plan has no array '{}' to bind", spec, name));
  }
  // Every user array bound and aligned; no output overlapping another array (the result would depend on the order of
  // writes).
  struct Range {
    std::string name;
    CUdeviceptr lo, hi;
    bool output;
  };
  std::vector<Range> ranges;
  std::map<std::string, CUdeviceptr> ptr;
  for (const auto& b : plan_.buffers) {
    if (!b.isUser() || !b.aliasOf.empty()) continue;
    auto it = arrays.find(b.name);
    if (it == arrays.end() || it->second == 0)
      throw std::invalid_argument(fmt::format("{}: array '{}' is not bound", spec, b.name));
    const int align = b.alignment ? b.alignment : std::min(b.elementBytes, 16);
    if (it->second % align)
      throw std::invalid_argument(
          fmt::format("{}: array '{}' must be {}-byte aligned (its kernels access it in {}-byte vectors)", spec, b.name,
                      align, align));
    if (b.maxBatch >= 0 && batch > b.maxBatch)
      throw std::invalid_argument(
          fmt::format("{}: with batch {} the entries of '{}' overlap (its layout keeps them apart up to batch {})",
                      spec, batch, b.name, b.maxBatch));
    long long bytes = arrayBytes(b.name, batch, params);
    ranges.push_back({b.name, it->second, it->second + static_cast<CUdeviceptr>(bytes), b.role == BufferRole::Output});
    ptr[b.name] = it->second;
  }
  for (std::size_t i = 0; i < ranges.size(); ++i)
    for (std::size_t j = i + 1; j < ranges.size(); ++j)
      if ((ranges[i].output || ranges[j].output) && ranges[i].lo < ranges[j].hi && ranges[j].lo < ranges[i].hi)
        throw std::invalid_argument(
            fmt::format("{}: arrays '{}' and '{}' overlap in memory for batch {} (an in-place transform is a spec "
                        "choice)",
                        spec, ranges[i].name, ranges[j].name, batch));

  ScopedContext scope(ctx_);
  const long long need = workspaceBytes(batch);
  if (need > 0 && workspace) {
    if (workspaceSize >= 0 && workspaceSize < need)
      throw std::invalid_argument(fmt::format("{}: workspace of {} bytes is smaller than the {} bytes batch {} needs",
                                              spec, workspaceSize, need, batch));
  } else if (need > 0) {
    if (!workspace_ || static_cast<long long>(workspace_->bytes) < need) {
      workspace_.reset();
      workspace_ = std::make_unique<DeviceBuffer>(static_cast<std::size_t>(need));
    }
    workspace = workspace_->p;
  }
  CUdeviceptr next = workspace;
  for (const auto& b : plan_.buffers)
    if (b.role == BufferRole::Scratch) {
      ptr[b.name] = next;
      next += static_cast<CUdeviceptr>((b.elements(batch, b.perBatchElems) * b.elementBytes + 255) / 256 * 256);
    }
  for (const auto& b : plan_.buffers) {
    if (!b.aliasOf.empty()) ptr[b.name] = ptr[b.aliasOf];
    if (auto it = constants_.find(b.name); it != constants_.end()) ptr[b.name] = it->second->p;
  }

  for (std::size_t i = 0; i < plan_.kernels.size(); ++i) {
    const PlanKernel& k = plan_.kernels[i];
    std::vector<std::uint64_t> slots(k.args.size());
    std::vector<CUtensorMap> maps(k.args.size());
    std::vector<void*> args(k.args.size());
    for (std::size_t a = 0; a < k.args.size(); ++a) {
      const PlanArg& arg = k.args[a];
      if (arg.kind == PlanArg::Kind::TensorMap) {
        encodeTensorMap(maps[a], arg, ptr.at(arg.name), batch, k.name);
        args[a] = &maps[a];
        continue;
      }
      long long v = 0;
      switch (arg.kind) {
        case PlanArg::Kind::TensorMap: break;
        case PlanArg::Kind::Buffer: v = static_cast<long long>(ptr.at(arg.name)); break;
        case PlanArg::Kind::Null: v = 0; break;
        case PlanArg::Kind::Literal: v = arg.value; break;
        case PlanArg::Kind::BatchTimes: v = batch * arg.value; break;
        case PlanArg::Kind::Param: v = paramValue(arg.name, params); break;
      }
      if (arg.cType == "int") {
        const int iv = static_cast<int>(v);
        std::memcpy(&slots[a], &iv, sizeof iv);
      } else {
        std::memcpy(&slots[a], &v, sizeof v);
      }
      args[a] = &slots[a];
    }
    const long long grid = k.grid.blocks(batch, loaded_[i].residentBlocks);
    checkCu(cuLaunchKernel(loaded_[i].function, static_cast<unsigned>(grid), 1, 1, k.blockX, k.blockY, 1, k.sharedBytes,
                           stream, args.data(), nullptr),
            "cuLaunchKernel");
  }
}

}  // namespace warpforge
