// The correlator's sm_90a pipeline with the operands as stored (tuning.transform "none", PipelineDirect.h): its spec
// rules, its proofs, and CPU runs of the generated kernel (tests/CudaOnCpu.h emulates cp.async, mbarriers, ldmatrix
// and wgmma with A from registers) against the exact reference, with mutations the runs must catch.
#include <gtest/gtest.h>

#include "CorrelatorCpuShim.h"
#include "CudaOnCpu.h"
#include "TestUtil.h"

#include <string>
#include <vector>

#include "generator/correlator/CorrelatorFamily.h"
#include "generator/correlator/CorrelatorModel.h"
#include "generator/correlator/CorrelatorPlan.h"
#include "generator/correlator/PipelineDirect.h"
#include "warpforge/compiler.h"
#include "warpforge/spec_error.h"

using namespace warpforge;

namespace {

std::string directJson(const std::string& name, int R, int P, const std::string& type, int samples,
                       const std::string& more, const std::string& tuning = "") {
  return R"({"name": ")" + name + R"(", "family": "correlator", "receivers": )" + std::to_string(R) +
         R"(, "polarizations": )" + std::to_string(P) + R"(, "channels": 2, "samples_per_call": )" +
         std::to_string(samples) + R"(, "sample_type": ")" + type + R"(", "input": {"layout": "tcc"})" + more +
         R"(, "tuning": {"transform": "none")" + tuning + "}}";
}

const std::string kSym = R"(, "sample_range": "symmetric")";

std::string specErrorPath(const std::string& json) {
  try {
    const CorrelatorSpec s = parseCorrelatorSpecText(json, "direct.json");
    emitCorrelatorFor(s, "sm_90");
    makeCorrelatorSpec(s)->verify();
  } catch (const SpecError& e) {
    return e.path();
  }
  return "(accepted)";
}

}  // namespace

// Where the operands cannot be used as stored, the spec says why, at the member that asked.
TEST(CorrelatorDirect, SpecRules) {
  EXPECT_EQ(specErrorPath(directJson("t", 35, 2, "ci8", 160, "")), "/tuning/transform");    // -128 needs the clamp
  EXPECT_EQ(specErrorPath(directJson("t", 35, 2, "ci4", 160, kSym)), "/tuning/transform");  // widened by the transform
  EXPECT_EQ(specErrorPath(directJson("t", 35, 2, "ci8", 160, kSym, R"(, "stages": 2)")), "/tuning/transform");
  EXPECT_EQ(specErrorPath(directJson("t", 35, 2, "ci8", 160, kSym, R"(, "whole_triangle": true)")),
            "/tuning/whole_triangle");
  EXPECT_EQ(specErrorPath(directJson("t", 35, 2, "ci8", 160, kSym, R"(, "stages_per_sync": 4)")),
            "/tuning/stages_per_sync");
  EXPECT_EQ(specErrorPath(directJson("t", 35, 2, "ci8", 160, kSym, R"(, "stages_per_sync": 2, "stages": 4)")),
            "/tuning/stages_per_sync");  // two groups of two in flight and one stage of copies need 5 slots
  EXPECT_EQ(specErrorPath(directJson("t", 35, 2, "ci8", 160, kSym, R"(, "stages_per_sync": 2)")), "(accepted)");
  EXPECT_EQ(specErrorPath(
                directJson("t", 35, 2, "ci8", 160, kSym, R"(, "stages_per_sync": 2, "receivers_per_block": 32)")),
            "/tuning/stages_per_sync");  // 64-input tiles: not enough registers for two groups of A
  EXPECT_EQ(specErrorPath(directJson("t", 35, 2, "ci8", 160, kSym, R"(, "raw_stages": 4)")), "/tuning/raw_stages");
  EXPECT_EQ(specErrorPath(directJson("t", 35, 2, "cf16", 160, "")), "/tuning/transform");  // f32 accumulators spill
  std::string katgpucbf = directJson("t", 35, 2, "ci8", 160, kSym);
  katgpucbf.replace(katgpucbf.find(R"("layout": "tcc")"), 15, R"("layout": "katgpucbf")");
  EXPECT_EQ(specErrorPath(katgpucbf), "/tuning/transform");  // pols interleaved: no 16-byte run per input
  EXPECT_EQ(specErrorPath(directJson("t", 35, 2, "ci8", 160, kSym)), "(accepted)");
  EXPECT_EQ(specErrorPath(directJson("t", 35, 2, "cf16", 160, R"(, "output": "visibilities")")), "(accepted)");
}

