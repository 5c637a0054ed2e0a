// CPU tests of the correlator family: spec errors name the JSON path, the layout
// consistency check, the exact reference on hand-computed cases, every correlator
// spec in specs/ verifies and compiles with NVRTC for sm_80 and sm_90 without spills.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include "CorrelatorCpuShim.h"
#include "CudaOnCpu.h"
#include "TestUtil.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "generator/correlator/CorrelatorData.h"
#include "generator/correlator/CorrelatorEmitter.h"
#include "generator/correlator/CorrelatorFamily.h"
#include "generator/correlator/CorrelatorLayouts.h"
#include "generator/verify/MmaCheck.h"
#include "generator/correlator/CorrelatorModel.h"
#include "generator/correlator/CorrelatorPlan.h"
#include "generator/correlator/Pipeline.h"
#include "generator/correlator/PipelineEmitter.h"
#include "generator/correlator/ReduceEmitter.h"
#include "warpforge/compiler.h"
#include "warpforge/json.h"

using namespace warpforge;

namespace {

std::string specJson(int receivers, const std::string& type, const std::string& layout, int pols = 2, int channels = 2,
                     int samples = 64, const std::string& extra = "") {
  return fmt::format(
      R"({{"name": "t", "family": "correlator", "receivers": {}, "polarizations": {}, "channels": {}, "samples_per_call": {},
                         "sample_type": "{}", "input": {{"layout": "{}"}}{}}})",
      receivers, pols, channels, samples, type, layout, extra);
}

CorrelatorSpec spec(const std::string& json) { return parseCorrelatorSpecText(json, "t.json"); }

std::string specErrorPath(const std::string& json) {
  return warpforge::test::errorPathOf<SpecError>([&] { spec(json); });
}

std::vector<std::string> correlatorSpecFiles() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(std::string(WARPFORGE_SOURCE_DIR) + "/specs"))
    if (e.path().filename().string().rfind("correlator_", 0) == 0 && e.path().extension() == ".json")
      out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string readFile(const std::string& f) {
  std::ifstream in(f);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST(CorrelatorSpec, Parses) {
  CorrelatorSpec s = spec(specJson(80, "ci8", "katgpucbf"));
  EXPECT_EQ(s.receivers, 80);
  EXPECT_EQ(s.baselines(), 80 * 81 / 2);
  EXPECT_EQ(s.input.polarization, 1);
  EXPECT_EQ(s.input.timeBlock, 2);
  EXPECT_EQ(s.input.channel, 64 * 2);
  EXPECT_EQ(s.input.receiver, 2 * 64 * 2);
  CorrelatorSpec t = spec(specJson(3, "ci8", "tcc"));
  EXPECT_EQ(t.input.timesPerBlock, 16);
  EXPECT_EQ(t.input.time, 1);
  EXPECT_EQ(t.input.polarization, 16);
  EXPECT_EQ(t.input.receiver, 32);
  EXPECT_EQ(t.input.timeBlock, 3 * 2 * 16);
}

TEST(CorrelatorSpec, BadSpecsNameTheJsonPath) {
  EXPECT_EQ(specErrorPath(specJson(0, "ci8", "tcc")), "/receivers");
  EXPECT_EQ(specErrorPath(specJson(4, "ci2", "tcc")), "/sample_type");
  EXPECT_EQ(specErrorPath(specJson(4, "ci8", "nope")), "/input/layout");
  EXPECT_EQ(specErrorPath(specJson(4, "ci8", "tcc", 3)), "/polarizations");
  EXPECT_EQ(specErrorPath(specJson(4, "ci8", "tcc", 2, 1, 24)), "/samples_per_call");
  EXPECT_EQ(specErrorPath(specJson(4, "ci8", "tcc", 2, 1, 70000)),
            "/samples_per_call");  // int32 tensor-core sums could overflow
  EXPECT_EQ(specErrorPath(specJson(4, "ci8", "tcc", 2, 1, 64, R"(, "conjugate": "both")")), "/conjugate");
  EXPECT_EQ(specErrorPath(specJson(4, "ci8", "tcc", 2, 1, 64, R"(, "polarization_order": "x")")),
            "/polarization_order");
  EXPECT_EQ(specErrorPath(specJson(4, "ci8", "tcc", 2, 1, 64, R"(, "tuning": {"receivers_per_block": 24})")),
            "/tuning/receivers_per_block");
  EXPECT_EQ(specErrorPath(specJson(4, "ci8", "tcc", 2, 1, 64, R"(, "tuning": {"times_per_stage": 48})")),
            "/tuning/times_per_stage");
  EXPECT_EQ(specErrorPath(specJson(4, "ci8", "tcc", 2, 1, 64, R"(, "tuning": {"bogus": 1})")), "/tuning/bogus");
  EXPECT_EQ(specErrorPath(specJson(4, "ci8", "tcc", 2, 1, 64, R"(, "tuning": {"raw_stages": 9})")),
            "/tuning/raw_stages");
  EXPECT_EQ(specErrorPath(specJson(4, "ci8", "tcc", 2, 1, 64, R"(, "ci4_real_nibble": "high")")), "/ci4_real_nibble");
  EXPECT_EQ(
      specErrorPath(
          R"({"name": "t", "family": "correlator", "receivers": 4, "channels": 1, "samples_per_call": 64, "sample_type": "ci8",
                              "input": {"layout": "strides", "strides": {"batch": 10, "channel": 0, "receiver": 64, "polarization": 1, "time": 2}}})"),
      "/input/strides/batch");
  EXPECT_EQ(
      specErrorPath(
          R"({"name": "t", "family": "correlator", "receivers": 4, "channels": 1, "samples_per_call": 64, "sample_type": "ci8",
                              "input": {"layout": "strides", "strides": {"batch": 1000, "channel": 0, "receiver": 64, "polarization": 1}}})"),
      "/input/strides/time");
}

TEST(CorrelatorLayouts, ConsistentForEveryTypeAndTiling) {
  for (const char* ty : {"ci4", "ci8", "cf16"})
    for (int pols : {1, 2})
      for (int r : {1, 2, 3, 31, 64, 80, 193}) {
        CorrelatorSpec s = spec(specJson(r, ty, "tcc", pols, 1, 64));
        for (int rows : {32, 64, 128}) {
          s.tuning.receiversPerBlock = rows / pols;
          ConsistencyReport rep = correlatorConsistency(s);
          EXPECT_TRUE(rep.issues.empty()) << ty << " pols " << pols << " R " << r << " rows " << rows << ": "
                                          << rep.issues[0].path << " " << rep.issues[0].message;
        }
      }
}

TEST(CorrelatorLayouts, MutatedLayoutsAreCaught) {
  // The check is not vacuous: every swap of two physical bits of A, B or C is reported.
  for (const char* ty : {"ci8", "cf16"}) {
    CorrelatorSpec s = spec(specJson(80, ty, "tcc"));
    const CorrelatorMma good = correlatorMma(s.type, 2);
    ASSERT_TRUE(correlatorConsistency(s, &good).issues.empty());
    int mutations = 0, caught = 0;
    for (int which = 0; which < 3; ++which) {
      const Layout& l = which == 0 ? good.a : which == 1 ? good.b : good.c;
      const auto& e = l.entries();
      for (std::size_t x = 0; x < e.size(); ++x)
        for (std::size_t y = x + 1; y < e.size(); ++y) {
          CorrelatorMma bad = good;
          Layout& target = which == 0 ? bad.a : which == 1 ? bad.b : bad.c;
          target = l.swapped(e[x].phys, e[y].phys);
          ++mutations;
          caught += !correlatorConsistency(s, &bad).issues.empty();
        }
    }
    // and of the ldmatrix address layouts (the emitter's fragment loads)
    for (int which = 0; which < 2; ++which) {
      const Layout& l = which == 0 ? good.aAddr : good.bAddr;
      const auto& e = l.entries();
      for (std::size_t x = 0; x < e.size(); ++x)
        for (std::size_t y = x + 1; y < e.size(); ++y) {
          CorrelatorMma bad = good;
          (which == 0 ? bad.aAddr : bad.bAddr) = l.swapped(e[x].phys, e[y].phys);
          ++mutations;
          caught += !correlatorConsistency(s, &bad).issues.empty();
        }
    }
    EXPECT_EQ(caught, mutations) << ty;
    std::printf("[correlator] %s: %d of %d single bit swaps of A, B, C and the ldmatrix addresses caught\n", ty, caught,
                mutations);
  }
}

TEST(CorrelatorLayouts, MutatedOperandIsRejectedByTheCommonCheckNamingTheRule) {
  // The correlator's complex MMA goes through the common operand check (generator/verify/MmaCheck.h): B's two
  // summed lane bits exchanged, or C's row register moved, are reported with the rule they break.
  for (const char* ty : {"ci8", "cf16"}) {
    CorrelatorSpec s = spec(specJson(80, ty, "tcc"));
    const CorrelatorMma good = correlatorMma(s.type, 2);
    CorrelatorMma bad = good;
    bad.b = good.b.swapped({PhysKind::T, 0}, {PhysKind::T, 1});
    bool named = false;
    for (const auto& i : correlatorConsistency(s, &bad).issues)
      named |= i.path == "/mma" && i.message.find(kRuleSummed) != std::string::npos;
    EXPECT_TRUE(named) << ty;
    bad = good;
    bad.c = good.c.swapped({PhysKind::R, 1}, {PhysKind::T, 2});
    named = false;
    for (const auto& i : correlatorConsistency(s, &bad).issues) named |= i.message.find(kRuleRows) != std::string::npos;
    EXPECT_TRUE(named) << ty;
  }
}

TEST(CorrelatorLayouts, ConjPermIsExactOnEveryImaginaryPair) {
  for (int im0 = -127; im0 <= 127; ++im0)
    for (int im1 = -127; im1 <= 127; ++im1) {
      const int re0 = (im0 * 7) % 128, re1 = -(im1 * 5) % 128;
      const std::uint32_t w = (re0 & 0xff) | (im0 & 0xff) << 8 | (re1 & 0xff) << 16 | (im1 & 0xff) << 24;
      const std::uint32_t p = conjPermModel(w, SampleType::CI8);
      const std::uint32_t want = ((-im0) & 0xff) | (re0 & 0xff) << 8 | ((-im1) & 0xff) << 16 | (re1 & 0xff) << 24;
      ASSERT_EQ(p, want) << im0 << " " << im1;
    }
  // -128 maps to itself: the reason the kernel clamps it to -127 first.
  EXPECT_EQ(conjPermModel(0x00008000u, SampleType::CI8) & 0xff, 0x80u);
}

