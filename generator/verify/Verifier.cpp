#include "generator/verify/Verifier.h"

#include "generator/layout/FragmentTable.h"
#include "generator/verify/MmaCheck.h"
#include "generator/verify/PhaseValue.h"

#include <algorithm>
#include <functional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace warpforge {

InstrCounts& InstrCounts::operator+=(const InstrCounts& o) {
  for (const auto& [k, v] : o.mma) mma[k] += v;
  hfma2 += o.hfma2;
  shuffles += o.shuffles;
  byteperms += o.byteperms;
  ffma += o.ffma;
  cvt += o.cvt;
  smCycles += o.smCycles;
  return *this;
}

VerifyError::VerifyError(std::string file, std::vector<VerifyIssue> issues)
    : std::runtime_error([&] {
        std::string s;
        for (const auto& i : issues) s += fmt::format("{}: {}: {}\n", file, i.path, i.message);
        return s;
      }()),
      issues_(std::move(issues)) {}

namespace {

using Names = std::set<std::string>;

Names bitSet(const Layout& l) {
  auto v = l.logicalBits();
  return Names(v.begin(), v.end());
}

std::string setStr(const Names& s) { return fmt::format("{{{}}}", fmt::join(s, " ")); }

double mmaCycles(const MmaShape& s) { return s.smCycles ? s.smCycles : s.m * s.n * s.k / 512.0; }

class Checker {
 public:
  Checker(const LayoutProgram& s, const CostTable& c) : spec_(s), costs_(c) {}

  Plan run() {
    Plan plan;
    plan.spec = &spec_;
    checkIo();
    for (const auto& a : spec_.arrays) checkStored(a);
    std::set<std::string> defined{spec_.input};
    for (const auto& st : spec_.steps) {
      StepPlan sp;
      sp.spec = &st;
      if (!defined.count(st.b))
        issue(st.path + "/b",
              fmt::format("array '{}' is read before any step writes it (data flows from /io/input '{}')", st.b,
                          spec_.input));
      if (defined.count(st.c))
        issue(st.path + "/c",
              fmt::format("array '{}' is written twice (each data array is written by exactly one step)", st.c));
      defined.insert(st.c);
      switch (st.op) {
        case StepOp::Mma: checkMma(st, sp); break;
        case StepOp::Cmul: checkCmul(st, sp); break;
        case StepOp::Relayout: checkRelayout(st, sp); break;
      }
      plan.steps.push_back(std::move(sp));
    }
    if (spec_.accumulate == "f32" && issues_.empty()) fuseF32(plan);
    for (const auto& sp : plan.steps) plan.total += sp.counts;
    if (!defined.count(spec_.output))
      issue("/io/output", fmt::format("output array '{}' is never written by a step", spec_.output));
    checkFactorization();
    for (const auto& a : spec_.arrays) {
      bool used = a.name == spec_.input;
      for (const auto& st : spec_.steps) used |= st.a == a.name || st.b == a.name || st.c == a.name;
      if (!used) plan.warnings.push_back(fmt::format("{}: array '{}' is not used by any step", a.path, a.name));
    }
    if (!issues_.empty()) throw VerifyError(spec_.file, issues_);
    return plan;
  }

 private:
  void issue(std::string path, std::string msg) { issues_.push_back({std::move(path), std::move(msg)}); }

  // The input carries ReIm, n0 .. n_{log2 n_in - 1}, and may carry higher n bits below log2 n_out (zero padding: those
  // elements are zeros the kernel never reads) and batch bits f0, f1, ... (several FFTs per warp); the output carries
  // ReIm, every q bit and the same batch bits.
  void checkIo() {
    Names in{"ReIm"}, out{"ReIm"};
    for (int k = 0; k < spec_.logIn; ++k) in.insert(fmt::format("n{}", k));
    for (int k = 0; k < spec_.logOut; ++k) out.insert(fmt::format("q{}", k));
    const ArraySpec* x = spec_.array(spec_.input);
    const ArraySpec* y = spec_.array(spec_.output);
    Names xBits = bitSet(x->layout), padding, batch;
    for (const auto& b : xBits) {
      if (b[0] == 'f') batch.insert(b);
      if (b[0] == 'n' && !in.count(b)) padding.insert(b);
    }
    for (int f = 0; f < static_cast<int>(batch.size()); ++f)
      if (!batch.count(fmt::format("f{}", f)))
        issue(x->path + "/layout", fmt::format("input array '{}': batch bits must be f0 .. f{}, found {}", x->name,
                                               batch.size() - 1, setStr(batch)));
    Names inAll = in;
    inAll.insert(padding.begin(), padding.end());
    inAll.insert(batch.begin(), batch.end());
    out.insert(batch.begin(), batch.end());
    if (xBits != inAll)
      issue(x->path + "/layout", fmt::format("input array '{}' must carry exactly {} (n_in = {}; zero-padding bits "
                                             "n{}.. and batch bits f0.. "
                                             "may be added), found {}",
                                             x->name, setStr(in), spec_.nIn, spec_.logIn, setStr(xBits)));
    if (bitSet(y->layout) != out)
      issue(y->path + "/layout",
            fmt::format("output array '{}' must carry exactly {} (n_out = {}{}), found {}", y->name, setStr(out),
                        spec_.nOut, batch.empty() ? "" : "; the input's batch bits", setStr(bitSet(y->layout))));
  }

