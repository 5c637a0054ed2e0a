#include "generator/stockham/ElementIo.h"

#include <fmt/format.h>

namespace warpforge {

using namespace ast;

namespace {

const char* realVectorType(Storage s) {
  return s == Storage::R16 ? "__half2" : s == Storage::R32 ? "float2" : "double2";
}

// `body` runs where the natural index `nat` is below `bound` (when the kernel has one);
// `nat` is declared from natExpr when a table or the bound needs it.
std::vector<NodePtr> guarded(const std::vector<NodePtr>& body, const std::string& natType, const NodePtr& natExpr,
                             bool table, bool bounded, const char* bound) {
  std::vector<NodePtr> out;
  if (table || bounded) out.push_back(decl(natType, "nat", natExpr));
  if (bounded) out.push_back(ifStmt(bin("<", var("nat"), var(bound)), block(body)));
  else out.insert(out.end(), body.begin(), body.end());
  return out;
}

// A paired batch (Access::pairOffset): whether entry 2p + 1 of this thread's pair p (the last batch digit) exists.
NodePtr pairSecondExists(const KernelContext& k) {
  return bin("<", bin("+", bin("*", lit(2), var(fmt::format("d{}", k.d.batchCount.size()))), lit(1)),
             var("batch_entries"));
}

}  // namespace

bool realVector(const Access& a) {
  if (!isReal(a.storage) || a.scalarReal || a.planar || a.elemStride != 1 || a.imOffset() != 1 || a.offset % 2)
    return false;
  for (long long s : a.batchStride)
    if (s % 2) return false;
  return true;
}

NodePtr loadValue(const KernelContext& k, const NodePtr& addr) {
  const Access& a = k.d.in;
  auto widen = [&](NodePtr e) { return isHalf(a.storage) ? call("__half2float", {e}) : cast(k.rT, e); };
  NodePtr in = var("in"), inIm = var("in_im");
  switch (a.storage) {
    case Storage::CI8:
      if (a.planar) return k.mk(cast(k.rT, index(in, addr)), cast(k.rT, index(inIm, addr)));
      return k.mk(cast(k.rT, member(index(in, addr), "x")), cast(k.rT, member(index(in, addr), "y")));
    case Storage::CI4:  // high nibble real, low nibble imaginary, sign-extended by arithmetic shifts
      return k.mk(cast(k.rT, bin(">>", cast("int", index(in, addr)), lit(4))),
                  cast(k.rT,
                       bin(">>", cast("int", cast("signed char", bin("<<", cast("int", index(in, addr)), lit(4)))),
                           lit(4))));
    default: break;
  }
  if (a.planar) return k.mk(widen(index(in, addr)), widen(index(inIm, addr)));
  if (a.scalarReal && a.pairOffset)
    return k.mk(widen(index(in, addr)),
                ternary(pairSecondExists(k), widen(index(in, bin("+", addr, lit(a.pairOffset)))), k.num(0)));
  if (a.scalarReal) return k.mk(widen(index(in, addr)), k.num(0));
  if (isReal(a.storage)) {
    if (realVector(a)) {
      NodePtr v = index(cast(std::string("const ") + realVectorType(a.storage) + "*", in), bin("/", addr, lit(2)));
      return a.storage == Storage::R16 ? call("__half22float2", {v}) : v;  // f16 computes in float
    }
    return k.mk(widen(index(in, addr)), widen(index(in, bin("+", addr, lit(a.imOffset())))));
  }
  if (a.storage == Storage::C16) return call("__half22float2", {index(in, addr)});
  return index(in, addr);
}

namespace {
std::vector<NodePtr> storeOne(const KernelContext& k, const NodePtr& addr, const NodePtr& v);
}  // namespace

std::vector<NodePtr> storeValue(const KernelContext& k, const NodePtr& addr, const NodePtr& v) {
  const Access& a = k.d.out;
  if (!a.pairOffset) return storeOne(k, addr, v);
  // A pair's two entries: a scalar real array takes v's real and imaginary parts, a complex one v and v_pair.
  auto narrow = [&](NodePtr e) { return isHalf(a.storage) ? call("__float2half_rn", {e}) : e; };
  const NodePtr second = bin("+", addr, lit(a.pairOffset));
  std::vector<NodePtr> out, secondStores;
  if (a.scalarReal) {
    out.push_back(assign(index(var("out"), addr), narrow(member(v, "x"))));
    secondStores.push_back(assign(index(var("out"), second), narrow(member(v, "y"))));
  } else {
    out = storeOne(k, addr, v);
    secondStores = storeOne(k, second, var("v_pair"));
  }
  out.push_back(ifStmt(pairSecondExists(k), block(secondStores)));
  return out;
}

namespace {
std::vector<NodePtr> storeOne(const KernelContext& k, const NodePtr& addr, const NodePtr& v) {
  const Access& a = k.d.out;
  NodePtr out = var("out"), outIm = var("out_im");
  auto narrow = [&](NodePtr e) { return isHalf(a.storage) ? call("__float2half_rn", {e}) : e; };
  if (a.planar)
    return {assign(index(out, addr), narrow(member(v, "x"))), assign(index(outIm, addr), narrow(member(v, "y")))};
  if (a.scalarReal) return {assign(index(out, addr), narrow(member(v, "x")))};
  if (isReal(a.storage)) {
    if (realVector(a)) {
      NodePtr dst = index(cast(std::string(realVectorType(a.storage)) + "*", out), bin("/", addr, lit(2)));
      return {assign(dst, a.storage == Storage::R16 ? call("__floats2half2_rn", {member(v, "x"), member(v, "y")}) : v)};
    }
    return {assign(index(out, addr), narrow(member(v, "x"))),
            assign(index(out, bin("+", addr, lit(a.imOffset()))), narrow(member(v, "y")))};
  }
  if (a.storage == Storage::C16)
    return {assign(index(out, addr), call("__floats2half2_rn", {member(v, "x"), member(v, "y")}))};
  return {assign(index(out, addr), v)};
}
}  // namespace

std::vector<NodePtr> loadInto(const KernelContext& k, const NodePtr& v, const NodePtr& addr, const NodePtr& nat) {
  const Access& a = k.d.in;
  if (!a.hermitianN) return {assign(v, loadValue(k, addr))};
  // Element nat of the Hermitian sequence: stored for nat <= N/2, else conj of element N - nat.
  NodePtr mirrored = bin(">", nat, lit(a.hermitianN / 2));
  NodePtr at = ternary(mirrored,
                       bin("+", addr,
                           bin("*", bin("-", lit(a.hermitianN), bin("*", lit(2), nat)), lit(a.hermitianStride))),
                       addr);
  auto conjugate = [&](const NodePtr& x) { return assign(member(x, "y"), unary("-", member(x, "y"))); };
  if (!a.pairOffset) return {assign(v, loadValue(k, at)), ifStmt(mirrored, block({conjugate(v)}))};
  // A pair: Z = X_2p + i X_2p+1, each entry's element read as above (the second zero past an odd count). X[0] mirrors
  // itself: its imaginary part, which a single c2r drops with the outputs' imaginary parts, would land in the other
  // entry here, so the load drops it.
  const NodePtr b = var("v_pair");
  return {block(
      {assign(v, loadValue(k, at)),
       decl(k.cT, "v_pair",
            ternary(pairSecondExists(k), loadValue(k, bin("+", at, lit(a.pairOffset))), k.mk(k.num(0), k.num(0)))),
       ifStmt(mirrored, block({conjugate(v), conjugate(b)})),
       ifStmt(bin("==", nat, lit(0)), block({assign(member(v, "y"), k.num(0)), assign(member(b, "y"), k.num(0))})),
       assign(v, k.mk(bin("-", member(v, "x"), member(b, "y")), bin("+", member(v, "y"), member(b, "x"))))})};
}

std::vector<NodePtr> loadGuarded(const KernelContext& k, const NodePtr& addr, const std::string& natType,
                                 const NodePtr& natExpr) {
  std::vector<NodePtr> get = loadInto(k, var("v"), addr, var("nat"));
  if (k.d.loadTable) get.push_back(assign(var("v"), k.cmul(var("v"), index(var("load_table"), var("nat")))));
  return guarded(get, natType, natExpr, k.d.loadTable || k.d.in.hermitianN > 0, k.d.inValid >= 0, "in_valid");
}

std::vector<NodePtr> storeGuarded(const KernelContext& k, const NodePtr& addr, const std::string& natType,
                                  const NodePtr& natExpr) {
  std::vector<NodePtr> put;
  if (k.d.storeTable) put.push_back(assign(var("v"), k.cmul(var("v"), index(var("store_table"), var("nat")))));
  for (auto& st : storeValue(k, addr, var("v"))) put.push_back(st);
  return guarded(put, natType, natExpr, k.d.storeTable, k.d.outValid >= 0, "out_valid");
}

void fourStepTwiddle(const KernelContext& k, std::vector<NodePtr>& out, const NodePtr& i) {
  out.push_back(decl("const long long", "m", bin("*", cast("long long", i), var("d0"))));
  out.push_back(
      assign(var("v"), k.cmul(var("v"), k.cmul(index(var("big_lo"), bin("%", var("m"), lit(k.d.bigSplit))),
                                               index(var("big_hi"), bin("/", var("m"), lit(k.d.bigSplit)))))));
}

std::vector<NodePtr> storeElement(const KernelContext& k, const NodePtr& i, const std::string& base) {
  std::vector<NodePtr> out;
  if (k.d.bigN > 0) fourStepTwiddle(k, out, i);
  for (auto& st :
       storeGuarded(k, k.address(k.d.out, i, base), "const long long", k.natural(i, k.d.natOutElem, k.d.natOutDigit0)))
    out.push_back(st);
  return out;
}

}  // namespace warpforge
