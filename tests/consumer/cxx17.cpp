// A C++17 project includes every public header, parses and verifies a spec, emits its plan without a compiler and
// writes the plan as JSON (no GPU, no NVRTC).
#include <warpforge/cached_emit.h>
#include <warpforge/compiler.h>
#include <warpforge/device.h>
#include <warpforge/executor.h>
#include <warpforge/family.h>
#include <warpforge/json.h>
#include <warpforge/launch_plan.h>
#include <warpforge/plan_cache.h>
#include <warpforge/plan_json.h>
#include <warpforge/reference_check.h>
#include <warpforge/spec_error.h>
#include <warpforge/warpforge.h>
#include <warpforge/wisdom.h>

#include <cstdio>

static_assert(__cplusplus == 201703L, "this consumer is compiled as C++17");

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  try {
    auto spec = warpforge::loadSpec(argv[1]);
    spec->verify();
    const warpforge::LaunchPlan plan = spec->emit({"sm_90", nullptr}).plan;
    const std::string json = warpforge::planToJson(plan).dump();
    std::printf("C++17: %s (%s): %zu kernel(s), plan JSON %zu bytes, generator %s\n", spec->name().c_str(),
                spec->family().name().c_str(), plan.kernels.size(), json.size(), warpforge::generatorVersion().c_str());
    warpforge::loadSpec("/nonexistent.json");
  } catch (const warpforge::SpecError& e) {
    std::printf("SpecError as expected: %s (path '%s')\n", e.what(), e.path().c_str());
    return 0;
  }
  return 1;
}
