#pragma once
// The one operand check every tensor-core family calls (the layout-program Verifier and each family's own operand
// descriptions; docs/architecture.md lists them). The instruction atoms are data in generator/layout: mma.sync in
// FragmentTable.h, wgmma (descriptors, swizzles) in Wgmma.h; a family describes its operands as register layouts
// (generator/layout/Layout.h) or, for shared-memory operands, as where its staging put each element, and asks here
// whether the instruction reads what the family means.
//
// mma.sync, checkMmaOperands: three register layouts (A, B, C) read through the instruction's atom. Consistent
// means: the logical bit on each matrix bit agrees between the operands that share it (i: A and C, j: A and B, k: B
// and C), where a pass-through operand's halves (x_in on a j bit, x_out on an i or k bit: ReIm_in / ReIm_out of a
// complex phase or of an expanded complex operand, or any data bit the operand is the identity on) stand for the
// data bit x; register bits beyond the fragment's are loop bits: C's are the loop, A's and B's must be among them
// (an operand that lacks one is reused across it). Register order is a naming choice, so every choice of fragment
// registers is tried unless the kernel hands the registers to the instruction by position (fixedRegisters); the
// resolved plan says which registers each MMA of the loop reads and writes. Each problem names its rule (kRule...).
//
// wgmma, checkWgmmaOperand: one shared-memory operand read through its matrix descriptor (canonical K-major layout,
// no swizzle or a 32-, 64-, 128-byte swizzle) against where the staging put each element.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "generator/layout/BitMap.h"
#include "generator/layout/FragmentTable.h"
#include "generator/layout/Layout.h"
#include "generator/verify/Plan.h"

namespace warpforge {

// The rules, as named in the problems' text.
inline constexpr const char* kRuleOperandBits = "operand bits: the layout has the atom's b and t bits";
inline constexpr const char* kRuleRows = "rows: A and C agree on every i bit";
inline constexpr const char* kRuleSummed = "summed bits: A and B agree on every j bit";
inline constexpr const char* kRuleColumns = "columns: B and C agree on every k bit";
inline constexpr const char* kRuleLoop = "loop bits: A's and B's extra registers are loop bits of C";
inline constexpr const char* kRuleDescriptor = "descriptor: wgmma reads each operand element where it was staged";

struct MmaOperand {
  std::string name;  // named in messages: "array 'X' (operand B) ..."
  const Layout* layout = nullptr;
  // The operand is the identity on a data bit x of its partners: its x_in on a summed (j) bit stands for x in the
  // other factor, its x_out on an output (i, k) bit for x in C (a name that agrees literally agrees as well).
  bool passThrough = false;
};

struct MmaCheckOptions {
  // The fragment's registers are the layout's r0, r1, ... in order (the kernel passes registers by position and has
  // no loop bits); otherwise every choice of fragment registers is tried.
  bool fixedRegisters = false;
};

struct MmaCheck {
  std::vector<std::string> problems;  // each names the operand, physical bit, matrix bit, expected, found and rule
  MmaStepPlan plan;                   // resolved where `problems` is empty
  bool ok() const { return problems.empty(); }
};

MmaCheck checkMmaOperands(const MmaShape& shape, const MmaOperand& a, const MmaOperand& b, const MmaOperand& c,
                          const MmaCheckOptions& options = {});

// An operand's layout read through its atom: matrix bit ("i3", "j0", "k1") -> logical bit, i.e.
// layout.map() o atom.inverse(); the fragment's registers are r0, r1, ... Nothing where the layout lacks a physical
// bit the atom has.
std::optional<BitMap> matrixBits(const Layout& layout, const FragmentLayout& atom);

// Reads every (row, k byte) of one K-major operand (rows x kBytes) through the wgmma descriptor `desc` (field encoding
// and swizzle: generator/layout/Wgmma.h) and compares the address with `stored`, where the kernel's staging put that
// element (-1: the element is not staged). The first mismatch as text naming kRuleDescriptor (empty: all agree);
// `reads` counts the comparisons.
std::string checkWgmmaOperand(std::uint64_t desc, int rows, int kBytes,
                              const std::function<long long(int row, int kbyte)>& stored, long long* reads = nullptr);

// An f16 data array as the f32 accumulators it is rounded from: half h of register r is f32 register 2r + h, so b0
// becomes r0 and r_i becomes r_{i+1} (one f32 pair = the __half2 register it becomes). Checked against an f32-C
// fragment (m16n8k16 f32 C: r0 r1 <-> k0 i3), it proves the f32-accumulating MMA writes the verified layout.
Layout f32AccumulatorView(const Layout& half2Layout);

}  // namespace warpforge
