// The row-by-row tc_fft kernel: several FFTs per warp (batch bits) or rows shorter than whole 512-byte warp accesses.
#include "generator/tc_fft/TcFftKernelParts.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "ast/Passes.h"
#include "ast/Printer.h"
#include "generator/tc_fft/TcFftIo.h"

namespace warpforge::tcfft_detail {

using namespace ast;

namespace {

// The loop of EmitOptions::rowGroups > 1: G groups of the warp's FFTs per iteration, so that one iteration moves G
// times the bytes (short rows leave most of the memory latency exposed otherwise). The slice holds the G groups'
// inputs, then their outputs (separate regions: a group's output stores never overwrite inputs other lanes still read,
// so one
// __syncwarp after the row copy suffices); each group's registers live in a block of their own.
void emitGroupsLoop(const Plan& plan, const PhasePlan& phases, const EmitOptions& opt, const IoPlan& inP,
                    const IoPlan& outP, const std::string& valid, std::vector<NodePtr>& body) {
  const LayoutProgram& s = *plan.spec;
  const int batchBits = s.batchBits(), per = 1 << batchBits, groups = opt.rowGroups;
  int groupBits = 0;
  while ((1 << groupBits) < groups) ++groupBits;
  if ((1 << groupBits) != groups) throw std::invalid_argument("tc_fft emitter: rowGroups must be a power of two");
  const int rows = per * groups, vecIn = std::min(4, s.nIn), vecOut = std::min(4, s.nOut);
  const long long inWords = static_cast<long long>(per) * s.nIn, outWords = static_cast<long long>(per) * s.nOut;
  const long long words = groups * (inWords + outWords);
  if (rowGroupsSharedBytes(s, groups) > kMaxStaticSharedBytes)
    throw std::invalid_argument(
        fmt::format("tc_fft emitter: {} groups per iteration need {} bytes of shared memory per block (static arrays: "
                    "at most {})",
                    groups, rowGroupsSharedBytes(s, groups), kMaxStaticSharedBytes));
  const Layout& inL = s.array(s.input)->layout;
  const Layout& outL = s.array(s.output)->layout;
  body.push_back(
      note(fmt::format("Per-warp staging slice ({} bytes): the inputs of {} groups of {} FFTs, then their outputs; "
                       "rows of {} and {} "
                       "words\nmove in {}- and {}-word vectors.",
                       4 * words, groups, per, s.nIn, s.nOut, vecIn, vecOut)));
  body.push_back(sharedArray("wf_u32", "stage_all", {decimal(s.warpsPerBlock), decimal(words)}, 16));
  body.push_back(decl("wf_u32*", "stage", index(var("stage_all"), bin(">>", member(var("threadIdx"), "x"), lit(5)))));
  body.push_back(decl("wf_u32*", "stage_out", bin("+", var("stage"), lit(groups * inWords))));
  body.push_back(
      decl("const long long", "groups", bin(">>", bin("+", var("batch"), lit(rows - 1)), lit(batchBits + groupBits))));

  std::vector<NodePtr> loop;
  loop.push_back(decl("const long long", "first_fft", bin("<<", var("group"), lit(batchBits + groupBits))));
  loop.push_back(decl("const int", "valid",
                      ternary(bin("<", bin("-", var("batch"), var("first_fft")), lit(rows)),
                              cast("int", bin("-", var("batch"), var("first_fft"))), lit(rows))));
  loop.push_back(note(fmt::format("Copy the rows of {} FFTs into the slice.", rows)));
  loop.push_back(
      exprStmt(call(fmt::format("wf_warp_load_rows<{}, {}, {}, {}>", s.nIn, rows, vecIn, opt.streaming),
                    {var("stage"),
                     cast("const wf_u32*", bin("+", var("input"), bin("*", var("first_fft"), var("input_distance")))),
                     var("input_distance"), var("valid"), var("lane")})));
  loop.push_back(exprStmt(call("__syncwarp", {})));
  for (int g = 0; g < groups; ++g) {
    std::vector<NodePtr> one;
    one.push_back(decl("const wf_u32* const", "in_g", bin("+", var("stage"), lit(g * inWords))));
    one.push_back(decl("wf_u32* const", "out_g", bin("+", var("stage_out"), lit(g * outWords))));
    for (const auto& a : s.arrays)
      if (!a.isPhase()) one.push_back(declArray("wf_u32", dataVar(a.name), a.layout.numRegisters()));
    one.push_back(note(fmt::format("Group {}: load {} [{}].", g, s.input, inL.str())));
    for (auto& n : registerAccess(inL, inP, dataVar(s.input), "in_g", "in_lane_offset", true, valid)) one.push_back(n);
    for (auto& n : stepsOrRepeats(plan, phases, opt)) one.push_back(n);
    one.push_back(note(fmt::format("Store {} [{}].", s.output, outL.str())));
    for (auto& n : registerAccess(outL, outP, dataVar(s.output), "out_g", "out_lane_offset", false)) one.push_back(n);
    loop.push_back(block(one));
  }
  loop.push_back(exprStmt(call("__syncwarp", {})));
  loop.push_back(
      exprStmt(call(fmt::format("wf_warp_store_rows<{}, {}, {}, {}>", s.nOut, rows, vecOut, opt.streaming),
                    {cast("wf_u32*", bin("+", var("output"), bin("*", var("first_fft"), var("output_distance")))),
                     var("stage_out"), var("output_distance"), var("valid"), var("lane")})));
  loop.push_back(exprStmt(call("__syncwarp", {})));
  body.push_back(note(fmt::format("Grid-stride loop: {} FFTs per warp per iteration ({} groups).", rows, groups)));
  body.push_back(forLoop(decl("long long", "group", var("first_warp")), bin("<", var("group"), var("groups")),
                         assign(var("group"), var("warp_stride"), "+="), block(loop)));
}

}  // namespace

// Several FFTs per warp (batch bits), zero-padded inputs, or rows that are not whole 512-byte warp accesses: every
// access goes through a per-warp shared slice holding the warp's FFTs back to back (FFT f at f x n), filled and drained
// row by row in the largest vectors the row length allows; a last group of the batch with fewer FFTs than the warp
// holds reads zeros for the missing ones and writes nothing for them.
EmittedKernel emitRowByRow(const Plan& plan, const EmitOptions& opt) {
  const LayoutProgram& s = *plan.spec;
  EmittedKernel k;
  PhasePlan phases(s, opt.packedPhases);
  k.phaseRegisters = phases.registersHeld();
  k.phaseRegistersNaive = phases.registersNaive();
  const int batchBits = s.batchBits(), per = 1 << batchBits;
  LaunchInfo& li = k.launch;
  li.specName = s.name;
  li.kernelName = opt.inRegisterBenchmark ? s.name + "_inregister" : s.name;
  li.blockThreads = 32 * s.warpsPerBlock;
  li.fftsPerBlock = s.warpsPerBlock * per;
  li.nIn = s.nIn;
  li.nOut = s.nOut;
  li.inRegisterBenchmark = opt.inRegisterBenchmark;
  const int vecIn = std::min(4, s.nIn), vecOut = std::min(4, s.nOut);
  li.inputVectorElems = vecIn;
  li.outputVectorElems = vecOut;

  const Layout& inL = s.array(s.input)->layout;
  const Layout& outL = s.array(s.output)->layout;
  IoPlan inP = ioPlan(inL, 'n', s.logIn, s.nIn), outP = ioPlan(outL, 'q', s.logOut, s.nOut);
  std::vector<NodePtr> body = kernelPrologue(k, phases, opt);
  body.push_back(note(per > 1 ? fmt::format("Element offsets in the warp's slice from the lane bits ({} FFTs per warp: "
                                            "FFT f at f x n).",
                                            per)
                              : std::string("Element offsets in the warp's slice from the lane bits.")));
  body.push_back(decl("const int", "in_lane_offset", inP.laneOffset));
  body.push_back(decl("const int", "out_lane_offset", outP.laneOffset));
  const std::string valid = declarePaddingLanes(body, inP, s.nIn);
  if (opt.rowGroups > 1) {
    emitGroupsLoop(plan, phases, opt, inP, outP, valid, body);
    k.source = print(kernelUnit(plan, opt, li, block(body)));
    return k;
  }
  const long long words = static_cast<long long>(per) * std::max(s.nIn, s.nOut);
  body.push_back(
      note(fmt::format("Per-warp staging slice ({} bytes): rows of {} and {} words move in {}- and {}-word vectors.",
                       4 * words, s.nIn, s.nOut, vecIn, vecOut)));
  body.push_back(sharedArray("wf_u32", "stage_all", {decimal(s.warpsPerBlock), decimal(words)}, 16));
  body.push_back(decl("wf_u32*", "stage", index(var("stage_all"), bin(">>", member(var("threadIdx"), "x"), lit(5)))));
  body.push_back(decl("const long long", "groups", bin(">>", bin("+", var("batch"), lit(per - 1)), lit(batchBits))));

  std::vector<NodePtr> loop;
  loop.push_back(decl("const long long", "first_fft", bin("<<", var("group"), lit(batchBits))));
  loop.push_back(decl("const int", "valid",
                      ternary(bin("<", bin("-", var("batch"), var("first_fft")), lit(per)),
                              cast("int", bin("-", var("batch"), var("first_fft"))), lit(per))));
  for (const auto& a : s.arrays)
    if (!a.isPhase()) loop.push_back(declArray("wf_u32", dataVar(a.name), a.layout.numRegisters()));
  loop.push_back(note(fmt::format("Load {} [{}].", s.input, inL.str())));
  loop.push_back(
      exprStmt(call(fmt::format("wf_warp_load_rows<{}, {}, {}, {}>", s.nIn, per, vecIn, opt.streaming),
                    {var("stage"),
                     cast("const wf_u32*", bin("+", var("input"), bin("*", var("first_fft"), var("input_distance")))),
                     var("input_distance"), var("valid"), var("lane")})));
  loop.push_back(exprStmt(call("__syncwarp", {})));
  for (auto& n : registerAccess(inL, inP, dataVar(s.input), "stage", "in_lane_offset", true, valid)) loop.push_back(n);
  loop.push_back(exprStmt(call("__syncwarp", {})));
  for (auto& n : stepsOrRepeats(plan, phases, opt)) loop.push_back(n);
  loop.push_back(note(fmt::format("Store {} [{}].", s.output, outL.str())));
  for (auto& n : registerAccess(outL, outP, dataVar(s.output), "stage", "out_lane_offset", false)) loop.push_back(n);
  loop.push_back(exprStmt(call("__syncwarp", {})));
  loop.push_back(
      exprStmt(call(fmt::format("wf_warp_store_rows<{}, {}, {}, {}>", s.nOut, per, vecOut, opt.streaming),
                    {cast("wf_u32*", bin("+", var("output"), bin("*", var("first_fft"), var("output_distance")))),
                     var("stage"), var("output_distance"), var("valid"), var("lane")})));
  loop.push_back(exprStmt(call("__syncwarp", {})));
  body.push_back(note(per > 1 ? fmt::format("Grid-stride loop: {} FFTs per warp per iteration.", per)
                              : std::string("Grid-stride loop: one FFT per warp per iteration.")));
  body.push_back(forLoop(decl("long long", "group", var("first_warp")), bin("<", var("group"), var("groups")),
                         assign(var("group"), var("warp_stride"), "+="), block(loop)));
  k.source = print(kernelUnit(plan, opt, li, block(body)));
  return k;
}

}  // namespace warpforge::tcfft_detail
