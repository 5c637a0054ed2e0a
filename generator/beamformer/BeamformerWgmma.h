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
#include "generator/layout/Layout.h"
#include "generator/layout/Wgmma.h"

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

// The weights fill's placement of beam row n's byte `byte` inside a stage: n rowStride + ((byte / 16) ^ (n & xorMask))
// 16 + byte % 16, read off PTX's K-major layout with swizzle s whose 8-row groups are `sbo` bytes apart
// (wgmmaStoreOffset, generator/layout/Wgmma.h). The fill prints it per 16-byte chunk; bfWgmmaCheck reads it through
// the kernel's descriptors.
struct BfFillPlace {
  int rowStride = 0, xorMask = 0;
  int at(int n, int byte) const { return n * rowStride + (((byte / 16) ^ (n & xorMask)) << 4) + byte % 16; }
};
BfFillPlace bfFillPlace(WgmmaSwizzle s, unsigned sbo);

// The path's operands, which the emitter prints and bfWgmmaCheck proves:
//   a     the A registers of every thread of the block as a register layout (b: element of a staged word, t: lane,
//         r: register of a k-step, w: warp of the block), e.g. ci8 samples:
//           b0 b1 <-> ReIm_in rcv0, t0 t1 t2 t3 t4 <-> rcv1 rcv2 time0 time1 time2, r0 r1 <-> ReIm_out rcv3,
//           w0 w1 w2 <-> time3 time4 time5
//         (register r holds conj (ReIm_out 0) or swap (ReIm_out 1) of the staged word of its receivers);
//   fill  the weights fill's placement (128-byte swizzle, 8-row groups 1024 B apart).
struct BfWgmmaOperands {
  Layout a;
  BfFillPlace fill;
};
BfWgmmaOperands bfWgmmaOperands(const BeamformerSpec& s);

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

// The path's operands as a layout program: B is the weights as the descriptors read them (PTX's 128-byte-swizzled
// K-major layout, checked against where the fill puts each byte, which it writes once inside the ring); A (per warp
// PTX's m16n8k16 / m16n8k32 A fragment, which is wgmma's A per warp), that B and the accumulators (the epilogue's
// C fragment) agree through the instruction's atom (checkMmaOperands, generator/verify/MmaCheck.h); the summed bits
// are ReIm_in and one k-step's receivers, the rows ReIm_out and the warp's samples, and the warps hold the samples
// the epilogue stores. Appends problems to `issues`, what was shown to `proved`. `operands`: check these instead of
// bfWgmmaOperands(s) (tests hand in mutated ones).
void bfWgmmaCheck(const BeamformerSpec& s, std::vector<BfIssue>& issues, std::vector<std::string>& proved,
                  const BfWgmmaOperands* operands = nullptr);

}  // namespace warpforge
