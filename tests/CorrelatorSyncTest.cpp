// CPU tests of the correlator pipeline's grouped stage loops (tuning.stages_per_sync 2 and 4): the spec's limits, the
// proofs, NVRTC sm_90a without spills, and CPU runs against the exact reference on square tiles and the whole triangle,
// with mutations (a group's second stage read before its copies landed, a group released in flight).
#include <gtest/gtest.h>

#include "CorrelatorCpuShim.h"
#include "CudaOnCpu.h"
#include "TestUtil.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "generator/correlator/CorrelatorEmitter.h"
#include "generator/correlator/CorrelatorFamily.h"
#include "generator/correlator/CorrelatorModel.h"
#include "generator/correlator/CorrelatorPlan.h"
#include "generator/correlator/CorrelatorTune.h"
#include "generator/correlator/Pipeline.h"
#include "generator/correlator/PipelineEmitter.h"
#include "warpforge/compiler.h"
#include "warpforge/json.h"

using namespace warpforge;

namespace {

std::string syncJson(const std::string& name, int R, const std::string& type, const std::string& layout, int samples,
                     const std::string& tuning, const std::string& more = "") {
  return R"({"name": ")" + name + R"(", "family": "correlator", "receivers": )" + std::to_string(R) +
         R"(, "polarizations": 2, "channels": 1, "samples_per_call": )" + std::to_string(samples) +
         R"(, "sample_type": ")" + type + R"(", "input": {"layout": ")" + layout + R"("})" + more + R"(, "tuning": {)" +
         tuning + "}}";
}

}  // namespace

TEST(CorrelatorSync, SpecLimitsAndProofs) {
  auto parse = [](const std::string& tuning) {
    return parseCorrelatorSpecText(syncJson("t", 70, "ci8", "tcc", 256, tuning), "t.json");
  };
  EXPECT_THROW(parse(R"("stages_per_sync": 3)"), SpecError);
  EXPECT_THROW(parse(R"("stages_per_sync": 4, "stages": 6)"), SpecError);
  EXPECT_THROW(parse(R"("stages_per_sync": 2, "stages": 3)"), SpecError);
  try {  // the split transform, as the shared one, needs a third operand slot
    parse(R"("transform": "split", "stages": 2)");
    ADD_FAILURE() << "split with 2 stages was accepted";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.path(), "/tuning/transform");
    EXPECT_NE(std::string(e.what()).find("3 or more stages"), std::string::npos) << e.what();
  }
  // Square tiles take it on sm_90 (the pipeline); mma.sync does not.
  EXPECT_NO_THROW(emitCorrelatorFor(parse(R"("stages_per_sync": 2, "whole_triangle": false)"), "sm_90"));
  EXPECT_THROW(emitCorrelatorFor(parse(R"("stages_per_sync": 2)"), "sm_80"), SpecError);
  // The default ring holds two groups: 2 N operand slots, N or more raw slots.
  const CorrelatorSpec s4 = parse(R"("stages_per_sync": 4)");
  const CorrPipe p4 = corrPipe(s4, 64, 0, 0, true);
  EXPECT_EQ(p4.opStages, 8);
  EXPECT_GE(p4.rawStages, 4);
  for (int rows : {64, 128})
    for (bool shared : {false, true})
      for (const char* tuning : {R"("stages_per_sync": 2)", R"("stages_per_sync": 2, "stages": 5, "raw_stages": 3)"}) {
        const CorrelatorSpec s = parse(tuning);
        const CorrPipe p = corrPipe(s, rows, s.tuning.stages, 0, shared);
        std::vector<PipeIssue> issues;
        std::vector<std::string> proved;
        checkPipeline(s, p, issues, proved);
        for (const auto& i : issues) ADD_FAILURE() << rows << " " << tuning << ": " << i.message;
      }
  CorrPipe m = corrPipe(parse(R"("stages_per_sync": 2)"), 64, 0, 0, true);
  m.opStages = 3;  // a group in flight and the next one staged need 4 slots
  std::vector<PipeIssue> issues;
  std::vector<std::string> proved;
  checkPipeline(parse(R"("stages_per_sync": 2)"), m, issues, proved);
  EXPECT_FALSE(issues.empty());
}

