#include "generator/pfb/PfbFamily.h"

#include <cmath>

#include <fmt/format.h>

#include "generator/pfb/PfbBench.h"
#include "generator/pfb/PfbData.h"
#include "generator/pfb/PfbEmitter.h"
#include "generator/pfb/PfbPlan.h"

namespace warpforge {

namespace {

// Dynamic shared memory one block may have: sm_80 163 KiB, sm_90 227 KiB; sm_86 / sm_89 99 KiB.
constexpr int kMaxShared = 163 * 1024;
constexpr int kMaxSharedEveryArch = 99 * 1024;

const char* sampleName(const PfbSpec& s) {
  return s.sampleType == PfbSampleType::Int8 ? "int8" : s.sampleType == PfbSampleType::Int16 ? "int16" : "packed";
}

class PfbFamilySpec final : public FamilySpec, public BenchFacet {
 public:
  explicit PfbFamilySpec(PfbSpec s) : s_(std::move(s)) {}
  const Family& family() const override { return pfbFamily(); }
  const std::string& name() const override { return s_.name; }
  const std::string& file() const override { return s_.file; }

  VerifyReport verify() const override {
    const PfbGeometry g = pfbGeometry(s_);
    std::vector<InconsistentSpec::Issue> issues;
    if (g.sharedA > kMaxShared)
      issues.push_back(
          {"/taps", fmt::format("the FIR kernel's chunk buffers need {} B of shared memory (> {} B): fewer taps",
                                g.sharedA, kMaxShared)});
    if (g.sharedB > kMaxShared)
      issues.push_back(
          {"/channels", fmt::format("the post kernel needs {} B of shared memory (> {} B)", g.sharedB, kMaxShared)});
    bool anyWeight = false;
    for (double w : s_.weights.values) anyWeight |= static_cast<float>(w) != 0.0f;
    if (!anyWeight) issues.push_back({"/weights", "every FIR weight is zero in f32: the spectra would all be zero"});
    if (!issues.empty()) {
      std::string text;
      for (const auto& i : issues) text += fmt::format("{}: {}: {}\n", s_.file, i.path, i.message);
      throw InconsistentSpec(text, issues);
    }
    VerifyReport r;
    const PfbTraffic t = pfbTraffic(s_, 1);
    r.text = fmt::format(
        "{}: {} (pfb: {} channels = real FFT of {} points, {} taps, {} receivers x {} pols, {} spectra per call, "
        "{}-bit {} in, {} out{}): OK\n",
        s_.file, s_.name, s_.channels, s_.fftLength(), s_.taps, s_.receivers, s_.polarizations, s_.spectra,
        s_.sampleBits, sampleName(s_),
        s_.outputType == PfbOutputType::CI8 ? fmt::format("ci8 ({} layout)", pfbLayoutName(s_.layout))
                                            : std::string("cf32 spectra"),
        s_.perChannelGain ? ", per-channel gain" : "");
    r.text += fmt::format(
        "  four-step split: N = {} x {}; kernel fir: {} threads ({} columns x {} rows, {} per complex point), {} "
        "spectra per FIR chunk, runs of {} spectra, {} B shared\n",
        g.n1, g.n2, g.threadsA, g.columns, g.n1, g.threadsA / g.pointsA, g.chunk, g.runSpectra, g.sharedA);
    if (g.spectrumPost)
      r.text += fmt::format(
          "  kernel post: {} threads per {}, all {} rows{}, channels stored contiguously, {} B shared; "
          "column radices {}, row radices {}\n",
          g.threadsB,
          g.spectrumPostCombos > 1 ? fmt::format("{} (spectrum, pol) combinations", g.spectrumPostCombos)
                                   : std::string("(spectrum, pol)"),
          g.n1,
          g.spectrumPostParts > 1
              ? fmt::format(" in {} blocks of {} rows, in place", g.spectrumPostParts, g.n1 / g.spectrumPostParts)
          : g.spectrumPostInPlace ? " in place in one buffer"
                                  : "",
          g.sharedB, fmt::join(g.columnFft.radices, "x"), fmt::join(g.rowFft.radices, "x"));
    else
      r.text += fmt::format(
          "  kernel post: {} threads per ({}, {} spectra x {} pol), {} combinations per FFT chunk, {} B shared; "
          "column radices {}, row radices {}\n",
          g.threadsB, g.postPairLoop ? "every row pair in turn" : "row pair", g.spectraPerUnit, g.polsPerUnit,
          g.combosPerChunk, g.sharedB, fmt::join(g.columnFft.radices, "x"), fmt::join(g.rowFft.radices, "x"));
    r.text += fmt::format(
        "  bytes per call: input {:.0f}, output {:.0f}, scratch written and read {:.0f} x 2, warm-up re-reads {:.0f}: "
        "{:.2f}x the user arrays\n",
        t.inputBytes, t.outputBytes, t.scratchBytes, t.rereadBytes, t.total() / t.own());
    if (g.sharedA > kMaxSharedEveryArch || (g.sharedB > kMaxSharedEveryArch && !g.spectrumPost))
      r.text += fmt::format("  note: {} B of shared memory per block: sm_80 / sm_90 only (sm_86 / sm_89 lend {} B)\n",
                            std::max(g.sharedA, g.sharedB), kMaxSharedEveryArch);
    else if (g.sharedB > kMaxSharedEveryArch) {
      // What the plan takes where a block has less shared memory (pfbSpectrumPostChannelsFor).
      const PfbGeometry small = pfbGeometry(s_, false, pfbSpectrumPostChannelsFor("sm_86"));
      r.text += fmt::format(
          "  note: the post kernel's {} B of shared memory per block as emitted for sm_80 / sm_90; emitted for sm_86 / "
          "sm_89 (which lend {} B) the plan takes {} ({} B)\n",
          g.sharedB, kMaxSharedEveryArch,
          small.spectrumPostParts > 1 ? "the spectrum post kernel in place, two blocks per combination"
          : small.spectrumPostInPlace ? "the spectrum post kernel in place in one buffer"
          : small.spectrumPost        ? "the spectrum post kernel"
                                      : "the row-pair post kernel",
          small.sharedB);
    }
    r.counts["shared_bytes_fir"] = g.sharedA;
    r.counts["shared_bytes_post"] = g.sharedB;
    r.counts["bytes_per_call"] = t.total();
    r.counts["user_bytes_per_call"] = t.own();
    return r;
  }

