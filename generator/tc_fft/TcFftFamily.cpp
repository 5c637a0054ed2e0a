#include "generator/tc_fft/TcFftFamily.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "generator/emulate/Emulator.h"
#include "generator/tc_fft/TcFftBench.h"
#include "generator/tc_fft/TcFftData.h"
#include "generator/tc_fft/TcFftEmitter.h"
#include "generator/tc_fft/TcFftPairEmitter.h"
#include "generator/tc_fft/TcFftParser.h"
#include "generator/tc_fft/TcFftQuadEmitter.h"
#include "generator/tc_fft/TcFftQuadHalfPass.h"
#include "generator/tc_fft/TcFftSpecJson.h"
#include "generator/tc_fft/SynthesisReport.h"
#include "generator/verify/Report.h"
#include "generator/verify/Verifier.h"

namespace warpforge {

namespace {

class TcFftSpec final : public FamilySpec, public BenchFacet, public EmulateFacet {
 public:
  TcFftSpec(LayoutProgram program, TcFftDistances d, std::optional<TcFftSynthesis> synthesis)
      : program_(std::move(program)), synthesis_(std::move(synthesis)) {
    distances_.input = d.input ? d.input : program_.nIn;
    distances_.output = d.output ? d.output : program_.nOut;
    // The Plan points into program_, which lives as long as this (heap-held, never moved) object.
    try {
      plan_ = Verifier().verify(program_);
    } catch (const VerifyError& e) {
      inconsistent_ = e.what();
      for (const auto& i : e.issues()) issues_.push_back({i.path, i.message});
    }
  }
  TcFftSpec(const TcFftSpec&) = delete;
  TcFftSpec& operator=(const TcFftSpec&) = delete;

  const Family& family() const override { return tcFftFamily(); }
  const std::string& name() const override { return program_.name; }
  const std::string& file() const override { return program_.file; }

  VerifyReport verify() const override {
    const Plan& p = emittablePlan();
    VerifyReport r;
    r.text = formatVerifyReport(p);
    Json mma = Json::object();
    for (const auto& [shape, n] : p.total.mma) mma[shape] = n;
    r.counts["mma"] = mma;
    r.counts["hfma2"] = p.total.hfma2;
    r.counts["shuffles"] = p.total.shuffles;
    r.counts["byteperms"] = p.total.byteperms;
    r.counts["sm_cycles"] = p.total.smCycles / (1 << program_.batchBits());  // per FFT, eq. 30 of the CHIME note
    r.counts["ffts_per_warp"] = 1 << program_.batchBits();
    r.counts["error_bound"] = tcFftErrorBound(program_);
    r.counts["accumulate"] = program_.accumulate;
    if (program_.accumulate == "f32") {
      r.counts["ffma"] = p.total.ffma;
      r.counts["cvt"] = p.total.cvt;
    }
    r.text += accumulationLine();
    r.warnings = p.warnings;
    if (tcFftQuadApplies(program_)) {
      r.text += quadNote();
      r.counts["warps_per_fft"] = 4;
      r.counts["emitted_error_bound"] = quadBound();
    }
    return r;
  }

  std::string explain(const EmitTarget&) const override {
    std::string out;
    if (synthesis_) out = formatSynthesis(*synthesis_) + "\n";
    out += formatExplain(emittablePlan()) + accumulationLine();
    return tcFftQuadApplies(program_) ? out + quadNote() : out;
  }

  // The kernel is the same for every arch (min sm_80); the target only names the device.
  Generated emit(const EmitTarget&) const override {
    const Plan& p = emittablePlan();
    if (tcFftQuadApplies(program_))
      return Generated{
          tcFftLaunchPlan(emitTcFftQuad(program_, quad(), {}, tcFftQuadBenchOptions(program_).front().second),
                          distances_)};
    return Generated{tcFftLaunchPlan(emitTcFft(p, defaultEmitOptions(program_)), distances_)};
  }

  TestData randomInputs(long long batch, std::uint64_t seed) const override {
    return tcFftRandomInputs(program_, distances_.input, batch, seed);
  }
  Check check(const TestData& data, const std::map<std::string, std::vector<unsigned char>>& outputs,
              long long batch) const override {
    // At 4096 points the largest bound of the kernels `emit` and `bench` run (the tests check every variant with it):
    // the four-warp kernel's (folded, with the f32 pass and, at n_in >= 2048, the f16x2 one), the two-warp kernel's
    // and the one-warp design's.
    double bound = 0;
    if (tcFftPairApplies(program_)) bound = std::max(tcFftErrorBound(program_), tcFftPairErrorBound(pair()));
    if (tcFftQuadApplies(program_)) bound = std::max({bound, tcFftQuadErrorBound(quad()), quadBound()});
    if (tcFftQuadHalfPassApplies(program_))
      bound = std::max(bound, tcFftQuadHalfPassErrorBound(quad(), program_.nIn / 1024));
    return tcFftCheck(program_, data, outputs, batch, bound);
  }
  std::optional<BaselineRequest> baseline() const override { return tcFftBaseline(program_); }

