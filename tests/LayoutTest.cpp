#include <gtest/gtest.h>

#include "generator/layout/Layout.h"

using namespace warpforge;

TEST(Layout, ParsesTheNotesNotation) {
  Layout l = Layout::parse("b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r <-> n2 n1 n0");
  EXPECT_EQ(l.numBits(), 9);
  EXPECT_EQ(l.count(PhysKind::R), 3);
  EXPECT_EQ(*l.logicalAt({PhysKind::B, 0}), "ReIm");
  EXPECT_EQ(*l.logicalAt({PhysKind::T, 0}), "n7");
  EXPECT_EQ(*l.logicalAt({PhysKind::T, 4}), "n3");
  EXPECT_EQ(*l.logicalAt({PhysKind::R, 0}), "n2");  // r <-> n2 n1 n0 means r0 <-> n2
  EXPECT_EQ(*l.logicalAt({PhysKind::R, 2}), "n0");
  EXPECT_EQ(l.numRegisters(), 8);
}

TEST(Layout, ConcatenatedAndExplicitFormsAgree) {
  Layout a = Layout::parse("b<->ReIm, t0t1t2t3t4 <-> n7n6n5n4n3, r0 r1 r2 <-> n2 n1 n0");
  Layout b = Layout::parse("b0 <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r <-> n2 n1 n0");
  EXPECT_TRUE(a == b);
  EXPECT_EQ(Layout::parse(a.str()), a);  // printing round-trips
}

TEST(Layout, RejectsNonBijections) {
  EXPECT_THROW(Layout::parse("b <-> ReIm, t0 <-> ReIm"), LayoutError);         // logical twice
  EXPECT_THROW(Layout::parse("t0 <-> n0, t0 <-> n1"), LayoutError);           // physical twice
  EXPECT_THROW(Layout::parse("t0 t2 <-> n0 n1"), LayoutError);                // t1 missing
  EXPECT_THROW(Layout::parse("t0 t1 <-> n0"), LayoutError);                   // count mismatch
  EXPECT_THROW(Layout::parse("t0 <-> x9"), LayoutError);                      // bad name
  EXPECT_THROW(Layout::parse("t0 n1"), LayoutError);                          // no arrow
  EXPECT_THROW(Layout::parse(""), LayoutError);
  EXPECT_THROW(Layout::parse("r t0 <-> n0 n1"), LayoutError);                 // bare r not alone
}

TEST(Layout, SwapAndRegisterOrder) {
  Layout l = Layout::parse("b <-> n5, t0 t1 t2 t3 t4 <-> n4 n3 q0 q1 q2, r <-> n2 n1 n0 ReIm");
  Layout s = l.swapped({PhysKind::B, 0}, {PhysKind::R, 0});
  EXPECT_EQ(*s.logicalAt({PhysKind::B, 0}), "n2");
  EXPECT_EQ(*s.logicalAt({PhysKind::R, 0}), "n5");
  Layout renamed = l.swapped({PhysKind::R, 0}, {PhysKind::R, 3});
  EXPECT_FALSE(renamed == l);
  EXPECT_TRUE(renamed.equalUpToRegisterOrder(l));
  EXPECT_FALSE(s.equalUpToRegisterOrder(l));
}
