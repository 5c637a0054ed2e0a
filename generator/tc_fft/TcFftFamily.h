#pragma once
// The tc_fft family: tensor-core FFTs whose register layouts are proved
// consistent before any code is emitted (specs/chime_fft_256_512.json).
#include <memory>
#include <optional>

#include "generator/tc_fft/Synthesizer.h"
#include "generator/tc_fft/TcFftLaunch.h"
#include "generator/verify/Program.h"
#include "warpforge/family.h"

namespace warpforge {

const Family& tcFftFamily();

// A spec over `program` (verified here; an inconsistent one throws InconsistentSpec from
// verify/explain/emit/emulate). `distances`: the defaults of the plan's distance
// parameters, which randomInputs also uses (tests of padded layouts make a spec with them).
// `synthesis`: the search that made `program`, where it was synthesized (explain shows its ranking).
std::unique_ptr<FamilySpec> makeTcFftSpec(LayoutProgram program, TcFftDistances distances = {},
                                          std::optional<TcFftSynthesis> synthesis = std::nullopt);

}  // namespace warpforge
