#include "generator/correlator/CorrelatorModel.h"

#include <cmath>

#include <fmt/format.h>

#include "generator/correlator/CorrelatorLayouts.h"
#include "generator/correlator/Pipeline.h"
#include "generator/correlator/PipelineDirect.h"
#include "generator/correlator/PipelineEmitter.h"
#include "warpforge/spec_error.h"

namespace warpforge {

const char* correlatorPathName(CorrelatorPath p) {
  switch (p) {
    case CorrelatorPath::MmaSync: return "mma.sync";
    case CorrelatorPath::Wgmma: return "wgmma (register-staged)";
    case CorrelatorPath::Pipeline: return "warp-specialized wgmma pipeline";
  }
  return "?";
}

namespace {

// Per tile: SM cycles of one block's set-up, fill, drain and store (fixed) and per stage of 64 operand bytes per row
// (perStage; 64-input tiles: with the two blocks per SM sharing it). Least-squares fit of perStage, fixed held at an
// estimate of the epilogue, to the H200 measurements of TCC's R = 576 C = 64 T = 3072 configuration, 8- and 4-bit, both
// tiles (README, "Performance on the H200"): few shapes, to be refitted from `device-bench.sh` logs.
struct TileCost {
  int rows;
  double fixed, perStage;
};
constexpr TileCost kTileCosts[] = {{64, 10000, 1470}, {128, 20000, 1940}};

// The pipeline with the operands as stored (PipelineDirect.h), in SM cycles (measured at 1980 MHz): per block and stage
// of 32 (8-bit; 16 of f16) samples, a full tile and a diagonal one (one side copied, the second warpgroup's wgmmas
// halved), and a fixed cost per block. Fitted to eight shapes timed on an H200 in one call (TCC's 8-bit R = 64, 576,
// 2048 and 16-bit R = 576; random R = 134, 205, 317, 577; both tiles where both were timed): the stage costs about
// twice the wgmma time (512 cycles on a full 128-input tile), set by the copies, so the model counts stage waves and
// bytes.
struct DirectCost {
  int rows;
  double fixed, fullStage, diagStage;
};
constexpr DirectCost kDirectCosts[] = {{64, 2000, 980, 640}, {128, 4000, 1100, 772}};

}  // namespace

double correlatorDirectModel(const CorrelatorSpec& s, int rows, int sms, double clockMHz) {
  const DirectPipe p = directPipe(s, rows);
  const long long tps = (s.inputs() + p.rows - 1) / p.rows;
  const double blocks = static_cast<double>(tps * (tps + 1) / 2) * s.channels;
  const double diagShare = 2.0 / static_cast<double>(tps + 1);  // tps diagonal tiles of tps (tps + 1) / 2
  const double stages = std::ceil(static_cast<double>(s.samples) / p.ts);
  const double waves = std::ceil(blocks / (static_cast<double>(sms) * p.blocksPerSm));
  for (const DirectCost& c : kDirectCosts)
    if (c.rows == p.rows) {
      const double perStage = (1 - diagShare) * c.fullStage + diagShare * c.diagStage;
      return waves * (c.fixed + stages * perStage) / clockMHz;
    }
  return 1e30;
}

double correlatorPipelineModel(const CorrelatorSpec& s, int rows, int sms, double clockMHz, bool wholeTriangle) {
  const CorrPipe p = corrPipe(s, rows, s.tuning.stages, 0, false, wholeTriangle);
  const long long tps = wholeTriangle ? 1 : (s.inputs() + rows - 1) / rows;
  const double blocks = static_cast<double>(tps * (tps + 1) / 2) * s.channels;
  const double stages = std::ceil(static_cast<double>(s.samples) / p.ts);
  const double waves = std::ceil(blocks / (static_cast<double>(sms) * p.blocksPerSm));
  const int costRows = wholeTriangle ? (p.consumers == 1 ? 64 : 128) : rows;
  for (const TileCost& c : kTileCosts)
    if (c.rows == costRows) return waves * (c.fixed + stages * c.perStage) / clockMHz;
  return 1e30;
}

bool directByDefault(const CorrelatorSpec& s) {
  if (s.tuning.transform == "none") return !directBlocker(s);
  // Unasked, the operands as stored wherever they can be (ci8 with sample_range symmetric, cf16; a layout of 16-byte
  // runs), unless the spec asks for what only the transform pipeline has (a given transform, 2 slots, 4 stages per
  // wait, the whole triangle) or the whole triangle would save blocks (129..160 inputs: one block per channel instead
  // of three): 1.11-1.22x the transform pipeline at TCC's 8-bit R = 64, 576 and 2048 (H200, same call).
  // cf16 with the accumulators: the f32 read-modify-write epilogue beside 128 accumulators spills on 128-input tiles
  // (NVRTC 13, sm_90a), so the transform pipeline keeps it.
  if (s.type == SampleType::CF16 && !s.writesVisibilities()) return false;
  // Two stages per wait on 64-input tiles exceed the direct consumers' registers (the transform pipeline takes it).
  if (s.tuning.stagesPerSyncGiven && s.tuning.stagesPerSync == 2 && s.tuning.rowsGiven &&
      s.tuning.receiversPerBlock * s.polarizations == 64)
    return false;
  if (s.tuning.transformGiven || directBlocker(asStoredSpec(s)) || s.tuning.stages == 2 || s.tuning.rawStages ||
      s.tuning.wholeTriangle == 1 || (s.tuning.stagesPerSyncGiven && s.tuning.stagesPerSync > 2) ||
      (s.tuning.stagesPerSyncGiven && s.tuning.stagesPerSync == 2 && s.tuning.stages && s.tuning.stages < 5))
    return false;
  return !(s.tuning.wholeTriangle != 0 && !s.tuning.rowsGiven && pipeTriangleFits(s) && s.inputs() > 128);
}

CorrelatorChoice chooseCorrelator(const CorrelatorSpec& s, const std::string& arch) {
  CorrelatorChoice c;
  const bool sm90 = arch == "sm_90" || arch == "sm_90a";
  const int givenRows = s.tuning.receiversPerBlock * s.polarizations;
  const bool pipelineAsked = s.tuning.mma == "pipeline" || s.tuning.mma == "auto";
  if (sm90 && pipelineAsked && !pipelineBlocker(s) && (!s.tuning.rowsGiven || givenRows == 64 || givenRows == 128)) {
    c.path = CorrelatorPath::Pipeline;
    c.stages = s.tuning.stages;
    c.sharedTransform = s.tuning.transform == "shared" || s.tuning.transform == "split";
    if (s.tuning.rowsGiven) {
      c.rows = givenRows;
      c.why = fmt::format("pipeline, {}-input tiles (receivers_per_block)", givenRows);
    } else {
      const double t64 = correlatorPipelineModel(s, 64), t128 = correlatorPipelineModel(s, 128);
      c.rows = t128 < t64 ? 128 : 64;
      c.why = fmt::format(
          "pipeline, {}-input tiles by the cost model ({:.1f} us with 64, {:.1f} us with 128 on 132 SMs at 1755 MHz)",
          c.rows, t64, t128);
    }
    // The operands as stored: square tiles only (the whole triangle's pieces read A from a transformed side), the tile
    // by their own cost model; two stages per wait only on 128-input tiles (registers).
    if (directByDefault(s)) {
      c.direct = true;
      if (!s.tuning.rowsGiven) {
        const double d64 = correlatorDirectModel(s, 64), d128 = correlatorDirectModel(s, 128);
        c.rows = (s.tuning.stagesPerSyncGiven && s.tuning.stagesPerSync == 2) || d128 <= d64 ? 128 : 64;
        c.why = fmt::format(
            "pipeline, {}-input tiles by the cost model of the operands as stored ({:.1f} us with 64, "
            "{:.1f} us with 128 on 132 SMs at 1755 MHz)",
            c.rows, d64, d128);
      }
      c.why += ", operands as stored (transform none: copies straight into the operand ring, A's Im rows in registers)";
      return c;
    }
    if (s.tuning.wholeTriangle != 0 && pipeTriangleFits(s)) {
      {  // one block per channel where the model finds it no slower (or the spec asks for it)
        const double tw = correlatorPipelineModel(s, 0, 132, 1755, true);
        const double t64 = correlatorPipelineModel(s, 64), t128 = correlatorPipelineModel(s, 128);
        if (s.tuning.wholeTriangle == 1 || (!s.tuning.rowsGiven && tw <= std::min(t64, t128))) {
          c.wholeTriangle = true;
          c.rows = corrPipe(s, 0, c.stages, 0, false, true).rows;
          c.why = fmt::format(
              "pipeline, the whole triangle in one block per channel ({}; cost model {:.1f} us, 64-input tiles {:.1f}, "
              "128 {:.1f})",
              s.tuning.wholeTriangle == 1 ? "tuning.whole_triangle" : "by the cost model", tw, t64, t128);
        }
      }
    }
    if (s.tuning.stagesPerSync > 1)
      c.why += fmt::format(", {} stages per wait{}", s.tuning.stagesPerSync,
                           s.tuning.stagesPerSyncGiven ? "" : " (the default for 8- and 16-bit samples)");
    return c;
  }
  c.rows = givenRows;
  if (correlatorUsesWgmma(s, arch)) {
    c.path = CorrelatorPath::Wgmma;
    c.why = "register-staged wgmma";
  } else {
    c.path = CorrelatorPath::MmaSync;
    c.why = sm90 ? (pipelineBlocker(s) ? "mma.sync: the pipeline cannot take " + *pipelineBlocker(s)
                                       : "mma.sync (tuning)")
                 : "mma.sync (not an sm_90 target)";
  }
  return c;
}

void requireDirectPossible(const CorrelatorSpec& s) {
  if (s.tuning.transform != "none") return;
  if (auto why = directBlocker(s)) throw SpecError(s.file, "/tuning/transform", "\"none\" cannot take " + *why);
  if (auto why = pipelineBlocker(s)) throw SpecError(s.file, "/tuning/transform", "\"none\" cannot take " + *why);
  if (s.tuning.wholeTriangle == 1)
    throw SpecError(s.file, "/tuning/whole_triangle",
                    "true with tuning.transform \"none\" (the operands as stored take square tiles only)");
  if (s.tuning.mma == "mma_sync" || s.tuning.mma == "wgmma")
    throw SpecError(s.file, "/tuning/mma",
                    fmt::format("\"{}\" with tuning.transform \"none\" (a member of the sm_90 pipeline)",
                                s.tuning.mma));
  if (s.tuning.rowsGiven && s.tuning.receiversPerBlock * s.polarizations == 32)
    throw SpecError(s.file, "/tuning/receivers_per_block",
                    "32-row tiles with tuning.transform \"none\" (the pipeline takes 64 or 128 inputs per side)");
  if (s.tuning.rawStages)
    throw SpecError(s.file, "/tuning/raw_stages",
                    "with tuning.transform \"none\" (there is no raw ring: the copies land in the operand slots)");
  if (s.type == SampleType::CF16 && !s.writesVisibilities())
    throw SpecError(s.file, "/tuning/transform",
                    "\"none\" with cf16 samples and output \"accumulators\": the f32 read-modify-write epilogue spills "
                    "beside the 128 accumulators (use \"shared\", or output \"visibilities\")");
  if (s.tuning.stagesPerSyncGiven && s.tuning.stagesPerSync == 2 && s.tuning.rowsGiven &&
      s.tuning.receiversPerBlock * s.polarizations == 64)
    throw SpecError(s.file, "/tuning/stages_per_sync",
                    "2 with tuning.transform \"none\" on 64-input tiles (64 accumulators and 2 x 32 A registers exceed "
                    "their 128 registers per thread; 128-input tiles take it)");
}

void requireCopiesPossible(const CorrelatorSpec& s, const CorrelatorChoice& c, const std::string& arch) {
  const bool sm90 = arch == "sm_90" || arch == "sm_90a";
  if (s.tuning.rowCopies >= 1)
    if (auto why = rowBulkBlocker(s))
      throw SpecError(s.file, "/tuning/row_copies",
                      fmt::format("\"{}\" cannot take {} (use \"cp.async\")",
                                  s.tuning.rowCopies == 2 ? "multicast" : "bulk", *why));
  if (s.tuning.rowCopies != -1 && !(c.path == CorrelatorPath::Pipeline && c.direct))
    throw SpecError(s.file, "/tuning/row_copies",
                    fmt::format("given where the samples are not used as stored (tuning.transform \"none\"): {}",
                                !sm90 ? "this emission targets " + arch + ", not sm_90"
                                : c.path != CorrelatorPath::Pipeline
                                    ? std::string("the path is ") + correlatorPathName(c.path)
                                : directBlocker(s) ? *directBlocker(s)
                                : c.wholeTriangle
                                    ? std::string("the whole triangle in one block is the default for ") +
                                          std::to_string(s.inputs()) +
                                          " inputs (say \"whole_triangle\": false, or \"transform\": \"none\")"
                                    : std::string("the spec gets the transform pipeline (cf16 with output "
                                                  "\"accumulators\", or tuning that only it has)")));
  if (s.tuning.persistent == 1 && !(c.path == CorrelatorPath::Pipeline && c.direct && s.tuning.rowCopies != 2))
    throw SpecError(s.file, "/tuning/persistent",
                    s.tuning.rowCopies == 2
                        ? std::string("true with row_copies \"multicast\" (cluster pairs launch one block per tile)")
                        : std::string("true where the samples are not used as stored (persistent blocks are a "
                                      "choice of tuning.transform \"none\")"));
  // Members that only the operands as stored have, and the pipe they would get.
  const bool direct = c.path == CorrelatorPath::Pipeline && c.direct;
  for (const auto& [given, at] : {std::pair{s.tuning.columnCopies != -1, "/tuning/column_copies"},
                                  std::pair{s.tuning.bulkStore != -1, "/tuning/store"}})
    if (given && !direct)
      throw SpecError(s.file, at,
                      "given where the samples are not used as stored (tuning.transform \"none\" on sm_90)");
  const DirectPipe p = directPipe(asStoredSpec(s, s.tuning.stagesPerSyncGiven ? s.tuning.stagesPerSync : 1), c.rows,
                                  c.stages);
  if (s.tuning.columnCopies == 1)
    if (auto why = columnTensorBlocker(s, p))
      throw SpecError(s.file, "/tuning/column_copies",
                      fmt::format("\"tensor\" cannot take {} (use \"cp.async\")", *why));
  if (s.tuning.bulkStore == 1) {
    if (auto why = bulkStoreBlocker(s, p))
      throw SpecError(s.file, "/tuning/store", fmt::format("\"bulk\" cannot take {} (use \"registers\")", *why));
    if (!directSharedFits(p))
      throw SpecError(s.file, "/tuning/store",
                      fmt::format("\"bulk\": {} B of staging beside {} slots of {} B exceed the {} B of shared memory "
                                  "(give tuning.stages {} or fewer)",
                                  p.stagingBytes(), p.stages, p.slotBytes, kWgmmaMaxShared,
                                  (kWgmmaMaxShared - p.stagingBytes() - 1024) / (p.slotBytes + 16)));
  }
  if (s.tuning.rowCopies == 2 && c.rows >= s.inputs())
    throw SpecError(s.file, "/tuning/row_copies",
                    fmt::format("\"multicast\" pairs tiles of one row side; {} inputs are one {}-input tile per "
                                "channel "
                                "(half of the blocks would idle: use \"bulk\" or \"cp.async\")",
                                s.inputs(), c.rows));
}

CorrelatorKernels emitCorrelatorFor(const CorrelatorSpec& s, const std::string& arch) {
  const bool sm90 = arch == "sm_90" || arch == "sm_90a";
  if (s.tuning.mma == "pipeline") {
    const int rows = s.tuning.receiversPerBlock * s.polarizations;
    if (!sm90)
      throw SpecError(
          s.file, "/tuning/mma",
          fmt::format("\"pipeline\" needs an sm_90 target (this emission: {}); \"auto\" picks mma.sync there", arch));
    if (auto why = pipelineBlocker(s)) throw SpecError(s.file, "/tuning/mma", "\"pipeline\" cannot take " + *why);
    if (s.tuning.rowsGiven && rows != 64 && rows != 128)
      throw SpecError(s.file, "/tuning/mma",
                      fmt::format("\"pipeline\" needs tiles of 64 or 128 inputs (receivers_per_block gives {})", rows));
  }
  if (s.tuning.mma == "wgmma" && !correlatorUsesWgmma(s, arch))
    throw SpecError(s.file, "/tuning/mma",
                    fmt::format("\"wgmma\" needs an sm_90 target and two stage buffers within {} B (this emission: {}, "
                                "{} B); \"auto\" picks mma.sync there",
                                kWgmmaMaxShared, arch,
                                2 * wgmmaStage(s, s.tuning.receiversPerBlock * s.polarizations).bufferBytes));
  if (s.tuning.wholeTriangle == 1 && !pipeTriangleFits(s))
    throw SpecError(s.file, "/tuning/whole_triangle",
                    fmt::format("the whole triangle of {} inputs does not fit one pipeline block (at most 160)",
                                s.inputs()));
  requireDirectPossible(s);
  const CorrelatorChoice c = chooseCorrelator(s, arch);
  if (s.tuning.stagesPerSyncGiven && s.tuning.stagesPerSync > 1 && c.path != CorrelatorPath::Pipeline)
    throw SpecError(s.file, "/tuning/stages_per_sync",
                    fmt::format("{} stages per wait needs the sm_90 pipeline", s.tuning.stagesPerSync));
  requireCopiesPossible(s, c, arch);
  if (c.path == CorrelatorPath::Pipeline && c.direct) {
    return emitCorrelatorDirect(asStoredSpec(s, s.tuning.stagesPerSyncGiven ? s.tuning.stagesPerSync : 1), c.rows,
                                c.stages);
  }
  if (c.path == CorrelatorPath::Pipeline)
    return emitCorrelatorPipeline(s, c.rows, c.stages, c.sharedTransform, 0, c.wholeTriangle);
  return emitCorrelator(s, c.path == CorrelatorPath::Wgmma);
}

}  // namespace warpforge