  std::string explain(const EmitTarget& target) const override {
    const PfbGeometry g = pfbGeometry(s_, false, pfbSpectrumPostChannelsFor(target.arch));
    std::string o = fmt::format("{}: two kernels, the same code for every arch >= sm_80 (target {})\n", s_.name,
                                target.arch);
    o += fmt::format(
        "{}_fir: block = {} columns x {} rows of the {} x {} split, a thread per real sample; each thread keeps its {} "
        "weights {} and the last {}\n"
        "  samples of its position in registers, computes the FIR of {} spectra{} into shared memory, then the "
        "{}-point "
        "column FFTs (radices {}),\n"
        "  multiplies by e^(-2 pi i m2 k1 / N) and stores Y[stream][spectrum][k1][m2] to the scratch\n",
        s_.name, g.columns, g.n1, g.n1, g.n2, s_.taps,
        g.firSharedWeights ? "in shared memory (read at use: two blocks per SM on sm_90)" : "in registers", s_.taps,
        std::max(s_.taps, g.chunk), g.chunk < s_.taps ? fmt::format(" ({} at a time)", g.chunk) : "", g.n1,
        fmt::join(g.columnFft.radices, "x"));
    if (g.spectrumPost)
      return o + fmt::format(
                     "{}_post: block = {}, all {} rows{}; {}-point row FFTs (radices {}), "
                     "the real-FFT split,\n  gain{}, each channel staged in shared memory, then the spectrum stored "
                     "contiguously (cf32)\n",
                     s_.name,
                     g.spectrumPostCombos > 1
                         ? fmt::format("{} consecutive (spectrum, pol) combinations", g.spectrumPostCombos)
                         : std::string("one (spectrum, pol) combination"),
                     g.n1,
                     g.spectrumPostParts > 1
                         ? fmt::format(" in {} blocks of {} rows (row pairs {} apiece), each in one buffer (passes and "
                                       "split in place: one buffer of the spectrum does not fit)",
                                       g.spectrumPostParts, g.n1 / g.spectrumPostParts, g.n1 / 2 / g.spectrumPostParts)
                     : g.spectrumPostInPlace
                         ? " in one buffer (passes and split in place: two buffers of the spectrum do not fit)"
                         : "",
                     g.n2, fmt::join(g.rowFft.radices, "x"), s_.delay ? ", delay phase slope" : "");
    o += fmt::format(
        "{}_post: block = {} of {} (spectrum, pol) combinations; {}-point row FFTs (radices {}), the "
        "real-FFT split,\n"
        "  gain{}{}\n",
        s_.name,
        g.postPairLoop ? fmt::format("every row pair k1, {} - k1 in turn", g.n1)
                       : fmt::format("rows k1 and {} - k1", g.n1),
        g.combosPerUnit(), g.n2, fmt::join(g.rowFft.radices, "x"), s_.delay ? ", delay phase slope" : "",
        s_.outputType == PfbOutputType::CI8 ? fmt::format(", ci8 requantisation staged in shared memory and stored as "
                                                          "32-byte runs of the {} layout; saturations per stream",
                                                          pfbLayoutName(s_.layout))
                                            : std::string(", cf32 store"));
    return o;
  }