TEST(CorrelatorReference, HandComputedCases) {
  // 2 receivers, 1 pol, 1 channel, 16 samples, ci8 tcc layout: s0 = (1 + 2i) at every time, s1 = (3 - 1i).
  CorrelatorSpec s = spec(specJson(2, "ci8", "tcc", 1, 1, 16));
  std::vector<unsigned char> in(static_cast<std::size_t>(2 * s.input.batch));
  for (long long t = 0; t < 16; ++t) {
    const long long o0 = sampleOffset(s, 0, 0, t, 0, 0), o1 = sampleOffset(s, 0, 0, t, 1, 0);
    in[2 * o0] = 1, in[2 * o0 + 1] = 2;
    in[2 * o1] = 3, in[2 * o1 + 1] = static_cast<unsigned char>(-1);
  }
  // bl(0,0) = 0: |s0|^2 = 5; bl(0,1) = 1: s0 conj(s1) = (1 + 2i)(3 + i) = 1 + 7i; bl(1,1) = 2: |s1|^2 = 10. Times 16.
  EXPECT_EQ(referenceProductInt(s, in, 0, 0), 80);
  EXPECT_EQ(referenceProductInt(s, in, 0, 1), 0);
  EXPECT_EQ(referenceProductInt(s, in, 0, 2), 16);
  EXPECT_EQ(referenceProductInt(s, in, 0, 3), 112);
  EXPECT_EQ(referenceProductInt(s, in, 0, 4), 160);
  CorrelatorSpec r1 = s;
  r1.conjugate = "r1";  // s1 conj(s0) = conj(1 + 7i)
  EXPECT_EQ(referenceProductInt(r1, in, 0, 3), -112);
  // -128 is read as -127: |(-128) + (-128)i|^2 -> 2 * 127^2.
  in[0] = 0x80, in[1] = 0x80;
  EXPECT_EQ(referenceProductInt(s, in, 0, 0), 15 * 5 + 2 * 127 * 127);
}

TEST(CorrelatorReference, Ci4NibblesAndClamp) {
  CorrelatorSpec s = spec(specJson(1, "ci4", "katgpucbf", 1, 1, 16));
  std::vector<unsigned char> in(static_cast<std::size_t>(s.input.batch), 0);
  in[sampleOffset(s, 0, 0, 0, 0, 0)] = 0x3e;  // high nibble 3 = real, low nibble 0xe = -2 imaginary
  SampleValue v = correlatorSample(s, in, 0, 0, 0, 0, 0);
  EXPECT_EQ(v.re, 3);
  EXPECT_EQ(v.im, -2);
  in[0] = 0x88;  // -8, -8 -> -7, -7
  v = correlatorSample(s, in, 0, 0, 0, 0, 0);
  EXPECT_EQ(v.re, -7);
  EXPECT_EQ(v.im, -7);
  s.ci4RealHigh = false;
  in[0] = 0x3e;
  v = correlatorSample(s, in, 0, 0, 0, 0, 0);
  EXPECT_EQ(v.re, -2);
  EXPECT_EQ(v.im, 3);
}

TEST(CorrelatorReference, CheckAcceptsTheReferenceAndCountsMismatches) {
  CorrelatorSpec s = spec(specJson(3, "ci8", "tcc", 2, 2, 32));
  TestData d = correlatorInputs(s, 2, 7);
  const long long n = s.visibilities() * 2;
  std::vector<unsigned char> vis(static_cast<std::size_t>(n * 4)), acc(d.arrays["accumulators"].size(), 0), sat(8);
  std::uint64_t count = 0;
  const auto& accIn = d.arrays["accumulators"];
  for (long long e = 0; e < n; e += 2) {
    bool clamped = false;
    std::int32_t out[2];
    for (int ri = 0; ri < 2; ++ri) {
      __int128 sum = 0;
      for (long long b = 0; b < 2; ++b) {
        std::int64_t a;
        std::memcpy(&a, &accIn[static_cast<std::size_t>((b * n + e + ri) * 8)], 8);
        sum += a + referenceProductInt(s, d.arrays["input"], b, e + ri);
      }
      out[ri] = sum > INT32_MAX ? INT32_MAX : sum < -INT32_MAX ? -INT32_MAX : static_cast<std::int32_t>(sum);
      clamped |= sum > INT32_MAX || sum < -INT32_MAX;
    }
    long long c, bl, r1, r2;
    bl = (e / 2 / 4) % s.baselines();
    c = e / 2 / 4 / s.baselines();
    (void)c;
    baselineReceivers(bl, r1, r2);
    if (d.arrays["missing"][r1] || d.arrays["missing"][r2]) out[0] = out[1] = kMissingMarker, clamped = false;
    count += clamped;
    std::memcpy(&vis[static_cast<std::size_t>(e * 4)], out, 8);
  }
  std::memcpy(sat.data(), &count, 8);
  std::map<std::string, std::vector<unsigned char>> outs{{"visibilities", vis},
                                                         {"accumulators_out", acc},
                                                         {"saturated", sat}};
  Check c = correlatorCheck(s, d, outs, 2);
  EXPECT_TRUE(c.ok()) << c.detail;
  EXPECT_TRUE(c.exact);
  outs["visibilities"][12] ^= 1;
  Check bad = correlatorCheck(s, d, outs, 2);
  EXPECT_EQ(bad.error, 1) << bad.detail;
}

TEST(CorrelatorSpecs, EverySpecVerifiesAndCompilesWithoutSpills) {
  const auto files = correlatorSpecFiles();
  ASSERT_GE(files.size(), 3u);
  for (const auto& f : files) {
    auto fs = correlatorFamily().parse(parseJsonText(readFile(f), f), f);
    VerifyReport r;
    ASSERT_NO_THROW(r = fs->verify()) << f;
    std::printf("%s", r.text.c_str());
    for (const char* arch : {"sm_80", "sm_90"})
      for (const auto& src :
           fs->emit({arch, nullptr}).plan.sources) {  // sm_90: wgmma where the tile allows (sm_90a target)
        CompileResult c;
        ASSERT_NO_THROW(c = compileWithReport(src.text, fs->name(), compileTarget(src, arch)))
            << f << " " << src.fileName;
        std::printf("[nvrtc] %s %s %s: %d registers, spill stores %d B, loads %d B, stack %d B\n", fs->name().c_str(),
                    src.fileName.c_str(), arch, c.registers, c.spillStoreBytes, c.spillLoadBytes, c.stackFrameBytes);
        EXPECT_GT(c.registers, 0) << c.log;
        EXPECT_LE(c.spillStoreBytes, 0) << f << " " << arch << "\n" << c.log;
        EXPECT_LE(c.spillLoadBytes, 0) << f << " " << arch << "\n" << c.log;
      }
  }
}

TEST(CorrelatorSpecs, EveryTypeLayoutAndTilingCompiles) {
  for (const char* ty : {"ci4", "ci8", "cf16"})
    for (const char* layout : {"tcc", "katgpucbf"})
      for (int pols : {1, 2}) {
        CorrelatorSpec s = spec(specJson(80, ty, layout, pols, 2, 64));
        auto fs = makeCorrelatorSpec(s);
        Generated g = fs->emit({"sm_90", nullptr});
        for (const auto& src : g.plan.sources) {
          CompileResult c;
          ASSERT_NO_THROW(c = compileWithReport(src.text, "t", compileTarget(src, "sm_90")))
              << ty << " " << layout << " " << pols << "\n"
              << src.text;
          EXPECT_LE(c.spillStoreBytes, 0) << ty << " " << layout << " " << pols;
        }
      }
}

TEST(CorrelatorKernels, FragmentLoadsAreLdmatrixAndFillStoresAre16Bytes) {
  for (const char* ty : {"ci4", "ci8", "cf16"})
    for (const char* layout : {"tcc", "katgpucbf"}) {
      CorrelatorSpec s = spec(specJson(80, ty, layout, 2, 2, 64));
      const CorrelatorKernels k = emitCorrelator(s);
      EXPECT_NE(k.correlateSource.find("ldmatrix.sync.aligned.m8n8.x4.shared.b16"), std::string::npos);
      EXPECT_NE(k.correlateSource.find("corr_ldsm4("), std::string::npos);
      EXPECT_EQ(k.correlateSource.find("uint2*)(&s"), std::string::npos)
          << "no 8-byte fragment loads from shared memory left";
      EXPECT_NE(k.correlateSource.find("(uint4*)"), std::string::npos) << "16-byte staging stores";
      EXPECT_EQ(correlatorRowStride(s.tuning.timesPerStage, s.type) % 8, 4) << "rows 16-byte aligned, (stride / 4) odd";
    }
}

TEST(CorrelatorKernels, WgmmaSharedMemoryCoversBuffersAndTheCpAsyncRing) {
  // The sm_90 path: two stage buffers in the core-matrix layout plus a ring of raw cp.async slots; the declared
  // shared memory (static where the total is at most 48 KiB) must hold both.
  for (const char* ty : {"ci4", "ci8", "cf16"})
    for (const char* layout : {"tcc", "katgpucbf"})
      for (int rows : {64, 128})
        for (int ts : {32, 64}) {
          if (std::string(ty) == "cf16" && ts == 64 && rows == 128) continue;
          CorrelatorSpec s = spec(specJson(
              80, ty, layout, 2, 2, 128,
              fmt::format(R"(, "tuning": {{"receivers_per_block": {}, "times_per_stage": {}, "mma": "wgmma"}})",
                          rows / 2, ts)));
          ASSERT_TRUE(correlatorUsesWgmma(s, "sm_90")) << ty << " " << rows << " " << ts;
          const CorrelatorKernels k = emitCorrelator(s, true, true);
          const WgmmaStage w = wgmmaStage(s, rows);
          EXPECT_GT(k.rawRing, 0) << ty << " " << layout << " " << rows << " " << ts;
          EXPECT_GT(k.sharedBytes, 2 * w.bufferBytes);
          EXPECT_LE(k.sharedBytes, kWgmmaMaxShared);
          if (k.dynamicShared) EXPECT_NE(k.correlateSource.find("extern __shared__"), std::string::npos);
          else
            EXPECT_NE(k.correlateSource.find(fmt::format("wf_smem[{}]", k.sharedBytes / 4)), std::string::npos)
                << ty << " " << rows << " " << ts;
          EXPECT_NE(k.correlateSource.find("wgmma.mma_async.sync.aligned.m64n"), std::string::npos);
          EXPECT_NE(k.correlateSource.find("cp.async.wait_group"), std::string::npos);
          // Both stagings compile for sm_90a without spills (one layout, to keep the test short).
          if (std::string(layout) == "tcc" && ts == 32)
            for (bool ring : {false, true}) {
              const CorrelatorKernels kk = emitCorrelator(s, true, ring);
              CompileResult c;
              ASSERT_NO_THROW(c = compileWithReport(kk.correlateSource, "t", "sm_90a"))
                  << ty << " " << rows << " ring " << ring;
              std::printf("[nvrtc] wgmma %s rows %d ring %d: %d registers, spill stores %d B\n", ty, rows, ring,
                          c.registers, c.spillStoreBytes);
              EXPECT_LE(c.spillStoreBytes, 0) << ty << " " << rows << " ring " << ring;
            }
        }
}

