#pragma once
// Tilings: how a kernel moves its block of FFTs between global memory and shared memory (rocFFT's tiling
// strategies). A row tiling walks elements of one FFT with consecutive threads (the FFTs' elements are consecutive in
// memory); a column tile walks FFTs with consecutive threads (consecutive FFTs are consecutive in memory, elements
// far apart), so that both read whole sectors. A kernel may load with one and store with the other.
#include <string>
#include <vector>

#include "generator/stockham/KernelContext.h"

namespace warpforge {

class Tiling {
 public:
  virtual ~Tiling() = default;
  // How the kernel's comments name it.
  virtual std::string name() const = 0;
  // Statements of one group iteration: the block's FFTs from the kernel's input into shared memory (the fused plane's
  // digit reversal and the c2r merge's extra element included) / from shared memory to the output (the r2c split,
  // the four-step twiddle, the tables and bounds included).
  virtual std::vector<ast::NodePtr> load(KernelContext& k) const = 0;
  virtual std::vector<ast::NodePtr> store(KernelContext& k) const = 0;
};

const Tiling& rowTiling();  // RowTile.cpp
// The row tiling's load as cp.async copies (no registers, no wait): the group whose first FFT is the variable `first`
// into shared memory, elements past the last FFT zero-filled. Empty where the load is not a contiguous run of the
// compute type (KernelGeometry::prefetch then falls back to the synchronous load).
std::vector<ast::NodePtr> rowLoadAsync(const KernelContext& k);
const Tiling& columnTiling();  // ColumnTile.cpp
// The column tile's load as cp.async copies, as rowLoadAsync: empty where the input is not the compute type's complex
// or the load merges or mirrors. Its store, where KernelContext::nextGroupCopy is set, issues that copy itself.
std::vector<ast::NodePtr> columnLoadAsync(const KernelContext& k);
// The tiling of the kernel's load / store side.
inline const Tiling& loadTiling(const KernelGeometry& g) { return g.fftMajorLoad ? columnTiling() : rowTiling(); }
inline const Tiling& storeTiling(const KernelGeometry& g) { return g.fftMajorStore ? columnTiling() : rowTiling(); }

// Shared by the tilings: elements per FFT moved by the load (the c2r merge reads L + 1) and by the store (the r2c
// split writes L + 1); the statements naming FFT fl of the block (g, its digits, abase in `a`, sbase in shared memory);
// the per-element bodies of the load and the store, which see i, g, the digits, abase and sbase.
int loadCount(const KernelDesc& d);
int storeCount(const KernelDesc& d);
void fftPrologue(const KernelContext& k, std::vector<ast::NodePtr>& b, const Access& a);
std::vector<ast::NodePtr> loadElementBody(const KernelContext& k);
// `held`: the value to store where the plain store would read it from shared memory (sbase + i).
std::vector<ast::NodePtr> storeElementBody(const KernelContext& k, const ast::NodePtr& held = nullptr);

}  // namespace warpforge
