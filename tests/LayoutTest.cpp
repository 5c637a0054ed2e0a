#include <gtest/gtest.h>

#include <chrono>

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
  EXPECT_THROW(Layout::parse("b <-> ReIm, t0 <-> ReIm"), LayoutError);  // logical twice
  EXPECT_THROW(Layout::parse("t0 <-> n0, t0 <-> n1"), LayoutError);     // physical twice
  EXPECT_THROW(Layout::parse("t0 t2 <-> n0 n1"), LayoutError);          // t1 missing
  EXPECT_THROW(Layout::parse("t0 t1 <-> n0"), LayoutError);             // count mismatch
  EXPECT_THROW(Layout::parse("t0 <-> x9"), LayoutError);                // bad name
  EXPECT_THROW(Layout::parse("t0 n1"), LayoutError);                    // no arrow
  EXPECT_THROW(Layout::parse(""), LayoutError);
  EXPECT_THROW(Layout::parse("r t0 <-> n0 n1"), LayoutError);  // bare r not alone
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

// Hostile layout text: a hand-written one-pass tokenizer (std::regex recurses per character, and copying the rest
// of the text per token is quadratic); indices are bounded while read (no stoi).
TEST(Layout, HostileTokensAreLayoutErrors) {
  EXPECT_THROW(Layout::parse("t0 <-> n99999999999"), LayoutError);
  EXPECT_THROW(Layout::parse("t99999999999 <-> n0"), LayoutError);
  EXPECT_THROW(Layout::parse("t0 <-> n" + std::string(50000, '9')), LayoutError);
  EXPECT_THROW(Layout::parse("t32 <-> n0"), LayoutError);
  EXPECT_THROW(Layout::parse("t0 <-> n64"), LayoutError);
  EXPECT_THROW(Layout::parse("t0 <-> n01"), LayoutError);  // would not be the bit n1
  std::string many = "r <->";
  for (int i = 0; i < 33; ++i) many += " n" + std::to_string(i);
  EXPECT_THROW(Layout::parse(many), LayoutError);  // implicit r0..r32
  EXPECT_NO_THROW(Layout::parse(
      "t31 t0 t1 t2 t3 t4 t5 t6 t7 t8 t9 t10 t11 t12 t13 t14 t15 t16 t17 t18 t19 t20 t21 t22 t23 t24 t25 t26 t27 "
      "t28 t29 t30 <-> n63 n0 n1 n2 n3 n4 n5 n6 n7 n8 n9 n10 n11 n12 n13 n14 n15 n16 n17 n18 n19 n20 n21 n22 "
      "n23 n24 n25 n26 n27 n28 n29 n30"));
  try {
    Layout::parse("t0 <-> n" + std::string(50000, '9'));
  } catch (const LayoutError& e) {
    EXPECT_LT(std::string(e.what()).size(), 300u) << "long tokens are shortened in messages";
  }
  // Linear time: 3 MB of tokens is parsed (and refused) in well under a second.
  std::string big = "r <->";
  while (big.size() < (3u << 20)) big += " q1";
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW(Layout::parse(big), LayoutError);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 2.0);
}
