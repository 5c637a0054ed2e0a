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
#include "generator/tc_fft/TcFftQuadTwist.h"
#include "generator/verify/Verifier.h"

namespace warpforge {

using namespace ast;
using namespace tcfft_detail;

namespace {
constexpr int kSeg = 1024;        // one warp's segment y_p (then X_p) of the buffer
constexpr int kFftThreads = 128;  // four warps per FFT

// The kernel's own helpers, written into its source after the includes (no other kernel uses them): the pass's, the
// folded kernel's sums, and the row's store.
const char* kPassHelpers = R"(
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
)";
const char* kFoldedHelpers = R"(
// (Twiddles folded into the phases) warp p's untwiddled y'_p[m] = sum_j x[m + 1024 j] W4^(p j) from the same word of
// segments j, in f16x2. W4^p v = (kSign i)^p v is a half swap (odd p) and sign flips, W4^(2p) v = (-1)^p v sign flips:
// exact, from p itself (a few integer operations the compiler may keep or redo: no registers held for them). One
// rounding per sum.
template <int kSign>
__device__ __forceinline__ wf_u32 wf_w4_power(wf_u32 v, int p) {
  const wf_u32 swapped = __byte_perm(v, 0u, 0x3210u ^ ((p & 1) * 0x2222u));
  // p = 1: kSign i v = (-kSign v.im, kSign v.re); p = 2: -v; p = 3: -kSign i v.
  const wf_u32 odd = ((p >> 1) ^ (kSign < 0)) ? 0x80000000u : 0x8000u;
  return swapped ^ ((p & 1) ? odd : (p & 2) ? 0x80008000u : 0u);
}
template <int kSign>
__device__ __forceinline__ wf_u32 wf_own_y2(wf_u32 x0, wf_u32 x1, int p) {
  return wf_as_u32(__hadd2(wf_as_h2(x0), wf_as_h2(wf_w4_power<kSign>(x1, p))));
}
template <int kSign>
__device__ __forceinline__ wf_u32 wf_own_y4(wf_u32 x0, wf_u32 x1, wf_u32 x2, wf_u32 x3, int p) {
  const wf_u32 parity = (p & 1) * 0x80008000u;
  const wf_u32 a = wf_as_u32(__hadd2(wf_as_h2(x0), wf_as_h2(x2 ^ parity)));  // x0 + W4^(2p) x2
  const wf_u32 b = wf_as_u32(__hadd2(wf_as_h2(x1), wf_as_h2(x3 ^ parity)));  // x1 + W4^(2p) x3
  return wf_as_u32(__hadd2(wf_as_h2(a), wf_as_h2(wf_w4_power<kSign>(b, p))));
}
)";
const char* kStoreHelpers = R"(
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

double tcFftQuadFoldedErrorBound(const TcFftQuadDesign& d, int terms) {
  // y'_p in f16x2 (u = 2^-11 per rounded component): radix 2 one rounded sum, e = u; radix 4 e = u (1 + sqrt(2)(1 + u))
  // (tcFftQuadHalfPassErrorBound's butterfly); J = 1 reads x as is, e = 0. The twiddles are the phases' own: rounded
  // to f16 with them, inside the quarter design's bound b. Normwise over all p together (radix 4's e holds for the sum
  // over p, as tcFftQuadHalfPassErrorBound's), relative to ||X||: b (1 + e) + e.
  const double u = std::ldexp(1.0, -11);
  const double e = terms == 4 ? u * (1 + std::sqrt(2.0) * (1 + u)) : terms == 2 ? u : 0.0;
  const double b = tcFftErrorBound(d.sub);
  return b * (1 + e) + e;
}

