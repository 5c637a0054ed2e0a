#pragma once
// Synthesis of a tc_fft design from the transform alone (docs/tc_fft.md, "How a design is found"): the stages
// (m16n8k16 / m16n8k8 MMAs, some passing bits through), the register layout of every array, the twiddle placement
// (folded into an MMA's phase operand or applied by a __half2 complex multiply), the relayouts between them, scored
// by the eq. 30 cost model plus the phase registers held. The synthesizer proposes; the Verifier judges: the design
// returned is the cheapest candidate the Verifier proves consistent.
#include <optional>
#include <string>
#include <vector>

#include "generator/layout/Layout.h"
#include "generator/layout/Relayout.h"
#include "generator/verify/Program.h"

namespace warpforge {

struct TcFftRequest {
  std::string file, name, description;
  std::string precision = "f16";
  int nIn = 0, nOut = 0, sign = +1;
  int warpsPerBlock = 0;  // 0: up to 4, as many as the per-warp staging slices leave in 48 KiB of shared memory
  std::optional<Layout> inputLayout, outputLayout;  // the I/O layouts where the user gives them
};

// SM-cycles one phase register is worth in the score (it is held by every thread for the whole kernel): 2, doubled
// for every register bit a data array has past 5 (32 registers), where data and phases compete for the 255 a thread
// has (2048 points: 4, 4096: 8).
constexpr double kRegisterWeight = 2.0;
double registerWeight(int dataRegisterBits);

// One candidate design as the search scored it.
struct TcFftCandidate {
  std::string summary;  // "k8(2/3) k16(3/3) k16(3/3), 1 FFT/warp"
  double smCycles = 0;  // per FFT (eq. 30 model)
  int phaseRegisters = 0;
  double score = 0;       // what the search minimises (SM-cycles + registerWeight x phase registers)
  bool verified = false;  // proved by the Verifier (only the candidates the search got to)
  std::string rejection;  // why the Verifier refused it, where it did
};

struct TcFftSynthesis {
  double registerWeight = kRegisterWeight;  // SM-cycles per phase register in the scores below
  LayoutProgram program;                    // the chosen design, complete (arrays, steps, descriptions)
  std::vector<TcFftCandidate> ranking;      // the chosen first, then the runners-up, cheapest first
  int candidatesScored = 0;
  double seconds = 0;     // wall clock
  double cpuSeconds = 0;  // this process's CPU time (the search is single-threaded)
};

// Throws SpecError (at /transform, naming the rule and the nearest sizes that work) where no design exists.
TcFftSynthesis synthesizeTcFft(const TcFftRequest& request, const CostTable& costs = {});

// The sizes synthesis covers: n_out = 2^4 .. 2^12, any n_in <= n_out (the tests cover n_in = n_out / 2^j, j = 0..3).
constexpr int kMinSynthesisLog2 = 4;
constexpr int kMaxSynthesisLog2 = 12;
constexpr int kMaxPaddingLog2 = 3;

}  // namespace warpforge
