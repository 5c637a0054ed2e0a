#pragma once
// `warpforge bench`: the spec's plan (and the family's variants), its baseline
// library and the copy ceiling, timed interleaved in one process; A/B of two
// specs; `--tune` through the family's search with a device timer.
#include <functional>
#include <string>

#include "bench/RunCheck.h"

namespace warpforge {

struct BenchRow {
  std::string name;
  double ms = 0;
  long long batch = 0;
  int registers = -1, blocksPerSm = -1;
  // With checkVariants: the variant's own check before it is timed ("OK, ...", "FAILED: ...", "not checked: why").
  std::string check;
  bool checkFailed = false;
};

struct BenchReport {
  DeviceInfo device;
  std::string spec, unit;
  long long batch = 0;
  int reps = 0;
  std::uint64_t seed = 0;      // of the check's random inputs
  Check check;                 // the default plan against the reference (same batch)
  std::vector<BenchRow> rows;  // ours (default first, then variants)
  double baselineMs = -1, baselineError = -1;
  std::string baselineName;
  double copyMs = -1, bytes = 0;
  std::string notes;  // the family's extra lines
};

// checkVariants: every variant that computes the spec's outputs is also run on fresh inputs with poisoned outputs and
// checked against the reference at the bench's batch (as the default is) before anything is timed.
// The indices of the variants `bench --variants FILTER` times: those whose name contains one of FILTER's
// '|'-separated parts; "none": none; empty: all.
std::vector<std::size_t> keptVariants(const std::vector<BenchVariant>& variants, const std::string& filter);
// variantFilter: only the variants whose name contains it ("none": no variant; empty: all). seed: the check's inputs
// (the variants' checks take seed + 1).
BenchReport benchSpec(Compiler& compiler, const FamilySpec& spec, long long batch, int reps, bool checkVariants = false,
                      const std::string& variantFilter = "", std::uint64_t seed = 777);
// Whether a variant timed at `rowBatch` is the default plan `main` at the bench's `batch`, byte for byte (kernel
// sources and launch plan): bench repeats the default's time for it instead of timing it again.
bool variantRepeatsDefault(const BenchVariant& v, const LaunchPlan& main, long long rowBatch, long long batch);
// The default's check and, where they were checked, every variant's.
bool benchChecksPassed(const BenchReport& r);
std::string formatBench(const BenchReport& r);

struct AbResult {
  double aMs = 0, aAgainMs = 0, bMs = 0;
};
// A B A interleaved on the same arrays (the two specs must have the same arrays).
AbResult abSpecs(Compiler& compiler, const FamilySpec& a, const FamilySpec& b, long long batch, int reps);

// The TuneTimer bench gives a family's tune(): each candidate run on the same buffers; nullopt where the family has
// no TuneFacet.
// budgetSeconds > 0: candidates after it has passed are not timed (BudgetTuneTimer); `untimed` gets their count.
std::optional<TuneOutcome> tuneSpec(Compiler& compiler, const FamilySpec& spec, long long batch, int reps,
                                    const std::function<void(const TuneTrialReport&)>& onTrial,
                                    double budgetSeconds = 0, int* untimed = nullptr);

}  // namespace warpforge
