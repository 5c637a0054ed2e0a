// The layout algebra (generator/layout/BitMap.h): each operation alone, then the questions the verifier and the
// synthesizer ask through it.
#include <gtest/gtest.h>

#include "generator/layout/BitMap.h"
#include "generator/layout/Layout.h"

using namespace warpforge;

namespace {
BitMap map(std::vector<BitMap::Pair> p) { return BitMap(std::move(p)); }
}  // namespace

TEST(BitMap, IsABijection) {
  EXPECT_THROW(map({{"a", "x"}, {"a", "y"}}), BitMapError);
  EXPECT_THROW(map({{"a", "x"}, {"b", "x"}}), BitMapError);
  const BitMap m = map({{"a", "x"}, {"b", "y"}});
  EXPECT_EQ(*m.apply("a"), "x");
  EXPECT_EQ(*m.preimage("y"), "b");
  EXPECT_FALSE(m.apply("x").has_value());
  EXPECT_EQ(m.domain(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(m.image(), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(BitMap::identity({"p", "q"}).str(), "p->p q->q");
}

TEST(BitMap, Inverse) {
  const BitMap m = map({{"a", "x"}, {"b", "y"}, {"c", "z"}});
  EXPECT_EQ(m.inverse().str(), "x->a y->b z->c");
  EXPECT_EQ(m.inverse().inverse(), m);
  EXPECT_EQ(m.compose(m.inverse()), BitMap::identity({"x", "y", "z"}));
  EXPECT_EQ(m.inverse().compose(m), BitMap::identity({"a", "b", "c"}));
}

TEST(BitMap, Compose) {
  const BitMap f = map({{"x", "1"}, {"y", "2"}, {"z", "3"}});
  const BitMap g = map({{"a", "y"}, {"b", "x"}});
  EXPECT_EQ(f.compose(g).str(), "a->2 b->1");  // f(g(.)), restricted to what g reaches
  EXPECT_THROW(g.compose(f), BitMapError);     // f's images are not g's domain
  // Associative.
  const BitMap h = map({{"u", "b"}, {"v", "a"}});
  EXPECT_EQ(f.compose(g).compose(h), f.compose(g.compose(h)));
}

TEST(BitMap, ProductAndDivide) {
  const BitMap f = map({{"a", "x"}});
  const BitMap g = map({{"b", "y"}, {"c", "z"}});
  const BitMap fg = f.product(g);
  EXPECT_EQ(fg.str(), "a->x b->y c->z");
  EXPECT_THROW(f.product(map({{"a", "w"}})), BitMapError);  // domain overlap
  EXPECT_THROW(f.product(map({{"d", "x"}})), BitMapError);  // image overlap
  EXPECT_EQ(fg.divide(f), g);                               // (f x g) / f = g
  EXPECT_EQ(fg.divide(g), f);
  EXPECT_EQ(f.product(fg.divide(f)), fg);
  EXPECT_THROW(fg.divide(map({{"a", "y"}})), BitMapError);  // not a factor: disagrees on a
  EXPECT_THROW(fg.divide(map({{"e", "x"}})), BitMapError);  // not in the domain
}

TEST(BitMap, RestrictAndRename) {
  const BitMap m = map({{"a", "x"}, {"b", "y"}, {"c", "z"}});
  EXPECT_EQ(m.restrict({"c", "a"}).str(), "c->z a->x");
  EXPECT_THROW(m.restrict({"d"}), BitMapError);
  EXPECT_EQ(m.renameImage(map({{"y", "y_in"}})).str(), "a->x b->y_in c->z");
  EXPECT_THROW(m.renameImage(map({{"y", "x"}})), BitMapError);  // would not be a bijection
}

// A layout is a bit map physical -> logical; the physical permutation that turns one layout into another is
// to^-1 o from, which is what a relayout must perform (the note's Y' -> Y: b0 and r3 exchange).
TEST(BitMap, LayoutsAndTheRelayoutPermutation) {
  const Layout yp = Layout::parse("b <-> q3, t0 t1 t2 t3 t4 <-> q4 q5 q6 q7 q8, r <-> q0 q1 q2 ReIm");
  const Layout y = Layout::parse("b <-> ReIm, t0 t1 t2 t3 t4 <-> q4 q5 q6 q7 q8, r <-> q0 q1 q2 q3");
  EXPECT_EQ(Layout::fromMap(yp.map()), yp);
  const BitMap perm = y.map().inverse().compose(yp.map());
  EXPECT_EQ(*perm.apply("b0"), "r3");
  EXPECT_EQ(*perm.apply("r3"), "b0");
  EXPECT_EQ(*perm.apply("t2"), "t2");
  EXPECT_THROW(Layout::fromMap(map({{"x0", "n0"}})), LayoutError);
  EXPECT_EQ(PhysBit::parse("r12"), (PhysBit{PhysKind::R, 12}));
  EXPECT_FALSE(PhysBit::parse("t").has_value());
  EXPECT_FALSE(PhysBit::parse("t99").has_value());
}

// The notation's new bits: batch bits f<k> and pass-through pairs x_in / x_out.
TEST(BitMap, LayoutNamesBatchAndPassThroughBits) {
  const Layout a = Layout::parse(
      "b <-> ReIm_in, t0 t1 t2 t3 t4 <-> n1 f0_in q0 q1 f0_out, r <-> ReIm_out n0_in n0_out");
  EXPECT_EQ(*a.logicalAt({PhysKind::T, 1}), "f0_in");
  EXPECT_EQ(*a.logicalAt({PhysKind::R, 2}), "n0_out");
  EXPECT_THROW(Layout::parse("t0 <-> f01"), LayoutError);
  EXPECT_THROW(Layout::parse("t0 <-> x0_in"), LayoutError);
}
