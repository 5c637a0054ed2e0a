#include "ast/Passes.h"

#include <set>

namespace warpforge::ast {

namespace {

bool evalBinary(BinaryOp op, long long a, long long b, long long& out) {
  switch (op) {
    case BinaryOp::Add: out = a + b; return true;
    case BinaryOp::Sub: out = a - b; return true;
    case BinaryOp::Mul: out = a * b; return true;
    case BinaryOp::Div: out = b != 0 ? a / b : 0; return b != 0;
    case BinaryOp::Mod: out = b != 0 ? a % b : 0; return b != 0;
    case BinaryOp::Shl: out = b >= 0 && b < 63 ? a << b : 0; return b >= 0 && b < 63;
    case BinaryOp::Shr: out = b >= 0 && b < 63 ? a >> b : 0; return b >= 0 && b < 63;
    case BinaryOp::BitAnd: out = a & b; return true;
    case BinaryOp::BitOr: out = a | b; return true;
    case BinaryOp::BitXor: out = a ^ b; return true;
    case BinaryOp::Equal: out = a == b; return true;
    case BinaryOp::NotEqual: out = a != b; return true;
    case BinaryOp::Less: out = a < b; return true;
    case BinaryOp::LessEqual: out = a <= b; return true;
    case BinaryOp::Greater: out = a > b; return true;
    case BinaryOp::GreaterEqual: out = a >= b; return true;
    case BinaryOp::LogicalAnd: out = a && b; return true;
    case BinaryOp::LogicalOr: out = a || b; return true;
  }
  return false;
}

// A literal written in its default spelling (no suffix, no fixed hex width): folding it keeps the text honest.
bool plainLit(const NodePtr& n) {
  return n->kind == Kind::IntLit && n->suffix == IntSuffix::None && n->hexDigits < 0 && !n->keep;
}
// A literal the identities below may drop: not one made by keptLit.
bool foldable(const NodePtr& n, long long v) { return isIntLit(n, v) && !n->keep; }

NodePtr foldOne(const NodePtr& n) {
  if (n->kind == Kind::Binary) {
    const NodePtr &a = n->args[0], &b = n->args[1];
    const BinaryOp op = n->op.binary();
    long long v;
    if (plainLit(a) && plainLit(b) && evalBinary(op, a->value, b->value, v)) return lit(v);
    using B = BinaryOp;
    if ((op == B::Add || op == B::BitOr || op == B::BitXor || op == B::Sub || op == B::Shl || op == B::Shr) &&
        foldable(b, 0))
      return a;
    if ((op == B::Add || op == B::BitOr || op == B::BitXor) && foldable(a, 0)) return b;
    if (op == B::Mul && foldable(b, 1)) return a;
    if (op == B::Mul && foldable(a, 1)) return b;
    if ((op == B::Mul || op == B::BitAnd) && (foldable(a, 0) || foldable(b, 0))) return lit(0);
    if ((op == B::Shl || op == B::Shr) && foldable(a, 0)) return lit(0);
  }
  if (n->kind == Kind::Unary && n->op.is(UnaryOp::Negate) && plainLit(n->args[0])) return lit(-n->args[0]->value);
  if (n->kind == Kind::Ternary && n->args[0]->kind == Kind::IntLit) return n->args[0]->value ? n->args[1] : n->args[2];
  if (n->kind == Kind::If && n->args[0]->kind == Kind::IntLit) {
    if (n->args[0]->value) return n->args[1];
    return n->args.size() > 2 ? n->args[2] : block({});
  }
  return n;
}

bool hasSideEffects(const NodePtr& n) {
  bool effects = false;
  visit(n,
        [&](const Node& x) { effects |= x.kind == Kind::Call || x.kind == Kind::Assign || x.kind == Kind::InlinePtx; });
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
        if (s->kind == Kind::Decl && !read.count(s->name) && (s->args.empty() || !hasSideEffects(s->args[0])))
          dead = true;
        if (s->kind == Kind::If && s->args[0]->kind == Kind::IntLit && s->args[0]->value == 0 && s->args.size() == 2)
          dead = true;
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
