#include "generator/correlator/CorrelatorPlan.h"

#include <fmt/format.h>

#include "generator/complexmma/SaturationCount.h"
#include "generator/correlator/ReduceEmitter.h"

namespace warpforge {

namespace {

PlanBuffer inputBuffer(const CorrelatorSpec& s, const char* note) {
  const long long eb = s.type == SampleType::CI4 ? 1 : s.type == SampleType::CI8 ? 2 : 4;
  PlanBuffer in;
  in.name = "input";
  in.role = BufferRole::Input;
  in.elementType = "unsigned char";
  in.elementBytes = 1;
  in.perBatchElems = s.input.batch * eb;
  in.alignment = 16;
  in.note = fmt::format("samples ({}, {} layout), {} bytes per batch entry; {}", sampleTypeName(s.type), s.input.layout,
                        s.input.batch * eb, note);
  return in;
}

// Output "visibilities" (TCC's model): the correlate kernel alone, writing each batch entry's visibilities of the call.
LaunchPlan visibilitiesLaunchPlan(const CorrelatorSpec& s, const CorrelatorKernels& k, LaunchPlan p) {
  const bool f = !s.integer();
  PlanBuffer vis;
  vis.name = "visibilities";
  vis.role = BufferRole::Output;
  vis.elementType = f ? "float" : "int";
  vis.elementBytes = 4;
  vis.perBatchElems = s.visibilities() * 2;
  vis.alignment = 16;  // 16-byte stores (two polarizations)
  vis.note = f ? "[batch][channel][baseline][pol][pol][re, im] f32: this call's sums"
               : "[batch][channel][baseline][pol][pol][re, im] int32: this call's sums (exact: samples_per_call is "
                 "within the int32 limit)";
  p.buffers = {inputBuffer(s, "batch entry b writes visibilities b"), vis};
  PlanKernel corr;
  corr.name = k.correlateName;
  corr.source = 0;
  corr.blockX = k.tiling.threads();
  corr.sharedBytes = k.dynamicShared ? k.sharedBytes : 0;
  corr.grid = GridRule{static_cast<long long>(s.channels) *
                           (k.blocksPerChannel ? k.blocksPerChannel : k.tiling.tiles()),
                       1, k.persistent};
  corr.args = {PlanArg::buffer("input", "const unsigned char*", "input"),
               PlanArg::buffer("visibilities", f ? "float*" : "int*", "vis"), PlanArg::batchTimes(1, "batch")};
  if (k.columnMap) corr.args.push_back(PlanArg::tensorMap("input", *k.columnMap, "b_map"));
  corr.note = fmt::format(
      "{} per (batch entry, channel, tile of {} x {} inputs); {} B shared memory{}; writes the visibilities "
      "once (no accumulators, no reduce kernel)",
      k.clusterBlocks > 1 ? "clusters of two blocks (two tiles of one row side, an idle block where a row has an odd "
                            "count), a block"
      : k.persistent      ? "the resident blocks (persistent), each looping over units"
                          : "one block",
      k.tiling.rowsPerBlock, k.tiling.rowsPerBlock, k.sharedBytes, k.wgmma ? "; wgmma (sm_90a)" : "");
  p.kernels.push_back(corr);
  p.check();
  return p;
}

}  // namespace

LaunchPlan correlatorLaunchPlan(const CorrelatorSpec& s, const CorrelatorKernels& k, bool withReduce,
                                bool withCorrelate) {
  const bool f = !s.integer();
  LaunchPlan p;
  p.specName = s.name;
  p.family = "correlator";
  p.unitName = "batch";
  p.minArch = 80;
  p.sources.push_back({k.correlateName + ".cu", k.correlateSource, k.wgmma});
  if (k.wgmma && withCorrelate) p.onlyArch = 90;  // wgmma: sm_90a code
  if (k.visibilities) return visibilitiesLaunchPlan(s, k, p);
  p.sources.push_back({k.reduceName + ".cu", k.reduceSource});

  PlanBuffer in = inputBuffer(s, "batch entry b adds to accumulator b");
  PlanBuffer acc;
  acc.name = "accumulators";
  acc.role = BufferRole::Input;
  acc.elementType = f ? "float" : "long long";
  acc.elementBytes = f ? 4 : 8;
  acc.perBatchElems = s.visibilities() * 2;
  acc.alignment = 16;
  acc.note =
      "[batch][channel][baseline][pol][pol][re, im]: what the calls of the dump have added so far (zero at its start)";
  PlanBuffer accOut = acc;
  accOut.name = "accumulators_out";
  accOut.role = BufferRole::Output;
  accOut.aliasOf = "accumulators";
  accOut.note = "the accumulators after the call: zero after a dump";
  PlanBuffer miss;
  miss.name = "missing";
  miss.role = BufferRole::Input;
  miss.elementType = "unsigned char";
  miss.elementBytes = 1;
  miss.fixedElems = s.receivers;
  miss.note = "per receiver, nonzero: data absent this dump (its baselines get the missing marker)";
  PlanBuffer vis;
  vis.name = "visibilities";
  vis.role = BufferRole::Output;
  vis.elementType = f ? "float" : "int";
  vis.elementBytes = 4;
  vis.fixedElems = s.visibilities() * 2;
  vis.alignment = 8 * static_cast<int>(reduceSweepVisibilities(s, 1, 1));  // the reduce kernel's 16-byte f32 stores
  vis.note = f ? "[channel][baseline][pol][pol][re, im] f32; NaN 0x7fc00000 for missing receivers"
               : "[channel][baseline][pol][pol][re, im] int32, saturated to +-(2^31 - 1); -2^31 for missing receivers";
  p.buffers = {in, acc, accOut, miss,
               vis};  // the same arrays with or without the reduction (bench variants share them)
  for (auto& b : cmma::saturationCountBuffers("visibilities with a saturated component in this dump",
                                              "saturated visibilities summed over the reduce blocks (left zero)",
                                              "reduce blocks finished (left zero)"))
    p.buffers.push_back(std::move(b));
  p.params.push_back(PlanParam{"dump", "int", 1, 0, 1,
                               "1: reduce the accumulators to the visibilities and reset them; 0: only accumulate"});

  PlanKernel corr;
  corr.name = k.correlateName;
  corr.source = 0;
  corr.blockX = k.tiling.threads();
  corr.sharedBytes = k.dynamicShared ? k.sharedBytes : 0;  // static up to 48 KiB
  corr.grid = GridRule{static_cast<long long>(s.channels) *
                           (k.blocksPerChannel ? k.blocksPerChannel : k.tiling.tiles()),
                       1, k.persistent};
  corr.args = {PlanArg::buffer("input", "const unsigned char*", "input"),
               PlanArg::buffer("accumulators", f ? "float*" : "long long*", "acc"), PlanArg::batchTimes(1, "batch")};
  if (k.columnMap) corr.args.push_back(PlanArg::tensorMap("input", *k.columnMap, "b_map"));
  corr.note = fmt::format("{} per (batch entry, channel, tile of {} x {} inputs); {} B shared memory{}",
                          k.clusterBlocks > 1 ? "clusters of two blocks (two tiles of one row side), a block"
                          : k.persistent      ? "the resident blocks (persistent), each looping over units"
                                              : "one block",
                          k.tiling.rowsPerBlock, k.tiling.rowsPerBlock, k.sharedBytes,
                          k.wgmma ? "; wgmma (sm_90a)" : "");
  if (withCorrelate) p.kernels.push_back(corr);
  if (withReduce) {
    PlanKernel red;
    red.name = k.reduceName;
    red.source = 1;
    red.blockX = k.reduceThreads;
    // Persistent: the grid is the resident blocks (at most one per sweep of the first accumulator; the GridRule scales
    // that with the batch: the blocks past the sweeps leave at once), each looping over the sweeps.
    const long long perSweep = reduceSweepVisibilities(s, k.reduceThreads, k.reduceUnroll);
    red.grid = GridRule{(s.visibilities() + perSweep - 1) / perSweep, 1, true};
    red.args = {PlanArg::buffer("accumulators", f ? "float*" : "long long*", "acc"),
                PlanArg::buffer("visibilities", f ? "float*" : "int*", "vis"),
                PlanArg::buffer("missing", "const unsigned char*", "missing"),
                PlanArg::buffer("saturated", "unsigned long long*", "saturated"),
                PlanArg::buffer("sat_count", "unsigned long long*", "sat_count"),
                PlanArg::buffer("blocks_done", "unsigned int*", "blocks_done"),
                PlanArg::batchTimes(1, "batch"),
                PlanArg::scalar("dump", "int")};
    red.note = fmt::format(
        "when dump != 0: sum, saturate, mark missing, reset, count; streams {} bytes per batch entry of accumulators + "
        "{} output bytes",
        s.visibilities() * (f ? 16 : 32), s.visibilities() * 8);
    p.kernels.push_back(red);
  }
  p.check();
  return p;
}

}  // namespace warpforge
