#pragma once
// The beamformer kernels' device helpers (widening, conj / swap, MMAs, rounding shift and saturation, 16-byte shared
// stores, f16 conversion), the block's saturation count, and the CPU models of the helpers the tests check.
#include <cstdint>
#include <string>
#include <vector>

#include "ast/Ast.h"
#include "generator/beamformer/BeamformerLayouts.h"
#include "generator/beamformer/BeamformerSpec.h"

namespace warpforge {

// The helper functions a kernel of `s` calls, printed (f16: the cf16 path's helpers, else the integer ones).
std::string bfDeviceHelpers(const BeamformerSpec& s, bool f16);

// Integer beams: the block's count of clamped beams (per thread in nsat) -> sat_count; the last block of the grid
// to finish moves the total to saturated[0] and re-zeroes both counters (threadfence reduction, as the
// correlator's reduce kernel): a per-call count, the counters left zero for the next call.
std::vector<ast::NodePtr> bfSaturationCount(const BfTiling& t);

// The kernel's bf_widen2_hi / _lo on the CPU: two ci4 bytes (bits 0..15) -> (re0, im0, re1, im1) sign-extended bytes.
std::uint32_t bfWiden2Model(std::uint32_t x, bool realHigh);

// The kernel's bf_shc + bf_sat on the CPU (32-bit rounding shift), to test against bfShiftSaturate / bfShiftClamps.
int bfSatModel(std::int32_t acc, int shift, int maxv, unsigned& hit);

}  // namespace warpforge
