#pragma once
// The m16n8k8 tf32 tensor-core product the gridder and degridder kernels are written against: where each
// register of its fragments sits, read from the fragment table (generator/layout) and checked for every
// lane, and the device helpers (tf32 rounding, the mma.sync instruction) printed into the kernels.
#include <string>

namespace warpforge {

// Relative to the lane's group (g = lane / 4) and thread-in-group (t = lane % 4): A register r holds
// (row g + aRow[r], k t + aK[r]); B register r holds (k t + bK[r], column g); C register r holds
// (row g + cRow[r], column 2t + cCol[r]). aRow, cRow are 0 or 8; aK, bK are 0 or 4; cCol is 0 or 1.
struct QuadFragments {
  int aRow[4], aK[4], bK[2], cRow[4], cCol[4];
};

// Throws std::logic_error where the table's m16n8k8 tf32 shape is not of this form.
QuadFragments tf32Fragments();

// gr_tf32 (round to nearest tf32, cvt.rna) and gr_mma (c += a b, one m16n8k8 tf32 product).
std::string tf32MmaHelpers();

}  // namespace warpforge
