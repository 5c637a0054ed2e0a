#pragma once
// The synthesizer's own view of a design (Synthesizer.h), before it becomes a LayoutProgram: the stages with their
// roles (which bits each MMA sums, produces, passes through, keeps as spectators, loops over) and data layouts, then
// where every twiddle factor goes. Internal to generator/tc_fft.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "generator/layout/Layout.h"
#include "generator/layout/Relayout.h"
#include "generator/verify/Program.h"

namespace warpforge::synth {

// One MMA stage's shape. m16n8k16: 4 j bits (ReIm + sum + pass), 4 i bits (ReIm + prod + pass); m16n8k8: 3 j bits.
struct StageType {
  bool k8 = false;
  int sum = 3, prod = 3, pass = 0;
  std::string str() const;
};

// The frame every design of one request lives in.
struct Frame {
  int logOut = 0;      // L: q0 .. q_{L-1}
  int logIn = 0;       // n0 .. n_{logIn-1} are read
  int logCarried = 0;  // n bits the input array carries (logIn .. logCarried-1 are zero padding)
  int batchBits = 0;   // f0 .. f_{batchBits-1}: FFTs per warp
  int sign = +1;
  int padding() const { return logOut - logCarried; }  // produced minus summed at the end (0 or 1)
  int inputBits() const { return logCarried + 1 + batchBits; }
};

struct Stage {
  StageType type;
  std::vector<std::string> summed, produced, pass;  // n bits summed, q bits produced, data bits passed through
  std::vector<std::string> jBits;                   // matrix bits j0 j1 j2 (j3): data names (ReIm, n7, f0, ...)
  std::vector<std::string> iBits;                   // matrix bits i0 i1 i2 i3
  std::vector<std::string> kBits;                   // spectators k0 k1 k2
  std::vector<std::string> loops;                   // the other bits, on registers: one MMA per value
  Layout B, C;                                      // data in (operand B), data out (operand C)
  double relayoutIn = 0;                            // SM-cycles of the relayout into B
  int mmas() const { return 1 << loops.size(); }
};

struct Design {
  Frame frame;
  std::vector<StageType> types;
  std::vector<Stage> stages;
  Layout X, Y;  // the input and output arrays
  double finalRelayout = 0;
  double mmaCycles = 0, relayoutCycles = 0;
  std::string str() const;  // "k8(2/3) k16(3/3) k16(3/3)"
};

// Where the twiddle factors E(q_j, n_k) between stages go: folded into a stage's phase operand A (over bits it
// loops over or passes through), or applied by a complex multiply at a gap between stages.
struct Cmul {
  int gap = 0;                 // after stage `gap` (0-based stage index)
  bool afterRelayout = false;  // on the next stage's B layout instead of this stage's C layout
  std::vector<PhaseFactor> factors;
};

struct TwiddlePlan {
  std::vector<std::vector<PhaseFactor>> folded;    // per stage: factors A carries beyond E(produced, summed)
  std::vector<std::set<std::string>> foldedLoops;  // per stage: loop bits A carries as registers
  std::vector<Cmul> cmuls;
  double cycles = 0;
  int registersEstimate = 0;
};

// The relayout between two layouts of the same bits, memoised (the search asks for the same pairs many times).
class RelayoutCache {
 public:
  explicit RelayoutCache(const CostTable& costs) : costs_(costs) {}
  double cost(const Layout& from, const Layout& to);
  // A quick upper-bound-like estimate for ranking partial designs (exact where every moved bit comes from a register).
  double estimate(const Layout& from, const Layout& to) const;

 private:
  CostTable costs_;
  std::map<std::string, double> memo_;
};

// Every design of a frame: stage shapes, roles and layouts, ranked by MMA + estimated relayout cycles (twiddles not
// yet placed). At most `keep` designs, cheapest first; deterministic.
std::vector<Design> searchDesigns(const Frame& frame, const std::optional<Layout>& input,
                                  const std::optional<Layout>& output, RelayoutCache& relayouts, const CostTable& costs,
                                  int keep);

// Replaces the estimated relayout costs of a design by the relayout search's exact ones (the beam ranks by estimates).
void exactRelayouts(Design& d, const std::optional<Layout>& input, RelayoutCache& relayouts);

// The cheapest twiddle placement of a design by the score's estimate (cycles + weight x registers).
TwiddlePlan placeTwiddles(const Design& d, const CostTable& costs, double registerWeight);

// The design as a complete layout program (arrays, steps, descriptions) for the Verifier and the emitter.
LayoutProgram materialize(const Design& d, const TwiddlePlan& t, const std::string& file, const std::string& name,
                          int nIn, int nOut);

// Bit-name helpers shared by the synthesizer's files.
std::string nBit(int k);
std::string qBit(int j);
std::string fBit(int k);
int bitIndex(const std::string& name);  // "n12" -> 12
// Whether `names` holds `name` (a bit's name in a stage's list).
inline bool has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace warpforge::synth
