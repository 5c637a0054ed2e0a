#pragma once
// Rewrite passes over the AST; each does one thing and is tested alone.
#include "ast/Ast.h"

namespace warpforge::ast {

// Folds integer arithmetic on literals and the identities x+0, x*1, x*0,
// x|0, x&0, x<<0, x>>0, and selects the live arm of a ternary/if on a literal.
NodePtr foldConstants(const NodePtr& n);

// Removes declarations of variables nobody reads whose initialiser has no
// side effects, statements `if (0) ...`, and empty blocks. Iterates to a
// fixed point.
NodePtr removeDeadCode(const NodePtr& n);

}  // namespace warpforge::ast
