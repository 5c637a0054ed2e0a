#pragma once
// Fused planes: the inner axes of a 2D/3D transform whose plane fits one block, transformed by one kernel as one FFT
// (KernelDesc::axes). The load puts element (i_0, .., i_{D-1}) of the row-major plane at its digit-reversed shared
// index, the fastest axis as the top digit; each axis's passes then take that axis's twiddles alone (Twiddles.h
// passTwiddled / twiddleTable), and the passes leave the plane's D-dimensional DFT in row-major order, so the store
// is a plain 1D store. One kernel reads and writes the plane once where a kernel per axis moves it once per axis.
#include <string>

#include "ast/Ast.h"
#include "generator/stockham/KernelDesc.h"

namespace warpforge {

struct StockhamSpec;

// How many inner axes of a 2D/3D c2c transform (the plan's first kernel) one kernel takes together: the most whose
// plane holds at most one kernel's length, each axis a smooth length, laid out densely (row-major) in the input and
// the output, so that the plane is one run per FFT. 1: one kernel per axis.
int fusedInnerAxes(const StockhamSpec& s);

class FusedPlanes {
 public:
  explicit FusedPlanes(const KernelDesc& d) : d_(d) {}
  bool active() const { return d_.axes.size() > 1; }
  // The shared index the load gives element i of the row-major plane: sum_d ((i / S_d) % n_d) * W_d, S_d = product of
  // the axes after d, W_d = of those before (i itself for one axis).
  ast::NodePtr loadIndex(const ast::NodePtr& i) const;
  // The kernel header's line about the plane ("" for one axis).
  std::string headerNote() const;

 private:
  const KernelDesc& d_;
};

}  // namespace warpforge
