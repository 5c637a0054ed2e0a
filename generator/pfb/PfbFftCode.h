#pragma once
// FFT code for the pfb kernels: complex f32 arithmetic over AST expressions, radix-2/4/8 butterflies as straight-line
// code, and one Stockham pass over transforms held in shared memory.
#include <string>
#include <vector>

#include "ast/Ast.h"
#include "generator/pfb/PfbGeometry.h"

namespace warpforge::pfb {

struct CExpr {
  ast::NodePtr re, im;
};

// Appends `const float` temporaries (prefix + counter) to `out` for every value it computes.
class ComplexCode {
 public:
  ComplexCode(std::vector<ast::NodePtr>& out, std::string prefix) : out_(out), prefix_(std::move(prefix)) {}
  CExpr fresh(ast::NodePtr re, ast::NodePtr im);
  CExpr add(const CExpr& a, const CExpr& b);
  CExpr sub(const CExpr& a, const CExpr& b);
  CExpr mul(const CExpr& a, const CExpr& w);  // a * w
  // a * exp(-2 pi i k / R), exact for the multiples of pi / 4 (swaps, negations, one sqrt(1/2) scale).
  CExpr rotate(const CExpr& a, int k, int R);

 private:
  std::vector<ast::NodePtr>& out_;
  std::string prefix_;
  int counter_ = 0;
};

// y_k = sum_j x_j exp(-2 pi i jk / R) for R = x.size() in {1, 2, 4, 8} (radix-2 decimation in time).
std::vector<CExpr> emitDft(ComplexCode& code, const std::vector<CExpr>& x);

// One Stockham pass (forward) over transforms of `fft.length` points in shared memory: element m of transform
// tr = outer * innerCount + inner at outer * outerStride + inner + m * pointStride. Butterfly bf = (outer * (M / R) +
// j)
// * innerCount + inner (inner fastest: consecutive lanes on consecutive addresses). Reads `in`, writes `out`, then
// __syncthreads(). `butterflies` is the total count (an expression); `threads` the block size.
struct PassShape {
  std::string in, out;
  int innerCount = 1;
  long long outerStride = 0, pointStride = 1;
  ast::NodePtr butterflies;
  int threads = 0;
  std::string table;              // the pass twiddles (const float2*)
  std::string slot = "pfb_slot";  // the device function mapping an element to its shared-memory slot
  bool hoist = true;              // whether twiddles shared by a thread's butterflies are kept in registers
  // Whether pfb_slot is taken once per butterfly side (of its base element) and each element's slot follows by a
  // constant XOR and offset (pfbSlotSplit); false, or where the shape's bits overlap: pfb_slot per element.
  bool baseSlots = true;
  // One buffer (in == out): each thread reads all its butterflies' inputs, a barrier, then computes and writes (the
  // butterfly count must be a constant multiple of the block).
  bool inPlace = false;
};
// Whether a thread's butterflies of pass p share one j (then its twiddles are loaded once, hoistTwiddles()), unless
// shape.hoist is false (registers are short: each butterfly loads them).
// The device function of an element's shared-memory slot: pfb_slot(a) = pfbSwizzled(a), or the previous kernels'
// pfb_pad(a) = a + a / 8 (pfbPadded); every shared FFT buffer index goes through it.
std::string slotHelper(bool previous);
inline const char* slotFunction(bool previous) { return previous ? "pfb_pad" : "pfb_slot"; }
// pfb_slot(x + c) = pfb_slot(x) ^ pfb_slot(c) where x and c share no bits (the swizzle is XOR-linear); the constant
// is applied as (slot ^ low) + high, low = pfb_slot(c) mod 16, high = c - c mod 16 (the offset an access can carry).
struct SlotSplit {
  long long low = 0, high = 0;
};
SlotSplit pfbSlotSplit(long long c);
// `base` swizzled, then the split of constant c applied: (base ^ low) + high (terms that are 0 left out).
ast::NodePtr slotOfBase(const std::string& base, long long c);
bool twiddlesHoistable(const PfbFftPlan& fft, int pass, const PassShape& shape);
// Declarations of the hoisted twiddles `tw<p>_<r>` of every pass that has them.
std::vector<ast::NodePtr> hoistTwiddles(const PfbFftPlan& fft, const PassShape& shape, const std::string& prefix);
ast::NodePtr emitPass(const PfbFftPlan& fft, int pass, const PassShape& shape, const std::string& prefix);

}  // namespace warpforge::pfb
