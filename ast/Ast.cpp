#include "ast/Ast.h"

namespace warpforge::ast {

namespace {
NodePtr make(Node n) { return std::make_shared<const Node>(std::move(n)); }
}  // namespace

NodePtr Node::withArgs(std::vector<NodePtr> newArgs) const {
  Node copy = *this;
  copy.args = std::move(newArgs);
  return make(std::move(copy));
}

NodePtr lit(long long v) { Node n{Kind::IntLit}; n.value = v; return make(n); }
NodePtr flit(double v) { Node n{Kind::FloatLit}; n.fvalue = v; return make(n); }
NodePtr dlit(double v) { Node n{Kind::FloatLit}; n.fvalue = v; n.type = "double"; return make(n); }
NodePtr var(std::string name) { Node n{Kind::Var}; n.name = std::move(name); return make(n); }
NodePtr unary(std::string op, NodePtr a) { Node n{Kind::Unary, {std::move(a)}}; n.op = std::move(op); return make(n); }
NodePtr bin(std::string op, NodePtr a, NodePtr b) { Node n{Kind::Binary, {std::move(a), std::move(b)}}; n.op = std::move(op); return make(n); }
NodePtr ternary(NodePtr c, NodePtr a, NodePtr b) { return make(Node{Kind::Ternary, {std::move(c), std::move(a), std::move(b)}}); }
NodePtr call(std::string fn, std::vector<NodePtr> args) { Node n{Kind::Call, std::move(args)}; n.name = std::move(fn); return make(n); }
NodePtr index(NodePtr base, NodePtr i) { return make(Node{Kind::Index, {std::move(base), std::move(i)}}); }
NodePtr index(const std::string& base, long long i) { return index(var(base), lit(i)); }
NodePtr member(NodePtr base, std::string field) { Node n{Kind::Member, {std::move(base)}}; n.name = std::move(field); return make(n); }
NodePtr cast(std::string type, NodePtr a) { Node n{Kind::Cast, {std::move(a)}}; n.type = std::move(type); return make(n); }

NodePtr decl(std::string type, std::string name, NodePtr init) {
  Node n{Kind::Decl};
  n.type = std::move(type);
  n.name = std::move(name);
  if (init) n.args.push_back(std::move(init));
  return make(n);
}
NodePtr declArray(std::string type, std::string name, int count) {
  Node n{Kind::Decl};
  n.type = std::move(type);
  n.name = std::move(name);
  n.count = count;
  return make(n);
}
NodePtr assign(NodePtr lhs, NodePtr rhs, std::string op) { Node n{Kind::Assign, {std::move(lhs), std::move(rhs)}}; n.op = std::move(op); return make(n); }
NodePtr exprStmt(NodePtr e) { return make(Node{Kind::ExprStmt, {std::move(e)}}); }
NodePtr block(std::vector<NodePtr> stmts) { return make(Node{Kind::Block, std::move(stmts)}); }
NodePtr ifStmt(NodePtr cond, NodePtr then, NodePtr otherwise) {
  Node n{Kind::If, {std::move(cond), std::move(then)}};
  if (otherwise) n.args.push_back(std::move(otherwise));
  return make(n);
}
NodePtr forLoop(NodePtr init, NodePtr cond, NodePtr step, NodePtr body) {
  return make(Node{Kind::For, {std::move(init), std::move(cond), std::move(step), std::move(body)}});
}
NodePtr comment(std::string text) { Node n{Kind::Comment}; n.name = std::move(text); return make(n); }
NodePtr inlinePtx(std::string tmpl, std::string constraints, std::vector<NodePtr> operands) {
  Node n{Kind::InlinePtx, std::move(operands)};
  n.name = std::move(tmpl);
  n.type = std::move(constraints);
  return make(n);
}
NodePtr function(std::string qualifiers, std::string ret, std::string name, std::vector<NodePtr> params, NodePtr body) {
  params.push_back(std::move(body));
  Node n{Kind::Function, std::move(params)};
  n.attrs = std::move(qualifiers);
  n.type = std::move(ret);
  n.name = std::move(name);
  return make(n);
}
NodePtr raw(std::string line) { Node n{Kind::Raw}; n.name = std::move(line); return make(n); }
NodePtr unit(std::vector<NodePtr> items) { return make(Node{Kind::Unit, std::move(items)}); }

NodePtr depthFirst(const NodePtr& n, const std::function<NodePtr(const NodePtr&)>& f) {
  if (!n) return n;
  std::vector<NodePtr> args;
  args.reserve(n->args.size());
  bool changed = false;
  for (const auto& a : n->args) {
    args.push_back(depthFirst(a, f));
    changed |= args.back() != a;
  }
  return f(changed ? n->withArgs(std::move(args)) : n);
}

void visit(const NodePtr& n, const std::function<void(const Node&)>& f) {
  if (!n) return;
  f(*n);
  for (const auto& a : n->args) visit(a, f);
}

bool isIntLit(const NodePtr& n, long long v) { return n && n->kind == Kind::IntLit && n->value == v; }

}  // namespace warpforge::ast
