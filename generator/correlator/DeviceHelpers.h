#pragma once
// The correlator's device helpers, as AST functions printed into each kernel
// source (NVRTC needs no header): sample clamping (-128 -> -127, -8 -> -7),
// 4-bit -> 8-bit widening, the conj_perm expansion of B, and the two MMAs.
#include <string>

#include "generator/correlator/CorrelatorSpec.h"

namespace warpforge {
// wgmmaN: also the sm_90a wgmma helpers for m64 x wgmmaN instructions (0: none).
std::string correlatorDeviceHelpers(SampleType type, int wgmmaN = 0);
}  // namespace warpforge
