#include "generator/stockham/FusedPlanes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "generator/stockham/StockhamSpec.h"

namespace warpforge {

using namespace ast;

NodePtr FusedPlanes::loadIndex(const NodePtr& i) const {
  if (!active()) return i;
  NodePtr sum;
  long long after = d_.length, before = 1;
  for (std::size_t d = 0; d < d_.axes.size(); ++d) {
    const int n = d_.axes[d];
    after /= n;
    NodePtr digit = after == 1 ? i : bin("/", i, lit(after));
    if (d > 0) digit = bin("%", digit, lit(n));  // the slowest digit needs no modulo
    NodePtr term = before == 1 ? digit : bin("*", digit, lit(before));
    sum = sum ? bin("+", sum, term) : term;
    before *= n;
  }
  return sum;
}

std::string FusedPlanes::headerNote() const {
  if (!active()) return "";
  return fmt::format(
      "\nA {} plane as one FFT: loaded digit-reversed (fastest axis first), each axis's passes with its own "
      "twiddles, the {}-dimensional DFT left in row-major order.",
      fmt::join(d_.axes, " x "), d_.axes.size());
}

// How many inner axes of a 2D/3D c2c transform one kernel takes together (KernelDesc::axes): the most whose plane
// holds at most one kernel's length, each axis a smooth length, laid out densely (row-major) in the input and the
// output, so that the plane is one run per FFT. 1: one kernel per axis. One kernel reads and writes the data once
// where a kernel per axis moves it once per axis.
int fusedInnerAxes(const StockhamSpec& s) {
  const int D = static_cast<int>(s.lengths.size());
  if (D < 2 || s.tuning.fuseAxes == false || !s.factors.empty()) return 1;
  auto dense = [&](const StockhamIo& io, int from) {
    for (int a = from; a < D - 1; ++a)
      if (io.strides[a] != io.strides[a + 1] * s.lengths[a + 1]) return false;
    return true;
  };
  for (int m = D; m >= 2; --m) {
    long long plane = 1;
    bool smooth = true;
    for (int a = D - m; a < D; ++a) {
      plane *= s.lengths[a];
      smooth = smooth && s.lengths[a] > 1 && isSmooth(s.lengths[a], maxPrimeRadix(s.precision));
    }
    if (smooth && plane <= maxSingleKernelLength(s.precision) && dense(s.input, D - m) && dense(s.output, D - m))
      return m;
  }
  return 1;
}

}  // namespace warpforge
