#pragma once
// The correlator's sm_90a warp-specialized pipeline (README "sm_90: the pipeline"): the data the emitter prints and
// the verifier checks, so that both read one description.
//
//   loader warpgroups (setmaxnreg down): warp 0 issues bulk copies (cp.async.bulk) of the raw samples of a stage
//     into a ring of `rawStages` slots, completing on mbarriers (expect_tx); all their threads transform a landed slot
//     into the operand ring (`opStages` slots): clamp (-128 -> -127, -8 -> -7), widen 4 -> 8 bits, split the
//     polarizations, and write A (row inputs) and B (column inputs, each as its samples and their conj_perm copy) in
//     the 64-byte-swizzled K-major layout wgmma reads; then fence.proxy.async and an mbarrier arrival. The shared
//     transform gives A to the consumers, the split one also B's last groups (transformAssign).
//   consumer warpgroups (setmaxnreg up): wait for an operand slot, issue its wgmmas (m64 x 2 rows x k32 / k16),
//     keep one stage of wgmmas in flight and release the slot before last through an mbarrier. No block-wide barrier
//     after the set-up.
// Operand rows hold 64 bytes of k per stage (32 samples of 8 bits, 16 of f16): two wgmma k-steps.
// B row of column input n, part h (0: samples, 1: conj_perm copy): 16 (n / 8) + 8 h + n % 8, so D's column block
// 2 q + h holds part h of inputs 8 q .. 8 q + 7; on a diagonal tile A is B's h = 0 rows (descriptor SBO 1024).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "generator/correlator/CorrelatorSpec.h"
#include "generator/layout/Wgmma.h"

namespace warpforge {

// The SBO the kernel's descriptor helpers encode (corr_desc_sw64, corr_desc_sw64_diag): 8-row groups of 64-byte rows;
// a diagonal tile's A skips B's conj_perm groups.
constexpr int kPipeSbo = 512, kPipeDiagonalSbo = 1024;
// The deepest raw ring the default picks (tuning.raw_stages: 2..8).
constexpr int kPipeMaxRawStages = 8, kPipeDefaultRawStages = 4;
// The whole triangle of a channel in one block (tuning.whole_triangle): at most kPipeTriangleMaxColumns column inputs
// per consumer warpgroup (its accumulator registers) and 3 consumer warpgroups, so up to 160 inputs.
constexpr int kPipeTriangleMaxColumns = 96, kPipeTriangleMaxConsumers = 3;

// How one stage of one tile side's samples lies in global memory, i.e. what one bulk copy brings.
enum class RawKind {
  TimeBlocks,  // TCC's [time / T][receiver][pol][T] with T x sample = 32 B: per time block, the tile's inputs are one
               // run
  RowRuns,     // per input, the stage's samples are contiguous: one run per input
  PolRuns,     // per receiver, (time, pol) pairs are contiguous (katgpucbf): one run per receiver
};
const char* rawKindName(RawKind k);

// One unit of the transform: 1 or 2 raw 16-byte reads (offsets in the side's raw region relative to its 8-row
// group) give 1 or 2 operand chunks (row in the 8-row group, 16-byte chunk of the row's 64 bytes), written in order.
struct PipeUnit {
  std::vector<int> reads;                 // raw offsets, in read order
  std::vector<std::pair<int, int>> outs;  // (row in group 0..7, chunk 0..3), in write order
  int chunk = 0;                          // the first chunk it writes (zero-filled where its times are past the call)
  bool swapOut = false;                   // PolRuns: writes pol 1's row first
};

// One wgmma of the whole-triangle block: the 64 rows of inputs 64 strip .. (A: B's sample rows) times the column
// inputs col0 .. col0 + width - 1 (B rows 2 col0 .., n = 2 width); accumulators of their own per piece.
struct PipePiece {
  int strip = 0, col0 = 0, width = 0;
};

struct CorrPipe {
  SampleType type = SampleType::CI8;
  bool clamp = true;  // the staging clamps -128 / -8 (false: sample_range "symmetric")
  int P = 2;
  long long N = 0, samples = 0;
  int rows = 128;     // inputs per tile side
  int consumers = 2;  // consumer warpgroups (rows / 64)
  int loaders = 1;    // loader warpgroups (copies and the transform)
  int threads = 384;
  int ts = 32;      // samples per stage
  int kBytes = 64;  // operand bytes per row and stage
  int steps = 2;    // wgmma k-steps per stage
  int eb = 2;       // bytes of one raw sample
  int spc = 8;      // samples per 16-byte operand chunk
  RawKind kind = RawKind::TimeBlocks;
  int T = 1;  // TimeBlocks: the layout's times per block
  int opStages = 4, rawStages = 4;
  WgmmaSwizzle swizzle = WgmmaSwizzle::B64;
  int sbo = kPipeSbo;  // bytes between 8-row groups of A and of B as the transform stores them
  int aBytes = 0, bBytes = 0, opSlotBytes = 0;
  int runBytes = 0;  // one full bulk copy (TimeBlocks: a block of all rows; RowRuns: a row; PolRuns: a receiver)
  int runPitch = 0;  // raw bytes between runs (RowRuns / PolRuns: padded so the transform's reads meet every bank)
  int runsPerSide = 0;
  int rawSideBytes = 0, rawSlotBytes = 0;
  int rawRing = 0, barriers = 0;         // byte offsets from the 1024-aligned base (the operand ring is at 0)
  int sharedBytes = 0;                   // dynamic shared memory asked for (1024 bytes of alignment slack included)
  int loaderRegs = 0, consumerRegs = 0;  // setmaxnreg targets (0: not used)
  int launchRegs = 0;                    // per thread at launch (__launch_bounds__)
  int blocksPerSm = 1;
  // The transform: units of one 8-row group (the same table for every group and both sides), found by
  // transformUnits() so that each 16-byte read and write of 8 consecutive threads meets 8 bank groups.
  std::vector<PipeUnit> units;
  int unitsPerThread = 0;  // per side and stage and loader thread, where the loader takes the whole side (the split
                           // transform's loader share of B: transformAssign(true).front())
  // Shared transform: the consumer warpgroups transform A (the row side) of stage k + 1 while stage k's wgmmas run,
  // the loader B only (tuning.transform "shared"; needs 3 or more operand slots).
  bool sharedTransform = false;
  int aUnitsPerThread = 0;  // per stage and consumer thread (shared transform)
  // The whole triangle of a channel in one block: rows = inputs rounded up to 64, one side copied and transformed (B;
  // A is B's sample rows, no A region), consumer warpgroup g issues the wgmmas of pieces[g] (balanced column counts,
  // no piece wholly above the diagonal).
  bool wholeTriangle = false;
  std::vector<std::vector<PipePiece>> pieces;
  // Stages per loader iteration and consumer wait (whole triangle: tuning.stages_per_sync); 2: one proxy fence and one
  // wait per two stages, the copies of two stages issued together.
  int stagesPerSync = 1;
  // Split transform (tuning.transform "split"): the consumers also transform B's last bConsumerGroups 8-row groups
  // (one unit each per thread), the loader the groups before them: the staging spread over every warp. 0: the loader
  // transforms all of B.
  int bConsumerGroups = 0;
  int aThreads() const { return sharedTransform ? 128 * consumers : loaderThreads(); }
  int aUnits() const { return sharedTransform ? aUnitsPerThread : unitsPerThread; }
  int loaderThreads() const { return 128 * loaders; }
  // Who transforms a side's units: threads, units per thread (unit j of thread t is u = t + threads j) and the side's
  // first 8-row group they cover (group = first + u / units per group).
  struct Assign {
    int threads = 0, units = 0, firstGroup = 0;
  };
  std::vector<Assign> transformAssign(bool toB) const;

