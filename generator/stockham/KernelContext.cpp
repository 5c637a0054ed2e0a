#include "generator/stockham/KernelContext.h"

#include <cmath>

#include <fmt/format.h>

namespace warpforge {

using namespace ast;

bool isHalf(Storage s) { return s == Storage::C16 || s == Storage::R16; }

KernelContext::KernelContext(const KernelDesc& desc, const KernelGeometry& geometry)
    : d(desc),
      g(geometry),
      cT(desc.f64 ? "double2" : "float2"),
      rT(desc.f64 ? "double" : "float"),
      NT(geometry.threadsPerFft * geometry.fftsPerBlock),
      directIn(geometry.directLoad),
      directOut(geometry.directStore) {}

NodePtr KernelContext::num(double v) const { return d.f64 ? dlit(v) : flit(v); }
NodePtr KernelContext::shared(const NodePtr& x) const { return index(var("smem_all"), call("wf_pad", {x})); }
NodePtr KernelContext::shared(const std::string& base, const NodePtr& i) const {
  return shared(bin("+", var(base), i));
}
NodePtr KernelContext::mk(NodePtr re, NodePtr im) const {
  return call(d.f64 ? "make_double2" : "make_float2", {std::move(re), std::move(im)});
}
NodePtr KernelContext::cmul(const NodePtr& a, const NodePtr& b) const {
  return mk(bin("-", bin("*", member(a, "x"), member(b, "x")), bin("*", member(a, "y"), member(b, "y"))),
            bin("+", bin("*", member(a, "x"), member(b, "y")), bin("*", member(a, "y"), member(b, "x"))));
}

void KernelContext::digits(std::vector<NodePtr>& out, const std::string& gName) const {
  const auto& c = d.batchCount;
  if (c.empty()) {
    out.push_back(decl("const long long", "d0", var(gName)));
    return;
  }
  out.push_back(decl("long long", "q", var(gName)));
  for (std::size_t k = 0; k < c.size(); ++k) {
    out.push_back(decl("const long long", fmt::format("d{}", k), bin("%", var("q"), lit(c[k]))));
    out.push_back(assign(var("q"), lit(c[k]), "/="));
  }
  out.push_back(decl("const long long", fmt::format("d{}", c.size()), var("q")));
}

bool KernelContext::collapsible(const Access& a) const {
  for (std::size_t k = 0; k + 1 < a.batchStride.size(); ++k)
    if (a.batchStride[k + 1] != a.batchStride[k] * d.batchCount[k]) return false;
  return true;
}

NodePtr KernelContext::fftBase(const Access& a) const {
  if (collapsible(a) && !d.mirrored) return bin("+", lit(a.offset), bin("*", var("g"), lit(a.batchStride[0])));
  NodePtr e = lit(a.offset);
  for (std::size_t k = 0; k < a.batchStride.size(); ++k)
    e = bin("+", e, bin("*", var(fmt::format("d{}", k)), lit(a.batchStride[k])));
  return e;
}

NodePtr KernelContext::address(const Access& a, const NodePtr& i, const std::string& base) const {
  long long es = isReal(a.storage) && !a.scalarReal ? 2 * a.elemStride : a.elemStride;
  return bin("+", var(base), bin("*", cast("long long", i), lit(es)));
}

NodePtr KernelContext::natural(const NodePtr& i, long long elem, long long digit0) const {
  return bin("+", bin("*", cast("long long", i), lit(elem)), bin("*", var("d0"), lit(digit0)));
}

std::string KernelContext::rootEntry(long long m, int R, int sign) const {
  const double a = 2.0 * M_PI * m / R;
  return d.f64 ? fmt::format("{{{:.17e}, {:.17e}}}", std::cos(a), sign * std::sin(a))
               : fmt::format("{{{:.9e}f, {:.9e}f}}", std::cos(a), sign * std::sin(a));
}

}  // namespace warpforge