// tuning.row_copies: refused at its path wherever the row side cannot be copied that way or the samples are not used
// as stored (the message names why), accepted where it applies; tuning the default cannot take falls back to the
// transform pipeline instead of failing.
TEST(CorrelatorDirect, RowCopiesRules) {
  auto json = [](int R, const std::string& type, int samples, const std::string& more, const std::string& tuning) {
    return R"({"name": "t", "family": "correlator", "receivers": )" + std::to_string(R) +
           R"(, "polarizations": 2, "channels": 2, "samples_per_call": )" + std::to_string(samples) +
           R"(, "sample_type": ")" + type + R"(", "input": {"layout": "tcc"})" + more + R"(, "tuning": {)" + tuning +
           "}}";
  };
  const std::string vis = R"(, "output": "visibilities")";
  EXPECT_EQ(specErrorPath(json(100, "ci8", 224, kSym, R"("row_copies": "bulk")")), "(accepted)");
  EXPECT_EQ(specErrorPath(json(100, "ci8", 224, kSym, R"("row_copies": "multicast")")), "(accepted)");
  EXPECT_EQ(specErrorPath(json(100, "ci8", 224, kSym, R"("row_copies": "cp.async")")), "(accepted)");
  EXPECT_EQ(specErrorPath(json(100, "ci8", 224, kSym, R"("row_copies": "tma")")), "/tuning/row_copies");
  EXPECT_EQ(specErrorPath(json(100, "ci8", 224, kSym, R"("transform": "shared", "row_copies": "bulk")")),
            "/tuning/row_copies");
  // cf16 partial stages: stale f16 bytes could be Inf or NaN; for bulk and multicast alike
  EXPECT_EQ(specErrorPath(json(100, "cf16", 200, vis, R"("row_copies": "bulk")")), "/tuning/row_copies");
  EXPECT_EQ(specErrorPath(json(100, "cf16", 200, vis, R"("row_copies": "multicast")")), "/tuning/row_copies");
  EXPECT_EQ(specErrorPath(json(100, "cf16", 208, vis, R"("row_copies": "multicast")")), "(accepted)");
  // not used as stored: -128 needs the transform's clamp; the whole triangle is the default at 140 inputs
  EXPECT_EQ(specErrorPath(json(100, "ci8", 224, "", R"("row_copies": "bulk")")), "/tuning/row_copies");
  EXPECT_EQ(specErrorPath(json(70, "ci8", 224, kSym, R"("row_copies": "bulk")")), "/tuning/row_copies");
  EXPECT_EQ(specErrorPath(json(70, "ci8", 224, kSym, R"("row_copies": "bulk", "whole_triangle": false)")),
            "(accepted)");
  // the column side by tensor copies: TCC's layout (32-byte time blocks), not with pairs, persistent blocks or a row
  // side by cp.async off the diagonal
  EXPECT_EQ(specErrorPath(json(100, "ci8", 224, kSym, R"("column_copies": "tensor")")), "(accepted)");
  EXPECT_EQ(specErrorPath(json(100, "ci8", 224, kSym, R"("column_copies": "cp.async")")), "(accepted)");
  EXPECT_EQ(specErrorPath(json(100, "ci8", 224, kSym, R"("column_copies": "bulk")")), "/tuning/column_copies");
  EXPECT_EQ(specErrorPath(json(100, "ci8", 224, kSym, R"("column_copies": "tensor", "row_copies": "multicast")")),
            "/tuning/column_copies");
  EXPECT_EQ(specErrorPath(json(100, "ci8", 224, kSym, R"("column_copies": "tensor", "persistent": true)")),
            "(accepted)");
  EXPECT_EQ(specErrorPath(json(100, "ci8", 224, kSym, R"("column_copies": "tensor", "row_copies": "cp.async")")),
            "/tuning/column_copies");
  EXPECT_EQ(specErrorPath(json(100, "ci8", 224, "", R"("column_copies": "tensor")")), "/tuning/column_copies");
  EXPECT_EQ(specErrorPath(json(100, "ci8", 224, kSym, R"("transform": "shared", "column_copies": "tensor")")),
            "/tuning/column_copies");
  // multicast needs two tiles on a row side
  EXPECT_EQ(specErrorPath(json(32, "ci8", 224, kSym, R"("row_copies": "multicast", "receivers_per_block": 64)")),
            "/tuning/row_copies");
  // Two stages per wait on 64-input tiles: the transform pipeline (the operands as stored lack the registers)
  EXPECT_EQ(specErrorPath(json(200, "ci8", 224, kSym, R"("receivers_per_block": 32, "stages_per_sync": 2)")),
            "(accepted)");
  // off sm_90 (mma.sync) row_copies has no meaning
  try {
    emitCorrelatorFor(parseCorrelatorSpecText(json(100, "ci8", 224, kSym, R"("row_copies": "bulk")"), "t.json"),
                      "sm_80");
    ADD_FAILURE() << "row_copies accepted on sm_80";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.path(), "/tuning/row_copies");
    EXPECT_NE(std::string(e.what()).find("sm_80"), std::string::npos) << e.what();
  }
}

