#include "generator/complexmma/ComplexMma.h"

#include <sstream>

#include <fmt/format.h>

#include "ast/Passes.h"
#include "generator/layout/FieldPlace.h"

namespace warpforge::cmma {

using namespace ast;

std::string sm90aGuard() {
  return "#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)\n"
         "#error \"generated for sm_90a (wgmma): build with -gencode arch=compute_90a,code=sm_90a (nvcc) or "
         "--gpu-architecture=sm_90a (NVRTC)\"\n"
         "#endif\n";
}

Layout layoutText(const std::string& text) {
  std::vector<Layout::Entry> entries;
  std::stringstream groups(text);
  std::string group;
  while (std::getline(groups, group, ',')) {
    auto arrow = group.find("<->");
    if (arrow == std::string::npos) throw LayoutError("layout group without '<->': " + group);
    std::stringstream lhs(group.substr(0, arrow)), rhs(group.substr(arrow + 3));
    std::vector<std::string> phys, logical;
    for (std::string t; lhs >> t;) phys.push_back(t);
    for (std::string t; rhs >> t;) logical.push_back(t);
    if (phys.size() != logical.size()) throw LayoutError("layout group with unequal sides: " + group);
    for (std::size_t i = 0; i < phys.size(); ++i) {
      const char k = phys[i][0];
      PhysKind kind = k == 'b' ? PhysKind::B : k == 't' ? PhysKind::T : k == 'r' ? PhysKind::R : PhysKind::W;
      entries.push_back({{kind, std::stoi(phys[i].substr(1))}, logical[i]});
    }
  }
  return Layout(std::move(entries));
}

NodePtr laneField(const Layout& l, const std::vector<std::string>& names) {
  const FieldPlace f = fieldPlace(l, names);
  const auto lanes = f.of(PhysKind::T);
  if (lanes.empty()) return lit(0);
  if (const auto run = f.run(PhysKind::T); run && run->field == 0)
    return foldConstants(bin("&", bin(">>", var("lane"), lit(run->shift)), lit((1 << run->count) - 1)));
  NodePtr e = lit(0);
  for (const auto& [t, k] : lanes)
    e = bin("|", e, bin("<<", bin("&", bin(">>", var("lane"), lit(t)), lit(1)), lit(static_cast<long long>(k))));
  return foldConstants(e);
}

int regField(const Layout& l, const std::vector<std::string>& names, int reg) {
  return fieldPlace(l, names).part(PhysKind::R, reg);
}

std::vector<std::string> bitNames(const std::string& prefix, int from, int count) {
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) out.push_back(fmt::format("{}{}", prefix, from + i));
  return out;
}

namespace {
const char* kQual = "static __device__ __forceinline__";
NodePtr u(long long v) { return cast("wf_u32", lit(v)); }
NodePtr w() { return var("w"); }
// __byte_perm(a, b, selector), the selector in hex (each digit picks a byte).
NodePtr bytePermOf(NodePtr a, NodePtr b, long long selector) {
  return call("__byte_perm", {std::move(a), std::move(b), hexLit(selector, 4)});
}
// Sign-extends the four nibbles held in the low half of each byte (x & 0x0f0f0f0f) to bytes.
NodePtr sext4(const NodePtr& x) {
  return bin("|", x, bin("*", bin(">>", bin("&", x, u(0x08080808)), lit(3)), u(0xf0)));
}
}  // namespace

NodePtr typedefU32() { return typeAlias("unsigned int", "wf_u32"); }

// t = w ^ pattern is zero exactly in the bytes equal to the pattern's; ((t & 0x7f..) + 0x7f..) | t has the
// high bit of every nonzero byte of t set; those bytes stay, the others get + 1.
NodePtr clampFn(const std::string& prefix, int bits) {
  const long long pattern = bits == 8 ? 0x80808080LL : 0xf8f8f8f8LL;
  std::vector<NodePtr> b;
  b.push_back(decl("const wf_u32", "t", bin("^", w(), u(pattern))));
  b.push_back(
      decl("const wf_u32", "nz",
           bin("&", bin("|", bin("+", bin("&", var("t"), u(0x7f7f7f7f)), u(0x7f7f7f7f)), var("t")), u(0x80808080))));
  b.push_back(ret(bin("+", w(), bin(">>", bin("&", unary("~", var("nz")), ulit(0x80808080LL)), lit(7)))));
  return function(kQual, "wf_u32", prefix + (bits == 8 ? "clamp8" : "clamp4"), {decl("wf_u32", "w")}, block(b));
}

