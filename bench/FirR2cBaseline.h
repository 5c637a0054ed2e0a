#pragma once
// The FirR2cBaseline request (generator/core/Facets.h): FIR kernel + cufftExecR2C + post kernel.
#include <memory>
#include <string>
#include <vector>

#include "bench/Baseline.h"

namespace warpforge {

// The baseline's two plans: the FIR (input, weights -> real f32 [stream][spectrum][L]) and the post kernel (spectra
// complex f32 [stream][spectrum][L / 2 + 1], as cufftExecR2C writes them; gains, delays -> out); cuFFT runs between.
struct FirR2cPlans {
  LaunchPlan fir, post;
};
FirR2cPlans firR2cBaselinePlans(const FirR2cBaseline& fir);

std::unique_ptr<BaselineRun> makeFirR2cBaseline(const BaselineRequest& request, const FirR2cBaseline& fir,
                                                const TestData& data, long long batch, std::string* why);

}  // namespace warpforge
