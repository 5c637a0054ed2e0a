#include "ast/Ast.h"

#include <stdexcept>

namespace warpforge::ast {

namespace {
NodePtr make(Node n) { return std::make_shared<const Node>(std::move(n)); }
}  // namespace

NodePtr Node::withArgs(std::vector<NodePtr> newArgs) const {
  Node copy = *this;
  copy.args = std::move(newArgs);
  return make(std::move(copy));
}

NodePtr lit(long long v, IntSuffix suffix) {
  Node n{Kind::IntLit};
  n.value = v;
  n.suffix = suffix;
  return make(n);
}
NodePtr keptLit(long long v) {
  Node n{Kind::IntLit};
  n.value = v;
  n.hexDigits = 0;
  n.keep = true;
  return make(n);
}
NodePtr ulit(long long v) { return lit(v, IntSuffix::U); }
NodePtr decimal(long long v, IntSuffix suffix) {
  Node n{Kind::IntLit};
  n.value = v;
  n.hexDigits = 0;
  n.suffix = suffix;
  return make(n);
}
NodePtr hexLit(long long v, int digits, IntSuffix suffix) {
  Node n{Kind::IntLit};
  n.value = v;
  n.suffix = suffix;
  n.hexDigits = digits < 1 ? 1 : digits;
  return make(n);
}
NodePtr flit(double v) {
  Node n{Kind::FloatLit};
  n.fvalue = v;
  return make(n);
}
NodePtr dlit(double v) {
  Node n{Kind::FloatLit};
  n.fvalue = v;
  n.type = Type("double");
  return make(n);
}
NodePtr var(std::string name) {
  Node n{Kind::Var};
  n.name = std::move(name);
  return make(n);
}
NodePtr unary(UnaryOp op, NodePtr a) {
  Node n{Kind::Unary, {std::move(a)}};
  n.op.op = op;
  return make(n);
}
NodePtr unary(std::string_view op, NodePtr a) { return unary(unaryOp(op), std::move(a)); }
NodePtr bin(BinaryOp op, NodePtr a, NodePtr b) {
  Node n{Kind::Binary, {std::move(a), std::move(b)}};
  n.op.op = op;
  return make(n);
}
NodePtr bin(std::string_view op, NodePtr a, NodePtr b) { return bin(binaryOp(op), std::move(a), std::move(b)); }
NodePtr ternary(NodePtr c, NodePtr a, NodePtr b) {
  return make(Node{Kind::Ternary, {std::move(c), std::move(a), std::move(b)}});
}
NodePtr call(std::string fn, std::vector<NodePtr> args) {
  Node n{Kind::Call, std::move(args)};
  n.name = std::move(fn);
  return make(n);
}
NodePtr index(NodePtr base, NodePtr i) { return make(Node{Kind::Index, {std::move(base), std::move(i)}}); }
NodePtr index(const std::string& base, long long i) { return index(var(base), lit(i)); }
NodePtr member(NodePtr base, std::string field) {
  Node n{Kind::Member, {std::move(base)}};
  n.name = std::move(field);
  return make(n);
}
NodePtr cast(const Type& type, NodePtr a) {
  Node n{Kind::Cast, {std::move(a)}};
  n.type = type;
  return make(n);
}
NodePtr reinterpretCast(const Type& type, NodePtr a) {
  Node n{Kind::Cast, {std::move(a)}};
  n.type = type;
  n.castStyle = CastStyle::Reinterpret;
  return make(n);
}
NodePtr paren(NodePtr a) { return make(Node{Kind::Paren, {std::move(a)}}); }

NodePtr decl(const Type& type, std::string name, NodePtr init) {
  Node n{Kind::Decl};
  n.type = type;
  n.name = std::move(name);
  if (init) n.args.push_back(std::move(init));
  return make(n);
}
NodePtr declArray(const Type& type, std::string name, int count) {
  Node n{Kind::Decl};
  n.type = type;
  n.name = std::move(name);
  n.count = count;
  return make(n);
}
NodePtr declGroup(const Type& type, std::vector<std::pair<std::string, NodePtr>> declarators) {
  if (declarators.empty()) throw std::logic_error("ast: a declaration group declares at least one name");
  Node n{Kind::DeclGroup};
  n.type = type;
  for (auto& [name, init] : declarators) n.args.push_back(decl(type, std::move(name), std::move(init)));
  return make(n);
}
NodePtr sharedArray(const Type& type, std::string name, int count, int align) {
  Node n{Kind::Decl};
  n.type = type;
  n.name = std::move(name);
  n.count = count;
  n.storage = StorageClass::Shared;
  n.align = align;
  return make(n);
}
NodePtr externSharedArray(const Type& type, std::string name, int align) {
  Node n{Kind::Decl};
  n.type = type;
  n.name = std::move(name);
  n.count = -1;
  n.storage = StorageClass::ExternShared;
  n.align = align;
  return make(n);
}
NodePtr sharedArray(const Type& type, std::string name, std::vector<NodePtr> dims, int align) {
  if (dims.empty()) throw std::logic_error("ast: a shared array has at least one extent");
  Node n{Kind::Decl};
  n.type = type;
  n.name = std::move(name);
  n.dims = std::move(dims);
  n.storage = StorageClass::Shared;
  n.align = align;
  return make(n);
}
NodePtr assign(NodePtr lhs, NodePtr rhs, AssignOp op) {
  Node n{Kind::Assign, {std::move(lhs), std::move(rhs)}};
  n.op.op = op;
  return make(n);
}
NodePtr assign(NodePtr lhs, NodePtr rhs, std::string_view op) {
  return assign(std::move(lhs), std::move(rhs), assignOp(op));
}
NodePtr exprStmt(NodePtr e) { return make(Node{Kind::ExprStmt, {std::move(e)}}); }
NodePtr ret(NodePtr value) {
  Node n{Kind::Return};
  if (value) n.args.push_back(std::move(value));
  return make(n);
}
NodePtr block(std::vector<NodePtr> stmts) { return make(Node{Kind::Block, std::move(stmts)}); }
NodePtr ifStmt(NodePtr cond, NodePtr then, NodePtr otherwise) {
  Node n{Kind::If, {std::move(cond), std::move(then)}};
  if (otherwise) n.args.push_back(std::move(otherwise));
  return make(n);
}
NodePtr ifUnbraced(NodePtr cond, NodePtr then, NodePtr otherwise) {
  Node n{Kind::If, {std::move(cond), std::move(then)}};
  if (otherwise) n.args.push_back(std::move(otherwise));
  n.unbraced = true;
  return make(n);
}
NodePtr ifChain(std::vector<std::pair<NodePtr, NodePtr>> branches, NodePtr otherwise) {
  if (branches.empty()) throw std::logic_error("ast: an if chain has at least one condition");
  NodePtr tail = std::move(otherwise);
  for (auto it = branches.rbegin(); it != branches.rend(); ++it) {
    Node n{Kind::If, {std::move(it->first), std::move(it->second)}};
    if (tail) n.args.push_back(std::move(tail));
    n.unbraced = true;
    n.elseOnNewLine = true;
    tail = make(n);
  }
  return tail;
}
NodePtr forLoop(NodePtr init, NodePtr cond, NodePtr step, NodePtr body) {
  return make(Node{Kind::For, {std::move(init), std::move(cond), std::move(step), std::move(body)}});
}
NodePtr forUnbraced(NodePtr init, NodePtr cond, NodePtr step, NodePtr stmt) {
  Node n{Kind::For, {std::move(init), std::move(cond), std::move(step), std::move(stmt)}};
  n.unbraced = true;
  return make(n);
}
NodePtr whileLoop(NodePtr cond, NodePtr body) { return make(Node{Kind::While, {std::move(cond), std::move(body)}}); }
NodePtr whileUnbraced(NodePtr cond, NodePtr stmt) {
  Node n{Kind::While, {std::move(cond), std::move(stmt)}};
  n.unbraced = true;
  return make(n);
}
NodePtr typeAlias(const Type& type, std::string name) {
  Node n{Kind::Typedef};
  n.type = type;
  n.name = std::move(name);
  return make(n);
}
NodePtr comment(std::string text) {
  Node n{Kind::Comment};
  n.name = std::move(text);
  return make(n);
}
NodePtr withNote(NodePtr stmt, std::string note, int gap) {
  Node n = *stmt;
  n.note = std::move(note);
  n.noteGap = gap;
  return make(std::move(n));
}
NodePtr inlinePtx(std::string tmpl, std::string constraints, std::vector<NodePtr> operands) {
  Node n{Kind::InlinePtx, std::move(operands)};
  n.name = std::move(tmpl);
  n.attrs = std::move(constraints);
  return make(n);
}
NodePtr asmVolatile(std::string tmpl, std::string constraints, std::vector<NodePtr> operands, std::string clobbers) {
  Node n{Kind::InlinePtx, std::move(operands)};
  n.name = std::move(tmpl);
  n.attrs = std::move(constraints);
  n.isVolatile = true;
  n.clobbers = std::move(clobbers);
  return make(n);
}
NodePtr function(std::string qualifiers, const Type& ret, std::string name, std::vector<NodePtr> params, NodePtr body) {
  params.push_back(std::move(body));
  Node n{Kind::Function, std::move(params)};
  n.attrs = std::move(qualifiers);
  n.type = ret;
  n.name = std::move(name);
  return make(n);
}
NodePtr raw(std::string line) {
  Node n{Kind::Raw};
  n.name = std::move(line);
  return make(n);
}
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
