// Each fragment table is checked against the PTX ISA's index formulas,
// written here independently (groupID = lane >> 2, tig = lane & 3).
#include <gtest/gtest.h>

#include <set>

#include "generator/layout/FragmentTable.h"

using namespace warpforge;

namespace {
struct Coord {
  int row, col;
};
using Formula = Coord (*)(int lane, int idx);  // idx = element index in the thread's fragment (PTX a_i/b_i/c_i)

// f16 (two per register): element idx = 2 * reg + half.
Coord f16A(int lane, int i) {
  int g = lane >> 2, t = lane & 3;
  return {g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)};
}
Coord f16Bk16(int lane, int i) {
  int g = lane >> 2, t = lane & 3;
  return {2 * t + (i & 1) + 8 * (i >> 1), g};
}
Coord f16Bk8(int lane, int i) {
  int g = lane >> 2, t = lane & 3;
  return {2 * t + (i & 1), g};
}
Coord f16C(int lane, int i) {
  int g = lane >> 2, t = lane & 3;
  return {g + 8 * (i >> 1), 2 * t + (i & 1)};
}
Coord f16Ak8(int lane, int i) {
  int g = lane >> 2, t = lane & 3;
  return {g + 8 * (i >> 1), 2 * t + (i & 1)};
}
// f32 accumulators: one per register, c0..c3.
Coord f32C(int lane, int i) {
  int g = lane >> 2, t = lane & 3;
  return {g + 8 * (i >> 1), 2 * t + (i & 1)};
}
// tf32 m16n8k8: a0 (g,t) a1 (g+8,t) a2 (g,t+4) a3 (g+8,t+4); b0 (t,g) b1 (t+4,g).
Coord tf32A(int lane, int i) {
  int g = lane >> 2, t = lane & 3;
  return {g + 8 * (i & 1), t + 4 * (i >> 1)};
}
Coord tf32B(int lane, int i) {
  int g = lane >> 2, t = lane & 3;
  return {t + 4 * i, g};
}
// s8 m16n8k32: a_i row g (+8 for 4<=i<8 or i>=12), col 4t + (i&3) (+16 for i>=8); b_i row 4t+(i&3) (+16 for i>=4), col
// g.
Coord s8A32(int lane, int i) {
  int g = lane >> 2, t = lane & 3;
  return {g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)};
}
Coord s8B32(int lane, int i) {
  int g = lane >> 2, t = lane & 3;
  return {4 * t + (i & 3) + 16 * (i >> 2), g};
}
// s8 m8n8k16: a_i (g, 4t+i); b_i (4t+i, g); c_i (g, 2t+i).
Coord s8A16(int lane, int i) {
  int g = lane >> 2, t = lane & 3;
  return {g, 4 * t + i};
}
Coord s8B16(int lane, int i) {
  int g = lane >> 2, t = lane & 3;
  return {4 * t + i, g};
}
Coord s32C8(int lane, int i) {
  int g = lane >> 2, t = lane & 3;
  return {g, 2 * t + i};
}

void checkOperand(const MmaShape& s, Operand op, Formula f, int rows, int cols) {
  const FragmentLayout& fl = s.operand(op);
  std::set<std::pair<int, int>> seen;
  for (int lane = 0; lane < 32; ++lane)
    for (int r = 0; r < fl.numRegisters(); ++r)
      for (int e = 0; e < fl.elemsPerRegister(); ++e) {
        int idx = r * fl.elemsPerRegister() + e;
        auto got = fl.coord(op, lane, r, e);
        Coord want = f(lane, idx);
        ASSERT_EQ(got.first, want.row) << s.shape << "." << s.abType << " operand " << int(op) << " lane " << lane
                                       << " idx " << idx;
        ASSERT_EQ(got.second, want.col) << s.shape << "." << s.abType << " operand " << int(op) << " lane " << lane
                                        << " idx " << idx;
        seen.insert(got);
      }
  EXPECT_EQ(static_cast<int>(seen.size()), rows * cols) << "fragment must cover the matrix exactly once";
}
}  // namespace

TEST(FragmentTable, F16_m16n8k8) {
  auto* s = findMmaShape("m16n8k8", "f16");
  ASSERT_NE(s, nullptr);
  checkOperand(*s, Operand::A, f16Ak8, 16, 8);
  checkOperand(*s, Operand::B, f16Bk8, 8, 8);
  checkOperand(*s, Operand::C, f16C, 16, 8);
}

TEST(FragmentTable, F16_m16n8k16) {
  auto* s = findMmaShape("m16n8k16", "f16");
  ASSERT_NE(s, nullptr);
  checkOperand(*s, Operand::A, f16A, 16, 16);
  checkOperand(*s, Operand::B, f16Bk16, 16, 8);
  checkOperand(*s, Operand::C, f16C, 16, 8);
}

