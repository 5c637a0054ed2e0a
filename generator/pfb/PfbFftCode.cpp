#include "generator/pfb/PfbFftCode.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace warpforge::pfb {

using namespace ast;

namespace {
NodePtr neg(const NodePtr& e) {
  if (e->kind == Kind::Unary && e->op == "-") return e->args[0];
  return unary("-", e);
}
NodePtr plus(const NodePtr& a, const NodePtr& b) {
  if (b->kind == Kind::Unary && b->op == "-") return bin("-", a, b->args[0]);
  return bin("+", a, b);
}
NodePtr minus(const NodePtr& a, const NodePtr& b) {
  if (b->kind == Kind::Unary && b->op == "-") return bin("+", a, b->args[0]);
  return bin("-", a, b);
}
}  // namespace

CExpr ComplexCode::fresh(NodePtr re, NodePtr im) {
  const std::string n = fmt::format("{}{}", prefix_, counter_++);
  out_.push_back(decl("const float", n + "r", std::move(re)));
  out_.push_back(decl("const float", n + "i", std::move(im)));
  return {var(n + "r"), var(n + "i")};
}
CExpr ComplexCode::add(const CExpr& a, const CExpr& b) { return fresh(plus(a.re, b.re), plus(a.im, b.im)); }
CExpr ComplexCode::sub(const CExpr& a, const CExpr& b) { return fresh(minus(a.re, b.re), minus(a.im, b.im)); }
CExpr ComplexCode::mul(const CExpr& a, const CExpr& w) {
  return fresh(minus(bin("*", a.re, w.re), bin("*", a.im, w.im)), plus(bin("*", a.re, w.im), bin("*", a.im, w.re)));
}

CExpr ComplexCode::rotate(const CExpr& a, int k, int R) {
  // exp(-2 pi i k / R) = exp(-i pi e / 4), e = 8 k / R (R <= 8: e is an integer)
  if ((8 * k) % R) throw std::logic_error("ComplexCode::rotate: not a multiple of pi / 4");
  const int e = (8 * k / R) % 8;
  const NodePtr h = flit(std::sqrt(0.5));
  switch (e) {
    case 0: return a;
    case 2: return {a.im, neg(a.re)};                                                          // -i a
    case 4: return {neg(a.re), neg(a.im)};                                                     // -a
    case 6: return {neg(a.im), a.re};                                                          // i a
    case 1: return fresh(bin("*", h, plus(a.re, a.im)), bin("*", h, minus(a.im, a.re)));       // (1 - i) / sqrt2 a
    case 3: return fresh(bin("*", h, minus(a.im, a.re)), neg(bin("*", h, plus(a.re, a.im))));  // (-1 - i) / sqrt2 a
    case 5: return fresh(neg(bin("*", h, plus(a.re, a.im))), bin("*", h, minus(a.re, a.im)));  // (-1 + i) / sqrt2 a
    default: return fresh(bin("*", h, minus(a.re, a.im)), bin("*", h, plus(a.re, a.im)));      // (1 + i) / sqrt2 a
  }
}

std::vector<CExpr> emitDft(ComplexCode& code, const std::vector<CExpr>& x) {
  const int R = static_cast<int>(x.size());
  if (R == 1) return x;
  if (R != 2 && R != 4 && R != 8) throw std::logic_error("emitDft: radix must be 1, 2, 4 or 8");
  std::vector<CExpr> even, odd;
  for (int j = 0; j < R; j += 2) even.push_back(x[j]), odd.push_back(x[j + 1]);
  const std::vector<CExpr> E = emitDft(code, even), O = emitDft(code, odd);
  std::vector<CExpr> y(R);
  for (int k = 0; k < R / 2; ++k) {
    const CExpr t = code.rotate(O[k], k, R);
    y[k] = code.add(E[k], t);
    y[k + R / 2] = code.sub(E[k], t);
  }
  return y;
}

namespace {
long long passNs(const PfbFftPlan& fft, int pass) {
  long long ns = 1;
  for (int p = 0; p < pass; ++p) ns *= fft.radices[p];
  return ns;
}
}  // namespace

std::string slotHelper(bool previous) {
  if (!previous)
    return "// Shared-memory slot of complex element a of an FFT buffer: its low four bits XOR f(a / 16), f(h) = (h ^ "
           "2h ^ "
           "4h) mod 16\n"
           "// (8-byte accesses of contiguous, strided and split runs meet each bank once per half-warp)\n"
           "static __device__ __forceinline__ int pfb_slot(int a) {\n"
           "  const int h = a >> 4;\n"
           "  return a ^ ((h ^ (h << 1) ^ (h << 2)) & 15);\n"
           "}\n";
  return "// Shared-memory slot of complex element a of an FFT buffer: one pad slot after every 8 (bank conflicts of "
         "strided stores)\n"
         "static __device__ __forceinline__ int pfb_pad(int a) { return a + (a >> 3); }\n";
}

