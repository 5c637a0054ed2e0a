// Column tiles: the block's FFTs side by side, consecutive threads on consecutive FFTs. Thread tid always serves FFT
// tid % F, elements tid / F + it * T, so its FFT's digits and base are computed once; each row of the tile (one
// element of F consecutive FFTs) is one run of F values in global memory. Used where consecutive FFTs are consecutive
// in memory and their elements far apart (isColumnTiled): strided axes of 2D/3D transforms and the long-FFT kernels.
// With KernelGeometry::prefetch the load is a cp.async per element, issued by the previous group's store once it has
// read the tile into registers.
#include <fmt/format.h>

#include <stdexcept>

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
    if (!k.nextGroupCopy.empty()) return storeThenCopy(k);
    return loop(k, storeCount(k.d), k.d.out, storeElementBody(k));
  }

  // columnLoadAsync (Tiling.h): element (fl, i) one cp.async of the compute type's complex, zero-filled past the last
  // FFT.
  static std::vector<NodePtr> asyncLoad(const KernelContext& k) {
    const KernelDesc& d = k.d;
    const Access& a = d.in;
    if (d.fuse != Fuse::None || d.mirrored || a.planar || isReal(a.storage) || loadCount(d) != d.length) return {};
    const int bytes = d.f64 ? 16 : 8;
    std::vector<NodePtr> body{
        exprStmt(call(fmt::format("wf_copy_async{}", bytes),
                      {unary(UnaryOp::AddressOf, k.shared("sbase", var("i"))),
                       bin("+", var("in"), k.address(a, var("i"))), bin("<", var("g"), var("ffts"))}))};
    return loop(k, d.length, a, body);
  }

 private:
  // The store with the next group's copy in the middle: every element this thread stores read from shared memory
  // into registers, a barrier (the tile is free), the copy issued, then the values stored to global memory.
  static std::vector<NodePtr> storeThenCopy(KernelContext& k) {
    const KernelDesc& d = k.d;
    // (A fused split or merge would read the tile again after the copy overwrote it.)
    if (d.fuse != Fuse::None || d.mirrored)
      throw std::logic_error("stockham emitter: kernel " + d.kernelName + " copies its next tile but stores a fusion");
    const int F = k.g.fftsPerBlock, T = k.g.threadsPerFft, count = storeCount(d);
    std::vector<NodePtr> b{decl("const int", "fl", bin("%", var("tid"), lit(F))),
                           decl("const int", "i0", bin("/", var("tid"), lit(F)))};
    fftPrologue(k, b, d.out);
    const int rounds = (count + T - 1) / T;
    b.push_back(comment("the tile into registers"));
    for (int it = 0; it < rounds; ++it) {
      const std::string held = fmt::format("held{}", it);
      NodePtr i = bin("+", var("i0"), lit(it * T));
      if ((it + 1) * T <= count) {
        b.push_back(decl("const " + k.cT, held, k.shared("sbase", i)));
      } else {
        b.push_back(decl(k.cT, held, k.mk(k.num(0), k.num(0))));
        b.push_back(ifStmt(bin("<", i, lit(count)), assign(var(held), k.shared("sbase", i))));
      }
    }
    b.push_back(exprStmt(call("__syncthreads", {})));
    for (auto& s : k.nextGroupCopy) b.push_back(s);
    k.nextGroupCopy.clear();
    b.push_back(comment("the tile from registers to global memory"));
    for (int it = 0; it < rounds; ++it) {
      std::vector<NodePtr> one{decl("const int", "i", bin("+", var("i0"), lit(it * T)))};
      for (auto& s : storeElementBody(k, var(fmt::format("held{}", it)))) one.push_back(s);
      b.push_back((it + 1) * T <= count ? block(one)
                                        : ifStmt(bin("<", bin("+", var("i0"), lit(it * T)), lit(count)), block(one)));
    }
    return {block(b)};
  }

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

std::vector<NodePtr> columnLoadAsync(const KernelContext& k) { return ColumnTile::asyncLoad(k); }

}  // namespace warpforge