// The proofs hold for both tiles and sample types, and the kernel the family emits for sm_90 is this one.
TEST(CorrelatorDirect, ProvedAndChosen) {
  for (const auto& [type, rows] :
       std::vector<std::pair<std::string, int>>{{"ci8", 64}, {"ci8", 128}, {"cf16", 64}, {"cf16", 128}}) {
    const CorrelatorSpec s = parseCorrelatorSpecText(directJson("p", 300, 2, type, 256,
                                                                type == "ci8" ? kSym : R"(, "output": "visibilities")",
                                                                R"(, "receivers_per_block": )" +
                                                                    std::to_string(rows / 2)),
                                                     "p.json");
    std::vector<PipeIssue> issues;
    std::vector<std::string> proved;
    checkDirect(s, directPipe(s, rows), issues, proved);
    for (const auto& i : issues) ADD_FAILURE() << type << " " << rows << ": " << i.path << ": " << i.message;
    EXPECT_GE(proved.size(), 4u) << type << " " << rows;
    if (rows == 128) {  // a setmaxnreg.inc the producer's decrement does not fund hangs on the GPU: refused
      DirectPipe hangs = directPipe(s, rows);
      hangs.producerRegs = 64, hangs.consumerRegs = 224;
      std::vector<PipeIssue> caught;
      std::vector<std::string> none;
      checkDirect(s, hangs, caught, none);
      EXPECT_FALSE(caught.empty()) << type;
    }
    const CorrelatorKernels k = emitCorrelatorFor(s, "sm_90");
    EXPECT_TRUE(k.direct);
    EXPECT_EQ(k.tiling.rowsPerBlock, rows);
    EXPECT_NE(k.correlateSource.find("operands as stored"), std::string::npos);
    EXPECT_EQ(emitCorrelatorFor(s, "sm_80").direct, false);  // other targets: mma.sync as before
    const VerifyReport r = makeCorrelatorSpec(s)->verify();
    EXPECT_NE(r.text.find("transform none"), std::string::npos);
  }
}