NodePtr widen4Fn(const std::string& prefix, bool realHigh) {
  std::vector<NodePtr> b;
  b.push_back(decl("wf_u32", "h", bin("&", bin(">>", w(), lit(4)), u(0x0f0f0f0f))));
  b.push_back(decl("wf_u32", "l", bin("&", w(), u(0x0f0f0f0f))));
  b.push_back(assign(var("h"), sext4(var("h"))));
  b.push_back(assign(var("l"), sext4(var("l"))));
  const char* re = realHigh ? "h" : "l";
  const char* im = realHigh ? "l" : "h";
  b.push_back(assign(var("lo"), call(prefix + "clamp4", {call("__byte_perm", {var(re), var(im), lit(0x5140)})})));
  b.push_back(assign(var("hi"), call(prefix + "clamp4", {call("__byte_perm", {var(re), var(im), lit(0x7362)})})));
  return function(kQual, "void", prefix + (realHigh ? "widen4_hi" : "widen4_lo"),
                  {decl("wf_u32", "w"), decl("wf_u32&", "lo"), decl("wf_u32&", "hi")}, block(b));
}

NodePtr widen1Fn(const std::string& prefix, bool realHigh) {
  std::vector<NodePtr> b;
  b.push_back(decl("wf_u32", "h", bin(">>", var("x"), lit(4))));
  b.push_back(decl("wf_u32", "l", bin("&", var("x"), u(15))));
  b.push_back(assign(var("h"), sext4(var("h"))));
  b.push_back(assign(var("l"), sext4(var("l"))));
  b.push_back(ret(bin("|", var(realHigh ? "h" : "l"), bin("<<", var(realHigh ? "l" : "h"), lit(8)))));
  return function(kQual, "wf_u32", prefix + (realHigh ? "widen1_hi" : "widen1_lo"), {decl("wf_u32", "x")}, block(b));
}

NodePtr conjPermFn(const std::string& prefix, bool f16) {
  std::vector<NodePtr> b;
  if (f16) {
    b.push_back(ret(bin("^", bytePermOf(w(), ulit(0), 0x1032), hexLit(0x8000, 4, IntSuffix::U))));
  } else {
    // n holds -im0, -im1 in bytes 1, 3 (a carry out of byte 1, when im0 = 0, lands in byte 2, which is not selected).
    b.push_back(decl("const wf_u32", "n", bin("+", bin("&", unary("~", w()), u(0xff00ff00)), u(0x01000100))));
    b.push_back(ret(bytePermOf(w(), var("n"), 0x2705)));
  }
  return function(kQual, "wf_u32", prefix + "conj_perm", {decl("wf_u32", "w")}, block(b));
}

NodePtr conjFn(const std::string& prefix, bool f16) {
  std::vector<NodePtr> b;
  if (f16) {
    b.push_back(ret(bin("^", w(), ulit(0x80000000LL))));
  } else {
    // (re0, im0, re1, im1) -> (re0, -im0, re1, -im1): bytes w0, n1, w2, n3.
    b.push_back(decl("const wf_u32", "n", bin("+", bin("&", unary("~", w()), u(0xff00ff00)), u(0x01000100))));
    b.push_back(ret(bytePermOf(w(), var("n"), 0x7250)));
  }
  return function(kQual, "wf_u32", prefix + "conj", {decl("wf_u32", "w")}, block(b));
}

NodePtr swapFn(const std::string& prefix, bool f16) {
  std::vector<NodePtr> b;
  b.push_back(ret(bytePermOf(w(), ulit(0), f16 ? 0x1032 : 0x2301)));
  return function(kQual, "wf_u32", prefix + "swap", {decl("wf_u32", "w")}, block(b));
}

