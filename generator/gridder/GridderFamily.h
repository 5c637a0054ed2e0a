#pragma once
#include <memory>

#include "generator/gridder/GridderSpec.h"
#include "warpforge/family.h"

namespace warpforge {
const Family& gridderFamily();
std::unique_ptr<FamilySpec> makeGridderSpec(GridderSpec spec);
}  // namespace warpforge
