#pragma once
// Human-readable views of a Plan: the `verify` table and the `explain` detail.
#include <string>

#include "generator/verify/Plan.h"

namespace warpforge {

std::string formatVerifyReport(const Plan& plan, const CostTable& costs = {});
std::string formatExplain(const Plan& plan);

}  // namespace warpforge
