#include "generator/tc_fft/TcFftIo.h"

#include <stdexcept>

#include <fmt/format.h>

#include "ast/Passes.h"

namespace warpforge {

using namespace ast;

NodePtr laneBit(int t) { return bin("&", bin(">>", var("lane"), lit(t)), lit(1)); }

namespace {

NodePtr reg(const std::string& var, int r) { return index(var, r); }

const char* vecType(int bits) { return bits == 2 ? "uint4" : bits == 1 ? "uint2" : "wf_u32"; }
const char* vecField(int i) {
  static const char* f[] = {"x", "y", "z", "w"};
  return f[i];
}

int indexOf(const std::string& name) { return std::stoi(name.substr(1)); }

// Element offset of register r from its register bits; -1 where a zero-padding bit is set.
long long regOffset(const Layout& l, const IoPlan& p, int r) {
  long long off = 0;
  for (const auto& e : l.entries()) {
    if (e.phys.kind != PhysKind::R || !((r >> e.phys.index) & 1)) continue;
    if (e.logical[0] == p.letter) {
      const int k = indexOf(e.logical);
      if (k >= p.logReal) return -1;
      off |= 1LL << k;
    } else if (e.logical[0] == 'f') {
      off += p.fStride << indexOf(e.logical);
    }
  }
  return off;
}

}  // namespace

IoPlan ioPlan(const Layout& l, char letter, int logReal, long long fStride) {
  IoPlan p;
  p.letter = letter;
  p.logReal = logReal;
  p.fStride = fStride;
  if (*l.logicalAt({PhysKind::B, 0}) != "ReIm")
    throw std::runtime_error(fmt::format("tc_fft emitter: global load/store needs b0 <-> ReIm in the {} layout '{}'",
                                         letter == 'n' ? "input" : "output", l.str()));
  while (p.vecBits < 2 && p.vecBits < logReal) {
    auto ph = l.physOf(fmt::format("{}{}", letter, p.vecBits));
    if (!ph || ph->kind != PhysKind::R) break;
    p.vecRegBit.push_back(ph->index);
    ++p.vecBits;
  }
  NodePtr off = lit(0);
  for (int k = 0; k < logReal; ++k) {
    auto ph = l.physOf(fmt::format("{}{}", letter, k));
    if (ph->kind == PhysKind::T) off = bin("+", off, bin("<<", laneBit(ph->index), lit(k)));
  }
  for (const auto& e : l.entries()) {
    if (e.phys.kind != PhysKind::T) continue;
    if (e.logical[0] == 'f') off = bin("+", off, bin("*", laneBit(e.phys.index), lit(fStride << indexOf(e.logical))));
    if (e.logical[0] == letter && indexOf(e.logical) >= logReal) p.padLaneMask |= 1 << e.phys.index;
  }
  p.laneOffset = foldConstants(off);
  return p;
}

std::vector<NodePtr> registerAccess(const Layout& l, const IoPlan& p, const std::string& array, const std::string& ptr,
                                    const std::string& laneVar, bool load, const std::string& validVar) {
  std::vector<NodePtr> out;
  int nregs = l.numRegisters();
  int vmask = 0;
  for (int b : p.vecRegBit) vmask |= 1 << b;
  int width = 1 << p.vecBits;
  for (int g = 0; g < nregs; ++g) {
    if (g & vmask) continue;
    std::vector<int> regs;
    for (int i = 0; i < width; ++i) {
      int r = g;
      for (int k = 0; k < p.vecBits; ++k) r |= ((i >> k) & 1) << p.vecRegBit[k];
      regs.push_back(r);
    }
    long long off = regOffset(l, p, g);
    if (off < 0) {  // zero padding: no memory behind these registers
      if (load)
        for (int r : regs) out.push_back(assign(reg(array, r), lit(0)));
      continue;
    }
    NodePtr addr = bin("+", bin("+", var(ptr), var(laneVar)), lit(off));
    std::string vt = vecType(p.vecBits);
    auto guarded = [&](NodePtr value, NodePtr zero) {
      return validVar.empty() ? value : ternary(var(validVar), value, zero);
    };
    if (width == 1) {
      NodePtr mem = index(cast(load ? "const wf_u32*" : "wf_u32*", foldConstants(addr)), lit(0));
      out.push_back(load ? assign(reg(array, regs[0]), guarded(mem, lit(0))) : assign(mem, reg(array, regs[0])));
      continue;
    }
    std::string tmp = fmt::format("{}_v{}", load ? "ld" : "st", g);
    NodePtr vptr = cast(fmt::format("{}{}*", load ? "const " : "", vt), foldConstants(addr));
    if (load) {
      std::vector<NodePtr> zeros(width, lit(0));
      out.push_back(decl(fmt::format("const {}", vt), tmp,
                         guarded(index(vptr, lit(0)), call(fmt::format("make_{}", vt), zeros))));
      for (int i = 0; i < width; ++i) out.push_back(assign(reg(array, regs[i]), member(var(tmp), vecField(i))));
    } else {
      std::vector<NodePtr> fields;
      for (int i = 0; i < width; ++i) fields.push_back(reg(array, regs[i]));
      out.push_back(assign(index(vptr, lit(0)), call(fmt::format("make_{}", vt), fields)));
    }
  }
  return out;
}

}  // namespace warpforge
