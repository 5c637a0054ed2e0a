#include "generator/correlator/PipelineTriangle.h"

#include <fmt/format.h>

#include "ast/Printer.h"
#include "generator/correlator/PipelineSync.h"
#include "generator/correlator/VisibilityStore.h"

namespace warpforge {

using corr_emit::Code;

PipeAccumulator trianglePlace(const CorrPipe& p) {
  CorrPipe tile = p;  // the accumulator layout of m64nN is the same for every N: read it from a power-of-two tile
  tile.rows = 64;
  return pipeAccumulator(tile);
}

void emitTriangleConsumers(Code& c, const CorrelatorSpec& s, const CorrPipe& p) {
  const bool f16 = s.type == SampleType::CF16;
  const std::string acc = f16 ? "float" : "int";
  const long long nst = (s.samples + p.ts - 1) / p.ts;
  const PipeDescriptors desc = pipeDescriptors(p);
  const PipeAccumulator place = trianglePlace(p);
  auto ring = [](unsigned start) { return start ? fmt::format("op_ring + {}u", start) : std::string("op_ring"); };
  for (int g = 0; g < p.consumers; ++g) {
    const std::vector<PipePiece>& pieces = p.pieces[static_cast<std::size_t>(g)];
    if (g == 0) c.open(p.consumers == 1 ? "" : "if (cg == 0)");
    else c.open(g + 1 == p.consumers ? "else" : fmt::format("else if (cg == {})", g));
    std::string what;
    for (const PipePiece& pc : pieces)
      what += fmt::format("{}rows {}..{} x column inputs {}..{}", what.empty() ? "" : "; ", 64 * pc.strip,
                          64 * pc.strip + 63, pc.col0, pc.col0 + pc.width - 1);
    c(fmt::format("// warpgroup {}: {}", g, what));
    for (std::size_t j = 0; j < pieces.size(); ++j) {
      const PipePiece& pc = pieces[j];
      const int regs = p.pieceAtom(pc).accRegs();
      c(fmt::format("{} d{}[{}];", acc, j, regs));
      c("#pragma unroll");
      c(fmt::format("for (int z = 0; z < {}; ++z) d{}[z] = 0;", regs, j));
      // A: B's sample rows of the strip (the diagonal descriptor); B: from column input col0 on.
      c(fmt::format("const unsigned long long da{} = corr_desc_sw64_diag({}), db{} = corr_desc_sw64({});", j,
                    ring(desc.diag.start + static_cast<unsigned>(pc.strip) * desc.diagPerGroup), j,
                    ring(p.descBAt(0, 0, 0, pc.col0).start)));
    }
    // k-step outer, pieces inner: consecutive wgmmas of a warpgroup accumulate into different registers.
    auto issue = [&](const std::string& so) {
      for (int ks = 0; ks < p.steps; ++ks)
        for (std::size_t j = 0; j < pieces.size(); ++j)
          c(fmt::format("corr_wgmma_n{0}(d{1}, da{1} + {2} + {3}ull, db{1} + {2} + {3}ull);", 2 * pieces[j].width, j,
                        so, desc.perStep[static_cast<std::size_t>(ks)]));
    };
    if (p.stagesPerSync > 1) {
      emitGroupedConsumerLoop(c, p, nst, desc.perSlot, issue);
    } else {
      c("int oslot = 0, opar = 0, prev = 0;");
      c("#pragma unroll 1");
      c.open(fmt::format("for (int k = 0; k < {}; ++k)", nst));
      c("while (!wfa_mbar_try_wait(full_op + 8u * oslot, opar)) {}  // the stage's operands are staged");
      c(fmt::format("const unsigned long long so = (unsigned long long)(oslot * {}u);  // slot offset >> 4",
                    desc.perSlot));
      c("corr_wgmma_fence();");
      issue("so");
      c("corr_wgmma_commit();");
      c("corr_wgmma_wait<1>();  // stage k - 1's wgmmas are done: its slot goes back to the loader");
      c("__syncwarp(0xffffffffu);  // every lane's wait above precedes lane 0's release");
      c("if (k > 0 && lane == 0) wfa_mbar_arrive(empty_op + 8u * prev);");
      c("prev = oslot;");
      c(fmt::format("if (++oslot == {}) oslot = 0, opar ^= 1;", p.opStages));
      c.close();
    }
    c("corr_wgmma_wait<0>();");
    for (std::size_t j = 0; j < pieces.size(); ++j) {
      const PipePiece& pc = pieces[j];
      c.open("");
      c(fmt::format("{} (&d)[{}] = d{};", acc, p.pieceAtom(pc).accRegs(), j));
      c(fmt::format("const int gi0 = {} + {}, gj0 = {} + {};", 64 * pc.strip, place.rowOfThread, pc.col0,
                    place.inputOfThread));
      if (s.writesVisibilities()) {
        c(fmt::format("{0}* const visv = ({0}*)vis + (b * {1}LL + channel) * {2}LL;", f16 ? "float2" : "int2",
                      s.channels, s.visibilitiesPerChannel()));
        CorrPipe tile = p;
        tile.rows = 64;
        for (const auto& st : corr_emit::emitPipelineVisibilityStore(s, tile, false, pc.width)) c.lines(ast::print(st));
      } else {
        emitAccumulatorAdd(c, s, place, pc.width / place.inputBlock, "");
      }
      c.close();
    }
    c.close();
  }
}

}  // namespace warpforge
