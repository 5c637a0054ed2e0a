// The four-warp kernel's twiddle W^(p m) folded into its quarter design's phases (generator/tc_fft/TcFftQuadTwist.h):
// the placement applies every input bit once, in a phase operand one step reads and whose factors name the bit, keeps
// the phases' sharing (no more registers held), is deterministic, and the check rejects every broken placement.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "generator/tc_fft/PhasePlan.h"
#include "generator/tc_fft/TcFftParser.h"
#include "generator/tc_fft/TcFftQuadEmitter.h"
#include "generator/tc_fft/TcFftQuadTwist.h"

using namespace warpforge;

namespace {

std::string sizeSpec(int nIn, int sign) {
  return fmt::format(R"({{"name": "twist", "family": "tc_fft", "precision": "f16",
                          "transform": {{"n_in": {}, "n_out": 4096, "sign": {}}}}})",
                     nIn, sign);
}

}  // namespace

TEST(TcFftQuadTwist, EveryInputBitOnceWithoutMoreRegisters) {
  for (const int nIn : {4096, 2048, 1024, 512})
    for (const int sign : {1, -1}) {
      const auto design = tcFftQuadDesign(parseTcFftSpecText(sizeSpec(nIn, sign), "twist.json"));
      const LayoutProgram& sub = design->sub;
      const PhaseTwist t = tcFftQuadTwist(sub, true);
      EXPECT_NO_THROW(checkTcFftQuadTwist(sub, t));
      int bits = 0;
      for (const auto& [array, list] : t.bits) bits += static_cast<int>(list.size());
      EXPECT_EQ(bits, sub.logIn) << nIn;  // zero-padding bits take no factor
      EXPECT_EQ(PhasePlan(sub, true, &t).registersHeld(), PhasePlan(sub, true).registersHeld()) << nIn;
      EXPECT_EQ(tcFftQuadTwist(sub, true).bits, t.bits) << "deterministic at " << nIn;
    }
}

TEST(TcFftQuadTwist, BrokenPlacementsAreRejected) {
  const auto design = tcFftQuadDesign(parseTcFftSpecText(sizeSpec(4096, 1), "twist.json"));
  const LayoutProgram& sub = design->sub;
  const PhaseTwist good = tcFftQuadTwist(sub, true);
  const auto& [firstArray, firstBits] = *good.bits.begin();
  ASSERT_FALSE(firstBits.empty());
  const int k = firstBits.front();
  auto rejects = [&](const PhaseTwist& t, const std::string& what) {
    EXPECT_THROW(checkTcFftQuadTwist(sub, t), std::logic_error) << what;
  };
  PhaseTwist missing = good;
  missing.bits[firstArray].erase(missing.bits[firstArray].begin());
  rejects(missing, "a bit without its factor");
  PhaseTwist twice = good;
  twice.bits[firstArray].push_back(k);
  rejects(twice, "a bit's factor applied twice");
  PhaseTwist outside = good;
  outside.bits[firstArray].push_back(sub.logIn);
  rejects(outside, "a bit beyond the input");
  PhaseTwist scale = good;
  scale.scale = 2;
  rejects(scale, "W = exp(2 pi i / 2048) instead of / 4096");
  PhaseTwist onData = good;
  onData.bits[sub.input].push_back(k);
  onData.bits[firstArray].erase(onData.bits[firstArray].begin());
  rejects(onData, "a bit on the data array " + sub.input + " (no step's phase operand)");
  // A bit on a phase array whose factors do not name it.
  bool moved = false;
  for (const auto& a : sub.arrays) {
    if (!a.isPhase() || a.name == firstArray) continue;
    bool names = false;
    for (const auto& f : a.phase)
      for (int n : f.n) names |= n == k;
    if (names) continue;
    PhaseTwist elsewhere = good;
    elsewhere.bits[firstArray].erase(elsewhere.bits[firstArray].begin());
    elsewhere.bits[a.name].push_back(k);
    rejects(elsewhere, "n" + std::to_string(k) + " on " + a.name);
    EXPECT_THROW(PhasePlan(sub, true, &elsewhere), std::invalid_argument) << a.name;
    moved = true;
    break;
  }
  EXPECT_TRUE(moved) << "no phase array of the quarter design leaves n" << k << " unnamed";
}
