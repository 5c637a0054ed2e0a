#pragma once
// The part of `bench --tune` every family shares: time the candidates that were built, give each trial its time or
// why it failed, report the trials in order and pick the fastest.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "generator/core/Facets.h"

namespace warpforge {

// plans[i] is trial i's plan (nullopt where building it failed; reports[i].error says why). Trial 0 is the spec as
// given: a std::runtime_error naming `specName` where it does not run. The outcome's specMembers are left to the
// caller.
TuneOutcome timeTuneTrials(TuneTimer& timer, const std::vector<std::optional<Generated>>& plans,
                           std::vector<TuneTrialReport> reports, const std::string& specName,
                           const std::function<void(const TuneTrialReport&)>& onTrial);

}  // namespace warpforge
