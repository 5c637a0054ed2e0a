#pragma once
// The correlator's sm_90a pipeline with the operands used as stored (tuning.transform "none"): no transform pass.
//
//   producer warpgroup (setmaxnreg down): per stage, the raw samples straight into an operand slot. With tensor copies
//     (tensorB, TCC's layout) its first thread alone: one TMA tensor copy of the column side into wgmma's K-major
//     layout under the 32-byte swizzle (a time block per k-step) and one cp.async.bulk per time block of the row side
//     into an unswizzled A region, one arrival expecting both's bytes. Otherwise 16-byte cp.async copies of the column
//     side into the 64-byte-swizzled layout (one 64-byte row of k per input: 32 samples of 8 bits, 16 of f16), the row
//     side the same way or by bulk copies announced by expect_tx (pairs: multicast into both blocks of a cluster);
//     `inFlight` stages of copies outstanding (cp.async.wait_group), then fence.proxy.async and one arrival per thread
//     on the slot's mbarrier.
//   consumer warpgroups (setmaxnreg up): wait for a slot, read A (32 row inputs per wgmma) with ldmatrix and build
//     A's second row half in registers: (re, im) -> (im, -re), so that wgmma m64 nN k32 with A from registers gives
//     rows 16 w + g = Re and rows 16 w + 8 + g = Im of s(row input) conj(s(column input)); B (the column inputs) is
//     read by its descriptor as the copies left it. Two groups of A registers alternate (a wgmma reads its A
//     registers until its group retires); one group of wgmmas stays in flight; the slots of the group before it are
//     released.
//
// Why: the transform (clamp, conj_perm copy of B, relayout) took about a quarter of the pipeline's time (the kernel
// with its transform removed ran 1.34-1.36x faster on an H200). Negating only in registers needs values that can be
// negated: ci8 with sample_range "symmetric" (no -128, B is never clamped) or cf16; ci4 must be widened first.
#include <optional>
#include <string>
#include <vector>

#include "generator/correlator/CorrelatorEmitter.h"
#include "generator/correlator/CorrelatorSpec.h"
#include "generator/correlator/Pipeline.h"
#include "generator/layout/Wgmma.h"
#include "warpforge/launch_plan.h"

