// run, bench (a spec, --tune, --ab, --sweep) and wisdom: the commands about a GPU. Specs are parsed and
// checked before any device work.
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include <fmt/format.h>

#include "bench/Benchmark.h"
#include "bench/Sweep.h"
#include "cli/Commands.h"
#include "cli/Record.h"
#include "cli/Progress.h"
#include "warpforge/cached_emit.h"
#include "warpforge/wisdom.h"

namespace warpforge::cli {

namespace {

// --seed where given, else a new one (printed by the caller), short enough to retype.
std::uint64_t seedOf(const Options& o) {
  if (o.seedGiven) return o.seed;
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 20 ^ rd()) % 1000000000000ULL;
}

bool requireDevice(const char* command) {
  std::string why = deviceUnavailableReason();
  if (why.empty()) return true;
  fmt::print(stderr, "error: `warpforge {}` needs a GPU: {} (verify, explain, emulate, emit and compile do not)\n",
             command, why);
  return false;
}

// The spec with `members` merged into its "tuning" object (bench --ab); errors name --ab or the JSON path.
std::unique_ptr<FamilySpec> withTuning(const std::string& file, const std::string& members) {
  Json j = parseJsonText(specText(file), specFileName(file));
  Json extra = parseJsonText(members, "--ab");
  if (!extra.is_object())
    throw SpecError("--ab", "", fmt::format("expected a JSON object of tuning members, found {}", extra.type_name()));
  if (!j.is_object()) return loadSpecArg(file);  // reports the file's own error
  if (!j.contains("tuning")) j["tuning"] = Json::object();
  for (auto it = extra.begin(); it != extra.end(); ++it) j["tuning"][it.key()] = it.value();
  return parseSpec(j, specFileName(file) + " with --ab " + members);
}

void printWisdomWarnings(const Wisdom& w) {
  for (const auto& warning : w.warnings()) fmt::print(stderr, "warning: wisdom: {}\n", warning);
}

// The spec file with this GPU's wisdom applied (unless --no-wisdom, the spec has its own tuning, or there is
// no GPU to key on: the command then stops at requireDevice as before); what was used is printed.
// `json`, where given, receives the spec's JSON as parsed (the plan cache's key).
std::unique_ptr<FamilySpec> loadWithWisdom(const Options& o, Json* json = nullptr) {
  if (o.noWisdom || !deviceAvailable()) {
    if (!json) return loadSpecArg(o.spec);
    *json = parseJsonText(specText(o.spec), specFileName(o.spec));
    return parseSpec(*json, specFileName(o.spec));
  }
  const std::string file = specFileName(o.spec);
  Json j = parseJsonText(specText(o.spec), file);
  Wisdom wisdom;
  std::string note;
  Json tuned = applyWisdom(j, currentWisdomDevice(), &note, wisdom);
  printWisdomWarnings(wisdom);
  if (tuned != j) {
    try {
      auto spec = parseSpec(tuned, file + " with wisdom");
      fmt::print("{}\n", note);
      if (json) *json = tuned;
      return spec;
    } catch (const SpecError& e) {  // recorded by another version of warpforge: the spec as written
      fmt::print(stderr, "warning: wisdom for {} ignored (the spec no longer accepts it: {})\n", printableText(file),
                 e.what());
    }
  } else if (!note.empty()) {
    fmt::print("{}\n", note);
  }
  if (json) *json = j;
  return parseSpec(j, file);
}

std::string driverString(int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); }

