#include "generator/tc_fft/PhasePlan.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "generator/emulate/Emulator.h"
#include "generator/verify/PhaseValue.h"

namespace warpforge {

using namespace ast;

namespace {

NodePtr laneBit(int t) { return bin("&", bin(">>", var("lane"), lit(t)), lit(1)); }

// The value of physical bit p in register `reg`, element e: a lane-bit expression or a constant.
NodePtr bitExpr(PhysBit p, int reg, int e) {
  return p.kind == PhysKind::T ? laneBit(p.index) : lit(physBitValue(p, 0, reg, e));
}

// sum_j b_j 2^j over the factor bits `letter`j (j in `which`) at (lane, reg, e): the index a phase factor reads.
NodePtr bitSum(const Layout& l, char letter, const std::vector<int>& which, int reg, int e) {
  NodePtr v = lit(0);
  for (int j : which)
    v = bin("+", v, bin("<<", bitExpr(*factorBitPosition(l, fmt::format("{}{}", letter, j)), reg, e), lit(j)));
  return v;
}

// m = sum over the factors E(q_J, n_K) of (sum_j q_j 2^j) (sum_k n_k 2^k): the exponent of E at (lane, reg, e).
NodePtr exponent(const ArraySpec& a, const Layout& l, int reg, int e) {
  NodePtr acc = nullptr;
  for (const auto& f : a.phase) {
    NodePtr product = bin("*", bitSum(l, 'q', f.q, reg, e), bitSum(l, 'n', f.n, reg, e));
    acc = acc ? bin("+", acc, product) : product;
  }
  return acc;
}

// Where a pass-through pair x_in, x_out (other than ReIm's) differs the operand is zero: the condition that none does,
// nullptr where it always holds, a literal 0 where it never does.
NodePtr diagonal(const Layout& l, int reg, int e) {
  NodePtr cond = nullptr;
  for (const auto& en : l.entries()) {
    if (!isPassIn(en.logical) || en.logical == "ReIm_in") continue;
    PhysBit in = en.phys, out = *l.physOf(passBase(en.logical) + "_out");
    if (in.kind != PhysKind::T && out.kind != PhysKind::T) {
      if (physBitValue(in, 0, reg, e) != physBitValue(out, 0, reg, e)) return lit(0);
      continue;
    }
    NodePtr eq = bin("==", bitExpr(in, reg, e), bitExpr(out, reg, e));
    cond = cond ? bin("&&", cond, eq) : eq;
  }
  return cond;
}

// The twisted bits' part of the exponent at (lane, reg, e) as a number: sum_k n_k 2^k (bitSum's value).
long long twistValue(const Layout& l, const std::vector<int>& bits, int lane, int reg, int e) {
  long long v = 0;
  for (int k : bits)
    v += static_cast<long long>(physBitValue(*factorBitPosition(l, fmt::format("n{}", k)), lane, reg, e)) << k;
  return v;
}

}  // namespace

PhasePlan::PhasePlan(const LayoutProgram& spec, bool packed, const PhaseTwist* twist) : spec_(spec), packed_(packed) {
  if (twist) twist_ = *twist;
  static const std::vector<int> kNoBits;
  auto twistedBits = [&](const std::string& array) -> const std::vector<int>& {
    auto it = twist_.bits.find(array);
    return it == twist_.bits.end() ? kNoBits : it->second;
  };
  for (const auto& [array, bits] : twist_.bits) {
    const ArraySpec* a = spec.array(array);
    if (!a || !a->isPhase()) throw std::invalid_argument(fmt::format("phase twist: '{}' is not a phase array", array));
    for (int k : bits) {
      bool named = false;
      for (const auto& f : a->phase) named |= std::count(f.n.begin(), f.n.end(), k) > 0;
      if (!named) throw std::invalid_argument(fmt::format("phase twist: {} names no factor of n{}", array, k));
    }
  }
  std::map<std::vector<long long>, std::string> bySignature;
  std::vector<std::pair<std::string, std::vector<NodePtr>>>
      computed;  // per held variable: its declaration and computation
  for (const auto& a : spec.arrays) {
    if (!a.isPhase()) continue;
    const Layout& l = usesStored(a) ? *a.stored : a.layout;
    for (const char* bit : {"ReIm", "ReIm_in", "ReIm_out"})
      if (auto p = l.physOf(bit); p && p->kind == PhysKind::T)
        throw std::runtime_error(
            fmt::format("{}: {} on a lane bit is not supported by the tc_fft emitter", a.path, bit));
    naive_ += a.layout.numRegisters();
    std::vector<std::string>& vars = regVar_[a.name];
    for (int reg = 0; reg < l.numRegisters(); ++reg) {
      // Signature: (m, component) for every lane and element; -1 where the operand is zero.
      // A twisted register also carries its twist's bits (the variable's value is the kernel's, at run time).
      const std::vector<int>& tw = twistedBits(a.name);
      std::vector<long long> sig;
      for (int lane = 0; lane < 32; ++lane)
        for (int e = 0; e < 2; ++e) {
          const PhaseEntry p = phaseEntry(a, l, spec.nOut, lane, reg, e);
          sig.push_back(p.comp == PhaseComp::Zero ? -1 : p.m * 4 + static_cast<int>(p.comp));
          sig.push_back(p.comp == PhaseComp::Zero || tw.empty() ? -1 : twistValue(l, tw, lane, reg, e));
        }
      auto it = bySignature.find(sig);
      if (it != bySignature.end()) {
        vars.push_back(it->second);
        continue;
      }
      std::string name = fmt::format("p_{}_r{}", a.name, reg);  // own namespace, see TcFftEmitter.cpp
      bySignature[sig] = name;
      owner_[name] = {a.name, reg};
      vars.push_back(name);
      ++held_;
      std::vector<NodePtr> body;
      NodePtr comps[2];
      for (int e = 0; e < 2; ++e) {
        NodePtr cond = diagonal(l, reg, e);
        if (cond && cond->kind == Kind::IntLit && cond->value == 0) {
          comps[e] = flit(0.0);
          continue;
        }
        std::string c = fmt::format("c{}", e), s = fmt::format("s{}", e);
        body.push_back(decl("float", c));
        body.push_back(decl("float", s));
        NodePtr m = exponent(a, l, reg, e);
        int n = spec.nOut;
        if (!tw.empty()) {  // (scale m + v t) / (scale n_out)
          m = bin("+", bin("*", lit(twist_.scale), m), bin("*", var(twist_.var), bitSum(l, 'n', tw, reg, e)));
          n *= twist_.scale;
        }
        body.push_back(exprStmt(call("wf_phase", {m, lit(n), lit(spec.sign), var(c), var(s)})));
        const PhaseComp k = phaseComponent(l, 0, reg, e);  // ReIm bits are never lane bits (checked above)
        NodePtr v = k == PhaseComp::Cos ? var(c) : k == PhaseComp::Sin ? var(s) : unary("-", var(s));
        comps[e] = cond ? ternary(cond, v, flit(0.0)) : v;
      }
      body.push_back(assign(var(name), call("wf_pack", {comps[0], comps[1]})));
      computed.push_back({name, {decl("wf_u32", name), block(body)}});
    }
  }
  // Over the register budget: the variables only complex multiplies read go to the shared table first.
  int dataRegisters = 0;
  for (const auto& a : spec.arrays)
    if (!a.isPhase()) dataRegisters = std::max(dataRegisters, a.layout.numRegisters());
  const int budget = phaseRegisterBudget(spec);
  if (dataRegisters + held_ > budget) {
    std::set<std::string> mmaOperands, cmulOperands;
    for (const auto& st : spec.steps) {
      if (st.op == StepOp::Mma) mmaOperands.insert(st.a);
      if (st.op == StepOp::Cmul) cmulOperands.insert(st.a);
    }
    std::set<std::string> keep;  // variables an MMA operand reads (also where shared with a cmul's phases)
    for (const auto& [array, vars] : regVar_)
      if (!cmulOperands.count(array) || mmaOperands.count(array)) keep.insert(vars.begin(), vars.end());
    for (const auto& [name, nodes] : computed)
      if (!keep.count(name)) tableSlot_.emplace(name, static_cast<int>(tableSlot_.size()));
    // Still over: MMA operands too (read at every MMA that uses them), in order, until the rest fits.
    for (const auto& [name, nodes] : computed)
      if (dataRegisters + held_ - registersTabled() > budget && !tableSlot_.count(name))
        tableSlot_.emplace(name, static_cast<int>(tableSlot_.size()));
    held_ -= registersTabled();
  }
  if (!tableSlot_.empty() && !twist_.bits.empty())
    throw std::invalid_argument("phase twist: the phases differ by warp, so none may go to the per-lane shared table");
  if (!tableSlot_.empty()) {
    // Every warp of the block writes the same values (the phases depend on the lane only); a thread reads back only
    // what it wrote itself, so no barrier is needed.
    prologue_.push_back(sharedArray("wf_u32", "phase_table", {bin("*", decimal(registersTabled()), lit(32))}));
  }
  for (auto& [name, nodes] : computed) {
    for (auto& n : nodes) prologue_.push_back(n);
    if (tableSlot_.count(name)) prologue_.push_back(assign(ref(name), var(name)));
  }
  // Stored (packed) phases cost nothing extra here; unpacking happens at use.
}

std::vector<NodePtr> PhasePlan::prologue() const { return prologue_; }

NodePtr PhasePlan::ref(const std::string& v) const {
  auto it = tableSlot_.find(v);
  if (it == tableSlot_.end()) return var(v);
  return index(var("phase_table"), bin("+", lit(32LL * it->second), var("lane")));
}

NodePtr PhasePlan::operand(const std::string& array, int reg) const {
  const ArraySpec& a = *spec_.array(array);
  const std::vector<std::string>& vars = regVar_.at(array);
  if (!usesStored(a)) return ref(vars.at(reg));
  // Map the operand register to the stored one: every logical register bit of
  // the operand except ReIm_out / ReIm_in keeps its value.
  const Layout& op = a.layout;
  const Layout& st = *a.stored;
  int o = logicalBitValue(op, "ReIm_out", 0, reg, 0);
  PhysBit inBit = *op.physOf("ReIm_in");
  int stReg = 0;
  for (const auto& e : op.entries()) {
    if (e.phys.kind != PhysKind::R || e.logical == "ReIm_out" || e.logical == "ReIm_in") continue;
    stReg |= ((reg >> e.phys.index) & 1) << st.physOf(e.logical)->index;
  }
  if (inBit.kind == PhysKind::B) {
    // stored register holds (c, s) over its halves
    return call(o == 0 ? "wf_unpack_row0" : "wf_unpack_row1", {ref(vars.at(stReg))});
  }
  int i = (reg >> inBit.index) & 1;
  PhysBit reim = *st.physOf("ReIm");
  stReg |= (o ^ i) << reim.index;  // c where o == i, s otherwise
  NodePtr v = ref(vars.at(stReg));
  return (o == 0 && i == 1) ? call("wf_negate", {v}) : v;
}

double PhasePlan::heldValue(const std::string& v, int lane, int elem) const {
  const auto& [array, reg] = owner_.at(v);
  const ArraySpec& a = *spec_.array(array);
  const Layout& l = usesStored(a) ? *a.stored : a.layout;
  for (const auto& en : l.entries())  // as diagonal(): zero off the pass-through pairs' diagonal
    if (isPassIn(en.logical) && en.logical != "ReIm_in" &&
        physBitValue(en.phys, lane, reg, elem) !=
            physBitValue(*l.physOf(passBase(en.logical) + "_out"), lane, reg, elem))
      return 0;
  const PhaseComp k = phaseComponent(l, 0, reg, elem);  // as the prologue: fixed per register and half
  const double ang = spec_.sign * 2.0 * M_PI * static_cast<double>(phaseEntry(a, l, spec_.nOut, lane, reg, elem).m) /
                     spec_.nOut;
  return k == PhaseComp::Cos ? std::cos(ang) : k == PhaseComp::Sin ? std::sin(ang) : -std::sin(ang);
}

double PhasePlan::operandValue(const std::string& array, int reg, int lane, int elem) const {
  const ArraySpec& a = *spec_.array(array);
  const std::vector<std::string>& vars = regVar_.at(array);
  if (!usesStored(a)) return heldValue(vars.at(reg), lane, elem);
  const Layout& op = a.layout;
  const Layout& st = *a.stored;
  const int o = logicalBitValue(op, "ReIm_out", 0, reg, 0);
  const PhysBit inBit = *op.physOf("ReIm_in");
  int stReg = 0;
  for (const auto& e : op.entries()) {
    if (e.phys.kind != PhysKind::R || e.logical == "ReIm_out" || e.logical == "ReIm_in") continue;
    stReg |= ((reg >> e.phys.index) & 1) << st.physOf(e.logical)->index;
  }
  if (inBit.kind == PhysKind::B) {
    const std::string& v = vars.at(stReg);  // (c, s): row 0 is (c, -s), row 1 (s, c)
    return o == 0 ? (elem == 0 ? heldValue(v, lane, 0) : -heldValue(v, lane, 1)) : heldValue(v, lane, 1 - elem);
  }
  const int i = (reg >> inBit.index) & 1;
  stReg |= (o ^ i) << st.physOf("ReIm")->index;
  const double v = heldValue(vars.at(stReg), lane, elem);
  return (o == 0 && i == 1) ? -v : v;
}

}  // namespace warpforge