TEST(CorrelatorKernels, ReduceIsAStreamingGridStrideKernel) {
  // TCC's R = 576 configuration: 42.5 M visibilities; a persistent grid (the resident blocks, at most one per sweep of
  // threads x unroll of the first accumulator), each block looping over the sweeps with the next sweep's loads issued
  // before this sweep's stores; 32-bit indices, no 64-bit division, coalesced 16-byte loads.
  CorrelatorSpec s = spec(specJson(576, "ci8", "tcc", 2, 64, 3072));
  const CorrelatorKernels k = emitCorrelator(s);
  const LaunchPlan p = correlatorLaunchPlan(s, k, true, false);
  ASSERT_EQ(p.kernels.size(), 1u);
  const GridRule& g = p.kernels[0].grid;
  EXPECT_TRUE(g.capAtResident);
  EXPECT_GE(g.unitsPerBatch * k.reduceThreads * kReduceUnroll, s.visibilities());
  EXPECT_LT((g.unitsPerBatch - 1) * k.reduceThreads * kReduceUnroll, s.visibilities());
  EXPECT_EQ(g.blocks(1, 528), 528);
  EXPECT_EQ(g.blocks(1, 1LL << 30), g.unitsPerBatch);
  const std::string& r = k.reduceSource;
  EXPECT_NE(r.find("if ((unsigned long long)blockIdx.x * 1024 >= 0x2892000)"), std::string::npos) << r;
  EXPECT_NE(r.find("const unsigned u0"), std::string::npos) << r;
  EXPECT_NE(r.find("__reduce_add_sync"), std::string::npos);
  EXPECT_NE(r.find("__syncthreads_or"), std::string::npos);
  EXPECT_EQ(r.find("long long bl"), std::string::npos);
  // The first sweep's four loads are issued before the flags are staged, the flags once per block (outside the sweep
  // loop); in the loop the next sweep's loads come before this sweep's resets and stores; one baseline decode per
  // thread (4 lanes share a baseline), its flag handed over by shuffles.
  const std::size_t loop = r.find("for (unsigned sweep = first;");
  ASSERT_NE(loop, std::string::npos) << r;
  EXPECT_LT(r.find("__ldcs(pn + 768)"), r.find("__ldg(missing + r)"));
  EXPECT_LT(r.find("__ldg(missing + r)"), loop);
  EXPECT_LT(r.find("__ldcs(pn + 768)", loop), r.find("__stcs(p, ", loop));
  EXPECT_LT(r.find("__ldcs(pn + 768)", loop), r.find("__stcs(out, ", loop));
  EXPECT_EQ(r.find("rsqrtf"), r.rfind("rsqrtf"));
  EXPECT_NE(r.find("__shfl_sync(0xffffffffu, m0, (int)(threadIdx.x & 28 | 3))"), std::string::npos);
  EXPECT_EQ(reduceBytes(s, 1), s.visibilities() * 40);
  for (const char* arch : {"sm_80", "sm_90"}) {
    const CompileResult c = compileWithReport(k.reduceSource, "reduce", arch);
    std::printf("[nvrtc] reduce R=576 %s: %d registers, spill stores %d B\n", arch, c.registers, c.spillStoreBytes);
    EXPECT_LE(c.registers, 64);  // __launch_bounds__(256, 4)
    EXPECT_EQ(c.spillStoreBytes, 0);
    EXPECT_EQ(c.stackFrameBytes, 0);
  }
  // The bench's variants: resets with the loads, no prefetch, half and twice the units per thread, the previous
  // kernels.
  for (int variant = 0; variant < 6; ++variant) {
    ReduceOptions o;
    o.resetWithLoads = variant == 0;
    o.prefetch = variant != 1;
    o.unroll = variant == 2 ? kReduceUnroll / 2 : variant == 3 ? 2 * kReduceUnroll : kReduceUnroll;
    const std::string src = variant == 4   ? emitReduceOneBlockPerSweep(s, "reduce", k.reduceThreads)
                            : variant == 5 ? emitReducePrevious(s, "reduce", k.reduceThreads)
                                           : emitReduce(s, "reduce", k.reduceThreads, o);
    for (const char* arch : {"sm_80", "sm_90"}) {
      const CompileResult c = compileWithReport(src, "reduce", arch);
      std::printf("[nvrtc] reduce R=576 %s variant %d: %d registers, spill stores %d B\n", arch, variant, c.registers,
                  c.spillStoreBytes);
      EXPECT_LE(c.registers, variant == 3 ? 128 : 64);  // __launch_bounds__(256, 4), twice the units: (256, 2)
      EXPECT_EQ(c.spillStoreBytes, 0);
      EXPECT_EQ(c.stackFrameBytes, 0);
    }
  }
  // f32 accumulators: two visibilities per 16-byte unit (float4) where V is even; one polarization with odd V (8-byte
  // units, the tail predicates) and with even V (a unit spans two baselines: two decodes).
  for (int channels : {2, 3})
    for (int pols : {1, 2}) {
      CorrelatorSpec f = spec(specJson(193, "cf16", "tcc", pols, channels, 64));
      const std::string src = emitCorrelator(f).reduceSource;
      EXPECT_EQ(src.find("float4") != std::string::npos, f.visibilities() % 2 == 0) << src;
      for (const char* arch : {"sm_80", "sm_90"}) {
        const CompileResult c = compileWithReport(src, "reduce", arch);
        std::printf("[nvrtc] reduce f32 R=193 C=%d P=%d %s: %d registers, spill stores %d B\n", channels, pols, arch,
                    c.registers, c.spillStoreBytes);
        EXPECT_EQ(c.spillStoreBytes, 0);
        EXPECT_LE(c.registers, 64);
      }
    }
}

// The bench's reduce variants, timed beside the default in one run: the default and its options on the persistent grid,
// the previous kernels on their one-block-per-sweep grid (each a plan of the reduce kernel alone, batch 1).
TEST(CorrelatorKernels, ReduceBenchVariantsKeepThePreviousKernels) {
  auto fs = correlatorFamily().parse(parseJsonText(specJson(64, "ci8", "tcc", 2, 16, 256), "t.json"), "t.json");
  const auto* bench = dynamic_cast<const BenchFacet*>(fs.get());
  ASSERT_NE(bench, nullptr);
  const CorrelatorSpec s = spec(specJson(64, "ci8", "tcc", 2, 16, 256));
  std::map<std::string, const BenchVariant*> reduce;
  const std::vector<BenchVariant> variants = bench->benchVariants({"sm_90", nullptr});
  for (const BenchVariant& v : variants)
    if (v.name.rfind("reduce kernel only", 0) == 0) reduce[v.name] = &v;
  ASSERT_EQ(reduce.size(), 7u);
  const std::string p = "reduce kernel only, ";
  for (const std::string& n :
       {std::string("reduce kernel only"), p + "resets issued with the loads",
        p + "next sweep's loads after the stores (no prefetch)", p + "half the units per thread",
        p + "twice the units per thread", p + "previous kernel (one block per sweep, loads first)",
        p + "the kernel before it (flags before the loads)"}) {
    ASSERT_TRUE(reduce.count(n)) << n;
    const LaunchPlan& plan = reduce[n]->generated.plan;
    ASSERT_EQ(plan.kernels.size(), 1u) << n;
    const bool previous = n.find("previous") != std::string::npos || n.find("before it") != std::string::npos;
    EXPECT_EQ(plan.kernels[0].grid.capAtResident, !previous) << n;
    EXPECT_EQ(plan.sources[1].text.find("persistent streaming") != std::string::npos, !previous) << n;
    if (previous) EXPECT_EQ(plan.kernels[0].grid.unitsPerBatch, (s.visibilities() + 1023) / 1024) << n;
  }
  EXPECT_NE(reduce[p + "resets issued with the loads"]->generated.plan.sources[1].text.find("resets with the loads"),
            std::string::npos);
  EXPECT_NE(reduce[p + "twice the units per thread"]->generated.plan.sources[1].text.find("__launch_bounds__(256, 2)"),
            std::string::npos);
}

TEST(CorrelatorSpecs, MmaTuningRejectsWhatItCannotHonour) {
  EXPECT_EQ(specErrorPath(specJson(80, "ci8", "tcc", 2, 2, 64, R"(, "tuning": {"mma": "tensor"})")), "/tuning/mma");
  EXPECT_EQ(specErrorPath(specJson(80, "ci8", "tcc", 2, 2, 64, R"(, "tuning": {"mma": 1})")), "/tuning/mma");
  // wgmma needs 64- or 128-row tiles
  EXPECT_EQ(specErrorPath(
                specJson(80, "ci8", "tcc", 2, 2, 64, R"(, "tuning": {"mma": "wgmma", "receivers_per_block": 16})")),
            "/tuning/mma");
  // and an sm_90 target: emitting for sm_80 is a SpecError at /tuning/mma
  auto fs = makeCorrelatorSpec(spec(specJson(80, "ci8", "tcc", 2, 2, 64, R"(, "tuning": {"mma": "wgmma"})")));
  try {
    fs->emit({"sm_80", nullptr});
    ADD_FAILURE() << "wgmma emitted for sm_80";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.path(), "/tuning/mma");
  }
  EXPECT_TRUE(fs->emit({"sm_90", nullptr}).plan.onlyArch == 90);
  EXPECT_EQ(makeCorrelatorSpec(spec(specJson(80, "ci8", "tcc", 2, 2, 64,
                                             R"(, "tuning": {"mma": "mma_sync", "receivers_per_block": 64})")))
                ->emit({"sm_90", nullptr})
                .plan.onlyArch,
            0);
}

TEST(CorrelatorKernels, MmaSyncPlanRunsOnTheCpuAndMatchesTheExactReference) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  struct Case {
    std::string json, label;
  };
  const std::vector<Case> cases = {
      {R"({"name": "cpu_c8", "family": "correlator", "receivers": 5, "polarizations": 2, "channels": 2, "samples_per_call": 64, "sample_type": "ci8",
          "input": {"layout": "tcc"}, "conjugate": "r1", "polarization_order": "r2_r1"})",
       "ci8 tcc, R = 5"},
      {R"({"name": "cpu_c4", "family": "correlator", "receivers": 19, "polarizations": 2, "channels": 1, "samples_per_call": 96, "sample_type": "ci4",
          "input": {"layout": "katgpucbf"}})",
       "ci4 katgpucbf, R = 19"},
      {R"({"name": "cpu_c8p1", "family": "correlator", "receivers": 40, "polarizations": 1, "channels": 1, "samples_per_call": 64, "sample_type": "ci8",
          "input": {"layout": "katgpucbf"}, "tuning": {"receivers_per_block": 32}})",
       "ci8 one pol, R = 40, 32-row tiles"},
      {R"({"name": "cpu_h", "family": "correlator", "receivers": 7, "polarizations": 2, "channels": 1, "samples_per_call": 64, "sample_type": "cf16",
          "input": {"layout": "tcc"}})",
       "cf16 tcc, R = 7"}};
  for (const auto& c : cases) {
    auto fs = correlatorFamily().parse(parseJsonText(c.json, "cpu.json"), "cpu.json");
    runCorrelatorPlanOnCpu(*fs, fs->emit({"sm_80", nullptr}).plan, 2, 4242, c.label);
  }
}

