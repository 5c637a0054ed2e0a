#include "generator/tc_fft/TcFftPairEmitter.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ast/Printer.h"
#include "generator/tc_fft/PhasePlan.h"
#include "generator/tc_fft/Synthesizer.h"
#include "generator/tc_fft/TcFftData.h"
#include "generator/tc_fft/TcFftIo.h"
#include "generator/tc_fft/TcFftKernelParts.h"
#include "generator/tc_fft/TcFftPairBuffer.h"
#include "generator/verify/Verifier.h"

namespace warpforge {

using namespace ast;
using namespace tcfft_detail;

namespace {
constexpr int kHalf = 2048;
constexpr int kCombinePerThread = kHalf / 64;  // butterflies per thread: the pair's 64 threads share the 2048

}  // namespace

bool tcFftPairApplies(const LayoutProgram& s) {
  // f32 accumulation keeps the one-warp kernel: the half-length designs are synthesized with f16 accumulators.
  return s.nOut == kRowPoints && s.batchBits() == 0 && s.nIn >= 512 && s.nIn <= kRowPoints &&
         (s.nIn & (s.nIn - 1)) == 0 && s.accumulate != "f32";
}

std::unique_ptr<TcFftPairDesign> tcFftPairDesign(const LayoutProgram& s) {
  TcFftRequest r;
  r.file = s.file;
  r.name = s.name + "_part";
  r.description = "one polyphase half of a two-warp 4096-point FFT";
  r.precision = s.precision;
  r.nIn = s.nIn / 2;
  r.nOut = kHalf;
  r.sign = s.sign;
  auto d = std::make_unique<TcFftPairDesign>();
  d->sub = synthesizeTcFft(r).program;
  d->plan = Verifier().verify(d->sub);
  return d;
}

double tcFftPairErrorBound(const TcFftPairDesign& d) {
  // Normwise, relative to ||X||, for e_E, e_O the sub-FFT errors (||e_E|| <= b ||E||, b = tcFftErrorBound of the
  // half-length design, its f16 output rounding included): the combine's outputs carry (e_E + t e_O, e_E - t e_O),
  // |t| = 1, of squared norm 2 (||e_E||^2 + ||e_O||^2) <= 2 b^2 (||E||^2 + ||O||^2) = b^2 ||X||^2 (Parseval:
  // ||X||^2 = 2 (||E||^2 + ||O||^2)), so b carries over unchanged. Each output is then rounded to f16 once (u = 2^-11
  // per component: u ||X||), and the f32 twiddle product and butterfly add a few f32 roundings (< 2^-20).
  return tcFftErrorBound(d.sub) + std::ldexp(1.0, -11) + std::ldexp(1.0, -20);
}

std::vector<std::pair<std::string, TcFftPairOptions>> tcFftPairBenchOptions() {
  // NVRTC 13 holds both caps to 168 registers on sm_90 (120 spill bytes; the default kernel takes 239 without spills).
  return {{"two warps per FFT, the row de-interleaved by part (conflict-free reads)", {false}},
          {"two warps per FFT, __launch_bounds__(128, 3): 12 warps per SM", {true, 2, 3}},
          {"two warps per FFT, one pair per block", {true, 1, 0}},
          {"two warps per FFT, one pair per block, __launch_bounds__(64, 6): 12 warps per SM", {true, 1, 6}}};
}

EmittedKernel emitTcFftPair(const LayoutProgram& spec, const TcFftPairDesign& d, const EmitOptions& opt,
                            const TcFftPairOptions& pairOpt) {
  const bool wordReads = pairOpt.wordReads;
  const int pairsPerBlock = pairOpt.pairsPerBlock;
  const LayoutProgram& s = d.sub;
  EmittedKernel k;
  PhasePlan phases(s, opt.packedPhases);
  k.phaseRegisters = phases.registersHeld();
  k.phaseRegistersNaive = phases.registersNaive();

  LaunchInfo& li = k.launch;
  li.specName = spec.name;
  li.kernelName = spec.name;
  li.blockThreads = 64 * pairsPerBlock;
  li.fftsPerBlock = pairsPerBlock;
  li.minBlocksPerSm = pairOpt.minBlocksPerSm;
  li.nIn = spec.nIn;
  li.nOut = kRowPoints;
  li.inputVectorElems = li.outputVectorElems = 4;  // 16-byte row copies
  const int words = 2 * kRowPoints;                // a pair's two row buffers
  li.dynamicSharedBytes = 4 * words * pairsPerBlock;

  const Layout& inL = s.array(s.input)->layout;
  const Layout& outL = s.array(s.output)->layout;
  // Sub-FFT index i is row element 2 i + part (TcFftPairBuffer.h: where the buffer keeps it).
  const PairInput in = pairInput(inL, s.logIn, wordReads, opt.swizzledStage);
  const IoPlan& inP = in.plan;
  const IoPlan outP = ioPlan(outL, 'q', s.logOut, 0);
  const int halfIn = spec.nIn / 2;

  auto threadX = [] { return member(var("threadIdx"), "x"); };
  std::vector<NodePtr> body;
  body.push_back(decl("const int", "lane", bin("&", threadX(), lit(31))));
  body.push_back(
      note("The pair's warp: it transforms the polyphase part x[2 i + part] and combines outputs\n"
           "k in [1024 part, 1024 part + 1024) of both halves."));
  body.push_back(decl("const int", "part", bin("&", bin(">>", threadX(), lit(5)), lit(1))));
  body.push_back(note("Named barrier of the pair's 64 threads (0 is __syncthreads)."));
  body.push_back(decl("const int", "pair_barrier", bin("+", lit(1), bin(">>", threadX(), lit(6)))));
  body.push_back(decl(
      "const long long", "first_pair",
      bin(">>",
          bin("+", bin("*", cast("long long", member(var("blockIdx"), "x")), member(var("blockDim"), "x")), threadX()),
          lit(6))));
  body.push_back(
      decl("const long long", "pair_stride",
           bin(">>", bin("*", cast("long long", member(var("gridDim"), "x")), member(var("blockDim"), "x")), lit(6))));
  body.push_back(note(
      fmt::format("Phase registers of the {}-point sub-FFT, computed once per thread ({} held; {} before sharing{}{}).",
                  kHalf, k.phaseRegisters, k.phaseRegistersNaive, opt.packedPhases ? "; stored forms kept packed" : "",
                  phases.registersTabled() ? fmt::format("; {} more in a shared table, read at use (register budget)",
                                                         phases.registersTabled())
                                           : "")));
  for (auto& n : phases.prologue()) body.push_back(n);
  const StageSwizzle& inSwz = in.swizzle;
  const StageSwizzle outSwz = opt.swizzledStage ? stageSwizzle(outL, outP) : StageSwizzle{};
  if (wordReads) {
    body.push_back(
        note("Element offsets of the lane bits: the sub-FFT's input from row element 2 i + part, its\n"
             "output to word 2048 part + k of the pair's buffer."));
    body.push_back(decl("const int", "in_lane_offset", bin("+", inP.laneOffset, var("part"))));
    body.push_back(decl("const int", "out_lane_offset", outP.laneOffset));
    body.push_back(
        note("The same offsets in the row buffer, whose 16-byte chunks are arranged so that the register\n"
             "accesses of one phase spread over the banks (wf_swizzle); the outputs of part p start at word\n"
             "2048 p."));
    body.push_back(decl("const int", "in_stage_offset", inSwz.wordExpr(var("in_lane_offset"))));
  } else {
    body.push_back(
        note(fmt::format("Element offsets of the lane bits: the sub-FFT's input index i, read from word i of the "
                         "part's region\n(row element 2 i + part, de-interleaved by the copy), its output to word "
                         "2048 part + k of the pair's buffer.")));
    body.push_back(decl("const int", "in_lane_offset", inP.laneOffset));
    body.push_back(decl("const int", "out_lane_offset", outP.laneOffset));
    body.push_back(
        note(fmt::format("The same offsets in the row buffer: part p's region starts at word {} p, its 16-byte chunks "
                         "arranged\nso that the register accesses of one phase spread over the banks (wf_swizzle) "
                         "and part 1's bank bit 4\nflipped (the copy's two parts hit distinct banks); the outputs of "
                         "part p start at word 2048 p.",
                         halfIn)));
    body.push_back(decl("const int", "in_stage_offset",
                        bin("+", bin("*", var("part"), lit(halfIn)),
                            bin("^", inSwz.wordExpr(var("in_lane_offset")), bin("<<", var("part"), lit(4))))));
  }
  body.push_back(decl("const int", "out_stage_offset",
                      bin("+", outSwz.wordExpr(var("out_lane_offset")), bin("*", var("part"), lit(kHalf)))));
  const std::string valid = inP.padLaneMask ? "in_lane_valid" : "";
  if (inP.padLaneMask) {
    body.push_back(note(fmt::format("Lanes holding zero padding (sub-FFT input index >= {}) read zeros.", halfIn)));
    body.push_back(decl("const bool", valid, bin("==", bin("&", var("lane"), lit(inP.padLaneMask)), lit(0))));
  }
  body.push_back(
      note(fmt::format("The combine's butterflies k = 1024 part + lane + 32 m (m < {}): twiddle W^k = a b_m, a = "
                       "W^(1024 part + lane)\n"
                       "computed once here, b_m = W^(32 m) a constant.",
                       kCombinePerThread)));
  body.push_back(decl("const int", "combine_offset", bin("+", bin("*", var("part"), lit(kHalf / 2)), var("lane"))));
  body.push_back(note(fmt::format(
      "Per pair two row buffers of {} bytes (dynamic shared memory, {} bytes per block): cp.async fills one with the\n"
      "next FFT's row (each warp half of it) while this FFT is transformed, exchanged and combined in the other.",
      4 * kRowPoints, li.dynamicSharedBytes)));
  body.push_back(externSharedArray("wf_u32", "stage_dynamic", 16));
  body.push_back(decl("wf_u32*", "stage_pair",
                      bin("+", var("stage_dynamic"), bin("*", bin(">>", threadX(), lit(6)), lit(words)))));
  auto issue = [&](NodePtr which, NodePtr buffer) {
    NodePtr src = bin("+", cast("const wf_u32*", bin("+", var("input"), bin("*", which, var("input_distance")))),
                      bin("*", var("part"), lit(halfIn)));
    if (!wordReads)
      return exprStmt(call(fmt::format("wf_warp_load_parts_async<{}, {}, {}>", halfIn, halfIn, inSwz.helperType()),
                           {buffer, src, bin("*", var("part"), lit(halfIn)), var("lane")}));
    const std::string loadHalf = inSwz.empty()
                                     ? fmt::format("wf_warp_load16_async<{}>", halfIn)
                                     : fmt::format("wf_warp_load16_async_swizzled<{}, {}>", halfIn, inSwz.helperType());
    return exprStmt(call(loadHalf, {bin("+", buffer, bin("*", var("part"), lit(halfIn))), src, var("lane")}));
  };
  auto pairSync = [] { return exprStmt(call("wf_named_barrier<64>", {var("pair_barrier")})); };
  body.push_back(
      ifStmt(bin("<", var("first_pair"), var("batch")), block({issue(var("first_pair"), var("stage_pair"))})));
  body.push_back(exprStmt(call("wf_cp_async_commit", {})));
  body.push_back(decl("int", "buf", lit(0)));

  std::vector<NodePtr> loop;
  loop.push_back(
      decl("wf_u32*", "y_ptr", cast("wf_u32*", bin("+", var("output"), bin("*", var("fft"), var("output_distance"))))));
  loop.push_back(decl("wf_u32* const", "stage", bin("+", var("stage_pair"), bin("*", var("buf"), lit(kRowPoints)))));
  for (const auto& a : s.arrays)
    if (!a.isPhase()) loop.push_back(declArray("wf_u32", dataVar(a.name), a.layout.numRegisters()));
  loop.push_back(note("The pair has stored the previous row from the other buffer; its next row goes there."));
  loop.push_back(pairSync());
  loop.push_back(decl("const long long", "next_fft", bin("+", var("fft"), var("pair_stride"))));
  loop.push_back(ifStmt(bin("<", var("next_fft"), var("batch")),
                        block({issue(var("next_fft"), bin("+", var("stage_pair"),
                                                          bin("*", bin("^", var("buf"), lit(1)), lit(kRowPoints))))})));
  loop.push_back(exprStmt(call("wf_cp_async_commit", {})));
  loop.push_back(exprStmt(call("wf_cp_async_wait<1>", {})));
  loop.push_back(pairSync());  // both halves of this row have landed
  loop.push_back(
      note(fmt::format("Load {} [{}] from {}.", s.input, inL.str(),
                       wordReads ? "row elements 2 i + part" : "the part's region (row elements 2 i + part)")));
  for (auto& n : swizzledRegisterAccess(inL, inP, inSwz, dataVar(s.input), "stage", "in_stage_offset", true, valid))
    loop.push_back(n);
  for (auto& n : stepsOrRepeats(d.plan, phases, opt)) loop.push_back(n);
  loop.push_back(note("Both warps have read the row: the halves' outputs overwrite it."));
  loop.push_back(pairSync());
  loop.push_back(note(fmt::format("Store {} [{}] to words 2048 part + k.", s.output, outL.str())));
  for (auto& n : swizzledRegisterAccess(outL, outP, outSwz, dataVar(s.output), "stage", "out_stage_offset", false))
    loop.push_back(n);
  loop.push_back(pairSync());
  loop.push_back(
      note("Radix-2 combine in place: X[k] = E[k] + W^k O[k] to word k, X[k + 2048] = E[k] - W^k O[k] to\n"
           "word 2048 + k (each thread reads and writes the same two words; lane-consecutive, no conflict)."));
  loop.push_back(declGroup("float", {{"tw_re", nullptr}, {"tw_im", nullptr}}));
  loop.push_back(
      exprStmt(call("wf_phase", {var("combine_offset"), lit(kRowPoints), lit(spec.sign), var("tw_re"), var("tw_im")})));
  loop.push_back(decl("const int", "combine_word", outSwz.wordExpr(var("combine_offset"))));
  for (int m = 0; m < kCombinePerThread; ++m) {
    const double angle = 2 * M_PI * 32 * m / kRowPoints;
    NodePtr at = m ? bin("^", var("combine_word"), lit(outSwz.word(32 * m))) : var("combine_word");
    loop.push_back(exprStmt(
        call("wf_radix2", {index(var("stage"), at), index(var("stage"), bin("+", at, lit(kHalf))), var("tw_re"),
                           var("tw_im"), flit(std::cos(angle)), flit(spec.sign * std::sin(angle))})));
  }
  loop.push_back(pairSync());
  loop.push_back(note("Store the row: each warp its half, 16-byte vectors."));
  loop.push_back(exprStmt(call(outSwz.empty() ? fmt::format("wf_warp_store16<{}, {}>", kHalf, opt.streaming)
                                              : fmt::format("wf_warp_store16_swizzled<{}, {}, {}>", kHalf,
                                                            opt.streaming, outSwz.helperType()),
                               {bin("+", var("y_ptr"), bin("*", var("part"), lit(kHalf))),
                                bin("+", var("stage"), bin("*", var("part"), lit(kHalf))), var("lane")})));
  loop.push_back(assign(var("buf"), lit(1), "^="));
  body.push_back(note("Grid-stride loop: one FFT per warp pair per iteration."));
  body.push_back(forLoop(decl("long long", "fft", var("first_pair")), bin("<", var("fft"), var("batch")),
                         assign(var("fft"), var("pair_stride"), "+="), block(loop)));

  const std::string headline = fmt::format(
      "Generated by warpforge from spec '{}': {}-point input, {}-point output, {}, sign {:+d}.\n"
      "Two warps per FFT (decimation in time over w0 = n0): warp `part` transforms x[2 i + part] with the verified\n"
      "{} -> {} design below; one exchange through shared memory and a radix-2 combine move w0 to q11.",
      spec.name, spec.nIn, kRowPoints, spec.precision, spec.sign, halfIn, kHalf);
  k.source = print(kernelUnit(d.plan, opt, li, block(body), headline));
  return k;
}

}  // namespace warpforge
