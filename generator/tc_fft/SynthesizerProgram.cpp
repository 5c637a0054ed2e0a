// A synthesized design written out as a layout program: the arrays (data layouts, phase operands with their packed
// forms, twiddle phases) and the steps between them, each with a description a reader can follow.
#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "generator/tc_fft/SynthesizerDesign.h"

namespace warpforge::synth {

namespace {

std::string factorText(const std::vector<PhaseFactor>& fs) {
  std::vector<std::string> parts;
  for (const auto& f : fs) {
    std::vector<std::string> q, n;
    for (int j : f.q) q.push_back(qBit(j));
    for (int k : f.n) n.push_back(nBit(k));
    parts.push_back(fmt::format("E({}, {})", fmt::join(q, " "), fmt::join(n, " ")));
  }
  return fmt::format("{}", fmt::join(parts, " x "));
}

Layout fromEntries(std::vector<Layout::Entry> e) { return Layout(std::move(e)); }

// Factor and constant bits of a phase layout: every non-ReIm bit that no factor names is constant_over.
std::vector<std::string> constantBits(const Layout& l, const std::vector<PhaseFactor>& fs) {
  std::set<std::string> factorBits;
  for (const auto& f : fs) {
    for (int j : f.q) factorBits.insert(qBit(j));
    for (int k : f.n) factorBits.insert(nBit(k));
  }
  std::vector<std::string> out;
  for (const auto& e : l.entries()) {
    std::string base = e.logical;
    for (const char* suffix : {"_in", "_out"})
      if (base.size() > std::string(suffix).size() &&
          base.compare(base.size() - std::string(suffix).size(), std::string::npos, suffix) == 0)
        base = base.substr(0, base.size() - std::string(suffix).size());
    if (base != "ReIm" && !factorBits.count(base) && !has(out, base)) out.push_back(base);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Stage s's phase operand: the atom's positions (b0 j0, t0 t1 j1 j2, t2 t3 t4 i0 i1 i2, r0 i3, r1 j3) named by the
// stage's roles, plus the loop bits it folds twiddles over as further registers.
ArraySpec operandA(const Stage& s, const std::vector<std::string>& foldedLoops, const std::vector<PhaseFactor>& factors,
                   const std::string& name) {
  auto jName = [&](const std::string& x) {
    return x == "ReIm" ? std::string("ReIm_in") : has(s.pass, x) ? x + "_in" : x;
  };
  auto iName = [&](const std::string& x) {
    return x == "ReIm" ? std::string("ReIm_out") : has(s.pass, x) ? x + "_out" : x;
  };
  std::vector<Layout::Entry> e{{{PhysKind::B, 0}, jName(s.jBits[0])}, {{PhysKind::T, 0}, jName(s.jBits[1])},
                               {{PhysKind::T, 1}, jName(s.jBits[2])}, {{PhysKind::T, 2}, iName(s.iBits[0])},
                               {{PhysKind::T, 3}, iName(s.iBits[1])}, {{PhysKind::T, 4}, iName(s.iBits[2])},
                               {{PhysKind::R, 0}, iName(s.iBits[3])}};
  if (!s.type.k8) e.push_back({{PhysKind::R, 1}, jName(s.jBits[3])});
  for (const auto& b : s.loops)
    if (has(foldedLoops, b)) e.push_back({{PhysKind::R, static_cast<int>(e.size()) - 6}, b});
  ArraySpec a;
  a.name = name;
  a.layout = fromEntries(e);
  a.phase = factors;
  a.constantOver = constantBits(a.layout, factors);
  // Packed: ReIm_out (r0) dropped, ReIm_in read as ReIm (a (c, s) pair per register or per two registers).
  std::vector<Layout::Entry> st;
  for (const auto& x : e) {
    if (x.logical == "ReIm_out") continue;
    Layout::Entry y = x;
    if (y.logical == "ReIm_in") y.logical = "ReIm";
    if (y.phys.kind == PhysKind::R) --y.phys.index;
    st.push_back(y);
  }
  a.stored = fromEntries(st);
  return a;
}

// A twiddle phase on data layout D: D's lane bits where D has them, its ReIm and factor bits on registers.
ArraySpec twiddlePhase(const Layout& D, const std::vector<PhaseFactor>& factors, const std::string& name) {
  std::set<std::string> factorBits;
  for (const auto& f : factors) {
    for (int j : f.q) factorBits.insert(qBit(j));
    for (int k : f.n) factorBits.insert(nBit(k));
  }
  std::vector<Layout::Entry> e;
  int r = 0;
  for (const auto& x : D.entries())
    if (x.phys.kind != PhysKind::R) e.push_back(x);
  for (const auto& x : D.registerBits())
    if (x == "ReIm" || factorBits.count(x)) e.push_back({{PhysKind::R, r++}, x});
  ArraySpec a;
  a.name = name;
  a.layout = fromEntries(e);
  a.phase = factors;
  a.constantOver = constantBits(a.layout, factors);
  return a;
}

std::string list(const std::vector<std::string>& v) {
  return v.empty() ? "none" : fmt::format("{}", fmt::join(v, " "));
}

}  // namespace

LayoutProgram materialize(const Design& d, const TwiddlePlan& t, const std::string& file, const std::string& name,
                          int nIn, int nOut) {
  LayoutProgram p;
  p.file = file;
  p.name = name;
  p.precision = "f16";
  p.nIn = nIn;
  p.nOut = nOut;
  p.sign = d.frame.sign;
  p.logIn = d.frame.logIn;
  p.logOut = d.frame.logOut;
  const int S = static_cast<int>(d.stages.size());
  auto addData = [&](const std::string& n, const Layout& l, const std::string& desc) {
    ArraySpec a;
    a.name = n;
    a.layout = l;
    a.description = desc;
    p.arrays.push_back(a);
  };
  auto addStep = [&](StepOp op, const std::string& a, const std::string& b, const std::string& c,
                     const std::string& desc) {
    StepSpec st;
    st.op = op;
    st.a = a, st.b = b, st.c = c;
    st.description = desc;
    p.steps.push_back(st);
    return &p.steps.back();
  };
  addData("X", d.X,
          d.frame.batchBits ? fmt::format("input: {} FFTs per warp (f bits)", 1 << d.frame.batchBits) : "input");
  p.input = "X";
  std::string cur = "X";
  Layout curLayout = d.X;
  auto cmulAt = [&](int gap, bool after) -> const Cmul* {
    for (const auto& c : t.cmuls)
      if (c.gap == gap && c.afterRelayout == after) return &c;
    return nullptr;
  };
  auto twiddle = [&](const Cmul& c, const std::string& arrayName) {
    const std::string w = fmt::format("W{}", c.gap + 1);
    ArraySpec a = twiddlePhase(curLayout, c.factors, w);
    a.description = fmt::format("twiddles between stages {} and {}: {}", c.gap + 1, c.gap + 2, factorText(c.factors));
    p.arrays.push_back(a);
    addData(arrayName, curLayout, fmt::format("after the twiddles of gap {}", c.gap + 1));
    addStep(StepOp::Cmul, w, cur, arrayName,
            fmt::format("twiddles {} as a __half2 complex multiply", factorText(c.factors)));
    cur = arrayName;
  };
  for (int s = 0; s < S; ++s) {
    const Stage& st = d.stages[s];
    if (!curLayout.equalUpToRegisterOrder(st.B)) {
      const std::string b = fmt::format("B{}", s + 1);
      addData(b, st.B, fmt::format("stage {}'s operand B", s + 1));
      addStep(StepOp::Relayout, "", cur, b,
              fmt::format("j bits {} onto b0 t0 t1{}, spectators {} onto t2 t3 t4",
                          list({st.jBits[0], st.jBits[1], st.jBits[2]}),
                          st.type.k8 ? "" : " and " + st.jBits[3] + " onto a register", list(st.kBits)));
      cur = b;
      curLayout = st.B;
    }
    if (s > 0)
      if (const Cmul* c = cmulAt(s - 1, true)) twiddle(*c, fmt::format("B{}w", s + 1));
    std::vector<PhaseFactor> factors;
    {
      std::vector<int> q, n;
      for (const auto& x : st.produced) q.push_back(bitIndex(x));
      for (const auto& x : st.summed) n.push_back(bitIndex(x));
      factors.push_back({q, n});
    }
    // Folded twiddles over the produced bits join the stage's own factor: one rectangle E(produced, summed + folded).
    for (const auto& f : t.folded[s]) {
      if (f.q == factors.front().q) factors.front().n.insert(factors.front().n.end(), f.n.begin(), f.n.end());
      else factors.push_back(f);
    }
    std::vector<std::string> folded(t.foldedLoops[s].begin(), t.foldedLoops[s].end());
    ArraySpec a = operandA(st, folded, factors, fmt::format("E{}", s + 1));
    a.description = fmt::format("stage {}'s phase operand: {}", s + 1, factorText(factors));
    p.arrays.push_back(a);
    const std::string z = s + 1 == S ? "Zlast" : fmt::format("Z{}", s + 1);
    addData(z, st.C, fmt::format("stage {}'s output", s + 1));
    StepSpec* mma = addStep(StepOp::Mma, a.name, cur, z,
                            fmt::format("stage {}: sums {} (and ReIm), produces {}{}; spectators {}; {} MMAs over {}{}",
                                        s + 1, list(st.summed), list(st.produced),
                                        st.pass.empty() ? "" : ", passes " + list(st.pass) + " through", list(st.kBits),
                                        st.mmas(), list(st.loops),
                                        folded.empty() ? "" : "; folds twiddles over " + list(folded)));
    mma->shape = st.type.k8 ? "m16n8k8" : "m16n8k16";
    mma->sum = st.summed;
    cur = z;
    curLayout = st.C;
    if (const Cmul* c = cmulAt(s, false)) twiddle(*c, fmt::format("Z{}w", s + 1));
  }
  if (!curLayout.equalUpToRegisterOrder(d.Y) || curLayout.logicalAt({PhysKind::B, 0}) != "ReIm") {
    addData("Y", d.Y, "output");
    addStep(StepOp::Relayout, "", cur, "Y", "ReIm back onto b0: the kernel stores complex values as 32-bit words");
    cur = "Y";
  }
  p.output = cur;
  for (std::size_t i = 0; i < p.steps.size(); ++i) p.steps[i].path = fmt::format("/steps/{}", i);
  for (auto& a : p.arrays) a.path = "/arrays/" + a.name;
  return p;
}

}  // namespace warpforge::synth