SlotSplit pfbSlotSplit(long long c) {
  const long long h = c >> 4;
  return {(c ^ ((h ^ (h << 1) ^ (h << 2)) & 15)) & 15, c & ~15LL};
}

NodePtr slotOfBase(const std::string& base, long long c) {
  const SlotSplit sp = pfbSlotSplit(c);
  NodePtr e = var(base);
  if (sp.low) e = bin("^", e, lit(sp.low));
  if (sp.high) e = bin("+", e, lit(sp.high));
  return e;
}

namespace {
bool pow2(long long v) { return v > 0 && (v & (v - 1)) == 0; }
// Whether a pass's element indices at + (j + r M / R) ps and at + (d + r ns) ps are ORs of disjoint bit fields
// (at = outer * outerStride + inner, inner < innerCount <= ps, outerStride a multiple of M ps): then every element's
// slot is its base's slot XOR a constant.
bool baseSlotsApply(const PfbFftPlan& fft, const PassShape& shape) {
  return shape.baseSlots && shape.slot == "pfb_slot" && pow2(fft.length) && pow2(shape.pointStride) &&
         pow2(shape.innerCount) && shape.innerCount <= shape.pointStride &&
         shape.outerStride % (fft.length * shape.pointStride) == 0;
}
}  // namespace

bool twiddlesHoistable(const PfbFftPlan& fft, int pass, const PassShape& shape) {
  if (!shape.hoist) return false;
  const long long span = static_cast<long long>(shape.innerCount) * (fft.length / fft.radices[pass]);
  return shape.threads % span == 0;
}

std::vector<NodePtr> hoistTwiddles(const PfbFftPlan& fft, const PassShape& shape, const std::string& prefix) {
  std::vector<NodePtr> out;
  for (int p = 0; p < static_cast<int>(fft.radices.size()); ++p) {
    const int R = fft.radices[p];
    const long long ns = passNs(fft, p);
    if (ns == 1 || !twiddlesHoistable(fft, p, shape)) continue;
    // Butterfly bf = threadIdx.x + m * threads has j = (bf / innerCount) % (M / R), the same for every m.
    const std::string k = fmt::format("{}k{}", prefix, p);
    out.push_back(decl("const int", k,
                       bin("%", bin("%", bin("/", var("(int)threadIdx.x"), lit(shape.innerCount)), lit(fft.length / R)),
                           lit(ns))));
    for (int r = 1; r < R; ++r)
      out.push_back(decl("const float2", fmt::format("{}tw{}_{}", prefix, p, r),
                         call("__ldg", {bin("+", var(shape.table),
                                            bin("+", lit(fft.twiddleOffsets[p] + (r - 1) * ns), var(k)))})));
  }
  return out;
}

