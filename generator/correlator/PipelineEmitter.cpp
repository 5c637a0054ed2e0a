#include "generator/correlator/PipelineEmitter.h"

#include <functional>
#include <stdexcept>

#include <fmt/format.h>

#include "generator/complexmma/ComplexMma.h"
#include "generator/correlator/DeviceHelpers.h"
#include "generator/correlator/PipelineCode.h"
#include "generator/correlator/PipelineSync.h"
#include "generator/correlator/PipelineTransform.h"
#include "generator/correlator/PipelineTriangle.h"
#include "generator/correlator/ReduceEmitter.h"
#include "generator/correlator/VisibilityStore.h"
#include "ast/Printer.h"

namespace warpforge {

namespace {

using corr_emit::Code;
using corr_emit::timeOffset;

// Bulk copies of stage `st` into raw slot `slot` (warp 0; lane 0 arms the slot's mbarrier with the stage's bytes).
void emitIssue(Code& c, const CorrelatorSpec& s, const CorrPipe& p) {
  const CorrelatorInput& in = s.input;
  c.open("auto issue_stage = [&](const int st, const int slot)");
  c(fmt::format("const int s0 = st * {}, nt = min({}, {} - s0);  // first sample and samples of the stage", p.ts, p.ts,
                p.samples));
  c(fmt::format("const unsigned raw = raw_ring + slot * {}u, bar = full_raw + 8u * slot;", p.rawSlotBytes));
  c("const int sides = diag ? 1 : 2;");
  switch (p.kind) {
    case RawKind::TimeBlocks: {
      const int nb = p.ts / p.T;
      c(fmt::format("// per side, per time block of {} samples: the tile's valid inputs, one run", p.T));
      c.open(fmt::format("for (int k = lane; k < sides * {}; k += 32)", nb));
      c(fmt::format(
          "const int side = k / {0}, blk = k % {0}, first = side ? col0 : row0, valid = side ? rows_j : rows_i;", nb));
      c(fmt::format("if (blk * {} < nt)", p.T));
      c(
          fmt::format("  wfa_bulk_g2s(raw + side * {}u + blk * {}u, chan + ((long long)(first / {}) * {}LL + ({}) ) * "
                      "{}, valid * {}u, bar);",
                      p.rawSideBytes, p.runPitch, p.P, in.receiver, timeOffset(in, fmt::format("s0 + blk * {}", p.T)),
                      p.eb, p.T * p.eb));
      c.close();
      break;
    }
    case RawKind::RowRuns:
      c("// per side, per valid input: the stage's samples, one run");
      c.open(fmt::format("for (int k = lane; k < sides * {}; k += 32)", p.rows));
      c(fmt::format("const int side = k / {0}, n = k % {0}, input = (side ? col0 : row0) + n;", p.rows));
      c(fmt::format("if (n < (side ? rows_j : rows_i))"));
      c(
          fmt::format("  wfa_bulk_g2s(raw + side * {}u + n * {}u, chan + ((long long)(input / {}) * {}LL + (long "
                      "long)(input % {}) * {}LL + ({})) * {}, nt * {}u, bar);",
                      p.rawSideBytes, p.runPitch, p.P, in.receiver, p.P, in.polarization, timeOffset(in, "s0"), p.eb,
                      p.eb));
      c.close();
      break;
    case RawKind::PolRuns:
      c("// per side, per valid receiver: the stage's (time, pol) pairs, one run");
      c.open(fmt::format("for (int k = lane; k < sides * {}; k += 32)", p.rows / 2));
      c(fmt::format("const int side = k / {0}, q = k % {0}, receiver = (side ? col0 : row0) / 2 + q;", p.rows / 2));
      c("if (2 * q < (side ? rows_j : rows_i))");
      c(
          fmt::format("  wfa_bulk_g2s(raw + side * {}u + q * {}u, chan + ((long long)receiver * {}LL + ({})) * {}, nt "
                      "* {}u, bar);",
                      p.rawSideBytes, p.runPitch, in.receiver, timeOffset(in, "s0"), p.eb, 2 * p.eb));
      c.close();
      break;
  }
  c(fmt::format("if (lane == 0) wfa_mbar_arrive_tx(bar, (unsigned)((rows_i + (diag ? 0 : rows_j)) * nt * {}));", p.eb));
  c.close(";");
}

// The loader's stage loop: per stage, the copies of a later stage, the waits, the transform, one fence and arrival.
void emitLoaderLoop(Code& c, const CorrelatorSpec& s, const CorrPipe& p, long long nst) {
  const int R = p.rawStages, S = p.opStages;
  c("int rslot = 0, rpar = 0, oslot = 0, opar = 0;");
  c(fmt::format("#pragma unroll 1"));
  c.open(fmt::format("for (int k = 0; k < {}; ++k)", nst));
  c(fmt::format("// stage k + {0} into the raw slot of stage k - 1, once every loader thread has read it", R - 1));
  c.open(fmt::format("if (warp == 0 && k + {} < {})", R - 1, nst));
  c(fmt::format("const int ps = (k + {}) % {};", R - 1, R));
  c(fmt::format("if (k > 0) while (!wfa_mbar_try_wait(empty_raw + 8u * ps, (unsigned)((k - 1) / {}) & 1u)) {{}}", R));
  c(fmt::format("issue_stage(k + {}, ps);", R - 1));
  c.close();
  c("while (!wfa_mbar_try_wait(full_raw + 8u * rslot, rpar)) {}  // stage k's samples landed");
  c("while (!wfa_mbar_try_wait(empty_op + 8u * oslot, opar ^ 1)) {}  // the consumers released the operand slot");
  c(fmt::format("const int nt = min({}, {} - k * {});", p.ts, s.samples, p.ts));
  c(fmt::format("const unsigned rawa = raw_ring + rslot * {}u, rawb = rawa + (diag ? 0u : {}u);", p.rawSlotBytes,
                p.rawSideBytes));
  c(fmt::format("const unsigned opa = op_ring + oslot * {}u, opb = opa + {}u;", p.opSlotBytes, p.aBytes));
  if (!p.sharedTransform) {
    c.open("if (!diag)");
    emitTransform(c, s, p, false, p.loaderThreads(), p.unitsPerThread);
    c.close();
  }
  c.open("");
  emitTransform(c, s, p, true, p.loaderThreads(), p.transformAssign(true).front().units);
  c.close();
  c("corr_fence_async_smem();  // the stores above are read by wgmma (async proxy)");
  c("wfa_mbar_arrive(full_op + 8u * oslot);");
  c("wfa_mbar_arrive(empty_raw + 8u * rslot);");
  c(fmt::format("if (++rslot == {}) rslot = 0, rpar ^= 1;", R));
  c(fmt::format("if (++oslot == {}) oslot = 0, opar ^= 1;", S));
  c.close();
}

}  // namespace

PipelineKernel emitPipelineCorrelate(const CorrelatorSpec& s, const CorrPipe& p, const std::string& name) {
  PipelineKernel k;
  k.name = name;
  k.pipe = p;
  const long long N = s.inputs();
  const int tps = static_cast<int>((N + p.rows - 1) / p.rows);
  k.tiles = static_cast<long long>(tps) * (tps + 1) / 2;
  const bool f16 = s.type == SampleType::CF16;
  const long long nst = (s.samples + p.ts - 1) / p.ts;
  const PipeAccumulator place = pipeAccumulator(p);
  const PipeDescriptors desc = pipeDescriptors(p);  // accumulator positions, read from the atom
  const int R = p.rawStages, S = p.opStages;
  const long long eb = p.eb;
  const int acc = p.atom().accRegs();

  std::string head = fmt::format(
      "// {}: correlate {} receivers x {} pol, {} channels, {} samples per call ({}), {} layout; generated by "
      "warpforge (correlator family)\n"
      "// sm_90a warp-specialized pipeline: {} x {} input tiles; {} loader warpgroup(s) ({} raw slots of {} B by "
      "cp.async.bulk: {}) transform into {} operand "
      "slots of {} B ({}); {} consumer warpgroup(s) of {}; {} samples per stage\n",
      name, s.receivers, s.polarizations, s.channels, s.samples, sampleTypeName(s.type), s.input.layout, p.rows, p.rows,
      p.loaders, R, p.rawSlotBytes, rawKindName(p.kind), S, p.opSlotBytes, wgmmaSwizzleName(p.swizzle), p.consumers,
      p.atom().ptx(), p.ts);
  if (s.writesVisibilities())
    head += fmt::format("// output: each batch entry's {} visibilities of the call, written once ({}-byte stores)\n",
                        f16 ? "f32" : "int32", s.polarizations == 2 ? 16 : 8);
  head += cmma::sm90aGuard();
  std::string table = fmt::format(
      "// The transform's units of one 8-row group (thread t takes entry t % {}): x = raw offsets of its reads, y = "
      "operand offsets of its\n"
      "// writes (12 bits each), its first chunk (bits 24-27), pol 1's row written first (bit 28).\n__constant__ uint2 "
      "corr_units[{}] = {{",
      p.units.size(), p.units.size());
  for (std::size_t i = 0; i < p.units.size(); ++i) {
    const PipeUnit& u = p.units[i];
    const unsigned x = static_cast<unsigned>(u.reads[0]) |
                       static_cast<unsigned>(u.reads.size() > 1 ? u.reads[1] : u.reads[0]) << 16;
    const unsigned o0 = static_cast<unsigned>(p.aOffset(u.outs[0].first, 16 * u.outs[0].second));
    const unsigned o1 = u.outs.size() > 1 ? static_cast<unsigned>(p.aOffset(u.outs[1].first, 16 * u.outs[1].second))
                                          : o0;
    const unsigned y = o0 | o1 << 12 | static_cast<unsigned>(u.chunk) << 24 | (u.swapOut ? 1u : 0u) << 28;
    table += fmt::format("{}{{{:#x}u, {:#x}u}}", i ? ", " : "", x, y);
  }
  table += "};\n";

  Code c;
  corr_emit::emitKernelOpening(c, s, name, p.threads, p.blocksPerSm, k.tiles, p.rows, static_cast<int>(eb),
                               "A is B's sample rows: one side copied and transformed");
  c(fmt::format("const int rows_i = min({0}, {1} - row0), rows_j = min({0}, {1} - col0);", p.rows, N));
  c("// shared memory: the operand ring at a 1024-aligned base (64-byte swizzle atoms), the raw ring, the mbarriers");
  c("const unsigned smem0 = (unsigned)__cvta_generic_to_shared(wf_smem);");
  c("const unsigned op_ring = (smem0 + 1023u) & ~1023u;");
  c(fmt::format("const unsigned raw_ring = op_ring + {}u, bars = op_ring + {}u;", p.rawRing, p.barriers));
  c(fmt::format("const unsigned full_raw = bars, empty_raw = bars + {}u, full_op = bars + {}u, empty_op = bars + {}u;",
                8 * R, 16 * R, 16 * R + 8 * S));
  c.open("if (tid == 0)");
  // Arrivals: a stage's raw slot is read, and its operand slot written, by the loader (and the consumers: shared
  // transform).
  const int transformers = p.loaderThreads() + (p.sharedTransform ? 128 * p.consumers : 0);
  c(
      fmt::format("for (int i = 0; i < {}; ++i) {{ wfa_mbar_init(full_raw + 8u * i, 1u); wfa_mbar_init(empty_raw + 8u "
                  "* i, {}u); }}",
                  R, transformers));
  c(
      fmt::format("for (int i = 0; i < {}; ++i) {{ wfa_mbar_init(full_op + 8u * i, {}u); wfa_mbar_init(empty_op + 8u * "
                  "i, {}u); }}",
                  S, transformers, 4 * p.consumers));
  c("wfa_fence_mbar_init();");
  c.close();
  c("__syncthreads();  // the only block-wide barrier: the mbarriers are initialised");

  // ---- loader warpgroup(s)
  c.open(fmt::format("if (warp < {})", 4 * p.loaders));
  if (p.loaderRegs) c(fmt::format("wfa_setmaxnreg_dec<{}>();", p.loaderRegs));
  emitIssue(c, s, p);
  emitUnitVariables(c, p, "tid", p.loaderThreads());
  if (p.stagesPerSync > 1) {
    emitGroupedLoader(c, s, p, nst);
  } else {
    c(fmt::format("if (warp == 0) for (int st = 0; st < {} && st < {}; ++st) issue_stage(st, st);", R - 1, nst));
    emitLoaderLoop(c, s, p, nst);
  }
  c.close(" else {");
  // ---- consumer warpgroups
  c.depth++;
  if (p.consumerRegs) c(fmt::format("wfa_setmaxnreg_inc<{}>();", p.consumerRegs));
  if (p.wholeTriangle) {
    c(fmt::format("const int cg = (warp >> 2) - {};  // consumer warpgroup: its pieces of the triangle", p.loaders));
    emitTriangleConsumers(c, s, p);
    c.close();
    c.close();
    k.source = head + correlatorPipelineHelpers(p) + table + c.text;
    return k;
  }
  c(fmt::format("const int cg = (warp >> 2) - {};  // consumer warpgroup: rows 64 cg .. 64 cg + 63 of the tile",
                p.loaders));
  c(fmt::format("{} d[{}];", f16 ? "float" : "int", acc));
  c("#pragma unroll");
  c(fmt::format("for (int z = 0; z < {}; ++z) d[z] = 0;", acc));
  // The descriptors of slot 0, k-step 0, from those checkPipeline reads the operands through (pipeDescriptors).
  auto ring = [](unsigned start) { return start ? fmt::format("op_ring + {}u", start) : std::string("op_ring"); };
  c(
      fmt::format("const unsigned long long da0 = diag ? corr_desc_sw64_diag({} + cg * {}u) : "
                  "corr_desc_sw64({} + cg * {}u);",
                  ring(desc.diag.start), desc.diagPerGroup, ring(desc.a.start), desc.aPerGroup));
  c(fmt::format("const unsigned long long db0 = corr_desc_sw64({});", ring(desc.b.start)));
  if (p.consumers == 2) {
    c("// On a diagonal tile the second warpgroup's rows (inputs 64..127) need only columns 64..127: an m64 x rows "
      "wgmma over B's");
    c("// second half into d[0 .. rows / 2 - 1] (the first half's columns would all fall below the diagonal).");
    c("const bool half = diag && cg == 1;");
    c(fmt::format("const unsigned long long dbh = db0 + {}ull;", desc.halfOfB));
  }
  if (p.sharedTransform && p.stagesPerSync > 1) {
    // A (the row side) of a group of stages: from the raw slots to the operand slots, while the previous group's
    // wgmmas run.
    emitUnitVariables(c, p, fmt::format("(tid - {})", p.loaderThreads()), 128 * p.consumers);
    emitGroupedTransformA(c, s, p, nst);
    c("transform_a(0);");
  } else if (p.sharedTransform) {
    // A (the row side) of stage st: from the raw slot to the operand slot, while the previous stage's wgmmas run.
    emitUnitVariables(c, p, fmt::format("(tid - {})", p.loaderThreads()), 128 * p.consumers);
    c.open("auto transform_a = [&](const int st)");
    c(fmt::format("const int rs = st % {}, os = st % {};", R, S));
    c(fmt::format("while (!wfa_mbar_try_wait(full_raw + 8u * rs, (unsigned)(st / {}) & 1u)) {{}}", R));
    c(fmt::format("while (!wfa_mbar_try_wait(empty_op + 8u * os, ((unsigned)(st / {}) & 1u) ^ 1u)) {{}}", S));
    c.open("if (!diag)");
    c(fmt::format("const int nt = min({}, {} - st * {});", p.ts, s.samples, p.ts));
    c(fmt::format("const unsigned rawa = raw_ring + rs * {}u, opa = op_ring + os * {}u;", p.rawSlotBytes,
                  p.opSlotBytes));
    emitTransform(c, s, p, false, 128 * p.consumers, p.aUnitsPerThread);
    c.close();
    emitConsumersB(c, s, p);
    c("corr_fence_async_smem();");
    c("wfa_mbar_arrive(full_op + 8u * os);");
    c("wfa_mbar_arrive(empty_raw + 8u * rs);");
    c.close(";");
    c("transform_a(0);");
  }
  // One stage per wait (the default): wait, wgmmas, commit, keep one stage in flight, release the slot before it.
  auto emitOneStageLoop = [&](bool halfForm) {
    c("int oslot = 0, opar = 0, prev = 0;");
    c("#pragma unroll 1");
    c.open(fmt::format("for (int k = 0; k < {}; ++k)", nst));
    c("while (!wfa_mbar_try_wait(full_op + 8u * oslot, opar)) {}  // the stage's operands are staged");
    c(
        fmt::format("const unsigned long long so = (unsigned long long)(oslot * {}u);  // slot offset >> 4 (the "
                    "descriptors' start field)",
                    desc.perSlot));
    c("corr_wgmma_fence();");
    for (int ks = 0; ks < p.steps; ++ks) {
      if (halfForm)
        c(fmt::format("corr_wgmma_half(reinterpret_cast<{} (&)[{}]>(d), da0 + so + {}ull, dbh + so + {}ull);",
                      f16 ? "float" : "int", acc / 2, desc.perStep[ks], desc.perStep[ks]));
      else
        c(fmt::format("corr_wgmma(d, da0 + so + {0}ull, db0 + so + {0}ull);  // k bytes {1} .. {2}", desc.perStep[ks],
                      32 * ks, 32 * ks + 31));
    }
    c("corr_wgmma_commit();");
    if (p.sharedTransform) c(fmt::format("if (k + 1 < {}) transform_a(k + 1);  // while stage k's wgmmas run", nst));
    c("corr_wgmma_wait<1>();  // stage k - 1's wgmmas are done: its slot goes back to the loader");
    c("__syncwarp(0xffffffffu);  // every lane's wait above precedes lane 0's release (the memory model's order, not "
      "the ISA's "
      "aligned execution)");
    c("if (k > 0 && lane == 0) wfa_mbar_arrive(empty_op + 8u * prev);");
    c("prev = oslot;");
    c(fmt::format("if (++oslot == {}) oslot = 0, opar ^= 1;", S));
    c.close();
  };
  // The stage loop, once per wgmma form: a branch around wgmma instructions inside the loop would serialize them
  // (ptxas).
  auto loop = [&](bool halfForm) {
    if (p.stagesPerSync > 1) {
      auto issue = [&](const std::string& so) {
        for (int ks = 0; ks < p.steps; ++ks) {
          if (halfForm)
            c(fmt::format("corr_wgmma_half(reinterpret_cast<{} (&)[{}]>(d), da0 + {} + {}ull, dbh + {} + {}ull);",
                          f16 ? "float" : "int", acc / 2, so, desc.perStep[ks], so, desc.perStep[ks]));
          else c(fmt::format("corr_wgmma(d, da0 + {0} + {1}ull, db0 + {0} + {1}ull);", so, desc.perStep[ks]));
        }
      };
      // The next group's A, while this group's wgmmas run (its slots are the previous group's, released above).
      auto transformNext = [&](const std::string& k) {
        c(fmt::format("if ({0} + {1} < {2}) transform_a({0} + {1});", k, p.stagesPerSync, nst));
      };
      emitGroupedConsumerLoop(c, p, nst, desc.perSlot, issue,
                              p.sharedTransform ? std::function<void(const std::string&)>(transformNext) : nullptr);
    } else {
      emitOneStageLoop(halfForm);
    }
    c("corr_wgmma_wait<0>();  // in each branch: a wgmma group open across the branches' join is serialized by ptxas");
    if (s.writesVisibilities()) {
      // In each branch too: after the join ptxas serialized the f32 wgmmas of the 128-input tile (C7514).
      c(fmt::format("// writes the tile's visibilities of this call: Re in d[i], Im in d[i + 4] ((i / 4) even)"));
      c(fmt::format("const int gi0 = row0 + 64 * cg + {}, gj0 = col0 + {}{};", place.rowOfThread, place.inputOfThread,
                    halfForm ? " + 64" : ""));
      c(fmt::format("{0}* const visv = ({0}*)vis + (b * {1}LL + channel) * {2}LL;", f16 ? "float2" : "int2", s.channels,
                    s.visibilitiesPerChannel()));
      for (const auto& st : corr_emit::emitPipelineVisibilityStore(s, p, halfForm)) c.lines(ast::print(st));
    }
  };
  if (p.consumers == 2) {
    c.open("if (half)");
    loop(true);
    c.close(" else {");
    c.depth++;
    loop(false);
    c.close();
  } else {
    c.open("");
    loop(false);
    c.close();
  }
  if (s.writesVisibilities()) {  // stored in each branch above
    c.close();
    c.close();
    k.source = head + correlatorPipelineHelpers(p) + table + c.text;
    return k;
  }
  // The store: accumulator i of thread (warp, lane) is row 16 (warp % 4) + lane / 4 + 8 ((i / 2) % 2) of this
  // warpgroup's 64 and D column 8 (i / 4) + 2 (lane % 4) + i % 2 = part (i / 4) % 2 of column input 8 (i / 8) + 2 (lane
  // % 4) + i % 2; the constants are read from the accumulator atom (pipeAccumulator; e = 2 h + c needs the row half on
  // register bit 1 and the next column input on bit 0).
  if (place.regRowHalf != 2 || place.regInput != 1)
    throw std::logic_error("correlator pipeline: the accumulator store expects registers e = 2 (row half) + input");
  c("// adds the tile's visibilities to the batch entry's accumulators: Re in d[i], Im in d[i + 4] ((i / 4) even)");
  c(fmt::format("const int gi0 = row0 + 64 * cg + {}, gj0 = col0 + {}{};", place.rowOfThread, place.inputOfThread,
                p.consumers == 2 ? " + (half ? 64 : 0)" : ""));
  emitAccumulatorAdd(c, s, place, p.rows / place.inputBlock,
                     p.consumers == 2 ? fmt::format(" && !(half && q >= {})", p.rows / 16) : "");
  c.close();
  c.close();
  k.source = head + correlatorPipelineHelpers(p) + table + c.text;
  return k;
}

void emitAccumulatorAdd(Code& c, const CorrelatorSpec& s, const PipeAccumulator& place, int blocks,
                        const std::string& guard) {
  const bool f16 = s.type == SampleType::CF16;
  c(fmt::format("{0}* const accv = ({0}*)acc + (b * {1}LL + channel) * {2}LL;", f16 ? "float2" : "longlong2",
                s.channels, s.visibilitiesPerChannel()));
  c("#pragma unroll");
  c.open(fmt::format("for (int q = 0; q < {}; ++q)", blocks));
  c("#pragma unroll");
  c.open("for (int e = 0; e < 4; ++e)");
  c(fmt::format("const int gi = gi0 + {} * (e >> 1), gj = gj0 + {} * q + (e & 1);", place.rowHalf, place.inputBlock));
  if (s.polarizations == 2) c("const int r1 = gi >> 1, r2 = gj >> 1;");
  else c("const int r1 = gi, r2 = gj;");
  c.open(fmt::format("if (r1 <= r2 && gj < {}{})", s.inputs(), guard));
  c("const long long bl = (long long)r2 * (r2 + 1) / 2 + r1;");
  if (s.polarizations == 2) {
    const bool r1r2 = s.polOrder == "r1_r2";
    c(fmt::format("{}* const dst = accv + (bl * 2 + ({})) * 2 + ({});", f16 ? "float2" : "longlong2",
                  r1r2 ? "gi & 1" : "gj & 1", r1r2 ? "gj & 1" : "gi & 1"));
  } else {
    c(fmt::format("{}* const dst = accv + bl;", f16 ? "float2" : "longlong2"));
  }
  c(fmt::format("{} o = dst[0];", f16 ? "float2" : "longlong2"));
  c(fmt::format("o.x += {}d[{} * q + e];", f16 ? "" : "(long long)", place.regBlock));
  c(fmt::format("o.y {}= {}d[{} * q + e + {}];", s.conjugate == "r1" ? "-" : "+", f16 ? "" : "(long long)",
                place.regBlock, place.regIm));
  c("dst[0] = o;");
  c.close();
  c.close();
  c.close();
}

CorrelatorKernels emitCorrelatorPipeline(const CorrelatorSpec& s, int rows, int stages, bool sharedTransform,
                                         int rawStages, bool wholeTriangle) {
  const CorrPipe p = corrPipe(s, rows, stages, rawStages, sharedTransform, wholeTriangle);
  rows = p.rows;
  CorrelatorKernels k;
  k.correlateName = s.name + "_correlate";
  k.reduceName = s.name + "_reduce";
  const PipelineKernel pk = emitPipelineCorrelate(s, p, k.correlateName);
  k.correlateSource = pk.source;
  k.tiling.rowsPerBlock = rows;
  k.tiling.wgmma = true;
  k.tiling.warpRows = 16;
  k.tiling.warpCols = rows;
  k.tiling.warpsI = p.threads / 32;  // threads() = the block (loader + consumers)
  k.tiling.warpsJ = 1;
  k.tiling.tilesPerSide = static_cast<int>((s.inputs() + rows - 1) / rows);
  k.loadPath = LoadPath::Time;
  k.sharedBytes = p.sharedBytes;
  k.dynamicShared = true;
  k.mmasPerStage = static_cast<long long>(p.consumers) * (2 * rows / 8) * 4 *
                   p.steps;  // m16n8 equivalents per block and stage
  if (p.wholeTriangle) {
    k.mmasPerStage = 0;
    for (const auto& pieces : p.pieces)
      for (const PipePiece& pc : pieces) k.mmasPerStage += static_cast<long long>(2 * pc.width / 8) * 4 * p.steps;
  }
  k.wholeTriangle = p.wholeTriangle;
  k.wgmma = true;
  k.pipeline = true;
  k.opStages = p.opStages;
  k.rawStages = p.rawStages;
  k.sharedTransform = p.sharedTransform;
  k.visibilities = s.writesVisibilities();
  if (!k.visibilities) k.reduceSource = emitReduce(s, k.reduceName, k.reduceThreads, k.reduceUnroll);
  return k;
}

}  // namespace warpforge
