#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bench/Facets.h"
#include "generator/tc_fft/TcFftFamily.h"
#include "generator/tc_fft/TcFftParser.h"
#include "generator/complexmma/ComplexMma.h"
#include "generator/layout/Wgmma.h"
#include "generator/verify/MmaCheck.h"
#include "generator/verify/Verifier.h"
#include "TestUtil.h"

using namespace warpforge;
using Json = nlohmann::ordered_json;

namespace {
Json chime() { return Json::parse(test::readFile(test::sourcePath(test::kChimeSpec))); }

std::vector<VerifyIssue> issuesOf(const Json& j) {
  LayoutProgram s = parseTcFftSpecText(j.dump(), "mutant.json");
  try {
    Verifier().verify(s);
  } catch (const VerifyError& e) {
    return e.issues();
  }
  return {};
}
}  // namespace

TEST(Verifier, ChimeSpecReproducesTheNotesCounts) {
  LayoutProgram s = parseTcFftSpecFile(test::sourcePath(test::kChimeSpec));
  Plan p = Verifier().verify(s);
  EXPECT_EQ(p.total.mma.at("m16n8k8"), 8);
  EXPECT_EQ(p.total.mma.at("m16n8k16"), 16);
  EXPECT_EQ(p.total.hfma2, 64);
  EXPECT_EQ(p.total.shuffles, 16);
  EXPECT_EQ(p.total.byteperms, 32);
  EXPECT_DOUBLE_EQ(p.total.smCycles, 160.0);  // eq. (30)
  EXPECT_TRUE(p.warnings.empty());
}

TEST(Verifier, MmaMismatchNamesStepArrayBitAndNames) {
  Json j = chime();
  // Swap n7 and n6 on X's lanes: B's j1/j2 no longer match A's.
  j["arrays"]["X"]["layout"] = "b <-> ReIm, t0 t1 t2 t3 t4 <-> n6 n7 n5 n4 n3, r <-> n2 n1 n0";
  auto issues = issuesOf(j);
  ASSERT_FALSE(issues.empty());
  EXPECT_EQ(issues[0].path, "/steps/0");
  EXPECT_NE(issues[0].message.find("'X'"), std::string::npos) << issues[0].message;
  EXPECT_NE(issues[0].message.find("physical bit t0"), std::string::npos) << issues[0].message;
  EXPECT_NE(issues[0].message.find("expected n7, found n6"), std::string::npos) << issues[0].message;
}

TEST(Verifier, CmulMismatch) {
  Json j = chime();
  j["arrays"]["E_Z1_Z2"]["layout"] = "b <-> n4, t0 t1 t2 t3 t4 <-> n5 n3 q0 q1 q2, r <-> n2 ReIm";
  auto issues = issuesOf(j);
  ASSERT_FALSE(issues.empty());
  EXPECT_EQ(issues[0].path, "/steps/1");
  EXPECT_NE(issues[0].message.find("expected n4, found n5"), std::string::npos) << issues[0].message;
}

TEST(Verifier, FactorizationMustCoverEachPairOnce) {
  Json j = chime();
  // Drop the last MMA's phase bits from q{6,7,8} to q{5,7,8}: E(q5, n0..n2) twice, E(q6, .) never.
  j["arrays"]["E_Z4_Yp"]["phase"]["q"] = Json::array({5, 7, 8});
  j["arrays"]["E_Z4_Yp"]["layout"] = "b <-> n2, t0 t1 t2 t3 t4 <-> n1 n0 q5 q7 q8, r <-> ReIm_out ReIm_in";
  j["arrays"]["E_Z4_Yp"]["stored"] = "b <-> n2, t0 t1 t2 t3 t4 <-> n1 n0 q5 q7 q8, r <-> ReIm";
  auto issues = issuesOf(j);
  bool twice = false, never = false;
  for (const auto& i : issues) {
    twice |= i.message.find("E(q5, n0) is applied 2 times") != std::string::npos;
    never |= i.message.find("E(q6, n0) is applied 0 times") != std::string::npos;
  }
  EXPECT_TRUE(twice);
  EXPECT_TRUE(never);
}

TEST(Verifier, SumMustMatchTheFragment) {
  Json j = chime();
  j["steps"][0]["sum"] = Json::array({"n6"});
  auto issues = issuesOf(j);
  ASSERT_FALSE(issues.empty());
  bool named = false;
  for (const auto& i : issues) named |= i.path.rfind("/steps/0", 0) == 0 && i.message.find("n7") != std::string::npos;
  EXPECT_TRUE(named);
}

