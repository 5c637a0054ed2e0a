#pragma once
// `warpforge bench --sweep FAMILY`: a broad benchmark that cannot be tuned to. The family draws `cases`
// specs a user might write (SweepFacet::sweepSpecs, a new seed each run unless given); each is run with the
// defaults (no wisdom) against the family's baseline library, interleaved in one process at a batch that
// fills the GPU (~256 MB per side), with the copy ceiling beside them.
//
// Built to fit one 10-minute device call for 300 cases: every case is parsed, emitted and NVRTC-compiled
// first on all host cores (the Compiler is thread-safe; its disk cache takes concurrent writers), while
// the GPU works through the cases in order; correctness is checked on a small batch against the family's
// check() on other threads; timing takes few reps; device memory is released after each case; cases past
// the time budget are reported as skipped, never silently dropped. Specs the family cannot build are
// reported as unsupported with the reason.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/RunCheck.h"

namespace warpforge {

// Which drawn cases a sweep keeps and what it changes in each (an A/B of one member over a seed's cases).
struct SweepSelection {
  std::string group;  // keep the cases whose group contains this text ("" = all)
  Json with =
      Json::object();  // merged into every case's spec (JSON merge patch), e.g. {"tuning": {"bluestein": "smooth"}}
  std::vector<SweepSpec> listed;  // non-empty: these cases instead of the family's random draw (bench --sweep-cases)
};

struct SweepOptions {
  SweepSelection select;
  int cases = 300;
  std::uint64_t seed = 1;
  int reps = 10, warmups = 2;               // medians of `reps` interleaved rounds after `warmups`
  double bytesPerSide = 256.0 * (1 << 20);  // timing batch: this much data on the larger side (input or output)
  double budgetSeconds = 540;               // no case starts after this (skipped, counted)
  unsigned threads = 0;                     // host threads for parse/emit/NVRTC (0: every core)
  long long checkPoints = 1LL << 22;  // check batch: at most 8 entries and about this many points (at least 1 entry)
};

enum class SweepStatus { Ready, Ok, Failed, Unsupported, Error, NoBaseline, Skipped };
const char* sweepStatusName(SweepStatus s);

struct SweepCase {
  int index = 0;
  std::string group, name;
  Json spec;
  SweepStatus status = SweepStatus::Ready;
  std::string reason;  // unsupported / error / skipped / no baseline: why; failed: the check's detail
  long long batch = 0, checkBatch = 0;
  double oursMs = -1, baselineMs = -1, copyMs = -1;
  double error = -1, bound = -1;  // the check (small batch)
  long long unwritten = 0;
  std::string kernels;  // per kernel: name, registers, blocks per SM
  std::string plan;     // the family's explain(), shortened (worst cases only)
  double prepareSeconds = 0, gpuSeconds = 0, checkSeconds = 0;
  double ratio() const { return oursMs > 0 && baselineMs > 0 ? baselineMs / oursMs : -1; }
};

struct SweepGroupStats {
  std::string group;
  int cases = 0, timed = 0;
  double geomean = 0, worst = 0;
  double copyFraction = 0;  // median of copy_ms / ours_ms over the cases ours ran and passed (baseline or not)
};

struct SweepStats {
  int ok = 0, failed = 0, unsupported = 0, errors = 0, noBaseline = 0, skipped = 0;
  double geomean = 0, min = 0, max = 0;
  std::vector<double> deciles;  // 10th, 20th, ..., 90th percentile of baseline/ours over the Ok cases
  int below085 = 0, below070 = 0;
  std::vector<std::size_t> worst;  // Ok cases, lowest ratio first
  std::vector<SweepGroupStats> groups;
};
// Ratios of Ok cases only: a failed check, an error or a missing baseline is listed, never averaged.
SweepStats sweepStats(const std::vector<SweepCase>& cases, std::size_t worstCount = 10);

// The family's cases, each parsed and verified (no GPU, no NVRTC): Ready, Unsupported or Error.
// `count` cases are drawn, then `select` keeps and patches them (so a group keeps about its share of `count`).
std::vector<SweepCase> sweepCases(const Family& family, std::uint64_t seed, int count,
                                  const SweepSelection& select = {});

// What the sweep does on the host before the device (parse, verify, emit with the spill-free probe, NVRTC
// every source for `arch`) on `threads` threads (0: every core): Ready, Unsupported or Error, with the seconds.
std::vector<SweepCase> prepareSweep(Compiler& compiler, const Family& family, std::uint64_t seed, int count,
                                    const std::string& arch, unsigned threads = 0, const SweepSelection& select = {});

struct SweepReport {
  std::string family;
  DeviceInfo device;
  SweepOptions options;
  std::vector<SweepCase> cases;
  double totalSeconds = 0, prepareSeconds = 0, gpuSeconds = 0;
  unsigned threads = 0;
  std::string aborted;  // why the sweep stopped early (a CUDA error that leaves the context unusable)
};

// `onCase` is called on the calling thread as each case completes (out of order where a check takes longer).
SweepReport runSweep(Compiler& compiler, const Family& family, const SweepOptions& options,
                     const std::function<void(const SweepCase&)>& onCase = {});

std::string formatSweepCase(const SweepCase& c, int total);
std::string formatSweep(const SweepReport& r);
// One JSON object per case for --sweep-log (what formatSweep summarises).
Json sweepCaseJson(const SweepCase& c);

}  // namespace warpforge
