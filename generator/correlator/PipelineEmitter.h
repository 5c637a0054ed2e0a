#pragma once
// The sm_90a correlate kernel of the warp-specialized pipeline (Pipeline.h): loader warpgroup (bulk copies into the
// raw ring, transform into the operand ring), consumer warpgroups (wgmma), the same triangle store and int64 / f32
// accumulation as the other paths. One block per (batch entry, channel, triangle tile), like them.
#include <string>

#include "generator/correlator/CorrelatorEmitter.h"
#include "generator/correlator/Pipeline.h"

namespace warpforge {

struct PipelineKernel {
  std::string name, source;
  CorrPipe pipe;
  long long tiles = 0;  // per channel
};

PipelineKernel emitPipelineCorrelate(const CorrelatorSpec& s, const CorrPipe& p, const std::string& name);
// The two kernels with the pipeline's correlate (tiles of `rows` inputs, `stages` operand slots, `rawStages` raw slots;
// 0: the spec's or the default depths, corrPipe; wholeTriangle: one block per channel, `rows` ignored).
CorrelatorKernels emitCorrelatorPipeline(const CorrelatorSpec& s, int rows, int stages = 0,
                                         bool sharedTransform = false, int rawStages = 0, bool wholeTriangle = false);

}  // namespace warpforge