NodePtr emitPass(const PfbFftPlan& fft, int pass, const PassShape& shape, const std::string& prefix) {
  const int R = fft.radices[pass], M = fft.length, MR = M / R;
  const long long ns = passNs(fft, pass);
  const int IC = shape.innerCount;
  const NodePtr& n = shape.butterflies;
  const bool constantTrips = shape.baseSlots && n->kind == Kind::IntLit && n->value % shape.threads == 0;
  // In place: every butterfly's inputs are read (into `hold`) before the barrier after which its outputs overwrite
  // them; the trips must be constant so that `hold` stays in registers.
  if (shape.inPlace && !constantTrips)
    throw std::logic_error("pfb: an in-place pass needs a butterfly count that is a multiple of the block");
  const bool split = baseSlotsApply(fft, shape);
  // The butterfly's indices (bf is declared by the loop header or the unrolled loop's first statement).
  auto indices = [&](std::vector<NodePtr>& body) {
    if (IC > 1) body.push_back(decl("const int", "inner", bin("%", var("bf"), lit(IC))));
    body.push_back(decl("const int", "j", bin("%", bin("/", var("bf"), lit(IC)), lit(MR))));
    body.push_back(decl("const int", "outer", bin("/", var("bf"), lit(static_cast<long long>(IC) * MR))));
    body.push_back(decl("const int", "at",
                        bin("+", bin("*", var("outer"), lit(shape.outerStride)), IC > 1 ? var("inner") : lit(0))));
  };
  auto inputSlot = [&](int r) {
    const long long c = static_cast<long long>(r) * MR * shape.pointStride;
    return split
               ? slotOfBase("sj", c)
               : call(shape.slot,
                      {bin("+", var("at"),
                           bin("*", bin("+", var("j"), lit(static_cast<long long>(r) * MR)), lit(shape.pointStride)))});
  };
  const std::string hold = fmt::format("{}hold{}", prefix, pass);
  auto held = [&](int r) { return index(var(hold), bin("+", bin("*", var("bi"), lit(R)), lit(r))); };

  std::vector<NodePtr> body;
  indices(body);
  if (split && !shape.inPlace)
    body.push_back(
        decl("const int", "sj", call(shape.slot, {bin("+", var("at"), bin("*", var("j"), lit(shape.pointStride)))})));
  std::vector<CExpr> x;
  for (int r = 0; r < R; ++r) {
    const std::string v = fmt::format("x{}", r);
    body.push_back(decl("const float2", v, shape.inPlace ? held(r) : index(var(shape.in), inputSlot(r))));
    x.push_back({member(var(v), "x"), member(var(v), "y")});
  }
  ComplexCode code(body, "v");
  if (ns > 1) {
    const bool hoisted = twiddlesHoistable(fft, pass, shape);
    if (!hoisted) body.push_back(decl("const int", "k", bin("%", var("j"), lit(ns))));
    for (int r = 1; r < R; ++r) {
      const std::string w = hoisted ? fmt::format("{}tw{}_{}", prefix, pass, r) : fmt::format("w{}", r);
      if (!hoisted)
        body.push_back(decl("const float2", w,
                            call("__ldg", {bin("+", var(shape.table),
                                               bin("+", lit(fft.twiddleOffsets[pass] + (r - 1) * ns), var("k")))})));
      x[r] = code.mul(x[r], {member(var(w), "x"), member(var(w), "y")});
    }
  }
  const std::vector<CExpr> y = emitDft(code, x);
  // Stockham: output index (j / ns) ns R + j % ns + r ns
  NodePtr d = ns == 1 ? bin("*", var("j"), lit(R))
                      : bin("+", bin("*", bin("/", var("j"), lit(ns)), lit(ns * R)), bin("%", var("j"), lit(ns)));
  body.push_back(decl("const int", "d", d));
  if (split)
    body.push_back(
        decl("const int", "sd", call(shape.slot, {bin("+", var("at"), bin("*", var("d"), lit(shape.pointStride)))})));
  for (int r = 0; r < R; ++r) {
    NodePtr at = split ? slotOfBase("sd", ns * r * shape.pointStride)
                       : call(shape.slot,
                              {bin("+", var("at"), bin("*", bin("+", var("d"), lit(ns * r)), lit(shape.pointStride)))});
    body.push_back(assign(index(var(shape.out), std::move(at)), call("make_float2", {y[r].re, y[r].im})));
  }
  std::vector<NodePtr> st;
  st.push_back(comment(fmt::format("pass {}: radix {}, sub-transforms of {} points{}", pass, R, ns,
                                   shape.inPlace ? ", in place (inputs read, a barrier, outputs written)" : "")));
  auto bfDecl = [&] {
    return decl("const int", "bf", bin("+", var("(int)threadIdx.x"), bin("*", var("bi"), lit(shape.threads))));
  };
  auto tripLoop = [&](std::vector<NodePtr> b) {
    return forLoop(decl("int", "bi", lit(0)), bin("<", var("bi"), lit(n->value / shape.threads)),
                   exprStmt(unary("++", var("bi"))), block(std::move(b)));
  };
  if (shape.inPlace) {
    std::vector<NodePtr> reads{bfDecl()};
    indices(reads);
    if (split)
      reads.push_back(
          decl("const int", "sj", call(shape.slot, {bin("+", var("at"), bin("*", var("j"), lit(shape.pointStride)))})));
    for (int r = 0; r < R; ++r) reads.push_back(assign(held(r), index(var(shape.in), inputSlot(r))));
    st.push_back(declArray("float2", hold, static_cast<int>(n->value / shape.threads * R)));
    st.push_back(raw("#pragma unroll"));
    st.push_back(tripLoop(std::move(reads)));
    st.push_back(exprStmt(call("__syncthreads", {})));
    body.insert(body.begin(), bfDecl());
    st.push_back(raw("#pragma unroll"));
    st.push_back(tripLoop(std::move(body)));
  } else if (constantTrips) {
    // A constant trip count (the compiler unrolls it and keeps j and the base slots' parts shared by the butterflies).
    body.insert(body.begin(), bfDecl());
    st.push_back(tripLoop(std::move(body)));
  } else {
    st.push_back(forLoop(decl("int", "bf", var("(int)threadIdx.x")), bin("<", var("bf"), shape.butterflies),
                         assign(var("bf"), lit(shape.threads), "+="), block(body)));
  }
  st.push_back(exprStmt(call("__syncthreads", {})));
  return block(st);
}

}  // namespace warpforge::pfb
