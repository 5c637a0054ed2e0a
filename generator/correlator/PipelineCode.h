#pragma once
// Lines of CUDA at an indentation: how the pipeline's emitters (PipelineEmitter.cpp, PipelineTriangle.cpp) print.
#include <string>

#include <fmt/format.h>

#include "generator/correlator/CorrelatorSpec.h"

namespace warpforge::corr_emit {

struct Code {
  std::string text;
  int depth = 0;
  void operator()(const std::string& line) {
    text += std::string(static_cast<std::size_t>(2 * depth), ' ') + line + "\n";
  }
  void open(const std::string& line) { (*this)(line + " {"), ++depth; }
  void close(const std::string& tail = "") { --depth, (*this)("}" + tail); }
  // Printed AST statements (one or more lines) at the current indentation.
  void lines(const std::string& text) {
    for (std::size_t from = 0; from < text.size();) {
      const std::size_t end = text.find('\n', from);
      (*this)(text.substr(from, end == std::string::npos ? std::string::npos : end - from));
      if (end == std::string::npos) break;
      from = end + 1;
    }
  }
};

// Offset in samples of time `t` (an expression) from an input's first sample, in the spec's layout.
inline std::string timeOffset(const CorrelatorInput& in, const std::string& t) {
  if (in.timesPerBlock > 1)
    return fmt::format("(long long)(({0}) / {1}) * {2}LL + (long long)(({0}) % {1}) * {3}LL", t, in.timesPerBlock,
                       in.timeBlock, in.time);
  return fmt::format("(long long)({}) * {}LL", t, in.timeBlock);
}

// Unit `unitExpr` (batch entry, channel, tile) -> b, channel, the triangle tile (ti, tj), ti <= tj, diag, the tile's
// first inputs row0 / col0, and chan, the channel's first sample (bytes of `sampleBytes`).
inline void emitTileDecode(Code& c, const CorrelatorSpec& s, long long tiles, int rows, int sampleBytes,
                           const std::string& diagComment, const std::string& unitExpr) {
  c("// unit -> (batch entry, channel, triangle tile (ti, tj), ti <= tj)");
  c("long long unit = " + unitExpr + ";");
  c(fmt::format("const int tile = (int)(unit % {}LL);", tiles));
  c(fmt::format("unit /= {}LL;", tiles));
  c(fmt::format("const int channel = (int)(unit % {}LL);", s.channels));
  c(fmt::format("const long long b = unit / {}LL;", s.channels));
  c("const float xq = 8.0f * (float)tile + 1.0f;");
  c("int tj = (int)((xq * rsqrtf(xq) - 1.0f) * 0.5f);");
  c("while (tj * (tj + 1) / 2 > tile) --tj;");
  c("while ((tj + 1) * (tj + 2) / 2 <= tile) ++tj;");
  c("const int ti = tile - tj * (tj + 1) / 2;");
  c("const bool diag = ti == tj;  // " + diagComment);
  c(fmt::format("const int row0 = ti * {0}, col0 = tj * {0};  // first inputs of the tile's row and column sides",
                rows));
  c(fmt::format("const unsigned char* const chan = input + (b * {}LL + (long long)channel * {}LL) * {};", s.input.batch,
                s.input.channel, sampleBytes));
}

// The pipelines' kernel opening: the signature (input; vis or acc by the output model), dynamic shared memory, tid,
// lane, warp; block -> (batch entry b, channel, triangle tile (ti, tj), ti <= tj), diag, the tile's first inputs row0
// / col0, and chan, the channel's first sample (bytes of `sampleBytes`). Leaves the kernel's body open.
// lastParam: a parameter after batch (the column side's tensor map). pairsPerSide > 0: clusters of two blocks
// (directPairs / directPairTile in PipelineDirect.h: a channel's tps = pairsPerSide tiles per side): block -> (b,
// channel, pair, rank), the pair's tiles (ti, tj0) and (ti, tj0 + 1), this block's tj = tj0 + rank; `active` (this
// block has a tile) and `paired` (both have one) besides. persistent: no decoding (the kernel's warpgroups loop over
// units, each decoding its own).
inline void emitKernelOpening(Code& c, const CorrelatorSpec& s, const std::string& name, int threads, int blocksPerSm,
                              long long tiles, int rows, int sampleBytes, const std::string& diagComment,
                              int pairsPerSide = 0, long long pairs = 0, bool persistent = false,
                              const std::string& lastParam = "") {
  c.open(
      fmt::format("extern \"C\" __global__ void {}__launch_bounds__({}, {}) {}(const unsigned char* __restrict__ "
                  "input, "
                  "{}* __restrict__ {}, long long batch{})",
                  pairsPerSide ? "__cluster_dims__(2, 1, 1) " : "", threads, blocksPerSm, name,
                  s.type == SampleType::CF16 ? "float"
                  : s.writesVisibilities()   ? "int"
                                             : "long long",
                  s.writesVisibilities() ? "vis" : "acc", lastParam.empty() ? "" : ", " + lastParam));
  c("extern __shared__ __align__(1024) unsigned char wf_smem[];");
  c("const int tid = threadIdx.x, lane = tid & 31;");
  c("const int warp = __shfl_sync(0xffffffffu, tid >> 5, 0);  // warp-uniform for ptxas: wgmma outside divergent "
    "paths");
  if (pairsPerSide) {
    c("// block -> (batch entry, channel, cluster pair, rank): the pair's tiles (ti, tj0), (ti, tj0 + 1) share the row "
      "side");
    c("const unsigned rank = wfa_cluster_rank();  // blockIdx.x % 2");
    c("long long unit = blockIdx.x >> 1;");
    c(fmt::format("const int pair = (int)(unit % {}LL);", pairs));
    c(fmt::format("unit /= {}LL;", pairs));
    c(fmt::format("const int channel = (int)(unit % {}LL);", s.channels));
    c(fmt::format("const long long b = unit / {}LL;", s.channels));
    c("int ti = 0, first = 0;  // row ti holds (tps - ti + 1) / 2 pairs");
    c(fmt::format("while (first + ({0} - ti + 1) / 2 <= pair) first += ({0} - ti + 1) / 2, ++ti;", pairsPerSide));
    c("const int tj = ti + 2 * (pair - first) + (int)rank;");
    c(
        fmt::format("const bool active = tj < {0}, paired = ti + 2 * (pair - first) + 1 < {0};  // a row's odd last "
                    "tile runs alone",
                    pairsPerSide));
  } else if (!persistent) {
    emitTileDecode(c, s, tiles, rows, sampleBytes, diagComment, "blockIdx.x");
    return;
  } else {
    return;  // persistent: each warpgroup decodes its units in its loop (emitTileDecode)
  }
  c("const bool diag = ti == tj;  // " + diagComment);
  c(fmt::format("const int row0 = ti * {0}, col0 = tj * {0};  // first inputs of the tile's row and column sides",
                rows));
  c(fmt::format("const unsigned char* const chan = input + (b * {}LL + (long long)channel * {}LL) * {};", s.input.batch,
                s.input.channel, sampleBytes));
}

}  // namespace warpforge::corr_emit
