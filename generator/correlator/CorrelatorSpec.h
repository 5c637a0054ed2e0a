#pragma once
// The `correlator` family's spec: the tensor-core X-engine (ASTRON's TCC, as
// modified by katgpucbf). For every channel c and baseline r1 <= r2:
//   V[c][bl(r1, r2)][p][q] = sum_t s[c][t][r1][p] * conj(s[c][t][r2][q]),   bl = r2 (r2 + 1) / 2 + r1
// (the conjugated side and the order of the two polarization indices are spec
// choices), accumulated katgpucbf-style in 64-bit integers (f32 for cf16) per
// concurrent batch and reduced to int32 with saturation. See README.md.
#include <string>

#include "warpforge/json.h"

namespace warpforge {

enum class SampleType { CI4, CI8, CF16 };
const char* sampleTypeName(SampleType t);

// Where sample (batch b, channel c, time t, receiver r, polarization p) lives, in
// samples (complex values) from the start of the input array:
//   b * batch + c * channel + r * receiver + p * polarization + (t / timesPerBlock) * timeBlock + (t % timesPerBlock) *
//   time
struct CorrelatorInput {
  std::string layout;  // "tcc" | "katgpucbf" | "strides"
  long long batch = 0, channel = 0, receiver = 0, polarization = 0, timeBlock = 0, time = 0;
  int timesPerBlock = 1;  // the T of TCC's [channel][time / T][receiver][pol][T]; 1 where time is not split
  long long span =
      0;  // samples of one batch entry (the extent the strides reach, = batch stride for the named layouts)
};

struct CorrelatorTuning {
  int receiversPerBlock = 0;  // receivers of each side of a block's square tile; 0: the generator's choice
  int timesPerStage = 0;      // samples per channel staged in shared memory at a time; 0: the generator's choice
  std::string mma = "auto";  // "auto": on sm_90 the warp-specialized pipeline where the input layout allows it (tile by
                             // the cost model unless receivers_per_block is given), else wgmma / mma.sync as before;
                             // "pipeline": that pipeline (sm_90 targets only); "wgmma": the register-staged wgmma
                             // kernel on 64- / 128-row tiles (sm_90 only); "mma_sync": always mma.sync
  bool rowsGiven = false;    // receivers_per_block was in the spec (the pipeline's model does not override it)
  int stages = 0;            // pipeline: operand ring slots (0: the default, 4; 8 with the operands as stored)
  int rawStages = 0;         // pipeline: raw ring slots, i.e. stages of bulk copies in flight + 1 (0: the default, the
                             // deepest ring up to 8 that fits beside the operand ring)
  std::string transform = "shared";  // pipeline: "loader" (the loader warpgroup transforms A and B), "shared" (the
                                     // consumers transform A of the next stage while their wgmmas run: faster at 6 of
                                     // 8 shapes on the H200, level at the other two; the default where stages >= 3)
                                     // or "split" (as shared, and the consumers also take B's last groups where one
                                     // round of them is part of B: 8- and 16-bit TCC / row-run layouts)
  // pipeline: the whole triangle of a channel in one block (up to 160 inputs) instead of square
  // tiles; -1: the cost model's choice, 0: square tiles, 1: the whole triangle.
  int wholeTriangle = -1;
  bool transformGiven = false;  // tuning.transform was in the spec (else sm_90 uses the operands as stored, "none",
                                // wherever they can be: CorrelatorModel.h's directByDefault)
  // pipeline: stages per loader iteration and per consumer wait (1, 2 or 4; N > 1 needs 2 N or more operand slots, the
  // default ring then has 2 N): the per-stage waits, proxy fence and arrivals paid once per N stages. Absent: 2 for
  // 8- and 16-bit samples on a ring of 4 or more slots (`bench --tune` and the variants picked it at TCC's 8-bit
  // R = 576 / 2048 and a random R = 18), 1 for 4-bit (slower there by 4 %) and for the operands as stored (two ran
  // 0.90x one there). Other paths ignore the default.
  int stagesPerSync = 1;
  bool stagesPerSyncGiven = false;  // stages_per_sync was in the spec (a SpecError off the pipeline)
  // Operands as stored: how the row side (A, read by ldmatrix) is copied. 1 ("bulk"): one cp.async.bulk per time
  // block of the stage into an unswizzled A region (layouts where a time block's inputs are one run); 2 ("multicast"):
  // as 1, the blocks launched in clusters of two tiles of one row side, each copying half of the time blocks into
  // both; 0 ("cp.async"): 16-byte copies into the swizzled layout; -1: the default, bulk where the layout allows it
  // (whole time blocks; cf16: whole stages) and some tile is off the diagonal (1.08-1.22x cp.async at eight shapes on
  // an H200, same call), cp.async elsewhere.
  int rowCopies = -1;
  // Operands as stored: how the column side (B, wgmma's shared operand) is copied. 1 ("tensor"): one TMA tensor copy
  // per stage (a tensor map over the input; 32-byte swizzle, time block by time block) by the producer's first thread;
  // 0 ("cp.async"): 16-byte copies into the 64-byte-swizzled layout by the producer warpgroup; -1: the default, tensor
  // where it applies (PipelineDirect.h: columnTensorBlocker).
  int columnCopies = -1;
  // Operands as stored: persistent blocks (true: the grid is the resident blocks, each looping over its tiles with the
  // ring running on; -1: the default, true up to 64 stages per tile: PipelineDirect.h).
  int persistent = -1;
  // Operands as stored, output "visibilities" with two polarizations: how a tile's visibilities leave. 1 ("bulk"):
  // each consumer warpgroup stages them in shared memory, one run per column receiver, and cp.async.bulk stores
  // copy the runs out while its next tile's wgmmas run; 0 ("registers"): 16-byte stores from the accumulators;
  // -1: the default (PipelineDirect.h: bulkStoreByDefault).
  int bulkStore = -1;
};

// N stages per wait need 2 N or more operand slots (`stages` 0: the default ring, which has them).
inline bool ringHoldsStagesPerSync(int stagesPerSync, int stages) {
  return stagesPerSync == 1 || stages == 0 || stages >= 2 * stagesPerSync;
}

struct CorrelatorSpec {
  std::string file, name;
  int receivers = 0, polarizations = 2, channels = 1;
  long long samples = 0;  // samples per channel per batch entry (one call)
  SampleType type = SampleType::CI8;
  bool ci4RealHigh = true;  // ci4: the real part is the high nibble (bits 7..4), the imaginary the low one
  // sample_range "symmetric": the data hold no -128 (ci8) / -8 (ci4), as a saturating F-engine's output: the staging
  // skips the clamp to -127 / -7 that conj_perm otherwise needs. "full" (false): every value, the minimum clamped.
  bool symmetric = false;
  CorrelatorInput input;
  std::string conjugate =
      "r2";  // which receiver of bl(r1, r2) is conjugated: "r2" (V = s1 conj(s2)) or "r1" (V = s2 conj(s1))
  std::string polOrder = "r1_r2";  // V[..][p][q]: p indexes r1's polarization ("r1_r2") or r2's ("r2_r1")
  // "accumulators" (katgpucbf's model: int64 / f32 accumulators over calls, a reduce kernel with saturation and the
  // missing marker) or "visibilities" (TCC's model: the correlate kernel writes the call's int32 / f32 visibilities
  // of each batch entry once, no accumulators, no reduce kernel).
  std::string output = "accumulators";
  CorrelatorTuning tuning;