// sm_90a without spills or serialized wgmmas: square tiles of 128 inputs (two consumer warpgroups, the diagonal's half
// form) and 64, both transforms, 8-bit and f16, both outputs, 4 and 6 operand slots; four stages per wait on the
// whole triangle.
TEST(CorrelatorSync, KernelsCompileForSm90aWithoutSpills) {
  struct Case {
    int R, rows, perSync;
    std::string ty, output;
    bool shared, triangle = false;
    int slots = 0;  // tuning.stages (0: 2 N)
  };
  for (const Case& c : std::vector<Case>{{576, 128, 2, "ci8", "visibilities", true},
                                         {576, 128, 2, "ci8", "accumulators", false},
                                         {576, 128, 2, "cf16", "visibilities", true},
                                         {576, 64, 2, "ci4", "visibilities", true},
                                         {2048, 128, 2, "ci8", "visibilities", true, false, 6},
                                         {64, 0, 4, "ci8", "visibilities", false, true}}) {
    CorrelatorSpec s = parseCorrelatorSpecText(syncJson("t", c.R, c.ty, "tcc", 256,
                                                        R"("stages_per_sync": )" + std::to_string(c.perSync) +
                                                            (c.slots ? R"(, "stages": )" + std::to_string(c.slots)
                                                                     : std::string()),
                                                        R"(, "output": ")" + c.output + "\""),
                                               "t.json");
    const CorrelatorKernels k = emitCorrelatorPipeline(s, c.rows, c.slots, c.shared, 0, c.triangle);
    CompileResult r;
    ASSERT_NO_THROW(r = compileWithReport(k.correlateSource, "t", "sm_90a")) << k.correlateSource;
    std::printf("[nvrtc] %d stages per wait, R=%d %s rows %d%s %s: %d registers, spill stores %d B, loads %d B\n",
                c.perSync, c.R, c.ty.c_str(), c.rows, c.shared ? " shared" : "", c.output.c_str(), r.registers,
                r.spillStoreBytes, r.spillLoadBytes);
    EXPECT_LE(r.spillStoreBytes, 0) << r.log;
    EXPECT_LE(r.spillLoadBytes, 0) << r.log;
    EXPECT_EQ(r.log.find("serialized"), std::string::npos) << r.log;
  }
}

// CPU runs (bulk copies land only when waited for, wgmma operands must be released through a waited phase after a
// proxy fence): odd stage counts (a last group of fewer stages), rings wrapping mid-group, both transforms, diagonal
// and off-diagonal tiles (one and two consumer warpgroups), 8-bit and f16, both outputs; exact against the int64
// reference. (4-bit and the other layouts only change the transform, which the grouped loops call unchanged.)
TEST(CorrelatorSync, GroupedPlansRunOnTheCpuAndMatchTheExactReference) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  struct Case {
    std::string json, label;
    int rows;
    bool shared;
  };
  const std::vector<Case> cases = {
      {syncJson("cpu_g8s", 70, "ci8", "tcc", 224, R"("stages_per_sync": 2)"),
       "ci8 tcc R = 70, 128-input tiles, shared transform, 2 per wait: 7 stages through 4 + 4 slots", 128, true},
      {syncJson("cpu_g8l", 35, "ci8", "tcc", 336, R"("stages_per_sync": 2, "stages": 5, "raw_stages": 3)",
                R"(, "output": "visibilities")"),
       "ci8 tcc R = 35, 64-input tiles, loader transform, 2 per wait: 11 stages through 5 + 3 slots", 64, false},
      {syncJson("cpu_g8k6", 70, "ci8", "katgpucbf", 224, R"("stages_per_sync": 2, "stages": 6)"),
       "ci8 katgpucbf R = 70, 128-input tiles, shared transform, 2 per wait: 7 stages through 6 + 4 slots", 128, true},
      {syncJson("cpu_gh4", 35, "cf16", "tcc", 208, R"("stages_per_sync": 4, "raw_stages": 5)"),
       "cf16 tcc R = 35, 64-input tiles (one block per SM), shared transform, 4 per wait: 13 stages through 8 + 5 "
       "slots",
       64, true}};
  for (const auto& c : cases) {
    const CorrelatorSpec cs = parseCorrelatorSpecText(c.json, "cpu.json");
    auto fs = makeCorrelatorSpec(cs);
    const LaunchPlan plan = correlatorLaunchPlan(cs, emitCorrelatorPipeline(cs, c.rows, cs.tuning.stages, c.shared));
    ASSERT_NE(plan.sources.front().text.find(fmt::format("k += {})", cs.tuning.stagesPerSync)), std::string::npos)
        << c.label;
    runCorrelatorPlanOnCpu(*fs, plan, 2, 6180, c.label);
  }
  // The whole triangle with four stages per wait: 13 stages, a last group of one.
  const CorrelatorSpec ts = parseCorrelatorSpecText(syncJson("cpu_gw4", 64, "ci8", "tcc", 416,
                                                             R"("stages_per_sync": 4, "whole_triangle": true)",
                                                             R"(, "output": "visibilities")"),
                                                    "cpu.json");
  auto tfs = makeCorrelatorSpec(ts);
  runCorrelatorPlanOnCpu(*tfs, tfs->emit({"sm_90", nullptr}).plan, 1, 6181, "whole triangle ci8 R = 64, 4 per wait");
}