// A reduce plan whose persistent grid is `blocks` blocks at batch 2 (the CPU run's resident blocks are unbounded: a
// grid of one block per sweep would never loop), so that each block runs several sweeps, one of them partial.
LaunchPlan withReduceBlocks(LaunchPlan plan, long long blocks) {
  GridRule& g = plan.kernels.back().grid;
  if (g.capAtResident) g.unitsPerBlock = (2 * g.unitsPerBatch + blocks - 1) / blocks;
  return plan;
}

// The reduce kernel and its bench variants (resets with the loads, no prefetch, half and twice the units per thread,
// the previous kernel, the one before it) on the CPU behind the mma.sync correlate kernel: batch 2, missing receivers,
// saturation, the accumulators left zero (seeds with receivers flagged missing, so the decode runs); the persistent
// grid cut to 3 blocks so that blocks loop over several sweeps (R = 40: 9840 visibilities, 9.6 sweeps of 1024); two
// polarizations (a baseline decoded once per 4 lanes), one (once per visibility), f32 (units of two visibilities:
// float4; one polarization with even V: a unit spans two baselines; odd V: one visibility per unit).
TEST(CorrelatorKernels, ReduceVariantsRunOnTheCpuAndMatchTheExactReference) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  struct Case {
    const char* type;
    int receivers, pols, channels, variants;
    std::uint64_t seed;
  };
  for (const Case& c : {Case{"ci8", 40, 2, 3, 7, 7072}, Case{"ci8", 9, 1, 3, 1, 7073}, Case{"cf16", 40, 2, 3, 1, 7072},
                        Case{"cf16", 40, 1, 2, 1, 7074}, Case{"cf16", 9, 1, 3, 1, 7075}}) {
    const std::string json = fmt::format(
        R"({{"name": "cpu_rv", "family": "correlator", "receivers": {}, "polarizations": {}, "channels": {}, "samples_per_call": 64,
        "sample_type": "{}", "input": {{"layout": "tcc"}}, "conjugate": "r1", "polarization_order": "r2_r1"}})",
        c.receivers, c.pols, c.channels, c.type);
    auto fs = correlatorFamily().parse(parseJsonText(json, "cpu.json"), "cpu.json");
    const CorrelatorSpec s = spec(json);
    // A seed that flags some receiver missing (the decode runs).
    std::uint64_t seed = c.seed;
    for (;; ++seed) {
      const std::vector<unsigned char> m = fs->randomInputs(2, seed).arrays.at("missing");
      if (std::count(m.begin(), m.end(), 0) < static_cast<long>(m.size())) break;
    }
    for (int variant = 0; variant < c.variants; ++variant) {
      CorrelatorKernels k = emitCorrelator(s);
      ReduceOptions o;
      o.resetWithLoads = variant == 1;
      o.prefetch = variant != 2;
      o.unroll = variant == 3 ? kReduceUnroll / 2 : variant == 4 ? 2 * kReduceUnroll : kReduceUnroll;
      k.reduceUnroll = o.unroll;
      if (variant <= 4) k.reduceSource = emitReduce(s, k.reduceName, k.reduceThreads, o);
      if (variant == 5) k.reduceSource = emitReduceOneBlockPerSweep(s, k.reduceName, k.reduceThreads);
      if (variant == 6) k.reduceSource = emitReducePrevious(s, k.reduceName, k.reduceThreads);
      LaunchPlan plan = correlatorLaunchPlan(s, k);
      if (variant >= 5) plan.kernels.back().grid.capAtResident = false;  // one block per sweep (their bench grid)
      const char* names[] = {"reduce",
                             "reduce, resets with the loads",
                             "reduce, no prefetch",
                             "reduce, U / 2",
                             "reduce, U x 2",
                             "previous reduce",
                             "reduce before it"};
      runCorrelatorPlanOnCpu(*fs, withReduceBlocks(plan, 3), 2, seed,
                             fmt::format("{}, {} R={} {} pol", names[variant], c.type, c.receivers, c.pols));
    }
  }
}

// The reduce kernel's baseline decode (the emitted expression: float estimate, one correction step each way) is exact
// at every row boundary of the largest triangle (R = 16384) with the reciprocal square root off by +-2^-21 relative
// (MUFU.RSQ is within ~2^-22.9), where a missing correction step would be off.
TEST(CorrelatorKernels, ReduceBaselineDecodeIsExactUnderTheRsqrtError) {
  for (double err : {-0x1p-21, 0.0, 0x1p-21})
    for (unsigned row = 0; row < 16384; ++row)
      for (int d : {-1, 0, 1, static_cast<int>(row)}) {
        const long long b = static_cast<long long>(row) * (row + 1) / 2 + d;
        if (b < 0 || b >= 16384LL * 16385 / 2) continue;
        const unsigned bl = static_cast<unsigned>(b);
        const float xq = 8.0f * static_cast<float>(bl) + 1.0f;
        const float rsq = static_cast<float>((1.0 + err) / std::sqrt(static_cast<double>(xq)));
        unsigned r2 = static_cast<unsigned>((xq * rsq - 1.0f) * 0.5f);
        r2 -= static_cast<unsigned>(r2 * (r2 + 1) / 2 > bl);
        r2 += static_cast<unsigned>((r2 + 1) * (r2 + 2) / 2 <= bl);
        const unsigned want = d < 0 ? row - 1 : d <= static_cast<int>(row) ? row : row + 1;
        ASSERT_EQ(r2, want) << "bl " << bl << " err " << err;
        ASSERT_LE(bl - r2 * (r2 + 1) / 2, r2);
      }
}

// The reduce kernel's own statements each matter: a wrong baseline decode (the lane that decoded a visibility's
// baseline, the group of lanes, the first receiver), a missing reset (of the first batch entry and of the later ones),
// a wrong saturation count (missing baselines counted, the imaginary part ignored) and a broken sweep loop (the next
// sweep's loads from this sweep's units or skipped, a wrong stride) each fail the CPU run.
TEST(CorrelatorKernels, ReduceCpuRunCatchesMutatedKernels) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  // R = 9: one sweep (540 visibilities); R = 40 on 3 blocks: several sweeps per block (the pipelined loop).
  for (int receivers : {9, 40}) {
    const std::string json = fmt::format(
        R"({{"name": "cpu_rm", "family": "correlator", "receivers": {}, "polarizations": 2, "channels": 3, "samples_per_call": 64,
        "sample_type": "ci8", "input": {{"layout": "tcc"}}, "conjugate": "r1", "polarization_order": "r2_r1"}})",
        receivers);
    auto fs = correlatorFamily().parse(parseJsonText(json, "cpu.json"), "cpu.json");
    const CorrelatorSpec s = spec(json);
    const LaunchPlan plan = withReduceBlocks(correlatorLaunchPlan(s, emitCorrelator(s)), 3);
    ASSERT_EQ(plan.kernels.back().source, 1);
    const std::vector<std::array<std::string, 3>> mutations =
        receivers == 9
            ? std::vector<std::array<std::string, 3>>{{"the flag of visibility 1 from the lane that decoded visibility "
                                                       "2",
                                                       "(int)(threadIdx.x & 28 | 1)", "(int)(threadIdx.x & 28 | 2)"},
                                                      {"each lane decodes its own visibility 0 (no sharing)",
                                                       "const unsigned q = threadIdx.x & 3;", "const unsigned q = 0;"},
                                                      {"first receiver off by the row",
                                                       "const unsigned r10 = bl0 - r20 * (r20 + 1) / 2;",
                                                       "const unsigned r10 = bl0 - r20 * (r20 - 1) / 2;"},
                                                      {"first batch entry not reset",
                                                       "__stcs(p, make_longlong2(0, 0));", ";"},
                                                      {"later batch entries not reset",
                                                       "__stcs(a + 256, make_longlong2(0, 0));", ";"},
                                                      {"saturation counted on missing baselines too",
                                                       "count += !absent", "count += 1 || !absent"},
                                                      {"saturation count ignores the imaginary part", "xIn && s",
                                                       "xIn || false && s"}}
            : std::vector<std::array<std::string, 3>>{{"the next sweep's loads from this sweep's units",
                                                       "(unsigned)nextSweep + threadIdx.x",
                                                       "(unsigned)sweep + threadIdx.x"},
                                                      {"the next sweep's loads skipped (the sums of the sweep before)",
                                                       "if (nextSweep < 9840)", "if (nextSweep < 0)"},
                                                      {"the sweep stride of one block", "sweep += step",
                                                       "sweep += 1024"}};
    test::expectMutationsCaught(*fs, plan, mutations, 7072, "correlator-cpu", correlatorShim(), {{"dump", 1}}, 1);
  }
}

// The sm_90 plan (wgmma m64nN from shared-memory descriptors, sm_90a code) on the CPU: the shim computes each
// wgmma from the descriptors as the PTX ISA reads them and completes it (and each cp.async) at the thread's wait,
// so a stage buffer rewritten while its wgmmas are in flight, or read before its copies landed, fails the run.
// 64-row tiles (one warpgroup) and 128-row tiles (two), receiver counts that leave partial tiles, both layouts, 8-bit,
// 4-bit (widened in the staging) and f16, registers-staged and the cp.async ring.
TEST(CorrelatorKernels, WgmmaPlanRunsOnTheCpuAndMatchesTheExactReference) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  struct Case {
    std::string json, label;
    bool ring;
  };
  const std::vector<Case> cases = {
      {R"({"name": "cpu_w8", "family": "correlator", "receivers": 35, "polarizations": 2, "channels": 2, "samples_per_call": 96, "sample_type": "ci8",
          "input": {"layout": "tcc"}, "tuning": {"mma": "wgmma"}})",
       "wgmma ci8 tcc, R = 35, 64-row tiles", false},
      {R"({"name": "cpu_w8k", "family": "correlator", "receivers": 70, "polarizations": 2, "channels": 1, "samples_per_call": 64, "sample_type": "ci8",
          "input": {"layout": "katgpucbf"}, "conjugate": "r1", "polarization_order": "r2_r1", "tuning": {"mma": "wgmma", "receivers_per_block": 64}})",
       "wgmma ci8 katgpucbf, R = 70, 128-row tiles, the other convention", false},
      {R"({"name": "cpu_w4", "family": "correlator", "receivers": 33, "polarizations": 2, "channels": 1, "samples_per_call": 64, "sample_type": "ci4",
          "input": {"layout": "katgpucbf"}, "tuning": {"mma": "wgmma"}})",
       "wgmma ci4 katgpucbf, R = 33", false},
      {R"({"name": "cpu_wh", "family": "correlator", "receivers": 40, "polarizations": 2, "channels": 1, "samples_per_call": 64, "sample_type": "cf16",
          "input": {"layout": "tcc"}, "tuning": {"mma": "wgmma"}})",
       "wgmma cf16 tcc, R = 40", false},
      {R"({"name": "cpu_wr", "family": "correlator", "receivers": 40, "polarizations": 2, "channels": 1, "samples_per_call": 160, "sample_type": "ci8",
          "input": {"layout": "tcc"}, "tuning": {"mma": "wgmma"}})",
       "wgmma ci8 tcc, R = 40, cp.async ring", true}};
  for (const auto& c : cases) {
    const CorrelatorSpec cs = parseCorrelatorSpecText(c.json, "cpu.json");
    auto fs = makeCorrelatorSpec(cs);
    const LaunchPlan plan = c.ring ? correlatorLaunchPlan(cs, emitCorrelator(cs, true, true))
                                   : fs->emit({"sm_90", nullptr}).plan;
    ASSERT_NE(plan.sources.front().text.find("corr_wgmma("), std::string::npos) << c.label << ": no wgmma kernel";
    if (c.ring)
      ASSERT_NE(plan.sources.front().text.find("corr_cp_async"), std::string::npos) << c.label << ": no cp.async ring";
    runCorrelatorPlanOnCpu(*fs, plan, 2, 5150, c.label);
  }
}

