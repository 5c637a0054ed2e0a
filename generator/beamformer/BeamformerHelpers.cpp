#include "generator/beamformer/BeamformerHelpers.h"

#include <algorithm>

#include "ast/Printer.h"
#include "generator/complexmma/ComplexMma.h"
#include "generator/complexmma/SaturationCount.h"

namespace warpforge {

using namespace ast;

namespace {

const char* kQual = "static __device__ __forceinline__";

// Two ci4 bytes (receivers k, k + 1; bits 0..15 of x, the rest zero) -> their (re, im) byte pairs in one word (not
// clamped: -8 is used as is), all four nibbles at once (7 instructions; two widen1 calls took ~26): the bytes
// doubled (x0 x0 x1 x1), the real nibble to bytes 0 and 2, the imaginary one to 1 and 3, then the sign: a byte
// n >= 8 gets 0xf0 = 8 * 30 added (no carry leaves a byte). bfWiden2Model() is the same on the CPU (tested).
NodePtr widen2Fn(bool realHigh) {
  auto mask = [](long long m) { return hexLit(m, 8, IntSuffix::U); };
  const char* re = realHigh ? "h" : "l";
  const char* im = realHigh ? "l" : "h";
  std::vector<NodePtr> b;
  b.push_back(decl("const wf_u32", "t", call("__byte_perm", {var("x"), ulit(0), hexLit(0x1100, 4)})));
  b.push_back(declGroup("const wf_u32", {{"h", bin("&", paren(bin(">>", var("t"), lit(4))), mask(0x0f0f0f0f))},
                                         {"l", bin("&", var("t"), mask(0x0f0f0f0f))}}));
  b.push_back(decl("const wf_u32", "v",
                   bin("|", paren(bin("&", var(re), mask(0x00ff00ff))), paren(bin("&", var(im), mask(0xff00ff00))))));
  b.push_back(ret(bin("+", var("v"), bin("*", bin("&", var("v"), mask(0x08080808)), ulit(30)))));
  return function(kQual, "wf_u32", realHigh ? "bf_widen2_hi" : "bf_widen2_lo", {decl("wf_u32", "x")}, block(b));
}

// round(acc / 2^shift) (half up), saturated to +-maxv, `shift` already clamped to 0..31 (bf_shc, once per beam);
// `hit` |= 1 where the value was clamped. In 32 bits: floor(acc / 2^s) + bit s - 1 of acc is the rounded quotient
// (no acc + 2^(s-1) that could overflow; bfSatModel() is the same on the CPU, tested against the int64 reference).
NodePtr satFn() {
  const NodePtr acc = var("acc"), shift = var("shift"), v = var("v"), maxv = var("maxv");
  std::vector<NodePtr> b;
  b.push_back(decl("const int", "v",
                   ternary(shift,
                           bin("+", bin(">>", acc, shift),
                               bin("&", paren(bin(">>", acc, paren(bin("-", shift, lit(1))))), lit(1))),
                           acc)));
  b.push_back(assign(var("hit"),
                     ternary(paren(bin("||", bin(">", v, maxv), bin("<", v, unary("-", maxv)))), ulit(1), ulit(0)),
                     "|="));
  b.push_back(ret(call("min", {call("max", {v, unary("-", maxv)}), maxv})));
  return function(kQual, "int", "bf_sat",
                  {decl("int", "acc"), decl("int", "shift"), decl("int", "maxv"), decl("unsigned&", "hit")}, block(b));
}
NodePtr shcFn() {
  const NodePtr shift = var("shift");
  return function(kQual, "int", "bf_shc", {decl("int", "shift")},
                  block({ret(
                      ternary(bin("<", shift, lit(0)), lit(0), ternary(bin(">", shift, lit(31)), lit(31), shift)))}));
}

// One 16-byte shared-memory store (STS.128) whatever NVVM's vectorizer decides (it split some uint4 stores of the
// double-buffered weights into four 32-bit ones).
NodePtr sts128Fn() {
  return function(kQual, "void", "bf_sts128",
                  {decl("void*", "p"), decl("wf_u32", "a"), decl("wf_u32", "b"), decl("wf_u32", "c"),
                   decl("wf_u32", "d")},
                  block({asmVolatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};", "r,r,r,r,r",
                                     {cast("unsigned", call("__cvta_generic_to_shared", {var("p")})), var("a"),
                                      var("b"), var("c"), var("d")})}));
}

