// The radix pass of butterflies one thread holds whole (Butterfly.h: powers of two, odd primes to 31 and their
// composites): the block's L / R butterflies spread over the FFT's threads, `iters` per thread. Each thread reads its
// butterflies' inputs (from global memory where the first pass loads directly), computes them into registers, and
// after a barrier writes the outputs to their Stockham slots; a direct last pass stores them to global memory instead.
// Where the block copies its next group during the last pass (KernelGeometry::prefetch), that pass reads every
// butterfly's inputs first, and the copy starts after a barrier, before the butterflies are computed and stored.
#include <fmt/format.h>

#include "generator/stockham/Butterfly.h"
#include "generator/stockham/ElementIo.h"
#include "generator/stockham/RadixPass.h"

namespace warpforge {

using namespace ast;

namespace {

class ButterflyPass : public RadixPass {
 public:
  NodePtr emit(KernelContext& k, int p, long long ns) const override {
    const KernelDesc& d = k.d;
    const int R = d.factors[p], L = d.length, T = k.g.threadsPerFft;
    const int butterflies = L / R, iters = (butterflies + T - 1) / T;
    const bool lastDirect = k.directOut && k.lastPass(p);
    if (lastDirect && !k.nextGroupCopy.empty()) return prefetchingLastPass(k, p, ns);
    std::vector<NodePtr> st{
        comment(fmt::format("pass {}{}: radix {}, {} butterflies, sub-transforms {} -> {}", p,
                            d.convolve ? (k.stage ? " (inverse)" : " (forward)") : "", R, butterflies, ns, ns * R))};
    st.push_back(declArray(k.cT, "x", iters * R));
    for (int it = 0; it < iters; ++it) st.push_back(iteration(k, p, ns, it, lastDirect));
    if (lastDirect) return block(st);
    st.push_back(exprStmt(call("__syncthreads", {})));
    for (int it = 0; it < iters; ++it) {
      std::vector<NodePtr> w;
      w.push_back(decl("const int", "j", bin("+", var("t"), lit(it * T))));
      w.push_back(decl("const int", "base", butterflyBase(var("j"), R, ns)));
      if (slotForm(k, R, ns).needsPb())
        w.push_back(decl("const int", "pb", call("wf_pad", {bin("+", var("fbase"), var("base"))})));
      for (int r = 0; r < R; ++r) w.push_back(assign(outputSlot(k, R, ns, r), index(var("x"), lit(it * R + r))));
      st.push_back((it + 1) * T <= butterflies
                       ? block(w)
                       : ifStmt(bin("<", bin("+", var("t"), lit(it * T)), lit(butterflies)), block(w)));
    }
    st.push_back(exprStmt(call("__syncthreads", {})));
    return block(st);
  }

 private:
  // Iteration `it` of the pass: butterfly t + it T read, computed, and its outputs into x (or, a direct last pass, to
  // global memory); a partial iteration under its guard.
  static NodePtr iteration(KernelContext& k, int p, long long ns, int it, bool lastDirect) {
    const KernelDesc& d = k.d;
    const int R = d.factors[p], L = d.length, T = k.g.threadsPerFft;
    const int butterflies = L / R;
    std::vector<NodePtr> bf;
    NodePtr j = var("j");
    std::vector<NodePtr> ops;
    AstComplexOps ac{ops, d.f64};
    std::vector<AstComplexOps::C> xs = butterflyInputs(k, bf, p, ns, "", bin("+", var("t"), lit(it * T)));
    DftBuilder<AstComplexOps> dft(ac, k.stageSign());
    std::vector<AstComplexOps::C> ys = dft.dft(xs);
    for (auto& o : ops) bf.push_back(o);
    if (lastDirect) {
      directStores(k, bf, ys, j, ns);
    } else {
      for (int o = 0; o < R; ++o) bf.push_back(assign(index(var("x"), lit(it * R + o)), k.mk(ys[o].re, ys[o].im)));
    }
    return (it + 1) * T <= butterflies ? block(bf)
                                       : ifStmt(bin("<", bin("+", var("t"), lit(it * T)), lit(butterflies)), block(bf));
  }

  // A direct last pass's stores: output k = j + o ns is element k of the FFT (ns = L / R, j < ns).
  static void directStores(const KernelContext& k, std::vector<NodePtr>& bf, const std::vector<AstComplexOps::C>& ys,
                           const NodePtr& j, long long ns) {
    const KernelDesc& d = k.d;
    for (int o = 0; o < static_cast<int>(ys.size()); ++o) {
      if (d.outDropFrom >= 0 && o * ns >= d.outDropFrom) continue;  // never stored, for any j
      std::vector<NodePtr> put{decl(k.cT, "v", k.mk(ys[o].re, ys[o].im))};
      for (auto& s : storeElement(k, bin("+", j, lit(static_cast<long long>(o) * ns)), "aout")) put.push_back(s);
      bf.push_back(ifStmt(var("live"), block(put)));
    }
  }

  // The last pass with the next group's copy in the middle: a partial iteration whole, every full iteration's inputs
  // into named registers, the barrier after which shared memory is free, the copy, then the butterflies and stores.
  static NodePtr prefetchingLastPass(KernelContext& k, int p, long long ns) {
    const KernelDesc& d = k.d;
    const int R = d.factors[p], L = d.length, T = k.g.threadsPerFft;
    const int butterflies = L / R, full = butterflies / T;
    std::vector<NodePtr> st{
        comment(fmt::format("pass {}: radix {}, {} butterflies, sub-transforms {} -> {}; inputs read, then the next "
                            "group's copy issued",
                            p, R, butterflies, ns, ns * R))};
    // A partial iteration runs whole first: its registers are free again before the deferred reads.
    if (full * T < butterflies) st.push_back(iteration(k, p, ns, full, true));
    std::vector<std::vector<AstComplexOps::C>> inputs(full);
    for (int it = 0; it < full; ++it) {
      std::vector<AstComplexOps::C> xs = butterflyInputs(k, st, p, ns, fmt::format("_{}", it),
                                                         bin("+", var("t"), lit(it * T)));
      for (int r = 0; r < R; ++r) inputs[it].push_back(heldInput(k, st, xs[r], fmt::format("in{}_{}", it, r)));
    }
    issueNextGroupCopy(k, st);
    for (int it = 0; it < full; ++it) {
      std::vector<NodePtr> bf, ops;
      AstComplexOps ac{ops, d.f64};
      DftBuilder<AstComplexOps> dft(ac, k.stageSign());
      std::vector<AstComplexOps::C> ys = dft.dft(inputs[it]);
      for (auto& o : ops) bf.push_back(o);
      directStores(k, bf, ys, var(fmt::format("j_{}", it)), ns);
      st.push_back(block(bf));
    }
    return block(st);
  }
};

}  // namespace

const RadixPass& butterflyPass() {
  static const ButterflyPass p;
  return p;
}

}  // namespace warpforge
