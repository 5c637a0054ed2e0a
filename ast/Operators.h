#pragma once
// The operators of the CUDA AST, typed: a node holds one of these, never free text. The spelled forms ("+", "+=")
// are parsed once, where an emitter builds a node with the string overloads, so an unknown operator fails at the
// call site that wrote it.
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace warpforge::ast {

enum class UnaryOp : std::uint8_t { Negate, Plus, Not, BitNot, AddressOf, Deref, PreIncrement, PreDecrement };

enum class BinaryOp : std::uint8_t {
  Mul,
  Div,
  Mod,
  Add,
  Sub,
  Shl,
  Shr,
  Less,
  LessEqual,
  Greater,
  GreaterEqual,
  Equal,
  NotEqual,
  BitAnd,
  BitXor,
  BitOr,
  LogicalAnd,
  LogicalOr
};

enum class AssignOp : std::uint8_t { Set, Add, Sub, Mul, Div, Mod, Shl, Shr, BitAnd, BitOr, BitXor };

std::string_view spelling(UnaryOp op);
std::string_view spelling(BinaryOp op);
std::string_view spelling(AssignOp op);

// The operator spelled `text`; std::logic_error names the text where it is not one.
UnaryOp unaryOp(std::string_view text);
BinaryOp binaryOp(std::string_view text);
AssignOp assignOp(std::string_view text);

// The operator of a Unary, Binary or Assign node (none for other kinds).
struct Operator {
  std::variant<std::monostate, UnaryOp, BinaryOp, AssignOp> op;

  std::string_view spelling() const;
  bool is(UnaryOp o) const { return op == decltype(op)(o); }
  bool is(BinaryOp o) const { return op == decltype(op)(o); }
  bool is(AssignOp o) const { return op == decltype(op)(o); }
  BinaryOp binary() const { return std::get<BinaryOp>(op); }
  UnaryOp unary() const { return std::get<UnaryOp>(op); }
  AssignOp assign() const { return std::get<AssignOp>(op); }
  // Compared with its spelling: `n->op == "-"` reads as the text the operator prints as.
  friend bool operator==(const Operator& o, std::string_view text) { return o.spelling() == text; }
};

}  // namespace warpforge::ast
