// The f32-accumulating variant of tc_fft (`"accumulate": "f32"`): the same designs with f32-C MMAs, proved by the
// Verifier through the f32 view of each MMA's output, right on the emulated warp in double and within its (lower) bound
// in f16, never less accurate than the f16 variant on the same inputs; `auto` choosing it exactly where max_error needs
// it; an f16-C fragment in an f32 program and a wrong register refused or caught; the default kernels unchanged.
#include <gtest/gtest.h>

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "generator/emulate/Emulator.h"
#include "generator/layout/FragmentTable.h"
#include "generator/tc_fft/TcFftData.h"
#include "generator/tc_fft/TcFftEmitter.h"
#include "generator/tc_fft/TcFftFamily.h"
#include "generator/tc_fft/TcFftParser.h"
#include "generator/tc_fft/TcFftSpecJson.h"
#include "generator/verify/MmaCheck.h"
#include "generator/verify/Verifier.h"
#include "warpforge/spec_error.h"
#include "TestUtil.h"

using namespace warpforge;

namespace {

std::string spec(int nIn, int nOut, int sign, const std::string& extra) {
  return fmt::format(
      R"({{"name": "f32_{}_{}", "family": "tc_fft", "precision": "f16", {}"transform": {{"n_in": {}, "n_out": {}, "sign": {}}}}})",
      nIn, nOut, extra, nIn, nOut, sign);
}

LayoutProgram parse(int nIn, int nOut, int sign, const std::string& extra) {
  return parseTcFftSpecText(spec(nIn, nOut, sign, extra), "f32.json");
}

std::string specErrorPath(const std::string& text) {
  try {
    parseTcFftSpecText(text, "f32.json");
  } catch (const SpecError& e) {
    return e.path() + ": " + e.what();
  }
  return "accepted";
}

}  // namespace

// 16 .. 4096 points, zero padding, both signs: proved, exact in double, within the f32 bound in f16, and no worse than
// the f16 variant of the same design on the same inputs (the f32 one leaves out roundings, it adds none).
TEST(TcFftF32, VerifiedAndEmulatedAtEverySize) {
  struct Case {
    int nIn, nOut, sign, ffts;
  };
  for (const Case& c : {Case{16, 16, 1, 16}, Case{8, 64, -1, 16}, Case{128, 256, 1, 8}, Case{256, 512, -1, 8},
                        Case{512, 1024, 1, 4}, Case{2048, 2048, -1, 2}, Case{4096, 4096, 1, 2}}) {
    const std::string what = fmt::format("{} -> {} sign {:+d}", c.nIn, c.nOut, c.sign);
    LayoutProgram f32 = parse(c.nIn, c.nOut, c.sign, R"("accumulate": "f32", )");
    LayoutProgram f16 = parse(c.nIn, c.nOut, c.sign, "");
    ASSERT_EQ(f32.accumulate, "f32") << what;
    ASSERT_EQ(f16.accumulate, "f16") << what;
    const Plan p32 = Verifier().verify(f32), p16 = Verifier().verify(f16);
    for (const auto& st : p32.steps)
      if (st.spec->op == StepOp::Mma) EXPECT_EQ(st.mma.shape->cType, "f32") << what << " " << st.spec->path;
    EXPECT_LT(emulateAgainstFftw(p32, EmuMode::Double, 3, c.ffts).maxRelErr, 1e-12) << what;
    const double e32 = emulateAgainstFftw(p32, EmuMode::F16, 5, c.ffts).maxRelErr;
    const double e16 = emulateAgainstFftw(p16, EmuMode::F16, 5, c.ffts).maxRelErr;
    const double b32 = tcFftErrorBound(f32), b16 = tcFftErrorBound(f16);
    EXPECT_LE(e32, b32) << what;
    EXPECT_LE(b32, b16) << what;
    EXPECT_DOUBLE_EQ(b16 - b32, 2 * std::ldexp(1.0, -11) * f32ComplexMultiplies(f16)) << what;
    EXPECT_LE(e32, e16 * 1.02) << what;
    std::printf(
        "[f32] %s: emulated f16 %.3e -> f32 accumulators %.3e; bound %.2e -> %.2e; %d cmul in f32; "
        "%.0f -> %.0f SM-cycles/FFT\n",
        what.c_str(), e16, e32, b16, b32, f32ComplexMultiplies(f16), p16.total.smCycles, p32.total.smCycles);
  }
}