TEST(Verifier, StoredLayoutMustMatchOperand) {
  Json j = chime();
  j["arrays"]["E_X_Z1"]["stored"] = "b <-> ReIm, t0 t1 t2 t3 t4 <-> n6 n7 q0 q1 q2, r <-> n0 n1";
  auto issues = issuesOf(j);
  ASSERT_FALSE(issues.empty());
  EXPECT_EQ(issues[0].path, "/arrays/E_X_Z1/stored");
}

TEST(Verifier, DataflowOrder) {
  Json j = chime();
  std::swap(j["steps"][0], j["steps"][1]);
  auto issues = issuesOf(j);
  ASSERT_FALSE(issues.empty());
  EXPECT_EQ(issues[0].path, "/steps/0/b");
}

// Through the family: the report and its counts; an inconsistent spec parses, then
// verify (and everything that needs the plan) throws InconsistentSpec with every issue.
TEST(Verifier, FamilyReportAndCounts) {
  auto spec = makeTcFftSpec(parseTcFftSpecFile(test::sourcePath(test::kChimeSpec)));
  VerifyReport r = spec->verify();
  EXPECT_NE(r.text.find("CONSISTENT"), std::string::npos) << r.text;
  EXPECT_EQ(r.counts["mma"]["m16n8k16"], 16);
  EXPECT_EQ(r.counts["mma"]["m16n8k8"], 8);
  EXPECT_EQ(r.counts["hfma2"], 64);
  EXPECT_EQ(r.counts["shuffles"], 16);
  EXPECT_EQ(r.counts["byteperms"], 32);
  EXPECT_DOUBLE_EQ(r.counts["sm_cycles"].get<double>(), 160.0);
  EXPECT_NE(spec->explain({}).find("[Z3]"), std::string::npos);
}

TEST(Verifier, FamilyThrowsInconsistentSpec) {
  Json j = chime();
  j["arrays"]["X"]["layout"] = "b <-> ReIm, t0 t1 t2 t3 t4 <-> n6 n7 n5 n4 n3, r <-> n2 n1 n0";
  auto spec = tcFftFamily().parse(j, "mutant.json");
  try {
    spec->verify();
    FAIL();
  } catch (const InconsistentSpec& e) {
    std::string m = e.what();
    EXPECT_EQ(m.rfind("mutant.json: /steps/0: ", 0), 0u) << m;
    EXPECT_NE(m.find("expected n7, found n6"), std::string::npos) << m;
  }
  EXPECT_THROW(spec->emit({}), InconsistentSpec);
  EXPECT_THROW(spec->explain({}), InconsistentSpec);
  EXPECT_THROW(emulateFacet(*spec)->emulate("double", 1, 1), InconsistentSpec);
  EXPECT_NO_THROW(spec->randomInputs(2, 1));  // needs only the sizes
}

