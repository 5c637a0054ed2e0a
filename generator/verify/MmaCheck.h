#pragma once
// The one check every tensor-core family can call on an mma.sync step: three register layouts (A, B, C) read through
// the instruction's atom (generator/layout/FragmentTable.h). Consistent means: the logical bit on each matrix bit
// agrees between the operands that share it (i: A and C, j: A and B, k: B and C), where a pass-through half of A
// (x_in on a j bit, x_out on an i bit: ReIm_in / ReIm_out of a complex phase, or any data bit A is the identity on)
// stands for the data bit x; register bits beyond the fragment's are loop bits: C's are the loop, A's and B's must be
// among them (an operand that lacks one is reused across it). Register order is a naming choice, so every choice of
// fragment registers is tried; the resolved plan says which registers each MMA of the loop reads and writes.
#include <string>
#include <vector>

#include "generator/layout/FragmentTable.h"
#include "generator/layout/Layout.h"
#include "generator/verify/Plan.h"

namespace warpforge {

struct MmaOperand {
  std::string name;  // named in messages: "array 'X' (operand B) ..."
  const Layout* layout = nullptr;
};

struct MmaCheck {
  std::vector<std::string> problems;  // each names the operand, physical bit, matrix bit, expected and found
  MmaStepPlan plan;                   // resolved where `problems` is empty
  bool ok() const { return problems.empty(); }
};

// An f16 data array as the f32 accumulators it is rounded from: half h of register r is f32 register 2r + h, so b0
// becomes r0 and r_i becomes r_{i+1} (one f32 pair = the __half2 register it becomes). Checked against an f32-C
// fragment (m16n8k16 f32 C: r0 r1 <-> k0 i3), it proves the f32-accumulating MMA writes the verified layout.
Layout f32AccumulatorView(const Layout& half2Layout);

MmaCheck checkMmaOperands(const MmaShape& shape, const MmaOperand& a, const MmaOperand& b, const MmaOperand& c);

}  // namespace warpforge