  // The packed form must hold the same numbers: ReIm_out dropped, ReIm_in
  // renamed ReIm on the same kind of physical bit, all else in place.
  void checkStored(const ArraySpec& a) {
    if (!a.stored) return;
    const Layout& op = a.layout;
    const Layout& st = *a.stored;
    std::string p = a.path + "/stored";
    if (!op.hasLogical("ReIm_in")) {
      issue(p, fmt::format("array '{}': a stored (packed) layout is only defined for MMA-operand phases "
                           "(ReIm_in/ReIm_out)",
                           a.name));
      return;
    }
    if (op.physOf("ReIm_out")->kind != PhysKind::R) {
      issue(a.path + "/layout", fmt::format("array '{}': ReIm_out must be a register bit to be packed, found it on {}",
                                            a.name, op.physOf("ReIm_out")->str()));
      return;
    }
    for (const auto& e : op.entries()) {
      if (e.logical == "ReIm_out") continue;
      std::string want = e.logical == "ReIm_in" ? "ReIm" : e.logical;
      auto sp = st.physOf(want);
      if (!sp) {
        issue(p, fmt::format("array '{}': stored layout lacks {}: expected the operand layout's bits with ReIm_in -> "
                             "ReIm, found {}",
                             a.name, want, st.str()));
        continue;
      }
      if (e.phys.kind == PhysKind::R ? sp->kind != PhysKind::R : !(*sp == e.phys))
        issue(p, fmt::format("array '{}': stored layout physical bit {} must hold what the operand layout holds there: "
                             "expected {}, found {}",
                             a.name, e.phys.kind == PhysKind::R ? sp->str() : e.phys.str(),
                             e.phys.kind == PhysKind::R ? want + " on a register bit" : want,
                             e.phys.kind == PhysKind::R ? want + " on " + sp->str()
                                                        : st.logicalAt(e.phys).value_or("nothing")));
    }
    if (st.numBits() != op.numBits() - 1)
      issue(p, fmt::format("array '{}': stored layout size: expected {} bits (operand layout minus ReIm_out), found {}",
                           a.name, op.numBits() - 1, st.numBits()));
  }

