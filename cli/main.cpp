// warpforge: verify, explain, emulate, emit, compile, run and bench kernel specs of any family.
// Exit status: see cli/Commands.h (and README "CLI").
#include <cstdio>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/Commands.h"
#include "warpforge/family.h"

namespace {
const std::vector<std::string> kArchs = {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"};
}

int main(int argc, char** argv) {
  using namespace warpforge::cli;
  CLI::App app{"warpforge: specialised, layout-checked CUDA kernels from JSON specs"};
  app.set_version_flag("--version", std::string("warpforge ") + WARPFORGE_VERSION);
  app.require_subcommand(1);
  Options o;

  auto* verify = app.add_subcommand("verify", "check each spec (every file, each reported); print what was proved and counted");
  verify->add_option("specs", o.specs, "spec files")->required()->check(CLI::ExistingFile);
  verify->add_flag("--json", o.json, "one JSON object per spec on stdout: {file, ok, family, errors: [{path, message}], counts, kernels}");
  verify->add_option("--arch", o.arch, "also emit and NVRTC-compile the plan for this target; spills are warnings")->check(CLI::IsMember(kArchs));
  verify->add_flag("--no-compile", o.noCompile, "form and proof only: skip emitting and compiling the plan");

  auto* explain = app.add_subcommand("explain", "how the spec maps onto kernels, fragments and registers");
  explain->add_option("spec", o.spec, "spec file")->required()->check(CLI::ExistingFile);
  explain->add_option("--arch", o.arch, "target architecture")->check(CLI::IsMember(kArchs));

  auto* emulate = app.add_subcommand("emulate", "run the verified steps on an emulated warp against the reference (families with an emulator)");
  emulate->add_option("spec", o.spec, "spec file")->required()->check(CLI::ExistingFile);
  emulate->add_option("--mode", o.mode, "double or f16")->check(CLI::IsMember({"double", "f16"}));
  emulate->add_option("--seed", o.seed, "random seed");
  emulate->add_option("--ffts,--count", o.count, "number of random inputs")->check(CLI::Range(1, 100000));

  auto* emit = app.add_subcommand("emit", "write every kernel's .cu, the helper headers and <name>_plan.h to a directory");
  emit->add_option("spec", o.spec, "spec file")->required()->check(CLI::ExistingFile);
  emit->add_option("-o,--output", o.outDir, "output directory")->required();
  emit->add_option("--arch", o.arch, "target the kernels are made for (register targets that do not spill)")->check(CLI::IsMember(kArchs));
  emit->add_flag("--plan-json", o.planJson,
                 "also write <name>_plan.json: the plan as data (buffers, tables, kernels, grid rules, sources) that warpforge::runtime loads "
                 "and runs without the generator");
  emit->add_flag("--cubins", o.cubins, "with --plan-json: NVRTC-compile every source for --arch and reference the CUBINs from the plan file");

  auto* compile = app.add_subcommand("compile", "NVRTC-compile every kernel of the plan (no GPU needed); registers, stack and spills");
  compile->add_option("spec", o.spec, "spec file")->required()->check(CLI::ExistingFile);
  compile->add_option("--arch", o.arch, "target")->check(CLI::IsMember(kArchs));
  compile->add_option("--cubin", o.cubinDir, "also write <kernel>.cubin for every kernel into this directory");

  auto* run = app.add_subcommand("run", "GPU: fresh random input, poisoned outputs, compare with the CPU reference");
  run->add_option("spec", o.spec, "spec file")->required()->check(CLI::ExistingFile);
  run->add_option("--batch", o.batch, "batch entries (default: the family's)")->check(CLI::Range(1LL, 1LL << 28));
  run->add_option("--seed", o.seed, "random seed (printed)");
  run->add_flag("--no-wisdom", o.noWisdom, "ignore what `bench --tune` recorded for this spec on this GPU (the spec's defaults)");

  auto* bench = app.add_subcommand("bench", "GPU: the plan, the baseline library and the copy ceiling timed interleaved; medians");
  bench->add_option("spec", o.spec, "spec file (or --sweep FAMILY)")->check(CLI::ExistingFile);
  bench->add_option("--batch", o.batch, "batch entries (default: the family's)")->check(CLI::Range(1LL, 1LL << 28));
  auto* benchReps = bench->add_option("--reps", o.reps, "timed repetitions (default 50; 10 with --sweep)")->check(CLI::Range(1, 10000));
  bench->add_flag("--tune", o.tune,
                  "search the family's tuning space on this GPU first; print the best as spec JSON, record it as wisdom for this GPU, then bench it");
  bench->add_flag("--no-wisdom", o.noWisdom, "ignore what `bench --tune` recorded for this spec on this GPU (the spec's defaults)");
  bench->add_option("--sweep", o.sweep, "instead of a spec: the family's specs drawn at random, each against its baseline; statistics");
  bench->add_option("--cases", o.cases, "--sweep: number of specs (default 300)")->check(CLI::Range(1, 100000));
  auto* benchSeed = bench->add_option("--seed", o.seed, "--sweep: the seed of the draw (default: a new one each run, printed)");
  bench->add_option("--sweep-log", o.sweepLog, "--sweep: write one JSON object per case to this file");
  bench->add_option("--budget", o.budget, "--sweep: seconds after which no case starts (default 540)")->check(CLI::Range(1.0, 1e6));
  bench->add_flag("--dry-run", o.dryRun, "--sweep: draw, parse and verify the cases only (no GPU); list them");
  bench->add_option("--sweep-group", o.sweepGroup, "--sweep: keep only the drawn cases whose group contains this text (e.g. \"prime\")");
  bench->add_option("--sweep-with", o.sweepWith,
                    "--sweep: JSON members merged into every case's spec, e.g. '{\"tuning\": {\"bluestein\": \"smooth\"}}' (same seed: an A/B)");
  bench->add_option("--sweep-cases", o.sweepCases,
                    "--sweep: time the specs listed in this file (one JSON object per line: a spec, or a --sweep-log line, whose "
                    "\"spec\" is taken) instead of a random draw");
  bench->add_option("--ab", o.ab,
                    "tuning members as a JSON object, e.g. '{\"work_queue\": true}': check the spec with them, "
                    "then time it against the spec as given, interleaved in one process");

  auto* fams = app.add_subcommand("families", "list the kernel families this build knows");

  auto* wisdom = app.add_subcommand("wisdom", "what `bench --tune` recorded per GPU and spec (applied by run, bench and the library)");
  wisdom->add_option("action", o.wisdomAction, "list or clear")->required()->check(CLI::IsMember({"list", "clear"}));
  for (auto* c : {verify, explain, emit, compile, run, bench})
    c->add_flag("--strict", o.strict, "treat the spec's warnings (tuning that cannot be honoured, ...) as errors (exit 2)");
  for (auto* c : {verify, explain, emit, compile, run, bench})
    c->add_flag("--progress", o.progress, "report work that takes over a second on stderr even where it is not a terminal (always on a terminal)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : kBadInput;
  }
  o.seedGiven = benchSeed->count() > 0;
  o.repsGiven = benchReps->count() > 0;
  try {
    if (*verify) return cmdVerify(o);
    if (*explain) return cmdExplain(o);
    if (*emulate) return cmdEmulate(o);
    if (*emit) return cmdEmit(o);
    if (*compile) return cmdCompile(o);
    if (*run) return cmdRun(o);
    if (*bench) return cmdBench(o);
    if (*fams) return cmdFamilies();
    if (*wisdom) return cmdWisdom(o);
  } catch (const warpforge::SpecError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return kBadInput;
  } catch (const warpforge::InconsistentSpec& e) {
    fmt::print(stderr, "error: {}: INCONSISTENT\n{}", o.spec, e.what());
    return kFailed;
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return kBadInput;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return kCudaFailure;
  }
  return kBadInput;
}
