// The fused channeliser (bench's variant, generator/pfb/PfbFused.h) run on the CPU through tests/CudaOnCpu.h against
// the double reference: batch entries reusing the scratch ring, partial last runs, each output type; and mutations of
// its ticket decode and ring that the check must catch.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "CudaOnCpu.h"
#include "generator/pfb/PfbEmitter.h"
#include "generator/pfb/PfbFamily.h"
#include "generator/pfb/PfbFused.h"
#include "generator/pfb/PfbSpec.h"
#include "TestUtil.h"
#include "warpforge/compiler.h"

using namespace warpforge;

namespace {

PfbSpec fusedSpec(const std::string& members) {
  return parsePfbSpecText(fmt::format(R"({{"name": "pfb_f", "family": "pfb", {}}})", members), "t.json");
}

// A kernel body's block barrier as the shim's named barrier.
const std::vector<std::pair<std::string, std::string>> kShim = {
    {"pfb_named_barrier",
     "static __device__ __forceinline__ void pfb_named_barrier(unsigned id, unsigned count) { wf_bar_sync(id, count); "
     "}"}};

}  // namespace

TEST(PfbFused, RunsOnTheCpuAndMatchesTheDoubleReference) {
  struct Case {
    const char* label;
    std::string members;
    long long batch;
  };
  const std::vector<Case> cases = {
      {"int8, 64 channels, 4 taps, gains + delays, ci8 katgpucbf, 3 entries (ring reused)",
       R"("channels": 64, "taps": 4, "spectra_per_call": 32, "input": {"type": "int8"}, "gain": "per_channel", "delay": true, "output": {"type": "ci8", "layout": "katgpucbf"})",
       3},
      {"10-bit packed, 128 channels, 4 taps, 2 receivers, ci8 tcc",
       R"("channels": 128, "taps": 4, "receivers": 2, "spectra_per_call": 48, "input": {"type": "packed", "bits": 10}, "gain": 0.05, "output": {"type": "ci8", "layout": "tcc"})",
       2},
      {"int16, 64 channels, 4 taps, 1 pol, delay, cf32, a partial last run",
       R"("channels": 64, "taps": 4, "polarizations": 1, "spectra_per_call": 40, "input": {"type": "int16"}, "delay": true, "output": {"type": "cf32"})",
       2},
  };
  std::uint64_t seed = 9090;
  int covered = 0;
  for (const auto& c : cases) {
    const PfbSpec s = fusedSpec(c.members);
    // the fused tickets decode row-pair post units, a row pair each
    const PfbKernels k = emitPfb(s, {.rowPairPost = true, .postPairLoop = 0});
    if (!pfbFusable(s, k.geometry)) {
      ADD_FAILURE() << c.label << ": not fusable (runs of " << k.geometry.runSpectra << ", units of "
                    << k.geometry.spectraPerUnit << ")";
      continue;
    }
    ++covered;
    auto fs = makePfbSpec(s);
    fs->verify();
    const Check r = test::runPlanOnCpu(*fs, pfbFusedLaunchPlan(s, k, 2), c.batch, seed++, "pfb-fused", c.label, kShim);
    EXPECT_TRUE(r.ok()) << c.label << ": " << r.detail;
    EXPECT_GT(r.checked, 0) << c.label;
  }
  EXPECT_EQ(covered, 3);
}

// A test that cannot fail is a defect: a wrong fir unit or post unit must fail the run.
TEST(PfbFused, MutatedTicketsAreCaught) {
  const PfbSpec s = fusedSpec(
      R"("channels": 64, "taps": 4, "spectra_per_call": 32, "input": {"type": "int8"}, "gain": "per_channel", "delay": true, "output": {"type": "ci8"})");
  auto fs = makePfbSpec(s);
  const LaunchPlan plan = pfbFusedLaunchPlan(s, emitPfb(s, {.postPairLoop = 0}), 2);
  test::expectMutationsCaught(*fs, plan,
                              {{{"post unit of the wrong row pair", "pfb_post::body(w % ", "pfb_post::body(0 * w % "}},
                               {{"fir unit of the wrong stream", "(b * 2u + w / ", "(b * 2u + 0 * w / "}},
                               {{"post unit of the wrong spectrum group", "u % groups", "0"}}},
                              91, "pfb-fused", kShim);
}

// The MeerKAT specs' fused kernels compile with NVRTC for sm_90; 4k channels at one block per SM without spills (the
// 32k post body spills 16-32 B as a called function even at 128 registers; the figures are printed).
TEST(PfbFused, MeerkatKernelsCompile) {
  for (const char* f : {"specs/pfb_meerkat_4k_ci8.json", "specs/pfb_meerkat_32k_ci8.json"}) {
    const PfbSpec s = parsePfbSpecText(test::readFile(test::sourcePath(f)), f);
    const PfbKernels k = emitPfb(s);
    ASSERT_TRUE(pfbFusable(s, k.geometry)) << f;
    for (int bps : {1, 2}) {
      const LaunchPlan p = pfbFusedLaunchPlan(s, k, bps);
      const CompileResult r = compileWithReport(p.sources[0].text, s.name, "sm_90");
      std::printf("[nvrtc] %s fused, %d block(s) per SM: %d registers, spill stores %d B, loads %d B, stack %d B\n", f,
                  bps, r.registers, r.spillStoreBytes, r.spillLoadBytes, r.stackFrameBytes);
      EXPECT_GT(r.registers, 0) << r.log;
      if (s.channels == 4096 && bps == 1) EXPECT_EQ(r.spillStoreBytes + r.spillLoadBytes, 0) << f;
    }
  }
}