// The instruction text and the fragments' register counts are the atom's (generator/layout/FragmentTable.h, the
// 32-bit accumulator form): the operands the families' layouts are checked against.
NodePtr mmaFn(const std::string& prefix, bool f16) {
  const MmaShape& atom = mmaAccumulatorShape(*findMmaShape(f16 ? "m16n8k16" : "m16n8k32", f16 ? "f16" : "s8"));
  const int nd = atom.c.numRegisters(), na = atom.a.numRegisters(), nb = atom.b.numRegisters();
  const std::string acc = f16 ? "float&" : "int&";
  std::vector<NodePtr> params, ops;
  for (int i = 0; i < nd; ++i) params.push_back(decl(acc, fmt::format("d{}", i)));
  for (int i = 0; i < na; ++i) params.push_back(decl("wf_u32", fmt::format("a{}", i)));
  for (int i = 0; i < nb; ++i) params.push_back(decl("wf_u32", fmt::format("b{}", i)));
  for (int i = 0; i < nd; ++i) ops.push_back(var(fmt::format("d{}", i)));
  for (int i = 0; i < na; ++i) ops.push_back(var(fmt::format("a{}", i)));
  for (int i = 0; i < nb; ++i) ops.push_back(var(fmt::format("b{}", i)));
  // "{%0, %1, ...}" of `count` operands from `first`.
  auto group = [](int first, int count) {
    std::string g;
    for (int i = 0; i < count; ++i) g += fmt::format("{}%{}", i ? ", " : "", first + i);
    return "{" + g + "}";
  };
  std::string constraints;
  for (int i = 0; i < nd + na + nb; ++i)
    constraints += (i ? "," : "") + std::string(i < nd ? (f16 ? "+f" : "+r") : "r");
  NodePtr asmStmt = inlinePtx(atom.ptx() + " " + group(0, nd) + ", " + group(nd, na) + ", " + group(nd + na, nb) +
                                  ", " + group(0, nd) + ";",
                              constraints, ops);
  return function(kQual, "void", prefix + (f16 ? "mma_f16" : "mma_s8"), params, block({asmStmt}));
}

// --- CPU models --------------------------------------------------------------------------------

std::uint32_t clampModel(std::uint32_t w, int bits) {
  const std::uint32_t pattern = bits == 8 ? 0x80808080u : 0xf8f8f8f8u;
  const std::uint32_t t = w ^ pattern;
  const std::uint32_t nz = (((t & 0x7f7f7f7fu) + 0x7f7f7f7fu) | t) & 0x80808080u;
  return w + ((~nz & 0x80808080u) >> 7);
}

std::uint32_t widen1Model(std::uint32_t x, bool realHigh) {
  auto s4 = [](std::uint32_t v) { return (v | ((v & 8) >> 3) * 0xf0u) & 0xffu; };
  const std::uint32_t h = s4((x >> 4) & 15), l = s4(x & 15);
  return realHigh ? h | l << 8 : l | h << 8;
}

namespace {
std::uint32_t bytePerm(std::uint32_t a, std::uint32_t b, std::uint32_t sel) {
  std::uint32_t out = 0;
  for (int i = 0; i < 4; ++i) {
    const std::uint32_t s = (sel >> (4 * i)) & 7;
    const std::uint32_t byte = s < 4 ? (a >> (8 * s)) & 0xff : (b >> (8 * (s - 4))) & 0xff;
    out |= byte << (8 * i);
  }
  return out;
}
}  // namespace

std::uint32_t conjPermModel(std::uint32_t w, bool f16) {
  if (f16) return bytePerm(w, 0, 0x1032) ^ 0x8000u;
  const std::uint32_t n = (~w & 0xff00ff00u) + 0x01000100u;
  return bytePerm(w, n, 0x2705);
}
std::uint32_t conjModel(std::uint32_t w, bool f16) {
  if (f16) return w ^ 0x80000000u;
  const std::uint32_t n = (~w & 0xff00ff00u) + 0x01000100u;
  return bytePerm(w, n, 0x7250);
}
std::uint32_t swapModel(std::uint32_t w, bool f16) { return f16 ? bytePerm(w, 0, 0x1032) : bytePerm(w, 0, 0x2301); }

}  // namespace warpforge::cmma
