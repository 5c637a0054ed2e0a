#pragma once
// A small AST of CUDA C++ in the spirit of rocFFT's generator: every node has
// a kind, a few typed attributes (name / operator / type) and a uniform operand
// list `args`, so a depth-first rewrite can rebuild any node from its kind and
// new operands. Nodes are immutable and shared.
//
// Operators (ast/Operators.h) and types (ast/Type.h) are typed. The builders also
// take them spelled ("+=", "const int"): the text is parsed where the node is
// built, so emitters written against spelled operators and types keep working.
// `raw` is for preprocessor lines (includes, pragmas) only.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ast/Operators.h"
#include "ast/Type.h"

namespace warpforge::ast {

enum class Kind {
  // expressions
  IntLit,    // value, suffix, hexDigits
  FloatLit,  // fvalue; type "double" prints a double literal, else float (suffix f)
  Var,       // name
  Unary,     // op, args[0]
  Binary,    // op, args[0], args[1]
  Ternary,   // args: cond, then, else
  Call,      // name, args
  Index,     // args: base, index
  Member,    // name (field), args[0]
  Cast,      // type, castStyle, args[0]
  Paren,     // args[0] in parentheses the printer would not need (kept as written)
  // statements
  Decl,       // type, name, optional args[0] = initializer; count > 0 for arrays, -1 for `[]`; dims; storage, align
  DeclGroup,  // type; args = Decls (name, initializer) of that one type: "const int a = 1, b = 2;"
  Assign,     // op (=, +=, ...), args: lhs, rhs
  ExprStmt,   // args[0]
  Return,     // optional args[0]
  Block,      // args = statements
  If,         // args: cond, then, [else]; unbraced: `if (c) s;` on one line
  For,        // args: init, cond, step, body; unbraced: `for (...) s;` on one line
  While,      // args: cond, body; unbraced: `while (c) s;` on one line
  Typedef,    // type, name: "typedef unsigned int wf_u32;"
  Comment,    // name = text
  InlinePtx,  // name = template; attrs = constraint per operand "=r,r,r"; args = operands; isVolatile, clobbers
  Function,   // name, type = return type, attrs = qualifiers; args: params (Decl)..., body (Block last)
  Raw,        // name = verbatim line (includes, pragmas)
  Unit,       // args = top-level items
};

enum class IntSuffix : std::uint8_t { None, U, LL, ULL, UpperLL };  // UpperLL: 2147483647LL
enum class CastStyle : std::uint8_t { C, Reinterpret, Static };
enum class StorageClass : std::uint8_t { Auto, Shared, ExternShared };

struct Node;
using NodePtr = std::shared_ptr<const Node>;

struct Node {
  Kind kind;
  std::vector<NodePtr> args;
  std::string name;   // variable / function / field / comment text / asm template
  Operator op;        // Unary, Binary, Assign
  Type type;          // declared type, cast type, return type
  std::string attrs;  // function qualifiers ("extern \"C\" __global__", "__launch_bounds__(128)"); asm constraints
  long long value = 0;
  double fvalue = 0;
  IntSuffix suffix = IntSuffix::None;
  int hexDigits = -1;  // IntLit: -1 decimal up to 0xFFFF and hex above; 0 decimal; n > 0 hex of at least n digits
  bool keep = false;   // IntLit: foldConstants leaves it as written (`p + 0`, `r * 1` stay)
  int count = 0;       // array length for Decl (0 = scalar, -1 = unsized `[]`)
  std::vector<NodePtr> dims;  // Decl: array extents as expressions, `[a][2 * b]` (after count); not rewritten
  StorageClass storage = StorageClass::Auto;
  int align = 0;  // Decl: __align__(align) when > 0
  CastStyle castStyle = CastStyle::C;
  bool unbraced = false;       // If / For / While: one statement, or a block `{ a; b; }`, on the same line
  bool elseOnNewLine = false;  // unbraced If: `else` starts the next line (an if / else-if / else chain)
  bool isVolatile = false;     // InlinePtx: asm volatile
  std::string clobbers;        // InlinePtx: "memory"
  std::string note;            // a comment at the end of a one-line statement: `return;  // note`
  int noteGap = 2;             // spaces between the statement and its note

