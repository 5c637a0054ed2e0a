// The tc_fft synthesizer: a design for every covered size and sign from {n_in, n_out, sign} alone, proved by the
// Verifier, correct on the emulated warp (double and f16), deterministic, fast; CHIME's size at or below the note's
// cost; a mutated synthesized design rejected; sizes out of reach refused with the rule and the nearest sizes.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "generator/emulate/Emulator.h"
#include "generator/tc_fft/Synthesizer.h"
#include "generator/tc_fft/TcFftData.h"
#include "generator/tc_fft/TcFftFamily.h"
#include "generator/tc_fft/TcFftParser.h"
#include "generator/tc_fft/TcFftSpecJson.h"
#include "generator/tc_fft/PhasePlan.h"
#include "generator/verify/Verifier.h"
#include "warpforge/spec_error.h"
#include "TestUtil.h"

using namespace warpforge;

namespace {

TcFftRequest request(int nIn, int nOut, int sign = 1) {
  TcFftRequest r;
  r.file = "synth.json";
  r.name = fmt::format("fft_{}_{}", nIn, nOut);
  r.nIn = nIn;
  r.nOut = nOut;
  r.sign = sign;
  return r;
}

std::string sizeSpec(int nIn, int nOut, int sign) {
  return fmt::format(
      R"({{"name": "fft_{}_{}", "family": "tc_fft", "precision": "f16", "transform": {{"n_in": {}, "n_out": {}, "sign": {}}}}})",
      nIn, nOut, nIn, nOut, sign);
}

}  // namespace

// The note's size from its transform alone: a design no costlier than the note's (eq. 30: 160 SM-cycles, 10 phase
// registers), found by the search, not special-cased.
TEST(TcFftSynthesis, ChimeSizeFromItsTransformAlone) {
  TcFftSynthesis s = synthesizeTcFft(request(256, 512));
  ASSERT_FALSE(s.ranking.empty());
  const TcFftCandidate& c = s.ranking.front();
  std::printf("[synth] 256 -> 512: %s: %.1f SM-cycles/FFT, %d phase registers (%d candidates, %.2f s CPU)\n",
              c.summary.c_str(), c.smCycles, c.phaseRegisters, s.candidatesScored, s.cpuSeconds);
  EXPECT_TRUE(c.verified);
  EXPECT_LE(c.smCycles, 160.0);
  EXPECT_LE(c.phaseRegisters, 10);
  Plan p = Verifier().verify(s.program);
  EXPECT_DOUBLE_EQ(p.total.smCycles, c.smCycles);
  EXPECT_LE(emulateAgainstFftw(p, EmuMode::Double, 5, 4).maxRelErr, 1e-12);
}

// Every covered n_out (16 .. 4096) with one n_in each (n_out / 1, 2, 4, 8 in turn) and both signs: proved, right on
// the emulated warp in double (<= 1e-12) and within the family's f16 bound, the search within a few seconds. The
// whole table (every n_in of every n_out) with WF_TC_FFT_FULL=1, or through the CLI with
// generator/tc_fft/tools/coverage.
TEST(TcFftSynthesis, EveryCoveredSizeAndSign) {
  const bool full = std::getenv("WF_TC_FFT_FULL") != nullptr;
  int designs = 0;
  for (int L = kMinSynthesisLog2; L <= kMaxSynthesisLog2; ++L)
    for (int j = 0; j <= kMaxPaddingLog2; ++j) {
      if (!full && j != (L - kMinSynthesisLog2) % (kMaxPaddingLog2 + 1)) continue;
      const int nOut = 1 << L, nIn = nOut >> j;
      TcFftSynthesis s = synthesizeTcFft(request(nIn, nOut));
      EXPECT_LT(s.cpuSeconds, 5.0) << nIn << " -> " << nOut << " (" << s.seconds << " s wall)";
      for (int sign : {+1, -1}) {
        LayoutProgram prog = s.program;
        prog.sign = sign;
        Plan p = Verifier().verify(prog);
        // The emitter's phase registers (sharing, packing, unpacking at use) hold what the emulator's phases hold.
        for (bool packed : {true, false}) {
          PhasePlan phases(prog, packed);
          for (const auto& a : prog.arrays) {
            if (!a.isPhase()) continue;
            const RegFile want = phaseRegisters(prog, a, EmuMode::Double);
            double worst = 0;
            for (int lane = 0; lane < 32; ++lane)
              for (int r = 0; r < want.nregs; ++r)
                for (int e = 0; e < want.nelem; ++e)
                  worst = std::max(worst, std::abs(phases.operandValue(a.name, r, lane, e) - want.at(lane, r, e)));
            EXPECT_LT(worst, 1e-12) << nIn << " -> " << nOut << " phase array " << a.name
                                    << (packed ? " packed" : " unpacked");
          }
        }
        const double dbl = emulateAgainstFftw(p, EmuMode::Double, 100 + L, 2).maxRelErr;
        const double f16 = emulateAgainstFftw(p, EmuMode::F16, 200 + L, 2).maxRelErr;
        const double bound = tcFftErrorBound(prog);
        std::printf(
            "[synth] %4d -> %4d sign %+d: %-58s %7.1f cycles/FFT %2d phase regs; double %.1e f16 %.1e (bound %.1e)\n",
            nIn, nOut, sign, s.ranking.front().summary.c_str(), s.ranking.front().smCycles,
            s.ranking.front().phaseRegisters, dbl, f16, bound);
        EXPECT_LE(dbl, 1e-12) << nIn << " -> " << nOut << " sign " << sign;
        EXPECT_LE(f16, bound) << nIn << " -> " << nOut << " sign " << sign;
        ++designs;
      }
    }
  EXPECT_EQ(designs, 2 * (full ? kMaxPaddingLog2 + 1 : 1) * (kMaxSynthesisLog2 - kMinSynthesisLog2 + 1));
}

