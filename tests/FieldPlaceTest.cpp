#include <gtest/gtest.h>

#include "generator/layout/FieldPlace.h"
#include "generator/layout/FragmentTable.h"
#include "generator/layout/Wgmma.h"

using namespace warpforge;

namespace {
// A layout with free logical names: physical -> logical pairs.
Layout layoutOf(std::vector<BitMap::Pair> pairs) { return Layout::fromMap(BitMap(std::move(pairs))); }
// The m16n8k16 f16 atom's A fragment: b0 j0, t0..t4 j1 j2 i0 i1 i2, r0 r1 i3 j3.
const FragmentLayout& f16A() { return findMmaShape("m16n8k16", "f16")->a; }
}  // namespace

// fieldPlace: which physical bit carries each field bit, in field order; bits the layout lacks are absent.
TEST(FieldPlace, PlacesEachFieldBit) {
  const Layout l = layoutOf({{"b0", "re"}, {"t0", "x1"}, {"t1", "x0"}, {"r0", "x2"}});
  const FieldPlace f = fieldPlace(l, {"x0", "x1", "x2", "absent"});
  ASSERT_EQ(f.bits.size(), 3u);
  EXPECT_EQ(f.bits[0].field, 0);
  EXPECT_EQ(f.bits[0].phys, (PhysBit{PhysKind::T, 1}));
  EXPECT_EQ(f.bits[1].phys, (PhysBit{PhysKind::T, 0}));
  EXPECT_EQ(f.bits[2].phys, (PhysBit{PhysKind::R, 0}));
}

// part: the field's value held by one index of a kind (lane 1 holds x1, register 1 holds x2).
TEST(FieldPlace, PartOfAnIndex) {
  const FieldPlace rows = fieldPlace(atomLayout(f16A()), matrixIndexBits('i', 16));
  for (int lane = 0; lane < 32; ++lane) EXPECT_EQ(rows.part(PhysKind::T, lane), lane >> 2);
  EXPECT_EQ(rows.part(PhysKind::R, 0), 0);
  EXPECT_EQ(rows.part(PhysKind::R, 1), 8);  // r0 <-> i3: PTX's a1 is row groupID + 8
  EXPECT_EQ(rows.part(PhysKind::R, 2), 0);
  // The parts of every kind add up to the atom's own coordinates.
  const FieldPlace ks = fieldPlace(atomLayout(f16A()), matrixIndexBits('j', 16));
  for (int lane = 0; lane < 32; ++lane)
    for (int reg = 0; reg < 4; ++reg)
      for (int e = 0; e < 2; ++e) {
        const auto [row, col] = f16A().coord(Operand::A, lane, reg, e);
        EXPECT_EQ(rows.part(PhysKind::T, lane) + rows.part(PhysKind::R, reg) + rows.part(PhysKind::B, e), row);
        EXPECT_EQ(ks.part(PhysKind::T, lane) + ks.part(PhysKind::R, reg) + ks.part(PhysKind::B, e), col);
      }
}

// of: the (physical index, field bit) pairs of one kind, in field order.
TEST(FieldPlace, BitsOfAKind) {
  const FieldPlace ks = fieldPlace(atomLayout(f16A()), matrixIndexBits('j', 16));
  EXPECT_EQ(ks.of(PhysKind::T), (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}}));
  EXPECT_EQ(ks.of(PhysKind::R), (std::vector<std::pair<int, int>>{{1, 3}}));
  EXPECT_EQ(ks.of(PhysKind::B), (std::vector<std::pair<int, int>>{{0, 0}}));
  EXPECT_TRUE(ks.of(PhysKind::W).empty());
}

