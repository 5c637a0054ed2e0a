#include "generator/layout/Relayout.h"

#include <algorithm>
#include <map>
#include <queue>
#include <set>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace warpforge {

std::string MoveOp::str() const {
  switch (kind) {
    case LocalTranspose: return fmt::format("local transpose {} <-> {} ({} byte_perm)", x.str(), y.str(), byteperms);
    case WarpTranspose: return fmt::format("warp transpose {} <-> {} ({} shfl_xor)", x.str(), y.str(), shuffles);
    case LanePermutation:
      return fmt::format("lane permutation t <- t[{}] ({} shfl)", fmt::join(lanePerm, " "), shuffles);
  }
  return "?";
}

namespace {

// Search state: the logical bit (as an index) on each non-register physical
// bit; whatever is left sits in registers, whose order is free.
using Key = std::uint64_t;

struct Edge {
  MoveOp::Kind kind;
  int pos;                  // fixed-position index (for Local/Warp)
  int logical;              // logical bit brought in from a register (Local/Warp)
  std::vector<int> target;  // LanePermutation: the new state
};

}  // namespace

RelayoutPlan synthesizeRelayout(const Layout& from, const Layout& to, const CostTable& costs) {
  std::vector<std::string> fromBits = from.logicalBits(), toBits = to.logicalBits();
  std::sort(fromBits.begin(), fromBits.end());
  std::sort(toBits.begin(), toBits.end());
  if (fromBits != toBits)
    throw LayoutError(
        fmt::format("relayout needs the same logical bits on both sides: '{}' vs '{}'", from.str(), to.str()));
  for (PhysKind k : {PhysKind::B, PhysKind::T, PhysKind::R, PhysKind::W})
    if (from.count(k) != to.count(k))
      throw LayoutError(fmt::format("relayout cannot change the number of {} bits ('{}' vs '{}')",
                                    PhysBit{k, 0}.str().substr(0, 1), from.str(), to.str()));
  if (from.count(PhysKind::W)) throw LayoutError("relayout across warps (w bits) is not supported");

  const std::vector<std::string>& names = fromBits;
  auto idx = [&](const std::string& n) {
    return static_cast<int>(std::find(names.begin(), names.end(), n) - names.begin());
  };
  std::vector<PhysBit> fixed;
  for (int i = 0; i < from.count(PhysKind::B); ++i) fixed.push_back({PhysKind::B, i});
  for (int i = 0; i < from.count(PhysKind::T); ++i) fixed.push_back({PhysKind::T, i});
  const int nb = from.count(PhysKind::B), nf = static_cast<int>(fixed.size());
  const int nregs = from.numRegisters();

  auto stateOf = [&](const Layout& l) {
    std::vector<int> s;
    for (auto p : fixed) s.push_back(idx(*l.logicalAt(p)));
    return s;
  };
  auto key = [&](const std::vector<int>& s) {
    Key k = 0;
    for (int v : s) k = (k << 5) | static_cast<Key>(v);
    return k;
  };
  const std::vector<int> start = stateOf(from), goal = stateOf(to);
  const double localCost = costs.bytePerm * nregs, warpCost = costs.shuffle * (nregs / 2),
               permCost = costs.shuffle * nregs;
  auto heuristic = [&](const std::vector<int>& s) {
    double h = 0;
    for (int p = 0; p < nf; ++p) {
      bool inPlaceKind = false;
      for (int q = 0; q < nf; ++q)
        if (s[q] == goal[p] && (p < nb) == (q < nb)) inPlaceKind = true;
      if (!inPlaceKind) h += p < nb ? localCost : warpCost;
    }
    return h;
  };

  struct Node {
    double f, g;
    Key k;
  };
  auto cmp = [](const Node& a, const Node& b) { return a.f > b.f; };
  std::priority_queue<Node, std::vector<Node>, decltype(cmp)> open(cmp);
  std::unordered_map<Key, double> best;
  std::unordered_map<Key, std::pair<Key, Edge>> parent;
  std::unordered_map<Key, std::vector<int>> states;
  Key k0 = key(start), kg = key(goal);
  best[k0] = 0;
  states[k0] = start;
  open.push({heuristic(start), 0, k0});
  while (!open.empty()) {
    Node n = open.top();
    open.pop();
    if (n.g > best[n.k]) continue;
    if (n.k == kg) break;
    const std::vector<int> s = states[n.k];
    std::set<int> inRegs;
    for (int l = 0; l < static_cast<int>(names.size()); ++l) inRegs.insert(l);
    for (int v : s) inRegs.erase(v);
    auto relax = [&](std::vector<int> ns, double c, Edge e) {
      Key nk = key(ns);
      double g = n.g + c;
      auto it = best.find(nk);
      if (it != best.end() && it->second <= g) return;
      best[nk] = g;
      states[nk] = ns;
      parent[nk] = {n.k, std::move(e)};
      open.push({g + heuristic(ns), g, nk});
    };
    for (int p = 0; p < nf; ++p)
      for (int l : inRegs) {
        auto ns = s;
        ns[p] = l;
        bool local = p < nb;
        relax(ns, local ? localCost : warpCost, Edge{local ? MoveOp::LocalTranspose : MoveOp::WarpTranspose, p, l, {}});
      }
    // One lane permutation at the end reorders the t bits (any mid-path
    // permutation can be commuted there by relabelling later swaps).
    std::vector<int> tNow(s.begin() + nb, s.end()), tGoal(goal.begin() + nb, goal.end());
    auto a = tNow, b = tGoal;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (a == b && tNow != tGoal) {
      auto ns = s;
      std::copy(tGoal.begin(), tGoal.end(), ns.begin() + nb);
      relax(ns, permCost, Edge{MoveOp::LanePermutation, 0, 0, ns});
    }
  }
  if (!best.count(kg)) throw LayoutError("internal: relayout search found no path");

  std::vector<Edge> path;
  for (Key k = kg; k != k0; k = parent[k].first) path.push_back(parent[k].second);
  std::reverse(path.begin(), path.end());

  RelayoutPlan plan;
  Layout cur = from;
  for (const Edge& e : path) {
    MoveOp op;
    op.kind = e.kind;
    if (e.kind == MoveOp::LanePermutation) {
      for (int t = 0; t < from.count(PhysKind::T); ++t) {
        int want = e.target[nb + t];
        op.lanePerm.push_back(cur.physOf(names[want])->index);
      }
      std::vector<Layout::Entry> ents;
      for (const auto& en : cur.entries()) {
        Layout::Entry ne = en;
        if (en.phys.kind == PhysKind::T)
          ne.phys.index = static_cast<int>(std::find(op.lanePerm.begin(), op.lanePerm.end(), en.phys.index) -
                                           op.lanePerm.begin());
        ents.push_back(ne);
      }
      cur = Layout(ents);
      op.shuffles = nregs;
    } else {
      op.x = fixed[e.pos];
      op.y = *cur.physOf(names[e.logical]);
      cur = cur.swapped(op.x, op.y);
      if (e.kind == MoveOp::LocalTranspose) op.byteperms = nregs;
      else op.shuffles = nregs / 2;
    }
    plan.byteperms += op.byteperms;
    plan.shuffles += op.shuffles;
    plan.ops.push_back(op);
  }
  plan.reached = cur;
  for (const auto& bit : to.registerBits()) plan.rename.push_back(cur.physOf(bit)->index);
  // rename[i] above is the *register bit* of `reached` that becomes r_i.
  plan.smCycles = plan.byteperms * costs.bytePerm + plan.shuffles * costs.shuffle;
  return plan;
}

}  // namespace warpforge
