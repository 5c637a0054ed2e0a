#pragma once
// `bench --tune` for the correlator: on the sm_90 pipeline, the block form (square tiles of 64 or 128 inputs, or the
// whole triangle of a channel in one block), the stages per loader iteration and consumer wait with their operand
// ring, and who transforms the row side; beside them the register-staged wgmma and mma.sync paths. Each candidate is
// the spec with its "tuning" members set, timed on the device; the winner's members become this GPU's wisdom, so a
// shape the cost model misjudges gets the kernel that was fastest on it.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "generator/core/Facets.h"
#include "generator/correlator/CorrelatorSpec.h"

namespace warpforge {

struct CorrelatorTuneCandidate {
  CorrelatorSpec spec;  // the spec with the candidate's tuning
  Json members;         // its "tuning" members: parsed into the spec as given, they emit the same kernels
};

// The candidates worth timing for `s` on `arch` (the spec as given first, its members what the generator chose).
std::vector<CorrelatorTuneCandidate> correlatorTuneCandidates(const CorrelatorSpec& s, const std::string& arch);

std::optional<TuneOutcome> tuneCorrelator(const CorrelatorSpec& s, TuneTimer& timer,
                                          const std::function<void(const TuneTrialReport&)>& onTrial);

}  // namespace warpforge