// `auto` picks f32 exactly where the f16 bound misses max_error and the f32 bound meets it; a max_error neither meets
// (or the asked accumulation misses) is a SpecError at /max_error naming both bounds; the written spec says which and
// why, and reads back to the same choice.
TEST(TcFftF32, AutoChoosesWhereAccuracyNeedsIt) {
  const LayoutProgram ref = parse(256, 512, 1, "");
  const double b16 = tcFftErrorBound(ref, "f16"), b32 = tcFftErrorBound(ref, "f32");
  ASSERT_LT(b32, b16);
  const double between = (b16 + b32) / 2;
  LayoutProgram picked = parse(256, 512, 1, fmt::format(R"("max_error": {}, )", between));
  EXPECT_EQ(picked.accumulate, "f32");
  EXPECT_NE(picked.accumulateReason.find("misses"), std::string::npos) << picked.accumulateReason;
  LayoutProgram loose = parse(256, 512, 1, fmt::format(R"("accumulate": "auto", "max_error": {}, )", b16 * 1.01));
  EXPECT_EQ(loose.accumulate, "f16");
  EXPECT_NE(loose.accumulateReason.find("meets"), std::string::npos) << loose.accumulateReason;
  EXPECT_EQ(parse(256, 512, 1, R"("accumulate": "auto", )").accumulate, "f16");

  const std::string tight = specErrorPath(spec(256, 512, 1, fmt::format(R"("max_error": {}, )", b32 * 0.99)));
  EXPECT_EQ(tight.rfind("/max_error", 0), 0u) << tight;
  EXPECT_NE(tight.find("neither"), std::string::npos) << tight;
  EXPECT_NE(tight.find(fmt::format("{:.2e}", b32)), std::string::npos) << tight;
  const std::string f16Miss = specErrorPath(
      spec(256, 512, 1, fmt::format(R"("accumulate": "f16", "max_error": {}, )", between)));
  EXPECT_EQ(f16Miss.rfind("/max_error", 0), 0u) << f16Miss;
  EXPECT_NE(f16Miss.find("\"accumulate\": \"f32\""), std::string::npos) << f16Miss;
  EXPECT_EQ(specErrorPath(spec(256, 512, 1, R"("accumulate": "f64", )")).rfind("/accumulate", 0), 0u);
  EXPECT_EQ(specErrorPath(spec(256, 512, 1, R"("max_error": "small", )")).rfind("/max_error", 0), 0u);
  EXPECT_EQ(specErrorPath(spec(256, 512, 1, R"("max_error": 0, )")).rfind("/max_error", 0), 0u);

  // The complete spec written for the auto request says f32, the accuracy asked and why; it reads back to f32.
  const Json full = tcFftSpecJson(picked);
  EXPECT_EQ(full["accumulate"], "f32");
  EXPECT_DOUBLE_EQ(full["max_error"].get<double>(), between);
  EXPECT_NE(full["accumulate_reason"].get<std::string>().find("f32 bound meets"), std::string::npos);
  EXPECT_EQ(parseTcFftSpecText(full.dump(), "full.json").accumulate, "f32");
  // The default writes none of it: synthesized complete specs are unchanged.
  EXPECT_FALSE(tcFftSpecJson(ref).contains("accumulate"));

  // verify and explain say it.
  auto fs = tcFftFamily().parse(Json::parse(spec(256, 512, 1, fmt::format(R"("max_error": {}, )", between))), "a.json");
  const VerifyReport r = fs->verify();
  EXPECT_EQ(r.counts["accumulate"], "f32");
  EXPECT_NE(r.text.find("accumulation: f32 (auto: the f16 bound misses"), std::string::npos) << r.text;
  EXPECT_NE(fs->explain({}).find("accumulation: f32"), std::string::npos);
}

