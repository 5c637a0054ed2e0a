// Twiddle placement: every factor E(q_j, n_k) with q_j produced at stage a and n_k summed at a later stage b (j + k <
// L, n_k a real input bit) is applied exactly once: folded into stage a's phase operand (n_k a bit A loops over or
// passes through), folded into stage b's (q_j likewise), or by a __half2 complex multiply at a gap between a and b.
// Passed-through bits fold for nothing; a loop bit doubles the operand's registers; a complex multiply costs 2 HFMA2
// per register pair of the data and holds its own phase registers. The search takes the cheapest mix by cycles +
// weight x registers (an estimate: sharing between phase arrays is counted exactly later, by the emitter's PhasePlan).
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "generator/tc_fft/SynthesizerDesign.h"

namespace warpforge::synth {

namespace {

using Pair = std::pair<int, int>;  // (j, k): the factor E(q_j, n_k)

// Stage a's A operand registers before folding: the fragment's (k16 2, k8 1 bit) minus ReIm_out once packed.
int operandBaseBits(const Stage& s) { return s.type.k8 ? 0 : 1; }

struct Choice {
  std::vector<std::set<Pair>> foldA;             // per stage: twiddle pairs its A operand carries
  std::vector<std::set<std::string>> loopsUsed;  // per stage: loop bits its A operand carries
  std::map<int, std::set<Pair>> cmul;            // gap -> pairs
  std::map<int, bool> cmulAfter;                 // gap -> on the next stage's B
  double cycles = 0;
  int registers = 0;
  double score = 0;
};

}  // namespace

TwiddlePlan placeTwiddles(const Design& d, const CostTable& costs, double registerWeight) {
  const int S = static_cast<int>(d.stages.size());
  const int L = d.frame.logOut;
  std::map<int, int> stageOfQ, stageOfN;
  for (int s = 0; s < S; ++s) {
    for (const auto& q : d.stages[s].produced) stageOfQ[bitIndex(q)] = s;
    for (const auto& n : d.stages[s].summed) stageOfN[bitIndex(n)] = s;
  }
  // The pairs between stages, grouped by (a, b); those a passed-through bit folds for free are placed at once.
  std::map<Pair, std::set<Pair>> groups;  // (a, b) -> pairs still to place
  std::vector<std::set<Pair>> freeFold(S);
  for (const auto& [j, a] : stageOfQ)
    for (const auto& [k, b] : stageOfN) {
      if (b <= a || j + k >= L || k >= d.frame.logIn) continue;
      if (has(d.stages[a].pass, nBit(k))) freeFold[a].insert({j, k});
      else if (has(d.stages[b].pass, qBit(j))) freeFold[b].insert({j, k});
      else groups[{a, b}].insert({j, k});
    }

  auto evaluate = [&](Choice& c) {
    c.cycles = 0;
    c.registers = 0;
    for (int s = 0; s < S; ++s) c.registers += (1 << operandBaseBits(d.stages[s])) << c.loopsUsed[s].size();
    for (auto& [g, pairs] : c.cmul) {
      if (pairs.empty()) continue;
      std::set<std::string> bits;
      for (auto [j, k] : pairs) bits.insert(qBit(j)), bits.insert(nBit(k));
      auto regBits = [&](const Layout& l) {
        int r = 0;
        for (const auto& b : bits) r += l.physOf(b)->kind == PhysKind::R;
        return r;
      };
      const Layout& before = d.stages[g].C;
      const Layout& after = d.stages[g + 1].B;
      const bool afterOk = after.physOf("ReIm")->kind == PhysKind::R;
      const int rb = regBits(before), ra = afterOk ? regBits(after) : 99;
      c.cmulAfter[g] = ra < rb;
      c.registers += 2 << std::min(ra, rb);
      c.cycles += 2.0 * before.numRegisters() * costs.hfma2;
    }
    c.score = c.cycles + registerWeight * c.registers;
  };

  Choice best;
  bool found = false;
  std::vector<Pair> groupKeys;
  for (const auto& [k, v] : groups) groupKeys.push_back(k);
  for (int mask = 0; mask < (1 << std::max(0, S - 1)); ++mask) {
    std::vector<int> gaps;
    for (int g = 0; g + 1 < S; ++g)
      if (mask >> g & 1) gaps.push_back(g);
    // Groups no chosen gap lies between must be folded whole: by n (stage a loops over every n) or by q (stage b
    // loops over every q).
    std::vector<Pair> mustFold;
    for (const auto& ab : groupKeys) {
      bool covered = false;
      for (int g : gaps) covered |= g >= ab.first && g < ab.second;
      if (!covered) mustFold.push_back(ab);
    }
    for (int pick = 0; pick < (1 << mustFold.size()); ++pick) {
      Choice c;
      c.foldA = freeFold;
      c.loopsUsed.assign(S, {});
      bool ok = true;
      for (std::size_t i = 0; i < mustFold.size() && ok; ++i) {
        auto [a, b] = mustFold[i];
        const bool byQ = pick >> i & 1;
        for (auto [j, k] : groups[{a, b}]) {
          const int s = byQ ? b : a;
          const std::string bit = byQ ? qBit(j) : nBit(k);
          if (!has(d.stages[s].loops, bit)) {
            ok = false;
            break;
          }
          c.loopsUsed[s].insert(bit);
          c.foldA[s].insert({j, k});
        }
      }
      if (!ok) continue;
      // Covered groups: folded where the operand already carries the bit (free), else to the earliest gap.
      for (const auto& ab : groupKeys) {
        if (std::find(mustFold.begin(), mustFold.end(), ab) != mustFold.end()) continue;
        auto [a, b] = ab;
        int gap = -1;
        for (int g : gaps)
          if (g >= a && g < b) {
            gap = g;
            break;
          }
        for (auto [j, k] : groups[ab]) {
          if (c.loopsUsed[a].count(nBit(k))) c.foldA[a].insert({j, k});
          else if (c.loopsUsed[b].count(qBit(j))) c.foldA[b].insert({j, k});
          else c.cmul[gap].insert({j, k});
        }
      }
      evaluate(c);
      // Local improvement: fold one more loop bit where it lowers the score (fewer cmul registers, or no cmul at all).
      for (bool improved = true; improved;) {
        improved = false;
        for (int s = 0; s < S && !improved; ++s)
          for (const auto& bit : d.stages[s].loops) {
            if (c.loopsUsed[s].count(bit) || (bit[0] != 'n' && bit[0] != 'q')) continue;
            Choice t = c;
            bool moved = false;
            for (auto& [g, pairs] : t.cmul)
              for (auto it = pairs.begin(); it != pairs.end();) {
                auto [j, k] = *it;
                const bool fits = bit[0] == 'n' ? (bit == nBit(k) && stageOfQ[j] == s)
                                                : (bit == qBit(j) && stageOfN[k] == s);
                if (fits) t.foldA[s].insert(*it), it = pairs.erase(it), moved = true;
                else ++it;
              }
            if (!moved) continue;
            t.loopsUsed[s].insert(bit);
            evaluate(t);
            if (t.score < c.score) c = std::move(t), improved = true;
            if (improved) break;
          }
      }
      if (!found || c.score < best.score) best = std::move(c), found = true;
    }
  }
  TwiddlePlan plan;
  if (!found) {
    plan.cycles = -1;  // no placement: the design is dropped
    return plan;
  }
  auto factors = [](const std::set<Pair>& pairs) {
    // One factor per distinct n set: q bits sharing their n bits form one rectangle.
    std::map<int, std::vector<int>> nOfQ;
    for (auto [j, k] : pairs) nOfQ[j].push_back(k);
    std::map<std::vector<int>, std::vector<int>> qOfN;
    for (auto& [j, ks] : nOfQ) qOfN[ks].push_back(j);
    std::vector<PhaseFactor> out;
    for (auto& [ks, js] : qOfN) out.push_back({js, ks});
    return out;
  };
  plan.folded.resize(S);
  plan.foldedLoops = best.loopsUsed;
  for (int s = 0; s < S; ++s) plan.folded[s] = factors(best.foldA[s]);
  for (auto& [g, pairs] : best.cmul)
    if (!pairs.empty()) plan.cmuls.push_back({g, best.cmulAfter[g], factors(pairs)});
  plan.cycles = best.cycles;
  plan.registersEstimate = best.registers;
  return plan;
}

}  // namespace warpforge::synth
