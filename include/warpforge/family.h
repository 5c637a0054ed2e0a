#pragma once
// The Family interface: everything the CLI, the runtime and the benchmarks
// need from a kernel family, so that none of them names one. A family parses
// its spec into a FamilySpec; the spec verifies itself, emits kernels and a
// LaunchPlan, makes random inputs and checks outputs against its own CPU
// reference (double or exact integers; reference_check.h).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
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

// The library a user would otherwise call for the same transform, described so
// that bench/ can run it without knowing the family.
struct BaselineRequest {
  std::string kind;                // "fft" (cuFFT), "herk", "cgemm*", "fir_r2c" — the kinds bench/ knows
  std::vector<long long> lengths;  // fft: logical lengths, outermost first
  std::string transform;           // fft: c2c | r2c | c2r
  std::string precision;           // f16 | f32 | f64
  int sign = -1;
  std::string description;  // what the baseline's time covers
  // Dense input bytes (the baseline's own layout) for `data`, and the baseline's error
  // against the family's reference given its dense output bytes (-1 where not comparable).
  std::function<std::vector<unsigned char>(const TestData& data, long long batch)> denseInput;
  std::function<double(const std::vector<unsigned char>& denseOutput, const TestData& data, long long batch)> error;
  // fft: where the family's own arrays fit cuFFT's advanced layout (element (b, x0..x_{d-1}) at offset + b * distance +
  // ((x0 * embed[1] + x1) * embed[2] + ...) * stride), the baseline runs on them as they are, like for like:
  // denseInput then returns the family's input array and error reads the family's output array. Unset: dense arrays.
  struct FftLayout {
    std::vector<long long> embed;
    long long stride = 1, distance = 0, offset = 0;
    long long span = 0;  // elements one batch entry spans (last address + 1 - offset)
  };
  std::optional<FftLayout> inLayout, outLayout;
  bool inPlace = false;  // with layouts: one array, transformed in place
  // "fir_r2c" (bench/FirR2cBaseline.cpp): the real-input channeliser a cuFFT user writes, lengths = {streams, spectra
  // per stream, L, taps}: a FIR kernel (spectrum s of stream q: y[i] = sum_j weights[j L + i] x_q[(s + j) L + i]),
  // cufftExecR2C of L points, a kernel multiplying channel k < L / 2 by gain e^{i (phi - pi d k / (L / 2))} and storing
  // it as cf32 or ci8 (round half to even, saturate to +-127) at element q / pols * receiverStride + q % pols *
  // polStride + k * channelStride + (s / timeBlock) * blockStride + (s % timeBlock) * timeStride of the batch entry.
  // denseInput returns the samples as the family's input holds them (streams of streamBytes, one after another).
  struct FirR2c {
    int sampleBits = 8;
    bool packed = false;  // big-endian bit-packed two's complement; else int8 or little-endian int16
    long long streamBytes = 0;
    std::vector<float> weights;  // taps x L, tap-major
    std::string gains,
        delays;      // TestData arrays: float2 [stream][channel], float2 (d, phi) [batch][stream][spectrum]; "": none
    float gain = 1;  // where there is no gains array
    bool ci8 = true;
    int pols = 1, timeBlock = 1;
    long long receiverStride = 0, polStride = 0, channelStride = 0, blockStride = 0, timeStride = 0, outputPerBatch = 0;
  };
  std::optional<FirR2c> firR2c;
};

// Timing a family's candidates on the device, for tuning (bench/ provides it).
class TuneTimer {
 public:
  virtual ~TuneTimer() = default;
  // Median milliseconds of each plan on the same buffers; a negative value and a message where one failed.
  virtual std::vector<double> time(const std::vector<Generated>& candidates, std::vector<std::string>* errors) = 0;
  virtual std::string arch() = 0;
  virtual CompileProbe* probe() = 0;
};

struct TuneTrialReport {
  std::string stage, geometry, error;
  double ms = -1;
};
struct TuneOutcome {
  std::vector<TuneTrialReport> trials;
  std::size_t best = 0, baseline = 0;
  Json specMembers = Json::object();  // what to paste into the spec (members of its root object)
};

// A variant of a spec's kernels that `bench` times beside the default.
struct BenchVariant {
  std::string name;
  Generated generated;
  long long batch = 0;  // 0: the bench's batch
  long long repeats =
      0;  // > 0: the "repeats" parameter; the kernel repeats its work in registers (SM-cycles per unit are reported)
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

  virtual std::optional<BaselineRequest> baseline() const { return std::nullopt; }
  virtual std::vector<BenchVariant> benchVariants(const EmitTarget&) const { return {}; }
  // Extra lines for `bench`, given the variants' median times (e.g. cycles per unit against the model).
  virtual std::string benchNotes(const std::vector<double>& /*variantMs*/, double /*clockKHz*/, int /*sms*/) const {
    return {};
  }
  // The same with the batch each variant ran at (bench picks one full wave for register-resident repeats).
  virtual std::string benchNotes(const std::vector<double>& variantMs, const std::vector<long long>& /*variantBatch*/,
                                 double clockKHz, int sms) const {
    return benchNotes(variantMs, clockKHz, sms);
  }
  // `bench --tune`: search the family's tuning space on the device; nullopt where the family has none.
  virtual bool hasTuner() const { return false; }
  virtual std::optional<TuneOutcome> tune(TuneTimer&, long long /*batch*/,
                                          const std::function<void(const TuneTrialReport&)>&) const {
    return std::nullopt;
  }
  // `emulate`: nullopt where the family has no emulator.
  virtual std::optional<std::string> emulate(const std::string& /*mode*/, std::uint64_t /*seed*/, int /*count*/) const {
    return std::nullopt;
  }
};

// A spec a user might write, drawn at random for `bench --sweep`; `group` names the class it was drawn from.
struct SweepSpec {
  std::string group;
  Json spec;
};

class Family {
 public:
  virtual ~Family() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;  // one line for `warpforge families`
  virtual std::unique_ptr<FamilySpec> parse(const Json& root, const std::string& file) const = 0;
  // `bench --sweep`: `count` specs a user might write, drawn from the family's classes of sizes and layouts
  // (the same seed, the same specs). Specs the family cannot build yet are kept: their parse throws the
  // SpecError that the sweep reports as unsupported. The sweep calls emit() on several threads at once.
  // None by default (the family has no sweep).
  virtual std::vector<SweepSpec> sweepSpecs(std::uint64_t /*seed*/, int /*count*/) const { return {}; }
  // `synthesize`: the spec with everything the family can fill in filled in (a design found by search, written out in
  // full and editable), or nullopt where the family fills in nothing. Errors as parse's.
  virtual std::optional<Json> complete(const Json& /*root*/, const std::string& /*file*/) const { return std::nullopt; }
};

// This generator's version ("0.6.0") and identity: the version and a hash of every source the generated kernels and
// plans depend on, so that a plan cached by another build (plan_cache.h) is never taken for this one's.
std::string generatorVersion();
std::string generatorId();

// The registered families (generator/<family>/ each registers one; see Registry.cpp).
const std::vector<const Family*>& families();
const Family* findFamily(const std::string& name);

// Parses a spec, dispatching on its "family" member (an unknown family is a SpecError at /family listing the known
// ones).
std::unique_ptr<FamilySpec> parseSpec(const Json& root, const std::string& file);
std::unique_ptr<FamilySpec> parseSpecText(const std::string& text, const std::string& file);
std::unique_ptr<FamilySpec> loadSpec(const std::string& file);

}  // namespace warpforge
