#pragma once
// The beamformer's sm_90a path: one block of two warpgroups per (batch entry, channel, [pol,] 64 samples, N beams),
// each warpgroup a wgmma m64nNk16 (f16) / m64nNk32 (s8) over its 32 samples x (ReIm_out) rows and all N beams.
//   A  the samples in registers: each thread reads its two words of a k-step from the staged rows and makes
//      conj(w), swap(w) (rows ReIm_out = 0, 1) as the mma.sync path does (ci4 widened, ci8 clamped there too);
//   B  the weights as given, staged by cp.async into the 128-byte-swizzled K-major layout (one 128-byte row of
//      receivers per beam and stage) that the descriptor names; no transform between global and shared memory;
//   a ring of `stages` shared-memory buffers filled by cp.async `stages - 1` ahead of the wgmmas, one barrier per
//   stage, each stage's wgmmas retired before the next stage's A registers are loaded (see emitWgmmaMainloop); the
//   accumulators are mma.sync's C fragments repeated over N / 8 column blocks, so the epilogue is the same code.
#include <optional>
#include <string>
#include <vector>

#include "ast/Ast.h"
#include "generator/beamformer/BeamformerLayouts.h"
#include "generator/beamformer/BeamformerSpec.h"

namespace warpforge {

struct BfWgmma {
  int n = 0;                  // wgmma N = block beams
  int stages = 4;             // shared-memory ring depth
  int receiversPerStage = 0;  // one 128-byte weights row: 32 (cf16) or 64 (ci8)
  int receiversPerStep = 0;   // per wgmma: 8 (k16 f16) or 16 (k32 s8)
  int sampleBytes = 0;        // bytes of one receiver's staged sample: 4 cf16, 2 ci8, 1 ci4
  int weightBytes = 0;        // 4 cf16, 2 ci8
  int weightRegion = 0;       // n x 128 B per stage (swizzled rows)
  int sampleRowBytes = 0;     // receiversPerStage x sampleBytes
  int sampleStride = 0;       // + 16 B: a warp's fragment loads meet every bank once
  int stageBytes = 0;         // weightRegion + 64 x sampleStride (a multiple of 1024: swizzle atoms stay aligned)
  int powerBytes = 0;         // the |beam|^2 tile before the ring (power output)
  int sharedBytes = 0;        // powerBytes + 1024 (alignment slack) + stages x stageBytes
};

// Why the wgmma path cannot take this spec (operand format, strides, types, tuning), or nothing.
std::optional<std::string> bfWgmmaBlocker(const BeamformerSpec& s);
// The sm_90 emission's choice: tuning "mma" = "wgmma", or "auto" where nothing blocks it.
bool bfUsesWgmma(const BeamformerSpec& s, const std::string& arch);
BfWgmma bfWgmma(const BeamformerSpec& s);
// 8 warps of 8 samples x N beams (the epilogue's view), 256 threads, 64 samples per tile.
BfTiling bfWgmmaTiling(const BeamformerSpec& s);
// Dynamic shared memory an sm_90 block may use (227 KiB).
constexpr int kBfWgmmaMaxShared = 227 * 1024;

// Device helpers of the path (cp.async with zero fill, wgmma fences, descriptor, the wgmma itself with A in registers).
std::string bfWgmmaHelpers(const BeamformerSpec& s, int n);
// One pol's K loop: expects tid, lane, warp, t0, m0, sbase, wbase, bf_ring (the ring's 1024-aligned shared address)
// and the accumulator array d in scope.
std::vector<ast::NodePtr> emitWgmmaMainloop(const BeamformerSpec& s, const BfWgmma& w);

// The path's layouts, checked: every A register element (PTX's per-warp m16n8k16 / m16n8k32 A fragment, which is
// wgmma's A per warp) reads the sample component the B element of the same k (PTX's 128-byte-swizzled K-major
// canonical layout read through the kernel's descriptors) multiplies, for every beam and k-step; the cp.async fill
// writes each staged byte once inside the ring. Appends problems to `issues`, what was shown to `proved`.
// `mutate` (tests): 1 the weights fill without the swizzle, 2 the A fragment's second word at + 1 instead of + 4, 3
// conj / swap exchanged.
void bfWgmmaCheck(const BeamformerSpec& s, std::vector<BfIssue>& issues, std::vector<std::string>& proved,
                  int mutate = 0);

}  // namespace warpforge
