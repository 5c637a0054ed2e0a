// run, bench: the commands that need a GPU. Specs are parsed and checked before any device work.
#include <fmt/format.h>

#include "bench/Benchmark.h"
#include "cli/Commands.h"

namespace warpforge::cli {

namespace {

bool requireDevice(const char* command) {
  std::string why = deviceUnavailableReason();
  if (why.empty()) return true;
  fmt::print(stderr, "error: `warpforge {}` needs a GPU: {} (verify, explain, emulate, emit and compile do not)\n", command, why);
  return false;
}

// The spec with `members` merged into its "tuning" object (bench --ab); errors name --ab or the JSON path.
std::unique_ptr<FamilySpec> withTuning(const std::string& file, const std::string& members) {
  Json j = parseJsonText(readSpecFileText(file), file);
  Json extra = parseJsonText(members, "--ab");
  if (!extra.is_object()) throw SpecError("--ab", "", fmt::format("expected a JSON object of tuning members, found {}", extra.type_name()));
  if (!j.is_object()) return loadSpec(file);  // reports the file's own error
  if (!j.contains("tuning")) j["tuning"] = Json::object();
  for (auto it = extra.begin(); it != extra.end(); ++it) j["tuning"][it.key()] = it.value();
  return parseSpec(j, file + " with --ab " + members);
}

}  // namespace

int cmdRun(const Options& o) {
  auto spec = loadSpec(o.spec);
  verified(*spec, o);
  if (!requireDevice("run")) return kCudaFailure;
  Compiler compiler;
  const long long batch = o.batch ? o.batch : spec->defaultBatch();
  RunReport r = runSpec(compiler, *spec, {batch, o.seed, 1, true, {}});
  fmt::print("device={} spec={} family={} batch={} seed={} kernels={} checked={} unwritten={}\n", r.device.name, spec->name(),
             spec->family().name(), batch, o.seed, r.kernels.size(), r.check.checked, r.check.unwritten);
  fmt::print("{}={:.3e} (bound {:.1e}; {}){}\n", r.check.exact ? "mismatches" : "max_rel_err", r.check.error, r.check.bound, r.check.detail,
             r.baselineError >= 0 ? fmt::format("; {} on the same input: {:.3e}", r.baselineName, r.baselineError) : "");
  fmt::print("warpforge {:.4f} ms (one run, {:.4g} units/s{})\n", r.ourMs, batch / (r.ourMs * 1e-3),
             r.baselineMs > 0 ? fmt::format("; baseline {:.4f} ms", r.baselineMs) : "");
  if (!r.check.ok()) fmt::print(stderr, "error: check failed (every output written and the error within the bound)\n");
  return r.check.ok() ? kOk : kFailed;
}

int cmdBench(const Options& o) {
  if (o.tune && !o.ab.empty()) {
    fmt::print(stderr, "error: {}: --tune and --ab both choose what to time; give one\n", o.spec);
    return kBadInput;
  }
  auto spec = o.ab.empty() ? loadSpec(o.spec) : withTuning(o.spec, o.ab);
  verified(*spec, o);
  if ((o.tune || !o.ab.empty()) && !spec->hasTuner()) {
    fmt::print(stderr, "error: {}: --tune/--ab: the {} family has nothing to tune (its launch geometry is fixed by the spec)\n", o.spec,
               spec->family().name());
    return kBadInput;
  }
  if (!requireDevice("bench")) return kCudaFailure;
  Compiler compiler;
  const long long batch = o.batch ? o.batch : spec->defaultBatch();
  if (o.tune) {
    fmt::print("tuning {} (batch {}, medians of {}):\n", spec->name(), batch, o.reps);
    auto t = tuneSpec(compiler, *spec, batch, o.reps, [](const TuneTrialReport& tr) {
      if (tr.ms > 0) fmt::print("  {:<16} {:8.4f} ms  {}\n", tr.stage, tr.ms, tr.geometry);
      else fmt::print("  {:<16}   failed     {}\n", tr.stage, tr.error);
    });
    const auto &best = t->trials[t->best], &base = t->trials[t->baseline];
    fmt::print("best: {:.4f} ms vs {:.4f} ms as given ({:.2f}x) over {} candidates: {}\n  spec members: {}\n", best.ms, base.ms, base.ms / best.ms,
               t->trials.size(), best.geometry, t->specMembers.dump());
    Json j = parseJsonText(readSpecFileText(o.spec), o.spec);
    for (auto it = t->specMembers.begin(); it != t->specMembers.end(); ++it) j[it.key()] = it.value();
    spec = parseSpec(j, o.spec + " as tuned");  // what follows benches the winner as printed
  }
  BenchReport r = benchSpec(compiler, *spec, batch, o.reps);
  fmt::print("{}", formatBench(r));
  if (!o.ab.empty()) {
    AbResult ab = abSpecs(compiler, *loadSpec(o.spec), *spec, batch, o.reps);
    fmt::print("A/B (medians of {}, interleaved A B A): as given {:.4f} ms (again {:.4f} ms), with {} {:.4f} ms: {:.3f}x as fast (A vs A {:.3f})\n",
               o.reps, ab.aMs, ab.aAgainMs, o.ab, ab.bMs, ab.aMs / ab.bMs, ab.aMs / ab.aAgainMs);
  }
  return r.check.ok() ? kOk : kFailed;
}

}  // namespace warpforge::cli
