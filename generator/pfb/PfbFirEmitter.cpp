// Kernel A: the FIR and the column FFTs (see PfbGeometry.h).
#include <algorithm>

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

// pfb_sample(stream, e): real sample e of one stream, as f32 (exact); the current kernels' thread reads one sample.
std::string sampleHelper(const PfbSpec& s) {
  std::string o = "// Sample e of a stream";
  switch (s.sampleType) {
    case PfbSampleType::Int8:
      o += ": int8.\n"
           "static __device__ __forceinline__ float pfb_sample(const unsigned char* stream, long long e) {\n"
           "  return (float)(signed char)stream[e];\n"
           "}\n";
      break;
    case PfbSampleType::Int16:
      o += ": little-endian int16.\n"
           "static __device__ __forceinline__ float pfb_sample(const unsigned char* stream, long long e) {\n"
           "  return (float)((const short*)stream)[e];\n"
           "}\n";
      break;
    case PfbSampleType::Packed: {
      const int b = s.sampleBits;
      const int most = (7 + b + 7) / 8, least = (b + 7) / 8;
      o += fmt::format(
          ": {}-bit two's complement, big-endian bit-packed (sample e at bits {} e .. {} e + {} of the stream,\n"
          "// the first bit the most significant of its byte): at most {} bytes, assembled most significant first.\n",
          b, b, b, b - 1, most);
      o += "static __device__ __forceinline__ float pfb_sample(const unsigned char* stream, long long e) {\n";
      o += fmt::format("  const long long bit = e * {};\n", b);
      o += "  const unsigned char* const p = stream + (bit >> 3);\n";
      o += "  const int shift = (int)(bit & 7);\n";
      o += fmt::format("  const int bytes = (shift + {}) >> 3;\n", b + 7);
      o += "  unsigned long long v = (unsigned long long)p[0] << 56;\n";
      for (int k = 1; k < most; ++k) {
        if (k < least) o += fmt::format("  v |= (unsigned long long)p[{}] << {};\n", k, 56 - 8 * k);
        else o += fmt::format("  if (bytes > {}) v |= (unsigned long long)p[{}] << {};\n", k, k, 56 - 8 * k);
      }
      o += "  v <<= shift;\n";
      o += fmt::format("  return (float)((long long)v >> {});\n", 64 - b);
      o += "}\n";
      break;
    }
  }
  return o;
}

}  // namespace

