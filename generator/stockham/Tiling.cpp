#include "generator/stockham/Tiling.h"

#include "generator/stockham/ElementIo.h"
#include "generator/stockham/FusedPlanes.h"
#include "generator/stockham/MirrorPairs.h"
#include "generator/stockham/RealFusion.h"
#include "generator/stockham/RealPlanes.h"

namespace warpforge {

using namespace ast;

int loadCount(const KernelDesc& d) { return d.length + (d.fuse == Fuse::C2RPre ? 1 : 0); }
int storeCount(const KernelDesc& d) {
  if (d.fuse == Fuse::PlaneSplit) return planeRows(d) * planeHalfRow(d);  // the half spectrum's rows of N/2 + 1
  return d.length + (d.fuse == Fuse::R2CPost ? 1 : 0);
}

void fftPrologue(const KernelContext& k, std::vector<NodePtr>& b, const Access& a) {
  if (k.d.mirrored) {
    mirroredPrologue(k, b);
  } else {
    b.push_back(decl("const long long", "g", bin("+", var("first"), var("fl"))));
    k.digits(b, "g");
  }
  b.push_back(decl("const long long", "abase", k.fftBase(a)));
  b.push_back(decl("const int", "sbase", bin("*", var("fl"), lit(k.g.smemStride))));
}

std::vector<NodePtr> loadElementBody(const KernelContext& k) {
  std::vector<NodePtr> b;
  b.push_back(decl(k.cT, "v", k.mk(k.num(0), k.num(0))));
  std::vector<NodePtr> active;
  if (k.d.fuse == Fuse::PlaneMerge) planeMergeLoad(k, active);
  else
    active = loadGuarded(k, k.address(k.d.in, var("i")), "const long long",
                         k.natural(var("i"), k.d.natInElem, k.d.natInDigit0));
  NodePtr live = bin("<", var("g"), var("ffts"));
  // Mirrored pairs: the c2r half's element L is element n of digit 0's FFT 0 only.
  if (k.d.mirrored && k.d.fuse == Fuse::C2RPre)
    live = bin("&&", live, bin("||", bin("<", var("i"), lit(k.d.length)), bin("==", var("d0"), lit(0))));
  b.push_back(ifStmt(live, block(active)));
  b.push_back(assign(k.shared("sbase", FusedPlanes(k.d).loadIndex(var("i"))), var("v")));
  return b;
}

std::vector<NodePtr> storeElementBody(const KernelContext& k, const NodePtr& held) {
  const KernelDesc& d = k.d;
  std::vector<NodePtr> b;
  std::vector<NodePtr> active;
  if (d.fuse == Fuse::R2CPost) {
    splitFromShared(k, active);
  } else if (d.fuse == Fuse::PlaneSplit) {
    planeSplitStore(k, active);
  } else if (d.fuse == Fuse::PairSplit) {
    pairSplitFromShared(k, active);
  } else if (d.factors.empty() && d.fuse == Fuse::C2RPre && !d.mirrored) {
    NodePtr z = mergedRead(k, active, "sbase", var("i"), "z", true);
    active.push_back(decl(k.cT, "v", z));
  } else {
    active.push_back(decl(k.cT, "v", held ? held : k.shared("sbase", var("i"))));
  }
  if (d.bigN > 0) fourStepTwiddle(k, active, var("i"));
  for (auto& st : storeGuarded(k, k.address(d.out, var("i")), "const long long",
                               k.natural(var("i"), d.natOutElem, d.natOutDigit0)))
    active.push_back(st);
  NodePtr live = bin("<", var("g"), var("ffts"));
  if (d.mirrored) {  // a self-mirrored FFT's second copy is not stored; the r2c output L is element n of FFT 0
    // (a pair split stores the outputs k <= N / 2 only: from the lower FFT of each mirrored pair)
    live = bin("&&", live, unary("!", var(d.fuse == Fuse::PairSplit ? "upper" : "twin")));
    if (d.fuse == Fuse::R2CPost)
      live = bin("&&", live, bin("||", bin("<", var("i"), lit(d.length)), bin("==", var("d0"), lit(0))));
  }
  b.push_back(ifStmt(live, block(active)));
  return b;
}

}  // namespace warpforge
