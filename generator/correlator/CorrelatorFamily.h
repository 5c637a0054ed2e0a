#pragma once
// The correlator family (see README.md): registration and a spec object over a parsed CorrelatorSpec.
#include <memory>

#include "generator/core/Facets.h"
#include "generator/correlator/CorrelatorSpec.h"
#include "warpforge/family.h"

namespace warpforge {
const Family& correlatorFamily();
std::unique_ptr<FamilySpec> makeCorrelatorSpec(CorrelatorSpec spec);
// `bench --sweep correlator`: `count` random specs for a seed (CorrelatorSweep.cpp).
std::vector<SweepSpec> correlatorSweepSpecs(std::uint64_t seed, int count);
}  // namespace warpforge