// Bit-exact on the CPU (float within the f32 bound) for both tiles, diagonal, off-diagonal and partial tiles, an odd
// number of stages, rings wrapping, one and two polarizations, both conventions, orders and output models; a block per
// tile and (the default at these few stages) persistent blocks of one unit each.
TEST(CorrelatorDirect, RunsOnTheCpuAndMatchesTheExactReference) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  struct Case {
    std::string json, label;
  };
  const std::vector<Case> cases = {
      {directJson("cpu_direct_a", 70, 2, "ci8", 224,
                  kSym + R"(, "output": "visibilities", "conjugate": "r1", "polarization_order": "r2_r1")",
                  R"(, "persistent": false, "receivers_per_block": 64, "stages": 4)"),
       "ci8 R = 70, 128-input tiles, TCC's convention and order, visibilities, 7 stages through 4 slots"},
      {directJson("cpu_direct_b", 35, 2, "ci8", 160, kSym,
                  R"(, "receivers_per_block": 32, "stages": 3, "row_copies": "cp.async")"),
       "ci8 R = 35, 64-input tiles, accumulators, 5 stages through 3 slots"},
      {directJson("cpu_direct_c", 35, 2, "cf16", 208, R"(, "output": "visibilities")",
                  R"(, "persistent": false, "receivers_per_block": 64)"),
       "cf16 R = 35, one partial diagonal 128-input tile, visibilities r1_r2, 13 stages"},
      {directJson("cpu_direct_d", 100, 1, "ci8", 96, kSym + R"(, "output": "visibilities", "conjugate": "r1")",
                  R"(, "receivers_per_block": 64)"),
       "ci8 one polarization R = 100, 64-input tiles, visibilities"},
      {directJson("cpu_direct_e", 40, 2, "cf16", 48,
                  R"(, "polarization_order": "r2_r1", "conjugate": "r1", "output": "visibilities")",
                  R"(, "persistent": false, "receivers_per_block": 32, "row_copies": "cp.async")"),
       "cf16 R = 40, 64-input tiles, visibilities, r2_r1"},
      {directJson("cpu_direct_h", 70, 2, "ci8", 96, kSym + R"(, "polarization_order": "r2_r1", "conjugate": "r1")",
                  R"(, "receivers_per_block": 64, "row_copies": "cp.async")"),
       "ci8 R = 70, 128-input tiles, accumulators, r2_r1"},
      {directJson("cpu_direct_f", 70, 2, "ci8", 224, kSym + R"(, "output": "visibilities")",
                  R"(, "receivers_per_block": 64, "stages": 6, "stages_per_sync": 2, "row_copies": "cp.async")"),
       "ci8 R = 70, 128-input tiles, two stages per wait: 7 stages = 3 groups and a last stage, through 6 slots"},
      {directJson("cpu_direct_g", 35, 2, "cf16", 208, R"(, "output": "visibilities")",
                  R"(, "persistent": false, "receivers_per_block": 64, "stages_per_sync": 2)"),
       "cf16 R = 35, one partial diagonal 128-input tile, two stages per wait: 13 stages through 8 slots"},
      {directJson("cpu_direct_i", 70, 2, "ci8", 224, kSym + R"(, "output": "visibilities")",
                  R"(, "persistent": false, "receivers_per_block": 64, "stages": 4, "row_copies": "bulk")"),
       "ci8 R = 70, 128-input tiles (the second partial), the row side by bulk copies, 7 stages through 4 slots"},
      {directJson("cpu_direct_j", 35, 2, "cf16", 208, R"(, "output": "visibilities")",
                  R"(, "receivers_per_block": 32, "row_copies": "bulk")"),
       "cf16 R = 35, 64-input tiles, the row side by bulk copies, 13 stages"},
      {directJson(
           "cpu_direct_k", 70, 2, "ci8", 224, kSym,
           R"(, "persistent": false, "receivers_per_block": 64, "stages": 6, "stages_per_sync": 2, "row_copies": "bulk")"),
       "ci8 R = 70, 128-input tiles, accumulators, the row side by bulk copies, two stages per wait"},
      {directJson("cpu_direct_p", 100, 2, "ci8", 224, kSym + R"(, "output": "visibilities")",
                  R"(, "receivers_per_block": 64, "stages": 4, "row_copies": "multicast")"),
       "ci8 R = 100, 128-input tiles in cluster pairs (one pair, one tile alone), the row side multicast"},
      {directJson("cpu_direct_q", 70, 2, "cf16", 208, R"(, "output": "visibilities")",
                  R"(, "receivers_per_block": 32, "row_copies": "multicast")"),
       "cf16 R = 70, 64-input tiles in cluster pairs, the row side multicast, 13 stages"},
      {directJson("cpu_direct_r", 100, 2, "ci8", 224, kSym,
                  R"(, "receivers_per_block": 64, "stages": 6, "stages_per_sync": 2, "row_copies": "multicast")"),
       "ci8 R = 100, accumulators, cluster pairs, two stages per wait"},
      {directJson("cpu_direct_s", 70, 2, "ci8", 208, kSym + R"(, "output": "visibilities")",
                  R"(, "persistent": false, "receivers_per_block": 64, "stages": 4, "row_copies": "bulk")"),
       "ci8 R = 70, 128-input tiles, the row side by bulk copies, a partial last stage (6.5 stages)"},
      {directJson("cpu_direct_t", 100, 2, "ci8", 208, kSym + R"(, "output": "visibilities")",
                  R"(, "receivers_per_block": 64, "stages": 4, "row_copies": "multicast")"),
       "ci8 R = 100, cluster pairs, a partial last stage (6.5 stages)"}};
  for (const auto& c : cases) {
    const CorrelatorSpec s = parseCorrelatorSpecText(c.json, "cpu.json");
    const CorrelatorKernels k = emitCorrelatorFor(s, "sm_90");
    ASSERT_TRUE(k.direct) << c.label;
    if (s.tuning.rowCopies != -1)  // asked for: bulk copies of the row side exactly where "bulk" / "multicast" says
      EXPECT_EQ(k.correlateSource.find("wfa_bulk_g2s(base") != std::string::npos, s.tuning.rowCopies >= 1) << c.label;
    EXPECT_EQ(k.correlateSource.find("__cluster_dims__(2") != std::string::npos, s.tuning.rowCopies == 2) << c.label;
    runCorrelatorPlanOnCpu(*makeCorrelatorSpec(s), correlatorLaunchPlan(s, k), 2, 7301, "direct " + c.label);
  }
}

