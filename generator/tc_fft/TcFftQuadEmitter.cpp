#include "generator/tc_fft/TcFftQuadEmitter.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "ast/Printer.h"
#include "generator/tc_fft/PhasePlan.h"
#include "generator/tc_fft/Synthesizer.h"
#include "generator/tc_fft/TcFftData.h"
#include "generator/tc_fft/TcFftIo.h"
#include "generator/tc_fft/TcFftKernelParts.h"
#include "generator/tc_fft/TcFftQuadHalfPass.h"
#include "generator/verify/Verifier.h"

namespace warpforge {

using namespace ast;
using namespace tcfft_detail;

namespace {
constexpr int kSeg = 1024;        // one warp's segment y_p (then X_p) of the buffer
constexpr int kFftThreads = 128;  // four warps per FFT

// The kernel's own helpers, written into its source after the includes (no other kernel uses them).
const char* kQuadHelpers = R"(
// (The pass fused into the load) y_p[m] = W^(p m) (x[m] + W4^p x[m + 1024]) in f32, rounded to f16 once; p = 0
// takes no twiddle (the table is then not read). The twiddle's cos and sin are words `at` of the warp's rows of two
// tables kept in the data's swizzled arrangement: spread as the data's 16-byte reads are, but as single words they
// share the low two word bits across the lanes (8 banks: up to 4 ways; the linear float2 table met one bank 8-16
// times).
__device__ __forceinline__ wf_u32 wf_dif2_word(wf_u32 lo, wf_u32 hi, float2 w4, int part, const float* tw_cos,
                                               const float* tw_sin, int at) {
  const float2 a = __half22float2(wf_as_h2(lo)), b = __half22float2(wf_as_h2(hi));
  const float yr = a.x + w4.x * b.x - w4.y * b.y, yi = a.y + w4.x * b.y + w4.y * b.x;
  if (part == 0) return wf_pack(yr, yi);
  const float tr = tw_cos[at], ti = tw_sin[at];
  return wf_pack(yr * tr - yi * ti, yr * ti + yi * tr);
}
// One point m of the decimation in frequency, in f32, in place: x_j = x[m + 1024 j] (j < kJ) read from word `word`
// of segment j (kSeg words apart), y_p = sum_j x_j W4^(p j) (W4 = kSign i; kJ = 1: y_p = x_0), then y_p t^p with
// t = W^m (t^2, t^3 as products), each rounded to f16 once and written to word `word` of segment p. The thread reads
// and writes only these words, so no other thread's inputs are overwritten.
template <int kJ, int kSign, int kSeg>
__device__ __forceinline__ void wf_dif4_point(wf_u32* stage, int word, float tr, float ti) {
  float2 v[4];
#pragma unroll
  for (int j = 0; j < kJ; ++j) v[j] = __half22float2(wf_as_h2(stage[j * kSeg + word]));
  float2 a = v[0], b = v[0], c = v[0], d = v[0];
  if (kJ >= 2) c = v[1], d = v[1];
  if (kJ == 4) {
    a = make_float2(v[0].x + v[2].x, v[0].y + v[2].y), b = make_float2(v[0].x - v[2].x, v[0].y - v[2].y);
    c = make_float2(v[1].x + v[3].x, v[1].y + v[3].y), d = make_float2(v[1].x - v[3].x, v[1].y - v[3].y);
  }
  const float2 wd = make_float2(-kSign * d.y, kSign * d.x);  // W4 d
  const float2 y0 = kJ == 1 ? a : make_float2(a.x + c.x, a.y + c.y);
  const float2 y1 = kJ == 1 ? a : make_float2(b.x + wd.x, b.y + wd.y);
  const float2 y2 = kJ == 1 ? a : make_float2(a.x - c.x, a.y - c.y);
  const float2 y3 = kJ == 1 ? a : make_float2(b.x - wd.x, b.y - wd.y);
  const float t2r = tr * tr - ti * ti, t2i = 2.0f * tr * ti;
  const float t3r = t2r * tr - t2i * ti, t3i = t2r * ti + t2i * tr;
  if (kJ > 1) stage[word] = wf_pack(y0.x, y0.y);  // kJ = 1: y_0 = x_0, already there
  stage[kSeg + word] = wf_pack(y1.x * tr - y1.y * ti, y1.x * ti + y1.y * tr);
  stage[2 * kSeg + word] = wf_pack(y2.x * t2r - y2.y * t2i, y2.x * t2i + y2.y * t2r);
  stage[3 * kSeg + word] = wf_pack(y3.x * t3r - y3.y * t3i, y3.x * t3i + y3.y * t3r);
}
// Shared -> global of the four warps' outputs: row chunk c (X[4 c .. 4 c + 3]) is word c of the four segments (kSeg
// words apart, each arranged by Swizzle as the quarter design's output slice), one 16-byte vector; u is the thread's
// index among the FFT's 128 threads. kStreaming: the output is written once (st.global.cs).
template <int kWords, int kSeg, bool kStreaming, class Swizzle>
__device__ __forceinline__ void wf_store_interleaved4(wf_u32* __restrict__ dst, const wf_u32* __restrict__ stage,
                                                      int u) {
#pragma unroll
  for (int i = 0; i < kWords / 4; i += 128) {
    const int c = i + u, w = 4 * Swizzle::chunk(c >> 2) + (c & 3);
    const uint4 v = make_uint4(stage[w], stage[kSeg + w], stage[2 * kSeg + w], stage[3 * kSeg + w]);
    uint4* p = reinterpret_cast<uint4*>(dst) + c;
    if (kStreaming) __stcs(p, v);
    else *p = v;
  }
}
)";

}  // namespace

