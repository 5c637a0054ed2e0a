#pragma once
// Which correlate kernel a spec gets on a target, and the cost model that picks the pipeline's tile.
//
// On sm_90 the warp-specialized pipeline (Pipeline.h) takes every spec whose input layout it can copy in bulk
// (tuning.mma "auto" or "pipeline"); its tile (64 or 128 inputs per side) comes from receivers_per_block where the
// spec gives it, else from correlatorPipelineModel: the predicted time of the correlate kernel for each tile,
//     waves x (fixed + stages x perStage),   waves = ceil(blocks / (SMs x blocks per SM)),
// in SM cycles, with (fixed, perStage) per tile fitted to device measurements (the fit and its data, still few shapes:
// README, "Performance on the H200"). A stage costs a block about the same whatever its tile (a fixed latency, not the
// tensor work), so the model mostly counts block-stage waves: where the whole triangle of a channel fits one block
// (up to 160 inputs) it is a candidate too, costed as the square tile with as many consumer warpgroups, and wins ties
// (the same waves, its warpgroups' wgmma columns balanced). Elsewhere the earlier rules hold (correlatorUsesWgmma,
// mma.sync).
#include <string>

#include "generator/correlator/CorrelatorEmitter.h"
#include "generator/correlator/CorrelatorSpec.h"

namespace warpforge {

enum class CorrelatorPath { MmaSync, Wgmma, Pipeline };
const char* correlatorPathName(CorrelatorPath p);

struct CorrelatorChoice {
  CorrelatorPath path = CorrelatorPath::MmaSync;
  int rows = 0;                  // inputs per tile side
  int stages = 0;                // pipeline ring depth (0: the default)
  bool sharedTransform = false;  // pipeline: the consumers transform A
  bool wholeTriangle = false;    // pipeline: one block per channel holds its whole triangle (rows: its padded side)
  bool direct = false;           // pipeline with the operands as stored (tuning.transform "none", PipelineDirect.h)
  std::string why;               // one line: what decided it
};

// The model's prediction (microseconds, one batch entry, `sms` SMs at `clockMHz`) of the pipeline's correlate kernel.
// wholeTriangle: one block per channel (`rows` ignored), costed as the square tile of as many consumer warpgroups.
double correlatorPipelineModel(const CorrelatorSpec& s, int rows, int sms = 132, double clockMHz = 1755,
                               bool wholeTriangle = false);

// The same for the pipeline with the operands as stored (PipelineDirect.h) on tiles of `rows` (64 or 128) inputs.
double correlatorDirectModel(const CorrelatorSpec& s, int rows, int sms = 132, double clockMHz = 1755);

CorrelatorChoice chooseCorrelator(const CorrelatorSpec& s, const std::string& arch);
// Whether the sm_90 pipeline uses the operands as stored (PipelineDirect.h): asked by tuning.transform "none", or
// unasked wherever it applies and the spec asks for nothing only the transform pipeline has.
bool directByDefault(const CorrelatorSpec& s);

// The correlator's kernels for a target as chosen above. A SpecError at /tuning/mma where the spec asks for a path
// (\"pipeline\", \"wgmma\") the target or the layout cannot take.
CorrelatorKernels emitCorrelatorFor(const CorrelatorSpec& s, const std::string& arch);
// A SpecError where tuning.transform is "none" and the spec cannot have it (PipelineDirect.h's directBlocker, the
// whole triangle, a path other than the pipeline).
void requireDirectPossible(const CorrelatorSpec& s);
// A SpecError at /tuning/row_copies or /tuning/persistent where the spec's choice `c` on `arch` cannot have them (a
// copy method its layout cannot take; the samples not used as stored; multicast on one tile per channel).
void requireCopiesPossible(const CorrelatorSpec& s, const CorrelatorChoice& c, const std::string& arch);

}  // namespace warpforge