// Persistent blocks: each block of a grid smaller than the units loops over several (the grid rule's units per block
// raised on the CPU, where every unit would otherwise get its own block): diagonal and off-diagonal tiles, the ring
// running on across tiles, both row copies, partial groups; a tile's last slots not given back deadlock.
TEST(CorrelatorDirect, PersistentBlocksRunOnTheCpu) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  struct Case {
    std::string json, label;
  };
  const std::vector<Case> cases = {
      {directJson("cpu_pers_a", 100, 2, "ci8", 208, kSym + R"(, "output": "visibilities")",
                  R"(, "receivers_per_block": 64, "stages": 4, "persistent": true)"),
       "ci8 R = 100, 128-input tiles, bulk row side, 6.5 stages through 4 slots"},
      {directJson("cpu_pers_b", 70, 2, "cf16", 208, R"(, "output": "visibilities")",
                  R"(, "receivers_per_block": 32, "persistent": true, "row_copies": "cp.async")"),
       "cf16 R = 70, 64-input tiles, cp.async row side"},
      {directJson("cpu_pers_c", 100, 2, "ci8", 224, kSym,
                  R"(, "receivers_per_block": 64, "stages": 6, "stages_per_sync": 2, "persistent": true)"),
       "ci8 R = 100, accumulators, two stages per wait (7 stages: a last group of one)"}};
  for (const auto& c : cases) {
    const CorrelatorSpec s = parseCorrelatorSpecText(c.json, "pers.json");
    const CorrelatorKernels k = emitCorrelatorFor(s, "sm_90");
    ASSERT_TRUE(k.persistent) << c.label;
    LaunchPlan plan = correlatorLaunchPlan(s, k);
    ASSERT_TRUE(plan.kernels[0].grid.capAtResident) << c.label;
    plan.kernels[0].grid.unitsPerBlock = 4;  // 2 batch entries x tiles x 2 channels over a quarter as many blocks
    runCorrelatorPlanOnCpu(*makeCorrelatorSpec(s), plan, 2, 7305, "persistent " + c.label);
  }
  const CorrelatorSpec s = parseCorrelatorSpecText(cases[0].json, "pers.json");
  LaunchPlan plan = correlatorLaunchPlan(s, emitCorrelatorFor(s, "sm_90"));
  plan.kernels[0].grid.unitsPerBlock = 4;
  test::expectMutationsCaught(*makeCorrelatorSpec(s), plan,
                              {{"a tile's last slots kept from the producer",
                                "wfa_mbar_arrive(empty + 8u * prev);  // the tile's last group", ""}},
                              7306, "correlator-cpu", correlatorShim(), {{"dump", 1}});
  EXPECT_EQ(specErrorPath(
                directJson("t", 100, 2, "ci8", 224, kSym, R"(, "persistent": true, "row_copies": "multicast")")),
            "/tuning/persistent");
}

