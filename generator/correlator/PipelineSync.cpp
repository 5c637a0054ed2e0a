#include "generator/correlator/PipelineSync.h"

#include <fmt/format.h>

#include "generator/correlator/PipelineTransform.h"

namespace warpforge {

using corr_emit::Code;

// The copies of stages k + R - N .. k + R - 1 into the raw slots of stages k - N .. k - 1 (read in the previous
// iteration), then per stage its waits and transform, then one proxy fence and the arrivals of the N stages.
void emitGroupedLoader(Code& c, const CorrelatorSpec& s, const CorrPipe& p, long long nst) {
  const int R = p.rawStages, S = p.opStages, N = p.stagesPerSync;
  c(fmt::format("if (warp == 0) for (int st = 0; st < {} && st < {}; ++st) issue_stage(st, st);", R - N, nst));
  c("#pragma unroll 1");
  c.open(fmt::format("for (int k = 0; k < {}; k += {})", nst, N));
  c.open("if (warp == 0)");
  c("#pragma unroll");
  c.open(fmt::format("for (int st = k + {}; st < k + {} && st < {}; ++st)", R - N, R, nst));
  c(
      fmt::format("if (st >= {0}) while (!wfa_mbar_try_wait(empty_raw + 8u * (st % {0}), (unsigned)((st - {0}) / {0}) "
                  "& "
                  "1u)) {{}}",
                  R));
  c(fmt::format("issue_stage(st, st % {});", R));
  c.close();
  c.close();
  c("#pragma unroll");
  c.open(fmt::format("for (int st = k; st < k + {} && st < {}; ++st)", N, nst));
  c(fmt::format("const int rs = st % {}, os = st % {};", R, S));
  c(fmt::format("while (!wfa_mbar_try_wait(full_raw + 8u * rs, (unsigned)(st / {}) & 1u)) {{}}  // its samples landed",
                R));
  c(fmt::format(
      "while (!wfa_mbar_try_wait(empty_op + 8u * os, ((unsigned)(st / {}) & 1u) ^ 1u)) {{}}  // slot released", S));
  c(fmt::format("const int nt = min({}, {} - st * {});", p.ts, s.samples, p.ts));
  if (p.wholeTriangle) {
    c(fmt::format("const unsigned rawb = raw_ring + rs * {}u, opb = op_ring + os * {}u;", p.rawSlotBytes,
                  p.opSlotBytes));
    emitTransform(c, s, p, true, p.loaderThreads(), p.unitsPerThread);
  } else {
    c(fmt::format("const unsigned rawa = raw_ring + rs * {}u, rawb = rawa + (diag ? 0u : {}u);", p.rawSlotBytes,
                  p.rawSideBytes));
    c(fmt::format("const unsigned opa = op_ring + os * {}u, opb = opa + {}u;", p.opSlotBytes, p.aBytes));
    if (!p.sharedTransform) {
      c.open("if (!diag)");
      emitTransform(c, s, p, false, p.loaderThreads(), p.unitsPerThread);
      c.close();
    }
    c.open("");
    emitTransform(c, s, p, true, p.loaderThreads(), p.transformAssign(true).front().units);
    c.close();
  }
  c.close();
  c("corr_fence_async_smem();  // the stores above are read by wgmma (async proxy)");
  c("#pragma unroll");
  c.open(fmt::format("for (int st = k; st < k + {} && st < {}; ++st)", N, nst));
  c(fmt::format("wfa_mbar_arrive(full_op + 8u * (st % {}));", S));
  c(fmt::format("wfa_mbar_arrive(empty_raw + 8u * (st % {}));", R));
  c.close();
  c.close();
}

void emitGroupedTransformA(Code& c, const CorrelatorSpec& s, const CorrPipe& p, long long nst) {
  const int R = p.rawStages, S = p.opStages, N = p.stagesPerSync;
  c.open("auto transform_a = [&](const int s0)");
  c("#pragma unroll");
  c.open(fmt::format("for (int st = s0; st < s0 + {} && st < {}; ++st)", N, nst));
  c(fmt::format("const int rs = st % {}, os = st % {};", R, S));
  c(fmt::format("while (!wfa_mbar_try_wait(full_raw + 8u * rs, (unsigned)(st / {}) & 1u)) {{}}", R));
  c(fmt::format("while (!wfa_mbar_try_wait(empty_op + 8u * os, ((unsigned)(st / {}) & 1u) ^ 1u)) {{}}", S));
  c.open("if (!diag)");
  c(fmt::format("const int nt = min({}, {} - st * {});", p.ts, s.samples, p.ts));
  c(fmt::format("const unsigned rawa = raw_ring + rs * {}u, opa = op_ring + os * {}u;", p.rawSlotBytes, p.opSlotBytes));
  emitTransform(c, s, p, false, 128 * p.consumers, p.aUnitsPerThread);
  c.close();
  emitConsumersB(c, s, p);
  c.close();
  c("corr_fence_async_smem();");
  c("#pragma unroll");
  c.open(fmt::format("for (int st = s0; st < s0 + {} && st < {}; ++st)", N, nst));
  c(fmt::format("wfa_mbar_arrive(full_op + 8u * (st % {}));", S));
  c(fmt::format("wfa_mbar_arrive(empty_raw + 8u * (st % {}));", R));
  c.close();
  c.close(";");
}

void emitGroupedConsumerLoop(Code& c, const CorrPipe& p, long long nst, unsigned perSlot,
                             const std::function<void(const std::string&)>& issue,
                             const std::function<void(const std::string&)>& afterRelease) {
  const int S = p.opStages, N = p.stagesPerSync;
  const std::string group = N == 2 ? "pair" : "group";
  auto step = [&](const std::string& k, int stages, bool last) {
    for (int u = 0; u < stages; ++u)
      c(
          fmt::format("while (!wfa_mbar_try_wait(full_op + 8u * (({0} + {1}) % {2}), (unsigned)(({0} + {1}) / {2}) & "
                      "1u)) {{}}",
                      k, u, S));
    c("corr_wgmma_fence();");
    for (int u = 0; u < stages; ++u)
      issue(fmt::format("(unsigned long long)((({} + {}) % {}) * {}u)", k, u, S, perSlot));
    c("corr_wgmma_commit();");
    c(fmt::format("corr_wgmma_wait<1>();  // the previous {}'s wgmmas are done: its slots go back to the loader",
                  group));
    c("__syncwarp(0xffffffffu);  // every lane's wait above precedes lane 0's release");
    // The previous group is always a whole one: N slots, from stage k - N (k + S - N modulo S).
    std::string release;
    for (int u = 0; u < N; ++u)
      release += fmt::format("{}wfa_mbar_arrive(empty_op + 8u * (({} + {}) % {}));", u ? " " : "", k, S - N + u, S);
    c(fmt::format("if ({} > 0 && lane == 0) {{ {} }}", k, release));
    if (afterRelease && !last) afterRelease(k);
  };
  c("#pragma unroll 1");
  c.open(fmt::format("for (int k = 0; k < {}; k += {})", nst / N * N, N));
  step("k", N, false);
  c.close();
  if (nst % N) {
    c.open("");
    c(fmt::format("const int k = {};  // the {}", nst / N * N,
                  N == 2 ? std::string("odd last stage") : fmt::format("last {} stage(s)", nst % N)));
    step("k", static_cast<int>(nst % N), true);
    c.close();
  }
}

}  // namespace warpforge
