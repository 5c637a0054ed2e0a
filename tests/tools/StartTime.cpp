// How long a process takes to get a spec's plan (and, with --executor on a GPU, an Executor ready to run), through
// the plan cache or without it; prints a digest of the plan so that two starts can be compared kernel for kernel.
//   start_time SPEC [--arch sm_90] [--executor] [--no-plan-cache]
// Prints: "plan: hit|miss|uncached <seconds> s digest <16 hex> kernels <n>" and, with --executor,
// "executor: <seconds> s (<compiled> NVRTC compiles, <cached> CUBINs from the cache) on <device>".
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "warpforge/cached_emit.h"
#include "warpforge/executor.h"
#include "warpforge/plan_json.h"

namespace {
std::string digest(const std::string& text) {
  unsigned long long h = 1469598103934665603ULL;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ULL;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", h);
  return buf;
}
double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: start_time SPEC [--arch sm_90] [--executor] [--no-plan-cache]\n");
    return 2;
  }
  std::string arch, spec = argv[1];
  bool executor = false, cache = true;
  for (int i = 2; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--arch") && i + 1 < argc) arch = argv[++i];
    else if (!std::strcmp(argv[i], "--executor")) executor = true;
    else if (!std::strcmp(argv[i], "--no-plan-cache")) cache = false;
  }
  try {
    const auto t0 = std::chrono::steady_clock::now();
    if (arch.empty()) arch = warpforge::deviceAvailable() ? warpforge::deviceInfo(0).arch : "sm_90";
    warpforge::LaunchPlan plan;
    const char* how = "uncached";
    if (cache) {
      warpforge::CachedPlan c = warpforge::emitCachedFile(spec, arch);
      plan = std::move(c.plan);
      how = c.hit ? "hit" : "miss";
    } else {
      auto s = warpforge::loadSpec(spec);
      s->verify();
      warpforge::NvrtcProbe probe;
      plan = s->emit({arch, &probe}).plan;
    }
    const double planSeconds = since(t0);
    std::printf("plan: %s %.3f s digest %s kernels %zu (%s, %s)\n", how, planSeconds,
                digest(warpforge::planToJson(plan).dump()).c_str(), plan.kernels.size(), plan.specName.c_str(),
                arch.c_str());
    if (executor) {
      if (!warpforge::deviceAvailable()) {
        std::printf("executor: no GPU (%s)\n", warpforge::deviceUnavailableReason().c_str());
        return 0;
      }
      const auto t1 = std::chrono::steady_clock::now();
      warpforge::Compiler compiler;
      warpforge::Executor exec(compiler, plan);
      std::printf("executor: %.3f s on %s; process start to a ready executor: %.3f s\n", since(t1),
                  exec.device().name.c_str(), since(t0));
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