// tuning.transform "split": the consumers transform B's last 8-row groups beside A, the loader the groups before
// them; the verifier proves the coverage (each operand chunk written once, bank-conflict free) and the plans stay
// bit-exact on the CPU, one and two stages per wait, 64- and 128-input tiles, 8- and 16-bit samples. (ci4 and
// katgpucbf's layout have 16 units per group: one round of the consumers would be all of B, so they keep the shared
// transform.)
TEST(CorrelatorSync, SplitTransformRunsOnTheCpuAndIsProved) {
  struct Case {
    std::string json, label;
    int rows;
  };
  const std::vector<Case> cases = {
      {syncJson("cpu_split8", 70, "ci8", "tcc", 224, R"("stages_per_sync": 2, "transform": "split")"),
       "ci8 tcc R = 70, 128-input tiles, 2 per wait", 128},
      {syncJson("cpu_split8s", 35, "ci8", "tcc", 160, R"("stages_per_sync": 1, "transform": "split")"),
       "ci8 tcc R = 35, 64-input tiles, 1 per wait", 64},
      {syncJson("cpu_splith", 35, "cf16", "tcc", 208, R"("stages_per_sync": 2, "transform": "split")",
                R"(, "output": "visibilities")"),
       "cf16 tcc R = 35, 64-input tiles, 2 per wait", 64}};
  for (const auto& c : cases) {
    const CorrelatorSpec cs = parseCorrelatorSpecText(c.json, "cpu.json");
    const CorrPipe p = corrPipe(cs, c.rows, cs.tuning.stages, 0, true);
    EXPECT_EQ(p.bConsumerGroups, c.rows / 16) << c.label;  // one round of the consumers: half of B's groups
    std::vector<PipeIssue> issues;
    std::vector<std::string> proved;
    checkPipeline(cs, p, issues, proved);
    for (const auto& i : issues) ADD_FAILURE() << c.label << ": " << i.path << ": " << i.message;
    bool provedSplit = false;
    for (const auto& line : proved) provedSplit |= line.find("B's last groups by the consumers") != std::string::npos;
    EXPECT_TRUE(provedSplit) << c.label;
    CorrPipe wrong = p;  // a share that is not one round of the consumers: groups left out or written twice
    wrong.bConsumerGroups = p.bConsumerGroups / 2;
    std::vector<PipeIssue> caught;
    proved.clear();
    checkPipeline(cs, wrong, caught, proved);
    EXPECT_FALSE(caught.empty()) << c.label;
    const LaunchPlan plan = correlatorLaunchPlan(cs, emitCorrelatorPipeline(cs, c.rows, cs.tuning.stages, true));
    ASSERT_NE(plan.sources.front().text.find("the split transform"), std::string::npos) << c.label;
    if (std::system("c++ --version > /dev/null 2>&1") != 0) continue;
    runCorrelatorPlanOnCpu(*makeCorrelatorSpec(cs), plan, 2, 6184, "split transform " + c.label);
  }
}

