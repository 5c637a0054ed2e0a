#pragma once
// The reduction kernel of the katgpucbf accumulation model (see CorrelatorEmitter.h).
#include <string>

#include "generator/correlator/CorrelatorSpec.h"

namespace warpforge {
std::string emitReduce(const CorrelatorSpec& s, const std::string& name, int threads);
}  // namespace warpforge
