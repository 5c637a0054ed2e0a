#include "ast/Passes.h"

#include <map>
#include <set>

namespace warpforge::ast {

namespace {

bool evalBinary(const std::string& op, long long a, long long b, long long& out) {
  if (op == "+") out = a + b;
  else if (op == "-") out = a - b;
  else if (op == "*") out = a * b;
  else if (op == "/" && b != 0) out = a / b;
  else if (op == "%" && b != 0) out = a % b;
  else if (op == "<<" && b >= 0 && b < 63) out = a << b;
  else if (op == ">>" && b >= 0 && b < 63) out = a >> b;
  else if (op == "&") out = a & b;
  else if (op == "|") out = a | b;
  else if (op == "^") out = a ^ b;
  else if (op == "==") out = a == b;
  else if (op == "!=") out = a != b;
  else if (op == "<") out = a < b;
  else if (op == "<=") out = a <= b;
  else if (op == ">") out = a > b;
  else if (op == ">=") out = a >= b;
  else if (op == "&&") out = a && b;
  else if (op == "||") out = a || b;
  else return false;
  return true;
}

NodePtr foldOne(const NodePtr& n) {
  if (n->kind == Kind::Binary) {
    const NodePtr &a = n->args[0], &b = n->args[1];
    long long v;
    if (a->kind == Kind::IntLit && b->kind == Kind::IntLit && evalBinary(n->op, a->value, b->value, v)) return lit(v);
    const std::string& op = n->op;
    if ((op == "+" || op == "|" || op == "^" || op == "-" || op == "<<" || op == ">>") && isIntLit(b, 0)) return a;
    if ((op == "+" || op == "|" || op == "^") && isIntLit(a, 0)) return b;
    if (op == "*" && isIntLit(b, 1)) return a;
    if (op == "*" && isIntLit(a, 1)) return b;
    if ((op == "*" || op == "&") && (isIntLit(a, 0) || isIntLit(b, 0))) return lit(0);
    if ((op == "<<" || op == ">>") && isIntLit(a, 0)) return lit(0);
  }
  if (n->kind == Kind::Unary && n->op == "-" && n->args[0]->kind == Kind::IntLit) return lit(-n->args[0]->value);
  if (n->kind == Kind::Ternary && n->args[0]->kind == Kind::IntLit) return n->args[0]->value ? n->args[1] : n->args[2];
  if (n->kind == Kind::If && n->args[0]->kind == Kind::IntLit) {
    if (n->args[0]->value) return n->args[1];
    return n->args.size() > 2 ? n->args[2] : block({});
  }
  return n;
}

bool hasSideEffects(const NodePtr& n) {
  bool effects = false;
  visit(n, [&](const Node& x) {
    effects |= x.kind == Kind::Call || x.kind == Kind::Assign || x.kind == Kind::InlinePtx;
  });
  return effects;
}

}  // namespace

NodePtr foldConstants(const NodePtr& n) { return depthFirst(n, foldOne); }

NodePtr removeDeadCode(const NodePtr& root) {
  NodePtr cur = root;
  while (true) {
    // Every name that is read anywhere (a Var node); declarations do not count.
    std::set<std::string> read;
    visit(cur, [&](const Node& x) {
      if (x.kind == Kind::Var) read.insert(x.name);
    });
    bool changed = false;
    NodePtr next = depthFirst(cur, [&](const NodePtr& n) -> NodePtr {
      if (n->kind != Kind::Block) return n;
      std::vector<NodePtr> kept;
      for (const auto& s : n->args) {
        bool dead = false;
        if (s->kind == Kind::Decl && !read.count(s->name) && (s->args.empty() || !hasSideEffects(s->args[0]))) dead = true;
        if (s->kind == Kind::If && s->args[0]->kind == Kind::IntLit && s->args[0]->value == 0 && s->args.size() == 2) dead = true;
        if (s->kind == Kind::Block && s->args.empty()) dead = true;
        if (dead) changed = true;
        else kept.push_back(s);
      }
      return kept.size() == n->args.size() ? n : n->withArgs(kept);
    });
    cur = next;
    if (!changed) return cur;
  }
}

}  // namespace warpforge::ast
