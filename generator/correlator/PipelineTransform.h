#pragma once
// The pipeline's transform (Pipeline.h): a landed raw slot of one tile side into A (the row inputs) or B (the column
// inputs and their conj_perm copies) of an operand slot, by a table of units (transformUnits) per 8-row group.
#include <string>

#include "generator/correlator/CorrelatorSpec.h"
#include "generator/correlator/Pipeline.h"
#include "generator/correlator/PipelineCode.h"

namespace warpforge {

// A transforming thread's unit (entry t % units of the table) and its offsets; `t` its index among `threads` threads.
void emitUnitVariables(corr_emit::Code& c, const CorrPipe& p, const std::string& t, int threads);

// The transform of one side's raw region (`rawa` / `rawb`) into A (toB false, `opa`) or B (toB true, `opb`: its rows
// and their conj_perm copies); `threads` threads take the side's units, `units` each (tid + threads j); `nt` the
// stage's samples.
void emitTransform(corr_emit::Code& c, const CorrelatorSpec& s, const CorrPipe& p, bool toB, int threads, int units);

// The split transform's share of the consumers (p.bConsumerGroups): B's last groups of stage `st` (raw slot `rs`,
// operand slot `os`, variables in scope), one unit per consumer thread; nothing where the loader transforms all of B.
void emitConsumersB(corr_emit::Code& c, const CorrelatorSpec& s, const CorrPipe& p);

}  // namespace warpforge
