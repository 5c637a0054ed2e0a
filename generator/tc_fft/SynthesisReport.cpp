#include "generator/tc_fft/SynthesisReport.h"

#include <fmt/format.h>

namespace warpforge {

std::string formatSynthesis(const TcFftSynthesis& s) {
  std::string out = fmt::format(
      "synthesized: {} candidates scored in {:.2f} s CPU; score = SM-cycles/FFT (eq. 30) + {} x phase registers\n",
      s.candidatesScored, s.cpuSeconds, s.registerWeight);
  out += fmt::format("  {:<3} {:<58} {:>10} {:>9} {:>8}  {}\n", "#", "design", "cycles/FFT", "phase reg", "score",
                     "verifier");
  for (std::size_t i = 0; i < s.ranking.size(); ++i) {
    const TcFftCandidate& c = s.ranking[i];
    out += fmt::format("  {:<3} {:<58} {:>10.1f} {:>9} {:>8.1f}  {}\n", i == 0 ? "*" : std::to_string(i), c.summary,
                       c.smCycles, c.phaseRegisters, c.score,
                       c.verified            ? "proved"
                       : c.rejection.empty() ? "not tried"
                                             : "refused: " + c.rejection.substr(0, 60));
  }
  return out;
}

}  // namespace warpforge
