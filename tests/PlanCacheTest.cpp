// The plan cache: a second request for a spec's plan is a hit that returns exactly the cold start's plan; the key
// tells specs, arches and generator builds apart but not member order; a damaged entry is made again.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <functional>

#include "warpforge/cached_emit.h"
#include "warpforge/plan_json.h"

namespace warpforge {
namespace {

namespace fs = std::filesystem;

const char* kSpec =
    R"({"name": "cache_fft", "family": "stockham", "precision": "f32", "transform": "r2c", "length": 1000})";

struct TempCache {
  fs::path dir = fs::temp_directory_path() / fmt::format("wf_plancache_{}", ::getpid());
  TempCache() { fs::remove_all(dir); }
  ~TempCache() { fs::remove_all(dir); }
};

TEST(PlanCache, ASecondStartHitsAndGetsTheSamePlan) {
  TempCache t;
  PlanCache cache(t.dir.string());
  const Json spec = Json::parse(kSpec);
  const CachedPlan cold = emitCached(spec, "cache.json", "sm_90", cache);
  const CachedPlan warm = emitCached(spec, "cache.json", "sm_90", cache);
  EXPECT_FALSE(cold.hit);
  EXPECT_TRUE(warm.hit);
  EXPECT_EQ(planToJson(warm.plan), planToJson(cold.plan));
  std::printf("cold %.3f s, warm %.4f s\n", cold.seconds, warm.seconds);
  EXPECT_LT(warm.seconds, 0.5);
}

TEST(PlanCache, KeysTellSpecsArchesAndGeneratorsApart) {
  const std::string spec = kSpec;
  const std::string k = PlanCache::key(spec, "sm_90", generatorId());
  EXPECT_EQ(
      k, PlanCache::key(
             R"({"length": 1000, "transform": "r2c", "precision": "f32", "family": "stockham",   "name": "cache_fft"})",
             "sm_90", generatorId()));
  EXPECT_NE(k, PlanCache::key(spec, "sm_80", generatorId()));
  EXPECT_NE(k, PlanCache::key(spec, "sm_90", generatorId() + "x"));
  EXPECT_NE(
      k, PlanCache::key(
             R"({"name": "cache_fft", "family": "stockham", "precision": "f32", "transform": "r2c", "length": 1001})",
             "sm_90", generatorId()));
  EXPECT_NE(generatorId().find(generatorVersion()), std::string::npos);
}

TEST(PlanCache, ADamagedEntryIsMadeAgain) {
  TempCache t;
  PlanCache cache(t.dir.string());
  const Json spec = Json::parse(kSpec);
  const CachedPlan cold = emitCached(spec, "cache.json", "sm_90", cache);
  int damaged = 0;
  for (const auto& e : fs::directory_iterator(t.dir)) {
    std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(40);
    f.put('#');
    ++damaged;
  }
  EXPECT_EQ(damaged, 1);
  EXPECT_FALSE(cache.get(cold.key));
  const CachedPlan again = emitCached(spec, "cache.json", "sm_90", cache);
  EXPECT_FALSE(again.hit);
  EXPECT_EQ(planToJson(again.plan), planToJson(cold.plan));
  EXPECT_TRUE(emitCached(spec, "cache.json", "sm_90", cache).hit);
}

TEST(PlanCache, SpecErrorsAreNotCached) {
  TempCache t;
  PlanCache cache(t.dir.string());
  Json bad = Json::parse(kSpec);
  bad["length"] = 0;
  EXPECT_THROW(emitCached(bad, "bad.json", "sm_90", cache), SpecError);
  EXPECT_THROW(emitCached(bad, "bad.json", "sm_90", cache), SpecError);
}

}  // namespace
}  // namespace warpforge
