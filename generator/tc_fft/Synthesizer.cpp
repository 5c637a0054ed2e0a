#include "generator/tc_fft/Synthesizer.h"

#include <algorithm>
#include <chrono>
#include <ctime>

#include <fmt/format.h>

#include "generator/tc_fft/PhasePlan.h"
#include "generator/tc_fft/SynthesizerDesign.h"
#include "generator/verify/Verifier.h"
#include "warpforge/spec_error.h"

namespace warpforge {

namespace {

using namespace synth;

// Complete designs kept per frame after the layout search, and candidates proved per request (cheapest first).
constexpr int kDesignsPerFrame = 48;
constexpr int kCandidatesMaterialized = 12;

int log2Of(int v) {
  int l = 0;
  while ((1 << l) < v) ++l;
  return l;
}

// The frames a request can be built in: how many zero-padding bits the input carries (a padded FFT is the full FFT of
// zeros beyond n_in: every MMA produces at most one bit more than it sums, so at most one padding bit is left to the
// stages) and how many FFTs a warp holds (small sizes need several to fill an MMA fragment).
std::vector<Frame> frames(const TcFftRequest& r) {
  const int L = log2Of(r.nOut), M = log2Of(r.nIn), d = L - M;
  std::vector<Frame> out;
  for (int carried = L - std::min(d, 1); carried <= L; ++carried) {
    Frame f;
    f.logOut = L;
    f.logIn = M;
    f.logCarried = carried;
    f.sign = r.sign;
    const int need = f.padding() == 1 ? 6 : 7;  // a fragment's bits: m16n8k8 B 6, m16n8k16 B 7
    const int minBatch = std::max(0, need - (carried + 1));
    for (int b = minBatch; b <= minBatch + (L <= 7 ? 1 : 0); ++b) {
      f.batchBits = b;
      out.push_back(f);
    }
  }
  return out;
}

struct Scored {
  Design design;
  TwiddlePlan twiddles;
  double cyclesPerFft = 0, score = 0;
  int registers = 0;
  std::string summary;
};

std::string summaryOf(const Design& d) {
  return fmt::format("{}{}{}", d.str(), d.frame.batchBits ? fmt::format(", {} FFTs/warp", 1 << d.frame.batchBits) : "",
                     d.frame.logCarried > d.frame.logIn ? fmt::format(", input zero-padded to 2^{}", d.frame.logCarried)
                                                        : "");
}

}  // namespace

double registerWeight(int dataRegisterBits) { return kRegisterWeight * (1 << std::max(0, dataRegisterBits - 5)); }

TcFftSynthesis synthesizeTcFft(const TcFftRequest& r, const CostTable& costs) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  const int L = log2Of(r.nOut), M = log2Of(r.nIn);
  if (L < kMinSynthesisLog2 || L > kMaxSynthesisLog2) {
    const int Ln = std::clamp(L, kMinSynthesisLog2, kMaxSynthesisLog2), Mn = std::min(M, Ln);
    throw SpecError(r.file, "/transform",
                    fmt::format("no tc_fft design is synthesized for {} -> {}: synthesis covers n_out = {} .. {} (one "
                                "warp holds the FFT in its "
                                "registers, at most 128 per thread for one array; an MMA fragment needs 16 points, "
                                "several FFTs per warp below "
                                "128); nearest that work: {} -> {}",
                                r.nIn, r.nOut, 1 << kMinSynthesisLog2, 1 << kMaxSynthesisLog2, 1 << Mn, 1 << Ln));
  }
  RelayoutCache relayouts(costs);
  // The largest data array: the output (n_out points, one warp; the batch bits only where the output is small).
  const double weight = registerWeight(std::max(0, L + 1 - 6));
  std::vector<Scored> all;
  for (const Frame& f : frames(r)) {
    for (auto& d : searchDesigns(f, r.inputLayout, r.outputLayout, relayouts, costs, kDesignsPerFrame)) {
      Scored s;
      s.twiddles = placeTwiddles(d, costs, weight * (1 << f.batchBits));
      if (s.twiddles.cycles < 0) continue;
      s.cyclesPerFft = (d.mmaCycles + d.relayoutCycles + s.twiddles.cycles) / (1 << f.batchBits);
      s.registers = s.twiddles.registersEstimate;
      s.score = s.cyclesPerFft + weight * s.registers;
      s.summary = summaryOf(d);
      s.design = std::move(d);
      all.push_back(std::move(s));
    }
  }
  TcFftSynthesis out;
  out.candidatesScored = static_cast<int>(all.size());
  std::stable_sort(all.begin(), all.end(), [](const Scored& a, const Scored& b) { return a.score < b.score; });
  if (static_cast<int>(all.size()) > kCandidatesMaterialized) all.resize(kCandidatesMaterialized);
  // Exact phase registers (the emitter's sharing of identical registers), then the Verifier, cheapest first.
  struct Exact {
    LayoutProgram program;
    TcFftCandidate c;
  };
  std::vector<Exact> exact;
  for (auto& s : all) {
    // Exact relayout costs for the few that go on (the beam and the ranking above used estimates).
    const double estimated = s.design.relayoutCycles;
    exactRelayouts(s.design, r.inputLayout, relayouts);
    s.cyclesPerFft += (s.design.relayoutCycles - estimated) / (1 << s.design.frame.batchBits);
    Exact e;
    e.program = materialize(s.design, s.twiddles, r.file, r.name, r.nIn, r.nOut);
    e.program.description = r.description;
    e.program.warpsPerBlock = r.warpsPerBlock;
    if (!r.warpsPerBlock) {
      const long long slice = 4LL * (1LL << s.design.frame.batchBits) * std::max(r.nIn, r.nOut);
      e.program.warpsPerBlock = 4;
      while (e.program.warpsPerBlock > 1 && e.program.warpsPerBlock * slice > 48 * 1024) e.program.warpsPerBlock /= 2;
    }
    e.c.summary = s.summary;
    e.c.phaseRegisters = PhasePlan(e.program, true).registersHeld();
    e.c.smCycles = s.cyclesPerFft;
    e.c.score = s.cyclesPerFft + weight * e.c.phaseRegisters;
    exact.push_back(std::move(e));
  }
  std::stable_sort(exact.begin(), exact.end(), [](const Exact& a, const Exact& b) { return a.c.score < b.c.score; });
  int chosen = -1;
  for (std::size_t i = 0; i < exact.size(); ++i) {
    try {
      Plan plan = Verifier(costs).verify(exact[i].program);
      exact[i].c.verified = true;
      exact[i].c.smCycles = plan.total.smCycles / (1 << exact[i].program.batchBits());
      exact[i].c.score = exact[i].c.smCycles + weight * exact[i].c.phaseRegisters;
      chosen = static_cast<int>(i);
      break;
    } catch (const VerifyError& e) {
      exact[i].c.rejection = e.issues().empty() ? e.what()
                                                : e.issues().front().path + ": " + e.issues().front().message;
    }
  }
  if (chosen < 0)
    throw SpecError(
        r.file, "/transform",
        fmt::format("internal: none of the {} cheapest synthesized designs for {} -> {} was proved consistent{}",
                    exact.size(), r.nIn, r.nOut, exact.empty() ? "" : " (first: " + exact.front().c.rejection + ")"));
  out.program = exact[chosen].program;
  out.registerWeight = weight;
  out.ranking.push_back(exact[chosen].c);
  for (std::size_t i = 0; i < exact.size(); ++i)
    if (static_cast<int>(i) != chosen) out.ranking.push_back(exact[i].c);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.cpuSeconds = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  return out;
}

}  // namespace warpforge