  // Raw region byte of the run holding (row, time) of one side; -1 where no copy brings it.
  long long rawOffset(int row, int time) const;
  // Raw offset of 8-row group g (what unit offsets are relative to).
  int rawGroupBase(int group) const;
  // Operand placement: A row n, k byte kb; B column input n, part h (0 samples, 1 conj_perm copy), k byte kb.
  int aOffset(int n, int kb) const {
    return static_cast<int>(wgmmaStoreOffset(swizzle, n, kb, static_cast<unsigned>(sbo)));
  }
  int bRow(int n, int h) const { return 16 * (n / 8) + 8 * h + n % 8; }
  int bOffset(int n, int h, int kb) const {
    return static_cast<int>(wgmmaStoreOffset(swizzle, bRow(n, h), kb, static_cast<unsigned>(sbo)));
  }
  // The descriptors of consumer warpgroup g's A (off-diagonal or diagonal tile) and of B, for operand slot `slot`,
  // k-step ks, with the ring at shared-window address `base` (1024-aligned).
  WgmmaDescriptor descA(unsigned base, int slot, int g, int ks, bool diagonal) const;
  WgmmaDescriptor descB(unsigned base, int slot, int ks) const;
  // The diagonal tile's second warpgroup: B's second half (the columns of inputs rows / 2 ..).
  WgmmaDescriptor descBHalf(unsigned base, int slot, int ks) const;
  // B from column input col0 on (a whole-triangle piece).
  WgmmaDescriptor descBAt(unsigned base, int slot, int ks, int col0) const;
  WgmmaAtom atom() const { return WgmmaAtom{2 * rows, type == SampleType::CF16, false}; }
  WgmmaAtom pieceAtom(const PipePiece& pc) const { return WgmmaAtom{2 * pc.width, type == SampleType::CF16, false}; }
};

// The consumers' accumulator positions the kernel prints, read from the wgmma accumulator atom (wgmmaAccumulatorLayout,
// generator/layout/Wgmma.h) through B's row order: D's column bRow(n, h) names which column-input bit and which part
// h (samples, conj_perm copy) each column bit of the atom is. The thread's first row (of its warpgroup's 64) and first
// column input as expressions of warp and lane; register i + regInput is the next column input, + regRowHalf the row
// rowHalf further, + regBlock the column inputs inputBlock further, + regIm the Im part of the same visibility; lanes
// laneRow0 apart hold the rows 1 apart. Throws std::logic_error where the atom does not have that form.
struct PipeAccumulator {
  std::string rowOfThread, inputOfThread;
  int rowHalf = 0, inputBlock = 0;
  int regInput = 0, regRowHalf = 0, regBlock = 0, regIm = 0;
  int laneRow0 = 0;
};
PipeAccumulator pipeAccumulator(const CorrPipe& p);

// The consumers' descriptors as the kernel computes them, read from descA / descB / descBHalf (the descriptors
// checkPipeline reads every operand byte through) with the ring at 0: warpgroup 0's A (off-diagonal, diagonal) and B
// at slot 0, k-step 0; the start's advance per consumer warpgroup (bytes), and in the start field (16-byte units)
// per operand slot, per k-step (the same for A and B) and from B to its second half. Throws std::logic_error where
// the descriptors are not of that form.
struct PipeDescriptors {
  WgmmaDescriptor a, diag, b;
  unsigned aPerGroup = 0, diagPerGroup = 0;
  unsigned perSlot = 0, halfOfB = 0;
  std::vector<unsigned> perStep;
};
PipeDescriptors pipeDescriptors(const CorrPipe& p);

// Who transforms the operands, as explain prints it; `splitAsked`: the spec's tuning.transform is "split" (said where
// it falls back to the shared transform).
std::string transformOwners(const CorrPipe& p, bool splitAsked);

// Whether the pipeline's shared memory fits one block (227 KiB) and its blocks per SM (228 KiB per SM).
bool pipeSharedFits(const CorrPipe& p);
// Why the pipeline cannot take this spec (input layout, strides, alignment, tile), or nothing.
std::optional<std::string> pipelineBlocker(const CorrelatorSpec& s);
// The pipeline for the spec's tile (rowsPerBlock inputs, 64 or 128) and ring depths (0: the spec's tuning.stages /
// tuning.raw_stages, else the defaults: 4 operand slots, the deepest raw ring up to 4 that fits).
// wholeTriangle: one block per channel (rowsPerBlock is then ignored; sharedTransform has nothing to do: no A region).
CorrPipe corrPipe(const CorrelatorSpec& s, int rowsPerBlock, int opStages = 0, int rawStages = 0,
                  bool sharedTransform = false, bool wholeTriangle = false);
// Whether the whole triangle of the spec's channel fits one pipeline block.
bool pipeTriangleFits(const CorrelatorSpec& s);
// The whole triangle's wgmmas split over `consumers` warpgroups: strips of 64 rows from column 64 strip to the last
// input (rounded up to 8), cut into pieces of at most 128 column inputs, each warpgroup's column count within 8 of
// the others'.
std::vector<std::vector<PipePiece>> trianglePieces(long long inputs, int consumers);
// The deepest raw ring (up to kPipeMaxRawStages) that fits beside the operand ring: the bench variant's depth.
int pipeDeepestRawStages(const CorrelatorSpec& s, int rowsPerBlock, int opStages, bool sharedTransform,
                         bool wholeTriangle = false);

// The transform's unit table for a pipeline (fills p.units, p.unitsPerThread): a search over unit orders and
// read / write orders for 16-byte accesses without bank conflicts; `wavefronts` (optional) returns the worst
// quarter-warp access it had to accept (1: none).
void transformUnits(CorrPipe& p, int* wavefronts = nullptr);

struct PipeIssue {
  std::string path, message;
};
// The pipeline's proofs: the bulk copies of a stage land disjoint inside the raw slot and bring every byte the
// transform reads; the transform writes every operand chunk of A and B exactly once from the raw bytes of the same
// (input, samples); every read and write of the transform is conflict-free per quarter warp; every operand byte of
// every wgmma (each consumer warpgroup's A on off-diagonal and diagonal tiles, B, both k-steps, every slot) read
// through its descriptor is the byte staged for it; ring, barriers and register budgets fit.
void checkPipeline(const CorrelatorSpec& s, const CorrPipe& p, std::vector<PipeIssue>& issues,
                   std::vector<std::string>& proved);

}  // namespace warpforge