TEST(FragmentTable, BF16_m16n8k16) {
  auto* s = findMmaShape("m16n8k16", "bf16");
  ASSERT_NE(s, nullptr);
  checkOperand(*s, Operand::A, f16A, 16, 16);
  checkOperand(*s, Operand::B, f16Bk16, 16, 8);
  checkOperand(*s, Operand::C, f32C, 16, 8);
}

TEST(FragmentTable, TF32_m16n8k8) {
  auto* s = findMmaShape("m16n8k8", "tf32");
  ASSERT_NE(s, nullptr);
  checkOperand(*s, Operand::A, tf32A, 16, 8);
  checkOperand(*s, Operand::B, tf32B, 8, 8);
  checkOperand(*s, Operand::C, f32C, 16, 8);
}

TEST(FragmentTable, S8_m16n8k32) {
  auto* s = findMmaShape("m16n8k32", "s8");
  ASSERT_NE(s, nullptr);
  checkOperand(*s, Operand::A, s8A32, 16, 32);
  checkOperand(*s, Operand::B, s8B32, 32, 8);
  checkOperand(*s, Operand::C, f32C, 16, 8);
}

TEST(FragmentTable, S8_m8n8k16) {
  auto* s = findMmaShape("m8n8k16", "s8");
  ASSERT_NE(s, nullptr);
  checkOperand(*s, Operand::A, s8A16, 8, 16);
  checkOperand(*s, Operand::B, s8B16, 16, 8);
  checkOperand(*s, Operand::C, s32C8, 8, 8);
}

TEST(FragmentTable, NotesAppendixB) {
  // Eqs. (39)-(44) of the CHIME note, verbatim.
  auto* k8 = findMmaShape("m16n8k8", "f16");
  EXPECT_EQ(k8->a.t, (std::vector<std::string>{"j1", "j2", "i0", "i1", "i2"}));
  EXPECT_EQ(k8->a.r, (std::vector<std::string>{"i3"}));
  auto* k16 = findMmaShape("m16n8k16", "f16");
  EXPECT_EQ(k16->a.r, (std::vector<std::string>{"i3", "j3"}));
  EXPECT_EQ(k16->b.r, (std::vector<std::string>{"j3"}));
  EXPECT_EQ(k16->c.b, (std::vector<std::string>{"k0"}));
  EXPECT_EQ(findMmaShape("m16n8k16", "f64"), nullptr);
}

// f16 operands with f32 accumulators (the correlator's and beamformer's f16 paths, tc_fft's f32 variant).
TEST(FragmentTable, F16_f32_accumulators) {
  auto* k16 = findMmaShape("m16n8k16", "f16", "f32");
  ASSERT_NE(k16, nullptr);
  checkOperand(*k16, Operand::A, f16A, 16, 16);
  checkOperand(*k16, Operand::B, f16Bk16, 16, 8);
  checkOperand(*k16, Operand::C, f32C, 16, 8);
  auto* k8 = findMmaShape("m16n8k8", "f16", "f32");
  ASSERT_NE(k8, nullptr);
  checkOperand(*k8, Operand::A, f16Ak8, 16, 8);
  checkOperand(*k8, Operand::B, f16Bk8, 8, 8);
  checkOperand(*k8, Operand::C, f32C, 16, 8);
  EXPECT_EQ(findMmaShape("m16n8k16", "f16"),
            findMmaShape("m16n8k16", "f16", "f16"));  // the f16 accumulator stays the default
  EXPECT_EQ(knownShapesFor("f16"), "m16n8k8, m16n8k16");
}

// The atom as a bit map (physical -> matrix bit): with a layout (physical -> logical) it names the logical bit of
// every matrix bit, the question the verifier asks of each operand.
TEST(FragmentTable, AtomAsBitMap) {
  const BitMap b = findMmaShape("m16n8k16", "f16")->b.atom();
  EXPECT_EQ(b.str(), "b0->j0 t0->j1 t1->j2 t2->k0 t3->k1 t4->k2 r0->j3");
  // CHIME's Z2 read as operand B: matrix bit -> logical bit.
  const BitMap z2 = BitMap(
      {{"b0", "n5"}, {"t0", "n4"}, {"t1", "n3"}, {"t2", "q0"}, {"t3", "q1"}, {"t4", "q2"}, {"r0", "ReIm"}});
  const BitMap roles = z2.compose(b.inverse());
  EXPECT_EQ(*roles.apply("j3"), "ReIm");
  EXPECT_EQ(*roles.apply("k0"), "q0");
  EXPECT_EQ(*roles.apply("j1"), "n4");
}
