#pragma once
// Real planes: the inner axes of a 2D/3D r2c / c2r whose plane fits one block, transformed by one kernel
// (Fuse::PlaneSplit, Fuse::PlaneMerge). The kernel is a fused plane (FusedPlanes.h) of the complex FFT Z the real
// transform runs as: its fastest axis is M = N/2 over the real rows read as pairs (even N = 2L) or N over the real rows
// read as (x, 0) (odd N), its other axes the plane's outer axes. Z and the half spectrum X relate row by row, each row
// r with its mirror -r (every outer index negated mod its length), as the 1D split and merge relate them:
//   even N, r2c store: X[r, k] = (Z[r, k] + conj Z[-r, L-k]) / 2 - i/2 W_N^k (Z[r, k] - conj Z[-r, L-k]), k = 0..L;
//   even N, c2r load:  Z[r, k] = (X[r, k] + conj X[-r, L-k]) + i W_N^-k (X[r, k] - conj X[-r, L-k]), k < L;
//   odd N: r2c stores X[r, k] = Z[r, k] for k <= N/2; c2r reads X[r, k] for k <= N/2, conj X[-r, N-k] above, and
//   stores the real parts.
// One kernel reads and writes each plane once, where the two-kernel form (the real axis, then the outer axes c2c)
// moves the complex half twice more. The c2r load reads each element and its mirror from global memory (the mirror
// is in the same plane, so the second read mostly hits L1).
#include <string>
#include <vector>

#include "ast/Ast.h"
#include "generator/stockham/KernelContext.h"

namespace warpforge {

struct StockhamSpec;

// How many inner axes of a 2D/3D r2c / c2r one kernel takes as a real plane: the most (2 or more) whose plane of Z
// (the outer axes times M) holds at most one kernel's length, each a smooth length, the rows dense with unit innermost
// stride on both sides (the real rows of N, the complex rows of N/2 + 1), N at least 3 and even (odd N only where
// tuning fuse_axes is true). 0: none (one kernel for the real axis, one per outer axis). Tuning fuse_axes false, a
// real_split other than "fused", in-place transforms, non-native inputs and explicit factors turn it off. maxPlane >
// 0: an upper bound on the plane (the arch's one-kernel length, maxOneKernelLength).
int fusedRealAxes(const StockhamSpec& s, int maxPlane = 0);

// Rows of the plane (the product of its outer axes) and the complex side's row length N/2 + 1.
int planeRows(const KernelDesc& d);
int planeHalfRow(const KernelDesc& d);

// Statements assigning the declared `v`: element i (row-major in Z) of this thread's plane as the c2r load reads it,
// merged (even N) or mirrored (odd N), from the input at `abase`.
void planeMergeLoad(const KernelContext& k, std::vector<ast::NodePtr>& out);
// Statements declaring `v`: r2c output i (row-major over rows of N/2 + 1) of the plane whose Z starts at `sbase`.
void planeSplitStore(const KernelContext& k, std::vector<ast::NodePtr>& out);
// The kernel header's line about the real plane ("" for other kernels).
std::string realPlaneNote(const KernelDesc& d);

}  // namespace warpforge
