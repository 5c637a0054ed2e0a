// A prime radix 37..127 (f64 29..127) computed by several threads per butterfly (CoopRadix.h): fold the inputs into
// sums and differences in place, compute items of G output pairs in a rolled loop over the inputs with the constants
// from a table copied to shared memory, then write the outputs to their Stockham slots.
#include <stdexcept>

#include <fmt/format.h>

#include "generator/stockham/CoopRadix.h"
#include "generator/stockham/RadixPass.h"
#include "generator/stockham/Twiddles.h"

namespace warpforge {

using namespace ast;

namespace {

// The constants of a cooperative radix-R pass: W_R^m, m = 0..R-1.
std::string coopTableName(int R, int sign) { return fmt::format("wf_dft{}_{}", R, sign < 0 ? "fwd" : "inv"); }
std::string coopTable(const KernelContext& k, int R, int sign) {
  std::string t = fmt::format("__constant__ {} {}[{}] = {{", k.cT, coopTableName(R, sign), R);
  for (int m = 0; m < R; ++m) t += (m ? ", " : "") + k.rootEntry(m, R, sign);
  return t + "};";
}

class CoopPrimePass : public RadixPass {
 public:
  NodePtr emit(KernelContext& k, int p, long long ns) const override {
    const KernelDesc& d = k.d;
    const int R = d.factors[p], L = d.length, T = k.g.threadsPerFft;
    const int B = L / R, h = (R - 1) / 2;
    const CoopShape cs = coopShape(R, L, T);
    const int G = cs.pairs;
    k.coopTables[coopTableName(R, k.stageSign())] = {R, coopTable(k, R, k.stageSign())};
    auto sm = [&](const NodePtr& i) { return k.shared("fbase", i); };
    auto rdecl = [&](const std::string& n, NodePtr e) { return decl(k.rT, n, std::move(e)); };
    std::vector<NodePtr> st{
        comment(fmt::format("pass {}: radix {} cooperatively, {} butterflies x {} items of {} output pairs, "
                            "sub-transforms {} -> {}",
                            p, R, B, cs.groups, G, ns, ns * R))};
    // 1. fold: a_j = x_j w^(jk) + x_{R-j} w^((R-j)k) in slot j, b_j = the difference in slot R - j
    st.push_back(comment("fold: slot j <- x_j + x_{R-j}, slot R-j <- x_j - x_{R-j} (inputs times their twiddles)"));
    const long long twOffset = twiddleOffsets(d.factors)[p];
    const int folds = B * h;
    {
      std::vector<NodePtr> b;
      b.push_back(decl("const int", "bf", bin("%", var("e"), lit(B))));
      b.push_back(decl("const int", "jj", bin("+", lit(1), bin("/", var("e"), lit(B)))));
      b.push_back(decl("const int", "lo", bin("+", var("bf"), bin("*", var("jj"), lit(B)))));
      b.push_back(decl("const int", "hi", bin("+", var("bf"), bin("*", bin("-", lit(R), var("jj")), lit(B)))));
      b.push_back(decl(k.cT, "xl", sm(var("lo"))));
      b.push_back(decl(k.cT, "xh", sm(var("hi"))));
      if (passTwiddled(d.axes, ns)) {
        if (d.convolve) throw std::logic_error("cooperative radix in a convolution kernel");
        NodePtr tw = bin("+", var("twiddles"), bin("+", bin("%", var("bf"), lit(ns)), lit(twOffset)));
        b.push_back(assign(var("xl"), k.cmul(var("xl"), index(tw, bin("*", bin("-", var("jj"), lit(1)), lit(ns))))));
        b.push_back(
            assign(var("xh"),
                   k.cmul(var("xh"), index(tw, bin("*", bin("-", bin("-", lit(R), var("jj")), lit(1)), lit(ns))))));
      }
      b.push_back(assign(sm(var("lo")), k.mk(bin("+", member(var("xl"), "x"), member(var("xh"), "x")),
                                             bin("+", member(var("xl"), "y"), member(var("xh"), "y")))));
      b.push_back(assign(sm(var("hi")), k.mk(bin("-", member(var("xl"), "x"), member(var("xh"), "x")),
                                             bin("-", member(var("xl"), "y"), member(var("xh"), "y")))));
      st.push_back(forLoop(decl("int", "e", var("t")), bin("<", var("e"), lit(folds)), assign(var("e"), lit(T), "+="),
                           block(b)));
    }
    st.push_back(exprStmt(call("__syncthreads", {})));
    // 2. items: outputs into registers
    const int per = 2 * G + 1;
    st.push_back(declArray(k.cT, "x", cs.iters * per));
    const std::string table = coopTableName(R, k.stageSign());
    for (int it = 0; it < cs.iters; ++it) {
      std::vector<NodePtr> b{decl("const int", "e", bin("+", var("t"), lit(it * T)))};
      b.push_back(decl("const int", "bf", bin("%", var("e"), lit(B))));
      b.push_back(decl("const int", "grp", bin("/", var("e"), lit(B))));
      b.push_back(decl("const " + k.cT, "x0", sm(var("bf"))));
      b.push_back(rdecl("sr", member(var("x0"), "x")));
      b.push_back(rdecl("si", member(var("x0"), "y")));
      for (int q = 0; q < G; ++q) {
        b.push_back(rdecl(fmt::format("ar{}", q), member(var("x0"), "x")));
        b.push_back(rdecl(fmt::format("ai{}", q), member(var("x0"), "y")));
        b.push_back(rdecl(fmt::format("br{}", q), k.num(0)));
        b.push_back(rdecl(fmt::format("bi{}", q), k.num(0)));
      }
      b.push_back(decl("const int", "k0", bin("+", bin("*", var("grp"), lit(G)), lit(1))));
      b.push_back(decl("int", "m", lit(0)));
      std::vector<NodePtr> body;
      body.push_back(decl("const " + k.cT, "a", sm(bin("+", var("bf"), bin("*", var("jj"), lit(B))))));
      body.push_back(
          decl("const " + k.cT, "d", sm(bin("+", var("bf"), bin("*", bin("-", lit(R), var("jj")), lit(B))))));
      body.push_back(assign(var("sr"), member(var("a"), "x"), "+="));
      body.push_back(assign(var("si"), member(var("a"), "y"), "+="));
      // m = j k0 mod R, then j (k0 + q) mod R for the item's other pairs: one counter, steps below R
      body.push_back(assign(var("m"), var("k0"), "+="));
      body.push_back(ifStmt(bin(">=", var("m"), lit(R)), block({assign(var("m"), lit(R), "-=")})));
      body.push_back(decl("int", "mq", var("m")));
      for (int q = 0; q < G; ++q) {
        const std::string c = fmt::format("c{}", q);
        if (q > 0) {
          body.push_back(assign(var("mq"), var("jj"), "+="));
          body.push_back(ifStmt(bin(">=", var("mq"), lit(R)), block({assign(var("mq"), lit(R), "-=")})));
        }
        body.push_back(decl("const " + k.cT, c, index(var(table + "_s"), var("mq"))));
        body.push_back(assign(var(fmt::format("ar{}", q)), bin("*", member(var(c), "x"), member(var("a"), "x")), "+="));
        body.push_back(assign(var(fmt::format("ai{}", q)), bin("*", member(var(c), "x"), member(var("a"), "y")), "+="));
        body.push_back(assign(var(fmt::format("br{}", q)), bin("*", member(var(c), "y"), member(var("d"), "x")), "+="));
        body.push_back(assign(var(fmt::format("bi{}", q)), bin("*", member(var(c), "y"), member(var("d"), "y")), "+="));
      }
      b.push_back(forLoop(decl("int", "jj", lit(1)), bin("<=", var("jj"), lit(h)), assign(var("jj"), lit(1), "+="),
                          block(body)));
      for (int q = 0; q < G; ++q) {  // y_k = A + iB, y_{R-k} = A - iB
        const std::string ar = fmt::format("ar{}", q), ai = fmt::format("ai{}", q), br = fmt::format("br{}", q),
                          bi = fmt::format("bi{}", q);
        b.push_back(assign(index(var("x"), lit(it * per + 2 * q)),
                           k.mk(bin("-", var(ar), var(bi)), bin("+", var(ai), var(br)))));
        b.push_back(assign(index(var("x"), lit(it * per + 2 * q + 1)),
                           k.mk(bin("+", var(ar), var(bi)), bin("-", var(ai), var(br)))));
      }
      b.push_back(assign(index(var("x"), lit(it * per + 2 * G)), k.mk(var("sr"), var("si"))));
      st.push_back((it + 1) * T <= cs.items
                       ? block(b)
                       : ifStmt(bin("<", bin("+", var("t"), lit(it * T)), lit(cs.items)), block(b)));
    }
    st.push_back(exprStmt(call("__syncthreads", {})));
    // 3. outputs to their Stockham slots: base(b) + k ns
    for (int it = 0; it < cs.iters; ++it) {
      std::vector<NodePtr> w{decl("const int", "e", bin("+", var("t"), lit(it * T)))};
      w.push_back(decl("const int", "bf", bin("%", var("e"), lit(B))));
      w.push_back(decl("const int", "grp", bin("/", var("e"), lit(B))));
      w.push_back(decl("const int", "base", butterflyBase(var("bf"), R, ns)));
      for (int q = 0; q < G; ++q) {
        const std::string kq = fmt::format("k{}", q);
        std::vector<NodePtr> put{decl("const int", kq, bin("+", bin("*", var("grp"), lit(G)), lit(q + 1)))};
        put.push_back(
            assign(sm(bin("+", var("base"), bin("*", var(kq), lit(ns)))), index(var("x"), lit(it * per + 2 * q))));
        put.push_back(assign(sm(bin("+", var("base"), bin("*", bin("-", lit(R), var(kq)), lit(ns)))),
                             index(var("x"), lit(it * per + 2 * q + 1))));
        const bool always = (q + 1) + (cs.groups - 1) * G <= h;  // every group has this pair
        w.push_back(always ? block(put)
                           : ifStmt(bin("<=", bin("+", bin("*", var("grp"), lit(G)), lit(q + 1)), lit(h)), block(put)));
      }
      w.push_back(ifStmt(bin("==", var("grp"), lit(0)),
                         block({assign(sm(var("base")), index(var("x"), lit(it * per + 2 * G)))})));
      st.push_back((it + 1) * T <= cs.items
                       ? block(w)
                       : ifStmt(bin("<", bin("+", var("t"), lit(it * T)), lit(cs.items)), block(w)));
    }
    st.push_back(exprStmt(call("__syncthreads", {})));
    return block(st);
  }
};

}  // namespace

const RadixPass& coopPrimePass() {
  static const CoopPrimePass p;
  return p;
}

}  // namespace warpforge