  // Where an SM lends a block 99 KiB, cf32 spectra past 4096 channels take the row-pair post kernel
  // (pfbSpectrumPostChannelsFor).
  Generated emit(const EmitTarget& target) const override {
    verify();
    return Generated{pfbLaunchPlan(s_, emitPfb(s_, {.spectrumPostChannels = pfbSpectrumPostChannelsFor(target.arch)}))};
  }

  // Enough blocks of the FIR kernel for a few waves on a large GPU.
  long long defaultBatch() const override {
    const long long units = pfbGeometry(s_).unitsA(s_);
    return std::max<long long>(1, (2048 + units - 1) / units);
  }
  TestData randomInputs(long long batch, std::uint64_t seed) const override { return pfbInputs(s_, batch, seed); }
  Check check(const TestData& data, const std::map<std::string, std::vector<unsigned char>>& outputs,
              long long batch) const override {
    return pfbCheck(s_, data, outputs, batch);
  }
  std::optional<BaselineRequest> baseline() const override { return pfbBaseline(s_); }
  std::vector<BenchVariant> benchVariants(const EmitTarget& target) const override {
    return pfbBenchVariants(s_, pfbSpectrumPostChannelsFor(target.arch));
  }
  std::string benchNotes(const std::vector<double>& variantMs, double clockKHz, int sms) const override {
    return pfbBenchNotes(s_, variantMs, {}, clockKHz, sms);
  }
  std::string benchNotes(const std::vector<double>& variantMs, const std::vector<long long>& variantBatch,
                         double clockKHz, int sms) const override {
    return pfbBenchNotes(s_, variantMs, variantBatch, clockKHz, sms);
  }

 private:
  PfbSpec s_;
};

class PfbFamily final : public Family, public SweepFacet {
 public:
  std::string name() const override { return "pfb"; }
  std::string summary() const override {
    return "F-engine front end: polyphase filter bank over real int8/int16/packed samples (FIR + real FFT, gain, "
           "delay), cf32 or ci8 in the "
           "correlator's layouts";
  }
  std::unique_ptr<FamilySpec> parse(const Json& root, const std::string& file) const override {
    return makePfbSpec(parsePfbSpec(root, file));
  }
  std::vector<SweepSpec> sweepSpecs(std::uint64_t seed, int count) const override { return pfbSweepSpecs(seed, count); }
};

}  // namespace

const Family& pfbFamily() {
  static const PfbFamily f;
  return f;
}

std::unique_ptr<FamilySpec> makePfbSpec(PfbSpec spec) { return std::make_unique<PfbFamilySpec>(std::move(spec)); }

}  // namespace warpforge
