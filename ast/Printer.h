#pragma once
// Prints an AST as formatted CUDA C++ (two-space indents, minimal parentheses).
#include <string>

#include "ast/Ast.h"

namespace warpforge::ast {
std::string print(const NodePtr& n);
std::string printExpr(const NodePtr& e);
}  // namespace warpforge::ast
