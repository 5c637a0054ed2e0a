#include "generator/correlator/CorrelatorEmitter.h"

#include "generator/complexmma/ComplexMma.h"

#include <stdexcept>

#include <fmt/format.h>

#include "ast/Passes.h"
#include "ast/Printer.h"
#include "generator/correlator/CorrelatorEmitContext.h"
#include "generator/correlator/DeviceHelpers.h"
#include "generator/correlator/ReduceEmitter.h"
#include "generator/correlator/VisibilityStore.h"

namespace warpforge {

using namespace ast;

const char* loadPathName(LoadPath p) {
  switch (p) {
    case LoadPath::Time: return "time-contiguous vectors";
    case LoadPath::PolTime: return "(time, pol) vectors split in registers";
    case LoadPath::Element: return "one sample per load";
  }
  return "?";
}

namespace {

using namespace corr_emit;

// The MMA steps of one stage for this warp's tile: per step, the A fragments (warpRows / 16, one ldmatrix.x4
// each) and the B fragments (warpCols / 4 of 4 inputs x (re, im) columns, two per ldmatrix.x4; the ReIm_out = 1
// columns read the conj_perm copy), then fa x fb MMAs. The lane parts of the addresses come from the
// ldmatrix address layouts (checked against the operand layouts by correlatorConsistency).
// Per-thread shared-memory addresses of the fragment loads (32-bit shared window, set up once): the lane parts
// come from the ldmatrix address layouts; a stage adds its buffer, a fragment and a step constant offsets.
std::vector<NodePtr> emitComputeSetup(const Ctx& x) {
  std::vector<NodePtr> out;
  const CorrelatorMma& m = x.m;
  const int P = x.P;
  const auto rowNames = sideNames(1, P, 4), colNames = sideNames(2, P, 3);
  const int inWord = m.timesPerWord == 2 ? 1 : 0;
  const auto words = names("time", inWord, 3);
  const int S = x.rowStride;
  out.push_back(
      decl("const unsigned", "smem_base", cast("unsigned", call("__cvta_generic_to_shared", {var("wf_smem")}))));
  out.push_back(decl("const unsigned", "a_base",
                     bin("+", var("smem_base"),
                         bin("*",
                             bin("+", bin("*", bin("+", var("wrow"), laneField(m.aAddr, rowNames)), lit(S)),
                                 laneField(m.aAddr, words)),
                             lit(4)))));
  // sb[column input][ReIm_out][word] after sa's rows
  NodePtr bRow = bin("+", bin("*", bin("+", var("wcol"), laneField(m.bAddr, colNames)), lit(2)),
                     laneField(m.bAddr, {"ReIm_out"}));
  out.push_back(
      decl("const unsigned", "b_base",
           bin("+", var("smem_base"),
               bin("*",
                   bin("+", bin("+", lit(static_cast<long long>(x.t.rowsPerBlock) * S), bin("*", bRow, lit(S))),
                       laneField(m.bAddr, words)),
                   lit(4)))));
  return out;
}

std::vector<NodePtr> emitCompute(const Ctx& x) {
  std::vector<NodePtr> out;
  const CorrelatorMma& m = x.m;
  const int fa = x.t.warpRows / 16, fb = x.t.warpCols / 4;
  if (fb % 2) throw std::logic_error("correlator emitter: B fragments are loaded in pairs");
  const int S = x.rowStride;
  const int steps = x.ts / m.timesPerStep;
  const int wordsPerStep = m.timesPerStep / m.timesPerWord;
  std::vector<NodePtr> loop;
  for (int f = 0; f < fa; ++f) {
    std::vector<NodePtr> args{
        bin("+", bin("+", var("a_base"), var("buf")),
            bin("*", bin("+", lit(static_cast<long long>(f) * 16 * S), bin("*", var("ks"), lit(wordsPerStep))),
                lit(4)))};
    for (int r = 0; r < 4; ++r) {
      loop.push_back(decl("wf_u32", fmt::format("a{}_{}", f, r)));
      args.push_back(var(fmt::format("a{}_{}", f, r)));
    }
    loop.push_back(exprStmt(call("corr_ldsm4", args)));
  }
  // B pairs loaded just before their MMAs (fewer live registers: 128-row blocks run at 128 per thread).
  const bool f16 = x.s.type == SampleType::CF16;
  for (int g = 0; g < fb / 2; ++g) {
    // 8 column inputs further = 16 rows of sb
    std::vector<NodePtr> args{
        bin("+", bin("+", var("b_base"), var("buf")),
            bin("*", bin("+", lit(static_cast<long long>(g) * 16 * S), bin("*", var("ks"), lit(wordsPerStep))),
                lit(4)))};
    for (int h = 0; h < 2; ++h)
      for (int r = 0; r < 2; ++r) {
        loop.push_back(decl("wf_u32", fmt::format("b{}_{}", 2 * g + h, r)));
        args.push_back(var(fmt::format("b{}_{}", 2 * g + h, r)));
      }
    loop.push_back(exprStmt(call("corr_ldsm4", args)));
    for (int j = 2 * g; j < 2 * g + 2; ++j)
      for (int i = 0; i < fa; ++i) {
        std::vector<NodePtr> margs;
        for (int c = 0; c < 4; ++c) margs.push_back(index("d", (i * fb + j) * 4 + c));
        for (int reg = 0; reg < 4; ++reg) margs.push_back(var(fmt::format("a{}_{}", i, reg)));
        margs.push_back(var(fmt::format("b{}_0", j)));
        margs.push_back(var(fmt::format("b{}_1", j)));
        loop.push_back(exprStmt(call(f16 ? "corr_mma_f16" : "corr_mma_s8", margs)));
      }
  }
  out.push_back(raw("#pragma unroll"));
  out.push_back(forLoop(decl("int", "ks", lit(0)), bin("<", var("ks"), lit(steps)), assign(var("ks"), lit(1), "+="),
                        block(loop)));
  return out;
}

// wgmma path: descriptors of this warpgroup's A rows and of the B rows (buffer 0, k-step 0), set up once; their start,
// LBO and SBO are those of WgmmaStage::descA / descB, the descriptors correlatorConsistency reads the operands through.
std::vector<NodePtr> emitWgmmaSetup(const Ctx& x) {
  std::vector<NodePtr> out;
  const WgmmaDescriptor a0 = x.ws.descA(0, 0, 0), a1 = x.ws.descA(0, 1, 0), b0 = x.ws.descB(0, 0);
  out.push_back(
      decl("const unsigned", "smem_base", cast("unsigned", call("__cvta_generic_to_shared", {var("wf_smem")}))));
  auto desc = [&](NodePtr start, const WgmmaDescriptor& d) {
    return call("corr_desc", {std::move(start), lit(d.lbo), lit(d.sbo)});
  };
  NodePtr aStart = bin("*", bin(">>", var("warp"), lit(2)), lit(a1.start - a0.start));
  if (a0.start) aStart = bin("+", lit(a0.start), aStart);
  out.push_back(decl("const unsigned long long", "desc_a", desc(bin("+", var("smem_base"), aStart), a0)));
  out.push_back(decl("const unsigned long long", "desc_b", desc(bin("+", var("smem_base"), lit(b0.start)), b0)));
  return out;
}

// One stage's wgmmas (async): per k-step of 32 bytes, D (m64 x 2 rows) += A (this warpgroup's 64 rows) B (all columns).
// The descriptors' start field advances by the buffer and by the k-step (2 core matrices = 2 lbo bytes), in 16-byte
// units: descA / descB of the k-step less those of k-step 0.
std::vector<NodePtr> emitWgmmaStage(const Ctx& x) {
  std::vector<NodePtr> out;
  const int steps = x.ws.kBytes / x.ws.bytesPerStep;
  out.push_back(exprStmt(call("corr_wgmma_fence", {})));
  for (int ks = 0; ks < steps; ++ks) {
    const long long stepA = (x.ws.descA(0, 0, ks).start - x.ws.descA(0, 0, 0).start) >> 4,
                    stepB = (x.ws.descB(0, ks).start - x.ws.descB(0, 0).start) >> 4;
    out.push_back(exprStmt(call("corr_wgmma", {var("d"), bin("+", var("desc_a"), bin("+", var("buf16"), lit(stepA))),
                                               bin("+", var("desc_b"), bin("+", var("buf16"), lit(stepB)))})));
  }
  out.push_back(exprStmt(call("corr_wgmma_commit", {})));
  return out;
}

// Adds the warp's visibilities to the batch entry's accumulator (C layout: c0 c1 = re, im of (row, column input)).
std::vector<NodePtr> emitStore(const Ctx& x) {
  std::vector<NodePtr> out;
  const CorrelatorMma& m = x.m;
  const int fa = x.t.warpRows / 16, fb = x.t.warpCols / 4;
  const int P = x.P;
  const auto rowNames = sideNames(1, P, 4), colNames = sideNames(2, P, 2);
  out.push_back(decl("const int", "c_row", laneField(m.c, rowNames)));
  out.push_back(decl("const int", "c_col", laneField(m.c, colNames)));
  const bool f16 = x.s.type == SampleType::CF16;
  const std::string vec = f16 ? "float2" : "longlong2";
  const bool negIm = x.s.conjugate == "r1";
  for (int i = 0; i < fa; ++i)
    for (int j = 0; j < fb; ++j)
      for (int reg = 0; reg < 4; ++reg) {
        if (regField(m.c, {"ReIm_out"}, reg)) continue;  // the imaginary register goes with its real one
        int imReg = -1;
        for (int r2 = 0; r2 < 4; ++r2)
          if (regField(m.c, {"ReIm_out"}, r2) && regField(m.c, rowNames, r2) == regField(m.c, rowNames, reg) &&
              regField(m.c, colNames, r2) == regField(m.c, colNames, reg))
            imReg = r2;
        const int d = (i * fb + j) * 4;
        std::vector<NodePtr> body;
        body.push_back(decl("const int", "gi",
                            bin("+", bin("+", var("trow"), var("c_row")), lit(i * 16 + regField(m.c, rowNames, reg)))));
        body.push_back(decl("const int", "gj",
                            bin("+", bin("+", var("tcol"), var("c_col")), lit(j * 4 + regField(m.c, colNames, reg)))));
        body.push_back(decl("const int", "r1", P == 2 ? bin(">>", var("gi"), lit(1)) : var("gi")));
        body.push_back(decl("const int", "r2", P == 2 ? bin(">>", var("gj"), lit(1)) : var("gj")));
        std::vector<NodePtr> st;
        NodePtr bl = bin("+", bin("/", bin("*", cast("long long", var("r2")), bin("+", var("r2"), lit(1))), lit(2)),
                         var("r1"));
        NodePtr e = bl;
        if (P == 2) {
          NodePtr p = bin("&", var("gi"), lit(1)), q = bin("&", var("gj"), lit(1));
          if (x.s.polOrder == "r2_r1") std::swap(p, q);
          e = bin("+", bin("*", bin("+", bin("*", bl, lit(2)), p), lit(2)), q);
        }
        st.push_back(decl(vec + "*", "dst", bin("+", var("accv"), e)));
        st.push_back(decl(vec, "o", index(var("dst"), lit(0))));
        NodePtr re = index("d", d + reg), im = index("d", d + imReg);
        st.push_back(assign(member(var("o"), "x"), f16 ? re : cast("long long", re), "+="));
        st.push_back(assign(member(var("o"), "y"), f16 ? im : cast("long long", im), negIm ? "-=" : "+="));
        st.push_back(assign(index(var("dst"), lit(0)), var("o")));
        body.push_back(ifStmt(bin("&&", bin("<=", var("r1"), var("r2")), bin("<", var("gj"), lit(x.N))), block(st)));
        out.push_back(block(body));
      }
  return out;
}

}  // namespace

LoadPath chooseLoadPath(const CorrelatorSpec& s, int& vectorTimes) {
  const CorrelatorInput& in = s.input;
  const long long vt = s.type == SampleType::CF16 ? 4 : 8;  // 4 staged words
  auto aligned = [&](long long stride, long long unit) { return stride % unit == 0; };
  const long long T = in.timesPerBlock;
  const bool split = T > 1;
  const int ts = s.tuning.timesPerStage;
  // Time: consecutive times adjacent.
  const bool timeUnit = split ? in.time == 1 && T % vt == 0 : in.timeBlock == 1;
  if (timeUnit && ts % vt == 0 && aligned(in.batch, vt) && aligned(in.channel, vt) && aligned(in.receiver, vt) &&
      (s.polarizations == 1 || aligned(in.polarization, vt)) && (!split || aligned(in.timeBlock, vt))) {
    vectorTimes = static_cast<int>(vt);
    return LoadPath::Time;
  }
  // PolTime: (time, pol) pairs adjacent, pol fastest.
  const bool polUnit = s.polarizations == 2 && in.polarization == 1 &&
                       (split ? in.time == 2 && T % vt == 0 : in.timeBlock == 2);
  const long long span = 2 * vt;
  if (polUnit && ts % vt == 0 && aligned(in.batch, span) && aligned(in.channel, span) && aligned(in.receiver, span) &&
      (!split || aligned(in.timeBlock, span))) {
    vectorTimes = static_cast<int>(vt);
    return LoadPath::PolTime;
  }
  vectorTimes = static_cast<int>(vt);  // the Element path still fills 4 staged words per unit
  return LoadPath::Element;
}

CorrelatorKernels emitCorrelator(const CorrelatorSpec& s, bool wgmma, bool cpAsync) {
  Ctx x{s, correlatorMma(s.type, s.polarizations), correlatorTiling(s, wgmma), LoadPath::Element};
  x.wg = wgmma;
  if (wgmma) x.ws = wgmmaStage(s, x.t.rowsPerBlock);
  x.path = chooseLoadPath(s, x.vt);
  x.ts = s.tuning.timesPerStage;
  x.P = s.polarizations;
  x.N = s.inputs();
  x.wordsPerRow = x.ts / x.m.timesPerWord;
  // ldmatrix (8 rows of 16 bytes per phase) and the 16-byte fill stores are conflict-free when the row stride is 4 mod
  // 8 words.
  x.rowStride = correlatorRowStride(x.ts, s.type);
  CorrelatorKernels k;
  k.tiling = x.t;
  k.loadPath = x.path;
  k.vectorTimes = x.vt;
  k.correlateName = s.name + "_correlate";
  k.reduceName = s.name + "_reduce";
  const int rows = x.t.rowsPerBlock;
  const bool f16 = s.type == SampleType::CF16;
  // Two stage buffers: the fill of stage s + 1 overlaps the MMAs of stage s, one __syncthreads() per stage.
  const int bufWords = (wgmma ? x.ws.bufferBytes : correlatorSharedBytes(rows, x.ts, s.type)) / 4;
  k.sharedBytes = 2 * bufWords * 4;
  // wgmma with a vector load path: global -> shared by cp.async into a ring of raw slots, `ring` stages in flight,
  // where the ring fits beside the two stage buffers (else the register double buffering below).
  int ring = 0;
  x.async = wgmma && cpAsync && x.path != LoadPath::Element;
  Fill fill;
  if (x.async) {
    fill = emitFill(x);
    for (int r = 3; r >= 2 && !ring; --r)
      if (k.sharedBytes + r * fill.rawStageBytes <= kWgmmaMaxShared) ring = r;
    if (ring) k.sharedBytes += ring * fill.rawStageBytes;
    else x.async = false;
  }
  if (!x.async) fill = emitFill(x);
  k.rawRing = ring;
  k.dynamicShared = k.sharedBytes > 48 * 1024;
  k.mmasPerStage = static_cast<long long>(x.t.warpsI) * x.t.warpsJ * (x.t.warpRows / 16) * (x.t.warpCols / 4) *
                   (x.ts / x.m.timesPerStep);

  std::vector<NodePtr> body;
  if (k.dynamicShared) body.push_back(externSharedArray("wf_u32", "wf_smem", 16));
  else
    body.push_back(sharedArray("wf_u32", "wf_smem", {decimal(k.sharedBytes / 4)}, 16));  // stage buffers (+ raw ring)
  body.push_back(decl("const int", "tid", var("threadIdx.x")));
  body.push_back(decl("const int", "lane", bin("&", var("tid"), lit(31))));
  body.push_back(decl("const int", "warp", bin(">>", var("tid"), lit(5))));
  body.push_back(decl("const int", "wi", bin("/", var("warp"), lit(x.t.warpsJ))));
  body.push_back(decl("const int", "wj", bin("%", var("warp"), lit(x.t.warpsJ))));
  // block -> (batch entry, channel, triangle tile)
  body.push_back(decl("long long", "unit", var("blockIdx.x")));
  body.push_back(decl("const int", "tile", cast("int", bin("%", var("unit"), lit(x.t.tiles())))));
  body.push_back(assign(var("unit"), lit(x.t.tiles()), "/="));
  body.push_back(decl("const int", "channel", cast("int", bin("%", var("unit"), lit(s.channels)))));
  body.push_back(decl("const long long", "b", bin("/", var("unit"), lit(s.channels))));
  body.push_back(decl("const float", "xq", bin("+", bin("*", flit(8.0), cast("float", var("tile"))), flit(1.0))));
  body.push_back(
      decl("int", "tj",
           cast("int", bin("*", bin("-", bin("*", var("xq"), call("rsqrtf", {var("xq")})), flit(1.0)), flit(0.5)))));
  body.push_back(
      whileUnbraced(bin(">", bin("/", bin("*", var("tj"), bin("+", var("tj"), lit(1))), lit(2)), var("tile")),
                    exprStmt(unary("--", var("tj")))));
  body.push_back(
      whileUnbraced(bin("<=", bin("/", bin("*", bin("+", var("tj"), lit(1)), bin("+", var("tj"), lit(2))), lit(2)),
                        var("tile")),
                    exprStmt(unary("++", var("tj")))));
  body.push_back(decl("const int", "ti",
                      bin("-", var("tile"), bin("/", bin("*", var("tj"), bin("+", var("tj"), lit(1))), lit(2)))));
  // below the diagonal of a diagonal tile: every row receiver exceeds every column receiver
  if (wgmma)
    body.push_back(decl("const bool", "active", var("true")));  // a warpgroup's four warps all issue its wgmmas
  else
    body.push_back(decl("const bool", "active",
                        unary("!", bin("&&", bin("==", var("ti"), var("tj")), bin(">", var("wi"), var("wj"))))));
  body.push_back(decl("const unsigned char*", "chan",
                      bin("+", var("input"),
                          bin("*",
                              bin("+", bin("*", var("b"), lit(s.input.batch)),
                                  bin("*", cast("long long", var("channel")), lit(s.input.channel))),
                              lit(elemBytes(s.type))))));
  body.push_back(decl("const int", "wrow", bin("*", var("wi"), lit(x.t.warpRows))));
  body.push_back(decl("const int", "wcol", bin("*", var("wj"), lit(x.t.warpCols))));
  const int nacc = (x.t.warpRows / 16) * (x.t.warpCols / 4) * 4;
  body.push_back(declArray(f16 ? "float" : "int", "d", nacc));
  body.push_back(raw("#pragma unroll"));
  body.push_back(forLoop(decl("int", "z", lit(0)), bin("<", var("z"), lit(nacc)), assign(var("z"), lit(1), "+="),
                         block({assign(index(var("d"), var("z")), f16 ? flit(0) : lit(0))})));
  // Software pipeline over two shared-memory buffers (stage s in buffer s % 2):
  //   prologue: registers <- stage 0; buffer 0 <- registers; sync; registers <- stage 1
  //   stage s:  MMAs from buffer s % 2 | buffer (s + 1) % 2 <- registers (stage s + 1); registers <- stage s + 2 | sync
  // Buffer (s + 1) % 2 was last read by the MMAs of stage s - 1, which every warp finished before the sync ending it.
  auto buffers = [&](const NodePtr& which) {
    // A constant offset is kept as written (`wf_smem + 0`): the kernel's final folding would drop it.
    NodePtr off = foldConstants(bin("*", which, lit(bufWords)));
    if (off->kind == Kind::IntLit) off = keptLit(off->value);
    const NodePtr start = bin("+", var("wf_smem"), off);
    if (wgmma) return std::vector<NodePtr>{decl("unsigned char* const", "sbuf", cast("unsigned char*", start))};
    const Type sa = Type("wf_u32").rowsOf(x.rowStride), sb = Type("wf_u32").blocksOf(2, x.rowStride);
    return std::vector<NodePtr>{decl(sa, "sa", cast(sa, start)),
                                decl(sb, "sb",
                                     cast(sb, bin("+", start, decimal(static_cast<long long>(rows) * x.rowStride))))};
  };
  for (auto& d : fill.decls) body.push_back(d);
  auto loadsFrom = [&](const NodePtr& sl) {
    std::vector<NodePtr> l{decl("const int", "sl", sl)};
    std::vector<NodePtr> loads = fill.loads;
    l.push_back(ifStmt(bin("<", var("sl"), lit(s.samples)), block(loads)));
    return block(l);
  };
  if (x.async) {
    // Prologue: stages 0 .. ring - 1 in flight (stage k lives in raw slot k % ring); stage 0 staged into buffer 0;
    // its slot refilled with stage `ring`.
    body.push_back(decl("unsigned char* const", "raw_base",
                        bin("+", cast("unsigned char*", var("wf_smem")), lit(2LL * bufWords * 4))));
    auto slotDecl = [&](const NodePtr& slot) {
      return decl("unsigned char* const", "rawp", bin("+", var("raw_base"), bin("*", slot, lit(fill.rawStageBytes))));
    };
    for (int st = 0; st < ring; ++st)
      body.push_back(block({slotDecl(lit(st)), loadsFrom(lit(static_cast<long long>(st) * x.ts)),
                            exprStmt(call("corr_cp_commit", {}))}));
    std::vector<NodePtr> first{slotDecl(lit(0)), exprStmt(call(fmt::format("corr_cp_wait<{}>", ring - 1), {}))};
    for (auto& e : buffers(lit(0))) first.push_back(e);
    for (auto& e : fill.stages) first.push_back(e);
    first.push_back(exprStmt(call("corr_fence_async_smem", {})));
    first.push_back(loadsFrom(lit(static_cast<long long>(ring) * x.ts)));
    first.push_back(exprStmt(call("corr_cp_commit", {})));
    body.push_back(block(first));
  } else {
    body.push_back(loadsFrom(lit(0)));
    {
      std::vector<NodePtr> st = buffers(lit(0));
      for (auto& e : fill.stages) st.push_back(e);
      if (wgmma)
        st.push_back(exprStmt(call("corr_fence_async_smem", {})));  // ordinary stores, read by wgmma (async proxy)
      body.push_back(block(st));
    }
    body.push_back(loadsFrom(lit(x.ts)));
  }
  body.push_back(exprStmt(call("__syncthreads", {})));
  for (auto& e : wgmma ? emitWgmmaSetup(x) : emitComputeSetup(x)) body.push_back(e);
  // The store's bases, set up before the loop (the block decode's values need not live across it).
  body.push_back(decl("const int", "trow", bin("+", bin("*", var("ti"), lit(rows)), var("wrow"))));
  body.push_back(decl("const int", "tcol", bin("+", bin("*", var("tj"), lit(rows)), var("wcol"))));
  const bool visOut = s.writesVisibilities();
  const std::string outVec = visOut ? (f16 ? "float2" : "int2") : (f16 ? "float2" : "longlong2");
  body.push_back(decl(outVec + "* const", visOut ? "visv" : "accv",
                      bin("+", cast(outVec + "*", var(visOut ? "vis" : "acc")),
                          bin("*", bin("+", bin("*", var("b"), lit(s.channels)), var("channel")),
                              lit(s.visibilitiesPerChannel())))));
  std::vector<NodePtr> stage;
  if (wgmma) {
    // The stage's wgmmas run asynchronously while the threads stage the next stage into the other buffer; they are
    // waited for before the barrier (the buffer they read is refilled after it).
    std::vector<NodePtr> mma{decl("const unsigned long long", "buf16",
                                  bin("*", bin("&", bin("/", var("s0"), lit(x.ts)), lit(1)), lit(bufWords * 4 / 16)))};
    for (auto& e : emitWgmmaStage(x)) mma.push_back(e);
    stage.push_back(block(mma));
  } else {
    std::vector<NodePtr> mma{
        decl("const unsigned", "buf", bin("*", bin("&", bin("/", var("s0"), lit(x.ts)), lit(1)), lit(bufWords * 4)))};
    mma.push_back(ifStmt(var("active"), block(emitCompute(x))));
    stage.push_back(block(mma));
  }
  if (x.async) {
    // Stage s + 1 from its raw slot (its cp.async group is complete once at most ring - 1 newer ones are pending) into
    // the other buffer; then the slot is refilled with stage s + 1 + ring.
    std::vector<NodePtr> next{decl("unsigned char* const", "rawp",
                                   bin("+", var("raw_base"),
                                       bin("*", bin("%", bin("+", bin("/", var("s0"), lit(x.ts)), lit(1)), lit(ring)),
                                           lit(fill.rawStageBytes)))),
                              exprStmt(call(fmt::format("corr_cp_wait<{}>", ring - 1), {}))};
    for (auto& e : buffers(bin("&", bin("+", bin("/", var("s0"), lit(x.ts)), lit(1)), lit(1)))) next.push_back(e);
    for (auto& e : fill.stages) next.push_back(e);
    next.push_back(exprStmt(call("corr_fence_async_smem", {})));
    next.push_back(loadsFrom(bin("+", var("s0"), lit(static_cast<long long>(ring + 1) * x.ts))));
    next.push_back(exprStmt(call("corr_cp_commit", {})));
    stage.push_back(ifStmt(bin("<", bin("+", var("s0"), lit(x.ts)), lit(s.samples)), block(next)));
  } else {
    std::vector<NodePtr> next = buffers(bin("&", bin("+", bin("/", var("s0"), lit(x.ts)), lit(1)), lit(1)));
    for (auto& e : fill.stages) next.push_back(e);
    if (wgmma) next.push_back(exprStmt(call("corr_fence_async_smem", {})));
    next.push_back(loadsFrom(bin("+", var("s0"), lit(2 * x.ts))));
    stage.push_back(ifStmt(bin("<", bin("+", var("s0"), lit(x.ts)), lit(s.samples)), block(next)));
  }
  if (wgmma) stage.push_back(exprStmt(call("corr_wgmma_wait0", {})));
  stage.push_back(exprStmt(call("__syncthreads", {})));
  body.push_back(forLoop(decl("int", "s0", lit(0)), bin("<", var("s0"), lit(s.samples)),
                         assign(var("s0"), lit(x.ts), "+="), block(stage)));
  std::vector<NodePtr> store;
  for (auto& st : visOut ? emitVisibilityStore(x) : emitStore(x)) store.push_back(st);
  body.push_back(ifStmt(var("active"), block(store)));

  NodePtr fn = function(fmt::format("extern \"C\" __global__ void __launch_bounds__({}{})", x.t.threads(),
                                    wgmma ? ", 1" : ""),
                        "", k.correlateName,
                        {decl("const unsigned char* __restrict__", "input"),
                         visOut ? decl(f16 ? "float* __restrict__" : "int* __restrict__", "vis")
                                : decl(f16 ? "float* __restrict__" : "long long* __restrict__", "acc"),
                         decl("long long", "batch")},
                        block(body));
  std::string head = fmt::format(
      "// {}: correlate {} receivers x {} pol, {} channels, {} samples per call ({}), {} layout; generated by "
      "warpforge (correlator family)\n"
      "// block: {} x {} inputs tile of the triangle, {}; {} samples per shared-memory stage (two buffers); load path: "
      "{}{}\n",
      k.correlateName, s.receivers, s.polarizations, s.channels, s.samples, sampleTypeName(s.type), s.input.layout,
      rows, rows,
      wgmma ? fmt::format("{} warpgroups of wgmma m64n{} (sm_90a)", rows / 64, 2 * rows)
            : fmt::format("{} warps of 32 x 32 (mma.sync)", x.t.warpsI * x.t.warpsJ),
      x.ts, loadPathName(x.path), ring ? fmt::format(", cp.async ring of {} stages", ring) : "");
  if (visOut)
    head += fmt::format("// output: each batch entry's {} visibilities of the call, written once ({}-byte stores)\n",
                        f16 ? "f32" : "int32", s.polarizations == 2 ? 16 : 8);
  if (wgmma) head += cmma::sm90aGuard();
  k.correlateSource = head + correlatorDeviceHelpers(s.type, wgmma ? 2 * rows : 0, !s.symmetric) +
                      print(foldConstants(fn));
  k.wgmma = wgmma;
  k.visibilities = visOut;
  if (!visOut) k.reduceSource = emitReduce(s, k.reduceName, k.reduceThreads, k.reduceUnroll);
  return k;
}

}  // namespace warpforge
