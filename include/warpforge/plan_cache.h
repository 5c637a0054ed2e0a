#pragma once
// Plans kept on disk, so that a restarted process gets its plan in milliseconds instead of re-running the
// generator and its NVRTC spill probe (seconds for long FFTs), and always the plan a cold start made: an entry
// is keyed by the spec's canonical JSON, the target arch, the NVRTC version (the probe's compiler) and the
// generator's identity (a hash of its sources), and holds exactly what the cold start emitted.
//
// Entries are plan JSON (plan_json.h) with tables and CUBINs inline, stored as the kernel cache stores CUBINs
// (runtime/Cache): in <cache dir>/plans, a directory of ours that nobody else can write, written by atomic
// rename, checksummed; a damaged entry is dropped and made again.
//
//   warpforge::PlanCache cache;
//   warpforge::CachedPlan p = warpforge::emitCached(specJson, "my_spec.json", "sm_90", cache);   // cached_emit.h
#include <optional>
#include <string>

#include "warpforge/launch_plan.h"

namespace warpforge {

class PlanCache {
 public:
  // `dir`: default <kernel cache directory>/plans ($WARPFORGE_CACHE_DIR, $XDG_CACHE_HOME/warpforge,
  // ~/.cache/warpforge).
  explicit PlanCache(std::string dir = defaultDir());
  static std::string defaultDir();
  const std::string& dir() const { return dir_; }

  // The key of a spec (its JSON text, canonicalised here) for `arch`, made by the generator `generatorId`
  // (warpforge::generatorId()); the NVRTC version is added here.
  static std::string key(const std::string& specJson, const std::string& arch, const std::string& generatorId);
  // The stored plan, or nullopt (a miss, or a damaged entry, which is removed).
  std::optional<LaunchPlan> get(const std::string& key) const;
  // false where the directory refused (not ours, read-only): the caller only loses the fast restart.
  bool put(const std::string& key, const LaunchPlan& plan) const;

 private:
  std::string dir_;
};

}  // namespace warpforge