// The emulation can fail: each mutation of the cp.async-ring wgmma kernel (a stage buffer rewritten while its
// wgmmas are in flight, a raw slot read before its copies landed, no wait for the wgmmas, no wgmma.fence, B's
// descriptor strides swapped) makes the CPU run report a hazard or a wrong visibility.
TEST(CorrelatorKernels, WgmmaCpuRunCatchesMutatedKernels) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  const CorrelatorSpec cs = parseCorrelatorSpecText(
      R"({"name": "cpu_mut", "family": "correlator", "receivers": 40, "polarizations": 2, "channels": 1,
      "samples_per_call": 160, "sample_type": "ci8", "input": {"layout": "tcc"}, "tuning": {"mma": "wgmma"}})",
      "cpu.json");
  auto fs = makeCorrelatorSpec(cs);
  const LaunchPlan plan = correlatorLaunchPlan(cs, emitCorrelator(cs, true, true), true, true);
  const std::vector<std::array<std::string, 3>> mutations = {
      {"next stage staged into the buffer in flight", "(s0 / 32 + 1 & 1) * 3072", "(s0 / 32 & 1) * 3072"},
      {"raw slot read before its copies landed", "      corr_cp_wait<2>();\n      unsigned char* const sbuf",
       "      corr_cp_wait<3>();\n      unsigned char* const sbuf"},
      {"no wait for the stage's wgmmas", "    corr_wgmma_wait0();\n", "\n"},
      {"no wgmma.fence", "      corr_wgmma_fence();\n", "\n"},
      {"no proxy fence between the staging and the wgmmas", "corr_fence_async_smem();", ";"},
      {"B descriptor's LBO and SBO swapped", "corr_desc(smem_base + 4096, 128, 512)",
       "corr_desc(smem_base + 4096, 512, 128)"}};
  test::expectMutationsCaught(*fs, plan, mutations, 5151, "correlator-cpu", correlatorShim(), {{"dump", 1}});
}

// The sm_90a pipeline's proofs hold for every raw layout, sample type, polarization count and tile; its transform
// meets every bank group once per quarter warp.
TEST(CorrelatorPipeline, ProofsHoldForEveryLayoutTypeAndTile) {
  int checked = 0;
  for (const char* ty : {"ci8", "ci4", "cf16"})
    for (const char* layout : {"tcc", "katgpucbf", "rows"})
      for (int pols : {1, 2})
        for (int rows : {64, 128}) {
          if (std::string(layout) == "katgpucbf" && pols == 1)
            continue;  // one polarization: katgpucbf's runs are per input (rows)
          const int R = 77;
          const std::string json =
              std::string(layout) == "rows"
                  ? fmt::format(
                        R"({{"name": "t", "family": "correlator", "receivers": {}, "polarizations": {}, "channels": 2, "samples_per_call": 96,
                                              "sample_type": "{}", "input": {{"layout": "strides", "strides": {{"batch": {}, "channel": {}, "receiver": {}, "polarization": 96, "time": 1}}}}}})",
                        R, pols, ty, 2 * R * pols * 96, R * pols * 96, pols * 96)
                  : specJson(R, ty, layout, pols, 2, 96);
          const CorrelatorSpec s = spec(json);
          ASSERT_FALSE(pipelineBlocker(s)) << ty << " " << layout << " " << pols << ": " << *pipelineBlocker(s);
          for (bool shared : {false, true}) {
            CorrPipe p = corrPipe(s, rows, 0, 0, shared);
            int wavefronts = 0;
            transformUnits(p, &wavefronts);
            EXPECT_EQ(wavefronts, 1) << ty << " " << layout << " " << pols << " rows " << rows
                                     << ": the transform's search found no conflict-free order";
            std::vector<PipeIssue> issues;
            std::vector<std::string> proved;
            checkPipeline(s, p, issues, proved);
            for (const auto& i : issues)
              ADD_FAILURE() << ty << " " << layout << " P=" << pols << " rows " << rows << (shared ? " shared" : "")
                            << ": " << i.path << ": " << i.message;
            if (!checked++)
              for (const auto& l : proved) std::printf("  proved: %s\n", l.c_str());
            EXPECT_LE(p.sharedBytes, kWgmmaMaxShared);
          }
        }
  EXPECT_GT(checked, 40);
}

// A checker that cannot fail is no proof: a wrong descriptor stride, a unit table entry moved to another chunk, a
// conflicting order and an over-committed register budget are each reported.
TEST(CorrelatorPipeline, MutatedPipelinesAreCaught) {
  const CorrelatorSpec s = spec(specJson(77, "ci8", "tcc", 2, 2, 96));
  auto issuesOf = [&](const CorrPipe& p) {
    std::vector<PipeIssue> issues;
    std::vector<std::string> proved;
    checkPipeline(s, p, issues, proved);
    return issues;
  };
  const CorrPipe good = corrPipe(s, 128);
  ASSERT_TRUE(issuesOf(good).empty());
  CorrPipe m = good;
  m.sbo = 1024;  // the descriptors' SBO differs from the staging's 8-row pitch
  EXPECT_FALSE(issuesOf(m).empty()) << "SBO";
  m = good;
  m.units[3].outs[0].second ^= 1;  // a unit writes the neighbouring chunk
  EXPECT_FALSE(issuesOf(m).empty()) << "unit chunk";
  m = good;
  // the units in (row, chunk) order: a quarter warp reads chunks 0..3 of two rows, 2-way conflicts
  std::sort(m.units.begin(), m.units.end(), [](const PipeUnit& a, const PipeUnit& b) { return a.outs[0] < b.outs[0]; });
  bool conflict = false;
  for (const auto& i : issuesOf(m)) conflict |= i.message.find("wavefront") != std::string::npos;
  EXPECT_TRUE(conflict) << "quarter-warp order";
  m = good;
  m.consumerRegs = 232;
  EXPECT_FALSE(issuesOf(m).empty()) << "register budget";
  m = good;
  m.rawStages = 10;
  m.barriers = m.rawRing + m.rawStages * m.rawSlotBytes;
  m.sharedBytes = m.barriers + 8 * 2 * (m.opStages + m.rawStages) + 1024;
  EXPECT_FALSE(issuesOf(m).empty()) << "shared memory";
}

// The whole triangle of a channel in one block: pieces cover each strip from its diagonal on, balanced over the
// warpgroups; the proofs hold for every type, layout and size that fits (1, 2 and 3 consumer warpgroups); a piece
// moved by 8 columns, a strip pitch and a store that skips a piece are caught.
TEST(CorrelatorPipeline, WholeTriangleProofsHoldAndMutationsAreCaught) {
  {
    const auto pieces = trianglePieces(160, 3);  // strips from 0, 64, 128: 160 + 96 + 32 columns, 96 each
    ASSERT_EQ(pieces.size(), 3u);
    for (const auto& list : pieces) {
      int cols = 0;
      for (const PipePiece& pc : list) {
        cols += pc.width;
        EXPECT_LE(pc.width, 128);
      }
      EXPECT_EQ(cols, 96);
    }
  }
  int checked = 0;
  for (const char* ty : {"ci8", "ci4", "cf16"})
    for (const char* layout : {"tcc", "katgpucbf"})
      for (int R : {20, 36, 64, 80}) {
        const CorrelatorSpec s = spec(specJson(R, ty, layout, 2, 2, 96));
        ASSERT_TRUE(pipeTriangleFits(s)) << R;
        const CorrPipe p = corrPipe(s, 0, 0, 0, false, true);
        EXPECT_EQ(p.consumers, R <= 36 ? 1 : R <= 64 ? 2 : 3) << R;  // 96 columns of wgmma per warpgroup at most
        std::vector<PipeIssue> issues;
        std::vector<std::string> proved;
        checkPipeline(s, p, issues, proved);
        for (const auto& i : issues) ADD_FAILURE() << ty << " " << layout << " R=" << R << ": " << i.message;
        if (!checked++)
          for (const auto& l : proved) std::printf("  proved: %s\n", l.c_str());
      }
  EXPECT_FALSE(pipeTriangleFits(spec(specJson(81, "ci8", "tcc", 2, 2, 96))));
  const CorrelatorSpec s = spec(specJson(80, "ci8", "tcc", 2, 2, 96));
  const CorrPipe good = corrPipe(s, 0, 0, 0, false, true);
  auto caught = [&](const CorrPipe& m) {
    std::vector<PipeIssue> issues;
    std::vector<std::string> proved;
    checkPipeline(s, m, issues, proved);
    return !issues.empty();
  };
  CorrPipe m = good;
  m.pieces[1][0].col0 += 8;  // a piece's columns shifted: its first 8 inputs never stored, 8 past it twice
  EXPECT_TRUE(caught(m)) << "piece columns";
  m = good;
  m.pieces[2].pop_back();  // a piece dropped: its visibilities never written
  EXPECT_TRUE(caught(m)) << "piece dropped";
  m = good;
  m.pieces[0][0].width = 100;  // not whole 8-input groups
  EXPECT_TRUE(caught(m)) << "piece width";
  m = good;
  m.consumerRegs = 160;  // 3 x 128 x 160 + 128 x 56 exceed the 512 x 128 registers of the block
  EXPECT_TRUE(caught(m)) << "register budget";
}