std::string pfbFirSource(const PfbSpec& s, const PfbGeometry& g, const std::string& name) {
  const int T = s.taps, TA = g.threadsA, PA = g.pointsA, C = g.columns;
  // The current kernels: a thread per real sample (sample pos of its point, `parts` = 1); the previous: a thread per
  // complex point (samples pos and pos + 1).
  const bool single = !g.previous;
  // Every loop trip of the current kernels is whole where max(T, chunk) divides S (runs are multiples of it): no
  // guards.
  const bool fullChunks = single && s.spectra % std::max(T, g.chunk) == 0;
  const int parts = single ? 1 : 2;
  const long long N = s.channels, L = s.fftLength(), S = s.spectra;
  const char* slotFn = pfb::slotFunction(g.previous);
  // The scratch's element: float2, or __half2 (`scratch` "f16": each part rounded once, to nearest even).
  const char* scratchPack = s.halfScratch ? "__floats2half2_rn" : "make_float2";
  // Constant slots (PfbGeometry::firConstSlots): the FIR's store of spectrum i at slot(i PA + pt) = slot(pt) XOR a
  // constant (XOR-linear swizzle, pt < PA), and the scratch store's element e = t + TA m at slot(t) + TA m (TA a
  // multiple of 256) with the scratch pointer advanced by 2 N per trip (TA = 2 PA: two spectra).
  const bool constSlots = single && g.firConstSlots && !g.slotPerElement;
  const bool storePointers = constSlots && TA % 256 == 0 && TA == 2 * PA;
  auto xs = [](int part, int j) { return fmt::format("x{}_{}", part, j); };
  auto ws = [](int part, int j) { return fmt::format("w{}_{}", part, j); };

  std::vector<NodePtr> body;
  body.push_back(externSharedArray("float2", "pfb_shared"));
  body.push_back(
      comment(fmt::format("two buffers of {} spectra x {} points ([spectrum][row][column]); the column FFTs ping-pong "
                          "between them",
                          g.chunk, PA)));
  body.push_back(decl("float2* const", "buf0", var("pfb_shared")));
  body.push_back(
      decl("float2* const", "buf1",
           bin("+", var("pfb_shared"), lit(pfbBufferSlots(static_cast<long long>(g.chunk) * PA, g.previous)))));
  if (single) body.push_back(decl("float* const", "fbuf0", cast("float*", var("buf0"))));
  body.push_back(comment("block -> (stream of a batch entry, run of spectra, column group); column group fastest"));
  body.push_back(decl("const unsigned", "group", bin("%", var("blockIdx.x"), lit(g.columnGroups()))));
  body.push_back(
      decl("const unsigned", "run", bin("%", bin("/", var("blockIdx.x"), lit(g.columnGroups())), lit(g.runs))));
  body.push_back(decl("const unsigned", "sb", bin("/", var("blockIdx.x"), lit(g.columnGroups() * g.runs))));
  body.push_back(decl("const int", "t", var("(int)threadIdx.x")));
  if (single) {
    body.push_back(
        comment(fmt::format("thread -> real sample pos = 2 (n2 m1 + m2) + (t & 1) of complex point z[{} m1 + m2] "
                            "(point t / 2 of the block: row m1, column m2 of the four-step split N = {} x {})",
                            g.n2, g.n1, g.n2)));
    body.push_back(decl("const int", "pt", bin(">>", var("t"), lit(1))));
    body.push_back(decl("const int", "pos",
                        bin("+",
                            bin("*", lit(2),
                                bin("+", bin("*", bin("/", var("pt"), lit(C)), lit(g.n2)),
                                    bin("+", bin("*", var("(int)group"), lit(C)), bin("%", var("pt"), lit(C))))),
                            bin("&", var("t"), lit(1)))));
    if (constSlots) {
      body.push_back(
          comment("the thread's FIR store slot (ps; float part pb) and scratch store slot (ts), less constants"));
      body.push_back(decl("const int", "ps", call(slotFn, {var("pt")})));
      body.push_back(decl("const int", "pb", bin("&", var("t"), lit(1))));
      if (storePointers) body.push_back(decl("const int", "ts", call(slotFn, {var("t")})));
    }
  } else {
    body.push_back(
        comment(fmt::format("thread -> (row m1, column m2) of the four-step split N = {} x {}: complex point z[{} m1 + "
                            "m2] = real samples pos, pos + 1",
                            g.n1, g.n2, g.n2)));
    body.push_back(decl("const int", "m1", bin("/", var("t"), lit(C))));
    body.push_back(decl("const int", "m2", bin("+", bin("*", var("(int)group"), lit(C)), bin("%", var("t"), lit(C)))));
    body.push_back(decl("const int", "pos", bin("*", lit(2), bin("+", bin("*", var("m1"), lit(g.n2)), var("m2")))));
  }
  // Byte-aligned samples (int8, int16) of the current kernels are read through `row`, the thread's sample of spectrum
  // `from` (first, then each chunk's base): constant offsets k L, no 64-bit index arithmetic per load.
  const bool rowPointer = single && s.sampleType != PfbSampleType::Packed;
  if (!rowPointer)
    body.push_back(decl("const unsigned char* const", "stream",
                        bin("+", var("input"), bin("*", cast("long long", var("sb")), lit(s.streamBytes())))));
  const bool sharedWeights = g.firSharedWeights;
  const int H = g.chunk;  // spectra per column-FFT batch: T, or a divisor of it (shared weights)
  if (sharedWeights) {
    body.push_back(
        comment(fmt::format("the thread's weights w[j][pos] (j < {} taps) at word j {} + t of shared memory after the "
                            "buffers: its own, "
                            "read at use (no barrier), so that its registers hold the window alone",
                            T, TA)));
    body.push_back(decl("float* const", "pfb_w",
                        cast("float*", bin("+", var("pfb_shared"),
                                           lit(2 * pfbBufferSlots(static_cast<long long>(H) * PA, g.previous))))));
    for (int j = 0; j < T; ++j)
      body.push_back(assign(index(var("pfb_w"), bin("+", lit(j * TA), var("t"))),
                            call("__ldg", {bin("+", var("weights"), bin("+", lit(j * L), var("pos")))})));
  } else {
    body.push_back(comment(fmt::format("the thread's weights w[j][pos]{} (j < {} taps), kept for every spectrum",
                                       single ? "" : ", w[j][pos + 1]", T)));
    for (int j = 0; j < T; ++j)
      for (int part = 0; part < parts; ++part)
        body.push_back(decl("const float", ws(part, j),
                            call("__ldg", {bin("+", var("weights"), bin("+", lit(j * L + part), var("pos")))})));
  }
  auto weight = [&](int part, int j) {
    return sharedWeights ? index(var("pfb_w"), bin("+", lit(j * TA), var("t"))) : var(ws(part, j));
  };
  body.push_back(decl("const int", "first", bin("*", var("(int)run"), lit(g.runSpectra))));
  body.push_back(decl("const int", "end", call("min", {lit(S), bin("+", var("first"), lit(g.runSpectra))})));
  body.push_back(
      comment(fmt::format("the window: samples of spectra first + u (u < {}) of the thread's {}, slot u % {}", T,
                          single ? "position" : "two positions", T)));
  for (int j = 0; j < T; ++j)
    for (int part = 0; part < parts; ++part) body.push_back(decl("float", xs(part, j), flit(0)));
  // The samples of spectrum `u` (an expression) into window slot `slot`.
  auto rowDecl = [&](const char* from) {
    return decl("const unsigned char* const", "row",
                bin("+", var("input"),
                    bin("+", bin("*", cast("long long", var("sb")), lit(s.streamBytes())),
                        bin("*", lit(s.sampleBits / 8),
                            bin("+", bin("*", cast("long long", var(from)), lit(L)), var("pos"))))));
  };
  auto loadSlot = [&](NodePtr u, int slot, long long k) {
    if (rowPointer) return assign(var(xs(0, slot)), call("pfb_sample", {var("row"), lit(k * L)}));
    NodePtr e = bin("+", bin("*", cast("long long", std::move(u)), lit(L)), var("pos"));
    if (single) return assign(var(xs(0, slot)), call("pfb_sample", {var("stream"), std::move(e)}));
    return exprStmt(call("pfb_pair", {var("stream"), std::move(e), var(xs(0, slot)), var(xs(1, slot))}));
  };
  {
    std::vector<NodePtr> pre;
    if (rowPointer) pre.push_back(rowDecl("first"));
    for (int j = 0; j + 1 < T; ++j) pre.push_back(loadSlot(bin("+", var("first"), lit(j)), j, j));
    if (rowPointer) body.push_back(block(pre));
    else body.insert(body.end(), pre.begin(), pre.end());
  }
  // Hoisted twiddles of the column FFT and the four-step twiddle of the point this thread stores.
  pfb::PassShape shape;
  shape.innerCount = C;
  shape.outerStride = static_cast<long long>(g.n1) * C;
  shape.pointStride = C;
  shape.threads = TA;
  shape.table = "twiddles";
  shape.slot = slotFn;
  shape.baseSlots = !g.slotPerElement;
  // The current kernels' 2T window and weight registers leave no room for twiddles kept across the FIR: each
  // butterfly loads its own, the four-step twiddle is loaded per chunk.
  shape.hoist = !single;
  for (auto& n : pfb::hoistTwiddles(g.columnFft, shape, "c")) body.push_back(n);
  auto stepDecl = [&] {
    return decl("const float2", "step",
                call("__ldg",
                     {bin("+", var("twiddles"),
                          bin("+", lit(g.stepTwiddleOffset), bin("+", bin("*", var("m1"), lit(g.n2)), var("m2"))))}));
  };
  body.push_back(
      comment("after the column FFT the thread's point is Y[k1 = m1][m2], multiplied by e^{-2 pi i m2 k1 / N}"));
  if (!single) body.push_back(stepDecl());
  auto outDecl = [&] {
    return decl(fmt::format("{}* const", s.scratchElement()), "out",
                bin("+", var("scratch"),
                    bin("+", bin("*", bin("*", cast("long long", var("sb")), lit(S)), lit(N)),
                        bin("+", bin("*", var("m1"), lit(g.n2)), var("m2")))));
  };
  if (!single) body.push_back(outDecl());

  // One loop trip: max(T, H) spectra (the slots' indices are compile-time constants), in batches of H: the FIR of the
  // batch, then its column FFTs and store. `batchBase` is the batch's first spectrum (base, or `sub` past the first
  // batch of a split chunk).
  std::vector<NodePtr> chunk;
  auto appendBatch = [&](std::vector<NodePtr>& chunk, int i0, const char* batchBase) {
    chunk.push_back(comment(
        H >= T
            ? fmt::format("FIR of up to {} spectra: y[pos] = sum_j w[j][pos] x[(spectrum + j) {} + pos]", H, L)
            : fmt::format("FIR of spectra {} .. {} of the chunk: y[pos] = sum_j w[j][pos] x[(spectrum + j) {} + pos]",
                          i0, i0 + H - 1, L)));
    if (rowPointer) chunk.push_back(rowDecl("base"));
    for (int i = i0; i < i0 + H; ++i) {
      std::vector<NodePtr> one;
      const int slot = (i + T - 1) % T;
      one.push_back(loadSlot(bin("+", var("base"), lit(i + T - 1)), slot, i + T - 1));
      for (int part = 0; part < parts; ++part) {
        NodePtr acc = bin("*", weight(part, 0), var(xs(part, i % T)));
        for (int j = 1; j < T; ++j) acc = bin("+", acc, bin("*", weight(part, j), var(xs(part, (i + j) % T))));
        one.push_back(decl("const float", fmt::format("y{}", part), acc));
      }
      if (constSlots)
        one.push_back(
            assign(index(var("fbuf0"), bin("+", bin("*", lit(2), pfb::slotOfBase("ps", (i - i0) * PA)), var("pb"))),
                   var("y0")));
      else if (single)
        one.push_back(assign(
            index(var("fbuf0"),
                  bin("+",
                      bin("*", lit(2), call(slotFn, {bin("+", lit(static_cast<long long>(i - i0) * PA), var("pt"))})),
                      bin("&", var("t"), lit(1)))),
            var("y0")));
      else
        one.push_back(
            assign(index(var("buf0"), call(slotFn, {bin("+", lit(static_cast<long long>(i - i0) * PA), var("t"))})),
                   call("make_float2", {var("y0"), var("y1")})));
      if (fullChunks) chunk.push_back(block(one));
      else chunk.push_back(ifStmt(bin("<", bin("+", var("base"), lit(i)), var("end")), block(one)));
    }
    chunk.push_back(
        decl("const int", "count", fullChunks ? lit(H) : call("min", {lit(H), bin("-", var("end"), var(batchBase))})));
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
      // Previous: a thread stores its point of each spectrum i. Current: element e = t + m threads of the chunk's
      // spectra x points, spectrum i = e / points, point t % points (the same for every m: the thread's m1, m2, step).
      std::vector<NodePtr> st;
      if (single) st.push_back(decl("const int", "i", bin("/", var("e"), lit(PA))));
      st.push_back(
          decl("const float2", "v",
               index(var(fin), call(slotFn, {single ? var("e") : bin("+", bin("*", var("i"), lit(PA)), var("t"))}))));
      st.push_back(assign(index(var("out"), bin("*", cast("long long", bin("+", var(batchBase), var("i"))), lit(N))),
                          call(scratchPack,
                               {bin("-", bin("*", var("v.x"), var("step.x")), bin("*", var("v.y"), var("step.y"))),
                                bin("+", bin("*", var("v.x"), var("step.y")), bin("*", var("v.y"), var("step.x")))})));
      chunk.push_back(comment("store Y[k1][m2] of each spectrum: runs of the block's columns, contiguous"));
      if (single) {
        chunk.push_back(comment("the point this thread stores: point t % points of the block (row m1, column m2)"));
        chunk.push_back(decl("const int", "m1", bin("/", bin("%", var("t"), lit(PA)), lit(C))));
        chunk.push_back(
            decl("const int", "m2", bin("+", bin("*", var("(int)group"), lit(C)), bin("%", var("t"), lit(C)))));
        chunk.push_back(stepDecl());
        chunk.push_back(outDecl());
      }
      // Not unrolled: the unrolled loads would need registers the FIR's window and weights hold.
      if (single && !storePointers) chunk.push_back(raw("#pragma unroll 1"));
      if (storePointers) {
        chunk.push_back(decl("const float2*", "from", bin("+", var(fin), var("ts"))));
        chunk.push_back(
            decl(fmt::format("{}*", s.scratchElement()), "to",
                 bin("+", var("out"),
                     bin("*", cast("long long", bin("+", var(batchBase), bin("/", var("t"), lit(PA)))), lit(N)))));
        std::vector<NodePtr> cs;
        cs.push_back(decl("const float2", "v", unary("*", var("from"))));
        cs.push_back(
            assign(unary("*", var("to")),
                   call(scratchPack,
                        {bin("-", bin("*", var("v.x"), var("step.x")), bin("*", var("v.y"), var("step.y"))),
                         bin("+", bin("*", var("v.x"), var("step.y")), bin("*", var("v.y"), var("step.x")))})));
        cs.push_back(assign(var("from"), lit(TA), "+="));
        cs.push_back(assign(var("to"), lit(2 * N), "+="));
        chunk.push_back(raw("#pragma unroll 1"));
        chunk.push_back(forLoop(decl("int", "e", var("t")), bin("<", var("e"), bin("*", var("count"), lit(PA))),
                                assign(var("e"), lit(TA), "+="), block(cs)));
      } else if (single)
        chunk.push_back(forLoop(decl("int", "e", var("t")), bin("<", var("e"), bin("*", var("count"), lit(PA))),
                                assign(var("e"), lit(TA), "+="), block(st)));
      else
        chunk.push_back(forLoop(decl("int", "i", lit(0)), bin("<", var("i"), var("count")),
                                assign(var("i"), lit(1), "+="), block(st)));
    }
    // The next chunk's FIR writes buf0: wait for this chunk's readers of buf0 (the store, when the passes end there).
    if (fin == "buf0") chunk.push_back(exprStmt(call("__syncthreads", {})));
  };
  const int period = std::max(T, H);  // the loop's trip: whole window rotations and whole batches
  if (H == period) appendBatch(chunk, 0, "base");
  else
    for (int i0 = 0; i0 < period; i0 += H) {
      std::vector<NodePtr> batch;
      batch.push_back(decl("const int", "sub", bin("+", var("base"), lit(i0))));
      appendBatch(batch, i0, "sub");
      chunk.push_back(block(batch));
    }
  body.push_back(forLoop(decl("int", "base", var("first")), bin("<", var("base"), var("end")),
                         assign(var("base"), lit(period), "+="), block(chunk)));

  // Two blocks per SM (at most 128 registers, 64 at 512 threads) while the weight and window registers leave room,
  // or the weights are in shared memory where the SM's shared memory holds two such blocks (sm_90's 227 KiB; an
  // sm_80 / sm_86 / sm_89 SM holds one of 512 threads, and its 64-register cap would only spill).
  const std::string minBlocks = sharedWeights ? "PFB_FIR_MIN_BLOCKS" : T <= 16 ? "2" : "1";
  const std::string archBlocks = sharedWeights ? "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n#define "
                                                 "PFB_FIR_MIN_BLOCKS 2\n#else\n"
                                                 "#define PFB_FIR_MIN_BLOCKS 1\n#endif\n"
                                               : "";
  NodePtr fn = function(fmt::format("extern \"C\" __global__ void __launch_bounds__({}, {})", TA, minBlocks), "", name,
                        {decl("const unsigned char* __restrict__", "input"),
                         decl("const float* __restrict__", "weights"), decl("const float2* __restrict__", "twiddles"),
                         decl(fmt::format("{}* __restrict__", s.scratchElement()), "scratch")},
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
         (s.halfScratch ? "#include <cuda_fp16.h>\n" : "") + (single ? sampleHelper(s) : samplePairHelper(s)) +
         pfb::slotHelper(g.previous) + archBlocks + print(foldConstants(fn));
}

}  // namespace warpforge
