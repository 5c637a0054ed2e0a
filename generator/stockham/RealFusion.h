#pragma once
// The r2c split and the c2r merge, fused into the kernel of the complex half (N = 2L real points as L complex ones):
//   r2c, on the store: X[k] = (Z[k] + conj Z[L-k]) / 2 - i/2 W_N^k (Z[k] - conj Z[L-k]), k = 0..L (L + 1 outputs);
//   c2r, on the first read: Z[k] = (X[k] + conj X[L-k]) + i W_N^-k (X[k] - conj X[L-k]) from the L + 1 inputs.
// W_N^k comes from the store table (r2c) or the load table (c2r). The split is either an element loop over the
// staged outputs (splitFromShared, in the tilings' store) or, where the geometry fuses it (KernelGeometry::fusedSplit),
// the last radix pass itself, which computes mirrored butterflies together and writes both from registers.
#include <string>
#include <vector>

#include "generator/stockham/AstComplexOps.h"
#include "generator/stockham/KernelContext.h"

namespace warpforge {

// Statements declaring `v`, the split output i of the FFT whose shared elements start at sbase.
void splitFromShared(const KernelContext& k, std::vector<ast::NodePtr>& out);
// Statements declaring `v` and `v_pair`, the paired odd r2c's outputs (Fuse::PairSplit) of this FFT's element i.
void pairSplitFromShared(const KernelContext& k, std::vector<ast::NodePtr>& out);
// The value at shared index base + idx as the first reader sees it: merged (c2r) where `first` and the kernel fuses
// the merge, else the shared element; declared as `name`.
ast::NodePtr mergedRead(const KernelContext& k, std::vector<ast::NodePtr>& stmts, const std::string& base,
                        const ast::NodePtr& idx, const std::string& name, bool first);
// The last pass of an r2c kernel with the split fused (KernelGeometry::fusedSplit).
ast::NodePtr splitPass(KernelContext& k, int p, long long ns);

}  // namespace warpforge