// Visibilities staged in shared memory and copied out by bulk stores (tuning.store "bulk"): both polarization orders,
// both tiles, diagonal, off-diagonal and narrow edge tiles, persistent blocks reusing the staging tile after tile, and
// one tile per block; the staging rewritten before the bulk stores read it, unfenced, a run cut short and stores
// never waited for each fail the run. Where it cannot apply, the spec says why at /tuning/store.
TEST(CorrelatorDirect, BulkStoreRunsOnTheCpu) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  struct Case {
    std::string json, label;
    bool persistent;
  };
  const std::string tcc = R"(, "output": "visibilities", "conjugate": "r1", "polarization_order": "r2_r1")";
  const std::vector<Case> cases = {
      {directJson("cpu_bulk_a", 100, 2, "ci8", 208, kSym + tcc,
                  R"(, "receivers_per_block": 64, "stages": 4, "persistent": true, "store": "bulk")"),
       "ci8 R = 100, 128-input tiles, TCC's order, persistent blocks of 4 units", true},
      {directJson("cpu_bulk_b", 70, 2, "cf16", 208, R"(, "output": "visibilities")",
                  R"(, "receivers_per_block": 32, "persistent": true, "row_copies": "cp.async", "store": "bulk")"),
       "cf16 R = 70, 64-input tiles (a narrow edge tile), r1_r2, persistent blocks of 4 units", true},
      {directJson("cpu_bulk_c", 70, 2, "ci8", 224, kSym + R"(, "output": "visibilities")",
                  R"(, "receivers_per_block": 64, "stages": 4, "persistent": false, "store": "bulk")"),
       "ci8 R = 70, 128-input tiles (a narrow edge tile), r1_r2, a block per tile", false}};
  for (const auto& c : cases) {
    const CorrelatorSpec s = parseCorrelatorSpecText(c.json, "bulk.json");
    const CorrelatorKernels k = emitCorrelatorFor(s, "sm_90");
    ASSERT_TRUE(k.direct) << c.label;
    EXPECT_NE(k.correlateSource.find("wfa_bulk_s2g("), std::string::npos) << c.label;
    LaunchPlan plan = correlatorLaunchPlan(s, k);
    if (c.persistent) plan.kernels[0].grid.unitsPerBlock = 4;
    runCorrelatorPlanOnCpu(*makeCorrelatorSpec(s), plan, 2, 7307, "bulk store " + c.label);
  }
  const CorrelatorSpec s = parseCorrelatorSpecText(cases[0].json, "bulk.json");
  LaunchPlan plan = correlatorLaunchPlan(s, emitCorrelatorFor(s, "sm_90"));
  plan.kernels[0].grid.unitsPerBlock = 4;
  test::expectMutationsCaught(
      *makeCorrelatorSpec(s), plan,
      {{"the staging rewritten before the previous tile's bulk stores read it",
        "if ((warp & 3) == 0) wfa_bulk_wait_read0();", ""},
       {"the staging not fenced for the bulk stores (async proxy)",
        "corr_fence_async_smem();  // the staging is read by the bulk stores", "//"},
       {"each run one row receiver short", "(unsigned)(last - rr0 + 1) * 32u", "(unsigned)(last - rr0) * 32u"},
       {"the last tile's stores never waited for", "if ((warp & 3) == 0) wfa_bulk_wait0();", ""}},
      7308, "correlator-cpu", correlatorShim(), {{"dump", 1}});
  const std::string bulk = R"(, "store": "bulk")";
  EXPECT_EQ(specErrorPath(directJson("t", 35, 2, "ci8", 160, kSym, bulk)), "/tuning/store");  // accumulators
  EXPECT_EQ(specErrorPath(directJson("t", 100, 1, "ci8", 96, kSym + R"(, "output": "visibilities")", bulk)),
            "/tuning/store");  // one polarization
  EXPECT_EQ(specErrorPath(directJson("t", 100, 2, "ci8", 96, kSym + R"(, "output": "visibilities")",
                                     R"(, "receivers_per_block": 64, "stages": 8, "store": "bulk")")),
            "/tuning/store");  // 8 slots and the staging exceed the shared memory
  EXPECT_EQ(specErrorPath(
                directJson("t", 100, 2, "ci8", 96, kSym + R"(, "output": "visibilities")", R"(, "store": "sideways")")),
            "/tuning/store");
  EXPECT_EQ(specErrorPath(directJson("t", 100, 2, "ci8", 96, kSym + R"(, "output": "visibilities")", bulk)),
            "(accepted)");
}