  void checkMma(const StepSpec& st, StepPlan& sp) {
    const ArraySpec& A = *spec_.array(st.a);
    const ArraySpec& B = *spec_.array(st.b);
    const ArraySpec& C = *spec_.array(st.c);
    const bool f32 = spec_.accumulate == "f32";
    const MmaShape* shape = f32 ? findMmaShape(st.shape, spec_.precision, "f32")
                                : findMmaShape(st.shape, spec_.precision);
    std::string where = fmt::format("mma {}{}", st.shape, f32 ? " (f32 accumulators)" : "");
    if (!shape) {
      issue(st.path + "/shape",
            fmt::format("unknown MMA shape '{}' for precision {}{} (expected one of: {})", st.shape, spec_.precision,
                        f32 ? " with f32 accumulators" : "", knownShapesFor(spec_.precision)));
      return;
    }
    if (!A.layout.hasLogical("ReIm_in")) {
      issue(st.path + "/a",
            fmt::format("{}: phase array '{}' is in elementwise form (ReIm); an MMA operand needs ReIm_in and ReIm_out",
                        where, A.name));
      return;
    }
    // Data conservation and the summed bits. A's plain q bits that B lacks are the bits this step produces; its
    // plain n bits are summed (on j bits) or loop bits it folds a twiddle over (then B and C carry them).
    Names bBits = bitSet(B.layout), cBits = bitSet(C.layout), sum(st.sum.begin(), st.sum.end()), produced;
    for (const auto& e : A.layout.entries())
      if (e.logical[0] == 'q' && passBase(e.logical) == e.logical && !bBits.count(e.logical))
        produced.insert(e.logical);
    for (const auto& s : st.sum)
      if (!A.layout.hasLogical(s))
        issue(st.path + "/sum", fmt::format("{}: summed bit {} is not an input bit of phase array '{}' (its bits: {})",
                                            where, s, A.name, setStr(bitSet(A.layout))));
    for (const auto& e : A.layout.entries()) {
      const std::string base = passBase(e.logical);
      if ((e.logical[0] == 'n' || e.logical[0] == 'f' || (e.logical[0] == 'q' && e.logical != base)) &&
          !bBits.count(base))
        issue(A.path + "/layout",
              fmt::format("{} at {}: phase array '{}' carries {}, a bit which input '{}' does not carry", where,
                          st.path, A.name, e.logical, B.name));
    }
    Names expectC;
    for (const auto& b : bBits)
      if (!sum.count(b)) expectC.insert(b);
    expectC.insert(produced.begin(), produced.end());
    if (cBits != expectC)
      issue(C.path + "/layout",
            fmt::format("{} at {}: output '{}' must carry (bits of '{}' minus summed {}) plus produced {} = {}, found "
                        "{}",
                        where, st.path, C.name, B.name, setStr(sum), setStr(produced), setStr(expectC), setStr(cBits)));

    checkSumWidth(st, *shape, A, sum);

    // f32 accumulators: C's f32 registers are the pairs its __half2 registers are rounded from (f32AccumulatorView).
    const Layout cView = f32 ? f32AccumulatorView(C.layout) : C.layout;
    const std::string cName = f32 ? C.name + " as f32 pairs, b0 -> r0" : C.name;
    MmaCheck m = checkMmaOperands(*shape, {A.name, &A.layout, /*passThrough=*/true}, {B.name, &B.layout},
                                  {cName, &cView});
    for (const auto& problem : m.problems) issue(st.path, fmt::format("{}: {}", where, problem));
    if (!m.ok()) return;
    sp.mma = m.plan;
    Names jb;
    for (const auto& [mbit, log] : sp.mma.matrixBits)
      if (mbit[0] == 'j' && !isPassIn(log)) {
        jb.insert(log);
        if (!sum.count(log))
          issue(st.path + "/sum",
                fmt::format("{}: bit {} is summed by the fragment (matrix bit {}) but not listed in sum {}", where, log,
                            mbit, setStr(sum)));
      }
    for (const auto& s : sum)
      if (!jb.count(s))
        issue(st.path + "/sum",
              fmt::format("{}: sum lists {} but the fragment's summed (j) bits are {}", where, s, setStr(jb)));
    sp.counts.mma[st.shape] = sp.mma.count;
    sp.counts.smCycles = sp.mma.count * mmaCycles(*shape);
    if (f32) {  // each result pair rounded to __half2 (fuseF32 moves these to a complex multiply that follows)
      sp.counts.cvt = C.layout.numRegisters();
      sp.counts.smCycles += sp.counts.cvt * costs_.hfma2;
    }
  }

  // The rule behind most MMA mismatches, stated before the per-bit symptoms: a shape's k = 2^J rows are its J summed
  // (j) bits, which hold ReIm, the bits the step sums and the bits its phase operand passes through (x_in), no more,
  // no fewer. The fix names the shape that fits, or the split where none does; the per-bit symptoms follow it.
  void checkSumWidth(const StepSpec& st, const MmaShape& shape, const ArraySpec& A, const Names& sum) {
    int passed = 0;
    for (const auto& e : A.layout.entries()) passed += isPassIn(e.logical) && e.logical != "ReIm_in";
    auto log2k = [](int k) {
      int l = 0;
      while ((1 << l) < k) ++l;
      return l;
    };
    const int have = log2k(shape.k), need = 1 + static_cast<int>(sum.size()) + passed;
    if (need == have) return;
    std::string fix;
    int widest = 0;
    for (const auto& o : allMmaShapes()) {
      if (o.abType != shape.abType || o.cType != shape.cType) continue;
      widest = std::max(widest, log2k(o.k) - 1);
      if (fix.empty() && log2k(o.k) == need) fix = fmt::format("use {} (it sums {})", o.shape, need - 1);
    }
    if (fix.empty() && need > have)
      fix = fmt::format(
          "no {} MMA sums more than {} bits: sum {} here and the rest in a later MMA step, with a cmul applying the "
          "twiddles between",
          shape.abType, widest, widest - passed);
    if (fix.empty())
      fix = fmt::format("sum {} more bit(s), or pass {} bit(s) through (x_in on A's j bits, x_out on its i bits)",
                        have - need, have - need);
    issue(st.path + "/shape",
          fmt::format("mma {}: its {} summed (j) bits hold ReIm plus the bits a step sums or passes through: expected "
                      "{} summed or passed, found {} summed {} and {} passed through: {}",
                      shape.shape, have, have - 1, sum.size(), setStr(sum), passed, fix));
  }

