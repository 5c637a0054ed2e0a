#pragma once
// A stockham plan and its emitted kernels as a LaunchPlan: the user's arrays in
// their own storage, the two scratch buffers, each kernel's tables (computed in
// double, stored as float2/double2) and work counters, and every kernel's
// arguments in the one order the emitter declares.
#include <vector>

#include "generator/stockham/StockhamEmitter.h"
#include "generator/stockham/StockhamPlan.h"
#include "warpforge/launch_plan.h"

namespace warpforge {

// `kernels[i]` is the emitted form of `plan.kernels[i]`.
LaunchPlan stockhamLaunchPlan(const StockhamSpec& spec, const StockhamPlan& plan,
                              const std::vector<StockhamKernel>& kernels);

// Element type of the user's input / output array (one array of two for planar layouts).
std::string stockhamInputType(const StockhamSpec& spec);
std::string stockhamOutputType(const StockhamSpec& spec);
// Elements one batch entry spans in an array: last address + 1 relative to the entry's start.
long long stockhamSpan(const StockhamIo& io, const std::vector<long long>& shape);

}  // namespace warpforge

#include "generator/stockham/SpillFree.h"

namespace warpforge {

// The plan and its kernels as built for `arch`: spill-free through `probe`, the first try without one.
struct StockhamBuild {
  StockhamPlan plan;
  std::vector<SpillFreeKernel> kernels;
  std::vector<StockhamKernel> emitted() const;
  LaunchPlan launchPlan(const StockhamSpec& spec) const;
};
// tables = false: the plan without its Bluestein chirp tables (verify, explain: a prime near 2^25
// would otherwise compute and copy gigabytes of tables it never shows).
// Throws SpecError where a kernel would exceed kStockhamMaxValuesPerThread.
StockhamBuild buildStockham(const StockhamSpec& spec, const std::string& arch, CompileProbe* probe, bool tables = true);

// The stated limit on generated kernel size: complex values one thread holds (one FFT's length
// over its threads), which the unrolled passes grow with.
constexpr int kStockhamMaxValuesPerThread = 64;
void checkStockhamKernelSize(const StockhamSpec& spec, const KernelDesc& desc);

// What `verify` and `explain` report besides OK, each starting with the JSON path it concerns:
// the batch limit of an interleaved output, tuning values a kernel cannot honour, and (where a
// compiler was consulted) what SpillFree relaxed and spills it could not remove.
std::vector<std::string> stockhamWarnings(const StockhamSpec& spec, const StockhamBuild& build,
                                          const std::string& arch);

}  // namespace warpforge
