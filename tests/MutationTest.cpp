// Every swap of two logical bits inside one array's layout (register-register
// swaps excepted, they are free renames): the verifier must reject each swap
// that breaks consistency, and each swap it accepts must still compute the
// right FFT on the emulated warp (so acceptance is checked, not assumed).
#include <gtest/gtest.h>

#include <regex>

#include <nlohmann/json.hpp>

#include "generator/emulate/Emulator.h"
#include "generator/tc_fft/TcFftParser.h"
#include "generator/verify/Verifier.h"
#include "TestUtil.h"

using namespace warpforge;
using Json = nlohmann::ordered_json;

TEST(Mutation, EverySingleSwapInEveryArray) {
  Json base = Json::parse(test::readFile(test::sourcePath(test::kChimeSpec)));
  int total = 0, rejected = 0, acceptedCorrect = 0;
  std::map<std::string, int> acceptedByArray;
  for (auto& [name, arr] : base["arrays"].items()) {
    for (const char* field : {"layout", "stored"}) {
      if (!arr.contains(field)) continue;
      Layout l = Layout::parse(arr[field].get<std::string>());
      const auto& es = l.entries();
      for (std::size_t x = 0; x < es.size(); ++x)
        for (std::size_t y = x + 1; y < es.size(); ++y) {
          if (es[x].phys.kind == PhysKind::R && es[y].phys.kind == PhysKind::R) continue;
          Layout m = l.swapped(es[x].phys, es[y].phys);
          Json j = base;
          j["arrays"][name][field] = m.str();
          ++total;
          LayoutProgram s = parseTcFftSpecText(j.dump(), "mutant.json");
          try {
            Plan p = Verifier().verify(s);
            auto r = emulateAgainstFftw(p, EmuMode::Double, 99, 2);
            EXPECT_LT(r.maxRelErr, 1e-12) << "accepted but wrong: " << name << "/" << field << " = " << m.str();
            ++acceptedCorrect;
            ++acceptedByArray[name];
          } catch (const VerifyError& e) {
            ++rejected;
            const auto& is = e.issues();
            ASSERT_FALSE(is.empty());
            // The first message names a step or array path, and expected vs found.
            EXPECT_TRUE(is[0].path.rfind("/steps", 0) == 0 || is[0].path.rfind("/arrays", 0) == 0) << is[0].path;
            bool namesBits = false;
            for (const auto& i : is)
              namesBits |= std::regex_search(i.message, std::regex("expected .+found")) ||
                           i.message.find("applied") != std::string::npos;
            EXPECT_TRUE(namesBits) << is[0].message;
          }
        }
    }
  }
  std::printf("[mutation] %d single swaps: %d rejected, %d accepted (all emulate correctly)\n", total, rejected,
              acceptedCorrect);
  for (auto& [n, c] : acceptedByArray) std::printf("[mutation]   accepted in %s: %d\n", n.c_str(), c);
  EXPECT_EQ(total, 510);  // 13 arrays + 3 stored forms, non-register pairs
  EXPECT_EQ(rejected, 471);
  EXPECT_EQ(rejected + acceptedCorrect, total);
  // Only the output array Y is free to move: its layout feeds nothing but a
  // relayout and the store, so any permutation is consistent.
  for (auto& [n, c] : acceptedByArray) EXPECT_EQ(n, "Y");
}