// Bench's ping-pong variant: the second warpgroup starts each tile a few stages after the first (a named barrier the
// first arrives on, the second waits on), with persistent blocks looping over tiles and with a block per tile, diagonal
// and off-diagonal tiles: the arrivals pair tile by tile and the outputs stay exact.
TEST(CorrelatorDirect, LaggedWarpgroupsRunOnTheCpu) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  for (const bool persistent : {true, false}) {
    const CorrelatorSpec s = parseCorrelatorSpecText(
        directJson("cpu_lag", 100, 2, "ci8", 288, kSym + R"(, "output": "visibilities")",
                   std::string(R"(, "receivers_per_block": 64, "persistent": )") + (persistent ? "true" : "false")),
        "lag.json");
    const DirectPipe p = directPipe(s, 128);
    const int lag = directLagStages(p, 9);
    ASSERT_EQ(lag, 4);                    // 9 stages through 8 slots: half a tile, within the ring
    EXPECT_EQ(directLagStages(p, 7), 0);  // fewer stages than slots: the arrivals could not pair tile by tile
    const CorrelatorKernels k = emitCorrelatorDirect(s, 128, 0, DirectVariant{true, 0, lag});
    // (bench's ablation without the store: the same kernel, no store of either form)
    const std::string bare = emitCorrelatorDirect(s, 128, 0, DirectVariant{true, 0, 0, true}).correlateSource;
    EXPECT_EQ(bare.find("visv +"), std::string::npos);
    EXPECT_NE(k.correlateSource.find("visv +"), std::string::npos);
    if (persistent)  // both variants compile for sm_90a without spills
      for (const std::string& src : {k.correlateSource, bare}) {
        CompileResult c;
        ASSERT_NO_THROW(c = compileWithReport(src, k.correlateName, "sm_90a"));
        EXPECT_EQ(c.spillStoreBytes, 0);
      }
    EXPECT_NE(k.correlateSource.find("wfa_bar_arrive(3, 256)"), std::string::npos);
    LaunchPlan plan = correlatorLaunchPlan(s, k);
    if (persistent) plan.kernels[0].grid.unitsPerBlock = 4;
    runCorrelatorPlanOnCpu(*makeCorrelatorSpec(s), plan, 2, 7309,
                           persistent ? "lagged warpgroups, persistent blocks of 4 units"
                                      : "lagged warpgroups, a "
                                        "block per tile");
  }
  // Bench's deeper ring (12 slots, past the spec's 8) lets the lag reach half of a 12-stage tile.
  CorrelatorSpec deep = parseCorrelatorSpecText(directJson("cpu_lag_deep", 100, 2, "ci8", 384,
                                                           kSym + R"(, "output": "visibilities")",
                                                           R"(, "receivers_per_block": 64, "persistent": true)"),
                                                "lag_deep.json");
  deep.tuning.stages = 12;
  ASSERT_TRUE(directSharedFits(directPipe(deep, 128)));
  ASSERT_EQ(directLagStages(directPipe(deep, 128), 12), 6);
  const CorrelatorKernels k = emitCorrelatorDirect(deep, 128, 0, DirectVariant{true, 0, 6});
  CompileResult c;
  ASSERT_NO_THROW(c = compileWithReport(k.correlateSource, k.correlateName, "sm_90a"));
  EXPECT_EQ(c.spillStoreBytes, 0);
  LaunchPlan plan = correlatorLaunchPlan(deep, k);
  plan.kernels[0].grid.unitsPerBlock = 3;
  runCorrelatorPlanOnCpu(*makeCorrelatorSpec(deep), plan, 2, 7310, "lagged by half a tile through 12 slots");
}

