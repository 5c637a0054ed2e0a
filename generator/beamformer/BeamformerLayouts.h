#pragma once
// The beamformer's tensor-core operands in the register-bit notation, with its logical bits:
//   ReIm_in     component of a sample / weight along the summed index
//   ReIm_out    component of the beam a row of A (and C) produces: A is the samples doubled,
//               row ReIm_out = 0 holds conj(s) = (re, -im), row 1 swap(s) = (im, re), so that
//               sum_k A[ReIm_out][k] B[k] = Re / Im of sum_k s_k w_k with B = the weights as given
//   rcv0..      receiver inside one MMA step (summed)
//   time0..     sample (row of A and C);  beam0.. beam (column of B and C)
// bfConsistency() checks them with Layout and FragmentTable: operand bits agree with the PTX fragment
// tables, the summed bits are exactly ReIm_in + the receiver bits, the conj / swap expansion of A is a
// complex product for every value the kernel can see, and the tiling with the store predicate writes
// every output component exactly once (tails of M and N included).
#include <cstdint>
#include <string>
#include <vector>

#include "generator/beamformer/BeamformerSpec.h"
#include "generator/layout/FragmentTable.h"
#include "generator/layout/Layout.h"

namespace warpforge {

struct BfMma {
  const MmaShape* shape = nullptr;  // s8 m16n8k32 (ci4 widened, ci8) or f16 m16n8k16 (cf16)
  Layout a, b, c;
  int receiversPerStep = 16;  // receivers summed by one MMA
  int receiversPerWord = 2;   // per 32-bit word of staged data
  int pairRegA = 1,
      pairRegB = 0;  // the register bit of A / B that holds the top word bit (word pairs load as one uint2)
};
BfMma bfMma(BfType type);

// Block geometry: warpsT x warpsM warps of warpTimes x warpBeams; 32 staged words per row per stage, in `stages`
// shared-memory buffers (2: double-buffered, the next stage's global loads in flight during this stage's MMAs).
struct BfTiling {
  int times = 64, beams = 64;  // block tile
  int warpTimes = 32, warpBeams = 32;
  int warpsT = 2, warpsM = 2;
  int threads = 128;
  int stages = 2;
  int wordsPerStage = 32;  // per row (receivers per stage = 32 x receiversPerWord)
  int rowStride = 40;      // padded (8 mod 16 words: conflict-free 8-byte fragment loads)
  // Samples expanded at staging (tuning "expand": "staged", default): each staged word w becomes conj(w), swap(w) side
  // by side (a thread's A fragment is one 16-byte load, no conj / swap per MMA step); rows of 64 + 16 words (16 mod 32:
  // 16-byte fragment loads conflict-free). "registers": the words as loaded, rows of rowStride, conj / swap per step.
  bool expandStaged = true;
  int sampleStride = 80;
  long long range = 64;  // samples per block (power: whole integration windows; beams: = times)
  long long ranges = 1;  // blocks along time
  long long beamTiles = 1;
  int tilesPerRange = 1;    // time tiles a block loops over
  int windowsPerRange = 1;  // power: windows per block
  long long blocksPerBatch = 1;
  bool wgmma = false;  // the sm_90a path (BeamformerWgmma.h): 8 warps of 8 samples x beams, a cp.async ring
  int receiversPerStage(const BfMma& m) const { return wordsPerStage * m.receiversPerWord; }
  int stageWords() const {
    return times * sampleStride + beams * rowStride;
  }  // one buffer: samples rows, then weights rows
  int sharedBytes(bool power) const { return stages * stageWords() * 4 + (power ? times * (beams + 1) * 4 : 0); }
  // Words each thread fills per stage (the last round guarded where threads do not divide the rows' words).
  int fillRounds(int rows) const { return (rows * wordsPerStage + threads - 1) / threads; }
};
// What the beamformer's emitters read while writing one kernel: the spec, its MMA layouts and tiling, f16 or integer.
struct BfKernelContext {
  const BeamformerSpec& s;
  BfMma m;
  BfTiling t;
  bool f16 = false;
};
// Shared-memory stages where the spec leaves them open: 2 (double-buffered) for every input type; with 16-byte loads
// it measured faster than one stage on the H100 for each spec in specs/ (docs/beamformer.md).
int bfDefaultStages(const BeamformerSpec& s);
// The spec's tuning where given, else the cost model's choice (the block beams that waste the fewest tensor-core
// columns on M's tail while keeping tiles large; see BeamformerLayouts.cpp).
BfTiling bfTiling(const BeamformerSpec& s, const BfMma& m);
// blocksPerBatch, ranges, windows of a tiling whose block tile is set.
void bfFillGrid(const BeamformerSpec& s, BfTiling& t);
// Problems in a tuning (block not a whole number of warps, too many threads, shared memory, registers): path + message.
std::vector<std::pair<std::string, std::string>> bfTilingProblems(const BeamformerSpec& s, const BfTiling& t);
// Shared memory one block may use: the smallest opt-in limit of the architectures the plan runs on (sm_86 / sm_89: 99
// KiB).
constexpr int kBfMaxShared = 99 * 1024;

struct BfIssue {
  std::string path, message;
};
struct BfConsistency {
  std::vector<BfIssue> issues;
  std::vector<std::string> proved;
  long long storesChecked = 0;
};
// `mma`: layouts to check instead of bfMma()'s (tests hand in mutated ones).
BfConsistency bfConsistency(const BeamformerSpec& s, const BfMma* mma = nullptr);

}  // namespace warpforge