NodePtr f2hFn() {
  return function(kQual, "wf_u32", "bf_f2h", {decl("float", "x")},
                  block({decl("unsigned short", "h"), inlinePtx("cvt.rn.f16.f32 %0, %1;", "=h,f", {var("h"), var("x")}),
                         ret(var("h"))}));
}

}  // namespace

std::vector<NodePtr> bfSaturationCount(const BfTiling& t) {
  const int warps = t.threads / 32;
  std::vector<NodePtr> out;
  out.push_back(raw("#pragma unroll"));
  out.push_back(
      forUnbraced(decl("int", "o", lit(16)), bin(">", var("o"), lit(0)), assign(var("o"), lit(1), ">>="),
                  assign(var("nsat"), call("__shfl_down_sync", {ulit(0xffffffffLL), var("nsat"), var("o")}), "+=")));
  out.push_back(sharedArray("unsigned", "bf_satp", warps));
  out.push_back(ifUnbraced(bin("==", var("lane"), lit(0)), assign(index(var("bf_satp"), var("warp")), var("nsat"))));
  out.push_back(exprStmt(call("__syncthreads", {})));
  out.push_back(ifStmt(bin("==", var("tid"), lit(0)), block(cmma::publishSaturationCount("bf_satp", warps))));
  return out;
}

int bfSatModel(std::int32_t acc, int shift, int maxv, unsigned& hit) {
  shift = shift < 0 ? 0 : shift > 31 ? 31 : shift;                          // bf_shc
  const int v = shift ? (acc >> shift) + ((acc >> (shift - 1)) & 1) : acc;  // arithmetic shifts, as the device's
  hit |= (v > maxv || v < -maxv) ? 1u : 0u;
  return std::min(std::max(v, -maxv), maxv);
}

std::uint32_t bfWiden2Model(std::uint32_t x, bool realHigh) {
  const std::uint32_t x0 = x & 0xff, x1 = (x >> 8) & 0xff;
  const std::uint32_t t = x0 | x0 << 8 | x1 << 16 | x1 << 24;  // __byte_perm(x, 0, 0x1100)
  const std::uint32_t h = (t >> 4) & 0x0f0f0f0fu, l = t & 0x0f0f0f0fu;
  const std::uint32_t v = realHigh ? (h & 0x00ff00ffu) | (l & 0xff00ff00u) : (l & 0x00ff00ffu) | (h & 0xff00ff00u);
  return v + (v & 0x08080808u) * 30u;
}

std::string bfDeviceHelpers(const BeamformerSpec& s, bool f16) {
  std::vector<NodePtr> items;
  items.push_back(cmma::typedefU32());
  const bool ci4 = s.in.type == BfType::CI4 || s.w.type == BfType::CI4;
  if (f16) {
    items.push_back(cmma::conjFn("bf_", true));
    items.push_back(cmma::swapFn("bf_", true));
    items.push_back(cmma::mmaFn("bf_", true));
  } else {
    items.push_back(cmma::clampFn("bf_", 8));
    if (ci4) {
      for (bool hi : {true, false}) items.push_back(cmma::widen1Fn("bf_", hi));
      for (bool hi : {true, false}) items.push_back(widen2Fn(hi));
    }
    items.push_back(cmma::conjFn("bf_", false));
    items.push_back(cmma::swapFn("bf_", false));
    items.push_back(cmma::mmaFn("bf_", false));
  }
  if (s.intOut()) items.push_back(shcFn()), items.push_back(satFn());
  items.push_back(sts128Fn());
  if (!s.power && s.outType == BfOutType::CF16) items.push_back(f2hFn());
  return print(unit(items));
}

}  // namespace warpforge