  long long inputs() const {
    return static_cast<long long>(receivers) * polarizations;
  }  // rows of the correlation matrix
  long long baselines() const { return static_cast<long long>(receivers) * (receivers + 1) / 2; }
  // Visibilities (complex) of one channel, and of all channels: the output and each accumulator.
  long long visibilitiesPerChannel() const { return baselines() * polarizations * polarizations; }
  long long visibilities() const { return visibilitiesPerChannel() * channels; }
  bool integer() const { return type != SampleType::CF16; }
  bool writesVisibilities() const { return output == "visibilities"; }
  // Largest |real or imaginary part| of one sample's product term after the clamp (-128 -> -127, -8 -> -7):
  // per sample, |Re| and |Im| of s1 conj(s2) are at most 2 m^2.
  long long maxComponent() const { return type == SampleType::CI4 ? 7 : 127; }
  // Samples per call that keep every int32 partial sum of the tensor cores exact: samples * 2 m^2 <= 2^31 - 1.
  long long maxExactSamples() const { return (2147483647LL) / (2 * maxComponent() * maxComponent()); }
};

// Static shared memory of the correlate kernel: rows of the tile x (row side + column side and its
// conj_perm copy) x padded words per row (the row stride is 8 mod 16 words: conflict-free 8-byte fragment loads).
int correlatorRowStride(int timesPerStage, SampleType type);
int correlatorSharedBytes(int rowsPerBlock, int timesPerStage, SampleType type);

// Errors are SpecErrors naming `file` and the JSON path.
CorrelatorSpec parseCorrelatorSpec(const Json& root, const std::string& file);
CorrelatorSpec parseCorrelatorSpecText(const std::string& text, const std::string& file);

// bl(r1, r2) and its inverse.
inline long long baselineIndex(long long r1, long long r2) { return r2 * (r2 + 1) / 2 + r1; }
void baselineReceivers(long long bl, long long& r1, long long& r2);

}  // namespace warpforge
