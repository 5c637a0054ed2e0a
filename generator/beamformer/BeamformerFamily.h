#pragma once
#include <memory>

#include "generator/beamformer/BeamformerEmitter.h"
#include "generator/beamformer/BeamformerSpec.h"
#include "warpforge/family.h"

namespace warpforge {
const Family& beamformerFamily();
std::unique_ptr<FamilySpec> makeBeamformerSpec(BeamformerSpec spec);
LaunchPlan beamformerLaunchPlan(const BeamformerSpec& s, const BeamformerKernel& k);
}  // namespace warpforge
