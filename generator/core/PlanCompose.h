#pragma once
// Families compose through launch plans: a plan made by another family (found through the
// registry, never named here) is appended to ours. Its user arrays are mapped onto buffers of
// our plan, its other buffers (scratch, tables, counters) are kept under a prefix, its kernels
// and sources appended in order; each of our batch entries runs `unitsPerEntry` of its batch
// entries (its grid rules, `batch x k` arguments and scratch scale by that factor).
// Nothing here is specific to a family.
#include <map>
#include <string>

#include "warpforge/launch_plan.h"

namespace warpforge {

// Throws std::logic_error where `part` has a user array missing from `bufferMap`, a run-time
// parameter (not composable yet) or a scratch buffer sized by a parameter.
void appendPlan(LaunchPlan& into, const LaunchPlan& part, const std::map<std::string, std::string>& bufferMap,
                const std::string& prefix, long long unitsPerEntry);

}  // namespace warpforge