// bench --sweep-cases FILE: one JSON object per line, a spec or a --sweep-log line (its "spec" and "group"; the log's
// summary line is skipped). Errors name the file and line.
// Read as a spec file is ('-': standard input): a regular file opened without blocking, within the size limit.
std::vector<SweepSpec> readListedCases(const std::string& file, std::string* error) {
  std::string text;
  try {
    text = specText(file);
  } catch (const SpecError& e) {
    *error = e.what();
    return {};
  }
  const std::string name = printableText(specFileName(file));
  std::vector<SweepSpec> out;
  std::string line;
  std::istringstream in(text);
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Json j;
    try {
      j = parseJsonText(line, fmt::format("{}:{}", specFileName(file), n));
    } catch (const SpecError& e) {
      *error = fmt::format("not JSON: {}", e.what());
      return {};
    }
    if (!j.is_object()) {
      *error = fmt::format("{}:{}: expected a JSON object (a spec or a --sweep-log line), found {}", name, n,
                           j.type_name());
      return {};
    }
    if (j.contains("summary")) continue;
    const bool logged = j.contains("spec") && j["spec"].is_object();
    out.push_back(
        SweepSpec{logged && j.contains("group") && j["group"].is_string() ? j["group"].get<std::string>() : "listed",
                  logged ? j["spec"] : j});
  }
  if (out.empty()) *error = fmt::format("{}: no cases", name);
  return out;
}

