#pragma once
// The "fir_r2c" baseline kind (BaselineRequest::FirR2c): FIR kernel + cufftExecR2C + post kernel.
#include <memory>
#include <string>

#include "bench/Baseline.h"

namespace warpforge {

std::unique_ptr<BaselineRun> makeFirR2cBaseline(const BaselineRequest& request, const TestData& data, long long batch, std::string* why);

}  // namespace warpforge