// sample_range "symmetric" (no -128 / -8 in the data, as a saturating F-engine sends): the staging's clamp helpers are
// the identity on sm_80 and sm_90 (the clamp itself where the range is full), and the plan stays bit-exact on such
// data (ci8 and ci4 through the pipeline on the CPU). cf16 and unknown ranges are SpecErrors at /sample_range.
TEST(CorrelatorSync, SymmetricSamplesSkipTheClampAndStayExact) {
  auto pathOf = [](const std::string& json) {
    try {
      parseCorrelatorSpecText(json, "sym.json");
    } catch (const SpecError& e) {
      return e.path();
    }
    return std::string("(accepted)");
  };
  const std::string sym = R"(, "sample_range": "symmetric")";
  EXPECT_EQ(pathOf(syncJson("t", 35, "cf16", "tcc", 208, "", sym)), "/sample_range");
  EXPECT_EQ(pathOf(syncJson("t", 35, "ci8", "tcc", 208, "", R"(, "sample_range": "half")")), "/sample_range");
  EXPECT_EQ(pathOf(syncJson("t", 35, "ci8", "tcc", 208, "", R"(, "sample_range": "full")")), "(accepted)");
  const std::string identity = "corr_clamp8(wf_u32 w) { return w; }", identity4 = "corr_clamp4(wf_u32 w) { return w; }";
  // sm_90's default for symmetric ci8 uses the operands as stored (no clamp at all: PipelineDirect.h) on either tile
  // (R = 35: 70 inputs, 64-input tiles), not where the whole triangle saves blocks (129..160 inputs: R = 70); with a
  // transform asked for, the transform pipeline's clamp is the identity.
  std::string tccR64 = syncJson("t", 64, "ci8", "tcc", 4096, "", sym);  // TCC's R = 64 C = 1024 T = 4096
  tccR64.replace(tccR64.find(R"("channels": 1,)"), 14, R"("channels": 1024,)");
  EXPECT_TRUE(emitCorrelatorFor(parseCorrelatorSpecText(tccR64, "t.json"), "sm_90").direct);
  EXPECT_TRUE(
      emitCorrelatorFor(parseCorrelatorSpecText(syncJson("t", 35, "ci8", "tcc", 208, "", sym), "t.json"), "sm_90")
          .direct);
  EXPECT_FALSE(
      emitCorrelatorFor(parseCorrelatorSpecText(syncJson("t", 70, "ci8", "tcc", 208, "", sym), "t.json"), "sm_90")
          .direct);
  for (const char* arch : {"sm_80", "sm_90"}) {
    const CorrelatorSpec full = parseCorrelatorSpecText(syncJson("t", 35, "ci8", "tcc", 208, ""), "t.json");
    const CorrelatorSpec cs = parseCorrelatorSpecText(syncJson("t", 35, "ci8", "tcc", 208, R"("transform": "shared")",
                                                               sym),
                                                      "t.json");
    EXPECT_NE(emitCorrelatorFor(cs, arch).correlateSource.find(identity), std::string::npos) << arch;
    EXPECT_NE(emitCorrelatorFor(cs, arch).correlateSource.find(identity4), std::string::npos) << arch;
    EXPECT_EQ(emitCorrelatorFor(full, arch).correlateSource.find(identity), std::string::npos) << arch;
  }
  if (std::system("c++ --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  for (const char* type : {"ci8", "ci4"}) {
    const CorrelatorSpec cs = parseCorrelatorSpecText(syncJson(std::string("cpu_sym_") + type, 35, type, "tcc", 224,
                                                               R"("stages_per_sync": 2)", sym),
                                                      "cpu.json");
    auto fs = makeCorrelatorSpec(cs);
    const LaunchPlan plan = correlatorLaunchPlan(cs, emitCorrelatorPipeline(cs, 64, cs.tuning.stages, true));
    ASSERT_NE(plan.sources.front().text.find(identity), std::string::npos) << type;
    runCorrelatorPlanOnCpu(*fs, plan, 2, 6183, std::string("symmetric ") + type + " R = 35, 64-input tiles");
  }
}

TEST(CorrelatorSync, CpuRunCatchesMutatedGroupedLoops) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";

  // Mutations of the square tiles' grouped loops (128-input tiles, shared transform): each is a real bug the run must
  // catch. (Skipping the consumers' wait for a group's second operand slot is none: every thread stores the whole group
  // before its arrival on the first slot's mbarrier.)
  const CorrelatorSpec ms = parseCorrelatorSpecText(syncJson("cpu_g8s", 70, "ci8", "tcc", 224,
                                                             R"("stages_per_sync": 2)"),
                                                    "cpu.json");
  auto mfs = makeCorrelatorSpec(ms);
  const LaunchPlan mplan = correlatorLaunchPlan(ms, emitCorrelatorPipeline(ms, 128, 0, true));
  const std::vector<std::array<std::string, 3>> mutations = {
      {"the consumers' A transform reads a group's second stage before its copies landed",
       "while (!wfa_mbar_try_wait(full_raw + 8u * rs, (unsigned)(st / 4) & 1u)) {}\n",
       "if (st == s0) while (!wfa_mbar_try_wait(full_raw + 8u * rs, (unsigned)(st / 4) & 1u)) {}\n"},
      {"the previous group released while its wgmmas may run", "corr_wgmma_wait<1>();  // the previous pair's",
       "corr_wgmma_wait<2>();  // the previous pair's"},
      // What sample_range "symmetric" emits, on data that holds -128 (sample_range full): the option is no no-op.
      {"the -128 clamp skipped on data that holds -128", "const wf_u32 t = w ^ (wf_u32)0x80808080;",
       "return w;\n  const wf_u32 t = w ^ (wf_u32)0x80808080;"}};
  test::expectMutationsCaught(*mfs, mplan, mutations, 6182, "correlator-cpu", correlatorShim(), {{"dump", 1}});
}

