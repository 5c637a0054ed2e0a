// A cooperative prime computed whole by one thread per butterfly (CoopRadix.h streamedPrimeLimit): the inputs, times
// their twiddles, folded into a_j = x_j + x_{R-j}, b_j = x_j - x_{R-j} (Butterfly.h's symmetric form) and held across
// the pass's barrier; then each output pair y_k, y_{R-k} from constant coefficients, stored as soon as it is computed.
// A thread so holds about R values, not the 2R of a straight-line butterfly, and reads no per-lane table.
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "generator/stockham/ElementIo.h"
#include "generator/stockham/RadixPass.h"

namespace warpforge {

using namespace ast;

namespace {

// The coefficients of a streamed prime's output pairs (f64): row k - 1 holds W_R^(jk), j = 1..h.
std::string pairTableName(int R, int sign) { return fmt::format("wf_pairs{}_{}", R, sign < 0 ? "fwd" : "inv"); }
std::string pairTable(const KernelContext& k, int R, int sign) {
  const int h = (R - 1) / 2;
  std::string t = fmt::format("__constant__ {} {}[{}] = {{", k.cT, pairTableName(R, sign), h * h);
  for (int kk = 1; kk <= h; ++kk)
    for (int j = 1; j <= h; ++j)
      t += (kk + j > 2 ? ", " : "") + k.rootEntry(static_cast<long long>(j) * kk % R, R, sign);
  return t + "};";
}

class StreamedPrimePass : public RadixPass {
 public:
  NodePtr emit(KernelContext& k, int p, long long ns) const override {
    const KernelDesc& d = k.d;
    const int R = d.factors[p], L = d.length, T = k.g.threadsPerFft;
    const int butterflies = L / R, h = (R - 1) / 2;
    if (butterflies > T) throw std::logic_error("streamed prime pass with more butterflies than threads");
    const bool lastDirect = k.directOut && k.lastPass(p);
    std::vector<NodePtr> st{
        comment(fmt::format("pass {}: radix {}, one butterfly per thread, outputs stored pair by pair, {} butterflies, "
                            "sub-transforms {} -> {}",
                            p, R, butterflies, ns, ns * R))};
    const bool guard = T > butterflies;
    auto guarded = [&](std::vector<NodePtr> b) {
      return guard ? ifStmt(bin("<", var("t"), lit(butterflies)), block(std::move(b))) : block(std::move(b));
    };
    // fold
    std::vector<NodePtr> in;
    std::vector<NodePtr> ops;
    AstComplexOps ac{ops, d.f64};
    std::vector<AstComplexOps::C> xs = butterflyInputs(k, in, p, ns, "", var("t"));
    std::vector<AstComplexOps::C> a, b;
    AstComplexOps::C sum = xs[0];
    for (int j = 1; j <= h; ++j) {
      a.push_back(ac.add(xs[j], xs[R - j]));
      b.push_back(ac.sub(xs[j], xs[R - j]));
      sum = ac.add(sum, a.back());
    }
    for (auto& o : ops) in.push_back(o);
    ops.clear();
    // Held across the barrier in registers: x0, the sum y0, a_j, b_j (constant indices only).
    auto held = [&](const std::string& n, int i) { return index(var(n), lit(i)); };
    auto heldC = [&](const std::string& n, int i) {
      return AstComplexOps::C{member(held(n, i), "x"), member(held(n, i), "y")};
    };
    std::vector<NodePtr> out;
    if (!lastDirect) {
      st.push_back(declArray(k.cT, "fa", h + 1));  // fa[0] = x0, fa[j] = a_j
      st.push_back(declArray(k.cT, "fb", h + 1));  // fb[0] = y0, fb[j] = b_j
      in.push_back(assign(held("fa", 0), k.mk(xs[0].re, xs[0].im)));
      in.push_back(assign(held("fb", 0), k.mk(sum.re, sum.im)));
      for (int j = 1; j <= h; ++j) {
        in.push_back(assign(held("fa", j), k.mk(a[j - 1].re, a[j - 1].im)));
        in.push_back(assign(held("fb", j), k.mk(b[j - 1].re, b[j - 1].im)));
      }
      st.push_back(guarded(std::move(in)));
      st.push_back(exprStmt(call("__syncthreads", {})));
      xs[0] = heldC("fa", 0);
      sum = heldC("fb", 0);
      for (int j = 1; j <= h; ++j) {
        a[j - 1] = heldC("fa", j);
        b[j - 1] = heldC("fb", j);
      }
      out.push_back(decl("const int", "j", var("t")));
      out.push_back(decl("const int", "base", butterflyBase(var("j"), R, ns)));
      if (slotForm(k, R, ns).needsPb())
        out.push_back(decl("const int", "pb", call("wf_pad", {bin("+", var("fbase"), var("base"))})));
    } else {
      out = std::move(in);
    }
    // y stored as output r (a literal, or the pair loop's k where rIndex is given): to its Stockham slot, or (a direct
    // last pass) to element j + r ns of the FFT.
    auto put = [&](std::vector<NodePtr>& to, int r, const NodePtr& rIndex, NodePtr re, NodePtr im) {
      if (!lastDirect) {
        to.push_back(assign(rIndex ? outputSlotAt(k, R, ns, rIndex) : outputSlot(k, R, ns, r),
                            k.mk(std::move(re), std::move(im))));
        return;
      }
      if (!rIndex && d.outDropFrom >= 0 && static_cast<long long>(r) * ns >= d.outDropFrom) return;
      NodePtr at = bin("+", var("j"), rIndex ? bin("*", rIndex, lit(ns)) : lit(static_cast<long long>(r) * ns));
      std::vector<NodePtr> v{decl(k.cT, "v", k.mk(std::move(re), std::move(im)))};
      for (auto& s : storeElement(k, at, "aout")) v.push_back(s);
      NodePtr cond = var("live");
      if (rIndex && d.outDropFrom >= 0) cond = bin("&&", cond, bin("<", at, lit(d.outDropFrom)));
      to.push_back(ifStmt(cond, block(v)));
    };
    put(out, 0, nullptr, sum.re, sum.im);
    if (d.f64) {
      // f64: a rolled loop over the pairs (the unrolled form, every pair's coefficients literals, took 255 registers
      // and spilled from 31 on), the coefficients W^(jk) of pair k read from a __constant__ table row: k is the same in
      // every lane, so each read is one broadcast.
      const std::string table = pairTableName(R, k.stageSign());
      k.constTables[table] = pairTable(k, R, k.stageSign());
      std::vector<NodePtr> loop{
          decl("const " + k.cT + "*", "cw", bin("+", var(table), bin("*", bin("-", var("k"), lit(1)), lit(h))))};
      loop.push_back(decl(k.rT, "ar", xs[0].re));
      loop.push_back(decl(k.rT, "ai", xs[0].im));
      loop.push_back(decl(k.rT, "br", ac.num(0)));
      loop.push_back(decl(k.rT, "bi", ac.num(0)));
      for (int j = 1; j <= h; ++j) {
        const std::string c = fmt::format("c{}", j);
        loop.push_back(decl("const " + k.cT, c, index(var("cw"), lit(j - 1))));
        loop.push_back(assign(var("ar"), bin("*", member(var(c), "x"), a[j - 1].re), "+="));
        loop.push_back(assign(var("ai"), bin("*", member(var(c), "x"), a[j - 1].im), "+="));
        loop.push_back(assign(var("br"), bin("*", member(var(c), "y"), b[j - 1].re), "+="));
        loop.push_back(assign(var("bi"), bin("*", member(var(c), "y"), b[j - 1].im), "+="));
      }
      put(loop, 0, var("k"), bin("-", var("ar"), var("bi")), bin("+", var("ai"), var("br")));
      put(loop, 0, bin("-", lit(R), var("k")), bin("+", var("ar"), var("bi")), bin("-", var("ai"), var("br")));
      out.push_back(raw("#pragma unroll 1"));
      out.push_back(
          forLoop(decl("int", "k", lit(1)), bin("<=", var("k"), lit(h)), assign(var("k"), lit(1), "+="), block(loop)));
    } else {
      // f32: every pair unrolled, its coefficients literals.
      for (int kk = 1; kk <= h; ++kk) {
        AstComplexOps::C A = xs[0], B{};
        bool haveB = false;
        for (int j = 1; j <= h; ++j) {
          const double ang = 2.0 * M_PI * ((static_cast<long long>(j) * kk) % R) / R;
          A = ac.add(A, ac.scale(a[j - 1], std::cos(ang)));
          AstComplexOps::C t = ac.scale(b[j - 1], k.stageSign() * std::sin(ang));
          B = haveB ? ac.add(B, t) : t;
          haveB = true;
        }
        const AstComplexOps::C iB = ac.mulI(B);
        const AstComplexOps::C yk = ac.add(A, iB), ym = ac.sub(A, iB);
        for (auto& o : ops) out.push_back(o);
        ops.clear();
        put(out, kk, nullptr, yk.re, yk.im);
        put(out, R - kk, nullptr, ym.re, ym.im);
      }
    }
    st.push_back(guarded(std::move(out)));
    if (!lastDirect) st.push_back(exprStmt(call("__syncthreads", {})));
    return block(st);
  }
};

}  // namespace

const RadixPass& streamedPrimePass() {
  static const StreamedPrimePass p;
  return p;
}

}  // namespace warpforge
