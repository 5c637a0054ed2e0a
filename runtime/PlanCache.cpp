#include "warpforge/plan_cache.h"

#include "runtime/Cache.h"
#include "runtime/Nvrtc.h"
#include "warpforge/plan_json.h"

namespace warpforge {

namespace {
constexpr const char* kPlanCacheFormat = "warpforge-plan-cache-1";
}

PlanCache::PlanCache(std::string dir) : dir_(std::move(dir)) {}

std::string PlanCache::defaultDir() { return DiskCache::defaultDir() + "/plans"; }

std::string PlanCache::key(const std::string& specJson, const std::string& arch, const std::string& generatorId) {
  // Sorted members at every level: the same spec written in another member order or spacing has the same key.
  const nlohmann::json canonical = nlohmann::json::parse(specJson, nullptr, false);
  return cacheKey(
      {kPlanCacheFormat, canonical.is_discarded() ? specJson : canonical.dump(), arch, nvrtcVersion(), generatorId});
}

std::optional<LaunchPlan> PlanCache::get(const std::string& key) const {
  DiskCache disk(dir_, ".plan");
  auto bytes = disk.get(key);
  if (!bytes) return std::nullopt;
  try {
    const Json j = Json::parse(bytes->begin(), bytes->end());
    return planFromJson(j, disk.pathOf(key), dir_);
  } catch (const std::exception&) {  // checksummed, so only a plan format this build cannot read: make it again
    disk.remove(key);
    return std::nullopt;
  }
}

bool PlanCache::put(const std::string& key, const LaunchPlan& plan) const {
  const std::string text = planToJson(plan, {kPlanFormat, "", ""}).dump();
  return DiskCache(dir_, ".plan").put(key, std::vector<char>(text.begin(), text.end()));
}

}  // namespace warpforge
