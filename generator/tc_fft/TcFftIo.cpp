#include "generator/tc_fft/TcFftIo.h"

#include <algorithm>
#include <map>
#include <set>
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
      off |= 1LL << (k + p.indexShift);
    } else if (e.logical[0] == 'f') {
      off += p.fStride << indexOf(e.logical);
    }
  }
  return off;
}

}  // namespace

long long ioRegisterOffset(const Layout& l, const IoPlan& p, int r) { return regOffset(l, p, r); }

long long ioLaneOffset(const Layout& l, const IoPlan& p, int lane) {
  if (lane & p.padLaneMask) return -1;
  long long off = 0;
  for (int t = 0; t < 5; ++t) {
    const auto name = l.logicalAt({PhysKind::T, t});
    if (!((lane >> t) & 1) || !name || (*name)[0] != p.letter) continue;
    if (const int k = indexOf(*name); k < p.logReal) off |= 1LL << (k + p.indexShift);
  }
  return off;
}

IoPlan ioPlan(const Layout& l, char letter, int logReal, long long fStride, int indexShift) {
  IoPlan p;
  p.letter = letter;
  p.logReal = logReal;
  p.fStride = fStride;
  p.indexShift = indexShift;
  if (*l.logicalAt({PhysKind::B, 0}) != "ReIm")
    throw std::runtime_error(fmt::format("tc_fft emitter: global load/store needs b0 <-> ReIm in the {} layout '{}'",
                                         letter == 'n' ? "input" : "output", l.str()));
  while (indexShift == 0 && p.vecBits < 2 && p.vecBits < logReal) {
    auto ph = l.physOf(fmt::format("{}{}", letter, p.vecBits));
    if (!ph || ph->kind != PhysKind::R) break;
    p.vecRegBit.push_back(ph->index);
    ++p.vecBits;
  }
  NodePtr off = lit(0);
  for (int k = 0; k < logReal; ++k) {
    auto ph = l.physOf(fmt::format("{}{}", letter, k));
    if (ph && ph->kind == PhysKind::T) off = bin("+", off, bin("<<", laneBit(ph->index), lit(k + indexShift)));
  }
  for (const auto& e : l.entries()) {
    if (e.phys.kind != PhysKind::T) continue;
    if (e.logical[0] == 'f') off = bin("+", off, bin("*", laneBit(e.phys.index), lit(fStride << indexOf(e.logical))));
    if (e.logical[0] == letter && indexOf(e.logical) >= logReal) p.padLaneMask |= 1 << e.phys.index;
  }
  p.laneOffset = foldConstants(off);
  return p;
}

