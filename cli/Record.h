#pragma once
// `bench --record FILE`: the measurement just printed, as one record of the results file (bench/Results.h).
#include <cstdint>
#include <string>

#include "bench/Benchmark.h"
#include "bench/Results.h"
#include "bench/Sweep.h"

namespace warpforge::cli {

// The default plan's time against the baseline library and the copy ceiling of the same run.
ResultRecord benchResult(const BenchReport& r, const std::string& family, const std::string& command);
// A sweep's geometric mean, deciles and worst case against the family's baseline, case by case in the same run.
ResultRecord sweepResult(const SweepReport& r, const SweepStats& st, std::uint64_t seed, const std::string& command);

}  // namespace warpforge::cli
