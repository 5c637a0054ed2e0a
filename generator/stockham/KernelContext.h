#pragma once
// The state of one Stockham kernel while it is emitted, shared by the strategies that write its parts (tilings,
// radix passes, the r2c/c2r fusions, the Bluestein convolution): the description and the geometry, the compute
// types, the tables the passes ask for, and the AST helpers every part uses to name shared memory, complex values
// and global addresses.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ast/Ast.h"
#include "generator/stockham/KernelDesc.h"

namespace warpforge {

struct KernelContext {
  KernelContext(const KernelDesc& desc, const KernelGeometry& geometry);

  const KernelDesc& d;
  KernelGeometry g;    // the tilings record the vector widths they chose (vectorBytesIn / vectorBytesOut)
  std::string cT, rT;  // complex and real compute types: float2 / float, double2 / double
  int NT = 1;          // threads per block
  bool directIn = false, directOut = false;  // the first / last pass touches global memory itself
  // Which half of a convolution kernel (KernelDesc::convolve) the passes being emitted belong to: 0 forward, 1 inverse.
  int stage = 0;
  // Constants of the cooperative passes: name -> (entries, __constant__ definition); copied to shared memory.
  std::map<std::string, std::pair<int, std::string>> coopTables;
  // Tables read in place from __constant__ memory (every lane the same entry): name -> definition.
  std::map<std::string, std::string> constTables;
  // KernelGeometry::prefetch: what the last pass runs between reading its inputs (and the barrier after) and computing
  // them: the copy of the block's next group into shared memory.
  std::vector<ast::NodePtr> nextGroupCopy;

  // The sign of the passes being emitted: a convolution's inverse half runs at +1.
  int stageSign() const { return d.convolve && stage == 1 ? +1 : d.sign; }
  bool firstPass(int p) const { return p == 0 && stage == 0; }
  bool lastPass(int p) const { return p + 1 == static_cast<int>(d.factors.size()) && (stage == 1 || !d.convolve); }

  // A literal of the compute precision.
  ast::NodePtr num(double v) const;
  // Shared memory element at block-flat index x, padded by wf_pad (bank conflicts); or at base + i.
  ast::NodePtr shared(const ast::NodePtr& x) const;
  ast::NodePtr shared(const std::string& base, const ast::NodePtr& i) const;
  ast::NodePtr mk(ast::NodePtr re, ast::NodePtr im) const;
  ast::NodePtr cmul(const ast::NodePtr& a, const ast::NodePtr& b) const;

  // Statements computing digits d0.. of FFT index `g` (a long long variable).
  void digits(std::vector<ast::NodePtr>& out, const std::string& g) const;
  // Digits of equal pitch collapse: stride_{k+1} = stride_k * count_k for every k.
  bool collapsible(const Access& a) const;
  // offset + sum d_k * stride_k: where FFT g starts (in scalars for real arrays).
  ast::NodePtr fftBase(const Access& a) const;
  // base + i * elemStride (times 2 for the complex view of a real array).
  ast::NodePtr address(const Access& a, const ast::NodePtr& i, const std::string& base = "abase") const;
  // The natural index i * elem + d0 * digit0.
  ast::NodePtr natural(const ast::NodePtr& i, long long elem, long long digit0) const;
  // A loop unrolled over `count` items of `step` each: item it runs body(it) unguarded while (it + 1) * step <= count,
  // the last partial one under `guard(it) < count`.
  template <class Body, class Guard>
  std::vector<ast::NodePtr> unrolled(int count, int step, Body body, Guard guard) const {
    std::vector<ast::NodePtr> out;
    for (int it = 0; it * step < count; ++it) {
      ast::NodePtr b = ast::block(body(it));
      out.push_back((it + 1) * step <= count ? b : ast::ifStmt(ast::bin("<", guard(it), ast::lit(count)), b));
    }
    return out;
  }

  // W_R^m as a table entry of the kernel's precision: {cos 2 pi m / R, sign sin 2 pi m / R}.
  std::string rootEntry(long long m, int R, int sign) const;
};

bool isHalf(Storage s);

}  // namespace warpforge
