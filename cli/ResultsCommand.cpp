// `warpforge results`: bench/RESULTS.md from the results file; and the records `bench --record` appends.
#include <fstream>

#include <fmt/format.h>

#include "cli/Commands.h"
#include "cli/Record.h"

namespace warpforge::cli {

ResultRecord benchResult(const BenchReport& r, const std::string& family, const std::string& command) {
  ResultRecord rec;
  rec.family = family;
  rec.caseName = r.spec;
  rec.device = r.device.name;
  rec.date = todayUtc();
  rec.command = command;
  if (r.rows.empty()) throw std::logic_error("bench --record: nothing was timed");
  const double ms = r.rows[0].ms;
  const double gbs = r.bytes / (ms * 1e-3) / 1e9;
  rec.figure = fmt::format("{:.4f} ms, {:.4g} {}/s, {:.0f} GB/s ({:.0f}% of the copy ceiling)", ms,
                           r.batch / (ms * 1e-3), r.unit, gbs, 100 * r.copyMs / ms);
  rec.metrics["ms"] = ms;
  rec.metrics["batch"] = r.batch;
  rec.metrics["gb_per_s"] = gbs;
  rec.metrics["copy_ms"] = r.copyMs;
  if (r.baselineMs > 0) {
    rec.anchor = fmt::format("{} {:.4f} ms", r.baselineName, r.baselineMs);
    rec.ratio = r.baselineMs / ms;
    rec.metrics["anchor_ms"] = r.baselineMs;
  } else {
    rec.anchor = fmt::format("device-to-device copy of the same bytes {:.4f} ms", r.copyMs);
  }
  rec.note = r.check.ok() ? "" : "the check FAILED in this run";
  return rec;
}

ResultRecord sweepResult(const SweepReport& r, const SweepStats& st, std::uint64_t seed, const std::string& command) {
  ResultRecord rec;
  rec.family = r.family;
  rec.caseName = fmt::format("random sweep, {} cases drawn", r.cases.size());
  rec.device = r.device.name;
  rec.date = todayUtc();
  rec.command = command;
  const double p10 = st.deciles.empty() ? 0 : st.deciles.front();
  rec.figure =
      fmt::format("geometric mean {:.3f}x, 10th percentile {:.2f}x, {} of {} below 0.7x (min {:.2f}x), {} failed",
                  st.geomean, p10, st.below070, st.ok, st.min, st.failed);
  rec.anchor = "the family's baseline on each case";
  rec.ratio = st.geomean;
  rec.metrics["seed"] = seed;
  rec.metrics["timed"] = st.ok;
  rec.metrics["geomean"] = st.geomean;
  rec.metrics["p10"] = p10;
  rec.metrics["below_0_7"] = st.below070;
  rec.metrics["below_0_85"] = st.below085;
  rec.metrics["min"] = st.min;
  rec.metrics["failed"] = st.failed;
  rec.note = fmt::format("seed {}", seed);
  return rec;
}

int cmdResults(const Options& o) {
  const std::string markdown = resultsMarkdown(readResults(o.resultsFile), o.resultsFile);
  if (o.outFile.empty()) {
    fmt::print("{}", markdown);
    return kOk;
  }
  std::ofstream out(o.outFile, std::ios::trunc);
  if (!out || !(out << markdown) || !out.flush()) {
    fmt::print(stderr, "error: results: cannot write {}\n", o.outFile);
    return kBadInput;
  }
  fmt::print("{}: {} records -> {}\n", o.resultsFile, readResults(o.resultsFile).size(), o.outFile);
  return kOk;
}

}  // namespace warpforge::cli
