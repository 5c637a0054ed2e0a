// Kernel A: the FIR and the column FFTs (see PfbGeometry.h).
#include <fmt/format.h>

#include "ast/Passes.h"
#include "ast/Printer.h"
#include "generator/pfb/PfbEmitter.h"
#include "generator/pfb/PfbFftCode.h"

namespace warpforge {

using namespace ast;

namespace {

// pfb_pair(stream, e, a, b): real samples e and e + 1 (e even) of one stream, as f32 (exact).
std::string samplePairHelper(const PfbSpec& s) {
  std::string o = "// Samples e and e + 1 (e even) of a stream";
  switch (s.sampleType) {
    case PfbSampleType::Int8:
      o += ": int8, one 16-bit load (the lower address holds sample e).\n"
           "static __device__ __forceinline__ void pfb_pair(const unsigned char* stream, long long e, float& a, float& "
           "b) {\n"
           "  const unsigned short raw = *(const unsigned short*)(stream + e);\n"
           "  a = (float)(signed char)(raw & 0xff);\n"
           "  b = (float)(signed char)(raw >> 8);\n"
           "}\n";
      break;
    case PfbSampleType::Int16:
      o += ": little-endian int16, one 32-bit load.\n"
           "static __device__ __forceinline__ void pfb_pair(const unsigned char* stream, long long e, float& a, float& "
           "b) {\n"
           "  const unsigned raw = *(const unsigned*)(stream + 2 * e);\n"
           "  a = (float)(short)(raw & 0xffff);\n"
           "  b = (float)(short)(raw >> 16);\n"
           "}\n";
      break;
    case PfbSampleType::Packed: {
      const int b = s.sampleBits;
      const int most = (7 + 2 * b + 7) / 8, least = (2 * b + 7) / 8;
      o += fmt::format(
          ": {}-bit two's complement, big-endian bit-packed (sample e at bits {} e .. {} e + {} of the stream,\n"
          "// the first bit the most significant of its byte). The pair's {} bits start at bit `shift` of their first "
          "byte\n"
          "// and span at most {} bytes, assembled most significant first.\n",
          b, b, b, b - 1, 2 * b, most);
      o += "static __device__ __forceinline__ void pfb_pair(const unsigned char* stream, long long e, float& a, float& "
           "b) {\n";
      o += fmt::format("  const long long bit = e * {};\n", b);
      o += "  const unsigned char* const p = stream + (bit >> 3);\n";
      o += "  const int shift = (int)(bit & 7);\n";
      o += fmt::format("  const int bytes = (shift + {}) >> 3;\n", 2 * b + 7);
      o += "  unsigned long long v = (unsigned long long)p[0] << 56;\n";
      for (int k = 1; k < most; ++k) {
        if (k < least) o += fmt::format("  v |= (unsigned long long)p[{}] << {};\n", k, 56 - 8 * k);
        else o += fmt::format("  if (bytes > {}) v |= (unsigned long long)p[{}] << {};\n", k, k, 56 - 8 * k);
      }
      o += "  v <<= shift;\n";
      o += fmt::format("  a = (float)((long long)v >> {});\n", 64 - b);
      o += fmt::format("  b = (float)((long long)(v << {}) >> {});\n", b, 64 - b);
      o += "}\n";
      break;
    }
  }
  return o;
}

}  // namespace

std::string pfbFirSource(const PfbSpec& s, const PfbGeometry& g, const std::string& name) {
  const int T = s.taps, TA = g.threadsA, C = g.columns;
  const long long N = s.channels, L = s.fftLength(), S = s.spectra;
  const char* slotFn = pfb::slotFunction(g.previous);
  auto xs = [](int part, int j) { return fmt::format("x{}_{}", part, j); };
  auto ws = [](int part, int j) { return fmt::format("w{}_{}", part, j); };

  std::vector<NodePtr> body;
  body.push_back(externSharedArray("float2", "pfb_shared"));
  body.push_back(
      comment(fmt::format("two buffers of {} spectra x {} points ([spectrum][row][column]); the column FFTs ping-pong "
                          "between them",
                          g.chunk, TA)));
  body.push_back(decl("float2* const", "buf0", var("pfb_shared")));
  body.push_back(
      decl("float2* const", "buf1",
           bin("+", var("pfb_shared"), lit(pfbBufferSlots(static_cast<long long>(g.chunk) * TA, g.previous)))));
  body.push_back(comment("block -> (stream of a batch entry, run of spectra, column group); column group fastest"));
  body.push_back(decl("const unsigned", "group", bin("%", var("blockIdx.x"), lit(g.columnGroups()))));
  body.push_back(
      decl("const unsigned", "run", bin("%", bin("/", var("blockIdx.x"), lit(g.columnGroups())), lit(g.runs))));
  body.push_back(decl("const unsigned", "sb", bin("/", var("blockIdx.x"), lit(g.columnGroups() * g.runs))));
  body.push_back(
      comment(fmt::format("thread -> (row m1, column m2) of the four-step split N = {} x {}: complex point z[{} m1 + "
                          "m2] = real samples pos, pos + 1",
                          g.n1, g.n2, g.n2)));
  body.push_back(decl("const int", "t", var("(int)threadIdx.x")));
  body.push_back(decl("const int", "m1", bin("/", var("t"), lit(C))));
  body.push_back(decl("const int", "m2", bin("+", bin("*", var("(int)group"), lit(C)), bin("%", var("t"), lit(C)))));
  body.push_back(decl("const int", "pos", bin("*", lit(2), bin("+", bin("*", var("m1"), lit(g.n2)), var("m2")))));
  body.push_back(decl("const unsigned char* const", "stream",
                      bin("+", var("input"), bin("*", cast("long long", var("sb")), lit(s.streamBytes())))));
  body.push_back(
      comment(fmt::format("the thread's weights w[j][pos], w[j][pos + 1] (j < {} taps), kept for every spectrum", T)));
  for (int j = 0; j < T; ++j)
    for (int part = 0; part < 2; ++part)
      body.push_back(decl("const float", ws(part, j),
                          call("__ldg", {bin("+", var("weights"), bin("+", lit(j * L + part), var("pos")))})));
  body.push_back(decl("const int", "first", bin("*", var("(int)run"), lit(g.runSpectra))));
  body.push_back(decl("const int", "end", call("min", {lit(S), bin("+", var("first"), lit(g.runSpectra))})));
  body.push_back(comment(
      fmt::format("the window: samples of spectra first + u (u < {}) of the thread's two positions, slot u % {}", T,
                  T)));
  for (int j = 0; j < T; ++j)
    for (int part = 0; part < 2; ++part) body.push_back(decl("float", xs(part, j), flit(0)));
  for (int j = 0; j + 1 < T; ++j)
    body.push_back(exprStmt(
        call("pfb_pair",
             {var("stream"), bin("+", bin("*", cast("long long", bin("+", var("first"), lit(j))), lit(L)), var("pos")),
              var(xs(0, j)), var(xs(1, j))})));
  // Hoisted twiddles of the column FFT and the four-step twiddle of the point this thread stores.
  pfb::PassShape shape;
  shape.innerCount = C;
  shape.outerStride = static_cast<long long>(g.n1) * C;
  shape.pointStride = C;
  shape.threads = TA;
  shape.table = "twiddles";
  shape.slot = slotFn;
  for (auto& n : pfb::hoistTwiddles(g.columnFft, shape, "c")) body.push_back(n);
  body.push_back(
      comment("after the column FFT the thread's point is Y[k1 = m1][m2], multiplied by e^{-2 pi i m2 k1 / N}"));
  body.push_back(decl("const float2", "step",
                      call("__ldg", {bin("+", var("twiddles"),
                                         bin("+", lit(g.stepTwiddleOffset),
                                             bin("+", bin("*", var("m1"), lit(g.n2)), var("m2"))))})));
  body.push_back(decl("float2* const", "out",
                      bin("+", var("scratch"),
                          bin("+", bin("*", bin("*", cast("long long", var("sb")), lit(S)), lit(N)),
                              bin("+", bin("*", var("m1"), lit(g.n2)), var("m2"))))));

  // One chunk: T spectra (the slots' indices are compile-time constants), then the column FFTs and the store.
  std::vector<NodePtr> chunk;
  chunk.push_back(
      comment(fmt::format("FIR of up to {} spectra: y[pos] = sum_j w[j][pos] x[(spectrum + j) {} + pos]", T, L)));
  for (int i = 0; i < T; ++i) {
    std::vector<NodePtr> one;
    const int slot = (i + T - 1) % T;
    one.push_back(
        exprStmt(call("pfb_pair",
                      {var("stream"),
                       bin("+", bin("*", cast("long long", bin("+", var("base"), lit(i + T - 1))), lit(L)), var("pos")),
                       var(xs(0, slot)), var(xs(1, slot))})));
    for (int part = 0; part < 2; ++part) {
      NodePtr acc = bin("*", var(ws(part, 0)), var(xs(part, i % T)));
      for (int j = 1; j < T; ++j) acc = bin("+", acc, bin("*", var(ws(part, j)), var(xs(part, (i + j) % T))));
      one.push_back(decl("const float", fmt::format("y{}", part), acc));
    }
    one.push_back(assign(index(var("buf0"), call(slotFn, {bin("+", lit(static_cast<long long>(i) * TA), var("t"))})),
                         call("make_float2", {var("y0"), var("y1")})));
    chunk.push_back(ifStmt(bin("<", bin("+", var("base"), lit(i)), var("end")), block(one)));
  }
  chunk.push_back(decl("const int", "count", call("min", {lit(T), bin("-", var("end"), var("base"))})));
  chunk.push_back(exprStmt(call("__syncthreads", {})));
  const int passes = static_cast<int>(g.columnFft.radices.size());
  for (int p = 0; p < passes; ++p) {
    shape.in = p % 2 ? "buf1" : "buf0";
    shape.out = p % 2 ? "buf0" : "buf1";
    shape.butterflies = bin("*", var("count"), lit(static_cast<long long>(C) * (g.n1 / g.columnFft.radices[p])));
    chunk.push_back(pfb::emitPass(g.columnFft, p, shape, "c"));
  }
  const std::string fin = passes % 2 ? "buf1" : "buf0";
  {
    std::vector<NodePtr> st;
    st.push_back(
        decl("const float2", "v", index(var(fin), call(slotFn, {bin("+", bin("*", var("i"), lit(TA)), var("t"))}))));
    st.push_back(assign(index(var("out"), bin("*", cast("long long", bin("+", var("base"), var("i"))), lit(N))),
                        call("make_float2",
                             {bin("-", bin("*", var("v.x"), var("step.x")), bin("*", var("v.y"), var("step.y"))),
                              bin("+", bin("*", var("v.x"), var("step.y")), bin("*", var("v.y"), var("step.x")))})));
    chunk.push_back(comment("store Y[k1][m2] of each spectrum: runs of the block's columns, contiguous"));
    chunk.push_back(
        forLoop(decl("int", "i", lit(0)), bin("<", var("i"), var("count")), assign(var("i"), lit(1), "+="), block(st)));
  }
  // The next chunk's FIR writes buf0: wait for this chunk's readers of buf0 (the store, when the passes end there).
  if (fin == "buf0") chunk.push_back(exprStmt(call("__syncthreads", {})));
  body.push_back(forLoop(decl("int", "base", var("first")), bin("<", var("base"), var("end")),
                         assign(var("base"), lit(T), "+="), block(chunk)));

  // Two blocks per SM (at most 128 registers) while the 4 T weight and window registers leave room.
  NodePtr fn = function(fmt::format("extern \"C\" __global__ void __launch_bounds__({}, {})", TA, T <= 16 ? 2 : 1), "",
                        name,
                        {decl("const unsigned char* __restrict__", "input"),
                         decl("const float* __restrict__", "weights"), decl("const float2* __restrict__", "twiddles"),
                         decl("float2* __restrict__", "scratch")},
                        block(body));
  const char* type = s.sampleType == PfbSampleType::Int8    ? "int8"
                     : s.sampleType == PfbSampleType::Int16 ? "int16"
                                                            : "packed";
  return fmt::format(
             "// {}: {} FIR ({} taps) + the {}-point column FFTs of the {}-point complex FFT (real FFT of {} points), "
             "{} {}-bit samples;\n"
             "// {} streams x {} spectra per batch entry, block = {} columns x {} rows, runs of {} spectra; generated "
             "by warpforge (pfb family)\n",
             name, s.name, T, g.n1, N, L, type, s.sampleBits, s.streams(), S, C, g.n1, g.runSpectra) +
         samplePairHelper(s) + pfb::slotHelper(g.previous) + print(foldConstants(fn));
}

}  // namespace warpforge
