#pragma once
// The pfb family (see README.md): registration and a spec object over a parsed PfbSpec.
#include <memory>

#include "generator/pfb/PfbSpec.h"
#include "warpforge/family.h"

namespace warpforge {
const Family& pfbFamily();
std::unique_ptr<FamilySpec> makePfbSpec(PfbSpec spec);
}  // namespace warpforge