  // Same node with new operands (for rewrites).
  NodePtr withArgs(std::vector<NodePtr> newArgs) const;
};

// Builders: terse and readable at the call site.
NodePtr lit(long long v, IntSuffix suffix = IntSuffix::None);
NodePtr ulit(long long v);                                                    // 30u, 0xffffffffu
NodePtr decimal(long long v, IntSuffix suffix = IntSuffix::None);             // 70000 (lit prints 0x11170)
NodePtr hexLit(long long v, int digits, IntSuffix suffix = IntSuffix::None);  // 0x1100, 0x0f0f0f0fu
NodePtr keptLit(long long v);  // decimal, and kept by foldConstants: `wf_smem + 0` prints as written
NodePtr flit(double v);
NodePtr dlit(double v);  // double-precision literal
NodePtr var(std::string name);
NodePtr unary(UnaryOp op, NodePtr a);
NodePtr unary(std::string_view op, NodePtr a);
NodePtr bin(BinaryOp op, NodePtr a, NodePtr b);
NodePtr bin(std::string_view op, NodePtr a, NodePtr b);
NodePtr ternary(NodePtr c, NodePtr a, NodePtr b);
NodePtr call(std::string fn, std::vector<NodePtr> args);
NodePtr index(NodePtr base, NodePtr i);
NodePtr index(const std::string& base, long long i);
NodePtr member(NodePtr base, std::string field);
NodePtr cast(const Type& type, NodePtr a);             // (T)a
NodePtr reinterpretCast(const Type& type, NodePtr a);  // reinterpret_cast<T>(a)
NodePtr paren(NodePtr a);

NodePtr decl(const Type& type, std::string name, NodePtr init = nullptr);
NodePtr declArray(const Type& type, std::string name, int count);
NodePtr declGroup(const Type& type, std::vector<std::pair<std::string, NodePtr>> declarators);
NodePtr sharedArray(const Type& type, std::string name, int count,
                    int align = 0);  // __shared__ [__align__(a)] T name[count]
NodePtr externSharedArray(const Type& type, std::string name, int align = 0);  // extern __shared__ ... T name[]
// __shared__ [__align__(a)] T name[d0][d1]...: extents as expressions, printed as written (`[4][2 * 256]`).
NodePtr sharedArray(const Type& type, std::string name, std::vector<NodePtr> dims, int align = 0);
NodePtr assign(NodePtr lhs, NodePtr rhs, AssignOp op = AssignOp::Set);
NodePtr assign(NodePtr lhs, NodePtr rhs, std::string_view op);
NodePtr exprStmt(NodePtr e);
NodePtr ret(NodePtr value = nullptr);
NodePtr block(std::vector<NodePtr> stmts);
NodePtr ifStmt(NodePtr cond, NodePtr then, NodePtr otherwise = nullptr);
// One line: `if (c) s;`, `if (c) { a; b; }` (then a block), `if (c) s; else t;`.
NodePtr ifUnbraced(NodePtr cond, NodePtr then, NodePtr otherwise = nullptr);
// if / else-if / else, a line each: `if (c0) { ... }` / `else if (c1) { ... }` / `else { ... }`.
NodePtr ifChain(std::vector<std::pair<NodePtr, NodePtr>> branches, NodePtr otherwise = nullptr);
NodePtr forLoop(NodePtr init, NodePtr cond, NodePtr step, NodePtr body);
NodePtr forUnbraced(NodePtr init, NodePtr cond, NodePtr step, NodePtr stmt);  // for (...) s; or for (...) { a; b; }
NodePtr whileLoop(NodePtr cond, NodePtr body);
NodePtr whileUnbraced(NodePtr cond, NodePtr stmt);      // while (c) s;
NodePtr typeAlias(const Type& type, std::string name);  // typedef T name;
NodePtr comment(std::string text);
NodePtr withNote(NodePtr stmt, std::string note, int gap = 2);  // stmt;  // note (gap spaces before the //)
NodePtr inlinePtx(std::string tmpl, std::string constraints, std::vector<NodePtr> operands);
// asm volatile("tmpl" :: inputs : "clobbers"): an instruction the compiler may not move or drop.
NodePtr asmVolatile(std::string tmpl, std::string constraints, std::vector<NodePtr> operands,
                    std::string clobbers = "memory");
NodePtr function(std::string qualifiers, const Type& ret, std::string name, std::vector<NodePtr> params, NodePtr body);
NodePtr raw(std::string line);
NodePtr unit(std::vector<NodePtr> items);

// Depth-first rewrite: operands first, then `f` on the rebuilt node.
NodePtr depthFirst(const NodePtr& n, const std::function<NodePtr(const NodePtr&)>& f);

// Visits every node (pre-order).
void visit(const NodePtr& n, const std::function<void(const Node&)>& f);

bool isIntLit(const NodePtr& n, long long v);

}  // namespace warpforge::ast
