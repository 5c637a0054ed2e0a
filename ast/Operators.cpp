#include "ast/Operators.h"

#include <array>
#include <stdexcept>

namespace warpforge::ast {

namespace {

constexpr std::array<std::string_view, 8> kUnary = {"-", "+", "!", "~", "&", "*", "++", "--"};
constexpr std::array<std::string_view, 18> kBinary = {"*", "/",  "%",  "+",  "-", "<<", ">>", "<",  "<=",
                                                      ">", ">=", "==", "!=", "&", "^",  "|",  "&&", "||"};
constexpr std::array<std::string_view, 11> kAssign = {"=",   "+=",  "-=", "*=", "/=", "%=",
                                                      "<<=", ">>=", "&=", "|=", "^="};

template <typename Op, std::size_t N>
Op parse(const std::array<std::string_view, N>& table, std::string_view text, const char* what) {
  for (std::size_t i = 0; i < N; ++i)
    if (table[i] == text) return static_cast<Op>(i);
  throw std::logic_error("ast: '" + std::string(text) + "' is not a " + what + " operator");
}

}  // namespace

std::string_view spelling(UnaryOp op) { return kUnary.at(static_cast<std::size_t>(op)); }
std::string_view spelling(BinaryOp op) { return kBinary.at(static_cast<std::size_t>(op)); }
std::string_view spelling(AssignOp op) { return kAssign.at(static_cast<std::size_t>(op)); }

UnaryOp unaryOp(std::string_view text) { return parse<UnaryOp>(kUnary, text, "unary"); }
BinaryOp binaryOp(std::string_view text) { return parse<BinaryOp>(kBinary, text, "binary"); }
AssignOp assignOp(std::string_view text) { return parse<AssignOp>(kAssign, text, "assignment"); }

std::string_view Operator::spelling() const {
  if (auto* u = std::get_if<UnaryOp>(&op)) return ast::spelling(*u);
  if (auto* b = std::get_if<BinaryOp>(&op)) return ast::spelling(*b);
  if (auto* a = std::get_if<AssignOp>(&op)) return ast::spelling(*a);
  return {};
}

}  // namespace warpforge::ast
