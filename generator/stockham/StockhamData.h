#pragma once
// Test data for stockham specs: random inputs in the spec's own layout and
// storage, the reference in double, the check of a run's outputs, and the
// cuFFT baseline's view of the same numbers (dense interleaved arrays).
#include <cstdint>
#include <optional>

#include "generator/core/Facets.h"
#include "generator/stockham/StockhamSpec.h"

namespace warpforge {

TestData stockhamRandomInputs(const StockhamSpec& spec, long long batch, std::uint64_t seed);
Check stockhamCheck(const StockhamSpec& spec, const TestData& data,
                    const std::map<std::string, std::vector<unsigned char>>& outputs, long long batch);
std::optional<BaselineRequest> stockhamBaseline(const StockhamSpec& spec);

// The error bound: a few ulps of the precision (the worst errors measured on the H100 were 9.8e-16, 2.6e-7 and 3.9e-4).
double stockhamErrorBound(Precision precision);

}  // namespace warpforge
