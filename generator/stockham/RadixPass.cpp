#include "generator/stockham/RadixPass.h"

#include <fmt/format.h>

#include "generator/stockham/CoopRadix.h"
#include "generator/stockham/ElementIo.h"
#include "generator/stockham/RealFusion.h"
#include "generator/stockham/StockhamEmitter.h"
#include "generator/stockham/Twiddles.h"

namespace warpforge {

using namespace ast;

const RadixPass& radixPassFor(const KernelContext& k, int p) {
  const int R = k.d.factors[p];
  if (isCoopRadix(R, threadPrimeLimit(k.d.f64)))
    return streamsPass(k.d, k.g, R) ? streamedPrimePass() : coopPrimePass();
  if (k.directOut && k.lastPass(p) && k.d.fuse == Fuse::R2CPost) return realSplitPass();
  return butterflyPass();
}

AstComplexOps::C heldInput(const KernelContext& k, std::vector<NodePtr>& st, const AstComplexOps::C& x,
                           const std::string& name) {
  st.push_back(decl(k.cT, name, k.mk(x.re, x.im)));
  return {member(var(name), "x"), member(var(name), "y")};
}

void issueNextGroupCopy(KernelContext& k, std::vector<NodePtr>& st) {
  st.push_back(exprStmt(call("__syncthreads", {})));
  for (const auto& s : k.nextGroupCopy) st.push_back(s);
  k.nextGroupCopy.clear();
}

NodePtr butterflyBase(const NodePtr& j, int R, long long ns) {
  return ns == 1 ? bin("*", j, lit(R)) : bin("+", bin("*", bin("/", j, lit(ns)), lit(ns * R)), bin("%", j, lit(ns)));
}

std::vector<AstComplexOps::C> butterflyInputs(const KernelContext& k, std::vector<NodePtr>& bf, int p, long long ns,
                                              const std::string& sfx, const NodePtr& jInit) {
  const KernelDesc& d = k.d;
  const int R = d.factors[p], L = d.length;
  const int butterflies = L / R;
  const long long twOffset = twiddleOffsets(d.factors)[p];
  const bool padded = k.g.padShift > 0;
  const int G = 1 << k.g.padShift;
  const bool readLinear = !padded || butterflies % G == 0;  // pad(fbase + j + r B) = pad(fbase + j) + r (B + B / G)
  auto nm = [&](const std::string& base) { return base + sfx; };
  NodePtr j = var(nm("j"));
  bf.push_back(decl("const int", nm("j"), jInit));
  if (passTwiddled(d.axes, ns)) {
    bf.push_back(decl("const int", nm("k"), bin("%", j, lit(ns))));
    // One pointer, constant offsets: written as twiddles[k + c], NVVM hoists R - 1 separate 64-bit
    // addresses out of the group loop (30 registers for radix 16) and the kernel spills.
    bf.push_back(
        decl("const " + k.cT + "*", nm("tw"), bin("+", var("twiddles"), bin("+", var(nm("k")), lit(twOffset)))));
  }
  if (readLinear) bf.push_back(decl("const int", nm("pj"), call("wf_pad", {bin("+", var("fbase"), j)})));
  std::vector<AstComplexOps::C> xs;
  for (int r = 0; r < R; ++r) {
    NodePtr v;
    const std::string a = fmt::format("a{}", r) + sfx, w = fmt::format("w{}", r) + sfx, b = fmt::format("b{}", r) + sfx;
    if (k.firstPass(p) && k.directIn && d.inZeroFrom >= 0 && static_cast<long long>(r) * butterflies >= d.inZeroFrom) {
      xs.push_back(AstComplexOps{bf, d.f64}.zero());  // zero padding for every j: no load
      continue;
    }
    if (k.firstPass(p) && k.directIn) {
      v = var(a);
      bf.push_back(decl(k.cT, a, k.mk(k.num(0), k.num(0))));
      NodePtr i = bin("+", j, lit(static_cast<long long>(r) * butterflies));
      std::vector<NodePtr> get = loadInto(k, v, k.address(d.in, i, "ain"), k.natural(i, d.natInElem, d.natInDigit0));
      if (d.loadTable)
        get.push_back(assign(v, k.cmul(v, index(var("load_table"), k.natural(i, d.natInElem, d.natInDigit0)))));
      NodePtr cond = var("live");
      if (d.inValid >= 0) cond = bin("&&", cond, bin("<", k.natural(i, d.natInElem, d.natInDigit0), var("in_valid")));
      bf.push_back(ifStmt(cond, block(get)));
    } else if (readLinear && !(p == 0 && d.fuse == Fuse::C2RPre && !d.mirrored)) {
      bf.push_back(decl(k.cT, a,
                        index(var("smem_all"),
                              bin("+", var(nm("pj")), lit(r * (butterflies + (padded ? butterflies / G : 0)))))));
      v = var(a);
    } else {
      v = mergedRead(k, bf, "fbase", bin("+", j, lit(static_cast<long long>(r) * butterflies)), a, p == 0);
    }
    if (d.convolve && k.stage == 1 && p == 0) {  // Bluestein: the forward half left element k at shared index k
      const std::string c = fmt::format("c{}", r) + sfx;
      bf.push_back(
          decl(k.cT, c, k.cmul(v, index(var("conv"), bin("+", j, lit(static_cast<long long>(r) * butterflies))))));
      v = var(c);
    }
    if (r > 0 && passTwiddled(d.axes, ns)) {
      const int hi = derivedSplit(r);
      if (twiddleLoaded(r, k.g.deriveTwiddles) && k.stage == 1 && d.convolve) {  // W^-x = conj W^x
        const std::string t = fmt::format("t{}", r) + sfx;
        bf.push_back(decl(k.cT, t, index(var(nm("tw")), lit((r - 1) * ns))));
        bf.push_back(decl(k.cT, w, k.mk(member(var(t), "x"), unary("-", member(var(t), "y")))));
      } else if (twiddleLoaded(r, k.g.deriveTwiddles)) {
        bf.push_back(decl(k.cT, w, index(var(nm("tw")), lit((r - 1) * ns))));
      } else {
        bf.push_back(decl(k.cT, w, k.cmul(var(fmt::format("w{}", hi) + sfx), var(fmt::format("w{}", r - hi) + sfx))));
      }
      bf.push_back(decl(k.cT, b, k.cmul(v, var(w))));
      v = var(b);
    }
    xs.push_back({member(v, "x"), member(v, "y")});
  }
  return xs;
}

SlotForm slotForm(const KernelContext& k, int R, long long ns) {
  const int G = 1 << k.g.padShift;
  const bool padded = k.g.padShift > 0;
  return {!padded || (G % ns == 0 && ((ns * R) % G == 0 || G % (ns * R) == 0)), padded && ns % G == 0};
}

NodePtr outputSlot(const KernelContext& k, int R, long long ns, int r) {
  const SlotForm f = slotForm(k, R, ns);
  const int G = 1 << k.g.padShift;
  const bool padded = k.g.padShift > 0;
  return f.small   ? index(var("smem_all"), bin("+", var("pb"), lit(r * ns + (padded ? (r * ns) / G : 0))))
         : f.large ? index(var("smem_all"), bin("+", var("pb"), lit(r * (ns + ns / G))))
                   : k.shared("fbase", bin("+", var("base"), lit(static_cast<long long>(r) * ns)));
}

NodePtr outputSlotAt(const KernelContext& k, int R, long long ns, const NodePtr& r) {
  const SlotForm f = slotForm(k, R, ns);
  const int G = 1 << k.g.padShift;
  NodePtr rns = bin("*", r, lit(ns));
  return f.small   ? index(var("smem_all"),
                           bin("+", var("pb"), k.g.padShift > 0 ? bin("+", rns, bin("/", rns, lit(G))) : rns))
         : f.large ? index(var("smem_all"), bin("+", var("pb"), bin("*", r, lit(ns + ns / G))))
                   : k.shared("fbase", bin("+", var("base"), rns));
}

}  // namespace warpforge
