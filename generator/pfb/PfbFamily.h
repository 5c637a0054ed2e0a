#pragma once
// The pfb family (see README.md): registration and a spec object over a parsed PfbSpec.
#include <cstdint>
#include <memory>
#include <vector>

#include "generator/core/Facets.h"
#include "generator/pfb/PfbSpec.h"
#include "warpforge/family.h"

namespace warpforge {
const Family& pfbFamily();
std::unique_ptr<FamilySpec> makePfbSpec(PfbSpec spec);
// `bench --sweep pfb`: F-engine specs drawn at random (PfbSweep.cpp), the same for a seed everywhere.
std::vector<SweepSpec> pfbSweepSpecs(std::uint64_t seed, int count);
}  // namespace warpforge
