#include "generator/stockham/MirrorPairs.h"

#include <fmt/format.h>

namespace warpforge {

using namespace ast;

long long mirroredFftsPerBatch(const std::vector<long long>& counts) {
  long long p = 2 * (counts.at(0) / 2 + 1);
  for (std::size_t c = 1; c < counts.size(); ++c) p *= counts[c];
  return p;
}

void mirroredPrologue(const KernelContext& k, std::vector<NodePtr>& b) {
  const KernelDesc& d = k.d;
  const int F = k.g.fftsPerBlock;
  const long long m = d.batchCount.at(0), pairs = m / 2 + 1;
  b.push_back(decl("const bool", "upper", bin(">=", var("fl"), lit(F / 2))));
  b.push_back(decl("const long long", "pair",
                   bin("+", bin("/", var("first"), lit(2)),
                       ternary(var("upper"), bin("-", lit(F - 1), var("fl")), var("fl")))));
  b.push_back(
      decl("const long long", "g", bin("+", bin("*", var("pair"), lit(2)), ternary(var("upper"), lit(1), lit(0)))));
  b.push_back(decl("long long", "q", bin("/", var("pair"), lit(pairs))));
  b.push_back(decl("const long long", "r", bin("%", var("pair"), lit(pairs))));
  b.push_back(
      decl("const long long", "d0", ternary(var("upper"), bin("%", bin("-", lit(m), var("r")), lit(m)), var("r"))));
  const auto& c = d.batchCount;
  for (std::size_t t = 1; t < c.size(); ++t) {
    b.push_back(decl("const long long", fmt::format("d{}", t), bin("%", var("q"), lit(c[t]))));
    b.push_back(assign(var("q"), lit(c[t]), "/="));
  }
  b.push_back(decl("const long long", fmt::format("d{}", c.size()), var("q")));
  b.push_back(decl("const bool", "twin",
                   bin("&&", var("upper"),
                       bin("||", bin("==", var("r"), lit(0)), bin("==", bin("*", var("r"), lit(2)), lit(m))))));
  b.push_back(decl("const int", "pbase", bin("*", bin("-", lit(F - 1), var("fl")), lit(k.g.smemStride))));
}

NodePtr mirrorElement(const KernelContext& k, const NodePtr& i) {
  const int n = k.d.length;
  return k.shared("pbase", ternary(bin("==", var("d0"), lit(0)), bin("%", bin("-", lit(n), i), lit(n)),
                                   bin("-", lit(n - 1), i)));
}

NodePtr mirroredTwiddle(const KernelContext& k, const char* table, const NodePtr& i, const NodePtr& d0) {
  return k.cmul(index(var(table), i), index(var(table), bin("+", lit(k.d.length + 1), d0)));
}

std::vector<NodePtr> mirroredMerge(const KernelContext& k) {
  const KernelDesc& d = k.d;
  const int n = d.length, F = k.g.fftsPerBlock, items = F / 2 * n;
  const long long pairs = d.batchCount.at(0) / 2 + 1;
  auto re = [](const char* v) { return member(var(v), "x"); };
  auto im = [](const char* v) { return member(var(v), "y"); };
  std::vector<NodePtr> out{comment(
      "c2r merge in shared memory: Z[k] = (X[k] + conj X[L-k]) + i W^-k (X[k] - conj X[L-k]) and Z[L-k] likewise, "
      "k in the block's first half")};
  for (int it = 0; it * k.NT < items; ++it) {
    std::vector<NodePtr> b{decl("const int", "e", bin("+", var("tid"), lit(it * k.NT)))};
    b.push_back(decl("const int", "fl", bin("/", var("e"), lit(n))));
    b.push_back(decl("const int", "i", bin("%", var("e"), lit(n))));
    b.push_back(
        decl("const long long", "r", bin("%", bin("+", bin("/", var("first"), lit(2)), var("fl")), lit(pairs))));
    b.push_back(decl("const int", "sb", bin("*", var("fl"), lit(k.g.smemStride))));
    b.push_back(decl("const int", "pbase", bin("*", bin("-", lit(F - 1), var("fl")), lit(k.g.smemStride))));
    b.push_back(decl("const int", "mi",
                     ternary(bin("==", var("r"), lit(0)), bin("-", lit(n), var("i")), bin("-", lit(n - 1), var("i")))));
    b.push_back(decl(k.cT, "xa", k.shared("sb", var("i"))));
    b.push_back(decl(k.cT, "xb", k.shared("pbase", var("mi"))));
    b.push_back(decl(k.cT, "w", mirroredTwiddle(k, "load_table", var("i"), var("r"))));
    // W^-(L-k) = -conj(W^-k)
    b.push_back(decl(k.cT, "oa", k.cmul(var("w"), k.mk(bin("-", re("xa"), re("xb")), bin("+", im("xa"), im("xb"))))));
    b.push_back(decl(k.cT, "ob",
                     k.cmul(k.mk(unary("-", re("w")), im("w")),
                            k.mk(bin("-", re("xb"), re("xa")), bin("+", im("xb"), im("xa"))))));
    b.push_back(assign(k.shared("sb", var("i")), k.mk(bin("-", bin("+", re("xa"), re("xb")), im("oa")),
                                                      bin("+", bin("-", im("xa"), im("xb")), re("oa")))));
    b.push_back(assign(k.shared("pbase", var("mi")), k.mk(bin("-", bin("+", re("xb"), re("xa")), im("ob")),
                                                          bin("+", bin("-", im("xb"), im("xa")), re("ob")))));
    out.push_back((it + 1) * k.NT <= items
                      ? block(b)
                      : ifStmt(bin("<", bin("+", var("tid"), lit(it * k.NT)), lit(items)), block(b)));
  }
  return out;
}

}  // namespace warpforge
