// warpforge: verify, explain, emulate, emit, compile, run and bench kernel specs.
// Exit status: 0 success, 1 inconsistent spec or failed check, 2 bad input
// (malformed spec, bad option), 3 CUDA/NVRTC failure.
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/Commands.h"
#include "generator/spec/SpecError.h"
#include "generator/verify/Verifier.h"

int main(int argc, char** argv) {
  using namespace warpforge::cli;
  CLI::App app{"warpforge: register-layout-checked CUDA kernel generator (tc_fft family)"};
  app.require_subcommand(1);
  Options o;

  auto* verify = app.add_subcommand("verify", "prove each spec's register layouts consistent; print counts and cost");
  verify->add_option("specs", o.specs, "spec files")->required()->check(CLI::ExistingFile);

  auto* explain = app.add_subcommand("explain", "tc_fft: how each step maps logical bits onto fragments and registers; "
                                                 "stockham: each kernel's launch geometry and radix passes");
  explain->add_option("spec", o.spec, "spec file")->required()->check(CLI::ExistingFile);
  explain->add_option("--arch", o.arch, "stockham: target whose spill-free register target is shown")
      ->check(CLI::IsMember({"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"}));

  auto* emulate = app.add_subcommand("emulate", "run the verified steps on an emulated warp and compare with FFTW");
  emulate->add_option("spec", o.spec, "spec file")->required()->check(CLI::ExistingFile);
  emulate->add_option("--mode", o.mode, "double or f16")->check(CLI::IsMember({"double", "f16"}));
  emulate->add_option("--seed", o.seed, "random seed");
  emulate->add_option("--ffts", o.ffts, "number of random inputs")->check(CLI::Range(1, 100000));

  auto* emit = app.add_subcommand("emit", "write <name>.cu, <name>.h and the helper headers to a directory");
  emit->add_option("spec", o.spec, "spec file")->required()->check(CLI::ExistingFile);
  emit->add_option("-o,--output", o.outDir, "output directory")->required();

  auto* compile = app.add_subcommand("compile", "NVRTC-compile a spec to CUBIN (no GPU needed) and print the compiler's report");
  compile->add_option("spec", o.spec, "spec file")->required()->check(CLI::ExistingFile);
  compile->add_option("--arch", o.arch, "target, e.g. sm_80, sm_90")->check(CLI::IsMember({"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"}));
  compile->add_option("--cubin", o.cubinOut, "also write the CUBIN here");

  auto* run = app.add_subcommand("run", "run on the GPU against FFTW in double; print max_rel_err and FFT/s");
  run->add_option("spec", o.spec, "spec file")->required()->check(CLI::ExistingFile);
  run->add_option("--batch", o.batch, "number of FFTs")->check(CLI::Range(1LL, 1LL << 28));
  run->add_option("--seed", o.seed, "random seed");

  auto* bench = app.add_subcommand("bench", "time the kernel against cuFFT and in-register; print medians");
  bench->add_option("spec", o.spec, "spec file")->required()->check(CLI::ExistingFile);
  bench->add_option("--batch", o.batch, "number of FFTs")->check(CLI::Range(1LL, 1LL << 28));
  bench->add_option("--reps", o.reps, "timed repetitions")->check(CLI::Range(1, 10000));
  bench->add_flag("--tune", o.tune, "stockham: search factors and launch geometry on this GPU, print the best as spec JSON, then bench it");
  bench->add_option("--ab", o.ab,
                    "stockham: tuning members as a JSON object, e.g. '{\"work_queue\": true}': check the spec with them against FFTW, "
                    "then time it against the spec as given, interleaved in one process");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    if (*verify) return cmdVerify(o);
    if (*explain) return cmdExplain(o);
    if (*emulate) return cmdEmulate(o);
    if (*emit) return cmdEmit(o);
    if (*compile) return cmdCompile(o);
    if (*run) return cmdRun(o);
    if (*bench) return cmdBench(o);
  } catch (const warpforge::SpecError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 2;
  } catch (const warpforge::VerifyError& e) {
    fmt::print(stderr, "error: spec is inconsistent:\n{}", e.what());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 3;
  }
  return 2;
}