// `warpforge bench` of TCC's bench specs lists the grouped kernels beside the default (names as the lead's device
// commands quote them); 6 and 8 operand slots only where they fit.
TEST(CorrelatorSync, BenchListsTheGroupedVariants) {
  auto names = [](const std::string& file) {
    auto fs = correlatorFamily().parse(
        parseJsonText(test::readFile(test::sourcePath("generator/correlator/tools/bench-specs/" + file)), file), file);
    std::vector<std::string> out;
    for (const BenchVariant& v : dynamic_cast<const BenchFacet&>(*fs).benchVariants({"sm_90", nullptr}))
      out.push_back(v.name);
    return out;
  };
  auto has = [](const std::vector<std::string>& list, const std::string& n) {
    return std::find(list.begin(), list.end(), n) != list.end();
  };
  const std::string square = "correlate only, pipeline square tiles, ";
  const std::vector<std::string> r576 = names("tcc_8bit_r576_visibilities.json");
  for (const auto& n : r576) std::printf("  tcc_8bit_r576_visibilities: %s\n", n.c_str());
  EXPECT_TRUE(has(r576, square + "two stages per wait (stages_per_sync 2, 4 operand slots)"));
  EXPECT_FALSE(has(r576, square + "four stages per wait (stages_per_sync 4, 8 operand slots)"));  // 8 x 24 KiB
  EXPECT_TRUE(has(r576, square + "two stages per wait (stages_per_sync 2, 6 operand slots)"));
  const std::vector<std::string> r64 = names("tcc_8bit_r64_visibilities.json");
  for (const auto& n : r64) std::printf("  tcc_8bit_r64_visibilities: %s\n", n.c_str());
  EXPECT_TRUE(has(r64,
                  "correlate only, pipeline, whole triangle per channel, four stages per wait (stages_per_sync 4, "
                  "8 operand slots)"));
}

// A spec whose ring does not fit every other block form (8 operand slots from stages_per_sync 4 on R = 64: 8 x 24 KiB
// on 128-input square tiles) gets only the variants that fit one block's shared memory: a variant past it failed the
// whole `bench` at its launch.
TEST(CorrelatorSync, BenchVariantsFitSharedMemory) {
  const std::string file = "tcc_8bit_r64_visibilities.json";
  auto j = parseJsonText(test::readFile(test::sourcePath("generator/correlator/tools/bench-specs/" + file)), file);
  j["tuning"] = {{"stages_per_sync", 4}};
  auto fs = correlatorFamily().parse(j, file);
  int listed = 0;
  for (const BenchVariant& v : dynamic_cast<const BenchFacet&>(*fs).benchVariants({"sm_90", nullptr}))
    for (const auto& k : v.generated.plan.kernels) {
      ++listed;
      EXPECT_LE(k.sharedBytes, 227 * 1024) << v.name << ": " << k.name;
    }
  EXPECT_GE(listed, 4);
}

