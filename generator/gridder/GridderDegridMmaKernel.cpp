#include "generator/gridder/GridderDegridMmaKernel.h"

#include <stdexcept>

#include <fmt/format.h>

#include "ast/Passes.h"
#include "ast/Printer.h"
#include "generator/gridder/GridderEmit.h"
#include "generator/gridder/GridderMmaFragments.h"

namespace warpforge {

using namespace ast;
using namespace gridemit;

GridderKernel emitDegridderMmaKernel(const GridderSpec& s) {
  const QuadFragments q = tf32Fragments(/*degrid=*/true);
  const int S = s.subgridSize, P = s.correlations, CS = s.channelsPerSubgrid;
  const int TH = s.tuning.degridThreads, W = TH / 32, NT = s.tuning.mmaVisibilityTiles, SP = s.tuning.stagePixels;
  const int R = 2 * P;        // A rows in use: (correlation p, Re / Im) = 2p, 2p + 1
  const int PV = W * NT * 8;  // visibilities per pass: W warps x NT tiles of 8
  const bool split = s.engine == GridEngine::MmaTf32x3;
  const long long C = s.channels;
  if (TH % 32 || SP % 4) throw std::logic_error("degridder: the spec checks whole warps and whole k-steps");
  // C registers: (cRow 0 | 8, cCol 0 | 1)
  int creg[2][2] = {{-1, -1}, {-1, -1}};
  for (int r = 0; r < 4; ++r) creg[q.cRow[r] / 8][q.cCol[r]] = r;
  const char* comp[4] = {"x", "y", "z", "w"};

  GridderKernel k;
  k.name = s.name + "_degridder";
  k.threads = TH;
  k.sharedBytes = s.mmaDegridSharedBytes();

  std::vector<NodePtr> body;
  body.push_back(withNote(sharedArray("float", "sdk", CS), "k_c / k0 - 1 (0 beyond the subgrid's channels)"));
  body.push_back(withNote(sharedArray("float4", "slmn", SP), "l, m, n of the staged pixels"));
  body.push_back(withNote(sharedArray("float4", "sA", SP * R),
                          "[pixel][row 2p + Re/Im]: the A operand at k = cos, sin; tf32 hi, then the f32 remainder "
                          "(rows 8..15 of the fragment)"));
  for (auto& n :
       std::vector<NodePtr>{cdecl("int", "tid", var("threadIdx.x")), cdecl("long long", "unit", ll(var("blockIdx.x"))),
                            ifStmt(bin(">=", var("unit"), var("units")), ret())})
    body.push_back(n);
  for (auto& n : readMeta(s, true)) body.push_back(n);
  body.push_back(cdecl("int", "warp", bin(">>", var("tid"), lit(5))));
  body.push_back(
      cdecl("int", "g",
            bin(">>", bin("&", var("tid"), lit(31)), lit(2))));  // the lane's group: A and C row, B column (visibility)
  body.push_back(cdecl("int", "t", bin("&", var("tid"), lit(3))));  // thread in group: A and B k (pixel), C column pair
  body.push_back(cdecl("float*", "wn", add(var("wavenumbers"), mul(var("b"), lit(C)))));
  body.push_back(cdecl("float", "k0", index(var("wn"), add(var("c0"), bin("/", var("nc"), lit(2))))));
  body.push_back(loop("i", var("tid"), lit(CS), lit(TH),
                      {assign(index(var("sdk"), var("i")),
                              ternary(bin("<", var("i"), var("nc")),
                                      bin("/", sub(index(var("wn"), add(var("c0"), var("i"))), var("k0")), var("k0")),
                                      flit(0)))}));
  body.push_back(sync());
  for (auto& n : subgridRows(s)) body.push_back(n);
  body.push_back(cdecl("long long", "sub0", mul(var("unit"), lit(static_cast<long long>(P) * S * S))));
  body.push_back(cdecl("int", "items", mul(var("nt"), lit(CS))));  // visibility slots: time steps x channel slots

  // One pass: the warp's NT tiles of 8 visibilities (item = time step x CS + channel), summed over every pixel.
  std::vector<NodePtr> pass;
  pass.push_back(comment(
      fmt::format("tile j of this warp: items base + 8 ({} warp + j) + column; this lane's B column is g", NT)));
  for (int j = 0; j < NT; ++j) {
    // the visibility's phase coefficients (U + dk Ku, V + dk Kv, W + dk Kw): psi = wx l + wy m + wz n
    pass.push_back(cdecl("int", nm("it", j),
                         add(var("base"), add(mul(add(mul(var("warp"), lit(NT)), lit(j)), lit(8)), var("g")))));
    for (const char* c : {"wx", "wy", "wz"}) pass.push_back(decl("float", nm(c, j), flit(0)));
    std::vector<NodePtr> in;
    in.push_back(cdecl("int", "ts", bin("/", var(nm("it", j)), lit(CS))));
    in.push_back(cdecl("int", "c", bin("%", var(nm("it", j)), lit(CS))));
    std::vector<NodePtr> on;
    on.push_back(decl("float4", "cc", call("make_float4", {flit(0), flit(0), flit(0), flit(0)})));
    on.push_back(decl("float4", "kk", call("make_float4", {flit(0), flit(0), flit(0), flit(0)})));
    for (auto& n : stagePhases(s, add(var("uvw0"), mul(var("ts"), lit(3))), "cc", "kk")) on.push_back(n);
    on.push_back(cdecl("float", "dk", index(var("sdk"), var("c"))));
    on.push_back(assign(var(nm("wx", j)), fma3(var("dk"), mx(var("kk"), "x"), mx(var("cc"), "x"))));
    on.push_back(assign(var(nm("wy", j)), fma3(var("dk"), mx(var("kk"), "y"), mx(var("cc"), "y"))));
    on.push_back(assign(var(nm("wz", j)), fma3(var("dk"), mx(var("kk"), "z"), mx(var("cc"), "z"))));
    in.push_back(ifStmt(bin("&&", bin("<", var("ts"), var("nt")), bin("<", var("c"), var("nc"))), block(on)));
    pass.push_back(block(in));
    pass.push_back(decl("float4", nm("acc", j), call("make_float4", {flit(0), flit(0), flit(0), flit(0)})));
    if (split) pass.push_back(decl("float4", nm("sum", j), call("make_float4", {flit(0), flit(0), flit(0), flit(0)})));
  }

  std::vector<NodePtr> stage;
  stage.push_back(sync());  // the previous round's k-steps read sA
  {
    std::vector<NodePtr> fill;
    fill.push_back(cdecl("int", "pix", add(var("p0"), var("qs"))));
    for (auto& n : correctedPixel(s, "pix")) fill.push_back(n);
    for (auto& n : pixelLmn(s, var("pix"), "")) fill.push_back(n);
    fill.push_back(assign(index(var("slmn"), var("qs")), call("make_float4", {var("l"), var("m"), var("n"), flit(0)})));
    for (int p = 0; p < P; ++p) {
      const NodePtr x = mx(index(var("px"), lit(p)), "x"), y = mx(index(var("px"), lit(p)), "y");
      // row 2p: Re = x cos - y sin; row 2p + 1: Im = y cos + x sin
      const NodePtr rows[2][2] = {{x, unary("-", y)}, {y, x}};
      for (int ri = 0; ri < 2; ++ri) {
        const std::string base = fmt::format("a{}_{}", p, ri);
        fill.push_back(cdecl("float", base + "c", rows[ri][0]));
        fill.push_back(cdecl("float", base + "s", rows[ri][1]));
        fill.push_back(cdecl("float", base + "hc", call("__uint_as_float", {call("gr_tf32", {var(base + "c")})})));
        fill.push_back(cdecl("float", base + "hs", call("__uint_as_float", {call("gr_tf32", {var(base + "s")})})));
        const NodePtr val = split ? call("make_float4",
                                         {var(base + "hc"), var(base + "hs"), sub(var(base + "c"), var(base + "hc")),
                                          sub(var(base + "s"), var(base + "hs"))})
                                  : call("make_float4", {var(base + "hc"), var(base + "hs"), flit(0), flit(0)});
        fill.push_back(assign(index(var("sA"), add(mul(var("qs"), lit(R)), lit(2 * p + ri))), val));
      }
    }
    stage.push_back(loop("qs", var("tid"), lit(SP), lit(TH), fill));
  }
  stage.push_back(sync());
  {
    std::vector<NodePtr> kb;  // one k-step: pixels 4 ks .. 4 ks + 3 of the round; this thread's is 4 ks + t
    kb.push_back(cdecl("int", "qk", add(mul(var("ks"), lit(4)), var("t"))));
    kb.push_back(cdecl("float4", "gq", index(var("slmn"), var("qk"))));
    const NodePtr aLoad = index(var("sA"), add(mul(var("qk"), lit(R)), var("g")));
    kb.push_back(cdecl("float4", "aq",
                       R < 8 ? ternary(bin("<", var("g"), lit(R)), aLoad,
                                       call("make_float4", {flit(0), flit(0), flit(0), flit(0)}))
                             : aLoad));
    // A register r: row g + aRow (0: the tf32 hi part, 8: the remainder), k t + aK (0: the cos column, 4: the sin
    // column)
    std::vector<std::string> aReg(4), aHiOnly(4);
    for (int r = 0; r < 4; ++r) {
      const bool lo = q.aRow[r] == 8, sinCol = q.aK[r] == 4;
      const char* c = lo ? (sinCol ? "w" : "z") : (sinCol ? "y" : "x");
      aReg[r] = nm("ar", r);
      if (lo && !split) {
        kb.push_back(cdecl("unsigned", aReg[r], var("0u")));
      } else {
        kb.push_back(cdecl("unsigned", aReg[r], call("__float_as_uint", {mx(var("aq"), c)})));
      }
      aHiOnly[r] = lo ? "0u" : aReg[r];
    }
    for (int j = 0; j < NT; ++j) {
      kb.push_back(decl("float", nm("sn", j)));
      kb.push_back(decl("float", nm("cs", j)));
      kb.push_back(sincos(s,
                          fma3(var(nm("wx", j)), mx(var("gq"), "x"),
                               fma3(var(nm("wy", j)), mx(var("gq"), "y"), mul(var(nm("wz", j)), mx(var("gq"), "z")))),
                          nm("sn", j), nm("cs", j)));
      // B register r: k t + bK (0: cos, 4: sin), column g: this lane's visibility
      const std::string b0 = q.bK[0] == 0 ? nm("cs", j) : nm("sn", j), b1 = q.bK[0] == 0 ? nm("sn", j) : nm("cs", j);
      auto mma = [&](const std::vector<std::string>& a, NodePtr x0, NodePtr x1) {
        std::vector<NodePtr> args = {var(nm("acc", j))};
        for (const auto& r : a) args.push_back(var(r));
        args.push_back(std::move(x0));
        args.push_back(std::move(x1));
        kb.push_back(exprStmt(call("gr_mma", std::move(args))));
      };
      if (split) {  // B hi: the top 10 mantissa bits (a mask, no conversion); B lo = b - hi exactly
        kb.push_back(
            cdecl("unsigned", nm("bh0_", j), bin("&", call("__float_as_uint", {var(b0)}), var("0xffffe000u"))));
        kb.push_back(
            cdecl("unsigned", nm("bh1_", j), bin("&", call("__float_as_uint", {var(b1)}), var("0xffffe000u"))));
        mma(aReg, var(nm("bh0_", j)), var(nm("bh1_", j)));  // rows 0..7: A hi x B hi; rows 8..15: A lo x B hi
        mma(aHiOnly, call("__float_as_uint", {sub(var(b0), call("__uint_as_float", {var(nm("bh0_", j))}))}),
            call("__float_as_uint",
                 {sub(var(b1), call("__uint_as_float", {var(nm("bh1_", j))}))}));  // rows 0..7: A hi x B lo
      } else {  // round to nearest tf32 in integer ops (cvt shares the SFU's pipe with the sincos)
        mma(aReg, bin("&", add(call("__float_as_uint", {var(b0)}), var("0x1000u")), var("0xffffe000u")),
            bin("&", add(call("__float_as_uint", {var(b1)}), var("0x1000u")), var("0xffffe000u")));
      }
    }
    stage.push_back(raw("#pragma unroll 2"));
    stage.push_back(loop("ks", lit(0), lit(SP / 4), lit(1), kb));
  }
  if (split)  // the round's tensor-core sums into f32 (the tensor core's own f32 accumulation truncates; long chains
              // drift)
    for (int j = 0; j < NT; ++j) {
      std::vector<NodePtr> f;
      for (const char* c : comp) f.push_back(assign(mx(var(nm("sum", j)), c), mx(var(nm("acc", j)), c), "+="));
      f.push_back(assign(var(nm("acc", j)), call("make_float4", {flit(0), flit(0), flit(0), flit(0)})));
      stage.push_back(block(f));
    }
  pass.push_back(loop("p0", lit(0), lit(S * S), lit(SP), stage));

  // Epilogue: row g of C is (correlation g / 2, Re or Im) of the tile's columns 2t, 2t + 1 (rows g + 8: the
  // remainder's share). Lanes g and g ^ 1 (lane ^ 4) swap halves: the even one writes column 2t, the odd one 2t + 1.
  pass.push_back(cdecl("bool", "odd", bin("&", var("g"), lit(1))));
  for (int j = 0; j < NT; ++j) {
    const std::string sm = split ? nm("sum", j) : nm("acc", j);
    std::vector<NodePtr> e;
    for (int col = 0; col < 2; ++col)
      e.push_back(cdecl("float", nm("X", col), add(mx(var(sm), comp[creg[0][col]]), mx(var(sm), comp[creg[1][col]]))));
    e.push_back(
        cdecl("float", "other",
              call("__shfl_xor_sync", {var("0xffffffffu"), ternary(var("odd"), var("X0"), var("X1")), lit(4)})));
    e.push_back(cdecl("float", "re", ternary(var("odd"), var("other"), var("X0"))));
    e.push_back(cdecl("float", "im", ternary(var("odd"), var("X1"), var("other"))));
    e.push_back(cdecl("int", "item",
                      add(var("base"), add(mul(add(mul(var("warp"), lit(NT)), lit(j)), lit(8)),
                                           add(mul(var("t"), lit(2)), cast("int", var("odd")))))));
    e.push_back(cdecl("int", "ts", bin("/", var("item"), lit(CS))));
    e.push_back(cdecl("int", "c", bin("%", var("item"), lit(CS))));
    e.push_back(cdecl("int", "p", bin(">>", var("g"), lit(1))));
    DegridTarget d = degridTarget(s, var("ts"), var("c"));
    std::vector<NodePtr> w = std::move(d.stmts);
    const NodePtr val = degridValue(d, var("re"), var("im"));
    w.push_back(assign(index(var("visibilities"), add(mul(var("v"), lit(P)), var("p"))),
                       ternary(var("ok"), val, f2(flit(0), flit(0)))));
    NodePtr live = bin("&&", bin("<", var("ts"), var("nt")), bin("<", var("c"), var("nc")));
    if (R < 8) live = bin("&&", bin("<", var("p"), lit(P)), live);
    e.push_back(ifStmt(live, block(w)));
    pass.push_back(block(e));
  }
  body.push_back(loop("base", lit(0), var("items"), lit(PV), pass));

  NodePtr fn = kernelFn(k.name, TH, degridderParams(), body, s.tuning.residentThreads);
  k.source = header(s, k.name,
                    fmt::format("one block per subgrid slot, {} warps x {} tiles of 8 visibilities per pass; {} "
                                "corrected pixels staged per round as "
                                "tensor-core operands; per visibility and pixel 3 FMAs (phase) + 1 sincos, then the "
                                "sum over pixels as a real matrix "
                                "product on the tensor cores: C[(p, Re/Im)][vis] += [[Re, -Im], [Im, Re]](p, pixel) x "
                                "[cos, sin](pixel, vis) "
                                "(mma.sync m16n8k8 tf32, {})",
                                W, NT, SP,
                                split ? "two products per term: [A hi; A lo] x B hi + A hi x B lo"
                                      : "one tf32 product per term")) +
             helpers(s, false) + tf32MmaHelpers() + print(removeDeadCode(foldConstants(fn)));
  return k;
}

}  // namespace warpforge
