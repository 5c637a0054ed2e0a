#pragma once
// bench's variants of the correlate kernel where the default uses the operands as stored: the other tile, the other
// stages per wait, the narrow edge tile at full width, persistent blocks <-> a block per tile, staggered and lagged
// schedules, bulk stores, and the other row and column copies.
#include <vector>

#include "generator/core/Facets.h"
#include "generator/correlator/CorrelatorModel.h"
#include "generator/correlator/CorrelatorSpec.h"

namespace warpforge {

// Appends the variants for spec `s` (operands as stored by default) with the generator's choice `c`.
void addDirectVariants(std::vector<BenchVariant>& v, const CorrelatorSpec& s, const CorrelatorChoice& c);

}  // namespace warpforge
