#include "generator/gridder/GridderMmaKernel.h"

#include <fmt/format.h>

#include "ast/Passes.h"
#include "ast/Printer.h"
#include "generator/gridder/GridderEmit.h"
#include "generator/gridder/GridderMmaFragments.h"

namespace warpforge {

using namespace ast;
using namespace gridemit;

GridderKernel emitGridderMmaKernel(const GridderSpec& s) {
  const QuadFragments q = tf32Fragments();
  const int S = s.subgridSize, P = s.correlations, CS = s.channelsPerSubgrid;
  const int CS4 = (CS + 3) / 4 * 4, KS = CS4 / 4;  // channels padded to whole k-steps of 4 visibilities
  const GridderSpec::MmaShape sh = s.mmaShape();
  const int W = sh.warps, TPW = sh.tilesPerWarp, TH = 32 * W, BP = 16 * W * TPW;  // pixels per block pass
  const int ST = s.mmaStageSteps();
  const bool split = s.engine == GridEngine::MmaTf32x3;
  const long long C = s.channels;
  auto slot = [&](int tile) {  // this thread's float4 of its warp's tile in smain
    return add(mul(add(mul(var("warp"), lit(TPW)), lit(tile)), lit(32)), var("lane"));
  };
  const int poolF4 = s.mmaPoolFloat4s();
  GridderKernel k;
  k.name = s.name + "_gridder";
  k.threads = TH;
  k.sharedBytes = s.mmaSharedBytes();

  std::vector<NodePtr> body;
  body.push_back(withNote(sharedArray("float", "sdk", CS4), "k_c / k0 - 1 (0 beyond the subgrid's channels)"));
  body.push_back(withNote(sharedArray("float4", "scoord", ST), "U, V, W per staged time step"));
  body.push_back(withNote(sharedArray("float4", "skk", ST), "k0 u, k0 v, k0 w"));
  body.push_back(sharedArray("float4", "spool", poolF4));
  // The pool's views: the pixels' l, m, n and the staged B operand during the sums, the per-pixel sums after them.
  const Type f4 = Type("float4").constPointer();
  body.push_back(withNote(decl(f4, "slmn", var("spool")), "[pixel of the pass] l, m, n"));
  body.push_back(withNote(decl(f4, "sB", add(var("spool"), decimal(BP))),
                          "[visibility][column n]: B(k = t, n), B(k = t + 4, n), hi then lo; n = 2p: (Re, Im), n = 2p "
                          "+ 1: (Im, -Re) of correlation p"));
  body.push_back(
      withNote(decl(Type("float2").constPointer(), "sacc", reinterpretCast(Type("float2").pointer(), var("spool"))),
               "[pixel of the pass][correlation], after the sums"));
  body.push_back(withNote(sharedArray("float4", "smain", W * TPW * 32),
                          "[warp tile][lane]: each round's tensor-core sums added in f32 (the tensor core's own f32 "
                          "accumulation truncates; long chains drift)"));
  body.push_back(cdecl("int", "tid", var("threadIdx.x")));
  body.push_back(cdecl("long long", "unit", ll(var("blockIdx.x"))));
  body.push_back(ifStmt(bin(">=", var("unit"), var("units")), ret()));
  for (auto& n : readMeta(s, true)) body.push_back(n);
  body.push_back(cdecl("int", "warp", bin(">>", var("tid"), lit(5))));
  body.push_back(cdecl("int", "lane", bin("&", var("tid"), lit(31))));
  body.push_back(
      cdecl("int", "g", bin(">>", bin("&", var("tid"), lit(31)), lit(2))));  // the lane's group: A and C rows, B column
  body.push_back(cdecl("int", "t", bin("&", var("tid"), lit(3))));  // thread in group: A and B k, C column pair
  body.push_back(cdecl("float*", "wn", add(var("wavenumbers"), mul(var("b"), lit(C)))));
  body.push_back(cdecl("float", "k0", index(var("wn"), add(var("c0"), bin("/", var("nc"), lit(2))))));
  body.push_back(loop("i", var("tid"), lit(CS4), lit(TH),
                      {assign(index(var("sdk"), var("i")),
                              ternary(bin("<", var("i"), var("nc")),
                                      bin("/", sub(index(var("wn"), add(var("c0"), var("i"))), var("k0")), var("k0")),
                                      flit(0)))}));
  body.push_back(sync());
  if (KS <= 4) {
    body.push_back(comment("dk of this thread's channel t + 4 s in every k-step s (A's visibility column, B's row)"));
    body.push_back(declArray("float", "dks", KS));
    body.push_back(raw("#pragma unroll"));
    body.push_back(
        loop("s", lit(0), lit(KS), lit(1),
             {assign(index(var("dks"), var("s")), index(var("sdk"), add(mul(var("s"), lit(4)), var("t"))))}));
  }
  for (auto& n : subgridRows(s)) body.push_back(n);
  body.push_back(cdecl("long long", "sub0", mul(var("unit"), lit(static_cast<long long>(P) * S * S))));

  std::vector<NodePtr> pass;  // one pass over the subgrid's visibilities for BP pixels
  pass.push_back(cdecl("int", "pix0", mul(var("part"), lit(BP))));
  pass.push_back(sync());  // the previous pass's epilogue read sacc
  {
    std::vector<NodePtr> f;
    f.push_back(cdecl("int", "pix", add(var("pix0"), var("i"))));
    for (auto& n : pixelLmn(s, var("pix"), "")) f.push_back(n);
    // l, m unshifted: the shift rotates the staged visibilities (weightedVisibility); n at the shifted l', m'
    f.push_back(assign(index(var("slmn"), var("i")), call("make_float4", {var("l"), var("m"), var("n"), flit(0)})));
    pass.push_back(loop("i", var("tid"), lit(BP), lit(TH), f));
  }
  pass.push_back(comment(
      fmt::format("{} tiles of 16 pixels per warp: C rows g and g + 8 of tile T are pixels 16 (warp {} + T) + g (+ 8)",
                  TPW, TPW)));
  for (int T = 0; T < TPW; ++T) {
    pass.push_back(decl("float4", nm("acc", T), call("make_float4", {flit(0), flit(0), flit(0), flit(0)})));
    pass.push_back(assign(index(var("smain"), slot(T)), var(nm("acc", T))));  // this thread's own slot: no barrier
  }

  std::vector<NodePtr> stage;
  stage.push_back(sync());
  stage.push_back(stageTimeSteps(s, ST, TH));
  {
    // One staged visibility per iteration: its P correlations weighted, then the 8 columns of its two B rows.
    std::vector<NodePtr> fill;
    fill.push_back(cdecl("int", "j", bin("/", var("e"), lit(CS4))));
    fill.push_back(cdecl("int", "c", bin("%", var("e"), lit(CS4))));
    for (int p = 0; p < 4; ++p) fill.push_back(decl("float2", nm("vx", p), f2(flit(0), flit(0))));
    std::vector<NodePtr> in;
    for (auto& n : stagedVisibility(s, "wv")) in.push_back(n);
    for (int p = 0; p < P; ++p) in.push_back(assign(var(nm("vx", p)), var(nm("wv", p))));
    fill.push_back(
        ifStmt(bin("&&", bin("<", add(var("ts"), var("j")), var("nt")), bin("<", var("c"), var("nc"))), block(in)));
    // B(k, n) of this visibility: cos row (Re, Im) / sin row (Im, -Re) so that C(pixel, 2p) += cos Re + sin Im
    // and C(pixel, 2p + 1) += cos Im - sin Re: the FMA kernel's V e^{-i phase}.
    for (int p = 0; p < 4; ++p) {
      const NodePtr re = mx(var(nm("vx", p)), "x"), im = mx(var(nm("vx", p)), "y");
      for (int col = 0; col < 2; ++col) {
        // (value in the cos row, value in the sin row) of column 2p + col
        NodePtr vc = col == 0 ? re : im, vs = col == 0 ? im : unary("-", re);
        const std::string base = fmt::format("bv{}_{}", p, col);
        fill.push_back(cdecl("float", base + "c", vc));
        fill.push_back(cdecl("float", base + "s", vs));
        // register order of B: b0 is k = t + bK[0]
        const std::string r0 = q.bK[0] == 0 ? base + "c" : base + "s", r1 = q.bK[0] == 0 ? base + "s" : base + "c";
        NodePtr val;
        if (split) {
          fill.push_back(cdecl("float", base + "h0", call("__uint_as_float", {call("gr_tf32", {var(r0)})})));
          fill.push_back(cdecl("float", base + "h1", call("__uint_as_float", {call("gr_tf32", {var(r1)})})));
          val = call("make_float4", {var(base + "h0"), var(base + "h1"), sub(var(r0), var(base + "h0")),
                                     sub(var(r1), var(base + "h1"))});
        } else {
          val = call("make_float4", {call("__uint_as_float", {call("gr_tf32", {var(r0)})}),
                                     call("__uint_as_float", {call("gr_tf32", {var(r1)})}), flit(0), flit(0)});
        }
        fill.push_back(assign(index(var("sB"), add(mul(var("e"), lit(8)), lit(2 * p + col))), val));
      }
    }
    stage.push_back(loop("e", var("tid"), lit(ST * CS4), lit(TH), fill));
  }
  stage.push_back(sync());
  {
    std::vector<NodePtr> tb;
    tb.push_back(cdecl("float4", "cc", index(var("scoord"), var("j"))));
    tb.push_back(cdecl("float4", "kk", index(var("skk"), var("j"))));
    for (int T = 0; T < TPW; ++T)
      for (int h = 0; h < 2; ++h) {
        const std::string sx = fmt::format("{}_{}", T, h);
        tb.push_back(cdecl("float4", "g" + sx,
                           index(var("slmn"), add(mul(add(mul(var("warp"), lit(TPW)), lit(T)), lit(16)),
                                                  add(var("g"), lit(8 * h))))));
        tb.push_back(cdecl("float", "A" + sx,
                           fma3(mx(var("cc"), "x"), mx(var("g" + sx), "x"),
                                fma3(mx(var("cc"), "y"), mx(var("g" + sx), "y"),
                                     mul(mx(var("cc"), "z"), mx(var("g" + sx), "z"))))));
        tb.push_back(cdecl("float", "B" + sx,
                           fma3(mx(var("kk"), "x"), mx(var("g" + sx), "x"),
                                fma3(mx(var("kk"), "y"), mx(var("g" + sx), "y"),
                                     mul(mx(var("kk"), "z"), mx(var("g" + sx), "z"))))));
      }
    std::vector<NodePtr>
        kb;  // one k-step: 4 visibilities (channels 4s .. 4s + 3 of time step j); this thread's is channel 4s + t
    // registers where the k-step loop unrolls fully, shared memory otherwise (a dynamically indexed array would live in
    // local memory)
    kb.push_back(
        cdecl("float", "dk",
              KS <= 4 ? index(var("dks"), var("s")) : index(var("sdk"), add(mul(var("s"), lit(4)), var("t")))));
    kb.push_back(
        cdecl("float4", "bq",
              index(var("sB"),
                    add(mul(add(mul(var("j"), lit(CS4)), add(mul(var("s"), lit(4)), var("t"))), lit(8)), var("g")))));
    kb.push_back(cdecl("unsigned", "bh0", call("__float_as_uint", {mx(var("bq"), "x")})));
    kb.push_back(cdecl("unsigned", "bh1", call("__float_as_uint", {mx(var("bq"), "y")})));
    if (split) {
      kb.push_back(cdecl("unsigned", "bl0", call("__float_as_uint", {mx(var("bq"), "z")})));
      kb.push_back(cdecl("unsigned", "bl1", call("__float_as_uint", {mx(var("bq"), "w")})));
    }
    for (int T = 0; T < TPW; ++T) {
      for (int h = 0; h < 2; ++h) {
        const std::string sx = fmt::format("{}_{}", T, h);
        kb.push_back(decl("float", "sn" + sx));
        kb.push_back(decl("float", "cs" + sx));
        kb.push_back(sincos(s, fma3(var("dk"), var("B" + sx), var("A" + sx)), "sn" + sx, "cs" + sx));
      }
      // A register r: row g + aRow[r] (pixel h = aRow / 8), k = t + aK[r] (cos at 0, sin at 4)
      std::vector<std::string> a(4);
      for (int r = 0; r < 4; ++r) a[r] = fmt::format("{}{}_{}", q.aK[r] == 0 ? "cs" : "sn", T, q.aRow[r] / 8);
      if (split) {
        std::vector<NodePtr> hi, lo;
        for (int r = 0; r < 4; ++r) {  // hi: the top 10 mantissa bits (a mask: no conversion); lo = x - hi exactly
          kb.push_back(
              cdecl("unsigned", nm("ah", T, r), bin("&", call("__float_as_uint", {var(a[r])}), var("0xffffe000u"))));
          kb.push_back(
              cdecl("unsigned", nm("al", T, r),
                    call("__float_as_uint", {sub(var(a[r]), call("__uint_as_float", {var(nm("ah", T, r))}))})));
        }
        auto mma = [&](const char* ap, const char* b0, const char* b1) {
          kb.push_back(exprStmt(call("gr_mma", {var(nm("acc", T)), var(nm(ap, T, 0)), var(nm(ap, T, 1)),
                                                var(nm(ap, T, 2)), var(nm(ap, T, 3)), var(b0), var(b1)})));
        };
        mma("al", "bh0", "bh1");
        mma("ah", "bl0", "bl1");
        mma("ah", "bh0", "bh1");
      } else {
        std::vector<NodePtr> args = {var(nm("acc", T))};
        // round to nearest tf32 in integer ops (the cvt instruction shares the SFU's pipe with the sincos)
        for (int r = 0; r < 4; ++r)
          args.push_back(bin("&", add(call("__float_as_uint", {var(a[r])}), var("0x1000u")), var("0xffffe000u")));
        args.push_back(var("bh0"));
        args.push_back(var("bh1"));
        kb.push_back(exprStmt(call("gr_mma", std::move(args))));
      }
    }
    tb.push_back(raw(KS <= 4 ? "#pragma unroll" : "#pragma unroll 2"));
    tb.push_back(loop("s", lit(0), lit(KS), lit(1), kb));
    stage.push_back(cdecl("int", "jn", call("min", {lit(ST), sub(var("nt"), var("ts"))})));
    stage.push_back(loop("j", lit(0), var("jn"), lit(1), tb));
  }
  for (int T = 0; T < TPW; ++T) {  // the round's sums into f32, the tensor-core accumulators back to 0
    const NodePtr m = index(var("smain"), slot(T));
    std::vector<NodePtr> f;
    f.push_back(cdecl("float4", "mt", m));
    f.push_back(assign(m, call("make_float4", {add(mx(var("mt"), "x"), mx(var(nm("acc", T)), "x")),
                                               add(mx(var("mt"), "y"), mx(var(nm("acc", T)), "y")),
                                               add(mx(var("mt"), "z"), mx(var(nm("acc", T)), "z")),
                                               add(mx(var("mt"), "w"), mx(var(nm("acc", T)), "w"))})));
    f.push_back(assign(var(nm("acc", T)), call("make_float4", {flit(0), flit(0), flit(0), flit(0)})));
    stage.push_back(block(f));
  }
  pass.push_back(loop("ts", lit(0), var("nt"), lit(ST), stage));
  for (int T = 0; T < TPW; ++T) pass.push_back(assign(var(nm("acc", T)), index(var("smain"), slot(T))));

  // Epilogue: C fragments -> sacc[pixel][correlation] (thread t holds columns 2t, 2t + 1: correlation t),
  // then each thread finishes whole pixels: A-terms, taper, fftshift store.
  pass.push_back(sync());
  {
    std::vector<NodePtr> w;
    const char* comp[4] = {"x", "y", "z", "w"};
    for (int T = 0; T < TPW; ++T)
      for (int h = 0; h < 2; ++h) {
        // registers r with cRow = 8h: (cCol 0, cCol 1) = (Re, Im)
        int re = -1, im = -1;
        for (int r = 0; r < 4; ++r)
          if (q.cRow[r] == 8 * h) (q.cCol[r] == 0 ? re : im) = r;
        if (re < 0 || im < 0) throw std::logic_error("gridder: unexpected m16n8k8 C fragment");
        w.push_back(
            assign(index(var("sacc"),
                         add(mul(add(add(mul(add(mul(var("warp"), lit(TPW)), lit(T)), lit(16)), var("g")), lit(8 * h)),
                                 lit(P)),
                             var("t"))),
                   f2(mx(var(nm("acc", T)), comp[re]), mx(var(nm("acc", T)), comp[im]))));
      }
    pass.push_back(ifStmt(bin("<", var("t"), lit(P)), block(w)));
  }
  pass.push_back(sync());
  {
    std::vector<NodePtr> e;
    e.push_back(cdecl("int", "pix", add(var("pix0"), var("i"))));
    e.push_back(declArray("float2", "px", P));
    for (int p = 0; p < P; ++p)
      e.push_back(assign(index(var("px"), lit(p)), index(var("sacc"), add(mul(var("i"), lit(P)), lit(p)))));
    for (auto& n : storePixel(s, "pix")) e.push_back(n);
    pass.push_back(loop("i", var("tid"), lit(BP), lit(TH), e));
  }
  body.push_back(loop("part", lit(0), lit(sh.parts), lit(1), pass));

  NodePtr fn = kernelFn(k.name, TH, gridderParams(), body, s.tuning.residentThreads);
  k.source = header(s, k.name,
                    fmt::format("one block per subgrid slot, {} warps x {} tiles of 16 pixels{}; per visibility and "
                                "pixel 1 FMA (phase) + 1 "
                                "sincos, then the sum over visibilities as a real matrix product on the tensor cores: "
                                "C[pixel][2p, 2p+1] += "
                                "[cos, sin] x [[Re, Im], [Im, -Re]] (mma.sync m16n8k8 tf32, {}); {} time steps x {} "
                                "channels staged per round",
                                W, TPW, sh.parts > 1 ? fmt::format(", {} passes of {} pixels", sh.parts, BP) : "",
                                split ? "three products per term: hi x hi + hi x lo + lo x hi"
                                      : "one tf32 product per term",
                                ST, CS4)) +
             helpers(s, true) + tf32MmaHelpers() + print(removeDeadCode(foldConstants(fn)));
  return k;
}

}  // namespace warpforge
