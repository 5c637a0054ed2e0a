// The cf32 post kernel that owns one (spectrum, pol) combination (PfbPostSpectrumEmitter.cpp): where it applies, that
// it equals the row-pair kernel bit for bit where both take the same arithmetic (no delay), that it meets the double
// reference with a delay and with an f16 scratch, and that mutations of it fail the CPU run.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "CudaOnCpu.h"
#include "generator/pfb/PfbEmitter.h"
#include "generator/pfb/PfbFamily.h"
#include "generator/pfb/PfbGeometry.h"
#include "generator/pfb/PfbPlan.h"
#include "generator/pfb/PfbSpec.h"
#include "warpforge/compiler.h"

using namespace warpforge;

namespace {

PfbSpec spec(const std::string& members) {
  return parsePfbSpecText(fmt::format(R"({{"name": "pfb_s", "family": "pfb", {}}})", members), "s.json");
}

// The spec's plan with the post kernel's source first (expectMutationsCaught mutates source 0 unless told
// otherwise).
LaunchPlan postSourceFirst(const PfbSpec& s) {
  LaunchPlan post = pfbLaunchPlan(s, emitPfb(s));
  std::swap(post.sources[0], post.sources[1]);
  post.kernels[0].source = 1, post.kernels[1].source = 0;
  return post;
}

// The in-place post kernels compile for sm_80 and sm_90 at the 64 registers of a 1024-thread block without spills, or
// with a delay within 32 bytes (NVRTC 13 spills 0-16 bytes there, by spec: the split's held items beside the per-item
// sincospif).
void expectInPlaceRegisters(const std::string& source, const std::string& name, bool delay) {
  for (const char* arch : {"sm_80", "sm_90"}) {
    const CompileResult r = compileWithReport(source, name, arch);
    EXPECT_GT(r.registers, 0) << r.log;
    EXPECT_LE(r.spillStoreBytes + r.spillLoadBytes, delay ? 32 : 0) << arch << ": " << r.registers << " registers";
  }
}

}  // namespace