int cmdSweep(const Options& o) {
  if (!o.spec.empty()) {
    fmt::print(stderr, "error: bench: give a spec file or --sweep FAMILY, not both\n");
    return kBadInput;
  }
  const Family* family = findFamily(o.sweep);
  if (!family) {
    std::string known;
    for (const Family* f : families()) known += (known.empty() ? "" : ", ") + f->name();
    fmt::print(stderr, "error: --sweep: unknown family '{}' (expected one of: {})\n", printableText(o.sweep, 80),
               known);
    return kBadInput;
  }
  const SweepFacet* sweep = sweepFacet(*family);
  if (!sweep || sweep->sweepSpecs(1, 1).empty()) {
    fmt::print(stderr, "error: --sweep: the {} family draws no sweep cases (SweepFacet::sweepSpecs)\n", family->name());
    return kBadInput;
  }
  const std::uint64_t seed = seedOf(o);
  std::ofstream log;
  if (!o.sweepLog.empty()) {
    log.open(o.sweepLog, std::ios::trunc);
    if (!log) {
      fmt::print(stderr, "error: --sweep-log: cannot write {}\n", o.sweepLog);
      return kBadInput;
    }
  }
  SweepSelection select;
  select.group = o.sweepGroup;
  if (!o.sweepWith.empty()) {
    try {
      select.with = parseJsonText(o.sweepWith, "--sweep-with");
    } catch (const SpecError& e) {
      fmt::print(stderr, "error: not JSON: {}\n", e.what());
      return kBadInput;
    }
    if (!select.with.is_object()) {
      fmt::print(stderr, "error: --sweep-with: expected a JSON object of spec members, found {}\n",
                 select.with.type_name());
      return kBadInput;
    }
  }
  if (!o.sweepCases.empty()) {
    std::string error;
    select.listed = readListedCases(o.sweepCases, &error);
    if (!error.empty()) {
      fmt::print(stderr, "error: --sweep-cases: {}\n", error);
      return kBadInput;
    }
  }
  if (o.dryRun && !o.recordFile.empty()) {
    fmt::print(stderr, "error: --record: a --dry-run measures nothing\n");
    return kBadInput;
  }
  if (o.dryRun) {
    std::vector<SweepCase> cases = sweepCases(*family, seed, o.cases, select);
    std::map<std::string, std::pair<int, int>> groups;  // group -> (cases, ready)
    int ready = 0, errors = 0;
    for (const auto& c : cases) {
      fmt::print("[{:>4}/{}] {:<11} {:<36} [{}]{}\n", c.index + 1, cases.size(), sweepStatusName(c.status), c.name,
                 c.group, c.reason.empty() ? "" : "  " + c.reason.substr(0, 170));
      auto& g = groups[c.group];
      ++g.first;
      if (c.status == SweepStatus::Ready) ++g.second, ++ready;
      if (c.status == SweepStatus::Error) ++errors;
      if (log) log << sweepCaseJson(c).dump() << "\n";
    }
    for (const auto& [name, g] : groups)
      fmt::print("  {:<42} {:>4} cases, {:>4} parse and verify\n", name, g.first, g.second);
    fmt::print("dry run of the {} sweep, seed {}: {} of {} cases parse and verify ({:.0f}%), {} errors; nothing run\n",
               family->name(), seed, ready, cases.size(), 100.0 * ready / std::max<std::size_t>(cases.size(), 1),
               errors);
    return errors ? kFailed : kOk;
  }
  if (!requireDevice("bench --sweep")) return kCudaFailure;
  Compiler compiler;
  SweepOptions so;
  so.cases = o.cases;
  so.seed = seed;
  so.reps = o.repsGiven ? o.reps : 10;
  so.budgetSeconds = o.budget;
  so.select = select;
  int total = 0;  // the cases the selection keeps (drawing them is cheap: no parsing)
  for (const auto& sp : select.listed.empty() ? sweep->sweepSpecs(seed, o.cases) : select.listed)
    total += select.group.empty() || sp.group.find(select.group) != std::string::npos;
  // A group keeps its share of the cases drawn (the same seed draws the same cases with or without it): say how many.
  fmt::print("sweep of the {} family: {}, seed {}, defaults (no wisdom){}{}; budget {:.0f} s\n", family->name(),
             select.listed.empty() ? fmt::format("{} cases drawn", o.cases)
                                   : fmt::format("{} cases from {}", select.listed.size(), o.sweepCases),
             seed,
             select.group.empty()
                 ? ""
                 : fmt::format(", {} of them in a group containing '{}' (its share of the draw)", total, select.group),
             select.with.empty() ? "" : fmt::format(", with {}", select.with.dump()), o.budget);
  std::fflush(stdout);
  SweepReport r = runSweep(compiler, *family, so, [&](const SweepCase& c) {
    fmt::print("{}", formatSweepCase(c, total));
    std::fflush(stdout);
    if (log) log << sweepCaseJson(c).dump() << std::endl;  // flushed: a sweep cut off still leaves its cases
  });
  fmt::print("{}", formatSweep(r));
  const SweepStats st = sweepStats(r.cases);
  if (log) {
    Json worst = Json::array();
    for (std::size_t i : st.worst) worst.push_back(sweepCaseJson(r.cases[i]));
    log << Json{{"summary", true},
                {"family", r.family},
                {"seed", seed},
                {"device", r.device.name},
                {"cases", r.cases.size()},
                {"timed", st.ok},
                {"failed", st.failed},
                {"unsupported", st.unsupported},
                {"errors", st.errors},
                {"no_baseline", st.noBaseline},
                {"skipped", st.skipped},
                {"geomean", st.geomean},
                {"deciles", st.deciles},
                {"min", st.min},
                {"worst", worst},
                {"seconds", r.totalSeconds}}
               .dump()
        << std::endl;
    fmt::print("log: {} ({} lines, one per case, then a summary)\n", o.sweepLog, r.cases.size() + 1);
  }
  if (!o.recordFile.empty()) {
    appendResult(o.recordFile, sweepResult(r, st, seed, o.commandLine));
    fmt::print("recorded in {}\n", o.recordFile);
  }
  return st.failed || st.errors || !r.aborted.empty() ? kFailed : kOk;
}

}  // namespace