// `bench --tune` (CorrelatorTune.h): on sm_90 the candidates span the pipeline's block forms, grouped stages and
// transforms beside the register-staged paths; each candidate's members, parsed into the spec, emit exactly the
// candidate's kernels (what wisdom records is what was timed), the spec as given comes first with the members of what
// the generator chose, and the fastest trial's members are the outcome. Off sm_90 only mma.sync remains.
TEST(CorrelatorTune, CandidatesEmitWhatTheirMembersSay) {
  class FakeTimer : public TuneTimer {
   public:
    std::vector<double> time(const std::vector<Generated>& c, std::vector<std::string>* errors) override {
      if (errors) errors->assign(c.size(), "");
      std::vector<double> ms;
      for (std::size_t i = 0; i < c.size(); ++i) ms.push_back(i == c.size() / 2 ? 0.5 : 1.0 + i);
      return ms;
    }
    std::string arch() override { return "sm_90"; }
    CompileProbe* probe() override { return nullptr; }
  };
  for (const auto& [R, type] :
       std::vector<std::pair<int, std::string>>{{64, "ci8"}, {200, "cf16"}, {576, "ci4"}, {96, "ci8"}}) {
    const std::string text = syncJson("tune", R, type, "tcc", 256, R == 96 ? R"("raw_stages": 3)" : "");
    // R = 96: a spec with a raw ring of its own (kept in every candidate); the others without tuning.
    const std::string plain = R == 96 ? text : text.substr(0, text.rfind(", \"tuning\"")) + "}";
    const CorrelatorSpec s = parseCorrelatorSpecText(plain, "t.json");
    const auto cands = correlatorTuneCandidates(s, "sm_90");
    EXPECT_GE(cands.size(), 10u) << R;
    int emitted = 0;
    for (std::size_t i = 0; i < cands.size(); ++i) {
      Json root = Json::parse(plain);
      root["tuning"] = cands[i].members;
      CorrelatorKernels k;
      try {
        k = emitCorrelatorFor(cands[i].spec, "sm_90");
      } catch (const SpecError&) {
        continue;  // e.g. a ring that does not fit beside the raw slots: the tune reports it and times the rest
      }
      ++emitted;
      const CorrelatorSpec back = parseCorrelatorSpec(root, "t.json");
      const LaunchPlan a = correlatorLaunchPlan(cands[i].spec, k);
      const LaunchPlan b = correlatorLaunchPlan(back, emitCorrelatorFor(back, "sm_90"));
      ASSERT_EQ(a.sources.size(), b.sources.size()) << R << " " << cands[i].members.dump();
      for (std::size_t j = 0; j < a.sources.size(); ++j)
        EXPECT_EQ(a.sources[j].text, b.sources[j].text) << R << " " << cands[i].members.dump();
      // The tune times every candidate on the default plan's user arrays: the same ones, the same sizes.
      const LaunchPlan def = correlatorLaunchPlan(s, emitCorrelatorFor(s, "sm_90"));
      auto userArrays = [](const LaunchPlan& p) {
        std::vector<std::string> out;
        for (const auto& b : p.buffers)
          if (b.role == BufferRole::Input || b.role == BufferRole::Output)
            out.push_back(b.name + " " + std::to_string(b.elementBytes) + " " + std::to_string(b.perBatchElems) + " " +
                          std::to_string(b.fixedElems));
        return out;
      };
      EXPECT_EQ(userArrays(a), userArrays(def)) << R << " " << cands[i].members.dump();
      if (i == 0) {  // the spec as given: its members reproduce the default emission
        const LaunchPlan d = correlatorLaunchPlan(s, emitCorrelatorFor(s, "sm_90"));
        ASSERT_EQ(d.sources.size(), a.sources.size());
        for (std::size_t j = 0; j < a.sources.size(); ++j) EXPECT_EQ(d.sources[j].text, a.sources[j].text) << R;
      }
    }
    EXPECT_GE(emitted, 8) << R;
    std::printf("[correlator-tune] R=%d %s: %zu candidates, %d emit on sm_90\n", R, type.c_str(), cands.size(),
                emitted);
    EXPECT_EQ(pipeTriangleFits(s), std::any_of(cands.begin(), cands.end(),
                                               [](const auto& c) { return c.members.value("whole_triangle", false); }))
        << R;
    FakeTimer timer;
    const auto o = tuneCorrelator(s, timer, {});
    ASSERT_TRUE(o.has_value());
    EXPECT_LT(o->trials[o->best].ms, 0.6) << R;
    EXPECT_EQ(o->specMembers["tuning"], cands[o->best].members);
    EXPECT_GE(o->trials[0].ms, 1.0);
  }
  const CorrelatorSpec s = parseCorrelatorSpecText(
      R"({"name": "t", "family": "correlator", "receivers": 64, "polarizations": 2, "channels": 1, "samples_per_call": 256, "sample_type": "ci8", "input": {"layout": "tcc"}})",
      "t.json");
  const auto sm80 = correlatorTuneCandidates(s, "sm_80");
  ASSERT_EQ(sm80.size(), 1u);  // mma.sync at the spec's tile is the spec as given there
  EXPECT_EQ(sm80.front().members["mma"], "mma_sync");
}
