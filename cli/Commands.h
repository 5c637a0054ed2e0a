#pragma once
// The warpforge subcommands. Results go to stdout, errors to stderr.
// Exit status: 0 success, 1 inconsistent spec or failed check, 2 bad input (malformed spec,
// tuning that cannot be met, bad option, unreadable or unwritable file), 3 CUDA/NVRTC failure or
// no GPU, 4 internal error (a warpforge defect: please report it).
#include <cstdint>
#include <string>
#include <vector>

#include "warpforge/family.h"

namespace warpforge::cli {

enum Exit { kOk = 0, kFailed = 1, kBadInput = 2, kCudaFailure = 3, kInternal = 4 };

// The exit status of an exception escaping a command, and its message for stderr (user text escaped):
// SpecError and std::invalid_argument 2, InconsistentSpec 1, other std::runtime_error (CUDA, NVRTC,
// the driver: what the runtime throws) 3, anything else (logic_error, a JSON type error, ...) 4.
int exitStatus(const std::exception& e);
std::string errorText(const std::exception& e);
// Text that may hold user text, one line at a time through printableText() (its newlines kept).
std::string printableLines(const std::string& text);

// A spec argument: a file, or "-" for standard input (read once, shown as "<stdin>"; the same size limit).
std::string specText(const std::string& arg);
std::string specFileName(const std::string& arg);
std::unique_ptr<FamilySpec> loadSpecArg(const std::string& arg);

struct Options {
  std::vector<std::string> specs;
  std::string spec;
  std::string mode = "double";
  std::uint64_t seed = 12345;
  int count = 16;
  std::string outDir;
  std::string outFile;  // synthesize -o
  std::string arch = "sm_90";
  std::string cubinDir;
  long long batch = 0;  // 0: the family's default
  int reps = 50;
  bool json = false;           // verify --json
  bool noCompile = false;      // verify --no-compile: form and proof only, no NVRTC
  bool strict = false;         // warnings (tuning not honoured, ...) are errors: exit 2
  bool tune = false;           // bench --tune
  std::string variants;        // bench --variants: a filter on the variants' names ("none": no variant)
  bool checkVariants = false;  // bench --check-variants: each variant checked as the default is, before the timing
  std::string ab;              // bench --ab: members merged into the spec's "tuning" object
  bool seedGiven = false;      // --seed was given (run and bench --sweep draw a new seed otherwise)
  bool repsGiven = false;
  std::string sweep;     // bench --sweep FAMILY
  int cases = 300;       // bench --sweep: number of specs drawn
  std::string sweepLog;  // bench --sweep-log FILE: one JSON line per case
  double budget = 540;   // bench --sweep: seconds after which no case starts; bench --tune: no candidate timed
  bool budgetGiven = false;
  bool dryRun = false;       // bench --sweep --dry-run: draw, parse and verify the cases only (no GPU)
  std::string sweepGroup;    // bench --sweep-group TEXT: keep the drawn cases whose group contains TEXT
  std::string sweepWith;     // bench --sweep-with JSON: members merged into every case's spec
  std::string sweepCases;    // bench --sweep-cases FILE: the specs listed there instead of a random draw
  bool noWisdom = false;     // run/bench --no-wisdom: the spec's defaults, whatever `bench --tune` recorded
  std::string wisdomAction;  // wisdom list | clear
  std::string recordFile;    // bench --record FILE: append the measurement to this results file (bench/Results.h)
  std::string resultsFile = "bench/results.jsonl";  // results [FILE]
  std::string commandLine;                          // how warpforge was called, as a record's "command"
  bool planJson = false;  // emit --plan-json: also <name>_plan.json, the plan as data (plan_json.h)
  bool cubins = false;    // emit --cubins: the plan file carries each source's CUBIN for --arch
  bool progress = false;  // --progress: progress lines on stderr even where it is not a terminal
};

// spec.verify(), its warnings printed on stderr; with --strict a warning is a SpecError (exit 2).
VerifyReport verified(const FamilySpec& spec, const Options& o);

int cmdVerify(const Options&);
int cmdExplain(const Options&);
int cmdSynthesize(const Options&);
int cmdEmulate(const Options&);
int cmdEmit(const Options&);
int cmdCompile(const Options&);
int cmdRun(const Options&);
int cmdBench(const Options&);
int cmdWisdom(const Options&);
int cmdResults(const Options&);
int cmdFamilies();

}  // namespace warpforge::cli