TEST(CorrelatorPipeline, SpecsChooseThePipelineOnSm90) {
  const CorrelatorSpec a = spec(specJson(576, "ci8", "tcc", 2, 64, 3072));
  EXPECT_EQ(chooseCorrelator(a, "sm_90").path, CorrelatorPath::Pipeline) << chooseCorrelator(a, "sm_90").why;
  EXPECT_EQ(chooseCorrelator(a, "sm_80").path, CorrelatorPath::MmaSync);
  // The model ranks the tiles as measured there (H200: 128-input tiles 480 TOPS, 64-input 336).
  EXPECT_EQ(chooseCorrelator(a, "sm_90").rows, 128);
  EXPECT_LT(correlatorPipelineModel(a, 128), correlatorPipelineModel(a, 64));
  const CorrelatorSpec odd = spec(
      R"({"name": "t", "family": "correlator", "receivers": 33, "polarizations": 2, "channels": 2, "samples_per_call": 48, "sample_type": "ci8",
          "input": {"layout": "strides", "strides": {"batch": 6600, "channel": 50, "receiver": 200, "polarization": 100, "time": 1}}})");
  EXPECT_TRUE(pipelineBlocker(odd));
  EXPECT_NE(chooseCorrelator(odd, "sm_90").path, CorrelatorPath::Pipeline);
  EXPECT_EQ(specErrorPath(
                specJson(80, "ci8", "tcc", 2, 2, 64, R"(, "tuning": {"mma": "pipeline", "receivers_per_block": 16})")),
            "(no error)");
  auto fs = makeCorrelatorSpec(
      spec(specJson(80, "ci8", "tcc", 2, 2, 64, R"(, "tuning": {"mma": "pipeline", "receivers_per_block": 16})")));
  try {
    fs->emit({"sm_90", nullptr});
    ADD_FAILURE() << "pipeline emitted with 32-input tiles";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.path(), "/tuning/mma");
  }
  auto oddPipe = makeCorrelatorSpec(spec(
      R"({"name": "t", "family": "correlator", "receivers": 33, "polarizations": 2, "channels": 2, "samples_per_call": 48,
      "sample_type": "ci8", "input": {"layout": "strides", "strides": {"batch": 6600, "channel": 50, "receiver": 200, "polarization": 100, "time": 1}},
      "tuning": {"mma": "pipeline"}})"));
  EXPECT_THROW(oddPipe->emit({"sm_90", nullptr}), SpecError);
}

TEST(CorrelatorPipeline, KernelsCompileForSm90aWithoutSpills) {
  struct Case {
    std::string ty, layout;
    int pols, rows;
    bool shared;
  };
  for (const Case& c : std::vector<Case>{{"ci8", "tcc", 2, 128, false},
                                         {"ci8", "katgpucbf", 2, 64, false},
                                         {"ci4", "tcc", 2, 128, false},
                                         {"cf16", "katgpucbf", 2, 128, false},
                                         {"ci4", "katgpucbf", 2, 64, false},
                                         {"cf16", "tcc", 1, 64, false},
                                         {"ci8", "tcc", 2, 128, true},
                                         {"ci8", "katgpucbf", 2, 128, true},
                                         {"ci4", "tcc", 2, 64, true}}) {
    const CorrelatorSpec s = spec(specJson(200, c.ty, c.layout, c.pols, 2, 256));
    const CorrelatorKernels k = emitCorrelatorPipeline(s, c.rows, 0, c.shared);
    CompileResult r;
    ASSERT_NO_THROW(r = compileWithReport(k.correlateSource, "t", "sm_90a")) << c.ty << " " << c.layout << "\n"
                                                                             << k.correlateSource;
    std::printf("[nvrtc] pipeline %s %s P=%d rows %d%s: %d registers, spill stores %d B, loads %d B, stack %d B\n",
                c.ty.c_str(), c.layout.c_str(), c.pols, c.rows, c.shared ? " shared transform" : "", r.registers,
                r.spillStoreBytes, r.spillLoadBytes, r.stackFrameBytes);
    EXPECT_LE(r.spillStoreBytes, 0) << c.ty << " " << c.layout << "\n" << r.log;
    EXPECT_LE(r.spillLoadBytes, 0) << c.ty << " " << c.layout << "\n" << r.log;
    // ptxas serializes wgmmas it cannot pipeline (a branch around them, accumulators read in flight): none here.
    EXPECT_EQ(r.log.find("serialized"), std::string::npos) << c.ty << " " << c.layout << "\n" << r.log;
  }
}

// The pipeline's plan on the CPU: bulk copies land only when their mbarrier phase is waited for (poisoned until then),
// wgmma operands must be stores released through an mbarrier phase the warpgroup waited for, after a proxy fence;
// 64- and 128-input tiles (one and two consumer warpgroups, setmaxnreg), diagonal and partial tiles, a partial last
// stage, the three raw layouts, 8-bit, 4-bit and f16, both conventions; exact against the int64 reference.
// The whole triangle's kernels (1, 2 and 3 consumer warpgroups; 8-bit, 4-bit, f16; both outputs) compile without
// spills or serialized wgmmas.
TEST(CorrelatorPipeline, WholeTriangleKernelsCompileForSm90aWithoutSpills) {
  struct Case {
    int R;
    std::string ty, layout, output;
    int perSync = 1;  // tuning.stages_per_sync
  };
  for (const Case& c : std::vector<Case>{{80, "ci8", "tcc", "visibilities"},
                                         {80, "ci8", "tcc", "accumulators"},
                                         {80, "cf16", "tcc", "visibilities"},
                                         {64, "ci8", "tcc", "visibilities"},
                                         {64, "ci4", "katgpucbf", "accumulators"},
                                         {80, "cf16", "katgpucbf", "accumulators"},
                                         {30, "ci8", "tcc", "visibilities"},
                                         {80, "ci8", "tcc", "visibilities", 2},
                                         {80, "cf16", "tcc", "accumulators", 2}}) {
    CorrelatorSpec s = spec(specJson(c.R, c.ty, c.layout, 2, 2, 256));
    s.output = c.output;
    s.tuning.stagesPerSync = c.perSync;
    const CorrelatorKernels k = emitCorrelatorPipeline(s, 0, 0, false, 0, true);
    CompileResult r;
    ASSERT_NO_THROW(r = compileWithReport(k.correlateSource, "t", "sm_90a")) << c.ty << "\n" << k.correlateSource;
    std::printf(
        "[nvrtc] whole triangle R=%d %s %s %s, %d stage(s) per wait: %d registers, spill stores %d B, loads %d B\n",
        c.R, c.ty.c_str(), c.layout.c_str(), c.output.c_str(), c.perSync, r.registers, r.spillStoreBytes,
        r.spillLoadBytes);
    EXPECT_LE(r.spillStoreBytes, 0) << c.R << " " << c.ty << "\n" << r.log;
    EXPECT_LE(r.spillLoadBytes, 0) << c.R << " " << c.ty << "\n" << r.log;
    EXPECT_EQ(r.log.find("serialized"), std::string::npos) << c.R << " " << c.ty << "\n" << r.log;
  }
}

TEST(CorrelatorKernels, PipelinePlanRunsOnTheCpuAndMatchesTheExactReference) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  struct Case {
    std::string json, label;
    int rows;
    bool shared = false;
  };
  const std::vector<Case> cases = {
      {R"({"name": "cpu_p8s", "family": "correlator", "receivers": 70, "polarizations": 2, "channels": 1, "samples_per_call": 80, "sample_type": "ci8",
          "input": {"layout": "tcc"}})",
       "pipeline ci8 tcc, R = 70, 128-input tiles, A transformed by the consumers", 128, true},
      {R"({"name": "cpu_p8", "family": "correlator", "receivers": 35, "polarizations": 2, "channels": 1, "samples_per_call": 80, "sample_type": "ci8",
          "input": {"layout": "tcc"}})",
       "pipeline ci8 tcc, R = 35, 64-input tiles, partial last stage", 64},
      {R"({"name": "cpu_p8k", "family": "correlator", "receivers": 70, "polarizations": 2, "channels": 1, "samples_per_call": 64, "sample_type": "ci8",
          "input": {"layout": "katgpucbf"}, "conjugate": "r1", "polarization_order": "r2_r1"})",
       "pipeline ci8 katgpucbf, R = 70, 128-input tiles, TCC convention", 128},
      {R"({"name": "cpu_p4", "family": "correlator", "receivers": 33, "polarizations": 2, "channels": 1, "samples_per_call": 64, "sample_type": "ci4",
          "input": {"layout": "tcc"}})",
       "pipeline ci4 tcc, R = 33", 64},
      {R"({"name": "cpu_p4k", "family": "correlator", "receivers": 40, "polarizations": 2, "channels": 1, "samples_per_call": 48, "sample_type": "ci4",
          "input": {"layout": "katgpucbf"}, "ci4_real_nibble": "low"})",
       "pipeline ci4 katgpucbf (real nibble low), R = 40", 64},
      {R"({"name": "cpu_ph", "family": "correlator", "receivers": 70, "polarizations": 1, "channels": 1, "samples_per_call": 40, "sample_type": "cf16",
          "input": {"layout": "strides", "strides": {"batch": 2800, "channel": 2800, "receiver": 40, "polarization": 0, "time": 1}}})",
       "pipeline cf16 one pol, one run per input, R = 70", 64},
      // Long enough that both rings wrap (phase parities flip): a deep raw ring (the bench variant's) and explicit
      // shallow rings.
      {R"({"name": "cpu_pw", "family": "correlator", "receivers": 35, "polarizations": 2, "channels": 1, "samples_per_call": 336, "sample_type": "ci8",
          "input": {"layout": "tcc"}, "tuning": {"raw_stages": 7}})",
       "pipeline ci8 tcc, R = 35, 64-input tiles, 11 stages through 7 raw slots", 64},
      {R"({"name": "cpu_pw3", "family": "correlator", "receivers": 70, "polarizations": 2, "channels": 1, "samples_per_call": 224, "sample_type": "ci8",
          "input": {"layout": "tcc"}, "tuning": {"stages": 3, "raw_stages": 3}})",
       "pipeline ci8 tcc, R = 70, 128-input tiles, 7 stages through 3 operand and 3 raw slots, shared transform", 128,
       true}};
  for (const auto& c : cases) {
    const CorrelatorSpec cs = parseCorrelatorSpecText(c.json, "cpu.json");
    auto fs = makeCorrelatorSpec(cs);
    const LaunchPlan plan = correlatorLaunchPlan(cs, emitCorrelatorPipeline(cs, c.rows, cs.tuning.stages, c.shared));
    ASSERT_NE(plan.sources.front().text.find("wfa_bulk_g2s("), std::string::npos) << c.label;
    runCorrelatorPlanOnCpu(*fs, plan, 2, 6160, c.label);
  }
}