// The Verifier proves the f32 MMAs through the f32 view of their outputs: the view fits the f32-C fragment and not the
// f16-C one, and the unviewed layout fits the f16-C fragment and not the f32-C one (an f16-C MMA in an f32 program, or
// an f32-C MMA writing the f16 layout, is refused). A wrong f32 register in the resolved plan is caught by the
// emulator.
TEST(TcFftF32, WrongFragmentsAndRegistersAreCaught) {
  LayoutProgram p = parse(256, 512, 1, R"("accumulate": "f32", )");
  const Plan plan = Verifier().verify(p);
  int checked = 0;
  for (const auto& st : plan.steps) {
    if (st.spec->op != StepOp::Mma) continue;
    const ArraySpec &A = *p.array(st.spec->a), &B = *p.array(st.spec->b), &C = *p.array(st.spec->c);
    const Layout view = f32AccumulatorView(C.layout);
    const MmaShape* f32 = findMmaShape(st.spec->shape, "f16", "f32");
    const MmaShape* f16 = findMmaShape(st.spec->shape, "f16", "f16");
    ASSERT_TRUE(f32 && f16);
    EXPECT_TRUE(
        checkMmaOperands(*f32, {A.name, &A.layout, /*passThrough=*/true}, {B.name, &B.layout}, {C.name, &view}).ok());
    EXPECT_FALSE(
        checkMmaOperands(*f16, {A.name, &A.layout, /*passThrough=*/true}, {B.name, &B.layout}, {C.name, &view}).ok());
    EXPECT_TRUE(
        checkMmaOperands(*f16, {A.name, &A.layout, /*passThrough=*/true}, {B.name, &B.layout}, {C.name, &C.layout})
            .ok());
    const MmaCheck wrong = checkMmaOperands(*f32, {A.name, &A.layout, /*passThrough=*/true}, {B.name, &B.layout},
                                            {C.name, &C.layout});
    ASSERT_FALSE(wrong.ok());
    EXPECT_NE(wrong.problems.front().find("fragment needs"), std::string::npos) << wrong.problems.front();
    ++checked;
  }
  EXPECT_EQ(checked, 3);
  // An f32 view's register bits are the __half2 layout's shifted up by one, b0 on r0.
  EXPECT_EQ(f32AccumulatorView(Layout::parse("b0 <-> q0, t0 t1 t2 t3 t4 <-> q1 q2 q3 q4 q5, r0 r1 <-> ReIm n2")).str(),
            "t0 t1 t2 t3 t4 <-> q1 q2 q3 q4 q5, r0 r1 r2 <-> q0 ReIm n2");

  // Wrong registers: the fragment's two f32 register bits exchanged (k0 and i3 swapped) in each MMA in turn.
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    if (plan.steps[i].spec->op != StepOp::Mma) continue;
    Plan mutant = plan;
    std::swap(mutant.steps[i].mma.cReg[0], mutant.steps[i].mma.cReg[1]);
    EXPECT_GT(emulateAgainstFftw(mutant, EmuMode::Double, 7, 2).maxRelErr, 0.1) << "step " << i;
  }
}

// The default is unchanged: an explicit "accumulate": "f16" emits the same kernel as none, and the f32 kernel differs
// only where it should (f32-C MMAs, f32 complex multiplies, the rounding to __half2).
TEST(TcFftF32, DefaultKernelsUnchanged) {
  for (auto [nIn, nOut] : {std::pair{64, 512}, std::pair{1024, 1024}}) {
    auto plain = tcFftFamily().parse(Json::parse(spec(nIn, nOut, 1, "")), "a.json");
    auto f16 = tcFftFamily().parse(Json::parse(spec(nIn, nOut, 1, R"("accumulate": "f16", )")), "a.json");
    auto f32 = tcFftFamily().parse(Json::parse(spec(nIn, nOut, 1, R"("accumulate": "f32", )")), "a.json");
    const std::string a = plain->emit({}).plan.sources.front().text, b = f16->emit({}).plan.sources.front().text,
                      c = f32->emit({}).plan.sources.front().text;
    EXPECT_EQ(a, b);
    EXPECT_EQ(a.find("_f32("), std::string::npos);
    EXPECT_NE(c.find("wf_mma_m16n8k16_f32("), std::string::npos);
    EXPECT_NE(c.find("wf_cmul_f32("), std::string::npos);
    EXPECT_NE(c.find("= wf_pack(f_"), std::string::npos);
    EXPECT_EQ(c.find("_f16("), std::string::npos) << "an f16-C MMA in the f32 kernel";
  }
}
