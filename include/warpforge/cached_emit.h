#pragma once
// A spec's plan through the on-disk plan cache (plan_cache.h): the generator and its NVRTC spill probe run once
// per spec, arch, NVRTC version and generator build; every later process loads the same plan in milliseconds.
// Needs warpforge::generator and warpforge::runtime.
#include <chrono>
#include <string>

#include "warpforge/compiler.h"
#include "warpforge/family.h"
#include "warpforge/plan_cache.h"

namespace warpforge {

struct CachedPlan {
  LaunchPlan plan;
  bool hit = false;    // loaded from the cache (no parse, verify, emit or probe ran)
  double seconds = 0;  // what getting it took
  std::string key;
};

// The plan of `spec` (a spec's JSON; `file` names it in errors) for `arch`. On a miss the spec is parsed,
// verified (SpecError / InconsistentSpec as loadSpec and verify throw them), emitted with the NVRTC probe and stored.
inline CachedPlan emitCached(const Json& spec, const std::string& file, const std::string& arch,
                             const PlanCache& cache = PlanCache()) {
  const auto t0 = std::chrono::steady_clock::now();
  CachedPlan out;
  out.key = PlanCache::key(spec.dump(), arch, generatorId());
  if (auto p = cache.get(out.key)) {
    out.plan = std::move(*p);
    out.hit = true;
  } else {
    auto parsed = parseSpec(spec, file);
    parsed->verify();
    NvrtcProbe probe;
    out.plan = parsed->emit({arch, &probe}).plan;
    cache.put(out.key, out.plan);  // best effort: a read-only cache only costs the next start its probe
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

// The same for a spec file.
inline CachedPlan emitCachedFile(const std::string& file, const std::string& arch,
                                 const PlanCache& cache = PlanCache()) {
  return emitCached(parseJsonText(readSpecFileText(file), file), file, arch, cache);
}

}  // namespace warpforge
