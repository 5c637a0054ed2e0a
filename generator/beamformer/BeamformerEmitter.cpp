#include "generator/beamformer/BeamformerEmitter.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "ast/Passes.h"
#include "ast/Printer.h"
#include "generator/complexmma/ComplexMma.h"
#include "generator/beamformer/BeamformerEpilogue.h"
#include "generator/beamformer/BeamformerLoad.h"
#include "generator/beamformer/BeamformerWgmma.h"

namespace warpforge {

using namespace ast;

namespace {

using Ctx = BfKernelContext;

std::vector<std::string> wordBits(const Ctx& x) {
  return x.f16 ? cmma::bitNames("rcv", 0, 3) : cmma::bitNames("rcv", 1, 3);
}

// The word bit (0..2 of the 8 words of one MMA step) that is a register bit of A and of B: a thread's two words
// of a fragment row differ in it. The staged position of a word puts it lowest (the pair adjacent: one 8-byte load).
int pairBit(const Ctx& x) {
  const auto wb = wordBits(x);
  for (int i = 0; i < 3; ++i) {
    auto pa = x.m.a.physOf(wb[static_cast<std::size_t>(i)]), pb = x.m.b.physOf(wb[static_cast<std::size_t>(i)]);
    if (pa && pa->kind == PhysKind::R) {
      if (!pb || pb->kind != PhysKind::R)
        throw std::logic_error("beamformer emitter: the word-pair bit is a register bit of A but not of B");
      return i;
    }
  }
  throw std::logic_error("beamformer emitter: no receiver word bit on a register of A");
}
// The other two word bits, lowest first: the lane's word-pair index.
std::vector<std::string> laneWordBits(const Ctx& x) {
  const auto wb = wordBits(x);
  std::vector<std::string> o;
  for (int i = 0; i < 3; ++i)
    if (i != pairBit(x)) o.push_back(wb[static_cast<std::size_t>(i)]);
  return o;
}

// Position of word wd of a row inside its 8-word MMA step: the pair bit lowest, then the lane's two word bits.
// With the pair bit the lowest word bit (bfMma's layouts) this is wd itself: rows are staged in the receivers' order.
NodePtr wordPos(const Ctx& x, const NodePtr& wd) {
  const int pb = pairBit(x);
  if (pb == 0) return wd;
  NodePtr pair = bin("&", bin(">>", wd, lit(pb)), lit(1));
  NodePtr rest = pb == 1 ? bin("|", bin("&", wd, lit(1)), bin("&", bin(">>", wd, lit(1)), lit(2)))
                         : bin("&", wd, lit(3));
  return bin("|", bin("&", wd, lit(~7LL)), bin("|", bin("<<", rest, lit(1)), pair));
}

// 16 bytes of global memory per load (one shared-memory store of four staged words): interleaved, receivers
// contiguous, every stride a multiple of the receivers in 16 bytes (8 bytes for ci4: widened to 16), rows staged in
// the receivers' order. Else 32-bit words (two receivers per load where bfVectorOk) or single receivers.
int chunkReceivers(const BfOperand& o) { return o.type == BfType::CF16 ? 4 : 8; }
bool vector16Ok(const Ctx& x, const BfOperand& o) {
  if (x.s.tuning.wordLoads || o.planar || o.receiver != 1 || pairBit(x) != 0 || x.t.wordsPerStage != 32) return false;
  const long long r = chunkReceivers(o);
  return o.batch % r == 0 && o.channel % r == 0 && o.polarization % r == 0 && o.outer % r == 0;
}

// Stage fill, split so that the next stage's global loads can be in flight during this stage's MMAs:
// emitLoad reads the words of the stage starting at receiver `k0` into registers pf_s[] / pf_w[]
// (word u = tid + threads q of an operand: row u / 32, word u % 32), emitStore writes them into buffer `buf`.
bool chunked(const Ctx& x, int side) { return vector16Ok(x, side == 0 ? x.s.in : x.s.w); }
// Chunked sides: 4 words (16 bytes staged) per thread and round, 8 chunks per row.
int fillRounds(const Ctx& x, int side) {
  const int rows = side == 0 ? x.t.times : x.t.beams;
  return chunked(x, side) ? (rows * (x.t.wordsPerStage / 4) + x.t.threads - 1) / x.t.threads : x.t.fillRounds(rows);
}
bool fillGuard(const Ctx& x, int side) {
  return (side == 0 ? x.t.times : x.t.beams) * (x.t.wordsPerStage / (chunked(x, side) ? 4 : 1)) % x.t.threads != 0;
}
NodePtr chunkRow(const Ctx& x) {
  return bin("+", bin(">>", var("tid"), lit(3)), bin("*", var("q"), lit(x.t.threads / 8)));
}

NodePtr fillRow(const Ctx& x) {
  return bin("+", bin(">>", var("tid"), lit(5)), bin("*", var("q"), lit(x.t.threads / 32)));
}

// One chunk of 4 words (receivers kc .. kc + 4 rpw - 1) of row `g` into uint4 `v`: one 16-byte (ci4: 8-byte) load
// where the chunk lies inside K, else word by word (K's tail), zero where the row does not exist.
std::vector<NodePtr> loadChunk(const Ctx& x, const BfOperand& o, const std::string& pa, const NodePtr& idx,
                               const NodePtr& kc, const NodePtr& validRow, bool clamp8) {
  const long long K = x.s.receivers;
  const int rpw = x.m.receiversPerWord, R = chunkReceivers(o);
  std::vector<NodePtr> whole;
  const char* c[4] = {"v.x", "v.y", "v.z", "v.w"};
  switch (o.type) {
    case BfType::CF16:
      whole.push_back(assign(var("v"), index(cast("const uint4*", var(pa)), bin(">>", idx, lit(2)))));
      break;
    case BfType::CI8:
      whole.push_back(assign(var("v"), index(cast("const uint4*", var(pa)), bin(">>", idx, lit(3)))));
      if (clamp8)
        for (auto* w : c) whole.push_back(assign(var(w), call("bf_clamp8", {var(w)})));
      break;
    case BfType::CI4: {
      whole.push_back(decl("const uint2", "r", index(cast("const uint2*", var(pa)), bin(">>", idx, lit(3)))));
      const char* f = o.ci4RealHigh ? "bf_widen2_hi" : "bf_widen2_lo";
      whole.push_back(assign(var("v.x"), call(f, {bin("&", var("r.x"), lit(0xffff))})));
      whole.push_back(assign(var("v.y"), call(f, {bin(">>", var("r.x"), lit(16))})));
      whole.push_back(assign(var("v.z"), call(f, {bin("&", var("r.y"), lit(0xffff))})));
      whole.push_back(assign(var("v.w"), call(f, {bin(">>", var("r.y"), lit(16))})));
      break;
    }
  }
  std::vector<NodePtr> tail;
  for (int w = 0; w < 4; ++w) {
    std::vector<NodePtr> one;
    one.push_back(decl("wf_u32", "u"));
    for (auto& st :
         bfLoadWord(x, o, pa, "", bin("+", idx, lit(w * rpw)), bin("+", kc, lit(w * rpw)), lit(1), "u", clamp8))
      one.push_back(st);
    one.push_back(assign(var(c[w]), var("u")));
    tail.push_back(block(one));
  }
  std::vector<NodePtr> out;
  out.push_back(decl("uint4", "v", call("make_uint4", {lit(0), lit(0), lit(0), lit(0)})));
  const int perStage = x.t.receiversPerStage(x.m);
  if (K % perStage == 0) out.push_back(ifStmt(validRow, block(whole)));  // every chunk of every stage inside K
  else if (K % R == 0)
    out.push_back(ifStmt(bin("&&", validRow, bin("<", kc, lit(K))), block(whole)));  // a chunk is inside K or past it
  else
    out.push_back(
        ifStmt(validRow, block({ifStmt(bin("<=", bin("+", kc, lit(R)), lit(K)), block(whole), block(tail))})));
  return out;
}

std::vector<NodePtr> emitLoad(const Ctx& x, const NodePtr& k0) {
  std::vector<NodePtr> out;
  const int rpw = x.m.receiversPerWord;
  if (!chunked(x, 0) || !chunked(x, 1))
    out.push_back(decl("const int", "kk", bin("+", k0, bin("*", var("fill_wd"), lit(rpw)))));
  if (chunked(x, 0) || chunked(x, 1))
    out.push_back(decl("const int", "kc", bin("+", k0, bin("*", bin("&", var("tid"), lit(7)), lit(4 * rpw)))));
  for (int side = 0; side < 2; ++side) {
    const BfOperand& o = side == 0 ? x.s.in : x.s.w;
    const int rows = side == 0 ? x.t.times : x.t.beams;
    const std::string dst = side == 0 ? "pf_s" : "pf_w";
    std::vector<NodePtr> body;
    if (chunked(x, side)) {
      body.push_back(decl("const int", "row", chunkRow(x)));
      const NodePtr g = side == 0 ? bin("+", var("t0"), var("row")) : bin("+", var("m0"), var("row"));
      NodePtr validRow = side == 0 ? bin("<", g, lit(x.s.samples)) : bin("<", g, lit(x.s.beams));
      if (fillGuard(x, side)) validRow = bin("&&", bin("<", var("row"), lit(rows)), validRow);
      body.push_back(decl("const long long", "idx",
                          bin("+", var(side == 0 ? "sbase" : "wbase"),
                              bin("+", bin("*", cast("long long", g), lit(o.outer)), cast("long long", var("kc"))))));
      for (auto& st : loadChunk(x, o, side == 0 ? "s_a" : "w_a", var("idx"), var("kc"), validRow,
                                side == 0 && o.type == BfType::CI8))
        body.push_back(st);
      body.push_back(assign(index(var(dst), var("q")), var("v")));
      out.push_back(raw("#pragma unroll"));
      out.push_back(forLoop(decl("int", "q", lit(0)), bin("<", var("q"), lit(fillRounds(x, side))),
                            assign(var("q"), lit(1), "+="), block(body)));
      continue;
    }
    body.push_back(decl("const int", "row", fillRow(x)));
    const NodePtr g = side == 0 ? bin("+", var("t0"), var("row")) : bin("+", var("m0"), var("row"));
    NodePtr validRow = side == 0 ? bin("<", g, lit(x.s.samples)) : bin("<", g, lit(x.s.beams));
    if (fillGuard(x, side)) validRow = bin("&&", bin("<", var("row"), lit(rows)), validRow);
    body.push_back(decl("const long long", "idx",
                        bin("+", var(side == 0 ? "sbase" : "wbase"),
                            bin("+", bin("*", cast("long long", g), lit(o.outer)),
                                bin("*", cast("long long", var("kk")), lit(o.receiver))))));
    body.push_back(decl("wf_u32", "v"));
    for (auto& st : bfLoadWord(x, o, side == 0 ? "s_a" : "w_a", side == 0 ? "s_b" : "w_b", var("idx"), var("kk"),
                               validRow, "v", side == 0 && o.type == BfType::CI8))
      body.push_back(st);
    body.push_back(assign(index(var(dst), var("q")), var("v")));
    out.push_back(raw("#pragma unroll"));
    out.push_back(forLoop(decl("int", "q", lit(0)), bin("<", var("q"), lit(fillRounds(x, side))),
                          assign(var("q"), lit(1), "+="), block(body)));
  }
  return out;
}

// The rows of shared-memory buffer `buf` (an expression): `name`_s the samples rows (sampleStride words each),
// then `name`_w the weights rows (rowStride words).
std::vector<NodePtr> stageDecl(const Ctx& x, const std::string& name, const NodePtr& buf) {
  const NodePtr start = bin("+", var("bf_smem"), bin("*", paren(buf), decimal(x.t.stageWords())));
  auto rows = [](long long length, const std::string& rowsName, const NodePtr& at) {
    const Type row = Type("wf_u32").rowsOf(length);
    return decl(row.constPointer(), rowsName, reinterpretCast(row, at));
  };
  return {rows(x.t.sampleStride, name + "_s", start),
          rows(x.t.rowStride, name + "_w", bin("+", start, decimal(x.t.times * x.t.sampleStride)))};
}

// conj(w), swap(w) of staged sample words: the A registers of ReIm_out = 0 and 1, side by side.
NodePtr expandPair(const NodePtr& w) { return call("make_uint2", {call("bf_conj", {w}), call("bf_swap", {w})}); }

std::vector<NodePtr> emitStore(const Ctx& x, const NodePtr& buf) {
  std::vector<NodePtr> out;
  for (auto& d : stageDecl(x, "stage", buf)) out.push_back(d);
  for (int side = 0; side < 2; ++side) {
    const int rows = side == 0 ? x.t.times : x.t.beams;
    const std::string arr = side == 0 ? "stage_s" : "stage_w";
    const bool expand = side == 0 && x.t.expandStaged;
    std::vector<NodePtr> body;
    if (chunked(x, side)) {  // four words in the receivers' order: one 16-byte store (expanded: two, conj / swap pairs)
      body.push_back(decl("const int", "row", chunkRow(x)));
      NodePtr st;
      if (expand) {
        std::vector<NodePtr> b;
        b.push_back(decl("const uint4", "v", index(var("pf_s"), var("q"))));
        b.push_back(decl("uint4* const", "dst",
                         cast("uint4*", unary("&", index(index(var(arr), var("row")),
                                                         bin("*", bin("&", var("tid"), lit(7)), lit(8)))))));
        b.push_back(decl("const uint2", "e0", expandPair(var("v.x"))));
        b.push_back(decl("const uint2", "e1", expandPair(var("v.y"))));
        b.push_back(decl("const uint2", "e2", expandPair(var("v.z"))));
        b.push_back(decl("const uint2", "e3", expandPair(var("v.w"))));
        b.push_back(exprStmt(call("bf_sts128", {var("dst"), var("e0.x"), var("e0.y"), var("e1.x"), var("e1.y")})));
        b.push_back(exprStmt(
            call("bf_sts128", {bin("+", var("dst"), lit(1)), var("e2.x"), var("e2.y"), var("e3.x"), var("e3.y")})));
        st = block(b);
      } else {
        const std::string v = side == 0 ? "pf_s[q]" : "pf_w[q]";
        st = exprStmt(call("bf_sts128", {unary("&", index(index(var(arr), var("row")),
                                                          bin("*", bin("&", var("tid"), lit(7)), lit(4)))),
                                         var(v + ".x"), var(v + ".y"), var(v + ".z"), var(v + ".w")}));
      }
      body.push_back(fillGuard(x, side) ? ifStmt(bin("<", var("row"), lit(rows)), st) : st);
      out.push_back(raw("#pragma unroll"));
      out.push_back(forLoop(decl("int", "q", lit(0)), bin("<", var("q"), lit(fillRounds(x, side))),
                            assign(var("q"), lit(1), "+="), block(body)));
      continue;
    }
    body.push_back(decl("const int", "row", fillRow(x)));
    NodePtr st = expand ? assign(index(cast("uint2*", unary("&", index(index(var(arr), var("row")),
                                                                       bin("*", var("fill_pos"), lit(2))))),
                                       lit(0)),
                                 expandPair(index(var("pf_s"), var("q"))))
                        : assign(index(index(var(arr), var("row")), var("fill_pos")),
                                 index(var(side == 0 ? "pf_s" : "pf_w"), var("q")));
    body.push_back(fillGuard(x, side) ? ifStmt(bin("<", var("row"), lit(rows)), st) : st);
    out.push_back(raw("#pragma unroll"));
    out.push_back(forLoop(decl("int", "q", lit(0)), bin("<", var("q"), lit(fillRounds(x, side))),
                          assign(var("q"), lit(1), "+="), block(body)));
  }
  return {block(out)};
}

std::vector<NodePtr> emitCompute(const Ctx& x) {
  std::vector<NodePtr> loop;
  const BfMma& m = x.m;
  const auto wb = wordBits(x);
  const int fa = x.t.warpTimes / 8, fb = x.t.warpBeams / 8;
  const bool expand = x.t.expandStaged;
  for (int i = 0; i < fa; ++i) {
    NodePtr row = bin("+", var("wt"), bin("+", var("a_time"), lit(i * 8)));
    // Expanded rows: staged word p at 2p (conj) and 2p + 1 (swap); a thread's pair p = 2 a_word, 2 a_word + 1 -> 16
    // bytes.
    NodePtr pos = expand ? bin("+", bin("*", var("ks"), lit(16)), bin("*", var("a_word"), lit(4)))
                         : bin("+", bin("*", var("ks"), lit(8)), bin("*", var("a_word"), lit(2)));
    loop.push_back(
        decl(expand ? "const uint4" : "const uint2", fmt::format("x{}", i),
             index(cast(expand ? "const uint4*" : "const uint2*", unary("&", index(index(var("cur_s"), row), pos))),
                   lit(0))));
  }
  for (int j = 0; j < fb; ++j) {
    NodePtr row = bin("+", var("wm"), bin("+", var("b_beam"), lit(j * 8)));
    NodePtr pos = bin("+", bin("*", var("ks"), lit(8)), bin("*", var("b_word"), lit(2)));
    loop.push_back(decl("const uint2", fmt::format("y{}", j),
                        index(cast("const uint2*", unary("&", index(index(var("cur_w"), row), pos))), lit(0))));
  }
  // A registers from the layout: ReIm_out picks conj or swap, the pair bit picks the word of the pair (expanded: the
  // component 2 pair + ReIm_out of the 16-byte load).
  for (int i = 0; i < fa; ++i)
    for (int reg = 0; reg < 4; ++reg) {
      const bool im = cmma::regField(m.a, {"ReIm_out"}, reg);
      const bool hi = cmma::regField(m.a, {wb[static_cast<std::size_t>(pairBit(x))]}, reg);
      static const char* comp[4] = {"x", "y", "z", "w"};
      loop.push_back(
          decl("const wf_u32", fmt::format("a{}_{}", i, reg),
               expand ? member(var(fmt::format("x{}", i)), comp[2 * hi + im])
                      : call(im ? "bf_swap" : "bf_conj", {member(var(fmt::format("x{}", i)), hi ? "y" : "x")})));
    }
  for (int i = 0; i < fa; ++i)
    for (int j = 0; j < fb; ++j) {
      std::vector<NodePtr> args;
      for (int c = 0; c < 4; ++c) args.push_back(index("d", (i * fb + j) * 4 + c));
      for (int reg = 0; reg < 4; ++reg) args.push_back(var(fmt::format("a{}_{}", i, reg)));
      for (int reg = 0; reg < 2; ++reg)
        args.push_back(member(var(fmt::format("y{}", j)),
                              cmma::regField(m.b, {wb[static_cast<std::size_t>(pairBit(x))]}, reg) ? "y" : "x"));
      loop.push_back(exprStmt(call(x.f16 ? "bf_mma_f16" : "bf_mma_s8", args)));
    }
  std::vector<NodePtr> out;
  out.push_back(raw("#pragma unroll"));
  out.push_back(forLoop(decl("int", "ks", lit(0)), bin("<", var("ks"), lit(x.t.wordsPerStage / 8)),
                        assign(var("ks"), lit(1), "+="), block(loop)));
  return out;
}

// One pol's K loop of the mma.sync kernel: `stages` buffers filled through registers (two: the next stage's global
// loads issued before this stage's MMAs and stored after them, one __syncthreads per stage).
std::vector<NodePtr> emitMmaSyncMainloop(const Ctx& x) {
  const BeamformerSpec& s = x.s;
  const BfTiling& t = x.t;
  const int ks = t.receiversPerStage(x.m);
  auto sync = [] { return exprStmt(call("__syncthreads", {})); };
  std::vector<NodePtr> pol;
  pol.push_back(declArray(chunked(x, 0) ? "uint4" : "wf_u32", "pf_s", fillRounds(x, 0)));
  pol.push_back(declArray(chunked(x, 1) ? "uint4" : "wf_u32", "pf_w", fillRounds(x, 1)));
  auto computeOn = [&](const NodePtr& buf) {
    std::vector<NodePtr> b = stageDecl(x, "cur", buf);
    for (auto& n : emitCompute(x)) b.push_back(n);
    return block(b);
  };
  if (t.stages == 2) {
    // Double-buffered: the next stage's global loads are issued before this stage's MMAs and stored after them.
    for (auto& n : emitLoad(x, lit(0))) pol.push_back(n);
    for (auto& n : emitStore(x, lit(0))) pol.push_back(n);
    pol.push_back(sync());
    std::vector<NodePtr> stage;
    stage.push_back(decl("const int", "buf", bin("&", bin("/", var("k0"), lit(ks)), lit(1))));
    stage.push_back(decl("const bool", "more", bin("<", bin("+", var("k0"), lit(ks)), lit(s.receivers))));
    stage.push_back(ifStmt(var("more"), block(emitLoad(x, bin("+", var("k0"), lit(ks))))));
    stage.push_back(computeOn(var("buf")));
    stage.push_back(ifStmt(var("more"), block(emitStore(x, bin("^", var("buf"), lit(1))))));
    stage.push_back(sync());
    pol.push_back(forLoop(decl("int", "k0", lit(0)), bin("<", var("k0"), lit(s.receivers)),
                          assign(var("k0"), lit(ks), "+="), block(stage)));
  } else {
    std::vector<NodePtr> stage = emitLoad(x, var("k0"));
    for (auto& n : emitStore(x, lit(0))) stage.push_back(n);
    stage.push_back(sync());
    stage.push_back(computeOn(lit(0)));
    stage.push_back(sync());
    pol.push_back(forLoop(decl("int", "k0", lit(0)), bin("<", var("k0"), lit(s.receivers)),
                          assign(var("k0"), lit(ks), "+="), block(stage)));
  }
  return pol;
}

}  // namespace

BeamformerKernel emitBeamformer(const BeamformerSpec& s, const EmitTarget& target) {
  if (bfUsesWgmma(s, target.arch)) return emitBeamformerWgmma(s);
  BeamformerKernel k = emitBeamformer(s);
  if (s.tuning.minBlocks || !target.probe || k.minBlocks == 1) return k;
  if (!target.probe->compile(k.source, s.name, target.arch).spills()) return k;
  return emitBeamformer(s, 1);
}

BeamformerKernel emitBeamformer(const BeamformerSpec& s, int minBlocks) {
  return emitBeamformerKernel(s, minBlocks, false);
}
// Two blocks per SM where the tile's accumulators (N / 2 per thread) and the ring leave room for them.
BeamformerKernel emitBeamformerWgmma(const BeamformerSpec& s) {
  const BfWgmma w = bfWgmma(s);
  if (s.tuning.minBlocks) return emitBeamformerKernel(s, s.tuning.minBlocks, true);
  return emitBeamformerKernel(s, w.n <= 128 && 2 * w.sharedBytes <= kBfWgmmaMaxShared ? 2 : 1, true);
}

BeamformerKernel emitBeamformerKernel(const BeamformerSpec& s, int minBlocks, bool wgmma) {
  Ctx x{s, bfMma(s.in.type), {}, s.in.type == BfType::CF16};
  x.t = wgmma ? bfWgmmaTiling(s) : bfTiling(s, x.m);
  const BfTiling& t = x.t;
  const BfWgmma wg = wgmma ? bfWgmma(s) : BfWgmma{};
  BeamformerKernel k;
  k.name = s.name + "_beamform";
  k.tiling = t;
  k.wgmma = wgmma;
  k.sharedBytes = wgmma ? wg.sharedBytes : t.sharedBytes(s.power);
  k.vectorSamples = bfVectorOk(s.in);
  k.vectorWeights = bfVectorOk(s.w);
  k.chunkSamples = vector16Ok(x, s.in);
  k.chunkWeights = vector16Ok(x, s.w);
  k.minBlocks = minBlocks ? minBlocks : s.tuning.minBlocks ? s.tuning.minBlocks : 2;
  const BfMma& m = x.m;
  const auto wb = wordBits(x);
  const int C = s.channels, P = s.polarizations;
  const int inB = s.in.planar ? (s.in.type == BfType::CF16 ? 2 : 1) : bfComplexBytes(s.in.type);
  (void)inB;

  // The shared-memory carve-up, printed as written (not folded: an offset of 0 stays visible).
  std::vector<NodePtr> carve;
  // Dynamic shared memory: `stages` buffers of (samples rows, weights rows) x rowStride words, then (power) the
  // |beam|^2 tile.
  carve.push_back(externSharedArray("wf_u32", "bf_smem", 16));
  if (s.power) {
    const Type row = Type("float").rowsOf(t.beams + 1);
    carve.push_back(
        decl(row.constPointer(), "ps",
             reinterpretCast(row, bin("+", var("bf_smem"), decimal(wgmma ? 0 : t.stages * t.stageWords())))));
  }
  // wgmma: the ring after the power tile, on a 1024-byte boundary (the swizzle atoms of the weights rows).
  if (wgmma)
    carve.push_back(decl("const unsigned", "bf_ring",
                         bin("&",
                             paren(bin("+",
                                       bin("+", cast("unsigned", call("__cvta_generic_to_shared", {var("bf_smem")})),
                                           decimal(wg.powerBytes)),
                                       ulit(1023))),
                             unary("~", ulit(1023)))));
  std::vector<NodePtr> body;
  body.push_back(decl("const int", "tid", var("threadIdx.x")));
  body.push_back(decl("const int", "lane", bin("&", var("tid"), lit(31))));
  body.push_back(decl("const int", "warp", bin(">>", var("tid"), lit(5))));
  body.push_back(decl("const int", "wt", bin("*", bin("/", var("warp"), lit(t.warpsM)), lit(t.warpTimes))));
  body.push_back(decl("const int", "wm", bin("*", bin("%", var("warp"), lit(t.warpsM)), lit(t.warpBeams))));
  // This thread's word of every fill row (threads is a multiple of 32) and its position in the staged row.
  if (!wgmma) {
    body.push_back(decl("const int", "fill_wd", bin("&", var("tid"), lit(31))));
    body.push_back(decl("const int", "fill_pos", wordPos(x, var("fill_wd"))));
  }
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
  // Integer beams: every block reaches the saturation count's end (the last one to finish writes it).
  if (!s.intOut()) body.push_back(ifStmt(bin(">=", var("b"), var("batch")), ret()));
  else body.push_back(decl("unsigned", "nsat", lit(0)));
  if (!wgmma) {  // the wgmma path reads its A words in emitWgmmaMainloop, B through descriptors
    body.push_back(decl("const int", "a_time", cmma::laneField(m.a, cmma::bitNames("time", 0, 3))));
    body.push_back(decl("const int", "a_word", cmma::laneField(m.a, laneWordBits(x))));
    body.push_back(decl("const int", "b_beam", cmma::laneField(m.b, cmma::bitNames("beam", 0, 3))));
    body.push_back(decl("const int", "b_word", cmma::laneField(m.b, laneWordBits(x))));
  }
  body.push_back(decl("const int", "c_time", cmma::laneField(m.c, cmma::bitNames("time", 0, 3))));
  body.push_back(decl("const int", "c_beam", cmma::laneField(m.c, cmma::bitNames("beam", 0, 3))));
  if (s.power) {
    body.push_back(decl("float* const", "pbase",
                        bin("+", cast("float*", var("out")),
                            bin("*", bin("+", bin("*", var("b"), lit(C)), var("c")), lit(s.windows() * s.beams)))));
    if (t.tilesPerRange > 1) body.push_back(decl("float", "run", flit(0)));
  }

  // One pol: the K loop and the epilogue.
  std::vector<NodePtr> pol;
  pol.push_back(
      decl("const long long", "sbase",
           bin("+",
               bin("+", bin("*", var("b"), lit(s.in.batch)), bin("*", cast("long long", var("c")), lit(s.in.channel))),
               bin("*", cast("long long", var("p")), lit(s.in.polarization)))));
  pol.push_back(
      decl("const long long", "wbase",
           bin("+",
               bin("+", bin("*", var("b"), lit(s.w.batch)), bin("*", cast("long long", var("c")), lit(s.w.channel))),
               bin("*", cast("long long", var("p")), lit(s.w.polarization)))));
  if (!s.power) {
    const long long row = s.samples * s.beams;
    const int eb = bfOutBytes(s.outType) / (s.outPlanar ? 2 : 1);  // bytes per element of each output array
    NodePtr off = bin("*",
                      bin("*", bin("+", bin("*", bin("+", bin("*", var("b"), lit(C)), var("c")), lit(P)), var("p")),
                          lit(row)),
                      lit(eb));
    pol.push_back(decl("unsigned char* const", "obase", bin("+", var("out"), off)));
    if (s.outPlanar) pol.push_back(decl("unsigned char* const", "obase_im", bin("+", var("out_im"), off)));
    if (s.intOut())
      pol.push_back(
          decl("const int* const", "shbase",
               bin("+", var("shifts"),
                   bin("*", bin("+", bin("*", bin("+", bin("*", var("b"), lit(C)), var("c")), lit(P)), var("p")),
                       lit(s.beams)))));
  }
  const int nacc = (t.warpTimes / 8) * (t.warpBeams / 8) * 4;
  pol.push_back(declArray(x.f16 ? "float" : "int", "d", nacc));
  pol.push_back(raw("#pragma unroll"));
  pol.push_back(forLoop(decl("int", "z", lit(0)), bin("<", var("z"), lit(nacc)), assign(var("z"), lit(1), "+="),
                        block({assign(index(var("d"), var("z")), x.f16 ? flit(0) : lit(0))})));
  const int ks = t.receiversPerStage(m);
  if (wgmma)
    for (auto& n : emitWgmmaMainloop(s, wg)) pol.push_back(n);
  else
    for (auto& n : emitMmaSyncMainloop(x)) pol.push_back(n);
  for (auto& n : bfEpilogue(s, x.m, x.t, x.f16)) pol.push_back(n);

  std::vector<NodePtr> tileBody;
  tileBody.push_back(
      decl("const long long", "t0", bin("+", bin("*", var("rg"), lit(t.range)), bin("*", var("tile"), lit(t.times)))));
  if (s.power) {
    tileBody.push_back(
        forLoop(decl("int", "p", lit(0)), bin("<", var("p"), lit(P)), assign(var("p"), lit(1), "+="), block(pol)));
    tileBody.push_back(exprStmt(call("__syncthreads", {})));
    for (auto& n : bfIntegrate(s, t)) tileBody.push_back(n);
    tileBody.push_back(exprStmt(call("__syncthreads", {})));
  } else {
    tileBody.push_back(block(pol));
  }
  NodePtr tiles = forLoop(decl("int", "tile", lit(0)), bin("<", var("tile"), lit(t.tilesPerRange)),
                          assign(var("tile"), lit(1), "+="), block(tileBody));
  if (s.intOut()) {
    body.push_back(ifStmt(bin("<", var("b"), var("batch")), block({tiles})));
    for (auto& n : bfSaturationCount(t)) body.push_back(n);
  } else {
    body.push_back(tiles);
  }
  if (s.power && t.tilesPerRange > 1) {
    body.push_back(
        ifStmt(bin("&&", bin("<", var("tid"), lit(t.beams)), bin("<", bin("+", var("m0"), var("tid")), lit(s.beams))),
               assign(index(var("pbase"), bin("+", bin("*", var("rg"), lit(s.beams)), bin("+", var("m0"), var("tid")))),
                      var("run"))));
  }

  const NodePtr folded = foldConstants(block(body));
  for (const auto& n : folded->args) carve.push_back(n);
  NodePtr fn = function(fmt::format("extern \"C\" __global__ void __launch_bounds__({}, {})", t.threads, k.minBlocks),
                        "", k.name,
                        {decl("const unsigned char* __restrict__", "s_a"),
                         decl("const unsigned char* __restrict__", "s_b"),
                         decl("const unsigned char* __restrict__", "w_a"),
                         decl("const unsigned char* __restrict__", "w_b"), decl("const int* __restrict__", "shifts"),
                         decl("unsigned char* __restrict__", "out"), decl("unsigned char* __restrict__", "out_im"),
                         decl("long long", "batch"), decl("unsigned long long* __restrict__", "saturated"),
                         decl("unsigned long long*", "sat_count"), decl("unsigned int*", "blocks_done")},
                        block(carve));
  std::string head = fmt::format(
      "// {}: beamform {} receivers x {} beams, {} samples per call, {} channels x {} pols; samples {} {}, weights {} "
      "{}; output {}; "
      "generated by warpforge (beamformer family)\n"
      "// block: {} samples x {} beams ({} x {} warps of {} x {}), {} receivers per stage in {} shared-memory "
      "buffer{}, {}; A = conj / swap of the samples "
      "(rows ReIm_out; made {}), B = weights\n",
      k.name, s.receivers, s.beams, s.samples, C, P, bfTypeName(s.in.type), s.in.planar ? "planar" : "interleaved",
      bfTypeName(s.w.type), s.w.planar ? "planar" : "interleaved",
      s.power ? fmt::format("power integrated over {} samples", s.integrate)
              : std::string(bfOutTypeName(s.outType)) + (s.outPlanar ? " planar" : "") + " beams",
      t.times, t.beams, t.warpsT, t.warpsM, t.warpTimes, t.warpBeams, ks, t.stages,
      t.stages > 1 ? "s (double-buffered: the next stage's loads overlap this one's MMAs)" : "",
      x.f16 ? "mma.sync m16n8k16 f16 -> f32" : "mma.sync m16n8k32 s8 -> s32",
      t.expandStaged ? "once at staging" : "in registers per MMA step");
  if (wgmma) {
    head = fmt::format(
               "// {}: beamform {} receivers x {} beams, {} samples per call, {} channels x {} pols; samples {}, "
               "weights {}; output {}; generated by warpforge "
               "(beamformer family)\n"
               "// block: {} samples x {} beams = two warpgroups of wgmma m64n{}{} (sm_90a), A = conj / swap of the "
               "samples made in registers, B = the weights "
               "in 128-byte-swizzled shared rows; {} receivers per stage through a cp.async ring of {} buffers\n",
               k.name, s.receivers, s.beams, s.samples, C, P, bfTypeName(s.in.type), bfTypeName(s.w.type),
               s.power ? fmt::format("power integrated over {} samples", s.integrate)
                       : std::string(bfOutTypeName(s.outType)) + " beams",
               t.times, t.beams, wg.n, x.f16 ? "k16 f16 -> f32" : "k32 s8 -> s32", wg.receiversPerStage, wg.stages) +
           cmma::sm90aGuard();
  }
  k.source = head + bfDeviceHelpers(s, x.f16) + (wgmma ? bfWgmmaHelpers(s, wg.n) : std::string()) + print(fn);
  return k;
}

}  // namespace warpforge