TEST(PfbSpectrumPost, AppliesToCf32SpectraThatFitTwoBuffers) {
  auto geometry = [](long long channels, const char* output) {
    return pfbGeometry(spec(fmt::format(
        R"("channels": {}, "taps": 2, "spectra_per_call": 16, "input": {{"type": "int8"}}, "output": {{"type": "{}"}})",
        channels, output)));
  };
  for (long long n : {64LL, 1024LL, 4096LL}) {
    const PfbGeometry g = geometry(n, "cf32");
    EXPECT_TRUE(g.spectrumPost) << n;
    // below 1024 channels, 1024 / n consecutive combinations per block (a power of two dividing the 2 x 16)
    const int combos = n < 1024 ? static_cast<int>(1024 / n) : 1;
    EXPECT_EQ(g.spectrumPostCombos, combos) << n;
    EXPECT_EQ(g.sharedB, 16 * n * combos) << n;
    EXPECT_EQ(
        g.unitsB(spec(fmt::format(
            R"("channels": {}, "taps": 2, "spectra_per_call": 16, "input": {{"type": "int8"}}, "output": {{"type": "cf32"}})",
            n))),
        2 * 16 / combos);  // one block per `combos` (pol, spectrum) combinations
  }
  // The combinations per block divide a batch entry's: 1 pol x 7 spectra at 64 channels, one per block.
  EXPECT_EQ(pfbGeometry(spec(R"("channels": 64, "taps": 2, "polarizations": 1, "spectra_per_call": 7,
                                "input": {"type": "int8"}, "output": {"type": "cf32"})"))
                .spectrumPostCombos,
            1);
  EXPECT_TRUE(geometry(8192, "cf32").spectrumPost);  // two buffers of 64 KiB each: one block per SM
  EXPECT_FALSE(geometry(8192, "cf32").spectrumPostInPlace);
  // 16384: two buffers (256 KiB) are beyond an SM, one (128 KiB) in place; 32768: one is 256 KiB
  EXPECT_TRUE(geometry(16384, "cf32").spectrumPost);
  EXPECT_TRUE(geometry(16384, "cf32").spectrumPostInPlace);
  EXPECT_EQ(geometry(16384, "cf32").sharedB, 16384 * 8);
  EXPECT_EQ(geometry(16384, "cf32").threadsB, 1024);
  EXPECT_TRUE(geometry(32768, "cf32").spectrumPostInPlace);  // two blocks of 16 rows each, 128 KiB
  EXPECT_EQ(geometry(32768, "cf32").spectrumPostParts, 2);
  EXPECT_EQ(geometry(32768, "cf32").sharedB, 16384 * 8);
  EXPECT_EQ(geometry(16384, "cf32").spectrumPostParts, 1);
  EXPECT_FALSE(geometry(16384, "ci8").spectrumPost);
  // Threads per block by length: 128 up to 1024 channels, 256 up to 4096, 1024 at 8192.
  EXPECT_EQ(geometry(1024, "cf32").threadsB, 128);
  EXPECT_EQ(geometry(2048, "cf32").threadsB, 256);
  EXPECT_EQ(geometry(4096, "cf32").threadsB, 256);
  EXPECT_EQ(geometry(8192, "cf32").threadsB, 1024);
  EXPECT_EQ(geometry(4096, "ci8").threadsB, 256);  // the row-pair kernel
  // sm_86 / sm_89 lend a block 99 KiB: 8192 channels take the row-pair kernel there.
  {
    auto fs = makePfbSpec(spec(
        R"("channels": 8192, "taps": 2, "spectra_per_call": 16, "input": {"type": "int8"}, "output": {"type": "cf32"})"));
    EXPECT_EQ(fs->emit({"sm_90", nullptr}).plan.kernels[1].sharedBytes, 2 * 8192 * 8);
    EXPECT_LT(fs->emit({"sm_89", nullptr}).plan.kernels[1].sharedBytes, 99 * 1024);
    EXPECT_LT(fs->emit({"sm_86", nullptr}).plan.kernels[1].sharedBytes, 99 * 1024);
    EXPECT_NE(fs->explain({"sm_90", nullptr}).find("one (spectrum, pol) combination"), std::string::npos);
    EXPECT_NE(fs->explain({"sm_89", nullptr}).find("in one buffer"), std::string::npos);  // one 64 KiB buffer
    EXPECT_NE(fs->verify().text.find("emitted for sm_86 / sm_89"), std::string::npos);
  }
  EXPECT_TRUE(
      pfbGeometry(
          spec(
              R"("channels": 8192, "taps": 2, "spectra_per_call": 16, "input": {"type": "int8"}, "output": {"type": "cf32"})"),
          false, 8192)
          .spectrumPost);                            // (the default's limit)
  EXPECT_FALSE(geometry(4096, "ci8").spectrumPost);  // ci8 runs are 32 bytes of a channel's spectra already
  const PfbSpec s = spec(
      R"("channels": 1024, "taps": 2, "spectra_per_call": 16, "input": {"type": "int8"}, "output": {"type": "cf32"})");
  EXPECT_FALSE(pfbGeometry(s, true).spectrumPost);  // the previous kernels
  EXPECT_FALSE(emitPfb(s, {.rowPairPost = true}).geometry.spectrumPost);
  EXPECT_FALSE(emitPfb(s, {.perItemPost = true}).geometry.spectrumPost);
  EXPECT_FALSE(emitPfb(s, {.phaseTables = false}).geometry.spectrumPost);  // the row-pair kernel's own variants
  EXPECT_FALSE(emitPfb(s, {.postBlocksPerSm = 4}).geometry.spectrumPost);
  EXPECT_NE(emitPfb(s).postSource.find("all 32 rows of one (spectrum, pol) combination per block"), std::string::npos);
}

// Without a delay both post kernels (the spectrum one with its split twiddles gathered from the table, as the row-pair
// kernel takes them) take the same operations on the same values (row passes, split twiddle, split,
// gain): the spectra must be equal bit for bit, and each must meet the reference.
TEST(PfbSpectrumPost, EqualsTheRowPairKernelBitForBit) {
  std::uint64_t seed = 6060;
  for (
      const char* members :
      {R"("channels": 256, "taps": 2, "spectra_per_call": 16, "input": {"type": "packed", "bits": 12}, "gain": "per_channel", "output": {"type": "cf32"})",
       R"("channels": 4096, "taps": 2, "polarizations": 1, "spectra_per_call": 3, "input": {"type": "packed", "bits": 10}, "gain": 0.5, "output": {"type": "cf32"})"}) {
    const PfbSpec s = spec(members);
    auto fs = makePfbSpec(s);
    fs->verify();
    std::map<std::string, std::vector<unsigned char>> spectrum, rowPair;
    const Check a = test::runPlanOnCpu(*fs, pfbLaunchPlan(s, emitPfb(s, {.factoredSplitTwiddle = false})), 2, seed,
                                       "pfb-cpu", "spectrum post kernel", {}, {}, {}, &spectrum);
    const Check b = test::runPlanOnCpu(*fs, pfbLaunchPlan(s, emitPfb(s, {.rowPairPost = true})), 2, seed, "pfb-cpu",
                                       "row-pair post kernel", {}, {}, {}, &rowPair);
    EXPECT_TRUE(a.ok() && b.ok()) << members;
    ASSERT_EQ(spectrum.at("spectra").size(), rowPair.at("spectra").size());
    EXPECT_TRUE(spectrum.at("spectra") == rowPair.at("spectra")) << members;
    ++seed;
  }
}

TEST(PfbSpectrumPost, MeetsTheReferenceWithDelaysAndAnF16Scratch) {
  std::uint64_t seed = 6160;
  for (
      const char* members :
      {R"("channels": 4096, "taps": 2, "spectra_per_call": 3, "input": {"type": "int8"}, "gain": "per_channel", "delay": true, "output": {"type": "cf32"})",
       R"("channels": 128, "taps": 3, "polarizations": 1, "spectra_per_call": 20, "input": {"type": "int16"}, "delay": true, "output": {"type": "cf32"})",
       R"("channels": 512, "taps": 2, "receivers": 3, "spectra_per_call": 5, "input": {"type": "int8"}, "gain": "per_channel", "delay": true, "output": {"type": "cf32"})",
       R"("channels": 2048, "taps": 2, "spectra_per_call": 4, "input": {"type": "packed", "bits": 10}, "output": {"type": "cf32"}, "scratch": "f16")"}) {
    const PfbSpec s = spec(members);
    auto fs = makePfbSpec(s);
    fs->verify();
    LaunchPlan plan = pfbLaunchPlan(s, emitPfb(s));
    ASSERT_NE(plan.sources[1].text.find("(spectrum, pol) combination"), std::string::npos);
    if (s.halfScratch)
      for (auto& src : plan.sources) src.text = test::withHostHalf(src.text);
    const Check k = test::runPlanOnCpu(*fs, plan, 2, seed++, "pfb-cpu", members, {});
    EXPECT_TRUE(k.ok()) << members << ": " << k.detail;
    EXPECT_GT(k.checked, 0) << members;
  }
}

// 8192 channels (two 64 KiB buffers, 1024 threads): rows of 256 points, 4 split trips per thread.
TEST(PfbSpectrumPost, EightThousandChannelsAsBenchRunsThem) {
  const PfbSpec s = spec(
      R"("channels": 8192, "taps": 2, "polarizations": 1, "spectra_per_call": 2, "input": {"type": "int8"}, "gain": "per_channel", "delay": true, "output": {"type": "cf32"})");
  auto fs = makePfbSpec(s);
  fs->verify();
  const PfbKernels k = emitPfb(s, {.spectrumPostChannels = 8192});
  ASSERT_TRUE(k.geometry.spectrumPost);
  EXPECT_EQ(k.geometry.sharedB, 128 * 1024);
  const Check c = test::runPlanOnCpu(*fs, pfbLaunchPlan(s, k), 1, 6360, "pfb-cpu", "8192 channels, spectrum post", {});
  EXPECT_TRUE(c.ok()) << c.detail;
  const CompileResult r = compileWithReport(k.postSource, s.name, "sm_90");
  EXPECT_GT(r.registers, 0) << r.log;
  EXPECT_EQ(r.spillStoreBytes + r.spillLoadBytes, 0) << r.registers << " registers";
}

// The default spectrum post kernels compile without spills for sm_80 and sm_90 at every length they take (their
// launch bound caps the registers: at most four blocks per SM).
TEST(PfbSpectrumPost, CompilesWithoutSpills) {
  for (long long n : {64LL, 256LL, 1024LL, 2048LL, 4096LL, 8192LL})
    for (const char* extra : {"", R"(, "gain": "per_channel", "delay": true)", R"(, "scratch": "f16")"}) {
      const PfbSpec s = spec(fmt::format(
          R"("channels": {}, "taps": 4, "spectra_per_call": 8, "input": {{"type": "int8"}}, "output": {{"type": "cf32"}}{})",
          n, extra));
      const PfbKernels k = emitPfb(s);
      ASSERT_TRUE(k.geometry.spectrumPost) << n;
      for (const char* arch : {"sm_80", "sm_90"}) {
        const CompileResult r = compileWithReport(k.postSource, s.name, arch);
        EXPECT_GT(r.registers, 0) << r.log;
        EXPECT_EQ(r.spillStoreBytes + r.spillLoadBytes, 0)
            << n << " channels" << extra << ", " << arch << ": " << r.registers << " registers";
      }
    }
  // The other block sizes bench times.
  for (const auto& [n, threads] : std::vector<std::pair<long long, int>>{
           {8192, 256}, {8192, 512}, {1024, 256}, {1024, 512}, {4096, 512}, {4096, 128}})
    for (const char* extra : {"", R"(, "gain": "per_channel", "delay": true)"}) {
      const PfbSpec s = spec(fmt::format(
          R"("channels": {}, "taps": 4, "spectra_per_call": 8, "input": {{"type": "int8"}}, "output": {{"type": "cf32"}}{})",
          n, extra));
      const PfbKernels k = emitPfb(s, {.spectrumPostChannels = 8192, .spectrumPostThreads = threads});
      ASSERT_TRUE(k.geometry.spectrumPost) << n;
      for (const char* arch : {"sm_80", "sm_90"}) {
        const CompileResult r = compileWithReport(k.postSource, s.name, arch);
        std::printf("[nvrtc] %lld channels, %d threads%s, %s: %d registers, spills %d + %d B\n", n, threads, extra,
                    arch, r.registers, r.spillStoreBytes, r.spillLoadBytes);
        EXPECT_EQ(r.spillStoreBytes + r.spillLoadBytes, 0) << n << " channels, " << threads << " threads" << extra;
      }
    }
}

// The split twiddle as a per-thread and a per-pair factor (the default up to 256 threads): within the bound, and
// wrong without the pair's factor.
TEST(PfbSpectrumPost, FactoredSplitTwiddlesMeetTheReference) {
  const PfbSpec s = spec(
      R"("channels": 4096, "taps": 2, "spectra_per_call": 3, "input": {"type": "int8"}, "gain": "per_channel", "delay": true, "output": {"type": "cf32"})");
  auto fs = makePfbSpec(s);
  fs->verify();
  const PfbKernels k = emitPfb(s, {.factoredSplitTwiddle = true});
  ASSERT_TRUE(k.geometry.factoredSplitTwiddle);
  ASSERT_NE(k.postSource.find("wi.x * wp.x"), std::string::npos);
  LaunchPlan plan = pfbLaunchPlan(s, k);
  const Check c = test::runPlanOnCpu(*fs, plan, 1, 6460, "pfb-cpu", "factored split twiddles", {});
  EXPECT_TRUE(c.ok()) << c.detail;
  std::swap(plan.sources[0], plan.sources[1]);
  plan.kernels[0].source = 1, plan.kernels[1].source = 0;
  test::expectMutationsCaught(*fs, plan, {{{"the pair's factor dropped", "wi.x * wp.x", "wi.x"}}}, 6461, "pfb-cpu", {});
  EXPECT_FALSE(
      emitPfb(
          spec(
              R"("channels": 4096, "taps": 2, "spectra_per_call": 16, "input": {"type": "int8"}, "output": {"type": "ci8"})"),
          {.factoredSplitTwiddle = true})
          .geometry.factoredSplitTwiddle);  // the row-pair kernel keeps its per-thread twiddles
}

// A test that cannot fail is a defect: each mutation of the spectrum post kernel must fail the CPU run (one
// combination per block here: 1 pol x 7 spectra; several below).
TEST(PfbSpectrumPost, MutatedKernelsAreCaught) {
  const PfbSpec s = spec(
      R"("channels": 256, "taps": 2, "polarizations": 1, "spectra_per_call": 7, "input": {"type": "int8"}, "gain": "per_channel", "delay": true, "output": {"type": "cf32"})");
  ASSERT_EQ(emitPfb(s).geometry.spectrumPostCombos, 1);
  auto fs = makePfbSpec(s);
  const LaunchPlan post = postSourceFirst(s);
  test::expectMutationsCaught(*fs, post,
                              {{{"store without the staging swizzle", "c ^ c >> 5 & 31]", "c]"}},
                               {{"staging slot of the mirror", "kB ^ kB >> 5 & 31", "kB ^ kB >> 4 & 31"}},
                               {{"mirror row of pair 0", "rowB = pair ? 32 - pair : 16",
                                 "rowB = pair ? 32 - pair : 0"}},
                               {{"split twiddle conjugated", "w.y * fx", "-w.y * fx"}},
                               {{"delay slope sign", "-dl.x", "dl.x"}},
                               {{"gain of the mirror channel", "gain + kB", "gain + kA"}},
                               {{"the other spectrum's rows", "scratch + u * 256", "scratch + (u ^ 1) * 256"}},
                               {{"pair 0's upper items from the wrong element", "xa = 4 + item", "xa = 3 + item"}},
                               {{"channel 0 without Im Z[0]", "za.x + za.y", "za.x - za.y"}}},
                              6260, "pfb-cpu", {});
}

// Several combinations per block (256 channels: 4; 2 pols x 2 spectra, so a block spans both pols' gains): a
// combination's elements, staging slots, delay and gains must be its own.
TEST(PfbSpectrumPost, SeveralCombinationsPerBlockMutationsAreCaught) {
  const PfbSpec s = spec(
      R"("channels": 256, "taps": 2, "spectra_per_call": 2, "input": {"type": "int8"}, "gain": "per_channel", "delay": true, "output": {"type": "cf32"})");
  ASSERT_EQ(emitPfb(s).geometry.spectrumPostCombos, 4);
  auto fs = makePfbSpec(s);
  const LaunchPlan post = postSourceFirst(s);
  test::expectMutationsCaught(*fs, post,
                              {{{"every combination at the first's elements", "cbase = cu * 256", "cbase = 0"}},
                               {{"the first combination's delay", "pfb_dl[cu]", "pfb_dl[0]"}},
                               {{"the block's first combination's gains", "(u + cu)", "u"}},
                               {{"staging slot of the mirror", "cbase + kB >> 5 & 31", "cbase + kB >> 4 & 31"}}},
                              6270, "pfb-cpu", {});
}

namespace {

// The in-place post kernel at `channels` (one combination of one pol): its spectra meet the double reference with
// gains and delays (seed), and without a delay (seed + 1) equal the row-pair kernel's bit for bit (the same arithmetic:
// the split twiddles gathered in both). Returns the spec without a delay, for mutations.
PfbSpec checkInPlaceKernel(long long channels, std::uint64_t seed, int parts) {
  const PfbSpec s = spec(fmt::format(
      R"("channels": {}, "taps": 2, "polarizations": 1, "spectra_per_call": 2, "input": {{"type": "int8"}}, "gain": "per_channel", "delay": true, "output": {{"type": "cf32"}})",
      channels));
  auto fs = makePfbSpec(s);
  fs->verify();
  const PfbKernels k = emitPfb(s);
  EXPECT_TRUE(k.geometry.spectrumPostInPlace) << channels;
  EXPECT_EQ(k.geometry.spectrumPostParts, parts) << channels;
  const Check c = test::runPlanOnCpu(*fs, pfbLaunchPlan(s, k), 1, seed, "pfb-cpu",
                                     fmt::format("{} channels, in place, {} part(s)", channels, parts), {});
  EXPECT_TRUE(c.ok()) << c.detail;
  EXPECT_GT(c.checked, 0);
  expectInPlaceRegisters(k.postSource, s.name, true);
  expectInPlaceRegisters(
      emitPfb(
          spec(fmt::format(
              R"("channels": {}, "taps": 4, "spectra_per_call": 8, "input": {{"type": "int8"}}, "gain": "per_channel", "output": {{"type": "cf32"}})",
              channels)))
          .postSource,
      "pfb_s", false);

  const PfbSpec plain = spec(fmt::format(
      R"("channels": {}, "taps": 2, "polarizations": 1, "spectra_per_call": 1, "input": {{"type": "int16"}}, "gain": "per_channel", "output": {{"type": "cf32"}})",
      channels));
  auto fp = makePfbSpec(plain);
  fp->verify();
  std::map<std::string, std::vector<unsigned char>> inPlace, rowPair;
  const Check a = test::runPlanOnCpu(*fp, pfbLaunchPlan(plain, emitPfb(plain, {.factoredSplitTwiddle = false})), 1,
                                     seed + 1, "pfb-cpu", "in place", {}, {}, {}, &inPlace);
  const Check b = test::runPlanOnCpu(*fp, pfbLaunchPlan(plain, emitPfb(plain, {.rowPairPost = true})), 1, seed + 1,
                                     "pfb-cpu", "row-pair post kernel", {}, {}, {}, &rowPair);
  EXPECT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(inPlace.at("spectra") == rowPair.at("spectra")) << channels;
  return plain;
}

}  // namespace

// 16384 channels: one 128 KiB buffer, the row passes and the split in place (PfbGeometry::spectrumPostInPlace), checked
// by checkInPlaceKernel; without either barrier between a pass's or the split's reads and writes, or with a pass's
// writes to the wrong slots, the CPU run fails.
TEST(PfbSpectrumPost, SixteenThousandChannelsInPlace) {
  const PfbSpec plain = checkInPlaceKernel(16384, 6560, 1);
  ASSERT_NE(emitPfb(plain).postSource.find("in place in one buffer"), std::string::npos);
  test::expectMutationsCaught(
      *makePfbSpec(plain), postSourceFirst(plain),
      {{{"a pass without its barrier between reads and writes",
         "rhold1[bi * 8 + 7] = buf0[(sj ^ 4) + 448];\n    }\n    __syncthreads();",
         "rhold1[bi * 8 + 7] = buf0[(sj ^ 4) + 448];\n    }"}},
       {{"the split without its barrier between reads and writes",
         "zb_h[m] = buf0[pfb_slot(xb < 512 ? rowA * 512 + xb : rowB * 512 + (xb - 512))];\n  }\n  __syncthreads();",
         "zb_h[m] = buf0[pfb_slot(xb < 512 ? rowA * 512 + xb : rowB * 512 + (xb - 512))];\n  }"}},
       {{"a pass's output slot", "const int sd = pfb_slot(at + d);", "const int sd = pfb_slot(at + (d ^ 1));"}}},
      6562, "pfb-cpu", {});
}

// 32768 channels: two blocks per combination, each holding 8 row pairs (16 rows of 1024 points, 128 KiB) in place and
// storing its channels as runs of up to 8, checked by checkInPlaceKernel; mutations of the part mapping fail the CPU
// run.
TEST(PfbSpectrumPost, ThirtyTwoThousandChannelsInTwoParts) {
  const PfbSpec plain = checkInPlaceKernel(32768, 6660, 2);
  test::expectMutationsCaught(*makePfbSpec(plain), postSourceFirst(plain),
                              {{{"pair 0's B row", "(p ? 32 - p : 16)", "(p ? 32 - p : 0)"}},
                               {{"every part loading part 0's rows", "pfb_part_row(h, e / 1024)",
                                 "pfb_part_row(0, e / 1024)"}},
                               {{"the staging swizzle on one side", "buf0[e ^ e >> 4 & 15]", "buf0[e]"}},
                               {{"the local row of a B row", "return r < 16 ? r - h * 8 : 8 + (32 - r) - h * 8;",
                                 "return r < 16 ? r - h * 8 : 8 + (31 - r) - h * 8;"}}},
                              6662, "pfb-cpu", {});
}

// The block size bench offers the two-part kernel is checked per part (16384 channels at 512 threads: 32 values per
// thread per pass), and the kernel meets the double reference.
TEST(PfbSpectrumPost, TwoPartsAtAnotherBlockSize) {
  const PfbSpec s = spec(
      R"("channels": 32768, "taps": 2, "polarizations": 1, "spectra_per_call": 1, "input": {"type": "int8"}, "gain": "per_channel", "output": {"type": "cf32"})");
  auto fs = makePfbSpec(s);
  fs->verify();
  const PfbKernels k = emitPfb(s, {.spectrumPostThreads = 512});
  ASSERT_TRUE(k.geometry.spectrumPostInPlace);
  EXPECT_EQ(k.geometry.spectrumPostParts, 2);
  EXPECT_EQ(k.geometry.threadsB, 512);
  const Check c = test::runPlanOnCpu(*fs, pfbLaunchPlan(s, k), 1, 6770, "pfb-cpu", "32768 channels, 512 threads", {});
  EXPECT_TRUE(c.ok()) << c.detail;
  EXPECT_GT(c.checked, 0);
  EXPECT_THROW(emitPfb(s, {.spectrumPostThreads = 256}), std::logic_error) << "64 values per thread per pass";
}

// As emitted for an arch that lends a block less shared memory (sm_86 / sm_89: two buffers of 4096 channels at most),
// 8192 channels take the in-place kernel and 16384 the two-part one: both meet the double reference.
TEST(PfbSpectrumPost, SmallerSharedMemoryHalvesTheLengths) {
  std::uint64_t seed = 6760;
  for (const auto& [channels, parts] : std::vector<std::pair<long long, int>>{{8192, 1}, {16384, 2}}) {
    const PfbSpec s = spec(fmt::format(
        R"("channels": {}, "taps": 2, "polarizations": 1, "spectra_per_call": 1, "input": {{"type": "int8"}}, "gain": "per_channel", "delay": true, "output": {{"type": "cf32"}})",
        channels));
    auto fs = makePfbSpec(s);
    fs->verify();
    const PfbKernels k = emitPfb(s, {.spectrumPostChannels = pfbSpectrumPostChannelsFor("sm_86")});
    ASSERT_TRUE(k.geometry.spectrumPostInPlace) << channels;
    EXPECT_EQ(k.geometry.spectrumPostParts, parts) << channels;
    EXPECT_EQ(k.geometry.sharedB, 64 * 1024) << channels;
    const Check c = test::runPlanOnCpu(*fs, pfbLaunchPlan(s, k), 1, seed++, "pfb-cpu",
                                       fmt::format("{} channels as emitted for sm_86", channels), {});
    EXPECT_TRUE(c.ok()) << c.detail;
    EXPECT_GT(c.checked, 0);
  }
}
