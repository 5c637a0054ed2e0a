// `bench --sweep pfb`: the draw is deterministic per seed, covers every output class and band of channels, and every
// drawn spec parses, verifies and emits (or is an unsupported SpecError, which the sweep counts).
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <random>
#include <set>

#include "bench/Facets.h"
#include "generator/pfb/PfbFamily.h"
#include "warpforge/compiler.h"

using namespace warpforge;

namespace {

std::uint64_t freshSeed() {
  std::random_device rd;
  const std::uint64_t s = (static_cast<std::uint64_t>(rd()) << 16) ^ rd();
  std::printf("pfb sweep seed %llu\n", static_cast<unsigned long long>(s));
  return s;
}

const SweepFacet& pfbSweep() {
  const SweepFacet* s = sweepFacet(pfbFamily());
  if (!s) throw std::runtime_error("the pfb family draws no sweep");
  return *s;
}

}  // namespace

TEST(PfbSweep, DeterministicPerSeedAndEveryClassDrawn) {
  const std::uint64_t seed = freshSeed();
  const auto a = pfbSweep().sweepSpecs(seed, 300), b = pfbSweep().sweepSpecs(seed, 300),
             c = pfbSweep().sweepSpecs(seed + 1, 300);
  ASSERT_EQ(a.size(), 300u);
  int same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].spec.dump(), b[i].spec.dump()) << i;
    same += a[i].spec.dump() == c[i].spec.dump();
  }
  EXPECT_LT(same, 30) << "another seed should draw other specs";
  std::set<std::string> groups;
  for (const auto& s : a) groups.insert(s.group);
  for (const char* out : {"ci8 katgpucbf", "ci8 tcc", "cf32"})
    for (const char* band : {"64..1k channels", "2k..4k channels", "8k..32k channels"})
      EXPECT_TRUE(groups.count(std::string(out) + ", " + band)) << out << ", " << band;
}

TEST(PfbSweep, EveryDrawnSpecParsesVerifiesAndEmits) {
  const std::uint64_t seed = freshSeed();
  std::map<std::string, int> unsupported;
  int built = 0;
  for (const auto& s : pfbSweep().sweepSpecs(seed, 120)) {
    const long long spectra = s.spec["spectra_per_call"].get<long long>();
    EXPECT_EQ(spectra % 16, 0) << s.spec.dump();
    try {
      auto fs = pfbFamily().parse(s.spec, "sweep.json");
      fs->verify();
      const Generated g = fs->emit({"sm_90", nullptr});
      EXPECT_EQ(g.plan.kernels.size(), 2u) << s.spec.dump();
      ++built;
    } catch (const SpecError& e) {
      ++unsupported[e.what()];
    } catch (const InconsistentSpec& e) {
      ++unsupported[e.what()];
    }
  }
  for (const auto& [why, n] : unsupported) std::printf("unsupported x%d: %.160s\n", n, why.c_str());
  // Taps x channels beyond the fir kernel's shared memory are the only specs the family refuses.
  EXPECT_GE(built, 100) << "of 120 drawn";
}