std::vector<std::pair<std::string, TcFftQuadOptions>> tcFftQuadBenchOptions(const LayoutProgram& spec) {
  // The default: twiddles folded into the phases, one FFT per block, registers uncapped. sm_90, NVRTC 13: 144-171
  // registers without spills (2 blocks of 4 warps per SM at n_in = 4096, 3 below); on an H200 it ran 1.04-1.06x cuFFT
  // at 4096 -> 4096 and 1.32-1.33x at 2048 -> 4096, against 0.98-1.00x and 1.11-1.16x for the f32 pass in the same
  // runs (bench/RESULTS.md). Capped at 16 warps per SM it spills 44-136 bytes and ran 0.93-0.94x cuFFT at 4096.
  TcFftQuadOptions folded, foldedTwo, foldedCapped, foldedAhead, twoF32, oneF32, twoHalf, oneHalf;
  twoF32.foldedTwiddles = oneF32.foldedTwiddles = twoHalf.foldedTwiddles = oneHalf.foldedTwiddles = false;
  foldedTwo.fftsPerBlock = twoF32.fftsPerBlock = twoHalf.fftsPerBlock = 2;
  foldedCapped.minBlocksPerSm = 4;
  foldedAhead.rowsAhead = 2;
  TcFftQuadOptions foldedDeferred = folded, foldedTwoDeferred = foldedTwo;
  foldedDeferred.deferredStore = foldedTwoDeferred.deferredStore = true;
  twoHalf.halfPass = oneHalf.halfPass = true;
  std::vector<std::pair<std::string, TcFftQuadOptions>> out = {
      {"four warps per FFT, twiddles folded into the phases, one FFT per block", folded},
      {"four warps per FFT, twiddles folded into the phases, two FFTs per block", foldedTwo},
      {"four warps per FFT, twiddles folded into the phases, one FFT per block, 16 warps per SM", foldedCapped},
      {"four warps per FFT, twiddles folded into the phases, one FFT per block, two rows ahead", foldedAhead},
      {"four warps per FFT, twiddles folded into the phases, one FFT per block, each row stored during the next",
       foldedDeferred},
      {"four warps per FFT, twiddles folded into the phases, two FFTs per block, each row stored during the next",
       foldedTwoDeferred},
      // The pass through shared memory (f32): the default before the fold.
      {"four warps per FFT, f32 pass in shared memory, two FFTs per block", twoF32},
      {"four warps per FFT, f32 pass in shared memory, one FFT per block", oneF32}};
  if (tcFftQuadHalfPassApplies(spec)) {
    out.push_back({"four warps per FFT, pass in f16x2, two FFTs per block", twoHalf});
    out.push_back({"four warps per FFT, pass in f16x2, one FFT per block", oneHalf});
  }
  return out;
}

