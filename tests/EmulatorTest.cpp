#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "bench/Facets.h"
#include "generator/emulate/Emulator.h"
#include "generator/emulate/Half.h"
#include "generator/tc_fft/TcFftFamily.h"
#include "generator/tc_fft/TcFftParser.h"
#include "generator/verify/Verifier.h"
#include "TestUtil.h"

using namespace warpforge;

TEST(Half, RoundsLikeBinary16) {
  EXPECT_EQ(roundToHalf(1.0), 1.0);
  EXPECT_EQ(roundToHalf(1.0 + std::ldexp(1, -11)), 1.0);                          // tie -> even
  EXPECT_EQ(roundToHalf(1.0 + 3 * std::ldexp(1, -11)), 1.0 + std::ldexp(1, -9));  // tie -> even (up)
  EXPECT_EQ(roundToHalf(65504.0), 65504.0);
  EXPECT_TRUE(std::isinf(roundToHalf(65520.0)));
  EXPECT_EQ(roundToHalf(std::ldexp(1, -24)), std::ldexp(1, -24));  // smallest subnormal
  EXPECT_EQ(roundToHalf(std::ldexp(1, -26)), 0.0);
  EXPECT_EQ(roundToHalf(-0.1), -0.0999755859375);
}

// Bit patterns against the IEEE binary16 table, and every finite pattern round-trips.
TEST(Half, BitPatterns) {
  EXPECT_EQ(floatToHalfBits(1.0), 0x3c00);
  EXPECT_EQ(floatToHalfBits(-2.0), 0xc000);
  EXPECT_EQ(floatToHalfBits(65504.0), 0x7bff);
  EXPECT_EQ(floatToHalfBits(1e6), 0x7c00);                 // overflow -> inf
  EXPECT_EQ(floatToHalfBits(std::ldexp(1, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(floatToHalfBits(-0.0), 0x8000);
  for (unsigned h = 0; h < 0x10000; ++h)
    if (((h >> 10) & 31) != 31)
      EXPECT_EQ(floatToHalfBits(halfBitsToDouble(static_cast<std::uint16_t>(h))), h) << std::hex << h;
  EXPECT_TRUE(std::isnan(halfBitsToDouble(0x7e00)));
}

// The bit-manipulating conversion against rounding by arithmetic (the quantum of x's binade, nearbyint): random
// values over every binade from below the subnormals to past the largest half, and each midpoint between
// neighbouring halves (the ties, to even), both signs.
TEST(Half, MatchesArithmeticRounding) {
  auto byArithmetic = [](double x) {
    if (x == 0) return x;
    int e;
    std::frexp(std::fabs(x), &e);
    const double quantum = e - 1 >= -14 ? std::ldexp(1.0, e - 1 - 10) : std::ldexp(1.0, -24);
    const double r = std::nearbyint(std::fabs(x) / quantum) * quantum;
    return std::copysign(r > 65504.0 ? INFINITY : r, x);
  };
  std::mt19937_64 rng(20261124);
  std::uniform_real_distribution<double> u(0.5, 1.0);
  for (int i = 0; i < 200000; ++i) {
    const double x = std::ldexp(u(rng), static_cast<int>(rng() % 46) - 28) * (i % 2 ? -1 : 1);
    ASSERT_EQ(roundToHalf(x), byArithmetic(x)) << x;
    ASSERT_EQ(halfBitsToDouble(floatToHalfBits(x)), byArithmetic(x)) << x;
  }
  for (unsigned h = 0; h < 0x7bff; ++h) {
    const double lo = halfBitsToDouble(static_cast<std::uint16_t>(h)),
                 hi = halfBitsToDouble(static_cast<std::uint16_t>(h + 1));
    const double mid = (lo + hi) / 2;  // exact in double
    ASSERT_EQ(roundToHalf(mid), byArithmetic(mid)) << std::hex << h;
    ASSERT_EQ(roundToHalf(-mid), byArithmetic(-mid)) << std::hex << h;
    ASSERT_EQ(floatToHalfBits(mid), (h & 1) ? h + 1 : h) << std::hex << h;
  }
  EXPECT_TRUE(std::isinf(roundToHalf(65520.0)) && roundToHalf(65519.99) == 65504.0);
  EXPECT_TRUE(std::isnan(roundToHalf(NAN)));
  EXPECT_EQ(floatToHalfBits(INFINITY), 0x7c00);
  EXPECT_EQ(floatToHalfBits(-INFINITY), 0xfc00);
}

TEST(Emulator, ChimeDoubleMatchesFftw) {
  LayoutProgram s = parseTcFftSpecFile(test::sourcePath(test::kChimeSpec));
  Plan p = Verifier().verify(s);
  const std::uint64_t seed = 20261122;
  auto r = emulateAgainstFftw(p, EmuMode::Double, seed, 8);
  std::printf("[emulator] double seed=%llu max_rel_err=%.3e\n", (unsigned long long)seed, r.maxRelErr);
  EXPECT_LT(r.maxRelErr, 1e-12);
}

TEST(Emulator, ChimeF16WithinHalfPrecisionBound) {
  LayoutProgram s = parseTcFftSpecFile(test::sourcePath(test::kChimeSpec));
  Plan p = Verifier().verify(s);
  auto r = emulateAgainstFftw(p, EmuMode::F16, 4242, 8);
  std::printf("[emulator] f16 seed=4242 max_rel_err=%.3e\n", r.maxRelErr);
  // ~7 roundings of unit roundoff 2^-11 = 4.9e-4 on the way, each of relative
  // size ~u/sqrt(3) in rms: expect a few 1e-4; 3e-3 is the bound the GPU run is held to.
  EXPECT_LT(r.maxRelErr, 3e-3);
  EXPECT_GT(r.maxRelErr, 1e-5);  // f16 mode must actually round
}

TEST(Emulator, WrongPhaseGivesWrongAnswer) {
  // The emulator must be able to fail: flip the sign of the transform in the
  // plan but not in the reference.
  LayoutProgram s = parseTcFftSpecFile(test::sourcePath(test::kChimeSpec));
  Plan p = Verifier().verify(s);
  auto x = randomComplex(s.nIn, 1);
  auto y = emulateFft(p, EmuMode::Double, x);
  auto wrong = referenceDft(x, s.nOut, -s.sign);
  EXPECT_GT(relativeError(y, wrong), 0.5);
}

// `warpforge emulate` prints what the family's emulate returns.
TEST(Emulator, FamilyEmulateText) {
  auto spec = makeTcFftSpec(parseTcFftSpecFile(test::sourcePath(test::kChimeSpec)));
  const EmulateFacet* emulator = emulateFacet(*spec);
  ASSERT_NE(emulator, nullptr);
  EXPECT_EQ(emulator->emulate("f16", 1, 4),
            "spec=chime_fft_256_512 mode=f16 seed=1 ffts=4 (inputs uniform in [-1,1], reference double "
            "FFT)\nmax_rel_err=5.447e-04\n");
  EXPECT_THROW(emulator->emulate("f32", 1, 1), std::invalid_argument);
}
