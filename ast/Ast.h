#pragma once
// A small AST of CUDA C++ in the spirit of rocFFT's generator: every node has
// a kind, a few attributes (name / operator / type) and a uniform operand list
// `args`, so a depth-first rewrite can rebuild any node from its kind and new
// operands. Nodes are immutable and shared.
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace warpforge::ast {

enum class Kind {
  // expressions
  IntLit,     // value
  FloatLit,   // fvalue; type "double" prints a double literal, else float (suffix f)
  Var,        // name
  Unary,      // op, args[0]
  Binary,     // op, args[0], args[1]
  Ternary,    // args: cond, then, else
  Call,       // name, args
  Index,      // args: base, index
  Member,     // name (field), args[0]
  Cast,       // type, args[0]
  // statements
  Decl,       // type, name, optional args[0] = initializer; count > 0 for arrays
  Assign,     // op ("=", "+=", ...), args: lhs, rhs
  ExprStmt,   // args[0]
  Block,      // args = statements
  If,         // args: cond, then, [else]
  For,        // args: init, cond, step, body
  Comment,    // name = text
  InlinePtx,  // name = template; type = constraint string per operand "=r,r,r"; args = operands
  Function,   // name, type = return type, attrs = qualifiers; args: params (Decl)..., body (Block last)
  Raw,        // name = verbatim line (includes, pragmas)
  Unit,       // args = top-level items
};

struct Node;
using NodePtr = std::shared_ptr<const Node>;

struct Node {
  Kind kind;
  std::vector<NodePtr> args;
  std::string name;   // variable / function / field / comment text / asm template
  std::string op;     // operator for Unary/Binary/Assign
  std::string type;   // declared type, cast type, return type, asm constraints
  std::string attrs;  // qualifiers: "extern \"C\" __global__", "__launch_bounds__(128)"
  long long value = 0;
  double fvalue = 0;
  int count = 0;      // array length for Decl (0 = scalar)

  // Same node with new operands (for rewrites).
  NodePtr withArgs(std::vector<NodePtr> newArgs) const;
};

// Builders: terse and readable at the call site.
NodePtr lit(long long v);
NodePtr flit(double v);
NodePtr dlit(double v);  // double-precision literal
NodePtr var(std::string name);
NodePtr unary(std::string op, NodePtr a);
NodePtr bin(std::string op, NodePtr a, NodePtr b);
NodePtr ternary(NodePtr c, NodePtr a, NodePtr b);
NodePtr call(std::string fn, std::vector<NodePtr> args);
NodePtr index(NodePtr base, NodePtr i);
NodePtr index(const std::string& base, long long i);
NodePtr member(NodePtr base, std::string field);
NodePtr cast(std::string type, NodePtr a);

NodePtr decl(std::string type, std::string name, NodePtr init = nullptr);
NodePtr declArray(std::string type, std::string name, int count);
NodePtr assign(NodePtr lhs, NodePtr rhs, std::string op = "=");
NodePtr exprStmt(NodePtr e);
NodePtr block(std::vector<NodePtr> stmts);
NodePtr ifStmt(NodePtr cond, NodePtr then, NodePtr otherwise = nullptr);
NodePtr forLoop(NodePtr init, NodePtr cond, NodePtr step, NodePtr body);
NodePtr comment(std::string text);
NodePtr inlinePtx(std::string tmpl, std::string constraints, std::vector<NodePtr> operands);
NodePtr function(std::string qualifiers, std::string ret, std::string name, std::vector<NodePtr> params, NodePtr body);
NodePtr raw(std::string line);
NodePtr unit(std::vector<NodePtr> items);

// Depth-first rewrite: operands first, then `f` on the rebuilt node.
NodePtr depthFirst(const NodePtr& n, const std::function<NodePtr(const NodePtr&)>& f);

// Visits every node (pre-order).
void visit(const NodePtr& n, const std::function<void(const Node&)>& f);

bool isIntLit(const NodePtr& n, long long v);

}  // namespace warpforge::ast
