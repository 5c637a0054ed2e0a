#pragma once
// The beamformer kernel, built as an AST and printed:
//   <name>_beamform   one block per (batch entry, channel, [pol,] samples range, 64-beam tile), 2 x 2 warps
//                     of 32 samples x 32 beams; per stage of 32 words per row (64 receivers 8-bit, 32 f16):
//                     samples and weights staged in shared memory (ci4 widened to 8 bits, planar merged,
//                     ci8 samples clamped, tails zero-filled), then mma.sync with A = conj / swap of the
//                     samples made in registers and B = the weights; epilogue: complex beams (f32, f16,
//                     shifted and saturated integers) or |beam|^2 summed over pols and windows (power).
#include <cstdint>
#include <string>

#include "generator/beamformer/BeamformerHelpers.h"
#include "generator/beamformer/BeamformerLayouts.h"
#include "generator/beamformer/BeamformerSpec.h"
#include "warpforge/family.h"

namespace warpforge {

struct BeamformerKernel {
  std::string name, source;
  BfTiling tiling;
  int sharedBytes = 0;
  bool vectorSamples = false, vectorWeights = false;  // two receivers per load (receiver stride 1, aligned)
  bool chunkSamples = false, chunkWeights = false;    // 16 bytes per load (8 for ci4), one 16-byte shared store
  int minBlocks = 2;                                  // __launch_bounds__(threads, minBlocks)
  bool wgmma = false;  // sm_90a code (BeamformerWgmma.h): the plan runs on compute capability 9.0 only
};

// `minBlocks` 0: the spec's tuning, else 2.
BeamformerKernel emitBeamformer(const BeamformerSpec& s, int minBlocks = 0);
// The same, where the spec leaves min_blocks automatic and `target` has a compiler: 2 blocks per SM unless ptxas
// then spills for target.arch, else 1.
// On an sm_90 target the wgmma path where bfUsesWgmma() allows it.
BeamformerKernel emitBeamformer(const BeamformerSpec& s, const EmitTarget& target);
// The wgmma path (sm_90a code), whatever the target.
BeamformerKernel emitBeamformerWgmma(const BeamformerSpec& s);
BeamformerKernel emitBeamformerKernel(const BeamformerSpec& s, int minBlocks, bool wgmma);

}  // namespace warpforge
