#include "generator/tc_fft/TcFftEmitter.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ast/Passes.h"
#include "ast/Printer.h"
#include "generator/emulate/Emulator.h"
#include "generator/tc_fft/PhasePlan.h"
#include "generator/tc_fft/TcFftIo.h"
#include "generator/tc_fft/TcFftKernelParts.h"

namespace warpforge {

using namespace ast;

namespace tcfft_detail {

// User names live in their own namespace: a data array X is the local `a_X`, its relayout
// scratch `m_X`, its prefetch buffer `nx_X`, the f32 accumulators it is rounded from `f_X` (phase registers are
// `p_<name>_r<k>`, PhasePlan.cpp). No generated identifier, keyword or CUDA built-in starts with these prefixes, and
// each prefix maps names one to one, so no spec can make two of them collide.
std::string dataVar(const std::string& array) { return "a_" + array; }
std::string movedVar(const std::string& array) { return "m_" + array; }
std::string nextVar(const std::string& array) { return "nx_" + array; }
std::string accVar(const std::string& array) { return "f_" + array; }  // f32 accumulators the array is rounded from

NodePtr reg(const std::string& var, int r) { return index(var, r); }
NodePtr dataReg(const std::string& array, int r) { return reg(dataVar(array), r); }

}  // namespace tcfft_detail

using namespace tcfft_detail;

namespace tcfft_detail {

// Comment text: no control character but newline (a CR or other control character could end
// the `//` comment in some tools), and no line ending in a backslash (it would splice the next line).
NodePtr note(const std::string& text) {
  std::string t;
  for (char c : text) t += (static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f ? '?' : c;
  std::string out;
  for (std::size_t i = 0; i < t.size(); ++i) {
    bool lineEnd = i + 1 == t.size() || t[i + 1] == '\n';
    out += t[i] == '\\' && lineEnd ? '/' : t[i];
  }
  return comment(out);
}

}  // namespace tcfft_detail

namespace {

std::vector<NodePtr> emitMma(const StepPlan& st, const PhasePlan& phases) {
  const MmaStepPlan& m = st.mma;
  const StepSpec& s = *st.spec;
  std::vector<NodePtr> out;
  out.push_back(
      note(fmt::format("{}: {} = {} * {} via {} x {} (loop bits: {})", s.path, s.c, s.a, s.b, m.count, m.shape->shape,
                       m.loopBits.empty() ? "none" : fmt::format("{}", fmt::join(m.loopBits, " ")))));
  for (int it = 0; it < m.count; ++it) {
    const MmaStepPlan::Bases base = m.bases(it);
    auto regWith = MmaStepPlan::fragmentRegister;
    const int bA = base.a, bB = base.b, bC = base.c;
    std::vector<NodePtr> args;
    for (int f = 0; f < m.shape->c.numRegisters(); ++f) args.push_back(dataReg(s.c, regWith(bC, m.cReg, f)));
    for (int f = 0; f < m.shape->a.numRegisters(); ++f) args.push_back(phases.operand(s.a, regWith(bA, m.aReg, f)));
    for (int f = 0; f < m.shape->b.numRegisters(); ++f) args.push_back(dataReg(s.b, regWith(bB, m.bReg, f)));
    std::string fn = fmt::format("wf_mma_{}_{}", m.shape->shape, m.shape->abType);
    out.push_back(exprStmt(call(fn, args)));
  }
  return out;
}

// An MMA with f32 accumulators: f32 register F of C's f32 view (MmaCheck.h) is half F & 1 of __half2 register F >> 1,
// held in f_C[F]. After each MMA of the loop, what it completed is rounded: each __half2 register of C (wf_pack) or,
// where the complex multiply that follows takes the f32 results (`next`), each of its register pairs (wf_cmul_f32,
// writing the multiply's output). The f32 values live from one MMA to the rounding just after it.
std::vector<NodePtr> emitMmaF32(const StepPlan& st, const StepPlan* next, const PhasePlan& phases, int cRegs) {
  const MmaStepPlan& m = st.mma;
  const StepSpec& s = *st.spec;
  const std::string acc = accVar(s.c);
  std::vector<NodePtr> out;
  out.push_back(note(fmt::format("{}: {} = {} * {} via {} x {} with f32 accumulators (loop bits: {}); {}", s.path, s.c,
                                 s.a, s.b, m.count, m.shape->shape,
                                 m.loopBits.empty() ? "none" : fmt::format("{}", fmt::join(m.loopBits, " ")),
                                 next ? fmt::format("{} = {} * {} applied in f32 (next step), then rounded to __half2",
                                                    next->spec->c, next->spec->a, s.c)
                                      : std::string("each f32 pair rounded to the __half2 register it becomes"))));
  out.push_back(declArray("float", acc, 2 * cRegs));
  std::vector<bool> written(2 * cRegs, false), done(cRegs, false);
  auto f = [&](int r) { return index(acc, r); };
  // Where ReIm is a loop bit, the MMAs run with it fastest, so that each multiply's real and imaginary halves come
  // from consecutive MMAs (otherwise half the f32 results would wait for the other half).
  int fast = -1;
  for (std::size_t x = 0; next && x < m.loopBits.size(); ++x)
    if (m.loopRegC[x] == next->cmul.reImDataBit + 1) fast = static_cast<int>(x);
  auto iteration = [&](int k) {
    if (fast < 0) return k;
    const int low = k >> 1 & ((1 << fast) - 1), high = (k >> 1) >> fast;
    return (k & 1) << fast | low | high << (fast + 1);
  };
  for (int k = 0; k < m.count; ++k) {
    const MmaStepPlan::Bases base = m.bases(iteration(k));
    auto regWith = MmaStepPlan::fragmentRegister;
    std::vector<NodePtr> args;
    for (int fr = 0; fr < m.shape->c.numRegisters(); ++fr) {
      const int r = regWith(base.c, m.cReg, fr);
      written[r] = true;
      args.push_back(f(r));
    }
    for (int fr = 0; fr < m.shape->a.numRegisters(); ++fr)
      args.push_back(phases.operand(s.a, regWith(base.a, m.aReg, fr)));
    for (int fr = 0; fr < m.shape->b.numRegisters(); ++fr) args.push_back(dataReg(s.b, regWith(base.b, m.bReg, fr)));
    out.push_back(exprStmt(call(fmt::format("wf_mma_{}_f32", m.shape->shape), args)));
    for (int d = 0; d < cRegs; ++d) {
      if (done[d] || !written[2 * d] || !written[2 * d + 1]) continue;
      if (!next) {
        out.push_back(assign(dataReg(s.c, d), call("wf_pack", {f(2 * d), f(2 * d + 1)})));
        done[d] = true;
        continue;
      }
      const CmulStepPlan& p = next->cmul;
      if ((d >> p.reImDataBit) & 1) continue;
      const int dIm = d | (1 << p.reImDataBit);
      if (!written[2 * dIm] || !written[2 * dIm + 1]) continue;
      const int pRe = p.phaseRegOfDataReg[d], pIm = pRe | (1 << p.reImPhaseBit);
      out.push_back(
          exprStmt(call("wf_cmul_f32",
                        {dataReg(next->spec->c, p.outRegOfDataReg[d]), dataReg(next->spec->c, p.outRegOfDataReg[dIm]),
                         f(2 * d), f(2 * d + 1), f(2 * dIm), f(2 * dIm + 1), phases.operand(next->spec->a, pRe),
                         phases.operand(next->spec->a, pIm)})));
      done[d] = done[dIm] = true;
    }
  }
  return out;
}

std::vector<NodePtr> emitCmul(const StepPlan& st, const PhasePlan& phases, const Layout& data) {
  const CmulStepPlan& p = st.cmul;
  const StepSpec& s = *st.spec;
  std::vector<NodePtr> out{note(fmt::format("{}: {} = {} * {} elementwise (__half2)", s.path, s.c, s.a, s.b))};
  for (int d = 0; d < data.numRegisters(); ++d) {
    if ((d >> p.reImDataBit) & 1) continue;
    int dIm = d | (1 << p.reImDataBit);
    int pRe = p.phaseRegOfDataReg[d], pIm = pRe | (1 << p.reImPhaseBit);
    out.push_back(exprStmt(
        call("wf_cmul", {dataReg(s.c, p.outRegOfDataReg[d]), dataReg(s.c, p.outRegOfDataReg[dIm]), dataReg(s.b, d),
                         dataReg(s.b, dIm), phases.operand(s.a, pRe), phases.operand(s.a, pIm)})));
  }
  return out;
}

std::vector<NodePtr> emitRelayout(const StepPlan& st, const Layout& from) {
  const RelayoutPlan& p = st.relayout;
  const StepSpec& s = *st.spec;
  const int nregs = from.numRegisters();
  std::string w = movedVar(s.b);
  std::vector<NodePtr> out{
      note(fmt::format("{}: {} -> {}: {} byte_perm, {} shfl", s.path, s.b, s.c, p.byteperms, p.shuffles))};
  out.push_back(declArray("wf_u32", w, nregs));
  for (int r = 0; r < nregs; ++r) out.push_back(assign(reg(w, r), dataReg(s.b, r)));
  int k = 0;
  for (const MoveOp& op : p.ops) {
    out.push_back(note(op.str()));
    if (op.kind == MoveOp::LanePermutation) {
      NodePtr src = lit(0);
      for (std::size_t b = 0; b < op.lanePerm.size(); ++b)
        src = bin("|", src, bin("<<", laneBit(static_cast<int>(b)), lit(op.lanePerm[b])));
      std::string sv = fmt::format("perm_src{}", k++);
      out.push_back(decl("const int", sv, foldConstants(src)));
      for (int r = 0; r < nregs; ++r)
        out.push_back(assign(reg(w, r), call("__shfl_sync", {lit(0xffffffffLL), reg(w, r), var(sv)})));
      continue;
    }
    int ry = op.y.index;  // y is always the register bit
    std::string upper;
    if (op.kind == MoveOp::WarpTranspose) {
      upper = fmt::format("upper_t{}_{}", op.x.index, k++);
      out.push_back(decl("const bool", upper, laneBit(op.x.index)));
    }
    for (int lo = 0; lo < nregs; ++lo) {
      if ((lo >> ry) & 1) continue;
      int hi = lo | (1 << ry);
      if (op.kind == MoveOp::LocalTranspose)
        out.push_back(exprStmt(call("wf_local_transpose16", {reg(w, lo), reg(w, hi)})));
      else
        out.push_back(
            exprStmt(call("wf_warp_transpose", {reg(w, lo), reg(w, hi), lit(1LL << op.x.index), var(upper)})));
    }
  }
  // Free register renaming into the target's order.
  for (int r = 0; r < nregs; ++r) {
    int src = 0;
    for (std::size_t i = 0; i < p.rename.size(); ++i) src |= ((r >> i) & 1) << p.rename[i];
    out.push_back(assign(dataReg(s.c, r), reg(w, src)));
  }
  return out;
}

}  // namespace

namespace tcfft_detail {

std::string declarePaddingLanes(std::vector<NodePtr>& body, const IoPlan& in, int nIn) {
  if (!in.padLaneMask) return "";
  body.push_back(note(fmt::format("Lanes holding zero padding (input index >= {}) read zeros.", nIn)));
  body.push_back(decl("const bool", "in_lane_valid", bin("==", bin("&", var("lane"), lit(in.padLaneMask)), lit(0))));
  return "in_lane_valid";
}

std::vector<NodePtr> kernelPrologue(const EmittedKernel& k, const PhasePlan& phases, const EmitOptions& opt) {
  std::vector<NodePtr> body;
  body.push_back(decl("const int", "lane", bin("&", member(var("threadIdx"), "x"), lit(31))));
  body.push_back(
      decl("const long long", "first_warp",
           bin(">>",
               bin("+", bin("*", cast("long long", member(var("blockIdx"), "x")), member(var("blockDim"), "x")),
                   member(var("threadIdx"), "x")),
               lit(5))));
  body.push_back(
      decl("const long long", "warp_stride",
           bin(">>", bin("*", cast("long long", member(var("gridDim"), "x")), member(var("blockDim"), "x")), lit(5))));
  body.push_back(note(
      fmt::format("Phase registers, computed once per thread ({} held; {} before sharing{}{}).", k.phaseRegisters,
                  k.phaseRegistersNaive, opt.packedPhases ? "; stored forms kept packed" : "",
                  phases.registersTabled() ? fmt::format("; {} more in a shared table, read at use (register budget)",
                                                         phases.registersTabled())
                                           : "")));
  for (auto& n : phases.prologue()) body.push_back(n);
  return body;
}

std::vector<NodePtr> stepsOrRepeats(const Plan& plan, const PhasePlan& phases, const EmitOptions& opt) {
  const LayoutProgram& s = *plan.spec;
  std::vector<NodePtr> steps;
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const StepPlan& st = plan.steps[i];
    const int cRegs = s.array(st.spec->c)->layout.numRegisters();
    std::vector<NodePtr> part;
    switch (st.spec->op) {
      case StepOp::Mma:
        part = st.mma.shape->cType == "f32" ? emitMmaF32(st, st.f32Out ? &plan.steps[i + 1] : nullptr, phases, cRegs)
                                            : emitMma(st, phases);
        break;
      case StepOp::Cmul:
        part = st.f32In ? std::vector<NodePtr>{note(fmt::format("{}: {} = {} * {} elementwise, applied in f32 with "
                                                                "the MMA above",
                                                                st.spec->path, st.spec->c, st.spec->a, st.spec->b))}
                        : emitCmul(st, phases, s.array(st.spec->b)->layout);
        break;
      case StepOp::Relayout: part = emitRelayout(st, s.array(st.spec->b)->layout); break;
    }
    steps.push_back(block(part));
  }
  if (!opt.inRegisterBenchmark) return steps;
  // Feed the output back as the next input so nothing can be hoisted.
  const Layout& inL = s.array(s.input)->layout;
  const Layout& outL = s.array(s.output)->layout;
  std::vector<NodePtr> rep = steps;
  int nx = inL.numRegisters(), ny = outL.numRegisters();
  for (int i = 0; i < nx; ++i) {
    NodePtr v = dataReg(s.output, i % ny);
    for (int j = i + nx; j < ny; j += nx) v = bin("^", v, dataReg(s.output, j));
    rep.push_back(assign(dataReg(s.input, i), v));
  }
  return {forLoop(decl("int", "rep", lit(0)), bin("<", var("rep"), var("repeats")), assign(var("rep"), lit(1), "+="),
                  block(rep))};
}

NodePtr kernelUnit(const Plan& plan, const EmitOptions& opt, const LaunchInfo& li, NodePtr bodyBlock,
                   const std::string& headline) {
  const LayoutProgram& s = *plan.spec;
  std::vector<NodePtr> params = {decl("const __half2* __restrict__", "input"), decl("__half2* __restrict__", "output"),
                                 decl("long long", "batch"), decl("long long", "input_distance"),
                                 decl("long long", "output_distance")};
  if (opt.inRegisterBenchmark) params.push_back(decl("int", "repeats"));
  const std::string bounds = li.minBlocksPerSm > 0 ? fmt::format("{}, {}", li.blockThreads, li.minBlocksPerSm)
                                                   : std::to_string(li.blockThreads);
  NodePtr fn = function(fmt::format("extern \"C\" __global__ void __launch_bounds__({})", bounds), "", li.kernelName,
                        params, bodyBlock);
  // "void" is in the qualifiers; the printer puts the (empty) return type after them.
  fn = removeDeadCode(foldConstants(fn));

  // The spec's file path is not printed: it is the user's text (newlines and all), not the kernel's.
  std::string header =
      !headline.empty()
          ? headline
          : fmt::format("Generated by warpforge from spec '{}': {}-point input, {}-point output, {}{}, sign {:+d}.",
                        s.name, s.nIn, s.nOut, s.precision, s.accumulate == "f32" ? " with f32 MMA accumulators" : "",
                        s.sign);
  std::string layouts;
  for (const auto& a : s.arrays)
    layouts += fmt::format("  [{}] {}\n", a.name, (a.stored && opt.packedPhases ? *a.stored : a.layout).str());
  const int batchBits = s.batchBits();
  std::string counts = fmt::format(
      "Per {}: {} MMA, {} HFMA2/HMUL2, {} shfl, {} byte_perm; {} SM-cycles (eq. 30 model).",
      batchBits ? fmt::format("warp ({} FFTs)", 1 << batchBits) : "FFT",
      [&] {
        std::string m;
        for (const auto& [sh, n] : plan.total.mma) m += fmt::format("{}{}x{}", m.empty() ? "" : " + ", n, sh);
        return m;
      }(),
      plan.total.hfma2, plan.total.shuffles, plan.total.byteperms, plan.total.smCycles);
  if (s.accumulate == "f32")
    counts += fmt::format("\nf32 accumulation: {} FFMA/FMUL, {} f16 <-> f32 conversions (counted in the SM-cycles).",
                          plan.total.ffma, plan.total.cvt);
  return unit(
      {note(header + "\nRegister layouts (physical <-> logical bits):\n" + layouts + counts +
            (opt.inRegisterBenchmark ? "\nIn-register benchmark variant: the steps repeat `repeats` times per load."
                                     : "")),
       raw("#include \"warpforge_mma.cuh\""), raw("#include \"warpforge_transpose.cuh\""),
       raw("#include \"warpforge_io.cuh\""), raw(""), fn});
}

}  // namespace tcfft_detail

bool wholeRowIo(const LayoutProgram& s) { return s.batchBits() == 0 && s.nIn % 128 == 0 && s.nOut % 128 == 0; }

long long stagedSharedBytes(const LayoutProgram& s, bool asyncCopy) {
  if (!wholeRowIo(s)) return 4LL * s.warpsPerBlock * (1LL << s.batchBits()) * std::max(s.nIn, s.nOut);
  return 4LL * s.warpsPerBlock * (asyncCopy ? 2 : 1) * std::max(s.nIn, s.nOut);
}

EmitOptions defaultEmitOptions(const LayoutProgram& s) {
  EmitOptions o;
  o.asyncCopy = wholeRowIo(s) && stagedSharedBytes(s, true) + PhasePlan(s, true).tableBytes() <= kMaxAsyncSharedBytes;
  if (!wholeRowIo(s) && s.nOut == 32)
    for (int g = kShortRowGroups; g > 1 && o.rowGroups == 1; g /= 2)
      if (rowGroupsSharedBytes(s, g) <= kMaxStaticSharedBytes) o.rowGroups = g;
  return o;
}

long long rowGroupsSharedBytes(const LayoutProgram& s, int groups) {
  return 4LL * groups * (s.nIn + s.nOut) * s.warpsPerBlock << s.batchBits();
}

std::optional<EmitProblem> emitProblem(const LayoutProgram& s) {
  // Global loads and stores move (re, im) half pairs as one 32-bit word (ioPlan).
  for (const std::string* io : {&s.input, &s.output}) {
    const ArraySpec* a = s.array(*io);
    if (!a) continue;  // the parser names a missing one
    if (a->layout.logicalAt({PhysKind::B, 0}) != std::optional<std::string>("ReIm"))
      return EmitProblem{a->path + "/layout",
                         fmt::format("the {} array '{}' must put ReIm on b (b <-> ReIm): the kernel loads and stores "
                                     "each complex value as one 32-bit word",
                                     io == &s.input ? "input" : "output", a->name)};
  }
  // Phase components are fixed per register and half (PhasePlan's componentAt).
  for (const auto& a : s.arrays) {
    if (!a.isPhase()) continue;
    for (const auto& [lay, field] :
         {std::pair{&a.layout, "/layout"}, std::pair{a.stored ? &*a.stored : nullptr, "/stored"}}) {
      if (!lay) continue;
      for (const char* bit : {"ReIm", "ReIm_in", "ReIm_out"})
        if (auto p = lay->physOf(bit); p && p->kind == PhysKind::T)
          return EmitProblem{a.path + field, fmt::format("{} on a lane bit ({}) is not supported by the tc_fft emitter "
                                                         "(put it on b or r)",
                                                         bit, p->str())};
    }
  }
  // Staged I/O (the default where n_in and n_out are multiples of 128) keeps a per-warp slice
  // in static shared memory.
  if (long long bytes = stagedSharedBytes(s, false); bytes > 0) {
    bytes += PhasePlan(s, true).tableBytes();  // phases over the register budget (PhasePlan.h)
    if (bytes > kMaxStaticSharedBytes)
      return EmitProblem{"/launch/warps_per_block",
                         fmt::format("{} warps per block of {} -> {}-point FFTs need {} bytes of shared memory per "
                                     "block for staging (at most {}); "
                                     "use fewer warps per block",
                                     s.warpsPerBlock, s.nIn, s.nOut, bytes, kMaxStaticSharedBytes)};
  }
  return std::nullopt;
}

EmittedKernel emitTcFft(const Plan& plan, const EmitOptions& opt) {
  const LayoutProgram& s = *plan.spec;
  if (!wholeRowIo(s)) return tcfft_detail::emitRowByRow(plan, opt);
  EmittedKernel k;
  PhasePlan phases(s, opt.packedPhases);
  k.phaseRegisters = phases.registersHeld();
  k.phaseRegistersNaive = phases.registersNaive();

  LaunchInfo& li = k.launch;
  li.specName = s.name;
  li.kernelName = opt.inRegisterBenchmark ? s.name + "_inregister" : s.name;
  li.blockThreads = 32 * s.warpsPerBlock;
  li.fftsPerBlock = s.warpsPerBlock;
  li.nIn = s.nIn;
  li.nOut = s.nOut;
  li.inRegisterBenchmark = opt.inRegisterBenchmark;

  const Layout& inL = s.array(s.input)->layout;
  const Layout& outL = s.array(s.output)->layout;
  IoPlan inP = ioPlan(inL, 'n', s.logIn, 0), outP = ioPlan(outL, 'q', s.logOut, 0);
  li.inputVectorElems = 1 << inP.vecBits;
  li.outputVectorElems = 1 << outP.vecBits;

  std::vector<NodePtr> body = kernelPrologue(k, phases, opt);
  body.push_back(note("Element offsets contributed by the lane bits of the input and output layouts."));
  body.push_back(decl("const int", "in_lane_offset", inP.laneOffset));
  body.push_back(decl("const int", "out_lane_offset", outP.laneOffset));
  const std::string valid = declarePaddingLanes(body, inP, s.nIn);

  // Loads `target` with the input of FFT `which`.
  const bool staged = opt.staged && s.nIn % 128 == 0 && s.nOut % 128 == 0;
  if (staged) {  // whole 16-byte vectors per lane, from any layout
    li.inputVectorElems = std::max(li.inputVectorElems, 4);
    li.outputVectorElems = std::max(li.outputVectorElems, 4);
  }
  const StageSwizzle inSwz = staged && opt.swizzledStage ? stageSwizzle(inL, inP) : StageSwizzle{};
  const StageSwizzle outSwz = staged && opt.swizzledStage ? stageSwizzle(outL, outP) : StageSwizzle{};
  if (!inSwz.empty() || !outSwz.empty())
    body.push_back(
        note("The same offsets in the staging slices, whose 16-byte chunks are arranged so that the\n"
             "register accesses of one phase hit distinct banks (wf_swizzle)."));
  if (!inSwz.empty()) body.push_back(decl("const int", "in_stage_offset", inSwz.wordExpr(var("in_lane_offset"))));
  if (!outSwz.empty()) body.push_back(decl("const int", "out_stage_offset", outSwz.wordExpr(var("out_lane_offset"))));
  // Register accesses through a staging slice at `ptr` (swizzled where it has a swizzle).
  auto stageAccess = [&](const Layout& l, const IoPlan& p, const StageSwizzle& swz, const std::string& array,
                         const std::string& ptr, const std::string& laneVar, const std::string& stageVar, bool load) {
    const std::string& validVar = load ? valid : std::string();
    return swz.empty() ? registerAccess(l, p, array, ptr, laneVar, load, validVar)
                       : swizzledRegisterAccess(l, p, swz, array, ptr, stageVar, load, validVar);
  };
  const std::string loadRow = inSwz.empty() ? fmt::format("wf_warp_load16<{}, {}>", s.nIn, opt.streaming)
                                            : fmt::format("wf_warp_load16_swizzled<{}, {}, {}>", s.nIn, opt.streaming,
                                                          inSwz.helperType());
  const std::string storeRow = outSwz.empty() ? fmt::format("wf_warp_store16<{}, {}>", s.nOut, opt.streaming)
                                              : fmt::format("wf_warp_store16_swizzled<{}, {}, {}>", s.nOut,
                                                            opt.streaming, outSwz.helperType());
  const std::string loadRowAsync = inSwz.empty() ? fmt::format("wf_warp_load16_async<{}>", s.nIn)
                                                 : fmt::format("wf_warp_load16_async_swizzled<{}, {}>", s.nIn,
                                                               inSwz.helperType());
  std::function<NodePtr(const std::string&, NodePtr)> loadInput = [&](const std::string& target, NodePtr which) {
    std::vector<NodePtr> b{decl("const wf_u32*", "x_ptr",
                                cast("const wf_u32*", bin("+", var("input"), bin("*", which, var("input_distance")))))};
    if (staged) {
      b.push_back(exprStmt(call(loadRow, {var("stage"), var("x_ptr"), var("lane")})));
      b.push_back(exprStmt(call("__syncwarp", {})));
      for (auto& n : stageAccess(inL, inP, inSwz, target, "stage", "in_lane_offset", "in_stage_offset", true))
        b.push_back(n);
      b.push_back(exprStmt(call("__syncwarp", {})));
    } else {
      for (auto& n : registerAccess(inL, inP, target, "x_ptr", "in_lane_offset", true, valid)) b.push_back(n);
    }
    return block(b);
  };
  const bool async = staged && opt.asyncCopy && !opt.inRegisterBenchmark;
  const int slice = std::max(s.nIn, s.nOut);  // words of one staging buffer
  if (async) {
    const long long bytes = stagedSharedBytes(s, true);
    body.push_back(note(fmt::format(
        "Per-warp shared slices: two buffers of {} bytes. cp.async fills one with the next FFT's row\nwhile this "
        "FFT's output is staged in the other, whose input the registers hold; global\naccesses are whole 512-byte "
        "rows.{}",
        4 * slice,
        bytes > kMaxStaticSharedBytes ? fmt::format(" Dynamic shared memory: {} bytes per block.", bytes)
                                      : std::string())));
    NodePtr warpInBlock = bin(">>", member(var("threadIdx"), "x"), lit(5));
    if (bytes > kMaxStaticSharedBytes) {
      li.dynamicSharedBytes = static_cast<int>(bytes);
      body.push_back(externSharedArray("wf_u32", "stage_dynamic", 16));
      body.push_back(
          decl("wf_u32*", "stage_in", bin("+", var("stage_dynamic"), bin("*", warpInBlock, lit(2 * slice)))));
    } else {
      body.push_back(
          sharedArray("wf_u32", "stage_in_all", {decimal(s.warpsPerBlock), bin("*", lit(2), decimal(slice))}, 16));
      body.push_back(decl("wf_u32*", "stage_in", index(var("stage_in_all"), warpInBlock)));
    }
    auto issue = [&](NodePtr which, NodePtr buffer) {
      return exprStmt(
          call(loadRowAsync,
               {buffer, cast("const wf_u32*", bin("+", var("input"), bin("*", which, var("input_distance")))),
                var("lane")}));
    };
    body.push_back(
        ifStmt(bin("<", var("first_warp"), var("batch")), block({issue(var("first_warp"), var("stage_in"))})));
    body.push_back(exprStmt(call("wf_cp_async_commit", {})));
    body.push_back(decl("int", "buf", lit(0)));
    // The buffer `buf` holds this FFT's row; the other, drained by the previous FFT's row store, takes the next.
    loadInput = [&, issue, slice](const std::string& target, NodePtr) {
      std::vector<NodePtr> b;
      b.push_back(decl("const long long", "next_fft", bin("+", var("fft"), var("warp_stride"))));
      b.push_back(ifStmt(bin("<", var("next_fft"), var("batch")),
                         block({issue(var("next_fft"), bin("+", var("stage_in"),
                                                           bin("*", bin("^", var("buf"), lit(1)), lit(slice))))})));
      b.push_back(exprStmt(call("wf_cp_async_commit", {})));
      b.push_back(exprStmt(call("wf_cp_async_wait<1>", {})));
      b.push_back(exprStmt(call("__syncwarp", {})));
      for (auto& n : stageAccess(inL, inP, inSwz, target, "stage", "in_lane_offset", "in_stage_offset", true))
        b.push_back(n);
      b.push_back(exprStmt(call("__syncwarp", {})));  // all lanes read the row before the output overwrites it
      b.push_back(assign(var("buf"), lit(1), "^="));
      return block(b);
    };
  } else if (staged) {
    const int words = std::max(s.nIn, s.nOut);
    body.push_back(
        note(fmt::format("Per-warp staging slice: global accesses are whole 512-byte rows; the\nlayout-ordered "
                         "register accesses go to shared memory ({} bytes per warp).",
                         4 * words)));
    body.push_back(sharedArray("wf_u32", "stage_all", {decimal(s.warpsPerBlock), decimal(words)}, 16));
    body.push_back(decl("wf_u32*", "stage", index(var("stage_all"), bin(">>", member(var("threadIdx"), "x"), lit(5)))));
  }
  const std::string next = nextVar(s.input);
  if (opt.prefetch) {
    body.push_back(
        note(fmt::format("Prefetch: {} holds the input of the warp's next FFT while this one is computed.", next)));
    body.push_back(declArray("wf_u32", next, inL.numRegisters()));
    body.push_back(ifStmt(bin("<", var("first_warp"), var("batch")), loadInput(next, var("first_warp"))));
  }
  std::vector<NodePtr> loop;
  loop.push_back(
      decl("wf_u32*", "y_ptr", cast("wf_u32*", bin("+", var("output"), bin("*", var("fft"), var("output_distance"))))));
  if (async)
    loop.push_back(decl("wf_u32* const", "stage", bin("+", var("stage_in"), bin("*", var("buf"), lit(slice)))));
  for (const auto& a : s.arrays)
    if (!a.isPhase()) loop.push_back(declArray("wf_u32", dataVar(a.name), a.layout.numRegisters()));
  loop.push_back(note(fmt::format("Load {} [{}]: {}-element vectors.", s.input, inL.str(), li.inputVectorElems)));
  if (opt.prefetch) {
    for (int r = 0; r < inL.numRegisters(); ++r) loop.push_back(assign(dataReg(s.input, r), reg(next, r)));
    loop.push_back(decl("const long long", "next_fft", bin("+", var("fft"), var("warp_stride"))));
    loop.push_back(ifStmt(bin("<", var("next_fft"), var("batch")), loadInput(next, var("next_fft"))));
  } else {
    loop.push_back(loadInput(dataVar(s.input), var("fft")));
  }

  for (auto& n : stepsOrRepeats(plan, phases, opt)) loop.push_back(n);
  loop.push_back(note(fmt::format("Store {} [{}]: {}-element vectors.", s.output, outL.str(), li.outputVectorElems)));
  if (!staged)
    for (auto& n : registerAccess(outL, outP, dataVar(s.output), "y_ptr", "out_lane_offset", false)) loop.push_back(n);
  if (staged) {
    for (auto& n :
         stageAccess(outL, outP, outSwz, dataVar(s.output), "stage", "out_lane_offset", "out_stage_offset", false))
      loop.push_back(n);
    loop.push_back(exprStmt(call("__syncwarp", {})));
    loop.push_back(exprStmt(call(storeRow, {var("y_ptr"), var("stage"), var("lane")})));
    loop.push_back(exprStmt(call("__syncwarp", {})));
  }

  body.push_back(note("Grid-stride loop: one FFT per warp per iteration."));
  body.push_back(forLoop(decl("long long", "fft", var("first_warp")), bin("<", var("fft"), var("batch")),
                         assign(var("fft"), var("warp_stride"), "+="), block(loop)));

  NodePtr u = kernelUnit(plan, opt, li, block(body));
  k.source = print(u);
  return k;
}

}  // namespace warpforge
