#pragma once
// The stockham family behind the Family interface: parse, verify, explain, emit
// (kernels + LaunchPlan), random inputs and the double-precision check, the cuFFT baseline
// and the tuning search. Nothing outside generator/stockham/ names it.
#include <memory>

#include "generator/stockham/StockhamSpec.h"
#include "warpforge/family.h"

namespace warpforge {

const Family& stockhamFamily();
// A spec built in code (tests); `spec.file` is what messages name.
std::unique_ptr<FamilySpec> makeStockhamSpec(StockhamSpec spec);

}  // namespace warpforge