// The same request gives the same design, byte for byte; the written spec parses back to it and is proved.
TEST(TcFftSynthesis, DeterministicAndRoundTrips) {
  for (auto [nIn, nOut] : {std::pair{128, 256}, std::pair{32, 128}, std::pair{1024, 1024}}) {
    const std::string a = tcFftSpecText(synthesizeTcFft(request(nIn, nOut)).program);
    const std::string b = tcFftSpecText(synthesizeTcFft(request(nIn, nOut)).program);
    EXPECT_EQ(a, b) << nIn << " -> " << nOut;
    LayoutProgram back = parseTcFftSpecText(a, "back.json");
    EXPECT_EQ(tcFftSpecText(back), a);
    EXPECT_NO_THROW(Verifier().verify(back));
  }
}

// A spec with only the transform parses to the synthesized design (the family's path), and the complete spec that
// `synthesize` writes is what it verifies.
TEST(TcFftSynthesis, SpecWithOnlyTheTransform) {
  auto spec = tcFftFamily().parse(Json::parse(sizeSpec(64, 128, -1)), "size.json");
  VerifyReport r = spec->verify();
  EXPECT_NE(r.text.find("CONSISTENT"), std::string::npos);
  EXPECT_NE(spec->explain({}).find("synthesized:"), std::string::npos);
  std::optional<Json> full = tcFftFamily().complete(Json::parse(sizeSpec(64, 128, -1)), "size.json");
  ASSERT_TRUE(full.has_value());
  EXPECT_TRUE(full->contains("arrays"));
  EXPECT_EQ((*full)["transform"]["sign"], -1);
  for (const auto& st : (*full)["steps"]) EXPECT_TRUE(st.contains("description"));
  EXPECT_NO_THROW(tcFftFamily().parse(*full, "full.json")->verify());
}

// Every swap of two non-register bits in one array of a synthesized design is either refused by the Verifier (with
// a message naming expected and found) or still computes the right FFT.
TEST(TcFftSynthesis, MutatedDesignsAreRejected) {
  const Json base = tcFftSpecJson(synthesizeTcFft(request(128, 256)).program);
  int total = 0, rejected = 0;
  for (auto& [name, arr] : base["arrays"].items()) {
    Layout l = Layout::parse(arr["layout"].get<std::string>());
    const auto& es = l.entries();
    for (std::size_t x = 0; x < es.size(); ++x)
      for (std::size_t y = x + 1; y < es.size(); ++y) {
        if (es[x].phys.kind == PhysKind::R && es[y].phys.kind == PhysKind::R) continue;
        Json j = base;
        j["arrays"][name]["layout"] = l.swapped(es[x].phys, es[y].phys).str();
        ++total;
        LayoutProgram s;
        try {
          s = parseTcFftSpecText(j.dump(), "mutant.json");
        } catch (const SpecError&) {
          ++rejected;  // e.g. ReIm moved off b0 in a stored form
          continue;
        }
        try {
          Plan p = Verifier().verify(s);
          EXPECT_LT(emulateAgainstFftw(p, EmuMode::Double, 9, 2).maxRelErr, 1e-12)
              << "accepted but wrong: " << name << " = " << j["arrays"][name]["layout"];
        } catch (const VerifyError& e) {
          ++rejected;
          bool named = false;
          for (const auto& i : e.issues())
            named |= std::regex_search(i.message, std::regex("expected .+found")) ||
                     i.message.find("applied") != std::string::npos;
          EXPECT_TRUE(named) << e.what();
        }
      }
  }
  std::printf("[synth] 128 -> 256: %d single swaps, %d rejected\n", total, rejected);
  EXPECT_GT(rejected, total / 2);
}

