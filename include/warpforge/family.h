#pragma once
// The Family interface: what a user, the CLI and the runtime need from a
// kernel family, so that none of them names one. A family parses its spec
// into a FamilySpec; the spec verifies itself, emits kernels and a LaunchPlan,
// makes random inputs and checks outputs against its own CPU reference (double
// or exact integers; reference_check.h). What only the benchmarks, the tuner,
// the sweep and the emulator use are optional facets a family implements
// beside this interface (not installed; generator/core/Facets.h).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "warpforge/json.h"
#include "warpforge/launch_plan.h"
#include "warpforge/reference_check.h"
#include "warpforge/spec_error.h"

namespace warpforge {

// What ptxas reported for one kernel (-1: not reported).
struct CompileReport {
  int registers = -1, spillStoreBytes = -1, spillLoadBytes = -1, stackFrameBytes = -1;
  bool spills() const { return spillStoreBytes > 0 || spillLoadBytes > 0; }
};

// A compiler a family may consult while emitting (e.g. to pick a register target
// that does not spill). The runtime provides one over NVRTC; without one a family
// emits its first choice.
class CompileProbe {
 public:
  virtual ~CompileProbe() = default;
  virtual CompileReport compile(const std::string& source, const std::string& name, const std::string& arch) = 0;
};

struct EmitTarget {
  std::string arch = "sm_90";
  CompileProbe* probe = nullptr;
};

// The kernels and the plan that runs them.
struct Generated {
  LaunchPlan plan;
};

// What `verify` proved and counted.
struct VerifyReport {
  std::string text;              // human-readable, as `warpforge verify` prints it
  Json counts = Json::object();  // instruction counts, kernels, cost estimates: for `verify --json`
  std::vector<std::string> warnings;
};

// An inconsistent spec (well-formed, but it does not compute what it says): exit 1.
class InconsistentSpec : public std::runtime_error {
 public:
  struct Issue {
    std::string path, message;  // JSON pointer of the step or array; what is wrong
  };
  explicit InconsistentSpec(const std::string& what, std::vector<Issue> issues = {})
      : std::runtime_error(what), issues_(std::move(issues)) {}
  const std::vector<Issue>& issues() const { return issues_; }

 private:
  std::vector<Issue> issues_;
};

class Family;

class FamilySpec {
 public:
  virtual ~FamilySpec() = default;
  virtual const Family& family() const = 0;
  virtual const std::string& name() const = 0;
  virtual const std::string& file() const = 0;

  // Throws InconsistentSpec (exit 1) listing every problem; SpecError for form errors.
  virtual VerifyReport verify() const = 0;
  virtual std::string explain(const EmitTarget& target) const = 0;
  virtual Generated emit(const EmitTarget& target) const = 0;

  virtual long long defaultBatch() const { return 1 << 16; }
  virtual TestData randomInputs(long long batch, std::uint64_t seed) const = 0;
  // `outputs` holds every Output buffer's bytes after a run on `data`, poisoned with 0xff bytes before it.
  virtual Check check(const TestData& data, const std::map<std::string, std::vector<unsigned char>>& outputs,
                      long long batch) const = 0;
};

class Family {
 public:
  virtual ~Family() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;  // one line for `warpforge families`
  virtual std::unique_ptr<FamilySpec> parse(const Json& root, const std::string& file) const = 0;
  // `synthesize`: the spec with everything the family can fill in filled in (a design found by search, written out in
  // full and editable), or nullopt where the family fills in nothing. Errors as parse's.
  virtual std::optional<Json> complete(const Json& /*root*/, const std::string& /*file*/) const { return std::nullopt; }
};

// This generator's version ("0.6.0") and identity: the version and a hash of every source the generated kernels and
// plans depend on, so that a plan cached by another build (plan_cache.h) is never taken for this one's.
std::string generatorVersion();
std::string generatorId();

// The archs the generator emits for (the CLI's --arch, the Python binding's arch argument).
const std::vector<std::string>& targetArchs();

// The registered families (generator/<family>/ each registers one; see Registry.cpp).
const std::vector<const Family*>& families();
const Family* findFamily(const std::string& name);

// Parses a spec, dispatching on its "family" member (an unknown family is a SpecError at /family listing the known
// ones).
std::unique_ptr<FamilySpec> parseSpec(const Json& root, const std::string& file);
std::unique_ptr<FamilySpec> parseSpecText(const std::string& text, const std::string& file);
std::unique_ptr<FamilySpec> loadSpec(const std::string& file);

}  // namespace warpforge
