// Column tiles: the block's FFTs side by side, consecutive threads on consecutive FFTs. Thread tid always serves FFT
// tid % F, elements tid / F + it * T, so its FFT's digits and base are computed once; each row of the tile (one
// element of F consecutive FFTs) is one run of F values in global memory. Used where consecutive FFTs are consecutive
// in memory and their elements far apart (isColumnTiled): strided axes of 2D/3D transforms and the long-FFT kernels.
#include "generator/stockham/Tiling.h"

namespace warpforge {

using namespace ast;

namespace {

class ColumnTile : public Tiling {
 public:
  std::string name() const override { return "FFT-major (column tile)"; }
  std::vector<NodePtr> load(KernelContext& k) const override {
    return loop(k, loadCount(k.d), k.d.in, loadElementBody(k));
  }
  std::vector<NodePtr> store(KernelContext& k) const override {
    return loop(k, storeCount(k.d), k.d.out, storeElementBody(k));
  }

 private:
  static std::vector<NodePtr> loop(const KernelContext& k, int count, const Access& a,
                                   const std::vector<NodePtr>& body) {
    const int F = k.g.fftsPerBlock, T = k.g.threadsPerFft;
    std::vector<NodePtr> b{decl("const int", "fl", bin("%", var("tid"), lit(F))),
                           decl("const int", "i0", bin("/", var("tid"), lit(F)))};
    fftPrologue(k, b, a);
    for (int it = 0; it * T < count; ++it) {
      std::vector<NodePtr> one{decl("const int", "i", bin("+", var("i0"), lit(it * T)))};
      one.insert(one.end(), body.begin(), body.end());
      b.push_back((it + 1) * T <= count ? block(one)
                                        : ifStmt(bin("<", bin("+", var("i0"), lit(it * T)), lit(count)), block(one)));
    }
    return {block(b)};
  }
};

}  // namespace

const Tiling& columnTiling() {
  static const ColumnTile t;
  return t;
}

}  // namespace warpforge