int cmdRun(const Options& o) {
  Json json;
  auto spec = loadWithWisdom(o, &json);
  verified(*spec, o);
  if (!requireDevice("run")) return kCudaFailure;
  Compiler compiler;
  const long long batch = o.batch ? o.batch : spec->defaultBatch();
  const std::uint64_t seed = seedOf(o);
  RunReport r;
  {
    Progress p(fmt::format("running {} (emit, compile, run, CPU reference)", spec->name()), o.progress);
    // The plan through the on-disk plan cache: a second run of the same spec skips emit and its NVRTC probe.
    CachedPlan plan = emitCached(json, spec->file(), defaultDeviceArch());
    r = runGenerated(compiler, *spec, Generated{std::move(plan.plan)}, {batch, seed, 1, true, {}});
  }
  fmt::print("device={} spec={} family={} batch={} seed={} kernels={} checked={} unwritten={}\n", r.device.name,
             spec->name(), spec->family().name(), batch, seed, r.kernels.size(), r.check.checked, r.check.unwritten);
  fmt::print("{}={:.3e} (bound {:.1e}; {}){}\n", r.check.exact ? "mismatches" : "max_rel_err", r.check.error,
             r.check.bound, r.check.detail,
             r.baselineError >= 0 ? fmt::format("; {} on the same input: {:.3e}", r.baselineName, r.baselineError)
                                  : "");
  fmt::print("warpforge {:.4f} ms (one run, {:.4g} units/s{})\n", r.ourMs, batch / (r.ourMs * 1e-3),
             r.baselineMs > 0 ? fmt::format("; baseline {:.4f} ms", r.baselineMs) : "");
  if (!r.check.ok()) fmt::print(stderr, "error: check failed (every output written and the error within the bound)\n");
  return r.check.ok() ? kOk : kFailed;
}

int cmdBench(const Options& o) {
  if (!o.sweep.empty() && o.checkVariants) {
    fmt::print(stderr, "error: bench: --check-variants checks a spec's variants; a --sweep times no variants\n");
    return kBadInput;
  }
  if (!o.sweep.empty()) return cmdSweep(o);
  if (o.spec.empty()) {
    fmt::print(stderr, "error: bench: give a spec file (or --sweep FAMILY)\n");
    return kBadInput;
  }
  if (o.tune && !o.ab.empty()) {
    fmt::print(stderr, "error: {}: --tune and --ab both choose what to time; give one\n",
               printableText(specFileName(o.spec)));
    return kBadInput;
  }
  if (!o.recordFile.empty() && !o.ab.empty()) {
    fmt::print(stderr,
               "error: {}: --record keeps the spec's own figure; an --ab variant is not one (record it as its own "
               "spec)\n",
               o.spec);
    return kBadInput;
  }
  // --tune starts from the spec as written and --ab compares with it; a plain bench uses this GPU's wisdom.
  auto spec = !o.ab.empty() ? withTuning(o.spec, o.ab) : o.tune ? loadSpecArg(o.spec) : loadWithWisdom(o);
  verified(*spec, o);
  // --ab needs only a spec with other tuning members (its parse checks them); --tune needs the family's search.
  if (o.tune && !tuneFacet(*spec)) {
    fmt::print(stderr, "error: {}: --tune: the {} family has no tuning search (time variants with --ab)\n",
               printableText(specFileName(o.spec)), spec->family().name());
    return kBadInput;
  }
  if (!requireDevice("bench")) return kCudaFailure;
  Compiler compiler;
  const long long batch = o.batch ? o.batch : spec->defaultBatch();
  if (o.tune) {
    fmt::print("tuning {} (batch {}, medians of {}):\n", spec->name(), batch, o.reps);
    int untimed = 0;
    auto t = tuneSpec(
        compiler, *spec, batch, o.reps,
        [](const TuneTrialReport& tr) {
          if (tr.ms > 0) fmt::print("  {:<16} {:8.4f} ms  {}\n", tr.stage, tr.ms, tr.geometry);
          else if (tr.error.rfind("not timed", 0) == 0) fmt::print("  {:<16}   untimed    {}\n", tr.stage, tr.error);
          else fmt::print("  {:<16}   failed     {}\n", tr.stage, tr.error);
        },
        o.budgetGiven ? o.budget : 0, &untimed);
    if (untimed > 0)
      fmt::print("--budget {:.0f} s: {} candidates not timed; the best below is the best of those timed\n", o.budget,
                 untimed);
    const auto &best = t->trials[t->best], &base = t->trials[t->baseline];
    fmt::print("best: {:.4f} ms vs {:.4f} ms as given ({:.2f}x) over {} candidates: {}\n  spec members: {}\n", best.ms,
               base.ms, base.ms / best.ms, t->trials.size(), best.geometry, t->specMembers.dump());
    Json j = parseJsonText(specText(o.spec), specFileName(o.spec));
    if (best.ms > 0) {  // FFTW's wisdom: later plans of this spec on this GPU start from the winner
      Wisdom wisdom;
      const WisdomDevice device = currentWisdomDevice();
      if (wisdom.record(j, device, t->specMembers, best.ms, base.ms))
        fmt::print(
            "wisdom recorded for {} (driver {}) in {}: `run` and `bench` of this spec use it (`warpforge wisdom "
            "list|clear`)\n",
            device.name, driverString(device.driverVersion), wisdom.path());
      printWisdomWarnings(wisdom);
    }
    for (auto it = t->specMembers.begin(); it != t->specMembers.end(); ++it) j[it.key()] = it.value();
    spec = parseSpec(j, specFileName(o.spec) + " as tuned");  // what follows benches the winner as printed
  }
  BenchReport r = benchSpec(compiler, *spec, batch, o.reps, o.checkVariants, o.variants, seedOf(o));
  // With --ab the table times B (the spec with the members merged), with --tune the winner: the first row says so.
  if (!r.rows.empty() && !o.ab.empty()) r.rows[0].name = "warpforge (B: with --ab)";
  else if (!r.rows.empty() && o.tune) r.rows[0].name = "warpforge (as tuned)";
  if (!o.ab.empty())
    fmt::print("table below: B = the spec with --ab {}; the A/B line after it compares B with A = the spec as given\n",
               o.ab);
  fmt::print("{}", formatBench(r));
  if (!o.recordFile.empty()) {
    appendResult(o.recordFile, benchResult(r, spec->family().name(), o.commandLine));
    fmt::print("recorded in {}\n", o.recordFile);
  }
  if (!o.ab.empty()) {
    AbResult ab = abSpecs(compiler, *loadSpecArg(o.spec), *spec, batch, o.reps);
    fmt::print(
        "A/B (medians of {}, interleaved A B A): as given {:.4f} ms (again {:.4f} ms), with {} {:.4f} ms: {:.3f}x as "
        "fast (A vs A {:.3f})\n",
        o.reps, ab.aMs, ab.aAgainMs, o.ab, ab.bMs, ab.aMs / ab.bMs, ab.aMs / ab.aAgainMs);
  }
  return benchChecksPassed(r) ? kOk : kFailed;
}

