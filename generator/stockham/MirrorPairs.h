#pragma once
// Mirrored FFT pairs: the r2c split or the c2r merge of a complex half too long for one kernel, fused into the kernel
// of the half's two-kernel plan whose FFTs hold the outputs (r2c: the row kernel, FFT k1 = outputs k1 + n1 k2) or the
// inputs (c2r: the column kernel, FFT j2 = inputs j1 n2 + j2); with FFTs of length 1 the same kernel is a split or
// merge pass of its own over any half (Bluestein halves past one kernel).
//
// Element k of the half needs element L - k. With FFT r of digit 0 (m FFTs, KernelDesc::mirrored) holding the
// elements k = i * e + r (element stride e, L = n * e, n the kernel's length), L - k is element n - 1 - i of FFT
// m - r, or element (n - i) mod n of FFT 0 itself where r = 0 (element n of FFT 0 is the half's element L). A block
// holds F/2 FFTs r = p .. p + F/2 - 1 in its first half and their mirrors in its second half, FFT f of the block
// mirroring F - 1 - f, so that each half is a run of consecutive FFTs (a column tile's rows stay runs in memory).
// The kernel's `ffts` counts 2 (m / 2 + 1) FFTs per value of the other digits: the pairs r = 0 .. m / 2, their
// mirrors second; a self-mirrored FFT (r = 0, and r = m / 2 for even m) is held twice and stored once (`twin`).
//
// The split and the merge take W_N^k, k = i e + r, as the product table[i] table[n + 1 + r]: table[i] = W_N^(i e)
// (i = 0..n) and table[n + 1 + r] = W_N^r (r < m), n + m + 1 entries in place of L + 1.
#include <vector>

#include "generator/stockham/KernelContext.h"

namespace warpforge {

// FFTs per user batch entry of a mirrored kernel whose digit counts are `counts` (digit 0 the mirrored one).
long long mirroredFftsPerBatch(const std::vector<long long>& counts);

// Statements naming FFT fl of the block (`fl`, `first` declared): upper (the block's second half), pair, g (the FFT's
// place in `ffts`: g < ffts for live pairs), the digits d0.., twin, and pbase (the mirror FFT's start in shared
// memory).
void mirroredPrologue(const KernelContext& k, std::vector<ast::NodePtr>& b);
// Where the mirror of element i of the FFT at sbase lies in shared memory (prologue names in scope).
ast::NodePtr mirrorElement(const KernelContext& k, const ast::NodePtr& i);
// W_N^(+-k) of element i of the FFT with digit d0 from the kernel's table (`table`: "load_table" / "store_table").
ast::NodePtr mirroredTwiddle(const KernelContext& k, const char* table, const ast::NodePtr& i, const ast::NodePtr& d0);
// The c2r merge of the block's pairs in shared memory, after the load and before the passes: each item (a lower
// FFT's element i) computes Z[k] and Z[L - k] from X[k] and X[L - k] and writes both in place.
std::vector<ast::NodePtr> mirroredMerge(const KernelContext& k);

}  // namespace warpforge
