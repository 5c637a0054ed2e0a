#pragma once
// Loading one staged 32-bit word of a beamformer operand (samples or weights) from global memory: every input type
// and layout (interleaved / planar, ci4 / ci8 / cf16), two receivers per load where the strides allow it.
#include <string>
#include <vector>

#include "ast/Ast.h"
#include "generator/beamformer/BeamformerLayouts.h"

namespace warpforge {

// Two receivers per 32-bit load where the operand allows it (interleaved 8-bit or ci4, receiver stride 1, every other
// stride even).
bool bfVectorOk(const BfOperand& o);

// The statements that load the staged word of operand `o` for row element index `idx` (receiver k) into `dst`.
std::vector<ast::NodePtr> bfLoadWord(const BfKernelContext& x, const BfOperand& o, const std::string& pa,
                                     const std::string& pb, const ast::NodePtr& idx, const ast::NodePtr& k,
                                     const ast::NodePtr& validRow, const std::string& dst, bool clamp8);

}  // namespace warpforge
