#pragma once
// `bench --tune` for the beamformer: the block tile (samples x beams), its warps and the number of shared-memory
// stages, timed on the device; the winner comes back as the spec's "tuning" members.
#include <functional>
#include <optional>
#include <vector>

#include "generator/beamformer/BeamformerSpec.h"
#include "generator/core/Facets.h"

namespace warpforge {

// The tilings worth timing for `s` (each a copy of s with tuning set; the spec's own first).
std::vector<BeamformerSpec> bfTuneCandidates(const BeamformerSpec& s);
std::optional<TuneOutcome> tuneBeamformer(const BeamformerSpec& s, TuneTimer& timer,
                                          const std::function<void(const TuneTrialReport&)>& onTrial);

}  // namespace warpforge
