#pragma once
// Complex arithmetic over AST expressions for DftBuilder (Butterfly.h): every
// operation that computes something declares `const float vNr/vNi` temporaries
// (straight-line SSA the compiler schedules freely); negation and i*v only
// rearrange expressions.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "ast/Ast.h"

namespace warpforge::ast {

struct AstComplexOps {
  struct C {
    NodePtr re, im;
    bool zero = false;  // known to be exactly 0 (zero padding): add/sub/multiply fold it away
  };
  C zero() const { return {num(0), num(0), true}; }
  std::vector<NodePtr>& out;
  bool f64;
  int counter = 0;

  NodePtr num(double v) const { return f64 ? dlit(v) : flit(v); }
  static NodePtr negate(const NodePtr& e) {
    if (e->kind == Kind::Unary && e->op == "-") return e->args[0];
    return unary("-", e);
  }
  // a + b, turning a + (-x) into a - x.
  static NodePtr plus(const NodePtr& a, const NodePtr& b) {
    if (b->kind == Kind::Unary && b->op == "-") return bin("-", a, b->args[0]);
    return bin("+", a, b);
  }
  static NodePtr minus(const NodePtr& a, const NodePtr& b) {
    if (b->kind == Kind::Unary && b->op == "-") return bin("+", a, b->args[0]);
    return bin("-", a, b);
  }
  C fresh(NodePtr re, NodePtr im) {
    std::string n = fmt::format("v{}", counter++);
    std::string t = f64 ? "const double" : "const float";
    out.push_back(decl(t, n + "r", std::move(re)));
    out.push_back(decl(t, n + "i", std::move(im)));
    return {var(n + "r"), var(n + "i")};
  }
  C add(const C& a, const C& b) {
    if (a.zero) return b;
    if (b.zero) return a;
    return fresh(plus(a.re, b.re), plus(a.im, b.im));
  }
  C sub(const C& a, const C& b) {
    if (b.zero) return a;
    if (a.zero) return neg(b);
    return fresh(minus(a.re, b.re), minus(a.im, b.im));
  }
  C neg(const C& a) { return a.zero ? a : C{negate(a.re), negate(a.im)}; }
  C mulI(const C& a) { return a.zero ? a : C{negate(a.im), a.re}; }
  C scale(const C& a, double s) {
    if (s == 1 || a.zero) return a;
    if (s == -1) return neg(a);
    return fresh(bin("*", num(s), a.re), bin("*", num(s), a.im));
  }
  C mulConst(const C& a, double cr, double ci) {
    if (a.zero) return a;
    return fresh(minus(bin("*", num(cr), a.re), bin("*", num(ci), a.im)),
                 plus(bin("*", num(cr), a.im), bin("*", num(ci), a.re)));
  }
};

}  // namespace warpforge::ast