// A missing wait, an early publication of a stage, a wrong Im row, a slot released while its wgmmas run and half-width
// wgmmas on a full tile each fail the CPU run.
TEST(CorrelatorDirect, MutationsAreCaught) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  const CorrelatorSpec s = parseCorrelatorSpecText(
      directJson("cpu_direct_m", 70, 2, "ci8", 224, kSym,
                 R"(, "receivers_per_block": 64, "stages": 4, "row_copies": "cp.async", "column_copies": "cp.async")"),
      "m.json");
  const LaunchPlan plan = correlatorLaunchPlan(s, emitCorrelatorFor(s, "sm_90"));
  const std::vector<std::array<std::string, 3>> mutations = {
      {"the consumers skip the wait for a stage's copies", "while (!wfa_mbar_try_wait(full + 8u * slot, par)) {}", ""},
      {"the producer publishes a stage before its copies landed", "corr_cp_wait<2>();", "corr_cp_wait<3>();"},
      {"A's Im row as (re, -im)", "0x6341", "0x6140"},
      {"a slot released while its wgmmas may still read it", "corr_wgmma_wait<1>();", "corr_wgmma_wait<2>();"},
      {"a producer decrement that does not fund the consumers' setmaxnreg.inc (a hang on the GPU)",
       "wfa_setmaxnreg_dec<56>();", "wfa_setmaxnreg_dec<64>();"},
      {"every tile taking the narrow edge tile's half-width wgmmas (R = 70: the last tile holds 12 inputs)",
       "if (col0 + 64 >= 140)", "if (col0 + 64 >= 14)"}};
  test::expectMutationsCaught(*makeCorrelatorSpec(s), plan, mutations, 7302, "correlator-cpu", correlatorShim(),
                              {{"dump", 1}});
  // The row side by bulk copies: a stage published without the copies' bytes expected.
  const CorrelatorSpec b =
      parseCorrelatorSpecText(directJson("cpu_direct_n", 70, 2, "ci8", 224, kSym,
                                         R"(, "receivers_per_block": 64, "stages": 4, "row_copies": "bulk", )"
                                         R"("column_copies": "cp.async")"),
                              "n.json");
  test::expectMutationsCaught(*makeCorrelatorSpec(b), correlatorLaunchPlan(b, emitCorrelatorFor(b, "sm_90")),
                              {{"the bulk copies' bytes not expected by the stage's barrier",
                                "wfa_mbar_arrive_tx(full + 8u * slot, 2u * a_run)",
                                "wfa_mbar_arrive(full + 8u * slot)"}},
                              7303, "correlator-cpu", correlatorShim(), {{"dump", 1}});
  // The column side by tensor copies (the default here): the box's bytes not expected, B's k-step advanced as in the
  // 64-byte layout, the tensor copy of the wrong time blocks, and a consumer that does not wait.
  const CorrelatorSpec t = parseCorrelatorSpecText(directJson("cpu_direct_t", 70, 2, "ci8", 224, kSym,
                                                              R"(, "receivers_per_block": 64, "stages": 4)"),
                                                   "t.json");
  test::expectMutationsCaught(
      *makeCorrelatorSpec(t), correlatorLaunchPlan(t, emitCorrelatorFor(t, "sm_90")),
      {{"the tensor copy's bytes not expected by the stage's barrier", "2u * a_run) + 8192u);", "2u * a_run) + 0u);"},
       {"B's k-step advanced by 32 bytes (the 64-byte layout's step)", "+ 256ull);", "+ 2ull);"},
       {"the tensor copy of the stage before's time blocks", "2 * k, b_plane", "2 * k - 2, b_plane"},
       {"the consumers skip the wait for a stage's copies", "while (!wfa_mbar_try_wait(full + 8u * slot, par)) {}",
        ""}},
      7305, "correlator-cpu", correlatorShim(), {{"dump", 1}});
  // Cluster pairs: each block multicasting its half of A's time blocks only to itself (the pair's stage never
  // completes: a deadlock the emulation reports).
  const CorrelatorSpec m2 =
      parseCorrelatorSpecText(directJson("cpu_direct_o", 100, 2, "ci8", 224, kSym,
                                         R"(, "receivers_per_block": 64, "stages": 4, "row_copies": "multicast")"),
                              "o.json");
  test::expectMutationsCaught(*makeCorrelatorSpec(m2), correlatorLaunchPlan(m2, emitCorrelatorFor(m2, "sm_90")),
                              {{"a multicast that reaches only its own block", "full + 8u * slot, 3);",
                                "full + 8u * slot, (unsigned short)(1u << rank));"},
                               {"a slot refilled once its own block's consumers released it (not the pair's)",
                                "paired ? 16u : 8u", "8u"}},
                              7304, "correlator-cpu", correlatorShim(), {{"dump", 1}});
}