// The whole triangle of a channel in one block on the CPU: 1, 2 and 3 consumer warpgroups (pieces of one and two
// strips), partial last stages, the three raw layouts, 8-bit, 4-bit and f16, both conventions, both output models, the
// rings wrapping; exact against the int64 reference. The emulation catches a consumer that skips its wait and a piece
// reading the wrong strip.
TEST(CorrelatorKernels, WholeTrianglePlanRunsOnTheCpuAndMatchesTheExactReference) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"name": "cpu_w8", "family": "correlator", "receivers": 80, "polarizations": 2, "channels": 1, "samples_per_call": 80, "sample_type": "ci8",
          "input": {"layout": "tcc"}, "tuning": {"whole_triangle": true, "stages_per_sync": 1}})",
       "whole triangle ci8 tcc, R = 80 (3 warpgroups), one stage per wait, partial last stage"},
      {R"({"name": "cpu_w8v", "family": "correlator", "receivers": 77, "polarizations": 2, "channels": 2, "samples_per_call": 48, "sample_type": "ci8",
          "input": {"layout": "tcc"}, "conjugate": "r1", "polarization_order": "r2_r1", "output": "visibilities", "tuning": {"whole_triangle": true}})",
       "whole triangle ci8 tcc, R = 77, output visibilities, TCC convention"},
      {R"({"name": "cpu_w8k", "family": "correlator", "receivers": 64, "polarizations": 2, "channels": 1, "samples_per_call": 64, "sample_type": "ci8",
          "input": {"layout": "katgpucbf"}, "conjugate": "r1", "polarization_order": "r2_r1", "tuning": {"whole_triangle": true}})",
       "whole triangle ci8 katgpucbf, R = 64 (2 warpgroups), TCC convention"},
      {R"({"name": "cpu_w4", "family": "correlator", "receivers": 36, "polarizations": 2, "channels": 1, "samples_per_call": 64, "sample_type": "ci4",
          "input": {"layout": "tcc"}, "tuning": {"whole_triangle": true}})",
       "whole triangle ci4 tcc, R = 36 (1 warpgroup, two strips)"},
      {R"({"name": "cpu_wh", "family": "correlator", "receivers": 80, "polarizations": 2, "channels": 1, "samples_per_call": 40, "sample_type": "cf16",
          "input": {"layout": "tcc"}, "output": "visibilities", "tuning": {"whole_triangle": true}})",
       "whole triangle cf16 tcc, R = 80, output visibilities"},
      {R"({"name": "cpu_wh1", "family": "correlator", "receivers": 70, "polarizations": 1, "channels": 1, "samples_per_call": 40, "sample_type": "cf16",
          "input": {"layout": "strides", "strides": {"batch": 2800, "channel": 2800, "receiver": 40, "polarization": 0, "time": 1}}, "tuning": {"whole_triangle": true}})",
       "whole triangle cf16 one pol, one run per input, R = 70"},
      {R"({"name": "cpu_ww", "family": "correlator", "receivers": 48, "polarizations": 2, "channels": 1, "samples_per_call": 336, "sample_type": "ci8",
          "input": {"layout": "tcc"}, "tuning": {"whole_triangle": true, "stages": 3, "raw_stages": 3}})",
       "whole triangle ci8 tcc, R = 48, 11 stages through 3 operand and 3 raw slots"},
      {R"({"name": "cpu_wp", "family": "correlator", "receivers": 80, "polarizations": 2, "channels": 1, "samples_per_call": 336, "sample_type": "ci8",
          "input": {"layout": "tcc"}, "output": "visibilities", "tuning": {"whole_triangle": true, "stages_per_sync": 2}})",
       "whole triangle ci8 tcc, R = 80, two stages per wait: 11 stages (an odd last one) through 4 + 4 slots"},
      {R"({"name": "cpu_wp3", "family": "correlator", "receivers": 64, "polarizations": 2, "channels": 1, "samples_per_call": 200, "sample_type": "cf16",
          "input": {"layout": "katgpucbf"}, "tuning": {"whole_triangle": true, "stages_per_sync": 2, "raw_stages": 3, "stages": 5}})",
       "whole triangle cf16 katgpucbf, R = 64, two stages per wait: 13 stages through 5 operand and 3 raw slots"}};
  for (const auto& [json, label] : cases) {
    const CorrelatorSpec cs = parseCorrelatorSpecText(json, "cpu.json");
    auto fs = makeCorrelatorSpec(cs);
    const LaunchPlan plan = fs->emit({"sm_90", nullptr}).plan;
    ASSERT_NE(plan.sources.front().text.find("its pieces of the triangle"), std::string::npos) << label;
    runCorrelatorPlanOnCpu(*fs, plan, 2, 6170, label);
  }
  const CorrelatorSpec cs = parseCorrelatorSpecText(cases[0].first, "cpu.json");
  auto fs = makeCorrelatorSpec(cs);
  const LaunchPlan plan = fs->emit({"sm_90", nullptr}).plan;
  const std::vector<std::array<std::string, 3>> mutations = {
      {"consumer skips the wait for its operand slot",
       "while (!wfa_mbar_try_wait(full_op + 8u * oslot, opar)) {}  // the stage's operands are staged", ";"},
      {"a piece reads the rows of another strip", "corr_desc_sw64_diag(op_ring + 8192u)",
       "corr_desc_sw64_diag(op_ring)"},
      {"a piece stored at the wrong columns", "gj0 = 96 + ", "gj0 = 88 + "}};
  test::expectMutationsCaught(*fs, plan, mutations, 6171, "correlator-cpu", correlatorShim(), {{"dump", 1}});
  // Two stages per wait: a slot released while its wgmmas may run and a loader not waiting for its copies fail the run.
  // (Skipping the wait for a pair's second slot is no hazard: every loader thread stores both stages before its arrival
  // on the first slot's mbarrier, which releases them all.)
  const CorrelatorSpec ps = parseCorrelatorSpecText(cases[7].first, "cpu.json");
  auto pfs = makeCorrelatorSpec(ps);
  const LaunchPlan pplan = pfs->emit({"sm_90", nullptr}).plan;
  ASSERT_NE(pplan.sources.front().text.find("k += 2"), std::string::npos);
  const std::vector<std::array<std::string, 3>> pairMutations = {
      {"the consumers release a slot still in flight", "wfa_mbar_arrive(empty_op + 8u * ((k + 2) % 4));",
       "wfa_mbar_arrive(empty_op + 8u * ((k + 0) % 4));"},
      {"the loader skips the wait for its bulk copies",
       "while (!wfa_mbar_try_wait(full_raw + 8u * rs, (unsigned)(st / 4) & 1u)) {}", ";"}};
  test::expectMutationsCaught(*pfs, pplan, pairMutations, 6172, "correlator-cpu", correlatorShim(), {{"dump", 1}});
}

// The emulation of the pipeline can fail: a loader that does not wait for its bulk copies, copies not announced to
// their mbarrier (expect_tx), a consumer that does not wait for its operand slot and stores released without the
// proxy fence each fail the CPU run (a hazard or a wrong visibility). (Wrong descriptors: MutatedPipelinesAreCaught.)
TEST(CorrelatorKernels, PipelineCpuRunCatchesMutatedKernels) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  const CorrelatorSpec cs = parseCorrelatorSpecText(
      R"({"name": "cpu_pmut", "family": "correlator", "receivers": 35, "polarizations": 2, "channels": 1,
      "samples_per_call": 128, "sample_type": "ci8", "input": {"layout": "tcc"}, "tuning": {"stages_per_sync": 1}})",
      "cpu.json");
  auto fs = makeCorrelatorSpec(cs);
  const LaunchPlan plan = correlatorLaunchPlan(cs, emitCorrelatorPipeline(cs, 64), true, true);
  const std::vector<std::array<std::string, 3>> mutations = {
      {"loader skips the wait for its bulk copies", "while (!wfa_mbar_try_wait(full_raw + 8u * rslot, rpar)) {}", ";"},
      {"bulk copies not announced (arrive without expect_tx)", "wfa_mbar_arrive_tx(bar, (unsigned)(",
       "wfa_mbar_arrive_tx(bar, 0u * (unsigned)("},
      {"consumer skips the wait for its operand slot", "while (!wfa_mbar_try_wait(full_op + 8u * oslot, opar)) {}",
       ";"},
      {"no proxy fence before the release", "corr_fence_async_smem();  // the stores above", ";  // the stores above"}};
  test::expectMutationsCaught(*fs, plan, mutations, 6161, "correlator-cpu", correlatorShim(), {{"dump", 1}});
}

// ---- output "visibilities" (TCC's model): the correlate kernel writes each call's visibilities once.

TEST(CorrelatorSpec, OutputModelParsesAndRejectsOtherValues) {
  EXPECT_EQ(spec(specJson(5, "ci8", "tcc")).output, "accumulators");
  EXPECT_FALSE(spec(specJson(5, "ci8", "tcc")).writesVisibilities());
  EXPECT_TRUE(spec(specJson(5, "ci8", "tcc", 2, 1, 64, R"(, "output": "visibilities")")).writesVisibilities());
  EXPECT_EQ(spec(specJson(5, "ci8", "tcc", 2, 1, 64, R"(, "output": "accumulators")")).output, "accumulators");
  EXPECT_EQ(specErrorPath(specJson(5, "ci8", "tcc", 2, 1, 64, R"(, "output": "both")")), "/output");
  EXPECT_EQ(specErrorPath(specJson(5, "ci8", "tcc", 2, 1, 64, R"(, "output": 1)")), "/output");
  EXPECT_EQ(specErrorPath(specJson(5, "ci8", "tcc", 2, 1, 64, R"(, "outputs": "visibilities")")), "/outputs");
  try {
    spec(specJson(5, "ci8", "tcc", 2, 1, 64, R"(, "output": "int32")"));
    ADD_FAILURE() << "no SpecError";
  } catch (const SpecError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("t.json"), std::string::npos) << what;
    EXPECT_NE(what.find("int32"), std::string::npos) << what;
    EXPECT_NE(what.find("accumulators"), std::string::npos) << what;
    EXPECT_NE(what.find("visibilities"), std::string::npos) << what;
  }
}

TEST(CorrelatorKernels, VisibilitiesPlanIsOneKernelWithWriteOnlyStores) {
  for (const char* arch : {"sm_80", "sm_90"})
    for (int pols : {1, 2}) {
      const CorrelatorSpec s = spec(
          specJson(80, "ci8", pols == 2 ? "tcc" : "katgpucbf", pols, 2, 128, R"(, "output": "visibilities")"));
      const LaunchPlan p = makeCorrelatorSpec(s)->emit({arch, nullptr}).plan;
      ASSERT_EQ(p.kernels.size(), 1u) << arch;
      ASSERT_EQ(p.sources.size(), 1u) << arch;
      EXPECT_TRUE(p.params.empty());
      std::vector<std::string> names;
      for (const auto& b : p.buffers) names.push_back(b.name);
      EXPECT_EQ(names, (std::vector<std::string>{"input", "visibilities"})) << arch;
      const PlanBuffer* vis = p.buffer("visibilities");
      EXPECT_EQ(vis->perBatchElems, s.visibilities() * 2);
      EXPECT_EQ(vis->elementType, "int");
      const std::string& src = p.sources[0].text;
      EXPECT_EQ(src.find("longlong2"), std::string::npos) << arch << ": no accumulator access";
      EXPECT_EQ(src.find("accv"), std::string::npos) << arch;
      EXPECT_NE(src.find(pols == 2 ? "((int4*)(visv + " : "visv["), std::string::npos) << arch;
      EXPECT_NE(src.find("const bool active"), arch == std::string("sm_80") ? std::string::npos : 0);
    }
}

