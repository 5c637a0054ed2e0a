// warpforge: verify, explain, emulate, emit, compile, run and bench kernel specs of any family.
// Exit status: see cli/Commands.h (and README "CLI").
#include <cstdio>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/Commands.h"
#include "warpforge/family.h"

namespace {

// "warpforge bench specs/x.json --reps 20": the call as a shell would take it back (a record's command).
std::string commandLine(int argc, char** argv) {
  std::string s = "warpforge";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool plain = !a.empty() && a.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") ==
                                         std::string::npos;
    std::string quoted = "'";
    for (char c : a) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    s += " " + (plain ? a : quoted + "'");
  }
  return s;
}
}  // namespace

int main(int argc, char** argv) {
  using namespace warpforge::cli;
  CLI::App app{"warpforge: specialised, layout-checked CUDA kernels from JSON specs"};
  app.footer(
      "A spec argument '-' reads the spec from standard input.\n"
      "Exit status: 0 success; 1 inconsistent spec, failed check or a kernel that spills; 2 bad input (malformed spec, "
      "tuning that "
      "cannot be met, bad option, unreadable or unwritable file; with --strict, a warning); 3 CUDA/NVRTC failure or no "
      "GPU; 4 internal "
      "error (a warpforge defect: please report it).");
  app.set_version_flag("--version", std::string("warpforge ") + WARPFORGE_VERSION);
  app.require_subcommand(1);
  Options o;

  auto* verify = app.add_subcommand("verify",
                                    "check each spec (every file, each reported); print what was proved and counted");
  verify->add_option("specs", o.specs, "spec files ('-': standard input)")->required();
  verify->add_flag("--json", o.json,
                   "one JSON object per spec on stdout: {file, ok, family, errors: [{path, message}], counts, "
                   "kernels}");
  verify->add_option("--arch", o.arch, "also emit and NVRTC-compile the plan for this target; spills are warnings")
      ->check(CLI::IsMember(warpforge::targetArchs()));
  verify->add_flag("--no-compile", o.noCompile, "form and proof only: skip emitting and compiling the plan");

  auto* explain = app.add_subcommand("explain", "how the spec maps onto kernels, fragments and registers");
  explain->add_option("spec", o.spec, "spec file ('-': standard input)")->required();
  explain->add_option("--arch", o.arch, "target architecture")->check(CLI::IsMember(warpforge::targetArchs()));

  auto* synthesize = app.add_subcommand("synthesize",
                                        "fill in what the spec leaves to the generator (a design found by search); "
                                        "write the complete spec");
  synthesize->add_option("spec", o.spec, "spec file ('-': standard input)")->required();
  synthesize->add_option("-o,--output", o.outFile, "where to write the complete spec (JSON); default: stdout");

  auto* emulate = app.add_subcommand(
      "emulate", "run the verified steps on an emulated warp against the reference (families with an emulator)");
  emulate->add_option("spec", o.spec, "spec file ('-': standard input)")->required();
  emulate->add_option("--mode", o.mode, "double or f16")->check(CLI::IsMember({"double", "f16"}));
  emulate->add_option("--seed", o.seed, "random seed")->check(CLI::NonNegativeNumber);
  emulate->add_option("--ffts,--count", o.count, "number of random inputs")->check(CLI::Range(1, 100000));

  auto* emit = app.add_subcommand("emit",
                                  "write every kernel's .cu, the helper headers and <name>_plan.h to a directory");
  emit->add_option("spec", o.spec, "spec file ('-': standard input)")->required();
  emit->add_option("-o,--output", o.outDir, "output directory")->required();
  emit->add_option("--arch", o.arch, "target the kernels are made for (register targets that do not spill)")
      ->check(CLI::IsMember(warpforge::targetArchs()));
  emit->add_flag("--plan-json", o.planJson,
                 "also write <name>_plan.json: the plan as data (buffers, tables, kernels, grid rules, sources) that "
                 "warpforge::runtime loads "
                 "and runs without the generator");
  emit->add_flag("--cubins", o.cubins,
                 "with --plan-json: NVRTC-compile every source for --arch and reference the CUBINs from the plan file");

  auto* compile = app.add_subcommand(
      "compile", "NVRTC-compile every kernel of the plan (no GPU needed); registers, stack and spills");
  compile->add_option("spec", o.spec, "spec file ('-': standard input)")->required();
  compile->add_option("--arch", o.arch, "target")->check(CLI::IsMember(warpforge::targetArchs()));
  compile->add_option("--cubin", o.cubinDir, "also write <kernel>.cubin for every kernel into this directory");

  auto* run = app.add_subcommand("run", "GPU: fresh random input, poisoned outputs, compare with the CPU reference");
  run->add_option("spec", o.spec, "spec file ('-': standard input)")->required();
  run->add_option("--batch", o.batch, "batch entries (default: the family's)")->check(CLI::Range(1LL, 1LL << 28));
  auto* runSeed = run->add_option("--seed", o.seed, "random seed (default: a new one each run; printed)")
                      ->check(CLI::NonNegativeNumber);
  run->add_flag("--no-wisdom", o.noWisdom,
                "ignore what `bench --tune` recorded for this spec on this GPU (the spec's defaults)");

  auto* bench = app.add_subcommand(
      "bench", "GPU: the plan, the baseline library and the copy ceiling timed interleaved; medians");
  bench->add_option("spec", o.spec, "spec file ('-': standard input; or --sweep FAMILY)");
  bench->add_option("--batch", o.batch, "batch entries (default: the family's)")->check(CLI::Range(1LL, 1LL << 28));
  auto* benchReps = bench->add_option("--reps", o.reps, "timed repetitions (default 50; 10 with --sweep)")
                        ->check(CLI::Range(1, 10000));
  bench->add_flag("--tune", o.tune,
                  "search the family's tuning space on this GPU first; print the best as spec JSON, record it as "
                  "wisdom for this GPU, then bench it");
  bench->add_flag("--no-wisdom", o.noWisdom,
                  "ignore what `bench --tune` recorded for this spec on this GPU (the spec's defaults)");
  bench->add_option("--sweep", o.sweep,
                    "instead of a spec: the family's specs drawn at random, each against its baseline; statistics");
  bench->add_option("--cases", o.cases, "--sweep: number of specs (default 300)")->check(CLI::Range(1, 100000));
  auto* benchSeed = bench
                        ->add_option("--seed", o.seed,
                                     "the check's random inputs, or with --sweep the draw (default: a new one each "
                                     "run, printed)")
                        ->check(CLI::NonNegativeNumber);
  bench->add_option("--sweep-log", o.sweepLog, "--sweep: write one JSON object per case to this file");
  auto* benchBudget = bench
                          ->add_option("--budget", o.budget,
                                       "--sweep: seconds after which no case starts (default 540); --tune: seconds "
                                       "after which no candidate is timed (default: none)")
                          ->check(CLI::Range(1.0, 1e6));
  bench->add_flag("--dry-run", o.dryRun, "--sweep: draw, parse and verify the cases only (no GPU); list them");
  bench->add_option("--sweep-group", o.sweepGroup,
                    "--sweep: keep only the drawn cases whose group contains this text (e.g. \"prime\"): its share "
                    "of --cases");
  bench->add_option("--sweep-with", o.sweepWith,
                    "--sweep: JSON members merged into every case's spec, e.g. '{\"tuning\": {\"bluestein\": "
                    "\"smooth\"}}' (same seed: an A/B)");
  bench->add_option("--sweep-cases", o.sweepCases,
                    "--sweep: time the specs listed in this file (one JSON object per line: a spec, or a --sweep-log "
                    "line, whose "
                    "\"spec\" is taken) instead of a random draw");
  bench->add_option("--ab", o.ab,
                    "tuning members as a JSON object, e.g. '{\"work_queue\": true}': check the spec with them, "
                    "then time it against the spec as given, interleaved in one process");
  bench->add_flag("--check-variants", o.checkVariants,
                  "also check every variant that computes the spec's outputs against the reference (fresh inputs, "
                  "poisoned outputs, the default's bound) before timing; exit 1 if one fails");
  bench->add_option("--variants", o.variants,
                    "time only the variants whose name contains this text (alternatives separated by '|'; 'none': the "
                    "default, the baseline and the copy ceiling alone)");
  bench->add_option("--record", o.recordFile,
                    "append the measurement (or the sweep's summary) to this results file, e.g. bench/results.jsonl");

  auto* results = app.add_subcommand(
      "results", "the current figures of a results file (bench/results.jsonl) as bench/RESULTS.md's tables");
  results->add_option("file", o.resultsFile, "results file (default bench/results.jsonl)")->check(CLI::ExistingFile);
  results->add_option("-o,--output", o.outFile, "write the markdown here (default: stdout)");

  auto* fams = app.add_subcommand("families", "list the kernel families this build knows");

  auto* wisdom = app.add_subcommand(
      "wisdom", "what `bench --tune` recorded per GPU and spec (applied by run, bench and the library)");
  wisdom->add_option("action", o.wisdomAction, "list or clear")->required()->check(CLI::IsMember({"list", "clear"}));
  for (auto* c : {verify, explain, emit, compile, run, bench})
    c->add_flag("--strict", o.strict,
                "treat the spec's warnings (tuning that cannot be honoured, ...) as errors (exit 2)");
  for (auto* c : {verify, explain, emit, compile, run, bench})
    c->add_flag("--progress", o.progress,
                "report work that takes over a second on stderr even where it is not a terminal (always on a "
                "terminal)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : kBadInput;
  }
  o.commandLine = commandLine(argc, argv);
  o.seedGiven = benchSeed->count() > 0 || runSeed->count() > 0;
  o.repsGiven = benchReps->count() > 0;
  o.budgetGiven = benchBudget->count() > 0;
  try {
    if (*verify) return cmdVerify(o);
    if (*explain) return cmdExplain(o);
    if (*synthesize) return cmdSynthesize(o);
    if (*emulate) return cmdEmulate(o);
    if (*emit) return cmdEmit(o);
    if (*compile) return cmdCompile(o);
    if (*run) return cmdRun(o);
    if (*bench) return cmdBench(o);
    if (*fams) return cmdFamilies();
    if (*wisdom) return cmdWisdom(o);
    if (*results) return cmdResults(o);
  } catch (const warpforge::InconsistentSpec& e) {
    fmt::print(stderr, "error: {}: INCONSISTENT\n{}", warpforge::printableText(specFileName(o.spec)),
               printableLines(e.what()));
    return kFailed;
  } catch (const std::exception& e) {  // the status by kind: see exitStatus()
    fmt::print(stderr, "error: {}\n", errorText(e));
    return exitStatus(e);
  } catch (...) {
    fmt::print(stderr,
               "error: internal error (a warpforge defect; please report it with the spec): an exception that is not a "
               "std::exception\n");
    return kInternal;
  }
  return kBadInput;
}
