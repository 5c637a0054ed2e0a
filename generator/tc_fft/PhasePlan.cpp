#include "generator/tc_fft/PhasePlan.h"

#include <stdexcept>

#include <fmt/format.h>

#include "generator/emulate/Emulator.h"

namespace warpforge {

using namespace ast;

namespace {

enum Comp { Cos = 0, Sin = 1, NegSin = 2 };

// Which of c, s, -s sits at (reg, elem): fixed per register and element since
// ReIm / ReIm_in / ReIm_out are never lane bits (checked).
Comp componentAt(const Layout& l, int reg, int e) {
  if (l.hasLogical("ReIm_out")) {
    int o = logicalBitValue(l, "ReIm_out", 0, reg, e), i = logicalBitValue(l, "ReIm_in", 0, reg, e);
    return o == i ? Cos : (o == 0 ? NegSin : Sin);
  }
  return logicalBitValue(l, "ReIm", 0, reg, e) ? Sin : Cos;
}

NodePtr laneBit(int t) { return bin("&", bin(">>", var("lane"), lit(t)), lit(1)); }

// sum over the bits of the factor set of (bit value) << position
NodePtr bitsValue(const Layout& l, char letter, const std::vector<int>& which, int reg, int e) {
  NodePtr acc = lit(0);
  for (int j : which) {
    PhysBit p = *l.physOf(fmt::format("{}{}", letter, j));
    NodePtr b = p.kind == PhysKind::T ? laneBit(p.index) : lit(p.kind == PhysKind::R ? (reg >> p.index) & 1 : (e >> p.index) & 1);
    acc = bin("+", acc, bin("<<", b, lit(j)));
  }
  return acc;
}

}  // namespace

PhasePlan::PhasePlan(const LayoutProgram& spec, bool packed) : spec_(spec), packed_(packed) {
  std::map<std::vector<long long>, std::string> bySignature;
  for (const auto& a : spec.arrays) {
    if (!a.isPhase()) continue;
    const Layout& l = usesStored(a) ? *a.stored : a.layout;
    for (const char* bit : {"ReIm", "ReIm_in", "ReIm_out"})
      if (auto p = l.physOf(bit); p && p->kind == PhysKind::T)
        throw std::runtime_error(fmt::format("{}: {} on a lane bit is not supported by the tc_fft emitter", a.path, bit));
    naive_ += a.layout.numRegisters();
    std::vector<std::string>& vars = regVar_[a.name];
    for (int reg = 0; reg < l.numRegisters(); ++reg) {
      // Signature: (m, component) for every lane and element.
      std::vector<long long> sig;
      for (int lane = 0; lane < 32; ++lane)
        for (int e = 0; e < 2; ++e) {
          long long qv = 0, nv = 0;
          for (int j : a.phase->q) qv |= static_cast<long long>(logicalBitValue(l, fmt::format("q{}", j), lane, reg, e)) << j;
          for (int k : a.phase->n) nv |= static_cast<long long>(logicalBitValue(l, fmt::format("n{}", k), lane, reg, e)) << k;
          sig.push_back(((qv * nv) % spec.nOut) * 4 + componentAt(l, reg, e));
        }
      auto it = bySignature.find(sig);
      if (it != bySignature.end()) {
        vars.push_back(it->second);
        continue;
      }
      std::string name = fmt::format("p_{}_r{}", a.name, reg);  // own namespace, see TcFftEmitter.cpp
      bySignature[sig] = name;
      vars.push_back(name);
      ++held_;
      std::vector<NodePtr> body;
      NodePtr comps[2];
      for (int e = 0; e < 2; ++e) {
        std::string c = fmt::format("c{}", e), s = fmt::format("s{}", e);
        body.push_back(decl("float", c));
        body.push_back(decl("float", s));
        NodePtr m = bin("*", bitsValue(l, 'q', a.phase->q, reg, e), bitsValue(l, 'n', a.phase->n, reg, e));
        body.push_back(exprStmt(call("wf_phase", {m, lit(spec.nOut), lit(spec.sign), var(c), var(s)})));
        Comp k = componentAt(l, reg, e);
        comps[e] = k == Cos ? var(c) : k == Sin ? var(s) : unary("-", var(s));
      }
      body.push_back(assign(var(name), call("wf_pack", {comps[0], comps[1]})));
      prologue_.push_back(decl("wf_u32", name));
      prologue_.push_back(block(body));
    }
  }
  // Stored (packed) phases cost nothing extra here; unpacking happens at use.
}

std::vector<NodePtr> PhasePlan::prologue() const { return prologue_; }

NodePtr PhasePlan::operand(const std::string& array, int reg) const {
  const ArraySpec& a = *spec_.array(array);
  const std::vector<std::string>& vars = regVar_.at(array);
  if (!usesStored(a)) return var(vars.at(reg));
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
    return call(o == 0 ? "wf_unpack_row0" : "wf_unpack_row1", {var(vars.at(stReg))});
  }
  int i = (reg >> inBit.index) & 1;
  PhysBit reim = *st.physOf("ReIm");
  stReg |= (o ^ i) << reim.index;  // c where o == i, s otherwise
  NodePtr v = var(vars.at(stReg));
  return (o == 0 && i == 1) ? call("wf_negate", {v}) : v;
}

}  // namespace warpforge
