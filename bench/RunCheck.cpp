#include "bench/RunCheck.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "bench/Baseline.h"
#include "bench/Timing.h"

namespace warpforge {

void useDefaultDevice() {
  if (std::string why = deviceUnavailableReason(); !why.empty()) throw std::runtime_error(why);
  CUcontext current = nullptr;
  checkCu(cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  if (current) return;
  CUdevice dev = 0;
  checkCu(cuDeviceGet(&dev, 0), "cuDeviceGet");
  checkCu(cuDevicePrimaryCtxRetain(&current, dev), "cuDevicePrimaryCtxRetain");
  checkCu(cuCtxSetCurrent(current), "cuCtxSetCurrent");
}

DeviceArrays::DeviceArrays(const Executor& exec, const TestData& data, long long batch, const ParamValues& params)
    : exec_(exec) {
  const LaunchPlan& plan = exec.plan();
  for (const auto& b : plan.buffers) {
    if (!b.isUser() || !b.aliasOf.empty()) continue;
    const std::size_t bytes = static_cast<std::size_t>(exec.arrayBytes(b.name, batch, params));
    auto d = std::make_unique<DeviceBuffer>(bytes);
    if (b.role == BufferRole::Input) {
      auto it = data.arrays.find(b.name);
      if (it == data.arrays.end())
        throw std::logic_error(fmt::format("{}: the family's inputs have no array '{}'", plan.specName, b.name));
      if (it->second.size() < bytes)
        throw std::logic_error(fmt::format("{}: input '{}' has {} bytes, the plan reads {}", plan.specName, b.name,
                                           it->second.size(), bytes));
      checkCu(cuMemcpyHtoD(d->p, it->second.data(), bytes), "cuMemcpyHtoD (input)");
    } else {
      outputs_[b.name] = {b.name, bytes};
    }
    bindings_[b.name] = d->p;
    buffers_[b.name] = std::move(d);
  }
  for (const auto& b : plan.buffers)
    if (!b.aliasOf.empty())
      outputs_[b.name] = {b.aliasOf, static_cast<std::size_t>(exec.arrayBytes(b.name, batch, params))};
  poisonOutputs();
}

void DeviceArrays::poisonOutputs() {
  for (const auto& [name, where] : outputs_)
    if (where.first == name) checkCu(cuMemsetD8(buffers_.at(name)->p, 0xff, where.second), "cuMemsetD8 (poison)");
}

std::map<std::string, std::vector<unsigned char>> DeviceArrays::downloadOutputs() const {
  std::map<std::string, std::vector<unsigned char>> out;
  checkCu(cuCtxSynchronize(), "kernel execution");
  for (const auto& [name, where] : outputs_) {
    std::vector<unsigned char> bytes(where.second);
    checkCu(cuMemcpyDtoH(bytes.data(), buffers_.at(where.first)->p, bytes.size()), "cuMemcpyDtoH (output)");
    out[name] = std::move(bytes);
  }
  return out;
}

RunReport runGenerated(Compiler& compiler, const FamilySpec& spec, const Generated& generated, const RunOptions& o) {
  useDefaultDevice();
  Executor exec(compiler, generated.plan);
  RunReport r;
  r.device = exec.device();
  r.batch = o.batch;
  r.seed = o.seed;
  r.kernels = exec.kernelStats();
  TestData data = spec.randomInputs(o.batch, o.seed);
  DeviceArrays arrays(exec, data, o.batch, o.params);
  exec.run(arrays.bindings(), o.batch, nullptr, 0, -1, o.params);
  r.check = spec.check(data, arrays.downloadOutputs(), o.batch);
  r.bytes = static_cast<double>(generated.plan.userBytes(o.batch));

  std::unique_ptr<BaselineRun> base;
  if (o.baseline)
    if (auto req = baselineOf(spec)) {
      base = makeBaseline(*req, data, o.batch);
      if (base) {
        r.baselineError = base->error;
        r.baselineName = base->name;
      }
    }
  auto ours = [&] { exec.run(arrays.bindings(), o.batch, nullptr, 0, -1, o.params); };
  if (o.timedReps <= 1) {
    EventTimer t;
    r.ourMs = t.ms(ours);
    if (base) r.baselineMs = t.ms([&] { base->exec(); });
    return r;
  }
  // Ours, the baseline and a device-to-device copy of the same bytes (the copy ceiling), interleaved.
  const std::size_t copyBytes = static_cast<std::size_t>(r.bytes / 2);
  DeviceBuffer copySrc(copyBytes), copyDst(copyBytes);
  std::vector<std::function<void()>> jobs{ours};
  if (base) jobs.push_back([&] { base->exec(); });
  jobs.push_back([&] {
    checkCu(cuMemcpyDtoDAsync(copyDst.p, copySrc.p, copyBytes, nullptr), "cuMemcpyDtoDAsync (copy ceiling)");
  });
  std::vector<double> ms = interleavedMedians(jobs, 3, o.timedReps);
  r.ourMs = ms[0];
  if (base) r.baselineMs = ms[1];
  r.copyMs = ms.back();
  return r;
}

std::string defaultDeviceArch() {
  useDefaultDevice();
  CUdevice dev = 0;
  checkCu(cuCtxGetDevice(&dev), "cuCtxGetDevice");
  return deviceInfo(dev).arch;
}

RunReport runSpec(Compiler& compiler, const FamilySpec& spec, const RunOptions& o) {
  const std::string arch = defaultDeviceArch();
  NvrtcProbe probe;
  return runGenerated(compiler, spec, spec.emit({arch, &probe}), o);
}

}  // namespace warpforge