bool tcFftQuadApplies(const LayoutProgram& s) {
  return s.nOut == kRowPoints && s.batchBits() == 0 && s.nIn >= 512 && s.nIn <= kRowPoints &&
         (s.nIn & (s.nIn - 1)) == 0 && s.accumulate != "f32";
}

std::unique_ptr<TcFftQuadDesign> tcFftQuadDesign(const LayoutProgram& s) {
  TcFftRequest r;
  r.file = s.file;
  r.name = s.name + "_quarter";
  r.description = "one quarter of a four-warp 4096-point FFT (decimation in frequency)";
  r.precision = s.precision;
  r.nIn = std::min(s.nIn, kSeg);
  r.nOut = kSeg;
  r.sign = s.sign;
  auto d = std::make_unique<TcFftQuadDesign>();
  d->sub = synthesizeTcFft(r).program;
  d->plan = Verifier().verify(d->sub);
  return d;
}

double tcFftQuadErrorBound(const TcFftQuadDesign& d) {
  // Normwise, relative to ||X||. Warp p's input is y_p rounded to f16 (u = 2^-11 per component: ||dy_p|| <= u ||y_p||,
  // after f32 sums and twiddles whose own error is below 2^-20 relative); a 1024-point DFT scales every norm by 32, so
  // X_p carries u ||X_p|| from the rounding plus b ||X_p|| from the design (b = tcFftErrorBound of the quarter design).
  // The X_p are disjoint parts of X, so the squared errors add: ||e||^2 <= (b + u + 2^-20)^2 sum_p ||X_p||^2.
  return tcFftErrorBound(d.sub) + std::ldexp(1.0, -11) + std::ldexp(1.0, -20);
}