namespace {

// `sum` (loads only): each register is sum.combine(its word in each of sum.segments segments, sum.args...).
std::vector<NodePtr> accessRegisters(const Layout& l, const IoPlan& p, const StageSwizzle* swz,
                                     const std::string& array, const std::string& ptr, const std::string& laneVar,
                                     bool load, const std::string& validVar, const SegmentSum* sum = nullptr) {
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
    if (swz) {
      // laneVar ^ word(off), written as (laneVar ^ low) + high: `high` holds the bits laneVar never has, so the XOR
      // is an addition there, an immediate of the shared access; the few distinct `low` give the base addresses.
      const long long w = swz->word(off), low = w & swz->laneMask, high = w & ~swz->laneMask;
      addr = bin("+", bin("+", var(ptr), low ? bin("^", var(laneVar), lit(low)) : var(laneVar)), lit(high));
    }
    std::string vt = vecType(p.vecBits);
    auto guarded = [&](NodePtr value, NodePtr zero) {
      return validVar.empty() ? value : ternary(var(validVar), value, zero);
    };
    if (sum) {  // one access per segment, then the sums, register by register
      std::vector<NodePtr> zeros(width, lit(0));
      const std::string t = width == 1 ? "wf_u32" : vt;
      for (int j = 0; j < sum->segments; ++j) {
        NodePtr a = foldConstants(j ? bin("+", addr, lit(j * sum->segmentWords)) : addr);
        NodePtr mem = index(cast(fmt::format("const {}*", t), a), lit(0));
        out.push_back(decl(fmt::format("const {}", t), fmt::format("ld_v{}_s{}", g, j),
                           guarded(mem, width == 1 ? lit(0) : call(fmt::format("make_{}", vt), zeros))));
      }
      for (int i = 0; i < width; ++i) {
        std::vector<NodePtr> args;
        for (int j = 0; j < sum->segments; ++j) {
          NodePtr v = var(fmt::format("ld_v{}_s{}", g, j));
          args.push_back(width == 1 ? v : member(v, vecField(i)));
        }
        for (const auto& a : sum->args) args.push_back(a);
        out.push_back(assign(reg(array, regs[i]), call(sum->combine, args)));
      }
      continue;
    }
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

}  // namespace

std::vector<NodePtr> registerAccess(const Layout& l, const IoPlan& p, const std::string& array, const std::string& ptr,
                                    const std::string& laneVar, bool load, const std::string& validVar) {
  return accessRegisters(l, p, nullptr, array, ptr, laneVar, load, validVar);
}

std::vector<NodePtr> swizzledRegisterAccess(const Layout& l, const IoPlan& p, const StageSwizzle& s,
                                            const std::string& array, const std::string& ptr,
                                            const std::string& laneVar, bool load, const std::string& validVar) {
  return accessRegisters(l, p, &s, array, ptr, laneVar, load, validVar);
}

std::vector<NodePtr> swizzledRegisterSum(const Layout& l, const IoPlan& p, const StageSwizzle& s,
                                         const std::string& array, const std::string& ptr, const std::string& laneVar,
                                         const SegmentSum& sum, const std::string& validVar) {
  return accessRegisters(l, p, &s, array, ptr, laneVar, true, validVar, &sum);
}

long long StageSwizzle::chunk(long long c) const {
  long long x = c;
  for (auto [from, to] : moves) x ^= ((c >> from) & 1) << to;
  return x;
}

long long StageSwizzle::word(long long a) const { return (chunk(a >> 2) << 2) | (a & 3); }

std::string StageSwizzle::helperType() const {
  std::string args;
  for (int i = 0; i < 3; ++i) {
    const auto m = i < static_cast<int>(moves.size()) ? moves[i] : std::pair<int, int>{-1, -1};
    args += fmt::format("{}{}, {}", i ? ", " : "", m.first, m.second);
  }
  return "wf_swizzle<" + args + ">";
}

NodePtr StageSwizzle::wordExpr(NodePtr a) const {
  NodePtr x = a;
  for (auto [from, to] : moves) x = bin("^", x, bin("<<", bin("&", bin(">>", a, lit(from + 2)), lit(1)), lit(to + 2)));
  return x;
}

namespace {

// The index bit (element = 4-byte word) that lane bit t carries, or -1 (a batch bit, zero padding).
int laneWordBit(const Layout& l, const IoPlan& p, int t) {
  auto name = l.logicalAt({PhysKind::T, t});
  if (!name || (*name)[0] != p.letter) return -1;
  const int k = indexOf(*name);
  return k < p.logReal ? k : -1;
}

long long laneWordOffset(const Layout& l, const IoPlan& p, int lane) {
  long long off = 0;
  for (int t = 0; t < 5; ++t)
    if ((lane >> t) & 1) {
      const int k = laneWordBit(l, p, t);
      if (k >= 0) off |= 1LL << k;
    }
  return off;
}

// Where S moves the high lane bits (stageSwizzle fills in laneMask).
StageSwizzle stageSwizzleMoves(const Layout& l, const IoPlan& p) {
  StageSwizzle s;
  const int phaseLanes = 5 - p.vecBits;  // lane bits t0.. of one 128-byte phase
  std::set<int> freeChunkBits{0, 1, 2};
  std::vector<int> high;
  for (int t = 0; t < phaseLanes; ++t) {
    const auto name = l.logicalAt({PhysKind::T, t});
    if (!name || (*name)[0] != p.letter) return {};  // batch lanes: the rows are not whole (no swizzle)
    const int k = laneWordBit(l, p, t);
    if (k < 0) continue;  // zero-padding lanes read no memory
    if (k >= 2 && k <= 4) freeChunkBits.erase(k - 2);
    if (k >= 5) high.push_back(k - 2);
  }
  for (int from : high) {
    if (freeChunkBits.empty()) break;
    s.moves.push_back({from, *freeChunkBits.begin()});
    freeChunkBits.erase(freeChunkBits.begin());
  }
  return s;
}

}  // namespace

StageSwizzle stageSwizzle(const Layout& l, const IoPlan& p) {
  StageSwizzle s = stageSwizzleMoves(l, p);
  for (int t = 0; t < 5; ++t)
    if (const int k = laneWordBit(l, p, t); k >= 0) s.laneMask |= 1LL << k;
  for (auto [from, to] : s.moves) s.laneMask |= 1LL << (to + 2);
  return s;
}

int stageBankWays(const Layout& l, const IoPlan& p, const StageSwizzle& s) {
  const int width = 1 << p.vecBits, phaseLanes = 32 / width;
  int vmask = 0;
  for (int b : p.vecRegBit) vmask |= 1 << b;
  int worst = 1;
  auto phaseWays = [&](const std::vector<long long>& words) {
    std::map<int, std::set<long long>> perBank;
    for (long long w : words) perBank[static_cast<int>(w & 31)].insert(w);
    for (const auto& [bank, ws] : perBank) worst = std::max(worst, static_cast<int>(ws.size()));
  };
  // Register accesses: lanes of a phase at their own offset plus the register group's.
  for (int g = 0; g < l.numRegisters(); ++g) {
    if (g & vmask) continue;
    const long long off = regOffset(l, p, g);
    if (off < 0) continue;
    for (int first = 0; first < 32; first += phaseLanes) {
      std::vector<long long> words;
      for (int lane = first; lane < first + phaseLanes; ++lane)
        for (int i = 0; i < width; ++i) words.push_back(s.word((laneWordOffset(l, p, lane) | off) + i));
      phaseWays(words);
    }
  }
  // Row copies: 16-byte chunks, lane j of step i at chunk 32 i + j; 8 lanes a phase.
  const long long chunks = (1LL << p.logReal) / 4;
  for (long long first = 0; first < chunks; first += 8) {
    std::vector<long long> words;
    for (long long c = first; c < std::min(chunks, first + 8); ++c)
      for (int i = 0; i < 4; ++i) words.push_back(4 * s.chunk(c) + i);
    phaseWays(words);
  }
  return worst;
}

}  // namespace warpforge