// run: consecutive physical bits carrying consecutive field bits, (index >> shift) & mask << field.
TEST(FieldPlace, RunOfAKind) {
  const FieldPlace rows = fieldPlace(atomLayout(f16A()), matrixIndexBits('i', 16));
  const auto lane = rows.run(PhysKind::T);
  ASSERT_TRUE(lane);
  EXPECT_EQ(lane->shift, 2);
  EXPECT_EQ(lane->count, 3);
  EXPECT_EQ(lane->field, 0);
  const auto k = fieldPlace(atomLayout(f16A()), matrixIndexBits('j', 16)).run(PhysKind::T);
  ASSERT_TRUE(k);  // t0 t1 <-> j1 j2: the lane's part is (lane & 3) << 1
  EXPECT_EQ(k->shift, 0);
  EXPECT_EQ(k->count, 2);
  EXPECT_EQ(k->field, 1);
  EXPECT_FALSE(rows.run(PhysKind::W));
  // Out of order: t0 <-> x1, t1 <-> x0 is no run.
  EXPECT_FALSE(fieldPlace(layoutOf({{"t0", "x1"}, {"t1", "x0"}}), {"x0", "x1"}).run(PhysKind::T));
}

// weight: how far apart two indices of a kind are whose field values differ by 2^field.
TEST(FieldPlace, WeightOfAFieldBit) {
  const FieldPlace rows = fieldPlace(atomLayout(f16A()), matrixIndexBits('i', 16));
  EXPECT_EQ(rows.weight(PhysKind::R, 3), 1);  // i3 on r0
  EXPECT_EQ(rows.weight(PhysKind::T, 0), 4);  // i0 on t2
  EXPECT_EQ(rows.weight(PhysKind::R, 0), 0);  // i0 is on a lane bit
  const FieldPlace ks = fieldPlace(atomLayout(f16A()), matrixIndexBits('j', 16));
  EXPECT_EQ(ks.weight(PhysKind::R, 3), 2);  // j3 on r1
}

// atomLayout: an operand fragment of an atom as a layout from physical to matrix bits.
TEST(FieldPlace, AtomAsLayout) {
  const Layout a = atomLayout(f16A());
  EXPECT_EQ(*a.logicalAt({PhysKind::B, 0}), "j0");
  EXPECT_EQ(*a.logicalAt({PhysKind::T, 2}), "i0");
  EXPECT_EQ(*a.logicalAt({PhysKind::R, 1}), "j3");
  EXPECT_EQ(a.numRegisters(), f16A().numRegisters());
}

// matrixIndexBits: the bits of a matrix index of a power-of-two extent.
TEST(FieldPlace, MatrixIndexBits) {
  EXPECT_EQ(matrixIndexBits('i', 16), (std::vector<std::string>{"i0", "i1", "i2", "i3"}));
  EXPECT_EQ(matrixIndexBits('k', 8), (std::vector<std::string>{"k0", "k1", "k2"}));
  EXPECT_TRUE(matrixIndexBits('j', 1).empty());
}

// wgmmaAccumulatorLayout: the accumulator atom as data reproduces PTX's formulas for every thread and register, and
// the registers it names are exactly the n / 2 the instruction writes.
TEST(Wgmma, AccumulatorLayout) {
  for (int n : {8, 24, 128, 256}) {
    const Layout acc = wgmmaAccumulatorLayout(n);
    EXPECT_GE(acc.numRegisters(), n / 2);
    EXPECT_LT(acc.numRegisters(), n) << n;
    const FieldPlace rows = fieldPlace(acc, matrixIndexBits('i', 64)), cols = fieldPlace(acc, matrixIndexBits('k', n));
    for (int t = 0; t < 128; ++t)
      for (int i = 0; i < n / 2; ++i) {
        const int row = rows.part(PhysKind::T, t % 32) + rows.part(PhysKind::W, t / 32) + rows.part(PhysKind::R, i);
        const int col = cols.part(PhysKind::T, t % 32) + cols.part(PhysKind::R, i);
        EXPECT_EQ(row, 16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2));
        EXPECT_EQ(col, 8 * (i / 4) + 2 * (t % 4) + i % 2);
        int r, c;
        wgmmaAccumulatorCoord(t, i, r, c);
        EXPECT_EQ(r, row);
        EXPECT_EQ(c, col);
      }
  }
}

// Per warp, the wgmma accumulator is mma.sync's m16n8 32-bit C fragment (rows of the warp, one per 8 columns).
TEST(Wgmma, AccumulatorOfAWarpIsTheMmaSyncC) {
  const Layout acc = wgmmaAccumulatorLayout(8), c = atomLayout(findMmaShape("m16n8k32", "s8")->c);
  for (const auto& e : c.entries()) EXPECT_EQ(acc.logicalAt(e.phys), e.logical) << e.phys.str();
}
