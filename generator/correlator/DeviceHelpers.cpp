#include "generator/correlator/DeviceHelpers.h"

#include <fmt/format.h>

#include "ast/Printer.h"

namespace warpforge {

using namespace ast;

namespace {

const char* kQual = "static __device__ __forceinline__";

NodePtr u(long long v) { return cast("wf_u32", lit(v)); }
NodePtr w() { return var("w"); }

// Bytes equal to `pattern`'s byte (0x80: -128, 0xf8: -8) become one more (-127, -7); no carries:
// t = w ^ pattern is zero exactly in those bytes; ((t & 0x7f..) + 0x7f..) | t has the high bit of
// every nonzero byte of t set.
NodePtr clampFn(const std::string& name, long long pattern) {
  std::vector<NodePtr> b;
  b.push_back(decl("const wf_u32", "t", bin("^", w(), u(pattern))));
  b.push_back(decl("const wf_u32", "nz", bin("&", bin("|", bin("+", bin("&", var("t"), u(0x7f7f7f7f)), u(0x7f7f7f7f)), var("t")), u(0x80808080))));
  b.push_back(raw("return w + ((~nz & 0x80808080u) >> 7);"));
  return function(kQual, "wf_u32", name, {decl("wf_u32", "w")}, block(b));
}

// Sign-extends the four nibbles held in the low half of each byte (x & 0x0f0f0f0f) to bytes.
NodePtr sext4(const NodePtr& x) { return bin("|", x, bin("*", bin(">>", bin("&", x, u(0x08080808)), lit(3)), u(0xf0))); }

// One word of four ci4 samples -> two words of ci8 samples (re, im bytes), clamped.
NodePtr widen4Fn(bool realHigh) {
  std::vector<NodePtr> b;
  b.push_back(decl("wf_u32", "h", bin("&", bin(">>", w(), lit(4)), u(0x0f0f0f0f))));
  b.push_back(decl("wf_u32", "l", bin("&", w(), u(0x0f0f0f0f))));
  b.push_back(assign(var("h"), sext4(var("h"))));
  b.push_back(assign(var("l"), sext4(var("l"))));
  const char* re = realHigh ? "h" : "l";
  const char* im = realHigh ? "l" : "h";
  b.push_back(assign(var("lo"), call("corr_clamp4", {call("__byte_perm", {var(re), var(im), lit(0x5140)})})));
  b.push_back(assign(var("hi"), call("corr_clamp4", {call("__byte_perm", {var(re), var(im), lit(0x7362)})})));
  return function(kQual, "void", realHigh ? "corr_widen4_hi" : "corr_widen4_lo",
                  {decl("wf_u32", "w"), decl("wf_u32&", "lo"), decl("wf_u32&", "hi")}, block(b));
}

// One ci4 sample byte -> (re, im) bytes in the low half (not clamped: the caller clamps the word).
NodePtr widen1Fn(bool realHigh) {
  std::vector<NodePtr> b;
  b.push_back(decl("wf_u32", "h", bin(">>", var("x"), lit(4))));
  b.push_back(decl("wf_u32", "l", bin("&", var("x"), u(15))));
  b.push_back(assign(var("h"), sext4(var("h"))));
  b.push_back(assign(var("l"), sext4(var("l"))));
  b.push_back(exprStmt(var(realHigh ? "return h | l << 8" : "return l | h << 8")));
  return function(kQual, "wf_u32", realHigh ? "corr_widen1_hi" : "corr_widen1_lo", {decl("wf_u32", "x")}, block(b));
}

NodePtr conjPermFn(SampleType t) {
  std::vector<NodePtr> b;
  if (t == SampleType::CF16) {
    // (re, im) -> (-im, re): swap the halves, flip the sign of the new low half.
    b.push_back(raw("return __byte_perm(w, 0u, 0x1032) ^ 0x8000u;"));
  } else {
    // (re0, im0, re1, im1) -> (-im0, re0, -im1, re1); n holds -im0, -im1 in bytes 1, 3 (a carry out of
    // byte 1, when im0 = 0, lands in byte 2, which is not selected).
    b.push_back(decl("const wf_u32", "n", bin("+", bin("&", unary("~", w()), u(0xff00ff00)), u(0x01000100))));
    b.push_back(raw("return __byte_perm(w, n, 0x2705);"));
  }
  return function(kQual, "wf_u32", "corr_conj_perm", {decl("wf_u32", "w")}, block(b));
}

NodePtr mmaFn(bool f16) {
  const std::string acc = f16 ? "float&" : "int&";
  std::vector<NodePtr> params;
  for (int i = 0; i < 4; ++i) params.push_back(decl(acc, fmt::format("d{}", i)));
  for (int i = 0; i < 4; ++i) params.push_back(decl("wf_u32", fmt::format("a{}", i)));
  for (int i = 0; i < 2; ++i) params.push_back(decl("wf_u32", fmt::format("b{}", i)));
  std::vector<NodePtr> ops;
  for (int i = 0; i < 4; ++i) ops.push_back(var(fmt::format("d{}", i)));
  for (int i = 0; i < 4; ++i) ops.push_back(var(fmt::format("a{}", i)));
  for (int i = 0; i < 2; ++i) ops.push_back(var(fmt::format("b{}", i)));
  const std::string ins = f16 ? "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" : "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32";
  const std::string c = f16 ? "+f" : "+r";
  NodePtr asmStmt = inlinePtx(ins + " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};",
                              fmt::format("{0},{0},{0},{0},r,r,r,r,r,r", c), ops);
  return function(kQual, "void", f16 ? "corr_mma_f16" : "corr_mma_s8", params, block({asmStmt}));
}

}  // namespace

std::string correlatorDeviceHelpers(SampleType type) {
  std::vector<NodePtr> items;
  items.push_back(raw("typedef unsigned int wf_u32;"));
  if (type == SampleType::CF16) {
    items.push_back(conjPermFn(type));
    items.push_back(mmaFn(true));
  } else {
    items.push_back(clampFn("corr_clamp8", 0x80808080LL));
    items.push_back(clampFn("corr_clamp4", 0xf8f8f8f8LL));
    if (type == SampleType::CI4) {
      items.push_back(widen4Fn(true));
      items.push_back(widen4Fn(false));
      items.push_back(widen1Fn(true));
      items.push_back(widen1Fn(false));
    }
    items.push_back(conjPermFn(type));
    items.push_back(mmaFn(false));
  }
  return print(unit(items));
}

}  // namespace warpforge
