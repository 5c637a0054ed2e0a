// Links warpforge::runtime alone (no generator, no FFTW): loads a plan file that `warpforge emit --plan-json` saved,
// NVRTC-compiles its sources (no GPU needed) and, on a GPU with a directory of inputs, runs it:
//   runtime_only --device-arch                 the arch to emit for: device 0's, else sm_90
//   runtime_only --has-gpu                     exit status 0 where a CUDA device can be used
//   runtime_only PLAN.json                     load, list, compile for sm_90 (or the device's arch)
//   runtime_only PLAN.json DIR BATCH           also run on DIR/<input>.bin, outputs (poisoned first) to
//   DIR/<output>.bin
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <warpforge/compiler.h>
#include <warpforge/device.h>
#include <warpforge/executor.h>
#include <warpforge/plan_json.h>

int main(int argc, char** argv) {
  if (argc >= 2 && !std::strcmp(argv[1], "--has-gpu")) return warpforge::deviceAvailable() ? 0 : 1;
  if (argc >= 2 && !std::strcmp(argv[1], "--device-arch")) {
    std::printf("%s\n", warpforge::deviceAvailable() ? warpforge::deviceInfo(0).arch.c_str() : "sm_90");
    return 0;
  }
  if (argc != 2 && argc != 4) {
    std::fprintf(stderr, "usage: runtime_only PLAN.json [DIR BATCH]\n");
    return 2;
  }
  try {
    warpforge::PlanJsonInfo info;
    const warpforge::LaunchPlan plan = warpforge::loadPlanJson(argv[1], &info);
    std::printf("runtime only: plan %s (%s, made for %s by %s): %zu buffer(s), %zu kernel(s)\n", plan.specName.c_str(),
                plan.family.c_str(), info.madeFor.c_str(), info.generator.c_str(), plan.buffers.size(),
                plan.kernels.size());
    const std::string arch = warpforge::deviceAvailable() ? warpforge::deviceInfo(0).arch : "sm_90";
    warpforge::Compiler compiler;
    for (const auto& s : plan.sources) {
      const auto m = compiler.compile(s.text, plan.specName, warpforge::compileTarget(s, arch));
      std::printf("  %s -> %zu bytes of %s CUBIN\n", s.fileName.c_str(), m.cubin.size(),
                  warpforge::compileTarget(s, arch).c_str());
    }
    if (argc == 2) return 0;
    if (!warpforge::deviceAvailable()) {
      std::printf("no GPU (%s): not run\n", warpforge::deviceUnavailableReason().c_str());
      return 0;
    }
    const std::string dir = argv[2];
    const long long batch = std::stoll(argv[3]);
    warpforge::Executor exec(compiler, plan);
    warpforge::ScopedContext scope(exec.context());
    std::map<std::string, std::unique_ptr<warpforge::DeviceBuffer>> buffers;
    warpforge::ArrayBindings arrays;
    for (const auto& b : plan.buffers) {
      if (!b.isUser() || !b.aliasOf.empty()) continue;
      const auto bytes = static_cast<std::size_t>(exec.arrayBytes(b.name, batch));
      auto d = std::make_unique<warpforge::DeviceBuffer>(bytes);
      if (b.role == warpforge::BufferRole::Input) {
        std::ifstream in(dir + "/" + b.name + ".bin", std::ios::binary);
        std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (data.size() < bytes) throw std::runtime_error(dir + "/" + b.name + ".bin: too short");
        warpforge::checkCu(cuMemcpyHtoD(d->p, data.data(), bytes), "upload");
      } else {
        warpforge::checkCu(cuMemsetD8(d->p, 0xff, bytes), "poison");
      }
      arrays[b.name] = d->p;
      buffers[b.name] = std::move(d);
    }
    exec.run(arrays, batch);
    warpforge::checkCu(cuCtxSynchronize(), "run");
    for (const auto& b : plan.buffers) {
      if (b.role != warpforge::BufferRole::Output) continue;
      std::vector<char> bytes(static_cast<std::size_t>(exec.arrayBytes(b.name, batch)));
      warpforge::checkCu(cuMemcpyDtoH(bytes.data(), buffers.at(b.aliasOf.empty() ? b.name : b.aliasOf)->p,
                                      bytes.size()),
                         "download");
      std::ofstream(dir + "/" + b.name + ".bin", std::ios::binary)
          .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    std::printf("ran batch %lld on %s; outputs in %s\n", batch, exec.device().name.c_str(), dir.c_str());
    return 0;
  } catch (const warpforge::PlanError& e) {
    std::fprintf(stderr, "plan error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