  std::vector<BenchVariant> benchVariants(const EmitTarget&) const override {
    // With the four-warp kernel as the default, the variants are its other options (the pass through shared memory
    // among them), the two-warp kernel and its options (tcFftPairBenchOptions) and the one-warp kernels (TcFftBench.cpp
    // names them so).
    if (!tcFftQuadApplies(program_)) return tcFftBenchVariants(emittablePlan(), distances_);
    std::vector<BenchVariant> out;
    const auto quadOptions = tcFftQuadBenchOptions(program_);
    for (std::size_t i = 1; i < quadOptions.size(); ++i)
      out.push_back({quadOptions[i].first,
                     Generated{tcFftLaunchPlan(emitTcFftQuad(program_, quad(), {}, quadOptions[i].second), distances_)},
                     0, 0});
    out.push_back({"two warps per FFT, word reads of the row as copied (the default before four warps)",
                   Generated{tcFftLaunchPlan(emitTcFftPair(program_, pair()), distances_)}, 0, 0});
    for (const auto& [name, o] : tcFftPairBenchOptions())
      out.push_back({name, Generated{tcFftLaunchPlan(emitTcFftPair(program_, pair(), {}, o), distances_)}, 0, 0});
    for (auto& v : tcFftBenchVariants(emittablePlan(), distances_, true)) out.push_back(std::move(v));
    return out;
  }
  // The bench passes no variant's batch, so the measured SM-cycles/FFT are the bench's (rows with repeats);
  // the note sets them against the model. tcFftInRegisterNote formats the whole line where the batch is known.
  // The in-register variant is the last one (TcFftBench.cpp): SM-cycles per FFT against the model (eq. 30).
  std::string benchNotes(const std::vector<double>& ms, const std::vector<long long>& batch, double clockKHz,
                         int sms) const override {
    if (ms.empty() || batch.size() != ms.size())
      return fmt::format("in-register model (eq. 30): {} SM-cycles/FFT\n",
                         plan().total.smCycles / (1 << program_.batchBits()));
    return tcFftInRegisterNote(plan(), ms.back(), batch.back(), 64, clockKHz, sms);
  }
  using BenchFacet::benchNotes;

  std::string emulate(const std::string& mode, std::uint64_t seed, int count) const override {
    if (mode != "double" && mode != "f16")
      throw std::invalid_argument(fmt::format("emulate mode '{}' (expected double or f16)", mode));
    auto r = emulateAgainstFftw(plan(), mode == "f16" ? EmuMode::F16 : EmuMode::Double, seed, count);
    return fmt::format(
        "spec={} mode={} seed={} ffts={} (inputs uniform in [-1,1], reference double FFT)\nmax_rel_err={:.3e}\n",
        program_.name, mode, seed, r.ffts, r.maxRelErr);
  }

 private:
  std::string accumulationLine() const {
    return fmt::format("accumulation: {} ({})\n", program_.accumulate,
                       program_.accumulateReason.empty() ? "as written" : program_.accumulateReason);
  }

  const Plan& plan() const {
    if (!inconsistent_.empty()) throw InconsistentSpec(inconsistent_, issues_);
    return plan_;
  }

  // The half-length design of the two-warp kernel, synthesized and verified on first use.
  const TcFftPairDesign& pair() const {
    if (!pair_) pair_ = tcFftPairDesign(program_);
    return *pair_;
  }
  // The quarter-length design of the four-warp kernel (what `emit` uses at 4096 points), likewise.
  const TcFftQuadDesign& quad() const {
    if (!quad_) quad_ = tcFftQuadDesign(program_);
    return *quad_;
  }
  // The default four-warp kernel's bound (twiddles folded into the phases).
  double quadBound() const { return tcFftQuadFoldedErrorBound(quad(), std::max(1, program_.nIn / 1024)); }
  std::string quadNote() const {
    return fmt::format(
        "Emitted as four warps per FFT (decimation in frequency over q0 q1 = p): warp p forms y'_p[m] = sum_j "
        "x[m + 1024 j] W4^(p j) at its load and transforms it with the verified {} -> 1024 design, the twiddle W^(p m) "
        "folded into its phases (each input bit's factor in one phase operand, checked); its outputs are X[4 k + p] "
        "(emitted error bound {:.2e}). The plan above is the one-warp program; bench times it, the pass through "
        "shared memory and the two-warp kernel as variants.\n",
        std::min(program_.nIn, 1024), quadBound());
  }

  // verify's promise: what it accepts, emit can emit (a form error, with the JSON path).
  const Plan& emittablePlan() const {
    const Plan& p = plan();
    if (auto problem = emitProblem(program_)) throw SpecError(program_.file, problem->path, problem->message);
    return p;
  }

  LayoutProgram program_;
  std::optional<TcFftSynthesis> synthesis_;
  Plan plan_;
  std::string inconsistent_;  // the VerifyError's issue list, one "file: path: message" per line
  std::vector<InconsistentSpec::Issue> issues_;
  TcFftDistances distances_;
  mutable std::unique_ptr<TcFftPairDesign> pair_;
  mutable std::unique_ptr<TcFftQuadDesign> quad_;
};

class TcFftFamily final : public Family {
 public:
  std::string name() const override { return "tc_fft"; }
  std::string summary() const override {
    return "tensor-core f16 FFT (mma.sync) with register layouts synthesized and proved consistent; zero-padded n_in "
           "-> n_out, 16 to 4096 points";
  }
  std::optional<Json> complete(const Json& root, const std::string& file) const override {
    return tcFftSpecJson(parseTcFft(root, file).program);
  }
  std::unique_ptr<FamilySpec> parse(const Json& root, const std::string& file) const override {
    TcFftParsed p = parseTcFft(root, file);
    return makeTcFftSpec(std::move(p.program), {}, std::move(p.synthesis));
  }
};

}  // namespace

const Family& tcFftFamily() {
  static const TcFftFamily family;
  return family;
}

std::unique_ptr<FamilySpec> makeTcFftSpec(LayoutProgram program, TcFftDistances distances,
                                          std::optional<TcFftSynthesis> synthesis) {
  return std::make_unique<TcFftSpec>(std::move(program), distances, std::move(synthesis));
}

}  // namespace warpforge