  void checkCmul(const StepSpec& st, StepPlan& sp) {
    const ArraySpec& E = *spec_.array(st.a);
    const ArraySpec& B = *spec_.array(st.b);
    const ArraySpec& C = *spec_.array(st.c);
    std::string where = "cmul";
    std::size_t before = issues_.size();
    if (E.layout.hasLogical("ReIm_in")) {
      issue(st.path + "/a", fmt::format("{}: phase array '{}' is in MMA-operand form (ReIm_in/ReIm_out); an "
                                        "elementwise multiply needs ReIm",
                                        where, E.name));
      return;
    }
    if (bitSet(B.layout) != bitSet(C.layout))
      issue(C.path + "/layout",
            fmt::format("{} at {}: output '{}' must carry the same bits as input '{}' ({}), found {}", where, st.path,
                        C.name, B.name, setStr(bitSet(B.layout)), setStr(bitSet(C.layout))));
    for (const auto& e : B.layout.entries()) {
      if (e.phys.kind == PhysKind::R) continue;
      auto got = C.layout.logicalAt(e.phys);
      if (got != e.logical)
        issue(st.path, fmt::format("{}: array '{}' (output) physical bit {} carries {}, but input '{}' carries {} "
                                   "there (an elementwise "
                                   "multiply moves no data): expected {}, found {}",
                                   where, C.name, e.phys.str(), got.value_or("nothing"), B.name, e.logical, e.logical,
                                   got.value_or("nothing")));
    }
    for (const auto& e : E.layout.entries()) {
      auto pb = B.layout.physOf(e.logical);
      if (!pb) {
        issue(st.path, fmt::format("{}: phase array '{}' carries {} on {}, which data array '{}' does not carry", where,
                                   E.name, e.logical, e.phys.str(), B.name));
        continue;
      }
      bool ok = e.phys.kind == PhysKind::R ? pb->kind == PhysKind::R : *pb == e.phys;
      if (!ok)
        issue(st.path,
              fmt::format("{}: array '{}' physical bit {} carries {}, but phase array '{}' has {} on {}: expected {}, "
                          "found {}",
                          where, B.name, e.phys.kind == PhysKind::R ? pb->str() : e.phys.str(),
                          e.phys.kind == PhysKind::R ? e.logical : B.layout.logicalAt(e.phys).value_or("nothing"),
                          E.name, e.logical, e.phys.str(), e.phys.kind == PhysKind::R ? "a register bit" : e.logical,
                          e.phys.kind == PhysKind::R ? pb->str() : B.layout.logicalAt(e.phys).value_or("nothing")));
    }
    for (const auto& e : B.layout.entries())
      if (!E.layout.hasLogical(e.logical) && e.phys.kind != PhysKind::R)
        issue(st.path, fmt::format("{}: array '{}' physical bit {} carries {}, which phase array '{}' lacks; a bit the "
                                   "phase is reused "
                                   "across must be a register bit: expected a register bit, found {}",
                                   where, B.name, e.phys.str(), e.logical, E.name, e.phys.str()));
    if (issues_.size() != before) return;
    // Resolve registers.
    CmulStepPlan& p = sp.cmul;
    int nregs = B.layout.numRegisters();
    p.reImDataBit = B.layout.physOf("ReIm")->index;
    p.reImPhaseBit = E.layout.physOf("ReIm")->index;
    auto bRegBits = B.layout.registerBits(), eRegBits = E.layout.registerBits();
    for (int d = 0; d < nregs; ++d) {
      int preg = 0, creg = 0;
      for (std::size_t x = 0; x < eRegBits.size(); ++x) preg |= ((d >> B.layout.physOf(eRegBits[x])->index) & 1) << x;
      for (std::size_t x = 0; x < bRegBits.size(); ++x) creg |= ((d >> x) & 1) << C.layout.physOf(bRegBits[x])->index;
      p.phaseRegOfDataReg.push_back(preg);
      p.outRegOfDataReg.push_back(creg);
    }
    // Per complex pair of registers: re = Er*xr - Ei*xi, im = Er*xi + Ei*xr
    // as HMUL2 + HFMA2 each: 4 instructions per pair (the note's count).
    sp.counts.hfma2 = 2 * nregs;
    sp.counts.smCycles = sp.counts.hfma2 * costs_.hfma2;
  }