// Sizes out of reach: a SpecError at /transform that states the rule and names the nearest sizes that work.
TEST(TcFftSynthesis, UnreachableSizesTeach) {
  for (auto [nIn, nOut] : {std::pair{8192, 8192}, std::pair{16, 8192}, std::pair{8, 8}}) {
    try {
      tcFftFamily().parse(Json::parse(sizeSpec(nIn, nOut, 1)), "far.json");
      ADD_FAILURE() << nIn << " -> " << nOut << " was accepted";
    } catch (const SpecError& e) {
      EXPECT_EQ(e.path(), "/transform") << e.what();
      EXPECT_NE(std::string(e.what()).find("nearest that work"), std::string::npos) << e.what();
    }
  }
}

// The f16 error bound grows with the steps and log2 n_out (TcFftData.cpp derives it).
TEST(TcFftSynthesis, ErrorBoundGrowsWithTheDesign) {
  const double small = tcFftErrorBound(synthesizeTcFft(request(64, 64)).program);
  const double large = tcFftErrorBound(synthesizeTcFft(request(2048, 2048)).program);
  EXPECT_GT(large, small);
  EXPECT_LT(large, 0.05);
  LayoutProgram chime = parseTcFftSpecFile(test::sourcePath(test::kChimeSpec));
  std::printf("[synth] f16 bounds: 64 %.2e, CHIME %.2e, 2048 %.2e\n", small, tcFftErrorBound(chime), large);
}

// A hand-written design that breaks the bit algebra gets the rule and the fix, not only the symptom: the note's design
// with an MMA too narrow or too wide for the bits it sums, and with a twiddle step left out.
TEST(TcFftSynthesis, BrokenHandWrittenDesignsNameTheRuleAndFix) {
  const Json chime = Json::parse(test::readFile(test::sourcePath(test::kChimeSpec)));
  auto issuesOf = [](const Json& j) {
    std::string all;
    try {
      Verifier().verify(parseTcFftSpecText(j.dump(), "hand.json"));
      ADD_FAILURE() << "accepted";
    } catch (const VerifyError& e) {
      for (const auto& i : e.issues()) all += i.path + ": " + i.message + "\n";
    }
    return all;
  };
  Json narrow = chime;  // sums n3 n4 n5 with m16n8k8, whose 3 j bits hold ReIm and 2 more
  narrow["steps"][2]["shape"] = "m16n8k8";
  std::string msg = issuesOf(narrow);
  EXPECT_NE(msg.find("/steps/2/shape: mma m16n8k8: its 3 summed (j) bits"), std::string::npos) << msg;
  EXPECT_NE(msg.find("found 3 summed {n3 n4 n5} and 0 passed through: use m16n8k16 (it sums 3)"), std::string::npos)
      << msg;
  Json wide = chime;  // sums n6 n7 with m16n8k16, which would sum a third bit
  wide["steps"][0]["shape"] = "m16n8k16";
  msg = issuesOf(wide);
  EXPECT_NE(msg.find("/steps/0/shape: mma m16n8k16"), std::string::npos) << msg;
  EXPECT_NE(msg.find("use m16n8k8 (it sums 2)"), std::string::npos) << msg;
  Json noTwiddle = chime;  // the second complex multiply left out: its factors are applied nowhere
  noTwiddle["steps"].erase(4);
  noTwiddle["steps"][4]["b"] = "Z3";
  msg = issuesOf(noTwiddle);
  EXPECT_NE(msg.find("factor E(q3, n0) is applied 0 times (expected exactly once, as every E(q_j, n_k) with j + k < "
                     "log2 n_out = 9): "
                     "add {\"q\": [3], \"n\": [0]} to the factors of one phase array"),
            std::string::npos)
      << msg;
  std::printf("[synth] hand-written design errors:\n%s", msg.c_str());
  Json short4 = chime;  // five lanes named by four bits
  short4["arrays"]["X"]["layout"] = "b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4, r <-> n2 n1 n0";
  try {
    parseTcFftSpecText(short4.dump(), "hand.json");
    ADD_FAILURE() << "accepted";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.path(), "/arrays/X/layout");
    EXPECT_NE(std::string(e.what()).find(
                  "maps 5 physical bits to 4 logical bits (counts must match: each physical bit holds exactly "
                  "one logical bit; name 5 logical bits"),
              std::string::npos)
        << e.what();
  }
}
