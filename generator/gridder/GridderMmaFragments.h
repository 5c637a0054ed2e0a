#pragma once
// The m16n8k8 tf32 tensor-core product the gridder and degridder kernels are written against: their operands as
// register layouts (docs/layout-notation.md), proved against the instruction's atom (generator/layout/FragmentTable.h)
// by the common check (generator/verify/MmaCheck.h); the register positions the emitters use, read from those
// layouts; and the device helpers (tf32 rounding, the mma.sync instruction) printed into the kernels.
#include <string>
#include <vector>

#include "generator/layout/Layout.h"

namespace warpforge {

// The operands with the gridder's logical bits (lane = 4 g + t: t0 t1 are t, t2 t3 t4 are g):
//   gridding:   A (pixel, k) = the phasor's cos / sin of pixel pix0..3 and visibility vis0..1 of the k-step,
//               B (k, column) = the visibility's (Re, Im) / (Im, -Re) of correlation cor0..1 in column (cor, ReIm),
//               C (pixel, column) = the pixel's sum of correlation cor, component ReIm;
//   degridding: A (row, k) = the staged pixel pix0..1 of the k-step in row (cor, ReIm) as a tf32 part (part 0 the
//               hi part, 1 the remainder), B (k, visibility vis0..2) = its phasor's cos / sin, C (row, visibility).
// SinCos: k 0..3 multiply the cosine, k 4..7 the sine. `rowHalf` is the register bit of A and C that selects rows
// 8..15 (pix3 / part), `colPair` C's register column bit (ReIm / vis0).
struct GridderMmaLayouts {
  Layout a, b, c;
  std::string rowHalf, colPair;
};
GridderMmaLayouts gridderMmaLayouts(bool degrid);
// The common check of `l` against the m16n8k8 tf32 atom, registers handed to the instruction by position, and that
// SinCos is A's and B's register bit j2 (the k + 4 half): the problems, each naming its rule.
std::vector<std::string> gridderMmaProblems(const GridderMmaLayouts& l);

// Relative to the lane's group (g = lane / 4) and thread-in-group (t = lane % 4): A register r holds
// (row g + aRow[r], k t + aK[r]); B register r holds (k t + bK[r], column g); C register r holds
// (row g + cRow[r], column 2t + cCol[r]). aRow, cRow are 0 or 8; aK, bK are 0 or 4; cCol is 0 or 1.
struct QuadFragments {
  int aRow[4], aK[4], bK[2], cRow[4], cCol[4];
};

// Read from gridderMmaLayouts(degrid) (aRow, cRow: 8 where the register holds rowHalf; aK, bK: 4 where it holds
// SinCos; cCol: colPair). Throws std::logic_error where gridderMmaProblems() reports one.
QuadFragments tf32Fragments(bool degrid = false);

// gr_tf32 (round to nearest tf32, cvt.rna) and gr_mma (c += a b, one m16n8k8 tf32 product).
std::string tf32MmaHelpers();

}  // namespace warpforge