EmittedKernel emitTcFftQuad(const LayoutProgram& spec, const TcFftQuadDesign& d, const EmitOptions& opt,
                            const TcFftQuadOptions& quadOpt) {
  const LayoutProgram& s = d.sub;
  EmittedKernel k;
  const bool packed = opt.packedPhases;
  const bool folded = quadOpt.foldedTwiddles;
  if (folded && quadOpt.halfPass) throw std::invalid_argument("folded twiddles take no pass");
  const int ahead = quadOpt.rowsAhead, inBuffers = ahead + 1;
  const bool deferred = quadOpt.deferredStore;
  if (deferred && !folded) throw std::invalid_argument("a deferred store needs the folded twiddles");
  const int outBuffers = folded ? (deferred ? 2 : 1) : 0;
  if (ahead < 1 || ahead > 2 || (ahead > 1 && !folded))
    throw std::invalid_argument("rows in flight per FFT: 1, or 2 with folded twiddles");
  const PhaseTwist twist = folded ? tcFftQuadTwist(s, packed) : PhaseTwist{};
  PhasePlan phases(s, packed, folded ? &twist : nullptr);
  k.phaseRegisters = phases.registersHeld();
  k.phaseRegistersNaive = phases.registersNaive();

  const int ffts = quadOpt.fftsPerBlock;
  const bool half = quadOpt.halfPass;
  if (half && !tcFftQuadHalfPassApplies(spec)) throw std::invalid_argument("the f16x2 pass needs n_in >= 2048");
  LaunchInfo& li = k.launch;
  li.specName = spec.name;
  li.kernelName = spec.name;
  li.blockThreads = kFftThreads * ffts;
  li.fftsPerBlock = ffts;
  li.minBlocksPerSm = quadOpt.minBlocksPerSm;
  li.nIn = spec.nIn;
  li.nOut = kRowPoints;
  li.inputVectorElems = li.outputVectorElems = 4;           // 16-byte row copies
  const int words = (inBuffers + outBuffers) * kRowPoints;  // an FFT's input row buffers and output ones
  const int twiddles = std::min(spec.nIn, kSeg);            // W^m, m < min(n_in, 1024), float2 each
  li.dynamicSharedBytes = 4 * words * ffts + (folded ? 0 : half ? kTcFftQuadHalfTwiddleBytes : 8 * twiddles);

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
  body.push_back(note("Named barrier of the FFT's 128 threads (0 is __syncthreads)."));
  body.push_back(decl("const int", "fft_barrier", bin("+", lit(1), bin(">>", threadX(), lit(7)))));
  body.push_back(decl(
      "const long long", "first_fft",
      bin(">>",
          bin("+", bin("*", cast("long long", member(var("blockIdx"), "x")), member(var("blockDim"), "x")), threadX()),
          lit(7))));
  body.push_back(
      decl("const long long", "fft_stride",
           bin(">>", bin("*", cast("long long", member(var("gridDim"), "x")), member(var("blockDim"), "x")), lit(7))));
  if (folded) {
    std::string where;
    for (const auto& [array, bits] : twist.bits)
      for (int b : bits) where += fmt::format("{}n{} in {}", where.empty() ? "" : ", ", b, array);
    body.push_back(
        note(fmt::format("Twiddles folded into the phases: warp p's phases carry W^(p m) = prod_k W^(p 2^k m_k), each "
                         "input\n"
                         "bit's factor in one phase operand ({}), so its design transforms the untwiddled y'_p.",
                         where)));
  }
  body.push_back(note(
      fmt::format("Phase registers of the {}-point quarter design, computed once per thread ({} held; {} before "
                  "sharing{}{}).",
                  kSeg, k.phaseRegisters, k.phaseRegistersNaive, packed ? "; stored forms kept packed" : "",
                  phases.registersTabled() ? fmt::format("; {} more in a shared table, read at use (register budget)",
                                                         phases.registersTabled())
                                           : "")));
  for (auto& n : phases.prologue()) body.push_back(n);
  if (folded) {
    body.push_back(
        note("Element offsets of the lane bits in segment 0 of the row (x[m + 1024 j] at word m of segment j) and\n"
             "in warp p's segment of the output buffer (X_p[k] = X[4 k + p]), each segment's 16-byte chunks\n"
             "arranged so that the register accesses of one phase spread over the banks (wf_swizzle)."));
    body.push_back(decl("const int", "in_stage_offset", inSwz.wordExpr(inP.laneOffset)));
  } else {
    body.push_back(
        note("Element offsets of the lane bits in warp p's segment (words 1024 p ..): its input y_p[m] and its\n"
             "output X_p[k] = X[4 k + p], each segment's 16-byte chunks arranged so that the register accesses of\n"
             "one phase spread over the banks (wf_swizzle)."));
    body.push_back(decl("const int", "in_stage_offset",
                        bin("+", inSwz.wordExpr(inP.laneOffset), bin("*", var("part"), lit(kSeg)))));
  }
  body.push_back(decl("const int", "out_stage_offset",
                      bin("+", outSwz.wordExpr(outP.laneOffset), bin("*", var("part"), lit(kSeg)))));
  const std::string valid = declarePaddingLanes(body, inP, s.nIn);
  if (!folded) {
    body.push_back(
        note(fmt::format("The pass forms y_p[m] at m = u + 128 i (i < {}), written to word m of each segment as\n"
                         "arranged: the word of u, then the constant's bits (the arrangement is linear). Its twiddle\n"
                         "W^m comes from the block's table (a product here would be hoisted out of the loop, held in\n"
                         "registers).",
                         points)));
    body.push_back(decl("const int", "dif_word", inSwz.wordExpr(var("fft_thread"))));
  }
  body.push_back(note(
      fmt::format("Per FFT {} row buffers of {} bytes (dynamic shared memory, {} bytes per block): cp.async "
                  "fills {} with the\n"
                  "next FFT's row{} (warp p its segment p of 1024 words) while this FFT is transformed in another{}.",
                  inBuffers == 2 ? "two" : "three", 4 * kRowPoints, li.dynamicSharedBytes,
                  inBuffers == 2 ? "one" : "two", inBuffers == 2 ? "" : "s",
                  folded ? ";\nthen an output buffer, where warp p's outputs X_p meet the other warps'" : "")));
  body.push_back(externSharedArray("wf_u32", "stage_dynamic", 16));
  body.push_back(
      decl("wf_u32*", "stage_fft", bin("+", var("stage_dynamic"), bin("*", bin(">>", threadX(), lit(7)), lit(words)))));
  if (deferred) {
    body.push_back(note("Two output buffers: row i's outputs go to buffer i mod 2 and leave during row i + 1."));
    body.push_back(decl("wf_u32* const", "out_base", bin("+", var("stage_fft"), lit(inBuffers * kRowPoints))));
    body.push_back(decl("int", "out_buf", lit(0)));
    body.push_back(decl("long long", "last_fft", lit(-1)));
  } else if (folded) {
    body.push_back(decl("wf_u32* const", "out_stage", bin("+", var("stage_fft"), lit(inBuffers * kRowPoints))));
  } else if (half) {
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
  if (!half && !folded) {
    std::vector<NodePtr> fill;
    fill.push_back(declGroup("float", {{"c", nullptr}, {"s", nullptr}}));
    fill.push_back(exprStmt(call("wf_phase", {var("m"), lit(kRowPoints), lit(spec.sign), var("c"), var("s")})));
    fill.push_back(assign(index(var("wf_twiddle"), var("m")), call("make_float2", {var("c"), var("s")})));
    body.push_back(forLoop(decl("int", "m", threadX()), bin("<", var("m"), lit(twiddles)),
                           assign(var("m"), member(var("blockDim"), "x"), "+="), block(fill)));
  }
  if (!folded) body.push_back(exprStmt(call("__syncthreads", {})));  // the table is filled
  // The row is copied segment by segment (1024 words, or the whole row where shorter), each arranged by the quarter
  // design's input swizzle, so that x[m + 1024 j] lies at word m of segment j as the pass (or each warp's own sums)
  // reads it: warp p copies segment p (warps past the row's segments copy nothing).
  const int copyWords = std::min(spec.nIn, kSeg);
  auto issue = [&](NodePtr which, NodePtr buffer) {
    NodePtr src = bin("+", cast("const wf_u32*", bin("+", var("input"), bin("*", which, var("input_distance")))),
                      bin("*", var("part"), lit(kSeg)));
    const std::string copy = inSwz.empty()
                                 ? fmt::format("wf_warp_load16_async<{}>", copyWords)
                                 : fmt::format("wf_warp_load16_async_swizzled<{}, {}>", copyWords, inSwz.helperType());
    return exprStmt(call(copy, {bin("+", buffer, bin("*", var("part"), lit(kSeg))), src, var("lane")}));
  };
  auto copies = [&] { return bin("<", var("part"), lit(terms)); };
  auto fftSync = [&] { return exprStmt(call("wf_named_barrier<128>", {var("fft_barrier")})); };
  for (int r = 0; r < ahead; ++r) {
    NodePtr which = r ? bin("+", var("first_fft"), bin("*", lit(r), var("fft_stride"))) : var("first_fft");
    body.push_back(
        ifStmt(bin("&&", bin("<", which, var("batch")), copies()),
               block({issue(which, r ? bin("+", var("stage_fft"), lit(r * kRowPoints)) : var("stage_fft"))})));
    body.push_back(exprStmt(call("wf_cp_async_commit", {})));
  }
  body.push_back(decl("int", "buf", lit(0)));

  std::vector<NodePtr> loop;
  if (!deferred)
    loop.push_back(decl("wf_u32*", "y_ptr",
                        cast("wf_u32*", bin("+", var("output"), bin("*", var("fft"), var("output_distance"))))));
  loop.push_back(decl("wf_u32* const", "stage", bin("+", var("stage_fft"), bin("*", var("buf"), lit(kRowPoints)))));
  for (const auto& a : s.arrays)
    if (!a.isPhase()) loop.push_back(declArray("wf_u32", dataVar(a.name), a.layout.numRegisters()));
  auto issueNext = [&] {
    loop.push_back(decl("const long long", "next_fft",
                        bin("+", var("fft"), ahead > 1 ? bin("*", lit(ahead), var("fft_stride")) : var("fft_stride"))));
    // The previous row's buffer, free after the barrier: (buf + ahead) mod (ahead + 1).
    NodePtr nextBuf = inBuffers == 2 ? bin("^", var("buf"), lit(1))
                                     : ternary(bin("==", var("buf"), lit(0)), lit(2), bin("-", var("buf"), lit(1)));
    loop.push_back(
        ifStmt(bin("&&", bin("<", var("next_fft"), var("batch")), copies()),
               block({issue(var("next_fft"), bin("+", var("stage_fft"), bin("*", nextBuf, lit(kRowPoints))))})));
    loop.push_back(exprStmt(call("wf_cp_async_commit", {})));
  };
  {
    loop.push_back(note(
        deferred ? "This row's copies land; after the barrier every quarter has landed, every warp has read the\n"
                   "previous row (so the next row goes to its buffer) and written its outputs, and the row before\n"
                   "has left the output buffer this row's outputs go to."
        : ahead > 1
            ? "This row's copies land (the next row's may still be in flight); after the barrier every quarter\n"
              "has landed, every warp has read the previous row from its buffer (so the row after next goes\n"
              "there) and the FFT has stored the previous row from the output buffer."
        : folded ? "This row's copies (the only ones in flight) land; after the barrier every quarter has landed,\n"
                   "every warp has read the previous row from the other buffer (so the next row goes there) and the\n"
                   "FFT has stored the previous row from the output buffer."
                 : "This row's copies (the only ones in flight) land; after the barrier every quarter has landed\n"
                   "and the FFT has stored the previous row from the other buffer, so the next row goes there."));
    loop.push_back(exprStmt(call(fmt::format("wf_cp_async_wait<{}>", ahead - 1), {})));
    loop.push_back(fftSync());
    issueNext();
  }
  auto storeRow = [&](NodePtr which, NodePtr buffer) {
    return exprStmt(
        call(fmt::format("wf_store_interleaved4<{}, {}, {}, {}>", kRowPoints, kSeg, opt.streaming, outSwz.helperType()),
             {cast("wf_u32*", bin("+", var("output"), bin("*", which, var("output_distance")))), buffer,
              var("fft_thread")}));
  };
  NodePtr otherOut = bin("+", var("out_base"), bin("*", bin("^", var("out_buf"), lit(1)), lit(kRowPoints)));
  if (deferred) {
    loop.push_back(note("The previous row's store: its outputs reached the other output buffer before the barrier."));
    loop.push_back(ifStmt(bin(">=", var("last_fft"), lit(0)), block({storeRow(var("last_fft"), otherOut)})));
    loop.push_back(
        decl("wf_u32* const", "out_stage", bin("+", var("out_base"), bin("*", var("out_buf"), lit(kRowPoints)))));
  }
  if (!folded)
    loop.push_back(
        note(fmt::format("The pass, in place: y_p[m] to word m of segment p from x[m + 1024 j] at word m of segment j "
                         "(j < {}).",
                         terms)));
  for (int i = 0; i < (folded ? 0 : points); ++i) {
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
  if (folded && terms > 1) {
    loop.push_back(note(fmt::format("Form {} [{}] = y'_p (untwiddled) from segments 0 .. {}: warp p's own sums.",
                                    s.input, inL.str(), terms - 1)));
    SegmentSum sum;
    sum.segments = terms;
    sum.segmentWords = kSeg;
    sum.combine = fmt::format("{}<{}>", terms == 4 ? "wf_own_y4" : "wf_own_y2", spec.sign);
    sum.args = {var("part")};
    for (auto& n : swizzledRegisterSum(inL, inP, inSwz, dataVar(s.input), "stage", "in_stage_offset", sum, valid))
      loop.push_back(n);
  } else if (folded) {
    loop.push_back(note(fmt::format("Load {} [{}] = x from segment 0 (y'_p = x: the rest of the row is padding).",
                                    s.input, inL.str())));
    for (auto& n : swizzledRegisterAccess(inL, inP, inSwz, dataVar(s.input), "stage", "in_stage_offset", true, valid))
      loop.push_back(n);
  } else {
    loop.push_back(fftSync());
    loop.push_back(note(fmt::format("Load {} [{}] from segment p.", s.input, inL.str())));
    for (auto& n : swizzledRegisterAccess(inL, inP, inSwz, dataVar(s.input), "stage", "in_stage_offset", true, valid))
      loop.push_back(n);
  }
  for (auto& n : stepsOrRepeats(d.plan, phases, opt)) loop.push_back(n);
  const std::string outBuffer = folded ? "out_stage" : "stage";
  if (!folded) {
    loop.push_back(note("Segment p is this warp's alone: its outputs overwrite its inputs once every lane has read."));
    loop.push_back(exprStmt(call("__syncwarp", {})));
  }
  loop.push_back(note(fmt::format("Store {} [{}] to segment p{}: X[4 k + p] at word k.", s.output, outL.str(),
                                  folded ? " of the output buffer" : "")));
  for (auto& n : swizzledRegisterAccess(outL, outP, outSwz, dataVar(s.output), outBuffer, "out_stage_offset", false))
    loop.push_back(n);
  if (deferred) {
    loop.push_back(note("The row leaves during the next row (or after the loop)."));
    loop.push_back(assign(var("last_fft"), var("fft")));
    loop.push_back(assign(var("out_buf"), lit(1), "^="));
  } else {
    loop.push_back(fftSync());
    loop.push_back(note("Store the row: chunk c is word c of the four segments, 16-byte vectors."));
    loop.push_back(exprStmt(
        call(fmt::format("wf_store_interleaved4<{}, {}, {}, {}>", kRowPoints, kSeg, opt.streaming, outSwz.helperType()),
             {var("y_ptr"), var(outBuffer), var("fft_thread")})));
  }
  if (inBuffers == 2) loop.push_back(assign(var("buf"), lit(1), "^="));
  else loop.push_back(assign(var("buf"), ternary(bin("==", var("buf"), lit(2)), lit(0), bin("+", var("buf"), lit(1)))));
  body.push_back(note("Grid-stride loop: one FFT per group of four warps per iteration."));
  body.push_back(forLoop(decl("long long", "fft", var("first_fft")), bin("<", var("fft"), var("batch")),
                         assign(var("fft"), var("fft_stride"), "+="), block(loop)));
  if (deferred) {
    body.push_back(
        note("The last row's store, once every warp's outputs are in its buffer (the FFT's 128 threads ran\n"
             "the same rows, so all of them or none reach the barrier)."));
    body.push_back(ifStmt(bin(">=", var("last_fft"), lit(0)), block({fftSync(), storeRow(var("last_fft"), otherOut)})));
  }

  const std::string headline =
      folded ? fmt::format(
                   "Generated by warpforge from spec '{}': {}-point input, {}-point output, {}, sign {:+d}.\n"
                   "Four warps per FFT (decimation in frequency over q0 q1 = p): warp p forms\n"
                   "y'_p[m] = sum_j x[m + 1024 j] W4^(p j) at its load and transforms it with the verified {} -> {}\n"
                   "design below, whose phases carry the twiddle W^(p m); its outputs are X[4 k + p].",
                   spec.name, spec.nIn, kRowPoints, spec.precision, spec.sign, s.nIn, kSeg)
             : fmt::format(
                   "Generated by warpforge from spec '{}': {}-point input, {}-point output, {}, sign {:+d}.\n"
                   "Four warps per FFT (decimation in frequency over q0 q1 = p): a pass in {} forms\n"
                   "y_p[m] = W^(p m) sum_j x[m + 1024 j] W4^(p j); warp p transforms y_p with the verified {} -> {} "
                   "design below\n"
                   "and its outputs are X[4 k + p].",
                   spec.name, spec.nIn, kRowPoints, spec.precision, spec.sign, half ? "f16x2" : "f32", s.nIn, kSeg);
  k.source = print(kernelUnit(d.plan, opt, li, block(body), headline));
  const std::string lastInclude = "#include \"warpforge_io.cuh\"\n";
  k.source.insert(k.source.find(lastInclude) + lastInclude.size(), std::string(folded ? kFoldedHelpers
                                                                               : half ? tcFftQuadHalfPassHelpers()
                                                                                      : kPassHelpers) +
                                                                       kStoreHelpers);
  return k;
}

}  // namespace warpforge
