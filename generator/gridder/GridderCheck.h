#pragma once
// Checks a run's output against the double reference.
//   grid:   ||grid - ref|| / ||ref|| over the whole grid where the reference work is small; above
//           that, over 4 regions of S x S pixels (3 with the fewest overlapping subgrids among 64
//           sampled, one typical), every subgrid touching them computed; every pixel no subgrid
//           covers must be exactly 0.
//   degrid: ||V - ref|| / ||ref|| over every visibility (or those of a few sampled subgrids), and
//           every flagged or unplanned visibility must be exactly 0.
// Bound (relative RMS): phasors from float phases psi (|psi| ~ pi S/2 at most; the phases are staged
// relative to the subgrid so they stay that small), f32 accumulation of <= Ts x Cs terms and the
// FFT: 1e-5, or 16 u rms(psi) where larger (u = 2^-24). With SFU sincos add 2 (2^-21.41 + rms(psi)
// 2^-22): __sincosf's absolute error on [-pi, pi] plus its argument scaling by 1/(2 pi) (one f32
// rounding, |psi| 2^-24 .. 2^-23), both per phasor and independent across phasors, so they add to
// the relative RMS at most at their size.
#include <map>
#include <string>
#include <vector>

#include "generator/gridder/GridderSpec.h"
#include "warpforge/family.h"

namespace warpforge {

// Work of the full reference (visibility-pixel-correlation products) above which check() samples.
constexpr double kGridderFullReferenceWork = 1.5e8;

Check gridderCheck(const GridderSpec& s, const TestData& data,
                   const std::map<std::string, std::vector<unsigned char>>& outputs, long long batch,
                   double fullReferenceWork = kGridderFullReferenceWork);

double gridderErrorBound(const GridderSpec& s, double psiRms);

}  // namespace warpforge
