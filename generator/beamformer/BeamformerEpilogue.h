#pragma once
// The end of a beamformer tile, shared by the mma.sync and the wgmma kernels (wgmma's accumulators are mma.sync's C
// fragments repeated over N / 8 column blocks): each (re, im) register pair of C to its beam (cf32, cf16, or
// integers shifted, saturated and counted) or |beam|^2 into the shared power tile, and the power tile integrated
// over windows.
#include <vector>

#include "ast/Ast.h"
#include "generator/beamformer/BeamformerLayouts.h"
#include "generator/beamformer/BeamformerSpec.h"

namespace warpforge {

// One polarization's epilogue, from the accumulators d[] of the warp tile (t's warp_times x warp_beams).
std::vector<ast::NodePtr> bfEpilogue(const BeamformerSpec& s, const BfMma& m, const BfTiling& t, bool f16);
// Power: the windows of this tile (all of them in one tile where I < block_times) or one window over several tiles.
std::vector<ast::NodePtr> bfIntegrate(const BeamformerSpec& s, const BfTiling& t);

}  // namespace warpforge