std::vector<std::pair<std::string, TcFftQuadOptions>> tcFftQuadBenchOptions(const LayoutProgram& spec) {
  // sm_90, NVRTC 13: two FFTs per block take 123-128 registers without spills at every n_in (2 blocks of 256 threads
  // per SM: 16 warps); one FFT per block takes as many but spills 4 bytes at 512 -> 4096 (4 blocks: 16 warps); the cap
  // of 5 blocks of 128 threads (20 warps) holds 96 and spills 44-64 bytes. The f16x2 pass (n_in >= 2048) takes 123-128
  // without spills and 24 KiB of table instead of 8: the same blocks per SM (one FFT per block: 4 x 57 KiB, the SM's
  // whole shared memory).
  TcFftQuadOptions twoF32, oneF32, capped, twoHalf, oneHalf;
  oneF32.fftsPerBlock = capped.fftsPerBlock = oneHalf.fftsPerBlock = 1;
  capped.minBlocksPerSm = 5;
  capped.blockBarrier = true;  // else ptxas reserves every barrier of the block: 4 blocks per SM
  twoHalf.halfPass = oneHalf.halfPass = true;
  std::vector<std::pair<std::string, TcFftQuadOptions>> out = {
      {"four warps per FFT (decimation in frequency), two FFTs per block", twoF32},
      {"four warps per FFT, one FFT per block", oneF32},
      {"four warps per FFT, one FFT per block, __launch_bounds__(128, 5): 20 warps per SM", capped}};
  if (tcFftQuadHalfPassApplies(spec)) {
    out.push_back({"four warps per FFT, pass in f16x2, two FFTs per block", twoHalf});
    out.push_back({"four warps per FFT, pass in f16x2, one FFT per block", oneHalf});
  }
  // 20 warps per SM without spills: 28 of the quarter design's 36 phase registers in a shared table read at use (the
  // budget of 40 = 32 data + 8 held phase registers: 91-93 registers; 3.5 KiB of table, 5 blocks fit the SM's shared
  // memory). The budgets 32, 48 and 56 spilled 8-48 bytes under the same cap.
  TcFftQuadOptions tabled = capped;
  tabled.phaseBudget = 40;
  out.push_back(
      {"four warps per FFT, one FFT per block, 28 phase registers in a shared table, "
       "__launch_bounds__(128, 5): 20 warps per SM",
       tabled});
  // At n_in = 2048 one FFT per block was faster than two in every H200 run (bench/RESULTS.md); at 4096 the options
  // were level within the runs' spread, and the f32 pass is the more accurate.
  if (spec.nIn == 2048) std::swap(out[0], out[1]);
  // The default's copy schedule varied: the next row issued before this row's wait (a barrier more; level to 3.1 %
  // slower than the default on an H200, docs/tc_fft.md), and the L2 prefetch hint (within 1 %; with the f16x2 pass
  // where that applies).
  const auto [baseName, base] = out[0];
  TcFftQuadOptions issueFirst = base, prefetch = base;
  issueFirst.waitThenIssue = false;
  prefetch.l2Prefetch = true;
  out.push_back({baseName + ", the next row issued before this row's wait (a barrier more)", issueFirst});
  // The phases held unpacked (no per-operand unpacking or negation in the row loop), registers capped at the default's
  // blocks per SM (16 warps).
  TcFftQuadOptions unpacked = base;
  unpacked.unpackedPhases = true;
  unpacked.minBlocksPerSm = base.fftsPerBlock == 2 ? 2 : 4;
  out.push_back({baseName + ", phases held unpacked, registers capped at 16 warps per SM", unpacked});
  // Each warp forms its own y_p from the row's two segments at its load (n_in = 2048: the pass was 8 % of the row).
  if (spec.nIn == 2 * kSeg) {
    TcFftQuadOptions fused = base;
    fused.fusedPass = true;
    fused.halfPass = false;
    fused.minBlocksPerSm = base.fftsPerBlock == 2 ? 2 : 4;  // the default's 16 warps per SM (155 registers uncapped)
    out.push_back({baseName + ", each warp forms its own y_p at its load (no pass writes, one barrier less)", fused});
    // (capped at 16 warps per SM it spills 64 bytes on sm_90; uncapped it holds 155 registers: 12 warps per SM)
    fused.minBlocksPerSm = 0;
    out.push_back({baseName + ", each warp forms its own y_p at its load, registers uncapped", fused});
  }
  out.push_back({baseName + ", copies with the 256-byte L2 prefetch hint", prefetch});
  if (tcFftQuadHalfPassApplies(spec)) {
    TcFftQuadOptions halfPrefetch = prefetch;
    halfPrefetch.halfPass = true;
    out.push_back({baseName + ", pass in f16x2, copies with the L2 prefetch hint", halfPrefetch});
  }
  return out;
}

