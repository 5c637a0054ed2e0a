#pragma once
// The warpforge subcommands. Results go to stdout, errors to stderr.
// Exit status: 0 success, 1 inconsistent spec or failed check, 2 bad input
// (malformed spec, bad option, unwritable output), 3 CUDA/NVRTC failure or no GPU.
#include <cstdint>
#include <string>
#include <vector>

#include "warpforge/family.h"

namespace warpforge::cli {

enum Exit { kOk = 0, kFailed = 1, kBadInput = 2, kCudaFailure = 3 };

struct Options {
  std::vector<std::string> specs;
  std::string spec;
  std::string mode = "double";
  std::uint64_t seed = 12345;
  int count = 16;
  std::string outDir;
  std::string arch = "sm_90";
  std::string cubinDir;
  long long batch = 0;  // 0: the family's default
  int reps = 50;
  bool json = false;    // verify --json
  bool noCompile = false;  // verify --no-compile: form and proof only, no NVRTC
  bool strict = false;  // warnings (tuning not honoured, ...) are errors: exit 2
  bool tune = false;    // bench --tune
  std::string ab;       // bench --ab: members merged into the spec's "tuning" object
};

// spec.verify(), its warnings printed on stderr; with --strict a warning is a SpecError (exit 2).
VerifyReport verified(const FamilySpec& spec, const Options& o);

int cmdVerify(const Options&);
int cmdExplain(const Options&);
int cmdEmulate(const Options&);
int cmdEmit(const Options&);
int cmdCompile(const Options&);
int cmdRun(const Options&);
int cmdBench(const Options&);
int cmdFamilies();

}  // namespace warpforge::cli
