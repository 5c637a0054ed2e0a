#include "generator/stockham/RealFusion.h"

#include <fmt/format.h>

#include "generator/stockham/Butterfly.h"
#include "generator/stockham/ElementIo.h"
#include "generator/stockham/MirrorPairs.h"
#include "generator/stockham/RadixPass.h"

namespace warpforge {

using namespace ast;

namespace {

// The two halves of a Hermitian split from za = Z[k] and zb = Z[M-k] (each as real and imaginary parts):
// (za + conj zb) / 2, and (za - conj zb) / 2i.
NodePtr hermitianEven(const KernelContext& k, const NodePtr& aRe, const NodePtr& aIm, const NodePtr& bRe,
                      const NodePtr& bIm) {
  return k.mk(bin("*", k.num(0.5), bin("+", aRe, bRe)), bin("*", k.num(0.5), bin("-", aIm, bIm)));
}
NodePtr hermitianOdd(const KernelContext& k, const NodePtr& aRe, const NodePtr& aIm, const NodePtr& bRe,
                     const NodePtr& bIm) {
  return k.mk(bin("*", k.num(0.5), bin("+", aIm, bIm)), bin("*", k.num(-0.5), bin("-", aRe, bRe)));
}
NodePtr re(const char* v) { return member(var(v), "x"); }
NodePtr im(const char* v) { return member(var(v), "y"); }

}  // namespace

void splitFromShared(const KernelContext& k, std::vector<NodePtr>& active) {
  const int L = k.d.length;
  // X[k] = E + W^k O with E = (Z[k] + conj Z[L-k]) / 2, O = -i/2 (Z[k] - conj Z[L-k])
  active.push_back(decl(k.cT, "za", k.shared("sbase", bin("%", var("i"), lit(L)))));
  active.push_back(decl(k.cT, "zb",
                        k.d.mirrored ? mirrorElement(k, var("i"))
                                     : k.shared("sbase", bin("%", bin("-", lit(L), var("i")), lit(L)))));
  active.push_back(decl(k.cT, "ev", hermitianEven(k, re("za"), im("za"), re("zb"), im("zb"))));
  active.push_back(decl(k.cT, "od", hermitianOdd(k, re("za"), im("za"), re("zb"), im("zb"))));
  active.push_back(decl(k.cT, "wo",
                        k.cmul(k.d.mirrored ? mirroredTwiddle(k, "store_table", var("i"), var("d0"))
                                            : index(var("store_table"), var("i")),
                               var("od"))));
  active.push_back(decl(k.cT, "v",
                        k.mk(bin("+", member(var("ev"), "x"), member(var("wo"), "x")),
                             bin("+", member(var("ev"), "y"), member(var("wo"), "y")))));
}

void pairSplitFromShared(const KernelContext& k, std::vector<NodePtr>& active) {
  // X_2p[k] = (Z[k] + conj Z[N-k]) / 2 and X_2p+1[k] = (Z[k] - conj Z[N-k]) / 2i: Z[k] is this FFT's one element,
  // Z[N-k] its mirror's (FFT 0's own).
  active.push_back(decl(k.cT, "za", k.shared("sbase", var("i"))));
  active.push_back(decl(k.cT, "zb", mirrorElement(k, var("i"))));
  active.push_back(decl(k.cT, "v", hermitianEven(k, re("za"), im("za"), re("zb"), im("zb"))));
  active.push_back(decl(k.cT, "v_pair", hermitianOdd(k, re("za"), im("za"), re("zb"), im("zb"))));
}

NodePtr mergedRead(const KernelContext& k, std::vector<NodePtr>& stmts, const std::string& base, const NodePtr& idx,
                   const std::string& name, bool first) {
  const std::string& cT = k.cT;
  if (!first || k.d.fuse != Fuse::C2RPre || k.d.mirrored) {
    stmts.push_back(decl(cT, name, k.shared(base, idx)));
    return var(name);
  }
  const int L = k.d.length;
  // Z[k] = (X[k] + conj X[L-k]) + i W^-k (X[k] - conj X[L-k]), W^-k from load_table
  auto v = [&](const char* sfx) { return var(name + sfx); };
  stmts.push_back(decl("const int", name + "_k", idx));
  stmts.push_back(decl(cT, name + "_a", k.shared(base, v("_k"))));
  stmts.push_back(decl(cT, name + "_b", k.shared(base, bin("-", lit(L), v("_k")))));
  stmts.push_back(decl(cT, name + "_w", index(var("load_table"), v("_k"))));
  stmts.push_back(decl(cT, name + "_d",
                       k.mk(bin("-", member(v("_a"), "x"), member(v("_b"), "x")),
                            bin("+", member(v("_a"), "y"), member(v("_b"), "y")))));
  stmts.push_back(decl(cT, name + "_o", k.cmul(v("_w"), v("_d"))));
  stmts.push_back(decl(cT, name,
                       k.mk(bin("-", bin("+", member(v("_a"), "x"), member(v("_b"), "x")), member(v("_o"), "y")),
                            bin("+", bin("-", member(v("_a"), "y"), member(v("_b"), "y")), member(v("_o"), "x")))));
  return var(name);
}

namespace {

// The split of element kIdx from za = Z[k], zb = Z[L - k] (W_N^k = store_table[k]), stored as element k of the output.
std::vector<NodePtr> splitStore(const KernelContext& k, const AstComplexOps::C& za, const AstComplexOps::C& zb,
                                const NodePtr& kIdx, const std::string& sfx) {
  std::vector<NodePtr> out;
  const std::string ev = "ev" + sfx, od = "od" + sfx, wo = "wo" + sfx;
  out.push_back(decl(k.cT, ev, hermitianEven(k, za.re, za.im, zb.re, zb.im)));
  out.push_back(decl(k.cT, od, hermitianOdd(k, za.re, za.im, zb.re, zb.im)));
  out.push_back(decl(k.cT, wo, k.cmul(index(var("store_table"), kIdx), var(od))));
  out.push_back(decl(k.cT, "v",
                     k.mk(bin("+", member(var(ev), "x"), member(var(wo), "x")),
                          bin("+", member(var(ev), "y"), member(var(wo), "y")))));
  for (auto& st : storeElement(k, kIdx, "aout")) out.push_back(st);
  return out;
}

// The stores of mirrored pair q (outputs y1 of butterfly q, y2 of butterfly ns - q, whose first elements are j and
// jm): every X[k] of both, X[L] where q = 0.
std::vector<NodePtr> pairStores(const KernelContext& k, const std::vector<AstComplexOps::C>& y1,
                                const std::vector<AstComplexOps::C>& y2, const std::string& q, const std::string& j,
                                const std::string& jm, int R, long long ns) {
  // Mirrors of butterfly q's outputs: from butterfly ns - q, or (q = 0) from its own outputs.
  std::vector<NodePtr> live;
  for (int o = 0; o < R; ++o) {
    const AstComplexOps::C& m1 = y2[R - 1 - o];
    const AstComplexOps::C& m0 = y1[(R - o) % R];
    const std::string mr = fmt::format("m{}r", o), mi = fmt::format("m{}i", o);
    live.push_back(
        decl(k.d.f64 ? "const double" : "const float", mr, ternary(bin("==", var(q), lit(0)), m0.re, m1.re)));
    live.push_back(
        decl(k.d.f64 ? "const double" : "const float", mi, ternary(bin("==", var(q), lit(0)), m0.im, m1.im)));
    live.push_back(
        block(splitStore(k, y1[o], {var(mr), var(mi)}, bin("+", var(j), lit(static_cast<long long>(o) * ns)), "")));
  }
  std::vector<NodePtr> second;
  for (int o = 0; o < R; ++o)
    second.push_back(
        block(splitStore(k, y2[o], y1[R - 1 - o], bin("+", var(jm), lit(static_cast<long long>(o) * ns)), "")));
  live.push_back(ifStmt(bin(">", var(q), lit(0)), block(second)));
  live.push_back(ifStmt(bin("==", var(q), lit(0)), block(splitStore(k, y1[0], y1[0], lit(k.d.length), ""))));
  return live;
}

// Iteration `it` of the split pass: pair q = t + it T read, computed and stored; a partial iteration under its guard.
NodePtr splitIteration(const KernelContext& k, int p, long long ns, int it) {
  const int R = k.d.factors[p], T = k.g.threadsPerFft;
  const long long pairs = ns / 2 + 1;
  std::vector<NodePtr> bf;
  bf.push_back(decl("const int", "q", bin("+", var("t"), lit(it * T))));
  std::vector<NodePtr> ops;
  AstComplexOps ac{ops, k.d.f64};
  std::vector<AstComplexOps::C> x1 = butterflyInputs(k, bf, p, ns, "", var("q"));
  std::vector<AstComplexOps::C> x2 = butterflyInputs(k, bf, p, ns, "_m",
                                                     bin("%", bin("-", lit(ns), var("q")), lit(ns)));
  DftBuilder<AstComplexOps> dft(ac, k.d.sign);
  std::vector<AstComplexOps::C> y1 = dft.dft(x1), y2 = dft.dft(x2);
  for (auto& o : ops) bf.push_back(o);
  bf.push_back(ifStmt(var("live"), block(pairStores(k, y1, y2, "q", "j", "j_m", R, ns))));
  return (it + 1) * T <= pairs ? block(bf) : ifStmt(bin("<", bin("+", var("t"), lit(it * T)), lit(pairs)), block(bf));
}

// The split pass with the next group's copy in the middle (KernelGeometry::prefetch): both butterflies of every pair
// read into named registers (a partial iteration runs whole before them), the barrier, the copy, then the butterflies
// and their stores.
NodePtr prefetchingSplitPass(KernelContext& k, int p, long long ns) {
  const int R = k.d.factors[p], T = k.g.threadsPerFft;
  const long long pairs = ns / 2 + 1;
  const int full = static_cast<int>(pairs / T);
  std::vector<NodePtr> st{
      comment(fmt::format("pass {}: radix {}, {} butterflies as {} mirrored pairs, r2c split fused into the store; "
                          "inputs read, then the next group's copy issued",
                          p, R, ns, pairs))};
  // A partial iteration (ns / 2 + 1 pairs: often one pair past the threads) runs whole first: its registers are free
  // again before the deferred reads.
  if (static_cast<long long>(full) * T < pairs) st.push_back(splitIteration(k, p, ns, full));
  std::vector<std::vector<AstComplexOps::C>> in1(full), in2(full);
  auto materialize = [&](const std::vector<AstComplexOps::C>& xs, const std::string& prefix,
                         std::vector<AstComplexOps::C>& into) {
    for (int r = 0; r < R; ++r) into.push_back(heldInput(k, st, xs[r], fmt::format("{}_{}", prefix, r)));
  };
  for (int it = 0; it < full; ++it) {
    const std::string qn = fmt::format("q_{}", it);
    st.push_back(decl("const int", qn, bin("+", var("t"), lit(it * T))));
    materialize(butterflyInputs(k, st, p, ns, fmt::format("_{}", it), var(qn)), fmt::format("in{}", it), in1[it]);
    materialize(butterflyInputs(k, st, p, ns, fmt::format("_m_{}", it), bin("%", bin("-", lit(ns), var(qn)), lit(ns))),
                fmt::format("inm{}", it), in2[it]);
  }
  issueNextGroupCopy(k, st);
  for (int it = 0; it < full; ++it) {
    std::vector<NodePtr> bf, ops;
    AstComplexOps ac{ops, k.d.f64};
    DftBuilder<AstComplexOps> dft(ac, k.d.sign);
    std::vector<AstComplexOps::C> y1 = dft.dft(in1[it]), y2 = dft.dft(in2[it]);
    for (auto& o : ops) bf.push_back(o);
    bf.push_back(ifStmt(var("live"), block(pairStores(k, y1, y2, fmt::format("q_{}", it), fmt::format("j_{}", it),
                                                      fmt::format("j_m_{}", it), R, ns))));
    st.push_back(block(bf));
  }
  return block(st);
}

}  // namespace

// X[k] needs Z[k] and Z[L - k]. Output k = j + o ns of butterfly j mirrors L - k = (ns - j) + (R - 1 - o) ns, an
// output of butterfly ns - j, so a thread computes butterflies q and ns - q (q = 0..ns/2) and writes both butterflies'
// outputs from registers: no staged element loop and no barrier after the last pass. q = 0 pairs with itself (the
// mirror of o ns is (R - o) ns) and also writes X[L]; q = ns / 2 pairs with itself by the general rule.
NodePtr splitPass(KernelContext& k, int p, long long ns) {
  if (!k.nextGroupCopy.empty()) return prefetchingSplitPass(k, p, ns);
  const int R = k.d.factors[p], T = k.g.threadsPerFft;
  const long long pairs = ns / 2 + 1;
  const int iters = static_cast<int>((pairs + T - 1) / T);
  std::vector<NodePtr> st{
      comment(fmt::format("pass {}: radix {}, {} butterflies as {} mirrored pairs, r2c split fused into the store", p,
                          R, ns, pairs))};
  for (int it = 0; it < iters; ++it) st.push_back(splitIteration(k, p, ns, it));
  return block(st);
}

}  // namespace warpforge

namespace warpforge {

namespace {
class RealSplitPass : public RadixPass {
 public:
  ast::NodePtr emit(KernelContext& k, int p, long long ns) const override { return splitPass(k, p, ns); }
};
}  // namespace

const RadixPass& realSplitPass() {
  static const RealSplitPass p;
  return p;
}

}  // namespace warpforge