EmittedKernel emitTcFftQuad(const LayoutProgram& spec, const TcFftQuadDesign& d, const EmitOptions& opt,
                            const TcFftQuadOptions& quadOpt) {
  const LayoutProgram& s = d.sub;
  EmittedKernel k;
  const bool packed = opt.packedPhases && !quadOpt.unpackedPhases;
  PhasePlan phases(s, packed, quadOpt.phaseBudget);
  k.phaseRegisters = phases.registersHeld();
  k.phaseRegistersNaive = phases.registersNaive();

  const int ffts = quadOpt.fftsPerBlock;
  const bool half = quadOpt.halfPass;
  if (half && !tcFftQuadHalfPassApplies(spec)) throw std::invalid_argument("the f16x2 pass needs n_in >= 2048");
  const bool fused = quadOpt.fusedPass;
  if (fused && (half || spec.nIn != 2 * kSeg))
    throw std::invalid_argument("the pass fused into the load needs n_in = 2048 and the f32 pass");
  LaunchInfo& li = k.launch;
  li.specName = spec.name;
  li.kernelName = spec.name;
  li.blockThreads = kFftThreads * ffts;
  li.fftsPerBlock = ffts;
  li.minBlocksPerSm = quadOpt.minBlocksPerSm;
  li.nIn = spec.nIn;
  li.nOut = kRowPoints;
  li.inputVectorElems = li.outputVectorElems = 4;  // 16-byte row copies
  const int words = 2 * kRowPoints;                // an FFT's two row buffers
  const int twiddles = std::min(spec.nIn, kSeg);   // W^m, m < min(n_in, 1024), float2 each
  li.dynamicSharedBytes = 4 * words * ffts + (half ? kTcFftQuadHalfTwiddleBytes : fused ? 8 * 3 * kSeg : 8 * twiddles);

  const Layout& inL = s.array(s.input)->layout;
  const Layout& outL = s.array(s.output)->layout;
  const IoPlan inP = ioPlan(inL, 'n', s.logIn, 0);
  const IoPlan outP = ioPlan(outL, 'q', s.logOut, 0);
  const StageSwizzle inSwz = opt.swizzledStage ? stageSwizzle(inL, inP) : StageSwizzle{};
  const StageSwizzle outSwz = opt.swizzledStage ? stageSwizzle(outL, outP) : StageSwizzle{};
  const int terms = std::max(1, spec.nIn / kSeg);             // J: the x[m + 1024 j] that are not zero padding
  const int points = std::min(spec.nIn, kSeg) / kFftThreads;  // the m each thread forms y_p at

  auto threadX = [] { return member(var("threadIdx"), "x"); };
  std::vector<NodePtr> body;
  body.push_back(decl("const int", "lane", bin("&", threadX(), lit(31))));
  body.push_back(note("The FFT's warp p: it transforms y_p and produces the outputs X[4 k + p]."));
  body.push_back(decl("const int", "part", bin("&", bin(">>", threadX(), lit(5)), lit(3))));
  body.push_back(decl("const int", "fft_thread", bin("&", threadX(), lit(kFftThreads - 1))));
  if (quadOpt.blockBarrier && ffts != 1) throw std::invalid_argument("a block barrier per FFT needs one FFT per block");
  if (!quadOpt.blockBarrier) {
    body.push_back(note("Named barrier of the FFT's 128 threads (0 is __syncthreads)."));
    body.push_back(decl("const int", "fft_barrier", bin("+", lit(1), bin(">>", threadX(), lit(7)))));
  }
  body.push_back(decl(
      "const long long", "first_fft",
      bin(">>",
          bin("+", bin("*", cast("long long", member(var("blockIdx"), "x")), member(var("blockDim"), "x")), threadX()),
          lit(7))));
  body.push_back(
      decl("const long long", "fft_stride",
           bin(">>", bin("*", cast("long long", member(var("gridDim"), "x")), member(var("blockDim"), "x")), lit(7))));
  body.push_back(note(
      fmt::format("Phase registers of the {}-point quarter design, computed once per thread ({} held; {} before "
                  "sharing{}{}).",
                  kSeg, k.phaseRegisters, k.phaseRegistersNaive, packed ? "; stored forms kept packed" : "",
                  phases.registersTabled() ? fmt::format("; {} more in a shared table, read at use (register budget)",
                                                         phases.registersTabled())
                                           : "")));
  for (auto& n : phases.prologue()) body.push_back(n);
  body.push_back(
      note("Element offsets of the lane bits in warp p's segment (words 1024 p ..): its input y_p[m] and its\n"
           "output X_p[k] = X[4 k + p], each segment's 16-byte chunks arranged so that the register accesses of one\n"
           "phase spread over the banks (wf_swizzle)."));
  body.push_back(
      decl("const int", "in_stage_offset", bin("+", inSwz.wordExpr(inP.laneOffset), bin("*", var("part"), lit(kSeg)))));
  body.push_back(decl("const int", "out_stage_offset",
                      bin("+", outSwz.wordExpr(outP.laneOffset), bin("*", var("part"), lit(kSeg)))));
  const std::string valid = declarePaddingLanes(body, inP, s.nIn);
  body.push_back(
      note(fmt::format("The pass forms y_p[m] at m = u + 128 i (i < {}), written to word m of each segment as\n"
                       "arranged: the word of u, then the constant's bits (the arrangement is linear). Its twiddle\n"
                       "W^m comes from the block's table (a product here would be hoisted out of the loop, held in\n"
                       "registers).",
                       points)));
  body.push_back(decl("const int", "dif_word", inSwz.wordExpr(var("fft_thread"))));
  if (fused) {
    body.push_back(
        note("(fused pass) warp p's words of segments 0 and 1, W4^p = (sign i)^p, and its row of the table at\n"
             "this lane's m (entries m_lane + the register's constant; unused for p = 0)."));
    body.push_back(decl("const int", "in_seg0_offset", inSwz.wordExpr(inP.laneOffset)));
    body.push_back(decl("const int", "in_seg1_offset", bin("+", var("in_seg0_offset"), lit(kSeg))));
    body.push_back(
        raw(fmt::format("const float2 w4 = (part & 1) ? make_float2(0.0f, (part & 2) ? {}.0f : {}.0f) : "
                        "make_float2((part & 2) ? -1.0f : 1.0f, 0.0f);",
                        -spec.sign, spec.sign)));
  }
  body.push_back(note(
      fmt::format("Per FFT two row buffers of {} bytes (dynamic shared memory, {} bytes per block): cp.async "
                  "fills one with the\n"
                  "next FFT's row (warp p its segment p of 1024 words) while this FFT is transformed in the other.",
                  4 * kRowPoints, li.dynamicSharedBytes)));
  body.push_back(externSharedArray("wf_u32", "stage_dynamic", 16));
  body.push_back(
      decl("wf_u32*", "stage_fft", bin("+", var("stage_dynamic"), bin("*", bin(">>", threadX(), lit(7)), lit(words)))));
  if (half) {
    body.push_back(
        note("The block's table of the pass's twiddles W^m, W^(2m), W^(3m) (m < 1024) in half2, after the FFTs' row\n"
             "buffers: (cos, cos) and (-sin, sin) per entry, the operands of one HMUL2 and one HFMA2."));
    body.push_back(
        decl("uint2* const", "wf_twiddle_h2", cast("uint2*", bin("+", var("stage_dynamic"), lit(words * ffts)))));
    body.push_back(exprStmt(call(fmt::format("wf_dif4_twiddles_h2<{}, {}, {}>", spec.sign, kSeg, kRowPoints),
                                 {var("wf_twiddle_h2"), threadX(), member(var("blockDim"), "x")})));
  } else {
    body.push_back(
        note(fmt::format("The block's table of the pass's twiddles W^m (m < {}), after the FFTs' row buffers: one "
                         "sincospif each.",
                         twiddles)));
    body.push_back(
        decl("float2* const", "wf_twiddle", cast("float2*", bin("+", var("stage_dynamic"), lit(words * ffts)))));
  }
  if (fused) {
    body.push_back(
        note("(fused pass) two tables, cos and sin of W^(p m) for p = 1, 2, 3: row p - 1, word m arranged\n"
             "as the data's (the input swizzle), one sincospif each."));
    body.push_back(decl("float* const", "wf_tw_cos", cast("float*", var("wf_twiddle"))));
    body.push_back(decl("float* const", "wf_tw_sin", bin("+", var("wf_tw_cos"), lit(3 * kSeg))));
    std::vector<NodePtr> fill;
    fill.push_back(declGroup("float", {{"c", nullptr}, {"s", nullptr}}));
    fill.push_back(exprStmt(
        call("wf_phase", {bin("*", bin("+", bin(">>", var("e"), lit(10)), lit(1)), bin("&", var("e"), lit(kSeg - 1))),
                          lit(kRowPoints), lit(spec.sign), var("c"), var("s")})));
    fill.push_back(decl("const int", "at",
                        bin("+", bin("*", bin(">>", var("e"), lit(10)), lit(kSeg)),
                            inSwz.wordExpr(bin("&", var("e"), lit(kSeg - 1))))));
    fill.push_back(assign(index(var("wf_tw_cos"), var("at")), var("c")));
    fill.push_back(assign(index(var("wf_tw_sin"), var("at")), var("s")));
    body.push_back(forLoop(decl("int", "e", threadX()), bin("<", var("e"), lit(3 * kSeg)),
                           assign(var("e"), member(var("blockDim"), "x"), "+="), block(fill)));
  } else if (!half) {
    std::vector<NodePtr> fill;
    fill.push_back(declGroup("float", {{"c", nullptr}, {"s", nullptr}}));
    fill.push_back(exprStmt(call("wf_phase", {var("m"), lit(kRowPoints), lit(spec.sign), var("c"), var("s")})));
    fill.push_back(assign(index(var("wf_twiddle"), var("m")), call("make_float2", {var("c"), var("s")})));
    body.push_back(forLoop(decl("int", "m", threadX()), bin("<", var("m"), lit(twiddles)),
                           assign(var("m"), member(var("blockDim"), "x"), "+="), block(fill)));
  }
  body.push_back(exprStmt(call("__syncthreads", {})));
  if (fused) body.push_back(decl("const int", "tw_row", bin("*", bin("-", var("part"), lit(1)), lit(kSeg))));
  // The row is copied segment by segment (1024 words, or the whole row where shorter), each arranged by the quarter
  // design's input swizzle, so that x[m + 1024 j] lies at word m of segment j as the pass reads it: warp p copies
  // segment p (warps past the row's segments copy nothing).
  const int copyWords = std::min(spec.nIn, kSeg);
  auto issue = [&](NodePtr which, NodePtr buffer) {
    NodePtr src = bin("+", cast("const wf_u32*", bin("+", var("input"), bin("*", which, var("input_distance")))),
                      bin("*", var("part"), lit(kSeg)));
    // (The prefetch hint takes the swizzled helper, with the identity arrangement where the stage is not swizzled.)
    const std::string arrangement = inSwz.empty() ? "wf_swizzle<-1, -1, -1, -1, -1, -1>" : inSwz.helperType();
    const std::string copy = inSwz.empty() && !quadOpt.l2Prefetch
                                 ? fmt::format("wf_warp_load16_async<{}>", copyWords)
                                 : fmt::format("wf_warp_load16_async_swizzled<{}, {}{}>", copyWords, arrangement,
                                               quadOpt.l2Prefetch ? ", true" : "");
    return exprStmt(call(copy, {bin("+", buffer, bin("*", var("part"), lit(kSeg))), src, var("lane")}));
  };
  auto copies = [&] { return bin("<", var("part"), lit(terms)); };
  auto fftSync = [&] {
    return quadOpt.blockBarrier ? exprStmt(call("__syncthreads", {}))
                                : exprStmt(call("wf_named_barrier<128>", {var("fft_barrier")}));
  };
  body.push_back(ifStmt(bin("&&", bin("<", var("first_fft"), var("batch")), copies()),
                        block({issue(var("first_fft"), var("stage_fft"))})));
  body.push_back(exprStmt(call("wf_cp_async_commit", {})));
  body.push_back(decl("int", "buf", lit(0)));

  std::vector<NodePtr> loop;
  loop.push_back(
      decl("wf_u32*", "y_ptr", cast("wf_u32*", bin("+", var("output"), bin("*", var("fft"), var("output_distance"))))));
  loop.push_back(decl("wf_u32* const", "stage", bin("+", var("stage_fft"), bin("*", var("buf"), lit(kRowPoints)))));
  for (const auto& a : s.arrays)
    if (!a.isPhase()) loop.push_back(declArray("wf_u32", dataVar(a.name), a.layout.numRegisters()));
  auto issueNext = [&] {
    loop.push_back(decl("const long long", "next_fft", bin("+", var("fft"), var("fft_stride"))));
    loop.push_back(
        ifStmt(bin("&&", bin("<", var("next_fft"), var("batch")), copies()),
               block({issue(var("next_fft"),
                            bin("+", var("stage_fft"), bin("*", bin("^", var("buf"), lit(1)), lit(kRowPoints))))})));
    loop.push_back(exprStmt(call("wf_cp_async_commit", {})));
  };
  if (quadOpt.waitThenIssue) {
    loop.push_back(
        note("This row's copies (the only ones in flight) land; after the barrier every quarter has landed\n"
             "and the FFT has stored the previous row from the other buffer, so the next row goes there."));
    loop.push_back(exprStmt(call("wf_cp_async_wait<0>", {})));
    loop.push_back(fftSync());
    issueNext();
  } else {
    loop.push_back(note("The FFT has stored the previous row from the other buffer; its next row goes there."));
    loop.push_back(fftSync());
    issueNext();
    loop.push_back(exprStmt(call("wf_cp_async_wait<1>", {})));
    loop.push_back(fftSync());  // every quarter of this row has landed
  }
  if (!fused)
    loop.push_back(
        note(fmt::format("The pass, in place: y_p[m] to word m of segment p from x[m + 1024 j] at word m of segment j "
                         "(j < {}).",
                         terms)));
  for (int i = 0; i < (fused ? 0 : points); ++i) {
    NodePtr t = index(var("wf_twiddle"), bin("+", var("fft_thread"), lit(kFftThreads * i)));
    NodePtr tr = member(t, "x"), ti = member(t, "y");
    // The constant's bits above the thread's (bits 0..6 and the swizzle's targets) are added: an immediate.
    const long long word = inSwz.word(kFftThreads * i), low = word & (inSwz.laneMask | (kFftThreads - 1));
    NodePtr at = i ? bin("+", low ? bin("^", var("dif_word"), lit(low)) : var("dif_word"), lit(word - low))
                   : var("dif_word");
    if (half)
      loop.push_back(exprStmt(call(fmt::format("wf_dif4_point_h2<{}, {}, {}>", terms, spec.sign, kSeg),
                                   {var("stage"), at,
                                    bin("+", var("wf_twiddle_h2"),
                                        i ? bin("+", var("fft_thread"), lit(kFftThreads * i)) : var("fft_thread"))})));
    else
      loop.push_back(
          exprStmt(call(fmt::format("wf_dif4_point<{}, {}, {}>", terms, spec.sign, kSeg), {var("stage"), at, tr, ti})));
  }
  if (fused) {
    // Warp p reads x[m] and x[m + 1024] where it would read y_p[m] (the same arranged word of segments 0 and 1) and
    // forms y_p[m] = W^(p m) (x[m] + W4^p x[m + 1024]) in f32, rounded to f16 once, as the pass does.
    loop.push_back(
        note(fmt::format("Form {} [{}] from segments 0 and 1 (each warp its own y_p).", s.input, inL.str())));
    const int regs = inL.numRegisters();
    loop.push_back(declArray("wf_u32", "x_hi", regs));
    // (each segment's loads in a scope of their own: their vector temporaries share names; x[m] goes straight into
    // the data registers, which y_p[m] then replaces)
    loop.push_back(
        block(swizzledRegisterAccess(inL, inP, inSwz, dataVar(s.input), "stage", "in_seg0_offset", true, valid)));
    loop.push_back(block(swizzledRegisterAccess(inL, inP, inSwz, "x_hi", "stage", "in_seg1_offset", true, valid)));
    for (int r = 0; r < regs; ++r) {
      const long long m = ioRegisterOffset(inL, inP, r);
      if (m < 0) {
        loop.push_back(assign(index(var(dataVar(s.input)), lit(r)), lit(0)));
        continue;
      }
      // The table word of m = the lane's m + this register's: the swizzle is XOR-linear, so the lane's arranged
      // word (in_seg0_offset) XOR the constant's.
      const long long w = inSwz.word(m);
      loop.push_back(
          assign(index(var(dataVar(s.input)), lit(r)),
                 call("wf_dif2_word",
                      {index(var(dataVar(s.input)), lit(r)), index(var("x_hi"), lit(r)), var("w4"), var("part"),
                       bin("+", var("wf_tw_cos"), var("tw_row")), bin("+", var("wf_tw_sin"), var("tw_row")),
                       w ? bin("^", var("in_seg0_offset"), lit(w)) : var("in_seg0_offset")})));
    }
  } else {
    loop.push_back(fftSync());
    loop.push_back(note(fmt::format("Load {} [{}] from segment p.", s.input, inL.str())));
    for (auto& n : swizzledRegisterAccess(inL, inP, inSwz, dataVar(s.input), "stage", "in_stage_offset", true, valid))
      loop.push_back(n);
  }
  for (auto& n : stepsOrRepeats(d.plan, phases, opt)) loop.push_back(n);
  loop.push_back(note("Segment p is this warp's alone: its outputs overwrite its inputs once every lane has read."));
  loop.push_back(exprStmt(call("__syncwarp", {})));
  loop.push_back(note(fmt::format("Store {} [{}] to segment p: X[4 k + p] at word k.", s.output, outL.str())));
  for (auto& n : swizzledRegisterAccess(outL, outP, outSwz, dataVar(s.output), "stage", "out_stage_offset", false))
    loop.push_back(n);
  loop.push_back(fftSync());
  loop.push_back(note("Store the row: chunk c is word c of the four segments, 16-byte vectors."));
  loop.push_back(exprStmt(
      call(fmt::format("wf_store_interleaved4<{}, {}, {}, {}>", kRowPoints, kSeg, opt.streaming, outSwz.helperType()),
           {var("y_ptr"), var("stage"), var("fft_thread")})));
  loop.push_back(assign(var("buf"), lit(1), "^="));
  body.push_back(note("Grid-stride loop: one FFT per group of four warps per iteration."));
  body.push_back(forLoop(decl("long long", "fft", var("first_fft")), bin("<", var("fft"), var("batch")),
                         assign(var("fft"), var("fft_stride"), "+="), block(loop)));

  const std::string headline = fmt::format(
      "Generated by warpforge from spec '{}': {}-point input, {}-point output, {}, sign {:+d}.\n"
      "Four warps per FFT (decimation in frequency over q0 q1 = p): a pass in {} forms\n"
      "y_p[m] = W^(p m) sum_j x[m + 1024 j] W4^(p j); warp p transforms y_p with the verified {} -> {} design below\n"
      "and its outputs are X[4 k + p].",
      spec.name, spec.nIn, kRowPoints, spec.precision, spec.sign, half ? "f16x2" : "f32", s.nIn, kSeg);
  k.source = print(kernelUnit(d.plan, opt, li, block(body), headline));
  const std::string lastInclude = "#include \"warpforge_io.cuh\"\n";
  k.source.insert(k.source.find(lastInclude) + lastInclude.size(),
                  std::string(kQuadHelpers) + (half ? tcFftQuadHalfPassHelpers() : ""));
  return k;
}

}  // namespace warpforge
