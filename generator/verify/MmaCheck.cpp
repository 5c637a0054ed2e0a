#include "generator/verify/MmaCheck.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "generator/layout/Wgmma.h"
#include "generator/verify/PhaseValue.h"

namespace warpforge {

namespace {

// All ordered selections of `k` distinct register bits out of `n`.
std::vector<std::vector<int>> injections(int k, int n) {
  std::vector<std::vector<int>> out;
  std::vector<int> cur;
  std::vector<bool> used(n, false);
  std::function<void()> rec = [&] {
    if (static_cast<int>(cur.size()) == k) {
      out.push_back(cur);
      return;
    }
    for (int i = 0; i < n; ++i)
      if (!used[i]) {
        used[i] = true;
        cur.push_back(i);
        rec();
        cur.pop_back();
        used[i] = false;
      }
  };
  rec();
  return out;
}

// What an operand puts on each matrix-index bit for one choice of registers.
struct OperandView {
  std::map<std::string, std::pair<std::string, PhysBit>> byMatrixBit;  // "j2" -> (n6, t1)
  std::vector<int> loopRegs;                                           // array r bits outside the fragment
};

OperandView view(const Layout& l, const FragmentLayout& f, const std::vector<int>& sigma) {
  OperandView v;
  for (std::size_t x = 0; x < f.b.size(); ++x)
    v.byMatrixBit[f.b[x]] = {*l.logicalAt({PhysKind::B, int(x)}), {PhysKind::B, int(x)}};
  for (std::size_t x = 0; x < f.t.size(); ++x)
    v.byMatrixBit[f.t[x]] = {*l.logicalAt({PhysKind::T, int(x)}), {PhysKind::T, int(x)}};
  for (std::size_t x = 0; x < f.r.size(); ++x)
    v.byMatrixBit[f.r[x]] = {*l.logicalAt({PhysKind::R, sigma[x]}), {PhysKind::R, sigma[x]}};
  for (int r = 0; r < l.count(PhysKind::R); ++r)
    if (std::find(sigma.begin(), sigma.end(), r) == sigma.end()) v.loopRegs.push_back(r);
  return v;
}

std::string setStr(const std::set<std::string>& s) { return fmt::format("{{{}}}", fmt::join(s, " ")); }

// The name a pass-through operand's bit stands for on matrix bit `mbit`: x_in on a summed (j) bit and x_out on an
// output (i, k) bit are the data bit x.
std::string seen(const MmaOperand& op, const std::string& l, const std::string& mbit) {
  if (!op.passThrough) return l;
  if (mbit[0] == 'j' ? isPassIn(l) : isPassOut(l)) return passBase(l);
  return l;
}

std::vector<std::string> match(const MmaShape& s, const MmaOperand& A, const MmaOperand& B, const MmaOperand& C,
                               const OperandView& va, const OperandView& vb, const OperandView& vc) {
  std::vector<std::string> out;
  auto cmp = [&](const std::string& mbit, const OperandView& ref, const MmaOperand& refArr, char refName,
                 const OperandView& got, const MmaOperand& gotArr, char gotName, const char* rule) {
    auto [rl, rp] = ref.byMatrixBit.at(mbit);
    auto [gl, gp] = got.byMatrixBit.at(mbit);
    const std::string want = seen(refArr, rl, mbit);
    if (rl != gl && want != seen(gotArr, gl, mbit))
      out.push_back(
          fmt::format("array '{}' (operand {}) physical bit {} carries {}, but matrix bit {} is {} in '{}' (operand "
                      "{}, "
                      "physical bit {}): expected {}, found {} (rule {})",
                      gotArr.name, gotName, gp.str(), gl, mbit, rl, refArr.name, refName, rp.str(), want, gl, rule));
  };
  for (int x = 0; (1 << x) < s.m; ++x) cmp(fmt::format("i{}", x), va, A, 'A', vc, C, 'C', kRuleRows);
  for (int x = 0; (1 << x) < s.k; ++x) cmp(fmt::format("j{}", x), va, A, 'A', vb, B, 'B', kRuleSummed);
  for (int x = 0; (1 << x) < s.n; ++x) cmp(fmt::format("k{}", x), vb, B, 'B', vc, C, 'C', kRuleColumns);
  std::set<std::string> cLoop;
  for (int r : vc.loopRegs) cLoop.insert(C.layout->registerBits()[r]);
  for (auto [v, arr, name] : {std::tuple{&va, &A, 'A'}, std::tuple{&vb, &B, 'B'}})
    for (int r : v->loopRegs) {
      std::string l = arr->layout->registerBits()[r];
      if (!cLoop.count(l))
        out.push_back(
            fmt::format("array '{}' (operand {}) register bit r{} carries {}, which is not a loop bit of output '{}' "
                        "(its loop bits: {}): expected one of those, found {} (rule {})",
                        arr->name, name, r, l, C.name, setStr(cLoop), l, kRuleLoop));
    }
  return out;
}

MmaStepPlan resolve(const MmaShape& s, const MmaOperand& A, const MmaOperand& B, const MmaOperand& C,
                    const std::vector<int>& sa, const std::vector<int>& sb, const std::vector<int>& sc) {
  OperandView va = view(*A.layout, s.a, sa), vb = view(*B.layout, s.b, sb), vc = view(*C.layout, s.c, sc);
  MmaStepPlan m;
  m.shape = &s;
  m.aReg = sa;
  m.bReg = sb;
  m.cReg = sc;
  for (const auto& [mb, lp] : va.byMatrixBit) m.matrixBits[mb] = lp.first;
  for (const auto& [mb, lp] : vb.byMatrixBit) m.matrixBits.emplace(mb, lp.first);
  for (const auto& [mb, lp] : vc.byMatrixBit) m.matrixBits.emplace(mb, lp.first);
  for (int r : vc.loopRegs) {
    std::string l = C.layout->registerBits()[r];
    m.loopBits.push_back(l);
    m.loopRegC.push_back(r);
    auto pa = A.layout->physOf(l);
    auto pb = B.layout->physOf(l);
    m.loopRegA.push_back(pa && pa->kind == PhysKind::R ? pa->index : -1);
    m.loopRegB.push_back(pb && pb->kind == PhysKind::R ? pb->index : -1);
  }
  m.count = 1 << m.loopBits.size();
  return m;
}

}  // namespace

Layout f32AccumulatorView(const Layout& l) {
  if (l.count(PhysKind::B) != 1)
    throw LayoutError(fmt::format("an f32 accumulator view needs one b bit (a __half2 register), found {} in {}",
                                  l.count(PhysKind::B), l.str()));
  std::vector<Layout::Entry> e;
  for (const auto& x : l.entries()) {
    PhysBit p = x.phys;
    if (p.kind == PhysKind::B) p = {PhysKind::R, 0};
    else if (p.kind == PhysKind::R) p.index += 1;
    e.push_back({p, x.logical});
  }
  return Layout(std::move(e));
}

MmaCheck checkMmaOperands(const MmaShape& shape, const MmaOperand& A, const MmaOperand& B, const MmaOperand& C,
                          const MmaCheckOptions& options) {
  MmaCheck out;
  for (auto [arr, frag, label] :
       {std::tuple{&A, &shape.a, 'A'}, std::tuple{&B, &shape.b, 'B'}, std::tuple{&C, &shape.c, 'C'}}) {
    const Layout& l = *arr->layout;
    const int fr = static_cast<int>(frag->r.size());
    if (l.count(PhysKind::R) < fr || l.count(PhysKind::B) != static_cast<int>(frag->b.size()) ||
        l.count(PhysKind::T) != static_cast<int>(frag->t.size()) ||
        (options.fixedRegisters && l.numBits() != static_cast<int>(frag->b.size() + frag->t.size()) + fr)) {
      out.problems.push_back(fmt::format(
          "array '{}' (operand {}) has {} b, {} t and {} r bits{}; the {} fragment needs {} b, {} t and {} {} r (rule "
          "{})",
          arr->name, label, l.count(PhysKind::B), l.count(PhysKind::T), l.count(PhysKind::R),
          l.count(PhysKind::W) ? fmt::format(" and {} w", l.count(PhysKind::W)) : "", shape.shape, frag->b.size(),
          frag->t.size(), options.fixedRegisters ? "exactly" : "at least", fr, kRuleOperandBits));
      return out;
    }
  }
  auto choices = [&](const FragmentLayout& f, const Layout& l) {
    if (!options.fixedRegisters) return injections(static_cast<int>(f.r.size()), l.count(PhysKind::R));
    std::vector<int> in_order(f.r.size());
    for (std::size_t x = 0; x < in_order.size(); ++x) in_order[x] = static_cast<int>(x);
    return std::vector<std::vector<int>>{in_order};
  };
  bool found = false;
  const auto ia = choices(shape.a, *A.layout), ib = choices(shape.b, *B.layout), ic = choices(shape.c, *C.layout);
  for (const auto& sa : ia)
    for (const auto& sb : ib)
      for (const auto& sc : ic) {
        auto mism = match(shape, A, B, C, view(*A.layout, shape.a, sa), view(*B.layout, shape.b, sb),
                          view(*C.layout, shape.c, sc));
        if (!found || mism.size() < out.problems.size()) {
          out.problems = mism;
          found = true;
          if (mism.empty()) {
            out.plan = resolve(shape, A, B, C, sa, sb, sc);
            return out;
          }
        }
      }
  return out;
}

std::optional<BitMap> matrixBits(const Layout& layout, const FragmentLayout& atom) {
  try {
    return layout.map().compose(atom.atom().inverse());
  } catch (const BitMapError&) {
    return std::nullopt;
  }
}

std::string checkWgmmaOperand(std::uint64_t desc, int rows, int kBytes,
                              const std::function<long long(int, int)>& stored, long long* reads) {
  const WgmmaDescriptor d = WgmmaDescriptor::decode(desc);
  if (const std::string f = d.fieldProblem(); !f.empty())
    return fmt::format("descriptor: {} (rule {})", f, kRuleDescriptor);
  for (int r = 0; r < rows; ++r)
    for (int kb = 0; kb < kBytes; ++kb) {
      const long long want = stored(r, kb);
      if (reads) ++*reads;
      const unsigned got = wgmmaOperandAddress(d, r, kb);
      if (want < 0)
        return fmt::format("row {} k byte {} is read ({} at {}) but was never staged (rule {})", r, kb,
                           wgmmaSwizzleName(d.swizzle), got, kRuleDescriptor);
      if (static_cast<long long>(got) != want)
        return fmt::format(
            "row {} k byte {}: the descriptor ({}, start {}, lbo {}, sbo {}) reads address {}, the staging wrote it at "
            "{} (rule {})",
            r, kb, wgmmaSwizzleName(d.swizzle), d.start, d.lbo, d.sbo, got, want, kRuleDescriptor);
    }
  return "";
}

}  // namespace warpforge