  // f32 accumulation: an MMA whose output only the next step, a complex multiply, reads hands it its f32 results
  // (LayoutProgram::f32Handoff); the multiply runs in f32 (its f16 phases widened) and rounds to __half2 once.
  void fuseF32(Plan& plan) const {
    for (std::size_t i = 0; i + 1 < plan.steps.size(); ++i) {
      if (!spec_.f32Handoff(i)) continue;
      StepPlan &m = plan.steps[i], &c = plan.steps[i + 1];
      m.f32Out = c.f32In = true;
      m.counts.smCycles -= m.counts.cvt * costs_.hfma2;
      m.counts.cvt = 0;
      // Per register pair (two complex values): 4 FMUL + 4 FFMA, 4 phase halves widened, 2 results packed.
      const int nregs = spec_.array(c.spec->b)->layout.numRegisters();
      c.counts.hfma2 = 0;
      c.counts.ffma = 4 * nregs;
      c.counts.cvt = 3 * nregs;
      c.counts.smCycles = (c.counts.ffma + c.counts.cvt) * costs_.hfma2;
    }
  }

  void checkRelayout(const StepSpec& st, StepPlan& sp) {
    const ArraySpec& B = *spec_.array(st.b);
    const ArraySpec& C = *spec_.array(st.c);
    if (bitSet(B.layout) != bitSet(C.layout)) {
      issue(C.path + "/layout",
            fmt::format("relayout at {}: target '{}' must carry the same bits as '{}' ({}), found {}", st.path, C.name,
                        B.name, setStr(bitSet(B.layout)), setStr(bitSet(C.layout))));
      return;
    }
    try {
      sp.relayout = synthesizeRelayout(B.layout, C.layout, costs_);
    } catch (const LayoutError& e) {
      issue(st.path, fmt::format("relayout '{}' -> '{}': {}", B.name, C.name, e.what()));
      return;
    }
    sp.counts.byteperms = sp.relayout.byteperms;
    sp.counts.shuffles = sp.relayout.shuffles;
    sp.counts.smCycles = sp.relayout.smCycles;
  }

  // Eq. (7): each factor E(q_j, n_k) with j + k < log2(n_out) exactly once. Factors of zero-padding bits (k >= log2
  // n_in) multiply only zeros: any count of them is right.
  void checkFactorization() {
    std::map<std::pair<int, int>, std::vector<std::string>> uses;
    for (const auto& st : spec_.steps) {
      if (st.op == StepOp::Relayout) continue;
      const ArraySpec& a = *spec_.array(st.a);
      for (const auto& f : a.phase)
        for (int j : f.q)
          for (int k : f.n) uses[{j, k}].push_back(st.path);
    }
    for (int j = 0; j < spec_.logOut; ++j)
      for (int k = 0; k < spec_.logIn; ++k) {
        if (j + k >= spec_.logOut) continue;
        auto it = uses.find({j, k});
        std::size_t n = it == uses.end() ? 0 : it->second.size();
        if (n == 0)
          issue("/steps", fmt::format("phase factorization (eq. 7): factor E(q{0}, n{1}) is applied 0 times (expected "
                                      "exactly once, as every "
                                      "E(q_j, n_k) with j + k < log2 n_out = {2}): add {{\"q\": [{0}], \"n\": [{1}]}} "
                                      "to the factors of "
                                      "one phase array: a cmul's between the step that produces q{0} and the one that "
                                      "sums n{1}, or the "
                                      "A operand of an MMA that carries both bits",
                                      j, k, spec_.logOut));
        else if (n > 1)
          issue("/steps", fmt::format("phase factorization (eq. 7): factor E(q{}, n{}) is applied {} times (by {}) "
                                      "(expected exactly once): "
                                      "remove it from the factors of all but one of those steps' phase arrays",
                                      j, k, n, fmt::join(it->second, ", ")));
      }
  }

  const LayoutProgram& spec_;
  CostTable costs_;
  std::vector<VerifyIssue> issues_;
};

}  // namespace

Plan Verifier::verify(const LayoutProgram& spec) const { return Checker(spec, costs_).run(); }

}  // namespace warpforge