// Every path of the new output compiles for its targets without spills: mma.sync (sm_80), the register-staged wgmma
// kernel and the pipeline (sm_90a) for 8-bit, 4-bit and f16, one and two polarizations, both orders, 64 / 128 tiles.
TEST(CorrelatorKernels, VisibilitiesKernelsCompileWithoutSpills) {
  struct Case {
    std::string ty, layout, order;
    int pols, rows;
    std::string path;
  };
  for (const Case& c : std::vector<Case>{{"ci8", "tcc", "r2_r1", 2, 64, "mma_sync"},
                                         {"ci4", "katgpucbf", "r1_r2", 2, 128, "mma_sync"},
                                         {"cf16", "tcc", "r1_r2", 1, 64, "mma_sync"},
                                         {"ci8", "katgpucbf", "r2_r1", 2, 128, "wgmma"},
                                         {"cf16", "tcc", "r1_r2", 2, 64, "wgmma"},
                                         {"ci8", "tcc", "r2_r1", 2, 128, "pipeline"},
                                         {"ci8", "katgpucbf", "r1_r2", 2, 64, "pipeline"},
                                         {"ci4", "tcc", "r2_r1", 2, 128, "pipeline"},
                                         {"cf16", "tcc", "r2_r1", 2, 128, "pipeline"},
                                         {"ci8", "tcc", "r1_r2", 1, 64, "pipeline"}}) {
    const CorrelatorSpec s = spec(specJson(
        200, c.ty, c.layout, c.pols, 2, 256,
        fmt::format(
            R"(, "output": "visibilities", "polarization_order": "{}", "tuning": {{"mma": "{}", "receivers_per_block": {}}})",
            c.order, c.path, c.rows / c.pols)));
    const std::string arch = c.path == "mma_sync" ? "sm_80" : "sm_90";
    const LaunchPlan p = makeCorrelatorSpec(s)->emit({arch, nullptr}).plan;
    ASSERT_EQ(p.sources.size(), 1u);
    EXPECT_EQ(p.sources[0].text.find("wfa_bulk_g2s(") != std::string::npos, c.path == "pipeline") << c.path;
    CompileResult r;
    ASSERT_NO_THROW(r = compileWithReport(p.sources[0].text, "t", compileTarget(p.sources[0], arch)))
        << c.ty << " " << c.path << "\n"
        << p.sources[0].text;
    std::printf("[nvrtc] visibilities %s %s %s P=%d rows %d %s: %d registers, spill stores %d B, loads %d B\n",
                c.path.c_str(), c.ty.c_str(), c.layout.c_str(), c.pols, c.rows, c.order.c_str(), r.registers,
                r.spillStoreBytes, r.spillLoadBytes);
    EXPECT_LE(r.spillStoreBytes, 0) << c.ty << " " << c.path << "\n" << r.log;
    EXPECT_LE(r.spillLoadBytes, 0) << c.ty << " " << c.path << "\n" << r.log;
    EXPECT_EQ(r.log.find("serialized"), std::string::npos) << r.log;
  }
}

// The new output on the CPU against the exact reference, outputs poisoned: mma.sync (sm_80 plan), the register-staged
// wgmma kernel and the pipeline (sm_90 plans), both conventions (the lane exchange of either polarization bit), one
// polarization (8-byte stores), partial and diagonal tiles, two batch entries (each its own visibilities).
TEST(CorrelatorKernels, VisibilitiesPlanRunsOnTheCpuAndMatchesTheExactReference) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  struct Case {
    std::string json, label, arch;
  };
  const std::string vis = R"("output": "visibilities")";
  const std::vector<Case> cases = {
      {R"({"name": "cpu_v8", "family": "correlator", "receivers": 5, "polarizations": 2, "channels": 2, "samples_per_call": 64, "sample_type": "ci8",
          "input": {"layout": "tcc"}, "conjugate": "r1", "polarization_order": "r2_r1", )" +
           vis + "}",
       "visibilities mma.sync ci8 tcc, TCC convention, R = 5", "sm_80"},
      {R"({"name": "cpu_v4", "family": "correlator", "receivers": 19, "polarizations": 2, "channels": 1, "samples_per_call": 96, "sample_type": "ci4",
          "input": {"layout": "katgpucbf"}, )" +
           vis + "}",
       "visibilities mma.sync ci4 katgpucbf, R = 19", "sm_80"},
      {R"({"name": "cpu_v1", "family": "correlator", "receivers": 40, "polarizations": 1, "channels": 1, "samples_per_call": 64, "sample_type": "ci8",
          "input": {"layout": "katgpucbf"}, "conjugate": "r1", "tuning": {"receivers_per_block": 32}, )" +
           vis + "}",
       "visibilities mma.sync ci8 one pol, R = 40, 32-row tiles", "sm_80"},
      {R"({"name": "cpu_vh", "family": "correlator", "receivers": 7, "polarizations": 2, "channels": 1, "samples_per_call": 64, "sample_type": "cf16",
          "input": {"layout": "tcc"}, "polarization_order": "r2_r1", )" +
           vis + "}",
       "visibilities mma.sync cf16 tcc, R = 7", "sm_80"},
      {R"({"name": "cpu_vw", "family": "correlator", "receivers": 70, "polarizations": 2, "channels": 1, "samples_per_call": 64, "sample_type": "ci8",
          "input": {"layout": "katgpucbf"}, "conjugate": "r1", "polarization_order": "r2_r1", "tuning": {"mma": "wgmma", "receivers_per_block": 64}, )" +
           vis + "}",
       "visibilities wgmma ci8 katgpucbf, R = 70, 128-row tiles, TCC convention", "sm_90"},
      {R"({"name": "cpu_vp8", "family": "correlator", "receivers": 70, "polarizations": 2, "channels": 1, "samples_per_call": 80, "sample_type": "ci8",
          "input": {"layout": "tcc"}, "conjugate": "r1", "polarization_order": "r2_r1", "tuning": {"receivers_per_block": 64}, )" +
           vis + "}",
       "visibilities pipeline ci8 tcc, R = 70, 128-input tiles, TCC convention, partial last stage", "sm_90"},
      {R"({"name": "cpu_vp8k", "family": "correlator", "receivers": 35, "polarizations": 2, "channels": 2, "samples_per_call": 64, "sample_type": "ci8",
          "input": {"layout": "katgpucbf"}, "tuning": {"receivers_per_block": 32}, )" +
           vis + "}",
       "visibilities pipeline ci8 katgpucbf, R = 35, 64-input tiles", "sm_90"},
      {R"({"name": "cpu_vp4", "family": "correlator", "receivers": 40, "polarizations": 2, "channels": 1, "samples_per_call": 64, "sample_type": "ci4",
          "input": {"layout": "tcc"}, "polarization_order": "r2_r1", "tuning": {"receivers_per_block": 64, "transform": "shared"}, )" +
           vis + "}",
       "visibilities pipeline ci4 tcc, R = 40, 128-input tiles, shared transform", "sm_90"},
      {R"({"name": "cpu_vph", "family": "correlator", "receivers": 70, "polarizations": 1, "channels": 1, "samples_per_call": 40, "sample_type": "cf16",
          "input": {"layout": "strides", "strides": {"batch": 2800, "channel": 2800, "receiver": 40, "polarization": 0, "time": 1}},
          "conjugate": "r1", "tuning": {"receivers_per_block": 64}, )" +
           vis + "}",
       "visibilities pipeline cf16 one pol, R = 70", "sm_90"}};
  for (const auto& c : cases) {
    auto fs = correlatorFamily().parse(parseJsonText(c.json, "cpu.json"), "cpu.json");
    const LaunchPlan plan = fs->emit({c.arch, nullptr}).plan;
    ASSERT_EQ(plan.kernels.size(), 1u) << c.label;
    if (c.label.find("pipeline") != std::string::npos)
      ASSERT_NE(plan.sources.front().text.find("wfa_bulk_g2s("), std::string::npos) << c.label;
    if (c.label.find("wgmma") != std::string::npos)
      ASSERT_NE(plan.sources.front().text.find("corr_wgmma("), std::string::npos) << c.label;
    const Check ck = runCorrelatorPlanOnCpu(*fs, plan, 2, 8180, c.label);
    EXPECT_NE(ck.detail.find("x 2 batch entries"), std::string::npos) << ck.detail;
  }
}

// The CPU run of the new output fails on a wrong store: the pair's outer polarization index dropped, the lane exchange
// with the wrong partner, the two halves of a 16-byte store swapped (mma.sync and pipeline).
TEST(CorrelatorKernels, VisibilitiesCpuRunCatchesAWrongStore) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  const std::string tcc =
      R"({"name": "cpu_vmut", "family": "correlator", "receivers": 9, "polarizations": 2, "channels": 1, "samples_per_call": 64,
      "sample_type": "ci8", "input": {"layout": "tcc"}, "conjugate": "r1", "polarization_order": "r2_r1", "output": "visibilities"})";
  auto mma = correlatorFamily().parse(parseJsonText(tcc, "cpu.json"), "cpu.json");
  test::expectMutationsCaught(*mma, mma->emit({"sm_80", nullptr}).plan,
                              {{"outer polarization index dropped", "* 2 + (gj & 1)) * 2", "* 2) * 2"},
                               {"exchange with the wrong lane", "give_re, 4)", "give_re, 1)"},
                               {"the pair's halves swapped", "make_int4(hi ? got_re : d[0], hi ? got_im : -d[1], ",
                                "make_int4(hi ? d[2] : got_re, hi ? -d[3] : got_im, "}},
                              8181, "correlator-cpu", correlatorShim());
  auto pipe = correlatorFamily().parse(parseJsonText(tcc, "cpu.json"), "cpu.json");
  test::expectMutationsCaught(*pipe, pipe->emit({"sm_90", nullptr}).plan,
                              {{"pipeline: outer polarization index inverted", "* 2 + (int)hi) * 2",
                                "* 2 + (int)!hi) * 2"},
                               {"pipeline: exchange with the wrong lane", "give_re, 4)", "give_re, 8)"}},
                              8182, "correlator-cpu", correlatorShim());
}
