#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "generator/emulate/Emulator.h"
#include "generator/layout/Relayout.h"

using namespace warpforge;

namespace {
// Fill a register file so that each element holds a code of its logical
// index under `l`; after a relayout the codes must match the target layout.
double code(const Layout& l, int lane, int reg, int e) {
  auto bits = l.logicalBits();
  std::sort(bits.begin(), bits.end());
  double v = 0;
  for (std::size_t i = 0; i < bits.size(); ++i) v += logicalBitValue(l, bits[i], lane, reg, e) * double(1 << i);
  return v;
}

RegFile tagged(const Layout& l) {
  RegFile rf(l.numRegisters(), 1 << l.count(PhysKind::B));
  for (int lane = 0; lane < 32; ++lane)
    for (int r = 0; r < rf.nregs; ++r)
      for (int e = 0; e < rf.nelem; ++e) rf.at(lane, r, e) = code(l, lane, r, e);
  return rf;
}

void expectMovesData(const Layout& from, const Layout& to) {
  RelayoutPlan p = synthesizeRelayout(from, to);
  RegFile rf = tagged(from);
  applyRelayout(rf, p);
  RegFile want = tagged(to);
  ASSERT_EQ(rf.v, want.v) << from.str() << "  ->  " << to.str();
}
}  // namespace

TEST(Relayout, ChimeZ3pToZ3) {
  Layout a = Layout::parse("b <-> q0, t0 t1 t2 t3 t4 <-> q1 q2 q3 q4 q5, r <-> n2 n1 n0 ReIm");
  Layout b = Layout::parse("b <-> n2, t0 t1 t2 t3 t4 <-> n1 n0 q3 q4 q5, r <-> q0 q1 q2 ReIm");
  RelayoutPlan p = synthesizeRelayout(a, b);
  EXPECT_EQ(p.byteperms, 16);  // one local transpose over 16 registers
  EXPECT_EQ(p.shuffles, 16);   // two warp transposes, 8 shuffles each
  expectMovesData(a, b);
}

TEST(Relayout, ChimeYpToY) {
  Layout a = Layout::parse("b <-> q3, t0 t1 t2 t3 t4 <-> q4 q5 q6 q7 q8, r <-> q0 q1 q2 ReIm");
  Layout b = Layout::parse("b <-> ReIm, t0 t1 t2 t3 t4 <-> q4 q5 q6 q7 q8, r <-> q0 q1 q2 q3");
  RelayoutPlan p = synthesizeRelayout(a, b);
  EXPECT_EQ(p.byteperms, 16);
  EXPECT_EQ(p.shuffles, 0);
  expectMovesData(a, b);
}

TEST(Relayout, RegisterRenameIsFree) {
  Layout a = Layout::parse("b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r <-> n2 n1 n0");
  Layout b = Layout::parse("b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r <-> n0 n2 n1");
  RelayoutPlan p = synthesizeRelayout(a, b);
  EXPECT_TRUE(p.ops.empty());
  EXPECT_EQ(p.smCycles, 0);
  expectMovesData(a, b);
}

TEST(Relayout, LanePermutationForReorderedLanes) {
  Layout a = Layout::parse("b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r <-> n2 n1 n0");
  Layout b = Layout::parse("b <-> ReIm, t0 t1 t2 t3 t4 <-> n3 n4 n5 n6 n7, r <-> n2 n1 n0");
  RelayoutPlan p = synthesizeRelayout(a, b);
  ASSERT_EQ(p.ops.size(), 1u);
  EXPECT_EQ(p.ops[0].kind, MoveOp::LanePermutation);
  EXPECT_EQ(p.shuffles, 8);
  expectMovesData(a, b);
}

TEST(Relayout, RejectsDifferentBits) {
  Layout a = Layout::parse("b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r <-> n2 n1 n0");
  Layout b = Layout::parse("b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r <-> n2 n1 q0");
  EXPECT_THROW(synthesizeRelayout(a, b), LayoutError);
}

TEST(Relayout, RandomPermutationsMoveDataCorrectly) {
  std::mt19937 rng(7);
  std::vector<std::string> names{"ReIm", "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8"};
  Layout base = Layout::parse("b <-> ReIm, t0 t1 t2 t3 t4 <-> q4 q5 q6 q7 q8, r <-> q0 q1 q2 q3");
  int tested = 0;
  for (int trial = 0; trial < 40; ++trial) {
    auto perm = names;
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<Layout::Entry> ents;
    int i = 0;
    ents.push_back({{PhysKind::B, 0}, perm[i++]});
    for (int t = 0; t < 5; ++t) ents.push_back({{PhysKind::T, t}, perm[i++]});
    for (int r = 0; r < 4; ++r) ents.push_back({{PhysKind::R, r}, perm[i++]});
    Layout to(ents);
    expectMovesData(base, to);
    expectMovesData(to, base);
    ++tested;
  }
  EXPECT_EQ(tested, 40);
}
