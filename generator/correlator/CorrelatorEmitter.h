#pragma once
// The correlator's two kernels, built as ASTs and printed:
//   <name>_correlate  one block per (batch entry, channel, triangle tile): stages samples in shared memory
//                     (clamped, 4-bit widened to 8, B's conj_perm copy made once per stage), complex
//                     products on real tensor cores (mma.sync s8 m16n8k32 / f16 m16n8k16 -> s32 / f32),
//                     adds the tile's visibilities to the batch entry's accumulator (int64 / f32)
//                     (output "visibilities": writes the call's int32 / f32 visibilities instead; no reduce kernel)
//   <name>_reduce     when `dump` != 0: sums the batch's accumulators per visibility, saturates to int32
//                     (missing marker for flagged receivers), resets the accumulators and counts the
//                     saturated visibilities (the last block writes the count and re-zeroes the counters)
#include <optional>
#include <string>

#include "generator/correlator/CorrelatorLayouts.h"
#include "generator/correlator/CorrelatorSpec.h"
#include "generator/correlator/ReduceEmitter.h"
#include "warpforge/launch_plan.h"

namespace warpforge {

// How one stage of samples goes from global to shared memory.
enum class LoadPath {
  Time,     // consecutive times of one (receiver, pol) are consecutive in memory: vector loads along time
  PolTime,  // two polarizations interleaved per time (katgpucbf): vector loads of (time, pol) pairs, split in registers
  Element,  // any strides: one sample per load
};
const char* loadPathName(LoadPath p);

struct CorrelatorKernels {
  std::string correlateName, reduceName;
  std::string correlateSource, reduceSource;
  CorrelatorTiling tiling;
  LoadPath loadPath = LoadPath::Element;
  int vectorTimes = 1;         // times per vector load (per receiver for PolTime)
  int sharedBytes = 0;         // shared memory of the correlate kernel (two stage buffers)
  bool dynamicShared = false;  // above 48 KiB: dynamic (the plan's sharedBytes, opted in by the executor)
  int reduceThreads = 256;
  int reduceUnroll = kReduceUnroll;  // visibilities per reduce thread and sweep (reduceSource's)
  long long mmasPerStage = 0;        // per block (m16n8 equivalents)
  bool wgmma = false;                // sm_90a source (wgmma): compiled for the arch-specific target
  int rawRing = 0;                   // wgmma path: stages in flight through cp.async (0: register double buffering)
  bool pipeline = false;             // the sm_90a warp-specialized pipeline (Pipeline.h); wgmma is then true too
  int opStages = 0, rawStages = 0;   // pipeline: ring depths
  bool sharedTransform = false;      // pipeline: the consumers transform A
  bool direct = false;               // pipeline with transform "none": operands as stored (PipelineDirect.h)
  bool wholeTriangle = false;        // pipeline: one block per channel holds its whole triangle
  bool visibilities = false;         // output "visibilities": the correlate kernel writes them; no reduce kernel
  long long blocksPerChannel = 0;    // correlate blocks per channel and batch entry where not one per tile (0)
  int clusterBlocks = 1;             // blocks per cluster (__cluster_dims__ in the source)
  bool persistent = false;           // correlate grid capped at the resident blocks, each looping over its tiles
  // The correlate kernel's last parameter: the column side's TMA tensor map over the input (operands as stored with
  // tuning.column_copies "tensor"); none where it has no such parameter.
  std::optional<PlanTensorMap> columnMap;
};

// wgmma: the sm_90a path (correlatorUsesWgmma decides it for a target); cpAsync: on that path, stage through a
// cp.async ring where the layout has a vector load path and the ring fits (false: register double buffering).
// Default: registers (on the H100 the ring through .cg ran at 0.75x of them; see docs/correlator.md).
CorrelatorKernels emitCorrelator(const CorrelatorSpec& s, bool wgmma = false, bool cpAsync = false);

// The path and vector width the emitter picks for a spec's input layout.
LoadPath chooseLoadPath(const CorrelatorSpec& s, int& vectorTimes);

}  // namespace warpforge
