#pragma once
// The gridder's LaunchPlan, one batch entry = one observation (its own metadata and grid):
//   grid:   <name>_gridder -> subgrid FFT (the stockham family's kernels, inverse, in place on the
//           subgrids) -> <name>_adder (tiles; or <name>_zero_grid + the atomic adder)
//   degrid: <name>_zero_visibilities -> <name>_splitter -> subgrid FFT (forward) -> <name>_degridder
// The FFT is a stockham spec written here as JSON, parsed through the family registry and emitted
// for the same target; its plan is appended to ours (PlanCompose.h).
#include <memory>
#include <string>

#include "generator/gridder/GridderKernels.h"
#include "generator/gridder/GridderSpec.h"
#include "warpforge/family.h"

namespace warpforge {

// The subgrid FFT's spec as the stockham family reads it.
std::string gridderFftSpecJson(const GridderSpec& s);
std::unique_ptr<FamilySpec> gridderFftSpec(const GridderSpec& s);

struct GridderBuild {
  LaunchPlan plan;
  GridderKernel main;  // the gridder or the degridder
  int fftKernels = 0;  // kernels appended from the stockham plan
};
GridderBuild buildGridderPlan(const GridderSpec& s, const EmitTarget& target);

// The names of the plan's user arrays, inputs first, output last.
std::vector<std::string> gridderArrayNames(const GridderSpec& s);

}  // namespace warpforge
