#include "generator/gridder/GridderLaunch.h"

#include <stdexcept>

#include <fmt/format.h>

#include "generator/gridder/GridderDegridMmaKernel.h"
#include "generator/gridder/GridderMmaKernel.h"
#include "generator/gridder/GridderPlanner.h"
#include "generator/core/PlanCompose.h"

namespace warpforge {

std::string gridderFftSpecJson(const GridderSpec& s) {
  Json j;
  // Within the 64 characters a spec name may have: gridder names have at most kGridderMaxNameLength (distinct names,
  // distinct symbols).
  j["name"] = s.name + "_sgfft";
  j["family"] = "stockham";
  j["description"] =
      fmt::format("subgrid FFTs of gridder spec {}: {} x {} c2c f32, {}, in place, one per subgrid and correlation",
                  s.name, s.subgridSize, s.subgridSize, s.grid() ? "inverse (exp +2 pi i)" : "forward (exp -2 pi i)");
  j["precision"] = "f32";
  j["transform"] = "c2c";
  j["lengths"] = {s.subgridSize, s.subgridSize};
  j["direction"] = s.grid() ? "inverse" : "forward";
  j["placement"] = "in_place";
  return j.dump(2);
}

std::unique_ptr<FamilySpec> gridderFftSpec(const GridderSpec& s) {
  return parseSpecText(gridderFftSpecJson(s), s.file + " (subgrid FFT)");
}

std::vector<std::string> gridderArrayNames(const GridderSpec& s) {
  std::vector<std::string> n = {"uvw", "wavenumbers", "weights", "metadata"};
  if (s.grid()) {
    n.push_back("visibilities");
    if (s.adder == GridAdder::Tiles) n.push_back("tile_offsets"), n.push_back("tile_subgrids");
  } else {
    n.push_back("grid");
  }
  if (s.aterms) n.push_back("aterms");
  if (s.taper) n.push_back("taper");
  n.push_back(s.grid() ? "grid" : "visibilities");
  return n;
}

namespace {

PlanBuffer buffer(const std::string& name, BufferRole role, const std::string& type, int bytes, long long perBatch,
                  long long fixed, const std::string& note) {
  PlanBuffer b;
  b.name = name;
  b.role = role;
  b.elementType = type;
  b.elementBytes = bytes;
  b.perBatchElems = perBatch;
  b.fixedElems = fixed;
  b.alignment = bytes == 8 ? 16 : 0;  // float2 arrays are read as float4 pairs where correlations pair up
  b.note = note;
  return b;
}

PlanKernel kernel(const GridderKernel& k, int source, GridRule rule, std::vector<PlanArg> args,
                  const std::string& note) {
  PlanKernel p;
  p.name = k.name;
  p.source = source;
  p.blockX = k.threads;
  p.sharedBytes = 0;  // static only
  p.grid = rule;
  p.args = std::move(args);
  p.note = note;
  return p;
}

}  // namespace

GridderBuild buildGridderPlan(const GridderSpec& s, const EmitTarget& target) {
  const int S = s.subgridSize, P = s.correlations;
  const long long B = s.baselines(), T = s.timeSteps, C = s.channels, M = s.maxSubgrids;
  const long long NT = s.tilesPerSide();
  GridderBuild out;
  LaunchPlan& p = out.plan;
  p.specName = s.name;
  p.family = "gridder";
  p.unitName = "observation";
  p.minArch = 80;

  p.buffers.push_back(buffer("uvw", BufferRole::Input, "float", 4, B * T * 3, 0,
                             "[baseline][time][u, v, w] metres; non-finite: flagged"));
  p.buffers.push_back(
      buffer("wavenumbers", BufferRole::Input, "float", 4, C, 0, "[channel] 2 pi f / c, radians per metre"));
  p.buffers.push_back(buffer("weights", BufferRole::Input, "float", 4, B * T * C, 0,
                             s.grid() ? "[baseline][time][channel]; the gridder grids weight x V; 0: flagged"
                                      : "[baseline][time][channel]; 0: flagged (predicted 0)"));
  p.buffers.push_back(buffer("metadata", BufferRole::Input, "int", 4, M * kGridMetaInts, 0,
                             fmt::format("[slot][{}] int32 from the host planner (baseline, time, time count (0: "
                                         "unused), channel, channel count, x, y, "
                                         "w-plane, A-term interval, station 1, station 2, 0)",
                                         kGridMetaInts)));
  const std::string visNote = fmt::format("[baseline][time][channel][{}] complex float{}", P,
                                          P == 4   ? " (XX, XY, YX, YY)"
                                          : P == 2 ? " (XX, YY)"
                                                   : "");
  const std::string gridNote =
      fmt::format("[w-plane][correlation][{}][{}] complex float; pixel (x, y) is u = (x - G/2) / image_size",
                  s.gridSize, s.gridSize);
  if (s.grid()) {
    p.buffers.push_back(buffer("visibilities", BufferRole::Input, "float2", 8, B * T * C * P, 0, visNote));
    if (s.adder == GridAdder::Tiles) {
      p.buffers.push_back(buffer("tile_offsets", BufferRole::Input, "int", 4, s.wPlanes * NT * NT + 1, 0,
                                 "[w-plane x tile + 1] start of each S x S tile's subgrid list (host planner)"));
      p.buffers.push_back(buffer("tile_subgrids", BufferRole::Input, "int", 4, 4 * M, 0,
                                 "subgrid slots touching each tile (host planner)"));
    }
  } else {
    p.buffers.push_back(buffer("grid", BufferRole::Input, "float2", 8, s.gridElems(), 0, gridNote));
  }
  if (s.aterms)
    p.buffers.push_back(buffer("aterms", BufferRole::Input, "float2", 8, s.atermIntervals() * s.stations * S * S * P, 0,
                               fmt::format("[interval][station][{}][{}][{}] complex float Jones terms", S, S, P)));
  if (s.taper)
    p.buffers.push_back(
        buffer("taper", BufferRole::Input, "float", 4, 0, static_cast<long long>(S) * S, "[S][S] real taper"));
  if (s.grid()) p.buffers.push_back(buffer("grid", BufferRole::Output, "float2", 8, s.gridElems(), 0, gridNote));
  else
    p.buffers.push_back(buffer("visibilities", BufferRole::Output, "float2", 8, B * T * C * P, 0,
                               visNote + "; 0 where flagged or off the grid"));
  p.buffers.push_back(
      buffer("subgrids", BufferRole::Scratch, "float2", 8, M * P * S * S, 0, "[slot][correlation][S][S], fftshifted"));

  auto src = [&](const GridderKernel& k) {
    p.sources.push_back({k.name + ".cu", k.source});
    return static_cast<int>(p.sources.size()) - 1;
  };
  auto optional = [&](const char* buf, const char* type, const char* param) {
    return p.buffer(buf) ? PlanArg::buffer(buf, type, param) : PlanArg::null(type, param);
  };

  std::unique_ptr<FamilySpec> fft = gridderFftSpec(s);
  const LaunchPlan fftPlan = fft->emit(target).plan;
  const PlanBuffer* in = fftPlan.buffer("input");
  if (!in || in->perBatchElems != static_cast<long long>(S) * S || in->fixedElems != 0 || in->elementType != "float2")
    throw std::logic_error(
        fmt::format("gridder {}: the subgrid FFT plan does not read dense {} x {} float2 entries", s.name, S, S));
  auto appendFft = [&] {
    const std::size_t before = p.kernels.size();
    appendPlan(p, fftPlan, {{"input", "subgrids"}, {"output", "subgrids"}}, "fft_", M * P);
    out.fftKernels = static_cast<int>(p.kernels.size() - before);
  };

  if (s.grid()) {
    out.main = s.engine == GridEngine::Fma ? emitGridderKernel(s) : emitGridderMmaKernel(s);
    p.kernels.push_back(
        kernel(out.main, src(out.main), GridRule{M, 1, false},
               {PlanArg::buffer("uvw", "const float*", "uvw"),
                PlanArg::buffer("wavenumbers", "const float*", "wavenumbers"),
                PlanArg::buffer("visibilities", "const float2*", "visibilities"),
                PlanArg::buffer("weights", "const float*", "weights"), optional("aterms", "const float2*", "aterms"),
                optional("taper", "const float*", "taper"), PlanArg::buffer("metadata", "const int*", "metadata"),
                PlanArg::buffer("subgrids", "float2*", "subgrids"), PlanArg::batchTimes(M, "units")},
               fmt::format("one block per subgrid slot ({} per observation); {} B static shared memory", M,
                           out.main.sharedBytes)));
    appendFft();
    if (s.adder == GridAdder::Tiles) {
      const GridderKernel a = emitTileAdder(s);
      p.kernels.push_back(
          kernel(a, src(a), GridRule{s.wPlanes * NT * NT, 1, false},
                 {PlanArg::buffer("metadata", "const int*", "metadata"),
                  PlanArg::buffer("tile_offsets", "const int*", "tile_offsets"),
                  PlanArg::buffer("tile_subgrids", "const int*", "tile_subgrids"),
                  PlanArg::buffer("subgrids", "const float2*", "subgrids"), PlanArg::buffer("grid", "float2*", "grid"),
                  PlanArg::batchTimes(s.wPlanes * NT * NT, "units")},
                 "one block per grid tile and w-plane, atomic-free"));
    } else {
      const GridderKernel z = emitZeroFill(s, "grid");
      p.kernels.push_back(kernel(z, src(z), GridRule{s.gridElems(), 256, false},
                                 {PlanArg::buffer("grid", "float2*", "out"), PlanArg::batchTimes(s.gridElems(), "n")},
                                 "zero the grid"));
      const GridderKernel a = emitAtomicAdder(s);
      p.kernels.push_back(kernel(a, src(a), GridRule{M, 1, false},
                                 {PlanArg::buffer("metadata", "const int*", "metadata"),
                                  PlanArg::buffer("subgrids", "const float2*", "subgrids"),
                                  PlanArg::buffer("grid", "float2*", "grid"), PlanArg::batchTimes(M, "units")},
                                 "one block per subgrid slot, atomicAdd"));
    }
  } else {
    const long long nv = B * T * C * P;
    const GridderKernel z = emitZeroFill(s, "visibilities");
    p.kernels.push_back(kernel(z, src(z), GridRule{nv, 256, false},
                               {PlanArg::buffer("visibilities", "float2*", "out"), PlanArg::batchTimes(nv, "n")},
                               "zero the visibilities (those no subgrid holds stay 0)"));
    const GridderKernel sp = emitSplitter(s);
    p.kernels.push_back(
        kernel(sp, src(sp), GridRule{M, 1, false},
               {PlanArg::buffer("metadata", "const int*", "metadata"), PlanArg::buffer("grid", "const float2*", "grid"),
                PlanArg::buffer("subgrids", "float2*", "subgrids"), PlanArg::batchTimes(M, "units")},
               "one block per subgrid slot"));
    appendFft();
    out.main = s.engine == GridEngine::Fma ? emitDegridderKernel(s) : emitDegridderMmaKernel(s);
    p.kernels.push_back(
        kernel(out.main, src(out.main), GridRule{M, 1, false},
               {PlanArg::buffer("uvw", "const float*", "uvw"),
                PlanArg::buffer("wavenumbers", "const float*", "wavenumbers"),
                PlanArg::buffer("weights", "const float*", "weights"), optional("aterms", "const float2*", "aterms"),
                optional("taper", "const float*", "taper"), PlanArg::buffer("metadata", "const int*", "metadata"),
                PlanArg::buffer("subgrids", "const float2*", "subgrids"),
                PlanArg::buffer("visibilities", "float2*", "visibilities"), PlanArg::batchTimes(M, "units")},
               fmt::format("one block per subgrid slot; {} B static shared memory", out.main.sharedBytes)));
  }
  p.check();
  return out;
}

}  // namespace warpforge