// The common operand check (generator/verify/MmaCheck.h) that every tensor-core family calls, on its own: its rules
// are named in its problems, a pass-through operand may be either factor, and kernels that hand fragment registers
// to the instruction by position can ask for that order.
TEST(MmaCheck, RulesPassThroughAndRegisterOrder) {
  const MmaShape& s = *findMmaShape("m16n8k8", "tf32");
  auto L = [](const char* text) { return cmma::layoutText(text); };
  const Layout a = L("t0 t1 t2 t3 t4 <-> x0 x1 p0 p1 p2, r0 r1 <-> p3 x2");
  const Layout b = L("t0 t1 t2 t3 t4 <-> x0 x1 q0 q1 q2, r0 <-> x2");
  const Layout c = L("t0 t1 t2 t3 t4 <-> q1 q2 p0 p1 p2, r0 r1 <-> q0 p3");
  EXPECT_TRUE(checkMmaOperands(s, {"A", &a}, {"B", &b}, {"C", &c}, {true}).ok());
  // A's two registers exchanged: a naming choice where registers are free, an error where the kernel fixes them.
  const Layout aSwapped = a.swapped({PhysKind::R, 0}, {PhysKind::R, 1});
  EXPECT_TRUE(checkMmaOperands(s, {"A", &aSwapped}, {"B", &b}, {"C", &c}).ok());
  const MmaCheck fixed = checkMmaOperands(s, {"A", &aSwapped}, {"B", &b}, {"C", &c}, {true});
  ASSERT_FALSE(fixed.ok());
  EXPECT_NE(fixed.problems[0].find(kRuleRows), std::string::npos) << fixed.problems[0];
  // B's summed lane bits exchanged: named as the summed-bit rule.
  const Layout bBad = b.swapped({PhysKind::T, 0}, {PhysKind::T, 1});
  const MmaCheck summed = checkMmaOperands(s, {"A", &a}, {"B", &bBad}, {"C", &c}, {true});
  ASSERT_FALSE(summed.ok());
  EXPECT_NE(summed.problems[0].find(kRuleSummed), std::string::npos) << summed.problems[0];
  EXPECT_NE(summed.problems[0].find("expected x0, found x1"), std::string::npos) << summed.problems[0];
  // A column of C that B does not produce: the column rule.
  const Layout cBad = c.swapped({PhysKind::T, 0}, {PhysKind::R, 0});
  const MmaCheck cols = checkMmaOperands(s, {"A", &a}, {"B", &b}, {"C", &cBad}, {true});
  ASSERT_FALSE(cols.ok());
  EXPECT_NE(cols.problems[0].find(kRuleColumns), std::string::npos) << cols.problems[0];
  // B the identity on x2 (x2_in summed against A's x2, x2_out a column of C): accepted only as a pass-through.
  const Layout a2 = L("t0 t1 t2 t3 t4 <-> x0 x1 p0 p1 p2, r0 r1 <-> p3 x2");
  const Layout b2 = L("t0 t1 t2 t3 t4 <-> x0 x1 x2_out q1 q2, r0 <-> x2_in");
  const Layout c2 = L("t0 t1 t2 t3 t4 <-> q1 q2 p0 p1 p2, r0 r1 <-> x2 p3");
  EXPECT_FALSE(checkMmaOperands(s, {"A", &a2}, {"B", &b2}, {"C", &c2}, {true}).ok());
  EXPECT_TRUE(checkMmaOperands(s, {"A", &a2}, {"B", &b2, true}, {"C", &c2}, {true}).ok());
  // A layout without the atom's bits: the operand-bits rule.
  const Layout shortB = L("t0 t1 t2 t3 t4 <-> x0 x1 q0 q1 q2");
  const MmaCheck bits = checkMmaOperands(s, {"A", &a}, {"B", &shortB}, {"C", &c}, {true});
  ASSERT_FALSE(bits.ok());
  EXPECT_NE(bits.problems[0].find(kRuleOperandBits), std::string::npos) << bits.problems[0];
  // matrixBits: the layout composed with the inverse atom.
  const auto m = matrixBits(a, s.a);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->apply("i3"), "p3");
  EXPECT_EQ(m->apply("j2"), "x2");
  EXPECT_FALSE(matrixBits(shortB, s.b).has_value());
  // The 32-bit-accumulator atom the complex families write C against.
  EXPECT_EQ(mmaAccumulatorShape(*findMmaShape("m16n8k16", "f16")).cType, "f32");
  EXPECT_EQ(mmaAccumulatorShape(*findMmaShape("m16n8k32", "s8")).cType, "s32");
}

TEST(MmaCheck, WgmmaOperandThroughItsDescriptor) {
  // A 64-row, 32-byte K-major operand staged in the 128-byte swizzle: the staging's placement is what the
  // descriptor reads; the same bytes staged without the swizzle are caught, naming the rule.
  const std::uint64_t d = WgmmaDescriptor{1024, 16, 1024, 0, WgmmaSwizzle::B128}.encode();
  long long reads = 0;
  auto swizzled = [](int row, int kb) -> long long {
    return 1024 + wgmmaStoreOffset(WgmmaSwizzle::B128, row, kb, 1024);
  };
  EXPECT_EQ(checkWgmmaOperand(d, 64, 32, swizzled, &reads), "");
  EXPECT_EQ(reads, 64 * 32);
  const std::string why = checkWgmmaOperand(d, 64, 32,
                                            [](int row, int kb) -> long long { return 1024 + row * 128 + kb; });
  EXPECT_NE(why.find(kRuleDescriptor), std::string::npos) << why;
  EXPECT_NE(checkWgmmaOperand(d, 8, 32, [](int, int) -> long long { return -1; }).find("never staged"),
            std::string::npos);
}
