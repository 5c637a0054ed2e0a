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

// The pipelines' prologue: block -> (batch entry b, channel, triangle tile (ti, tj), ti <= tj), diag, the tile's
// first inputs row0 / col0, and chan, the channel's first sample (bytes of `sampleBytes`).
inline void emitTileOfBlock(Code& c, const CorrelatorSpec& s, long long tiles, int rows, int sampleBytes,
                            const std::string& diagComment) {
  c("// block -> (batch entry, channel, triangle tile (ti, tj), ti <= tj)");
  c("long long unit = blockIdx.x;");
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

}  // namespace warpforge::corr_emit
