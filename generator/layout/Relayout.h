#pragma once
// Relayout synthesis: the cheapest sequence of data-movement primitives that
// turns one layout into another (App. A of the CHIME note):
//   local transpose  b <-> r   two __byte_perm per register pair
//   warp transpose   t <-> r   one __shfl_xor_sync per register pair
//   lane permutation t <-> t   one __shfl_sync per register
//   register rename  r <-> r   free (a naming choice of the code)
#include <string>
#include <vector>

#include "generator/layout/Layout.h"

namespace warpforge {

struct MoveOp {
  enum Kind { LocalTranspose, WarpTranspose, LanePermutation } kind;
  PhysBit x, y;               // the swapped bits (Local/Warp)
  std::vector<int> lanePerm;  // LanePermutation: new t_k takes old t_{lanePerm[k]}
  int byteperms = 0, shuffles = 0;
  std::string str() const;
};

struct RelayoutPlan {
  std::vector<MoveOp> ops;
  Layout reached;  // equals the target up to register order
  // rename[i] = the register bit of `reached` that becomes register bit r_i
  // of the target (a free renaming of registers).
  std::vector<int> rename;
  int byteperms = 0, shuffles = 0;
  double smCycles = 0;  // eq. 30 costs: byte_perm 0.5, shuffle 2
};

struct CostTable {
  double mmaK8 = 2, mmaK16 = 4, hfma2 = 0.5, shuffle = 2, bytePerm = 0.5;
};

// Throws LayoutError when `to` is not a physical permutation of `from`.
RelayoutPlan synthesizeRelayout(const Layout& from, const Layout& to, const CostTable& costs = {});

}  // namespace warpforge