namespace warpforge {

// The byte of (input n, 16-byte chunk c) in a side: the 64-byte swizzle as the kernel computes it
// ((n / 8) SBO + (n % 8) 64 + 16 (c ^ (n % 8) / 2)); checkDirect proves it is wgmma's layout.
int directChunkOffset(int n, int c);

struct DirectPipe;
// The column side's byte of (input n, 16-byte chunk c) as the kernel computes it for A on a diagonal tile (the
// swizzled layout, or the tensor copy's: PipelineDirectEmitter's columnChunk); checkDirect proves it is bOffset's.
int columnChunkOffset(const DirectPipe& p, int n, int c);

constexpr int kDirectDefaultStages = 8;    // operand slots where tuning.stages does not say
constexpr int kPersistentTileStages = 64;  // persistent blocks by default up to this many stages per tile

struct DirectPipe {
  SampleType type = SampleType::CI8;
  int P = 2;
  long long N = 0, samples = 0;
  int rows = 128;     // inputs per tile side (64 or 128)
  int consumers = 2;  // rows / 64: each warpgroup takes 64 row inputs as two wgmmas of 32 inputs (m64: Re and Im rows)
  int threads = 384;  // producer warpgroup + consumers
  int ts = 32;        // samples per stage (64 k bytes per input)
  int eb = 2;         // bytes per sample
  int spc = 8;        // samples per 16-byte chunk
  int stages = kDirectDefaultStages;  // operand slots
  int group = 1;                      // stages per consumer wait and commit group (tuning.stages_per_sync: 1, 2)
  int inFlight = 6;  // stages of copies outstanding before the oldest is published: stages - 2 group (the consumers
                     // hold a group in flight and the one they wait for)
  int sideBytes = 0, slotBytes = 0;   // one side (rows x 64 B), one slot (two sides)
  int barriers = 0, sharedBytes = 0;  // barrier offset from the 1024-aligned base; dynamic shared memory asked for
  int producerRegs = 0, consumerRegs = 0, launchRegs = 0, blocksPerSm = 1;
  // Copies per producer thread and stage: unit u = tid + 128 j -> side u / (4 rows), input (u / 4) % rows, chunk u % 4
  // (the 16-byte copies; unused with tensor copies).
  int unitsPerThread = 0;
  // Row side by bulk copies (tuning.row_copies "bulk"): side 0 of a slot holds A unswizzled, time block by time block
  // (runBytes per input, a stage's 64 bytes in 64 / runBytes blocks), each block one cp.async.bulk of the tile's row
  // inputs; ldmatrix reads it there. Off: side 0 is the row side in the swizzled layout (the column side's on a
  // diagonal tile).
  bool bulkA = false;  // (outside cluster pairs a diagonal tile copies its column side only and reads A from it)
  int runBytes = 0;
  // Pairs (tuning.row_copies "multicast"): blocks in clusters of two, the tiles (ti, tj) and (ti, tj + 1) of one row
  // side; each copies every other time block of A into both (cp.async.bulk .multicast::cluster) and releases its slots
  // to both producers. A row's last tile, where the row has an odd count, runs alone (its partner block idles).
  bool pairs = false;
  // Persistent blocks (tuning.persistent; by default up to kPersistentTileStages stages per tile): a grid of the
  // resident blocks, each looping over its units (batch entry, channel, tile) with the ring running on, so that the
  // next tile's stages fill while the consumers store.
  bool persistent = false;
  int staggerNs = 0;  // persistent consumers start (blockIdx % 4) x this apart (bench's variant; 0: together)
  // The second consumer warpgroup starts each tile lagStages stages after the first (named barrier 3: the first
  // arrives, the second waits), so that each warpgroup's store runs while the other's wgmmas do (bench's variant;
  // 0: together). Needs a tile of at least `stages` stages: the ring keeps the first warpgroup within a tile of the
  // second, so that the barrier's arrivals pair tile by tile.
  int lagStages = 0;
  // Bench's ablation: the tile's store left out (no output written; timing only), to weigh the store against the rest.
  bool noStore = false;
  // The last column tile holds at most rows / 2 inputs (N % rows): its consumers issue the half-width wgmmas from
  // column input 0, so that the empty columns cost no tensor work.
  bool narrowEdge = false;
  // The column side by TMA tensor copies (tuning.column_copies "tensor"): side 1 of a slot holds B time block by time
  // block ([2][rows][32 B], the 32-byte swizzle the copy applies), one copy per stage by the producer's first thread
  // through `columnMap` (uint8 dims {32, N, time blocks, batch x channels}); each wgmma k-step reads one time block.
  // Off: side 1 in the 64-byte-swizzled K-major layout, 16-byte cp.async by the producer warpgroup.
  bool tensorB = false;
  PlanTensorMap columnMap;
  // Visibilities staged for bulk stores (tuning.store "bulk"; visibilities, two polarizations): each consumer
  // warpgroup stages its 64 row inputs x the tile's column inputs after the ring, one run per column receiver (its
  // 32 row receivers' 4 polarization products, 1 KiB of 8-byte visibilities) every stageRunStride bytes: 32 bytes
  // more than the run, so that the four column receivers of a warp's 16-byte stores meet distinct banks. The
  // warpgroup's first warp issues one cp.async.bulk store per run and waits for them to have read the staging before
  // the next tile writes it (cp.async.bulk.wait_group.read), so that the stores drain while the next tile's wgmmas
  // run.
  bool bulkStore = false;
  int stageRuns = 0, stageRunBytes = 0, stageRunStride = 0;
  int staging = 0;  // the staging's offset from the ring base (after the slots)
  int stagingBytes() const { return consumers * stageRuns * stageRunStride; }
  // Staging byte of (row input gi, column input gj) counted in the tile, warpgroup cg: run gj / 2,
  // row receiver (gi - 64 cg) / 2, polarization product (gi % 2, gj % 2) in the output's order (`polPairFirst`: the row
  // input's polarization first, polarization_order "r1_r2"; else the column's, TCC's "r2_r1").
  int stageOffset(int cg, int gi, int gj, bool polPairFirst) const {
    const int pq = polPairFirst ? 2 * (gi & 1) + (gj & 1) : 2 * (gj & 1) + (gi & 1);
    return staging + cg * stageRuns * stageRunStride + (gj >> 1) * stageRunStride + ((gi - 64 * cg) >> 1) * 32 + 8 * pq;
  }
  WgmmaSwizzle swizzle = WgmmaSwizzle::B64;
  int sbo = kPipeSbo;
  // The 64-byte-swizzled placement: input n, k byte kb of the stage's 64 (both sides with 16-byte copies; the column
  // side's with tensor copies is bOffset).
  int offset(int n, int kb) const {
    return static_cast<int>(wgmmaStoreOffset(swizzle, n, kb, static_cast<unsigned>(sbo)));
  }
  // The column side's placement: input n, k byte kb of the stage's 64 (tensorB: time block kb / 32, 32-byte swizzle).
  int bOffset(int n, int kb) const {
    return tensorB ? kb / 32 * rows * 32 + static_cast<int>(wgmmaStoreOffset(WgmmaSwizzle::B32, n, kb % 32, 256u))
                   : offset(n, kb);
  }
  // B's descriptor for slot `slot`, k-step ks, from column input col0 (the diagonal tile's second warpgroup: rows / 2;
  // the half-width wgmmas of a narrow edge tile: 0),
  // with the ring at `base`.
  WgmmaDescriptor descB(unsigned base, int slot, int ks, int col0 = 0) const;
  // What the kernel adds to B's k-step 0 descriptor start for each k-step: 32 bytes along a swizzled 64-byte row, or
  // (tensorB) the next time block's rows.
  int kStepBytes() const { return tensorB ? rows * 32 : 32; }
  // The first time block of stage k's tensor copy (the kernel's coordinate).
  int tensorTimeBlock(int k) const { return columnMap.box.size() > 2 ? columnMap.box[2] * k : 0; }
  WgmmaAtom atom(bool half = false) const { return WgmmaAtom{half ? rows / 2 : rows, type == SampleType::CF16, true}; }
  // A's ldmatrix row address for lane `lane` of warp w (of its warpgroup), wgmma half mi (0, 1) of warpgroup g,
  // relative to the side's base: row input 64 g + 32 mi + 8 w + lane % 8, chunk lane / 8 of the 64-byte row.
  int aLdsmOffset(int g, int mi, int w, int lane) const {
    return aOffset(64 * g + 32 * mi + 8 * w + lane % 8, lane / 8);
  }
  // Where row input n's 16-byte chunk c of a stage lies in the slot (bulk: side 0, time block 16 c / runBytes, then
  // the input's run; tensor copies of a triangle of diagonal tiles: side 1 as the copy laid it out; else side 0,
  // swizzled).
  int aOffset(int n, int c) const {
    return bulkA     ? 16 * c / runBytes * rows * runBytes + n * runBytes + 16 * c % runBytes
           : tensorB ? sideBytes + columnChunkOffset(*this, n, c)  // every tile diagonal: A read from B's side
                     : directChunkOffset(n, c);
  }
};

// The spec with tuning.transform "none" asked for, `stagesPerSync` stages per wait (what the bench variants, the tune
// candidates and the default emit).
CorrelatorSpec asStoredSpec(const CorrelatorSpec& s, int stagesPerSync = 1);

// Why transform "none" cannot take the spec (sample type / range, layout, tile), or nothing.
std::optional<std::string> directBlocker(const CorrelatorSpec& s);
// The cluster pairs of a channel's triangle of `tps` x `tps` tiles: row ti holds ceil((tps - ti) / 2) pairs, pair q
// of the row the tiles (ti, ti + 2 q) and (ti, ti + 2 q + 1). Blocks per channel: twice the pairs.
long long directPairs(int tps);
// Pair `pair`'s row and its first column (the kernel's decoding, mirrored for the proofs).
void directPairTile(int tps, long long pair, int& ti, int& tj0);

// Why tuning.row_copies "bulk" cannot take the spec (a time block's inputs not one run of runBytes each, runs that do
// not tile a stage, samples not whole stages), or nothing.
std::optional<std::string> rowBulkBlocker(const CorrelatorSpec& s);
// Why tuning.column_copies "tensor" cannot take the spec with the geometry `p` would otherwise have (the row side's
// bulk conditions, time blocks of 32 bytes, batch entries that are whole channels apart, cluster pairs, a row side
// neither bulk-copied nor the diagonal's), or nothing.
std::optional<std::string> columnTensorBlocker(const CorrelatorSpec& s, const DirectPipe& p);
// Why tuning.store "bulk" cannot take the spec (output accumulators, one polarization, cluster pairs), or nothing.
std::optional<std::string> bulkStoreBlocker(const CorrelatorSpec& s, const DirectPipe& p);
// The geometry for tiles of `rows` inputs (64 or 128) and `stages` slots (0: the spec's tuning.stages, else 8); stages
// per wait from tuning.stages_per_sync where the spec gives it, else 1.
DirectPipe directPipe(const CorrelatorSpec& s, int rows, int stages = 0);
bool directSharedFits(const DirectPipe& p);

// The proofs (verify): every operand chunk is copied exactly once per stage from the (input, samples) it stands for,
// zero-filled past the inputs and samples (16-byte copies: each chunk, 8 bank groups per quarter warp; bulk copies:
// each time block's inputs one run; tensor copies: the box's layout and the map's bytes); ldmatrix's quarter-warp
// accesses meet 8 bank groups (2 with 32-byte bulk runs); B read through the descriptors the kernel computes is the
// bytes copied; A's ldmatrix rows are the row inputs the accumulator rows claim; the accumulator registers the store
// reads are, by the wgmma accumulator atom, the visibilities it writes; shared memory and register budgets fit.
void checkDirect(const CorrelatorSpec& s, const DirectPipe& p, std::vector<PipeIssue>& issues,
                 std::vector<std::string>& proved);
// The staged visibility store (p.bulkStore; PipelineDirectStaging.cpp): each visibility staged once where
// stageOffset says, conflict-free, and copied by the bulk stores to the bytes the store from registers writes.
void checkBulkStore(const CorrelatorSpec& s, const DirectPipe& p, std::vector<PipeIssue>& issues,
                    std::vector<std::string>& proved);

// The correlate kernel's source (PipelineDirectEmitter.cpp) and the family's two kernels around it.
std::string emitDirectCorrelate(const CorrelatorSpec& s, const DirectPipe& p, const std::string& name);
// Bench's variants of the kernel: halfWidthEdge false, the narrow edge tile at full width (the kernel before
// DirectPipe::narrowEdge); staggerNs, persistent blocks whose consumers start (blockIdx % 4) x staggerNs apart.
struct DirectVariant {
  bool halfWidthEdge = true;
  int staggerNs = 0;
  int lagStages = 0;     // where the tile and the ring allow it (directLagStages), else 0
  bool noStore = false;  // the ablation without the store (outputs not written)
};
// The lag the second warpgroup can take on this geometry (half a tile, within the ring: even, at least 2 and inside
// the consumers' main loop), or 0 where a tile holds fewer stages than the ring (the barrier's arrivals could not
// pair tile by tile) or the tile has one warpgroup.
int directLagStages(const DirectPipe& p, long long tileStages);
CorrelatorKernels emitCorrelatorDirect(const CorrelatorSpec& s, int rows, int stages = 0, DirectVariant v = {});

}  // namespace warpforge