// Lists or clears what `bench --tune` recorded; needs no GPU.
int cmdWisdom(const Options& o) {
  Wisdom wisdom;
  if (o.wisdomAction == "clear") {
    const int removed = wisdom.clear();
    printWisdomWarnings(wisdom);
    if (removed < 0) {
      fmt::print(stderr, "error: wisdom clear: cannot rewrite {}\n", wisdom.path());
      return kFailed;
    }
    fmt::print("removed {} wisdom entr{} from {}\n", removed, removed == 1 ? "y" : "ies", wisdom.path());
    return kOk;
  }
  std::vector<WisdomEntry> entries = wisdom.entries();
  printWisdomWarnings(wisdom);
  if (entries.empty()) {
    fmt::print("no wisdom in {}\n", wisdom.path());
    return kOk;
  }
  fmt::print("{} wisdom entr{} in {}:\n", entries.size(), entries.size() == 1 ? "y" : "ies", wisdom.path());
  for (const auto& e : entries)
    fmt::print("  {}  {} ({}, driver {})  {}  spec {}  {}{}\n", e.date, e.device.name, e.device.arch,
               driverString(e.device.driverVersion), e.specName.empty() ? "-" : e.specName, e.specKey.substr(0, 12),
               e.members.dump(),
               e.ms > 0 && e.asGivenMs > 0
                   ? fmt::format("  ({:.4f} ms, {:.2f}x the defaults)", e.ms, e.asGivenMs / e.ms)
                   : "");
  return kOk;
}

}  // namespace warpforge::cli
