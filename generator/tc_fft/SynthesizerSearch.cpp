// The design search of the tc_fft synthesizer: stage shapes, then, stage by stage, which bits each MMA passes through
// and keeps as spectators, with the data layouts placed so that as few bits as possible move between stages
// (docs/tc_fft.md, "How a design is found").
#include <algorithm>
#include <functional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "generator/tc_fft/SynthesizerDesign.h"

namespace warpforge::synth {

std::string nBit(int k) { return fmt::format("n{}", k); }
std::string qBit(int j) { return fmt::format("q{}", j); }
std::string fBit(int k) { return fmt::format("f{}", k); }
int bitIndex(const std::string& name) { return std::stoi(name.substr(1)); }

std::string StageType::str() const {
  return fmt::format("{}({}/{}{})", k8 ? "k8" : "k16", sum, prod, pass ? fmt::format(", {} through", pass) : "");
}

std::string Design::str() const {
  std::string s;
  for (const auto& t : types) s += (s.empty() ? "" : " ") + t.str();
  return s;
}

namespace {

constexpr int kMaxDataRegisterBits = 7;  // 128 registers per thread for one array (4096 points)
constexpr int kBeamWidth = 32;

// The lane-side bits of a layout (b0, t0..t4) and how many registers: all a relayout's cost depends on.
std::string laneKey(const Layout& l) {
  std::string k = std::to_string(l.count(PhysKind::R));
  for (const auto& e : l.entries())
    if (e.phys.kind != PhysKind::R) k += " " + e.phys.str() + "=" + e.logical;
  return k;
}

}  // namespace

double RelayoutCache::estimate(const Layout& from, const Layout& to) const {
  // Every lane slot (b0, t0..t4) whose bit changes costs one swap with a register (local transpose on b0: nregs
  // byte_perms; warp transpose on a lane bit: nregs / 2 shuffles) where the new bit waits on a register; bits moving
  // between lane slots cost at most one lane permutation (nregs shuffles) for all of them together.
  const double n = from.numRegisters();
  double c = 0;
  bool laneMoves = false;
  for (const auto& e : to.entries()) {
    if (e.phys.kind == PhysKind::R || from.logicalAt(e.phys) == e.logical) continue;
    const PhysBit was = *from.physOf(e.logical);
    if (was.kind == PhysKind::R) c += e.phys.kind == PhysKind::B ? costs_.bytePerm * n : costs_.shuffle * n / 2;
    else laneMoves = true;
  }
  return c + (laneMoves ? costs_.shuffle * n : 0);
}

double RelayoutCache::cost(const Layout& from, const Layout& to) {
  const std::string key = laneKey(from) + "|" + laneKey(to);
  auto it = memo_.find(key);
  if (it != memo_.end()) return it->second;
  const double c = synthesizeRelayout(from, to, costs_).smCycles;
  memo_[key] = c;
  return c;
}

namespace {

// Stage shapes whose sums and products add up: with one padding bit (n carried = L - 1) the first stage is an
// m16n8k8 (it produces one bit more than it sums, so every later factor E(q_j, n_k) it leaves has j + k >= L); without,
// every stage is an m16n8k16 (balanced). Pass-through bits make the smaller steps of sizes that are not multiples of 3.
std::vector<std::vector<StageType>> stagePlans(const Frame& f) {
  std::vector<StageType> k16 = {{false, 3, 3, 0}, {false, 2, 2, 1}, {false, 1, 1, 2}};
  std::vector<StageType> k8 = {{true, 2, 3, 0}, {true, 1, 2, 1}};
  const int minStages = (f.logOut + 2) / 3;
  std::vector<std::vector<StageType>> out;
  std::vector<StageType> cur;
  std::function<void(int, int)> rec = [&](int summed, int produced) {
    if (summed == f.logCarried && produced == f.logOut) {
      out.push_back(cur);
      return;
    }
    if (static_cast<int>(cur.size()) >= minStages + 1) return;
    const auto& options = cur.empty() && f.padding() == 1 ? k8 : k16;
    for (const auto& t : options) {
      if (summed + t.sum > f.logCarried || produced + t.prod > f.logOut) continue;
      cur.push_back(t);
      rec(summed + t.sum, produced + t.prod);
      cur.pop_back();
    }
  };
  if (f.padding() == 0 || f.padding() == 1) rec(0, 0);
  return out;
}

// Data bits in a fixed order: n descending, q ascending, f ascending (how layouts list them).
bool bitOrder(const std::string& a, const std::string& b) {
  auto rank = [](const std::string& x) { return x[0] == 'n' ? 0 : x[0] == 'q' ? 1 : x[0] == 'f' ? 2 : 3; };
  if (rank(a) != rank(b)) return rank(a) < rank(b);
  if (rank(a) == 3) return false;
  if (a[0] == 'n') return bitIndex(a) > bitIndex(b);
  return bitIndex(a) < bitIndex(b);
}

std::vector<std::vector<std::string>> subsets(const std::vector<std::string>& from, int k) {
  std::vector<std::vector<std::string>> out;
  std::vector<std::string> cur;
  std::function<void(std::size_t)> rec = [&](std::size_t i) {
    if (static_cast<int>(cur.size()) == k) {
      out.push_back(cur);
      return;
    }
    if (i == from.size()) return;
    cur.push_back(from[i]);
    rec(i + 1);
    cur.pop_back();
    rec(i + 1);
  };
  rec(0);
  return out;
}

Layout makeLayout(const std::string& b0, const std::vector<std::string>& t, const std::vector<std::string>& r) {
  std::vector<Layout::Entry> e{{{PhysKind::B, 0}, b0}};
  for (int i = 0; i < 5; ++i) e.push_back({{PhysKind::T, i}, t[i]});
  for (std::size_t i = 0; i < r.size(); ++i) e.push_back({{PhysKind::R, static_cast<int>(i)}, r[i]});
  return Layout(std::move(e));
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Operand B of a stage placed as close to `cur` as its roles allow: j bits (J) on b0 t0 t1 and, for m16n8k16, one on
// a register (j3); spectators (K) on t2 t3 t4; everything else on registers. A bit already on a slot of its class
// stays. Returns the layout and its j bits (j0 j1 j2 [j3]) and spectators (k0 k1 k2) in slot order.
Layout placeOperandB(const Layout* cur, const std::vector<std::string>& allBits, const std::vector<std::string>& J,
                     const std::vector<std::string>& K, bool k8, std::vector<std::string>& jOut,
                     std::vector<std::string>& kOut) {
  std::vector<std::string> slot(6);  // b0 t0 t1 t2 t3 t4
  auto isJ = [&](const std::string& x) { return contains(J, x); };
  auto isK = [&](const std::string& x) { return contains(K, x); };
  std::vector<std::string> placed;
  auto slotOf = [&](int s) -> PhysBit { return s == 0 ? PhysBit{PhysKind::B, 0} : PhysBit{PhysKind::T, s - 1}; };
  std::string j3;
  if (!cur) {
    // The input array, made to measure: ReIm on b0 (the kernel moves complex values as 32-bit words).
    std::vector<std::string> js = J;
    js.erase(std::find(js.begin(), js.end(), "ReIm"));
    slot[0] = "ReIm";
    slot[1] = js[0];
    slot[2] = js[1];
    if (!k8) j3 = js[2];
    for (int s = 0; s < 3; ++s) slot[3 + s] = K[s];
  } else {
    for (int s = 0; s < 6; ++s) {
      const std::string x = *cur->logicalAt(slotOf(s));
      if (s < 3 ? isJ(x) : isK(x)) slot[s] = x, placed.push_back(x);
    }
    auto onRegister = [&](const std::string& x) { return cur->physOf(x)->kind == PhysKind::R; };
    if (!k8) {
      // j3: a j bit already on a register (ReIm first), else one that must leave the lanes anyway.
      std::vector<std::string> cand;
      for (const auto& x : J)
        if (!contains(placed, x)) cand.push_back(x);
      std::stable_sort(cand.begin(), cand.end(), [&](const std::string& a, const std::string& b) {
        auto rank = [&](const std::string& x) { return onRegister(x) ? (x == "ReIm" ? 0 : 1) : 2; };
        return rank(a) < rank(b);
      });
      // Three j bits must fit b0 t0 t1: the j3 bit is whichever is left over once the lane slots are served.
      int freeJSlots = 0;
      for (int s = 0; s < 3; ++s) freeJSlots += slot[s].empty();
      if (static_cast<int>(cand.size()) > freeJSlots) j3 = cand.front();
      else {
        // All remaining j bits fit lane slots: a placed lane j bit must become j3 instead (rare: ReIm on a lane).
        for (int s = 0; s < 3 && j3.empty(); ++s)
          if (!slot[s].empty())
            j3 = slot[s], slot[s].clear(), placed.erase(std::find(placed.begin(), placed.end(), j3));
      }
      placed.push_back(j3);
    }
    for (int s = 0; s < 6; ++s) {
      if (!slot[s].empty()) continue;
      const std::vector<std::string>& want = s < 3 ? J : K;
      std::vector<std::string> cand;
      for (const auto& x : want)
        if (!contains(placed, x)) cand.push_back(x);
      std::stable_sort(cand.begin(), cand.end(),
                       [&](const std::string& a, const std::string& b) { return onRegister(a) > onRegister(b); });
      slot[s] = cand.front();
      placed.push_back(cand.front());
    }
  }
  std::vector<std::string> regs;
  if (!k8) regs.push_back(j3);
  std::vector<std::string> rest;
  if (cur)
    for (const auto& x : cur->registerBits())
      if (!contains(slot, x) && x != j3) rest.push_back(x);
  for (const auto& x : allBits)
    if (!contains(slot, x) && x != j3 && !contains(rest, x)) rest.push_back(x);
  if (!cur) std::stable_sort(rest.begin(), rest.end(), bitOrder);
  regs.insert(regs.end(), rest.begin(), rest.end());
  jOut = {slot[0], slot[1], slot[2]};
  if (!k8) jOut.push_back(j3);
  kOut = {slot[3], slot[4], slot[5]};
  return makeLayout(slot[0], {slot[1], slot[2], slot[3], slot[4], slot[5]}, regs);
}

struct Partial {
  std::vector<Stage> stages;
  Layout cur;         // the data layout after the last stage (its C), or the user's input
  bool fresh = true;  // no array yet: the first stage's B is the input, made to measure
  double cost = 0;
  std::string
      history;  // the loop and pass-through sets of the stages so far (what the future depends on besides `cur`)
};

// One more stage on a partial design of the beam, before the beam keeps the cheapest.
struct Expansion {
  int parent = 0;
  double cost = 0;
  int order = 0;  // generation order: a deterministic tie-break
  Stage stage;
};

}  // namespace

std::vector<Design> searchDesigns(const Frame& frame, const std::optional<Layout>& input,
                                  const std::optional<Layout>& output, RelayoutCache& relayouts, const CostTable& costs,
                                  int keep) {
  std::vector<Design> out;
  for (const auto& plan : stagePlans(frame)) {
    // Every stage's arrays must hold a fragment and fit the register budget.
    bool fits = true;
    int bits = frame.inputBits();
    for (const auto& t : plan) {
      fits &= bits >= (t.k8 ? 6 : 7) && bits + (t.k8 ? 1 : 0) - 6 <= kMaxDataRegisterBits;
      bits += t.k8 ? 1 : 0;
    }
    if (!fits) continue;
    std::vector<Partial> beam(1);
    if (input) beam[0].cur = *input, beam[0].fresh = false;
    int summed = 0, produced = 0;
    for (std::size_t stageIndex = 0; stageIndex < plan.size(); ++stageIndex) {
      const StageType& t = plan[stageIndex];
      std::vector<Expansion> next;
      for (const auto& p : beam) {
        std::vector<std::string> all;
        for (int k = 0; k < frame.logCarried - summed; ++k) all.push_back(nBit(k));
        for (int j = 0; j < produced; ++j) all.push_back(qBit(j));
        for (int k = 0; k < frame.batchBits; ++k) all.push_back(fBit(k));
        std::sort(all.begin(), all.end(), bitOrder);
        all.push_back("ReIm");
        std::vector<std::string> N, Q, eligible;
        for (int x = 0; x < t.sum; ++x) N.push_back(nBit(frame.logCarried - summed - 1 - x));
        for (int x = 0; x < t.prod; ++x) Q.push_back(qBit(produced + x));
        for (const auto& b : all)
          if (b != "ReIm" && !contains(N, b)) eligible.push_back(b);
        // The bits worth keeping as spectators: those on t2 t3 t4 already (no move now), those the next stage sums (a
        // spectator lands on b0 t0 t1, where the next stage sums); worth passing through: those on b0 t0 t1 already,
        // those the stage after next sums (a passed bit lands on t2 t3 t4, where the next stage keeps its spectators).
        // Then the rest in order where that is too few.
        std::vector<std::string> kPool, passPool;
        auto add = [&](std::vector<std::string>& pool, const std::string& b) {
          if (contains(eligible, b) && !contains(pool, b)) pool.push_back(b);
        };
        auto summedBy = [&](std::size_t u) {
          std::vector<std::string> v;
          int next = summed;
          for (std::size_t w = stageIndex; w < u; ++w) next += plan[w].sum;
          if (u < plan.size())
            for (int x = 0; x < plan[u].sum; ++x) v.push_back(nBit(frame.logCarried - next - 1 - x));
          return v;
        };
        if (!p.fresh)
          for (int x = 2; x < 5; ++x) add(kPool, *p.cur.logicalAt({PhysKind::T, x}));
        for (const auto& b : summedBy(stageIndex + 1)) add(kPool, b);
        if (t.pass) {
          if (!p.fresh) {
            add(passPool, *p.cur.logicalAt({PhysKind::B, 0}));
            for (int x = 0; x < 2; ++x) add(passPool, *p.cur.logicalAt({PhysKind::T, x}));
          }
          for (const auto& b : summedBy(stageIndex + 2)) add(passPool, b);
          for (const auto& b : eligible)
            if (static_cast<int>(passPool.size()) < t.pass + 1) add(passPool, b);
        }
        for (const auto& pass : subsets(passPool, t.pass)) {
          std::vector<std::string> rest;
          for (const auto& b : kPool)
            if (!contains(pass, b)) rest.push_back(b);
          for (const auto& b : eligible)
            if (static_cast<int>(rest.size()) < 4 && !contains(pass, b) && !contains(rest, b)) rest.push_back(b);
          std::vector<std::string> J{"ReIm"};
          J.insert(J.end(), N.begin(), N.end());
          J.insert(J.end(), pass.begin(), pass.end());
          for (const auto& K : subsets(rest, 3)) {
            Stage s;
            s.type = t;
            s.summed = N, s.produced = Q, s.pass = pass;
            s.B = placeOperandB(p.fresh ? nullptr : &p.cur, all, J, K, t.k8, s.jBits, s.kBits);
            s.relayoutIn = p.fresh ? 0 : relayouts.estimate(p.cur, s.B);
            // C: the spectators move to b0 t0 t1 (k0 k1 k2), the produced and passed bits onto t2 t3 t4 (i0 i1 i2),
            // ReIm onto the register of i3; the loop bits keep their registers.
            s.iBits = Q;
            s.iBits.insert(s.iBits.end(), pass.begin(), pass.end());
            s.iBits.push_back("ReIm");
            std::vector<std::string> cRegs{"ReIm"};
            for (const auto& x : s.B.registerBits())
              if (!contains(s.jBits, x)) s.loops.push_back(x), cRegs.push_back(x);
            s.C = makeLayout(s.kBits[0], {s.kBits[1], s.kBits[2], s.iBits[0], s.iBits[1], s.iBits[2]}, cRegs);
            const double cost = p.cost + s.relayoutIn + s.mmas() * (t.k8 ? costs.mmaK8 : costs.mmaK16);
            next.push_back({static_cast<int>(&p - beam.data()), cost, static_cast<int>(next.size()), std::move(s)});
          }
        }
      }
      // Keep the cheapest distinct states: the same lane bits and, stage by stage, the same loop and pass-through sets
      // leave the same future (register order is free; the twiddles a stage can fold depend on those sets).
      std::vector<int> rank(next.size());
      for (std::size_t i = 0; i < next.size(); ++i) rank[i] = static_cast<int>(i);
      std::sort(rank.begin(), rank.end(), [&](int a, int b) {
        return next[a].cost != next[b].cost ? next[a].cost < next[b].cost : next[a].order < next[b].order;
      });
      std::vector<Partial> kept;
      std::set<std::string> seen;
      for (int i : rank) {
        Expansion& e = next[i];
        const Partial& parent = beam[e.parent];
        auto setKey = [](std::vector<std::string> v) {
          std::sort(v.begin(), v.end());
          return fmt::format("{}", fmt::join(v, " "));
        };
        std::string k = parent.history + "|" + laneKey(e.stage.C) + "|" + setKey(e.stage.loops) + "/" +
                        setKey(e.stage.pass);
        if (!seen.insert(k).second) continue;
        Partial q;
        q.stages = parent.stages;
        q.history = parent.history + "|" + setKey(e.stage.loops) + "/" + setKey(e.stage.pass);
        q.fresh = false;
        q.cost = e.cost;
        q.cur = e.stage.C;
        q.stages.push_back(std::move(e.stage));
        kept.push_back(std::move(q));
        if (static_cast<int>(kept.size()) >= kBeamWidth) break;
      }
      beam = std::move(kept);
      summed += t.sum, produced += t.prod;
    }
    for (auto& p : beam) {
      Design d;
      d.frame = frame;
      d.types = plan;
      d.stages = std::move(p.stages);
      d.X = input ? *input : d.stages.front().B;
      const Layout& last = d.stages.back().C;
      if (output) {
        d.Y = *output;
      } else {
        // ReIm back onto b0 (one local transpose): the kernel stores complex values as 32-bit words.
        d.Y = last.swapped({PhysKind::B, 0}, *last.physOf("ReIm"));
      }
      d.finalRelayout = relayouts.estimate(last, d.Y);
      for (const auto& s : d.stages) {
        d.mmaCycles += s.mmas() * (s.type.k8 ? costs.mmaK8 : costs.mmaK16);
        d.relayoutCycles += s.relayoutIn;
      }
      d.relayoutCycles += d.finalRelayout;
      out.push_back(std::move(d));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Design& a, const Design& b) {
    const double ca = a.mmaCycles + a.relayoutCycles, cb = b.mmaCycles + b.relayoutCycles;
    return ca < cb;
  });
  if (static_cast<int>(out.size()) > keep) out.resize(keep);
  return out;
}

void exactRelayouts(Design& d, const std::optional<Layout>& input, RelayoutCache& relayouts) {
  d.relayoutCycles = 0;
  for (std::size_t i = 0; i < d.stages.size(); ++i) {
    if (i > 0 || input) d.stages[i].relayoutIn = relayouts.cost(i ? d.stages[i - 1].C : *input, d.stages[i].B);
    d.relayoutCycles += d.stages[i].relayoutIn;
  }
  d.finalRelayout = relayouts.cost(d.stages.back().C, d.Y);
  d.relayoutCycles += d.finalRelayout;
}

}  // namespace warpforge::synth
