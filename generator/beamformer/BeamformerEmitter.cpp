#include "generator/beamformer/BeamformerEmitter.h"

#include <stdexcept>

#include <fmt/format.h>

#include "ast/Passes.h"
#include "ast/Printer.h"
#include "generator/complexmma/ComplexMma.h"

namespace warpforge {

using namespace ast;

namespace {

const char* kQual = "static __device__ __forceinline__";

struct Ctx {
  const BeamformerSpec& s;
  BfMma m;
  BfTiling t;
  bool f16 = false;
};

// Two receivers per 32-bit load where the operand allows it: interleaved 8-bit (4 bytes) or ci4 (2 bytes),
// receiver stride 1 and every other stride even (k is even at the start of a word).
bool vectorOk(const BfOperand& o) {
  if (o.type == BfType::CF16 || o.planar || o.receiver != 1) return false;
  return o.batch % 2 == 0 && o.channel % 2 == 0 && o.polarization % 2 == 0 && o.outer % 2 == 0;
}

// The staged word of operand `o` for row element index `idx` (receiver k) into variable `dst`:
// 8-bit: receivers k, k + 1 as (re, im) byte pairs; f16: receiver k's (re, im) halves. Zero where invalid.
// `pa`, `pb`: the operand's arrays (pb: planar imaginary parts). `validRow`: the row (time / beam) exists.
std::vector<NodePtr> loadWord(const Ctx& x, const BfOperand& o, const std::string& pa, const std::string& pb, const NodePtr& idx, const NodePtr& k,
                              const NodePtr& validRow, const std::string& dst, bool clamp8) {
  std::vector<NodePtr> out;
  const long long K = x.s.receivers;
  auto one = [&](const NodePtr& i) -> NodePtr {  // 16 bits (8-bit types) or 32 bits (f16) of one receiver
    switch (o.type) {
      case BfType::CI8:
        if (o.planar)
          return bin("|", cast("wf_u32", index(cast("const unsigned char*", var(pa)), i)),
                     bin("<<", cast("wf_u32", index(cast("const unsigned char*", var(pb)), i)), lit(8)));
        return cast("wf_u32", index(cast("const unsigned short*", var(pa)), i));
      case BfType::CI4:
        return call(o.ci4RealHigh ? "bf_widen1_hi" : "bf_widen1_lo", {cast("wf_u32", index(cast("const unsigned char*", var(pa)), i))});
      case BfType::CF16:
        if (o.planar)
          return bin("|", cast("wf_u32", index(cast("const unsigned short*", var(pa)), i)),
                     bin("<<", cast("wf_u32", index(cast("const unsigned short*", var(pb)), i)), lit(16)));
        return index(cast("const wf_u32*", var(pa)), i);
    }
    return lit(0);
  };
  out.push_back(assign(var(dst), lit(0)));
  if (o.type == BfType::CF16) {
    out.push_back(ifStmt(bin("&&", validRow, bin("<", k, lit(K))), assign(var(dst), one(idx))));
    return out;
  }
  NodePtr second = bin("+", idx, lit(o.receiver));
  std::vector<NodePtr> scalar;
  scalar.push_back(ifStmt(bin("<", k, lit(K)), assign(var(dst), one(idx))));
  scalar.push_back(ifStmt(bin("<", bin("+", k, lit(1)), lit(K)), assign(var(dst), bin("<<", one(second), lit(16)), "|=")));
  if (vectorOk(o)) {
    NodePtr vec = o.type == BfType::CI8 ? index(cast("const wf_u32*", var(pa)), bin(">>", idx, lit(1)))
                                        : call(o.ci4RealHigh ? "bf_widen2_hi" : "bf_widen2_lo",
                                               {cast("wf_u32", index(cast("const unsigned short*", var(pa)), bin(">>", idx, lit(1))))});
    out.push_back(ifStmt(validRow, block({ifStmt(bin("<", bin("+", k, lit(1)), lit(K)), assign(var(dst), vec), block(scalar))})));
  } else {
    out.push_back(ifStmt(validRow, block(scalar)));
  }
  if (clamp8) out.push_back(assign(var(dst), call("bf_clamp8", {var(dst)})));
  return out;
}

// Two ci4 bytes (receivers k, k + 1) -> their (re, im) byte pairs in one word (not clamped: -8 is used as is).
NodePtr widen2Fn(bool realHigh) {
  const std::string w1 = realHigh ? "bf_widen1_hi" : "bf_widen1_lo";
  return function(kQual, "wf_u32", realHigh ? "bf_widen2_hi" : "bf_widen2_lo", {decl("wf_u32", "x")},
                  block({exprStmt(var(fmt::format("return {0}(x & 0xffu) | {0}(x >> 8) << 16", w1)))}));
}

// round(acc / 2^shift) (half up), saturated to +-maxv; shift clamped to 0..31.
NodePtr satFn() {
  std::vector<NodePtr> b;
  b.push_back(raw("shift = shift < 0 ? 0 : shift > 31 ? 31 : shift;"));
  b.push_back(raw("long long v = acc;"));
  b.push_back(raw("if (shift > 0) v = (v + (1LL << (shift - 1))) >> shift;"));
  b.push_back(raw("return (int)(v > maxv ? maxv : v < -maxv ? -maxv : v);"));
  return function(kQual, "int", "bf_sat", {decl("int", "acc"), decl("int", "shift"), decl("int", "maxv")}, block(b));
}

NodePtr f2hFn() {
  return function(kQual, "wf_u32", "bf_f2h", {decl("float", "x")},
                  block({decl("unsigned short", "h"), inlinePtx("cvt.rn.f16.f32 %0, %1;", "=h,f", {var("h"), var("x")}), raw("return h;")}));
}

std::string helpers(const Ctx& x) {
  std::vector<NodePtr> items;
  items.push_back(cmma::typedefU32());
  const bool ci4 = x.s.in.type == BfType::CI4 || x.s.w.type == BfType::CI4;
  if (x.f16) {
    items.push_back(cmma::conjFn("bf_", true));
    items.push_back(cmma::swapFn("bf_", true));
    items.push_back(cmma::mmaFn("bf_", true));
  } else {
    items.push_back(cmma::clampFn("bf_", 8));
    if (ci4) {
      for (bool hi : {true, false}) items.push_back(cmma::widen1Fn("bf_", hi));
      for (bool hi : {true, false}) items.push_back(widen2Fn(hi));
    }
    items.push_back(cmma::conjFn("bf_", false));
    items.push_back(cmma::swapFn("bf_", false));
    items.push_back(cmma::mmaFn("bf_", false));
  }
  if (x.s.intOut()) items.push_back(satFn());
  if (!x.s.power && x.s.outType == BfOutType::CF16) items.push_back(f2hFn());
  return print(unit(items));
}

// Position of word wd of a row inside its 8-word MMA step: the top word bit (a register bit of both A and B)
// becomes the lowest, so a thread's two words of one fragment row are adjacent (one 8-byte load).
NodePtr wordPos(const NodePtr& wd) {
  return bin("|", bin("&", wd, lit(~7LL)), bin("|", bin("<<", bin("&", wd, lit(3)), lit(1)), bin("&", bin(">>", wd, lit(2)), lit(1))));
}

std::vector<std::string> wordBits(const Ctx& x) { return x.f16 ? cmma::bitNames("rcv", 0, 3) : cmma::bitNames("rcv", 1, 3); }

// Stage fill, split so that the next stage's global loads can be in flight during this stage's MMAs:
// emitLoad reads the words of the stage starting at receiver `k0` into registers pf_s[] / pf_w[]
// (word u = tid + threads q of an operand: row u / 32, word u % 32), emitStore writes them into buffer `buf`.
int fillRounds(const Ctx& x, int side) { return x.t.fillRounds(side == 0 ? x.t.times : x.t.beams); }
bool fillGuard(const Ctx& x, int side) { return (side == 0 ? x.t.times : x.t.beams) * x.t.wordsPerStage % x.t.threads != 0; }

NodePtr fillRow(const Ctx& x) { return bin("+", bin(">>", var("tid"), lit(5)), bin("*", var("q"), lit(x.t.threads / 32))); }

std::vector<NodePtr> emitLoad(const Ctx& x, const NodePtr& k0) {
  std::vector<NodePtr> out;
  const int rpw = x.m.receiversPerWord;
  out.push_back(decl("const int", "kk", bin("+", k0, bin("*", var("fill_wd"), lit(rpw)))));
  for (int side = 0; side < 2; ++side) {
    const BfOperand& o = side == 0 ? x.s.in : x.s.w;
    const int rows = side == 0 ? x.t.times : x.t.beams;
    const std::string dst = side == 0 ? "pf_s" : "pf_w";
    std::vector<NodePtr> body;
    body.push_back(decl("const int", "row", fillRow(x)));
    const NodePtr g = side == 0 ? bin("+", var("t0"), var("row")) : bin("+", var("m0"), var("row"));
    NodePtr validRow = side == 0 ? bin("<", g, lit(x.s.samples)) : bin("<", g, lit(x.s.beams));
    if (fillGuard(x, side)) validRow = bin("&&", bin("<", var("row"), lit(rows)), validRow);
    body.push_back(decl("const long long", "idx",
                        bin("+", var(side == 0 ? "sbase" : "wbase"),
                            bin("+", bin("*", cast("long long", g), lit(o.outer)), bin("*", cast("long long", var("kk")), lit(o.receiver))))));
    body.push_back(decl("wf_u32", "v"));
    for (auto& st : loadWord(x, o, side == 0 ? "s_a" : "w_a", side == 0 ? "s_b" : "w_b", var("idx"), var("kk"), validRow, "v",
                             side == 0 && o.type == BfType::CI8))
      body.push_back(st);
    body.push_back(assign(index(var(dst), var("q")), var("v")));
    out.push_back(raw("#pragma unroll"));
    out.push_back(forLoop(decl("int", "q", lit(0)), bin("<", var("q"), lit(fillRounds(x, side))), assign(var("q"), lit(1), "+="), block(body)));
  }
  return out;
}

// The rows of shared-memory buffer `buf` (an expression): samples rows 0..times-1, then the weights rows.
NodePtr stageDecl(const Ctx& x, const std::string& name, const std::string& buf) {
  return raw(fmt::format("wf_u32 (* const {0})[{1}] = reinterpret_cast<wf_u32 (*)[{1}]>(bf_smem + ({2}) * {3});", name, x.t.rowStride, buf,
                         x.t.stageWords()));
}

std::vector<NodePtr> emitStore(const Ctx& x, const std::string& buf) {
  std::vector<NodePtr> out;
  out.push_back(stageDecl(x, "stage", buf));
  for (int side = 0; side < 2; ++side) {
    const int rows = side == 0 ? x.t.times : x.t.beams;
    std::vector<NodePtr> body;
    body.push_back(decl("const int", "row", fillRow(x)));
    NodePtr st = assign(index(index(var("stage"), side == 0 ? var("row") : bin("+", var("row"), lit(x.t.times))), var("fill_pos")),
                        index(var(side == 0 ? "pf_s" : "pf_w"), var("q")));
    body.push_back(fillGuard(x, side) ? ifStmt(bin("<", var("row"), lit(rows)), st) : st);
    out.push_back(raw("#pragma unroll"));
    out.push_back(forLoop(decl("int", "q", lit(0)), bin("<", var("q"), lit(fillRounds(x, side))), assign(var("q"), lit(1), "+="), block(body)));
  }
  return {block(out)};
}

std::vector<NodePtr> emitCompute(const Ctx& x) {
  std::vector<NodePtr> loop;
  const BfMma& m = x.m;
  const auto wb = wordBits(x);
  const int fa = x.t.warpTimes / 8, fb = x.t.warpBeams / 8;
  for (int i = 0; i < fa; ++i) {
    NodePtr row = bin("+", var("wt"), bin("+", var("a_time"), lit(i * 8)));
    NodePtr pos = bin("+", bin("*", var("ks"), lit(8)), bin("*", var("a_word"), lit(2)));
    loop.push_back(decl("const uint2", fmt::format("x{}", i), index(cast("const uint2*", unary("&", index(index(var("cur"), row), pos))), lit(0))));
  }
  for (int j = 0; j < fb; ++j) {
    NodePtr row = bin("+", var("wm"), bin("+", var("b_beam"), lit(x.t.times + j * 8)));  // weights rows follow the samples rows
    NodePtr pos = bin("+", bin("*", var("ks"), lit(8)), bin("*", var("b_word"), lit(2)));
    loop.push_back(decl("const uint2", fmt::format("y{}", j), index(cast("const uint2*", unary("&", index(index(var("cur"), row), pos))), lit(0))));
  }
  // A registers from the layout: ReIm_out picks conj or swap, the top word bit picks the word of the pair.
  for (int i = 0; i < fa; ++i)
    for (int reg = 0; reg < 4; ++reg) {
      const bool im = cmma::regField(m.a, {"ReIm_out"}, reg);
      const bool hi = cmma::regField(m.a, {wb[2]}, reg);
      loop.push_back(decl("const wf_u32", fmt::format("a{}_{}", i, reg), call(im ? "bf_swap" : "bf_conj", {member(var(fmt::format("x{}", i)), hi ? "y" : "x")})));
    }
  for (int i = 0; i < fa; ++i)
    for (int j = 0; j < fb; ++j) {
      std::vector<NodePtr> args;
      for (int c = 0; c < 4; ++c) args.push_back(index("d", (i * fb + j) * 4 + c));
      for (int reg = 0; reg < 4; ++reg) args.push_back(var(fmt::format("a{}_{}", i, reg)));
      for (int reg = 0; reg < 2; ++reg) args.push_back(member(var(fmt::format("y{}", j)), cmma::regField(m.b, {wb[2]}, reg) ? "y" : "x"));
      loop.push_back(exprStmt(call(x.f16 ? "bf_mma_f16" : "bf_mma_s8", args)));
    }
  std::vector<NodePtr> out;
  out.push_back(raw("#pragma unroll"));
  out.push_back(forLoop(decl("int", "ks", lit(0)), bin("<", var("ks"), lit(x.t.wordsPerStage / 8)), assign(var("ks"), lit(1), "+="), block(loop)));
  return out;
}

// Epilogue of one pol: each (re, im) register pair of C -> the beam store, or |beam|^2 into ps.
std::vector<NodePtr> emitEpilogue(const Ctx& x) {
  std::vector<NodePtr> out;
  const BfMma& m = x.m;
  const auto tb = cmma::bitNames("time", 0, 3), mb = cmma::bitNames("beam", 0, 3);
  const int fa = x.t.warpTimes / 8, fb = x.t.warpBeams / 8;
  const BeamformerSpec& s = x.s;
  for (int i = 0; i < fa; ++i)
    for (int j = 0; j < fb; ++j)
      for (int reg = 0; reg < 4; ++reg) {
        if (cmma::regField(m.c, {"ReIm_out"}, reg)) continue;
        int imReg = -1;
        for (int r2 = 0; r2 < 4; ++r2)
          if (cmma::regField(m.c, {"ReIm_out"}, r2) && cmma::regField(m.c, tb, r2) == cmma::regField(m.c, tb, reg) &&
              cmma::regField(m.c, mb, r2) == cmma::regField(m.c, mb, reg))
            imReg = r2;
        if (imReg < 0) throw std::logic_error("beamformer emitter: no imaginary register for a real one in C");
        const int d = (i * fb + j) * 4;
        NodePtr re = index("d", d + reg), im = index("d", d + imReg);
        std::vector<NodePtr> body;
        body.push_back(decl("const int", "tl", bin("+", var("wt"), bin("+", var("c_time"), lit(i * 8 + cmma::regField(m.c, tb, reg))))));
        body.push_back(decl("const int", "ml", bin("+", var("wm"), bin("+", var("c_beam"), lit(j * 8 + cmma::regField(m.c, mb, reg))))));
        if (s.power) {
          body.push_back(decl("const float", "fr", x.f16 ? re : cast("float", re)));
          body.push_back(decl("const float", "fi", x.f16 ? im : cast("float", im)));
          body.push_back(decl("const float", "pw", call("fmaf", {var("fi"), var("fi"), bin("*", var("fr"), var("fr"))})));
          body.push_back(ifStmt(bin("==", var("p"), lit(0)), assign(index(index(var("ps"), var("tl")), var("ml")), var("pw")),
                                assign(index(index(var("ps"), var("tl")), var("ml")), var("pw"), "+=")));
        } else {
          body.push_back(decl("const long long", "t", bin("+", var("t0"), var("tl"))));
          body.push_back(decl("const int", "mm", bin("+", var("m0"), var("ml"))));
          std::vector<NodePtr> st;
          st.push_back(decl("const long long", "e", bin("+", bin("*", var("t"), lit(s.beams)), var("mm"))));
          switch (s.outType) {
            case BfOutType::CF32:
              st.push_back(assign(index(cast("float2*", var("obase")), var("e")),
                                  call("make_float2", {x.f16 ? re : cast("float", re), x.f16 ? im : cast("float", im)})));
              break;
            case BfOutType::CF16:
              st.push_back(assign(index(cast("wf_u32*", var("obase")), var("e")),
                                  bin("|", call("bf_f2h", {x.f16 ? re : cast("float", re)}), bin("<<", call("bf_f2h", {x.f16 ? im : cast("float", im)}), lit(16)))));
              break;
            case BfOutType::CI8:
            case BfOutType::CI4: {
              st.push_back(decl("const int", "sh", index(var("shbase"), var("mm"))));
              st.push_back(decl("const int", "qr", call("bf_sat", {re, var("sh"), lit(s.outMax())})));
              st.push_back(decl("const int", "qi", call("bf_sat", {im, var("sh"), lit(s.outMax())})));
              if (s.outType == BfOutType::CI8)
                st.push_back(assign(index(cast("unsigned short*", var("obase")), var("e")),
                                    cast("unsigned short", bin("|", bin("&", var("qr"), lit(0xff)), bin("<<", bin("&", var("qi"), lit(0xff)), lit(8))))));
              else {
                const char* hiV = s.outCi4RealHigh ? "qr" : "qi";
                const char* loV = s.outCi4RealHigh ? "qi" : "qr";
                st.push_back(assign(index(cast("unsigned char*", var("obase")), var("e")),
                                    cast("unsigned char", bin("|", bin("<<", bin("&", var(hiV), lit(15)), lit(4)), bin("&", var(loV), lit(15))))));
              }
              break;
            }
          }
          body.push_back(ifStmt(bin("&&", bin("<", var("t"), lit(s.samples)), bin("<", var("mm"), lit(s.beams))), block(st)));
        }
        out.push_back(block(body));
      }
  return out;
}

// Power: the windows of this tile (I < 64: all of them in one tile) or one window over several tiles.
std::vector<NodePtr> emitIntegrate(const Ctx& x) {
  std::vector<NodePtr> out;
  const BeamformerSpec& s = x.s;
  const BfTiling& t = x.t;
  if (t.tilesPerRange == 1) {
    std::vector<NodePtr> body;
    body.push_back(decl("const int", "w", bin("/", var("qq"), lit(t.beams))));
    body.push_back(decl("const int", "ml", bin("%", var("qq"), lit(t.beams))));
    body.push_back(decl("float", "acc", flit(0)));
    body.push_back(forLoop(decl("int", "i", lit(0)), bin("<", var("i"), lit(s.integrate)), assign(var("i"), lit(1), "+="),
                           block({assign(var("acc"), index(index(var("ps"), bin("+", bin("*", var("w"), lit(s.integrate)), var("i"))), var("ml")), "+=")})));
    body.push_back(decl("const long long", "win", bin("+", bin("*", var("rg"), lit(t.windowsPerRange)), var("w"))));
    body.push_back(decl("const int", "mm", bin("+", var("m0"), var("ml"))));
    body.push_back(ifStmt(bin("&&", bin("<", var("win"), lit(s.windows())), bin("<", var("mm"), lit(s.beams))),
                          assign(index(var("pbase"), bin("+", bin("*", var("win"), lit(s.beams)), var("mm"))), var("acc"))));
    out.push_back(forLoop(decl("int", "qq", var("tid")), bin("<", var("qq"), lit(static_cast<long long>(t.windowsPerRange) * t.beams)),
                          assign(var("qq"), lit(t.threads), "+="), block(body)));
  } else {
    std::vector<NodePtr> body;
    body.push_back(decl("const int", "rows", bin("-", lit(s.integrate), bin("*", var("tile"), lit(t.times)))));
    body.push_back(forLoop(decl("int", "i", lit(0)), bin("&&", bin("<", var("i"), lit(t.times)), bin("<", var("i"), var("rows"))),
                           assign(var("i"), lit(1), "+="), block({assign(var("run"), index(index(var("ps"), var("i")), var("tid")), "+=")})));
    out.push_back(ifStmt(bin("<", var("tid"), lit(t.beams)), block(body)));
  }
  return out;
}

}  // namespace

BeamformerKernel emitBeamformer(const BeamformerSpec& s, const EmitTarget& target) {
  BeamformerKernel k = emitBeamformer(s);
  if (s.tuning.minBlocks || !target.probe || k.minBlocks == 1) return k;
  if (!target.probe->compile(k.source, s.name, target.arch).spills()) return k;
  return emitBeamformer(s, 1);
}

BeamformerKernel emitBeamformer(const BeamformerSpec& s, int minBlocks) {
  Ctx x{s, bfMma(s.in.type), {}, s.in.type == BfType::CF16};
  x.t = bfTiling(s, x.m);
  const BfTiling& t = x.t;
  BeamformerKernel k;
  k.name = s.name + "_beamform";
  k.tiling = t;
  k.sharedBytes = t.sharedBytes(s.power);
  k.vectorSamples = vectorOk(s.in);
  k.vectorWeights = vectorOk(s.w);
  k.minBlocks = minBlocks ? minBlocks : s.tuning.minBlocks ? s.tuning.minBlocks : 2;
  const BfMma& m = x.m;
  const auto wb = wordBits(x);
  const int C = s.channels, P = s.polarizations;
  const int inB = s.in.planar ? (s.in.type == BfType::CF16 ? 2 : 1) : bfComplexBytes(s.in.type);
  (void)inB;

  std::vector<NodePtr> body;
  // Dynamic shared memory: `stages` buffers of (samples rows, weights rows) x rowStride words, then (power) the |beam|^2 tile.
  body.push_back(raw("extern __shared__ __align__(16) wf_u32 bf_smem[];"));
  if (s.power)
    body.push_back(raw(fmt::format("float (* const ps)[{0}] = reinterpret_cast<float (*)[{0}]>(bf_smem + {1});", t.beams + 1, t.stages * t.stageWords())));
  body.push_back(decl("const int", "tid", var("threadIdx.x")));
  body.push_back(decl("const int", "lane", bin("&", var("tid"), lit(31))));
  body.push_back(decl("const int", "warp", bin(">>", var("tid"), lit(5))));
  body.push_back(decl("const int", "wt", bin("*", bin("/", var("warp"), lit(t.warpsM)), lit(t.warpTimes))));
  body.push_back(decl("const int", "wm", bin("*", bin("%", var("warp"), lit(t.warpsM)), lit(t.warpBeams))));
  // This thread's word of every fill row (threads is a multiple of 32) and its position in the staged row.
  body.push_back(decl("const int", "fill_wd", bin("&", var("tid"), lit(31))));
  body.push_back(decl("const int", "fill_pos", wordPos(var("fill_wd"))));
  // block -> (batch entry, channel, [pol,] range, beam tile)
  body.push_back(decl("long long", "unit", cast("long long", var("blockIdx.x"))));
  body.push_back(decl("const int", "m0", bin("*", cast("int", bin("%", var("unit"), lit(t.beamTiles))), lit(t.beams))));
  body.push_back(assign(var("unit"), lit(t.beamTiles), "/="));
  body.push_back(decl("const long long", "rg", bin("%", var("unit"), lit(t.ranges))));
  body.push_back(assign(var("unit"), lit(t.ranges), "/="));
  if (!s.power) {
    body.push_back(decl("const int", "p", cast("int", bin("%", var("unit"), lit(P)))));
    body.push_back(assign(var("unit"), lit(P), "/="));
  }
  body.push_back(decl("const int", "c", cast("int", bin("%", var("unit"), lit(C)))));
  body.push_back(decl("const long long", "b", bin("/", var("unit"), lit(C))));
  body.push_back(ifStmt(bin(">=", var("b"), var("batch")), raw("return;")));
  body.push_back(decl("const int", "a_time", cmma::laneField(m.a, cmma::bitNames("time", 0, 3))));
  body.push_back(decl("const int", "a_word", cmma::laneField(m.a, {wb[0], wb[1]})));
  body.push_back(decl("const int", "b_beam", cmma::laneField(m.b, cmma::bitNames("beam", 0, 3))));
  body.push_back(decl("const int", "b_word", cmma::laneField(m.b, {wb[0], wb[1]})));
  body.push_back(decl("const int", "c_time", cmma::laneField(m.c, cmma::bitNames("time", 0, 3))));
  body.push_back(decl("const int", "c_beam", cmma::laneField(m.c, cmma::bitNames("beam", 0, 3))));
  if (s.power) {
    body.push_back(decl("float* const", "pbase", bin("+", cast("float*", var("out")), bin("*", bin("+", bin("*", var("b"), lit(C)), var("c")), lit(s.windows() * s.beams)))));
    if (t.tilesPerRange > 1) body.push_back(decl("float", "run", flit(0)));
  }

  // One pol: the K loop and the epilogue.
  std::vector<NodePtr> pol;
  pol.push_back(decl("const long long", "sbase",
                     bin("+", bin("+", bin("*", var("b"), lit(s.in.batch)), bin("*", cast("long long", var("c")), lit(s.in.channel))),
                         bin("*", cast("long long", var("p")), lit(s.in.polarization)))));
  pol.push_back(decl("const long long", "wbase",
                     bin("+", bin("+", bin("*", var("b"), lit(s.w.batch)), bin("*", cast("long long", var("c")), lit(s.w.channel))),
                         bin("*", cast("long long", var("p")), lit(s.w.polarization)))));
  if (!s.power) {
    const long long row = s.samples * s.beams;
    pol.push_back(decl("unsigned char* const", "obase",
                       bin("+", var("out"), bin("*", bin("*", bin("+", bin("*", bin("+", bin("*", var("b"), lit(C)), var("c")), lit(P)), var("p")), lit(row)),
                                                lit(bfOutBytes(s.outType))))));
    if (s.intOut())
      pol.push_back(decl("const int* const", "shbase", bin("+", var("shifts"), bin("*", bin("+", bin("*", bin("+", bin("*", var("b"), lit(C)), var("c")), lit(P)), var("p")), lit(s.beams)))));
  }
  const int nacc = (t.warpTimes / 8) * (t.warpBeams / 8) * 4;
  pol.push_back(declArray(x.f16 ? "float" : "int", "d", nacc));
  pol.push_back(raw("#pragma unroll"));
  pol.push_back(forLoop(decl("int", "z", lit(0)), bin("<", var("z"), lit(nacc)), assign(var("z"), lit(1), "+="),
                        block({assign(index(var("d"), var("z")), x.f16 ? flit(0) : lit(0))})));
  const int ks = t.receiversPerStage(m);
  pol.push_back(declArray("wf_u32", "pf_s", fillRounds(x, 0)));
  pol.push_back(declArray("wf_u32", "pf_w", fillRounds(x, 1)));
  auto sync = [] { return exprStmt(call("__syncthreads", {})); };
  auto computeOn = [&](const std::string& buf) {
    std::vector<NodePtr> b{stageDecl(x, "cur", buf)};
    for (auto& n : emitCompute(x)) b.push_back(n);
    return block(b);
  };
  if (t.stages == 2) {
    // Double-buffered: the next stage's global loads are issued before this stage's MMAs and stored after them.
    for (auto& n : emitLoad(x, lit(0))) pol.push_back(n);
    for (auto& n : emitStore(x, "0")) pol.push_back(n);
    pol.push_back(sync());
    std::vector<NodePtr> stage;
    stage.push_back(decl("const int", "buf", bin("&", bin("/", var("k0"), lit(ks)), lit(1))));
    stage.push_back(decl("const bool", "more", bin("<", bin("+", var("k0"), lit(ks)), lit(s.receivers))));
    stage.push_back(ifStmt(var("more"), block(emitLoad(x, bin("+", var("k0"), lit(ks))))));
    stage.push_back(computeOn("buf"));
    stage.push_back(ifStmt(var("more"), block(emitStore(x, "buf ^ 1"))));
    stage.push_back(sync());
    pol.push_back(forLoop(decl("int", "k0", lit(0)), bin("<", var("k0"), lit(s.receivers)), assign(var("k0"), lit(ks), "+="), block(stage)));
  } else {
    std::vector<NodePtr> stage = emitLoad(x, var("k0"));
    for (auto& n : emitStore(x, "0")) stage.push_back(n);
    stage.push_back(sync());
    stage.push_back(computeOn("0"));
    stage.push_back(sync());
    pol.push_back(forLoop(decl("int", "k0", lit(0)), bin("<", var("k0"), lit(s.receivers)), assign(var("k0"), lit(ks), "+="), block(stage)));
  }
  for (auto& n : emitEpilogue(x)) pol.push_back(n);

  std::vector<NodePtr> tileBody;
  tileBody.push_back(decl("const long long", "t0", bin("+", bin("*", var("rg"), lit(t.range)), bin("*", var("tile"), lit(t.times)))));
  if (s.power) {
    tileBody.push_back(forLoop(decl("int", "p", lit(0)), bin("<", var("p"), lit(P)), assign(var("p"), lit(1), "+="), block(pol)));
    tileBody.push_back(exprStmt(call("__syncthreads", {})));
    for (auto& n : emitIntegrate(x)) tileBody.push_back(n);
    tileBody.push_back(exprStmt(call("__syncthreads", {})));
  } else {
    tileBody.push_back(block(pol));
  }
  body.push_back(forLoop(decl("int", "tile", lit(0)), bin("<", var("tile"), lit(t.tilesPerRange)), assign(var("tile"), lit(1), "+="), block(tileBody)));
  if (s.power && t.tilesPerRange > 1) {
    body.push_back(ifStmt(bin("&&", bin("<", var("tid"), lit(t.beams)), bin("<", bin("+", var("m0"), var("tid")), lit(s.beams))),
                          assign(index(var("pbase"), bin("+", bin("*", var("rg"), lit(s.beams)), bin("+", var("m0"), var("tid")))), var("run"))));
  }

  NodePtr fn = function(fmt::format("extern \"C\" __global__ void __launch_bounds__({}, {})", t.threads, k.minBlocks), "", k.name,
                        {decl("const unsigned char* __restrict__", "s_a"), decl("const unsigned char* __restrict__", "s_b"),
                         decl("const unsigned char* __restrict__", "w_a"), decl("const unsigned char* __restrict__", "w_b"),
                         decl("const int* __restrict__", "shifts"), decl("unsigned char* __restrict__", "out"), decl("long long", "batch")},
                        block(body));
  std::string head = fmt::format(
      "// {}: beamform {} receivers x {} beams, {} samples per call, {} channels x {} pols; samples {} {}, weights {} {}; output {}; "
      "generated by warpforge (beamformer family)\n"
      "// block: {} samples x {} beams ({} x {} warps of {} x {}), {} receivers per stage in {} shared-memory buffer{}, {}; A = conj / swap of the samples "
      "(rows ReIm_out), B = weights\n",
      k.name, s.receivers, s.beams, s.samples, C, P, bfTypeName(s.in.type), s.in.planar ? "planar" : "interleaved", bfTypeName(s.w.type),
      s.w.planar ? "planar" : "interleaved",
      s.power ? fmt::format("power integrated over {} samples", s.integrate) : std::string(bfOutTypeName(s.outType)) + " beams", t.times, t.beams,
      t.warpsT, t.warpsM, t.warpTimes, t.warpBeams, ks, t.stages, t.stages > 1 ? "s (double-buffered: the next stage's loads overlap this one's MMAs)" : "", x.f16 ? "mma.sync m16n8k16 f16 -> f32" : "mma.sync m16n8k32 s8 -> s32");
  k.source = head + helpers(x) + print(foldConstants(fn));
  return k;
}

}  // namespace warpforge
