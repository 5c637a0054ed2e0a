#include "generator/gridder/GridderKernels.h"

#include <fmt/format.h>

#include "ast/Passes.h"
#include "ast/Printer.h"
#include "generator/gridder/GridderEmit.h"
#include "generator/gridder/GridderPlanner.h"

namespace warpforge {

using namespace ast;

using namespace gridemit;

int gridderAdderThreads(const GridderSpec& s) {
  // Whole warps dividing S^2 (a multiple of 64): the tile adder gives each thread S^2 / threads pixels (S = 24: 192 x
  // 3), whose complex sums over the correlations stay in registers: at most 32 per thread, else more threads (S = 64
  // with 4 correlations: 512 threads x 8 pixels; 256 x 16 spilled 192 B).
  const int S2 = s.subgridSize * s.subgridSize;
  int th = std::min(256, S2);
  while (S2 % th || th % 32) th -= 32;
  for (int more = th; S2 / th * s.correlations > 32 && more <= 1024; more += 32)
    if (S2 % more == 0) th = more;
  return th;
}

// The first statements of a kernel with one block per unit (subgrid slot or grid tile): thread, unit, bound.
std::vector<NodePtr> unitPrologue() {
  std::vector<NodePtr> body;
  body.push_back(cdecl("int", "tid", var("threadIdx.x")));
  body.push_back(cdecl("long long", "unit", ll(var("blockIdx.x"))));
  body.push_back(ifStmt(bin(">=", var("unit"), var("units")), ret()));
  return body;
}

// Element of the grid at batch entry b, w-plane z, correlation p, row y, column x (64-bit).
NodePtr gridIndex(const GridderSpec& s, NodePtr p, NodePtr y, NodePtr x) {
  const int P = s.correlations, G = s.gridSize;
  return add(mul(var("b"), lit(s.gridElems())),
             add(mul(ll(add(mul(var("z"), lit(P)), std::move(p))), lit(static_cast<long long>(G) * G)),
                 add(mul(ll(std::move(y)), lit(G)), std::move(x))));
}

GridderKernel emitGridderKernel(const GridderSpec& s) {
  const int S = s.subgridSize, P = s.correlations, PPT = s.tuning.pixelsPerThread, CS = s.channelsPerSubgrid;
  const int TH = s.gridThreads(), ST = s.stageTimeSteps();
  const long long C = s.channels;
  GridderKernel k;
  k.name = s.name + "_gridder";
  k.threads = TH;
  k.sharedBytes = CS * 4 + ST * 32 + ST * CS * P * 8;
  std::vector<NodePtr> body;
  body.push_back(withNote(sharedArray("float", "sdk", CS), "k_c / k0 - 1 (0 beyond the subgrid's channels)"));
  body.push_back(withNote(sharedArray("float4", "scoord", ST), "U, V, W per staged time step"));
  body.push_back(withNote(sharedArray("float4", "skk", ST), "k0 u, k0 v, k0 w"));
  body.push_back(withNote(sharedArray("float2", "svis", ST * CS * P, 16),
                          "[time][channel][correlation], weighted; 0 where flagged"));
  body.push_back(cdecl("int", "tid", var("threadIdx.x")));
  body.push_back(cdecl("long long", "unit", ll(var("blockIdx.x"))));
  body.push_back(ifStmt(bin(">=", var("unit"), var("units")), ret()));
  for (auto& n : readMeta(s, true)) body.push_back(n);
  body.push_back(cdecl("float*", "wn", add(var("wavenumbers"), mul(var("b"), lit(C)))));
  body.push_back(cdecl("float", "k0", index(var("wn"), add(var("c0"), bin("/", var("nc"), lit(2))))));
  body.push_back(loop("i", var("tid"), lit(CS), lit(TH),
                      {assign(index(var("sdk"), var("i")),
                              ternary(bin("<", var("i"), var("nc")),
                                      bin("/", sub(index(var("wn"), add(var("c0"), var("i"))), var("k0")), var("k0")),
                                      flit(0)))}));
  body.push_back(comment(fmt::format("{} pixels per thread (pixel tid + {} i), {} correlation(s) each", PPT, TH, P)));
  for (int i = 0; i < PPT; ++i) {
    const std::string sx = std::to_string(i);
    body.push_back(cdecl("int", "pix" + sx, add(var("tid"), lit(i * TH))));
    for (auto& n : pixelLmn(s, var("pix" + sx), sx)) body.push_back(n);
    for (int p = 0; p < P; ++p) body.push_back(decl("float2", nm("acc", i, p), f2(flit(0), flit(0))));
  }
  for (auto& n : subgridRows(s)) body.push_back(n);

  std::vector<NodePtr> stage;
  stage.push_back(sync());
  stage.push_back(stageTimeSteps(s, ST, TH));
  {
    std::vector<NodePtr> fill;
    fill.push_back(cdecl("int", "j", bin("/", var("e"), lit(CS))));
    fill.push_back(cdecl("int", "c", bin("%", var("e"), lit(CS))));
    std::vector<NodePtr> in;
    for (auto& n : stagedVisibility(s, "wv")) in.push_back(n);
    for (int p = 0; p < P; ++p)
      in.push_back(assign(index(var("svis"), add(mul(var("e"), lit(P)), lit(p))), var(nm("wv", p))));
    std::vector<NodePtr> zero;
    for (int p = 0; p < P; ++p)
      zero.push_back(assign(index(var("svis"), add(mul(var("e"), lit(P)), lit(p))), f2(flit(0), flit(0))));
    fill.push_back(ifStmt(bin("&&", bin("<", add(var("ts"), var("j")), var("nt")), bin("<", var("c"), var("nc"))),
                          block(in), block(zero)));
    stage.push_back(loop("e", var("tid"), lit(ST * CS), lit(TH), fill));
  }
  stage.push_back(sync());
  {
    std::vector<NodePtr> tb;
    tb.push_back(cdecl("float4", "cc", index(var("scoord"), var("j"))));
    tb.push_back(cdecl("float4", "kk", index(var("skk"), var("j"))));
    for (int i = 0; i < PPT; ++i) {
      const std::string sx = std::to_string(i);
      tb.push_back(cdecl("float", nm("A", i),
                         fma3(mx(var("cc"), "x"), var("l" + sx),
                              fma3(mx(var("cc"), "y"), var("m" + sx), mul(mx(var("cc"), "z"), var("n" + sx))))));
      tb.push_back(cdecl("float", nm("B", i),
                         fma3(mx(var("kk"), "x"), var("l" + sx),
                              fma3(mx(var("kk"), "y"), var("m" + sx), mul(mx(var("kk"), "z"), var("n" + sx))))));
    }
    std::vector<NodePtr> cb;
    cb.push_back(cdecl("float", "dk", index(var("sdk"), var("c"))));
    for (auto& n : loadCorr(P, "svis", mul(add(mul(var("j"), lit(CS)), var("c")), lit(P)), "vis")) cb.push_back(n);
    for (int i = 0; i < PPT; ++i) {
      cb.push_back(decl("float", nm("sn", i)));
      cb.push_back(decl("float", nm("cs", i)));
      cb.push_back(sincos(s, fma3(var("dk"), var(nm("B", i)), var(nm("A", i))), nm("sn", i), nm("cs", i)));
      for (int p = 0; p < P; ++p) {
        // acc += vis * (cos, -sin): 4 FMAs
        const NodePtr vx = mx(var(nm("vis", p)), "x"), vy = mx(var(nm("vis", p)), "y");
        const NodePtr ax = mx(var(nm("acc", i, p)), "x"), ay = mx(var(nm("acc", i, p)), "y");
        cb.push_back(assign(ax, fma3(vx, var(nm("cs", i)), ax)));
        cb.push_back(assign(ax, fma3(vy, var(nm("sn", i)), ax)));
        cb.push_back(assign(ay, fma3(vy, var(nm("cs", i)), ay)));
        cb.push_back(assign(ay, fma3(unary("-", vx), var(nm("sn", i)), ay)));
      }
    }
    tb.push_back(raw(CS <= 16 ? "#pragma unroll" : "#pragma unroll 8"));
    tb.push_back(loop("c", lit(0), lit(CS), lit(1), cb));
    stage.push_back(cdecl("int", "jn", call("min", {lit(ST), sub(var("nt"), var("ts"))})));
    stage.push_back(loop("j", lit(0), var("jn"), lit(1), tb));
  }
  body.push_back(loop("ts", lit(0), var("nt"), lit(ST), stage));

  // Epilogue: A-terms, taper, fftshift store.
  body.push_back(cdecl("long long", "sub0", mul(var("unit"), lit(static_cast<long long>(P) * S * S))));
  for (int i = 0; i < PPT; ++i) {
    const std::string sx = std::to_string(i);
    std::vector<NodePtr> e;
    e.push_back(declArray("float2", "px", P));
    for (int p = 0; p < P; ++p) e.push_back(assign(index(var("px"), lit(p)), var(nm("acc", i, p))));
    for (auto& n : storePixel(s, "pix" + sx)) e.push_back(n);
    body.push_back(block(e));
  }

  NodePtr fn = kernelFn(k.name, TH, gridderParams(), body, s.tuning.residentThreads);
  k.source = header(s, k.name,
                    fmt::format("one block per subgrid slot, {} threads x {} pixels; {} time steps x {} channels "
                                "staged per round; per visibility and "
                                "pixel 1 FMA (phase) + 1 sincos + {} FMAs ({} correlation(s))",
                                TH, PPT, ST, CS, 4 * P, P)) +
             helpers(s, true) + print(removeDeadCode(foldConstants(fn)));
  return k;
}

GridderKernel emitDegridderKernel(const GridderSpec& s) {
  const int S = s.subgridSize, P = s.correlations, VPT = s.tuning.visibilitiesPerThread, CS = s.channelsPerSubgrid;
  const int TH = s.tuning.degridThreads, SP = s.tuning.stagePixels;
  const int GPT = (CS + VPT - 1) / VPT;
  const long long C = s.channels;
  GridderKernel k;
  k.name = s.name + "_degridder";
  k.threads = TH;
  k.sharedBytes = GPT * VPT * 4 + SP * P * 8 + SP * 16;
  std::vector<NodePtr> body;
  body.push_back(withNote(sharedArray("float", "sdk", GPT * VPT), "k_c / k0 - 1 (0 beyond the subgrid's channels)"));
  body.push_back(withNote(sharedArray("float2", "spix", SP * P, 16), "corrected pixels [pixel][correlation]"));
  body.push_back(withNote(sharedArray("float4", "slmn", SP), "l, m, n"));
  body.push_back(cdecl("int", "tid", var("threadIdx.x")));
  body.push_back(cdecl("long long", "unit", ll(var("blockIdx.x"))));
  body.push_back(ifStmt(bin(">=", var("unit"), var("units")), ret()));
  for (auto& n : readMeta(s, true)) body.push_back(n);
  body.push_back(cdecl("float*", "wn", add(var("wavenumbers"), mul(var("b"), lit(C)))));
  body.push_back(cdecl("float", "k0", index(var("wn"), add(var("c0"), bin("/", var("nc"), lit(2))))));
  body.push_back(loop("i", var("tid"), lit(GPT * VPT), lit(TH),
                      {assign(index(var("sdk"), var("i")),
                              ternary(bin("<", var("i"), var("nc")),
                                      bin("/", sub(index(var("wn"), add(var("c0"), var("i"))), var("k0")), var("k0")),
                                      flit(0)))}));
  body.push_back(sync());  // sdk is read before the first staging barrier
  for (auto& n : subgridRows(s)) body.push_back(n);
  body.push_back(cdecl("long long", "sub0", mul(var("unit"), lit(static_cast<long long>(P) * S * S))));
  body.push_back(cdecl("int", "items", mul(var("nt"), lit(GPT))));

  std::vector<NodePtr> chunk;
  chunk.push_back(cdecl("int", "item", add(var("base"), var("tid"))));
  chunk.push_back(cdecl("bool", "active", bin("<", var("item"), var("items"))));
  chunk.push_back(cdecl("int", "t", ternary(var("active"), bin("/", var("item"), lit(GPT)), lit(0))));
  chunk.push_back(cdecl("int", "cg", mul(bin("%", var("item"), lit(GPT)), lit(VPT))));
  chunk.push_back(decl("float4", "cc", call("make_float4", {flit(0), flit(0), flit(0), flit(0)})));
  chunk.push_back(decl("float4", "kk", call("make_float4", {flit(0), flit(0), flit(0), flit(0)})));
  chunk.push_back(ifStmt(var("active"), block(stagePhases(s, add(var("uvw0"), mul(var("t"), lit(3))), "cc", "kk"))));
  for (int j = 0; j < VPT; ++j) {
    chunk.push_back(cdecl("float", nm("dk", j), index(var("sdk"), add(var("cg"), lit(j)))));
    for (int p = 0; p < P; ++p) chunk.push_back(decl("float2", nm("acc", j, p), f2(flit(0), flit(0))));
  }
  std::vector<NodePtr> stage;
  stage.push_back(sync());
  {
    std::vector<NodePtr> fill;
    fill.push_back(cdecl("int", "pix", add(var("p0"), var("q"))));
    for (auto& n : correctedPixel(s, "pix")) fill.push_back(n);
    for (int p = 0; p < P; ++p)
      fill.push_back(assign(index(var("spix"), add(mul(var("q"), lit(P)), lit(p))), index(var("px"), lit(p))));
    for (auto& n : pixelLmn(s, var("pix"), "")) fill.push_back(n);
    fill.push_back(assign(index(var("slmn"), var("q")), call("make_float4", {var("l"), var("m"), var("n"), flit(0)})));
    stage.push_back(loop("q", var("tid"), lit(SP), lit(TH), fill));
  }
  stage.push_back(sync());
  {
    std::vector<NodePtr> pb;
    pb.push_back(cdecl("float4", "g", index(var("slmn"), var("q"))));
    pb.push_back(cdecl("float", "A",
                       fma3(mx(var("cc"), "x"), mx(var("g"), "x"),
                            fma3(mx(var("cc"), "y"), mx(var("g"), "y"), mul(mx(var("cc"), "z"), mx(var("g"), "z"))))));
    pb.push_back(cdecl("float", "B",
                       fma3(mx(var("kk"), "x"), mx(var("g"), "x"),
                            fma3(mx(var("kk"), "y"), mx(var("g"), "y"), mul(mx(var("kk"), "z"), mx(var("g"), "z"))))));
    for (auto& n : loadCorr(P, "spix", mul(var("q"), lit(P)), "px")) pb.push_back(n);
    for (int j = 0; j < VPT; ++j) {
      pb.push_back(decl("float", nm("sn", j)));
      pb.push_back(decl("float", nm("cs", j)));
      pb.push_back(sincos(s, fma3(var(nm("dk", j)), var("B"), var("A")), nm("sn", j), nm("cs", j)));
      for (int p = 0; p < P; ++p) {
        // acc += pixel * (cos, sin)
        const NodePtr x = mx(var(nm("px", p)), "x"), y = mx(var(nm("px", p)), "y");
        const NodePtr ax = mx(var(nm("acc", j, p)), "x"), ay = mx(var(nm("acc", j, p)), "y");
        pb.push_back(assign(ax, fma3(x, var(nm("cs", j)), ax)));
        pb.push_back(assign(ax, fma3(unary("-", y), var(nm("sn", j)), ax)));
        pb.push_back(assign(ay, fma3(x, var(nm("sn", j)), ay)));
        pb.push_back(assign(ay, fma3(y, var(nm("cs", j)), ay)));
      }
    }
    stage.push_back(raw("#pragma unroll 2"));
    stage.push_back(loop("q", lit(0), lit(SP), lit(1), pb));
  }
  chunk.push_back(loop("p0", lit(0), lit(S * S), lit(SP), stage));
  {
    std::vector<NodePtr> st;
    for (int j = 0; j < VPT; ++j) {
      DegridTarget d = degridTarget(s, var("t"), add(var("cg"), lit(j)));
      std::vector<NodePtr> w = std::move(d.stmts);
      for (int p = 0; p < P; ++p) {
        const NodePtr val = degridValue(d, mx(var(nm("acc", j, p)), "x"), mx(var(nm("acc", j, p)), "y"));
        w.push_back(assign(index(var("visibilities"), add(mul(var("v"), lit(P)), lit(p))),
                           ternary(var("ok"), val, f2(flit(0), flit(0)))));
      }
      st.push_back(ifStmt(bin("<", add(var("cg"), lit(j)), var("nc")), block(w)));
    }
    chunk.push_back(ifStmt(var("active"), block(st)));
  }
  body.push_back(loop("base", lit(0), var("items"), lit(TH), chunk));

  NodePtr fn = kernelFn(k.name, TH, degridderParams(), body, s.tuning.residentThreads);
  k.source = header(s, k.name,
                    fmt::format("one block per subgrid slot, {} threads each holding {} channel(s) of a time step; {} "
                                "corrected pixels staged per "
                                "round; per visibility and pixel 1 FMA (phase) + 1 sincos + {} FMAs (+ 6 / {} for the "
                                "time step's phases)",
                                TH, VPT, SP, 4 * P, VPT)) +
             helpers(s, false) + print(removeDeadCode(foldConstants(fn)));
  return k;
}

GridderKernel emitTileAdder(const GridderSpec& s) {
  const int S = s.subgridSize, P = s.correlations, G = s.gridSize, NT = s.tilesPerSide(), TH = gridderAdderThreads(s);
  const int PPA = S * S / TH;
  const long long perPlane = static_cast<long long>(NT) * NT;
  GridderKernel k;
  k.name = s.name + "_adder";
  k.threads = TH;
  std::vector<NodePtr> body = unitPrologue();
  body.push_back(cdecl("long long", "b", bin("/", var("unit"), lit(s.wPlanes * perPlane))));
  body.push_back(
      cdecl("int", "zt", cast("int", bin("%", var("unit"), lit(s.wPlanes * perPlane)))));  // plane * tiles + tile
  body.push_back(cdecl("int", "z", bin("/", var("zt"), lit(perPlane))));
  body.push_back(cdecl("int", "tile", bin("%", var("zt"), lit(perPlane))));
  body.push_back(cdecl("int", "gx0", mul(bin("%", var("tile"), lit(NT)), lit(S))));
  body.push_back(cdecl("int", "gy0", mul(bin("/", var("tile"), lit(NT)), lit(S))));
  body.push_back(cdecl("int*", "offs", add(var("tile_offsets"), mul(var("b"), lit(s.wPlanes * perPlane + 1)))));
  body.push_back(cdecl("int*", "list", add(var("tile_subgrids"), mul(var("b"), lit(4 * s.maxSubgrids)))));
  for (int i = 0; i < PPA; ++i) {
    body.push_back(cdecl("int", nm("ox", i), bin("%", add(var("tid"), lit(i * TH)), lit(S))));
    body.push_back(cdecl("int", nm("oy", i), bin("/", add(var("tid"), lit(i * TH)), lit(S))));
    for (int p = 0; p < P; ++p) body.push_back(decl("float2", nm("acc", i, p), f2(flit(0), flit(0))));
  }
  std::vector<NodePtr> lb;
  lb.push_back(cdecl("long long", "sg", add(mul(var("b"), lit(s.maxSubgrids)), index(var("list"), var("k")))));
  lb.push_back(cdecl("int*", "meta", add(var("metadata"), mul(var("sg"), lit(kGridMetaInts)))));
  lb.push_back(cdecl("int", "dx", sub(var("gx0"), index(var("meta"), lit(kMetaX)))));
  lb.push_back(cdecl("int", "dy", sub(var("gy0"), index(var("meta"), lit(kMetaY)))));
  lb.push_back(cdecl("float2*", "src", add(var("subgrids"), mul(var("sg"), lit(static_cast<long long>(P) * S * S)))));
  for (int i = 0; i < PPA; ++i) {
    std::vector<NodePtr> in;
    in.push_back(cdecl("int", "x", add(var("dx"), var(nm("ox", i)))));
    in.push_back(cdecl("int", "y", add(var("dy"), var(nm("oy", i)))));
    std::vector<NodePtr> a;
    a.push_back(cdecl("int", "q",
                      add(mul(bin("%", add(var("y"), lit(S / 2)), lit(S)), lit(S)),
                          bin("%", add(var("x"), lit(S / 2)), lit(S)))));
    for (int p = 0; p < P; ++p) {
      a.push_back(
          cdecl("float2", nm("v", p), index(var("src"), add(lit(static_cast<long long>(p) * S * S), var("q")))));
      a.push_back(assign(mx(var(nm("acc", i, p)), "x"), mx(var(nm("v", p)), "x"), "+="));
      a.push_back(assign(mx(var(nm("acc", i, p)), "y"), mx(var(nm("v", p)), "y"), "+="));
    }
    in.push_back(
        ifStmt(bin("&&", bin("<", cast("unsigned", var("x")), lit(S)), bin("<", cast("unsigned", var("y")), lit(S))),
               block(a)));
    lb.push_back(block(in));
  }
  body.push_back(forLoop(decl("int", "k", index(var("offs"), var("zt"))),
                         bin("<", var("k"), index(var("offs"), add(var("zt"), lit(1)))), assign(var("k"), lit(1), "+="),
                         block(lb)));
  for (int i = 0; i < PPA; ++i) {
    std::vector<NodePtr> w;
    for (int p = 0; p < P; ++p)
      w.push_back(assign(index(var("grid"), gridIndex(s, lit(p), add(var("gy0"), var(nm("oy", i))),
                                                      add(var("gx0"), var(nm("ox", i))))),
                         var(nm("acc", i, p))));
    body.push_back(ifStmt(bin("&&", bin("<", add(var("gx0"), var(nm("ox", i))), lit(G)),
                              bin("<", add(var("gy0"), var(nm("oy", i))), lit(G))),
                          block(w)));
  }
  NodePtr fn = kernelFn(k.name, TH,
                        {decl("const int* __restrict__", "metadata"), decl("const int* __restrict__", "tile_offsets"),
                         decl("const int* __restrict__", "tile_subgrids"),
                         decl("const float2* __restrict__", "subgrids"), decl("float2* __restrict__", "grid"),
                         decl("long long", "units")},
                        body);
  k.source = header(s, k.name,
                    fmt::format("atomic-free adder: one block per {} x {} grid tile and w-plane, {} threads x {} "
                                "pixels, summing the subgrids the planner "
                                "listed for the tile (grid pixel (x0 + o) takes subgrid value (o + S/2) % S); every "
                                "grid value written once",
                                S, S, TH, PPA)) +
             print(removeDeadCode(foldConstants(fn)));
  return k;
}

GridderKernel emitAtomicAdder(const GridderSpec& s) {
  const int S = s.subgridSize, P = s.correlations, TH = gridderAdderThreads(s);
  GridderKernel k;
  k.name = s.name + "_adder";
  k.threads = TH;
  std::vector<NodePtr> body = unitPrologue();
  for (auto& n : readMeta(s, false)) body.push_back(n);
  body.push_back(
      cdecl("float2*", "src", add(var("subgrids"), mul(var("unit"), lit(static_cast<long long>(P) * S * S)))));
  std::vector<NodePtr> lb;
  lb.push_back(cdecl("int", "p", bin("/", var("e"), lit(S * S))));
  lb.push_back(cdecl("int", "o", bin("%", var("e"), lit(S * S))));
  lb.push_back(cdecl("int", "ox", bin("%", var("o"), lit(S))));
  lb.push_back(cdecl("int", "oy", bin("/", var("o"), lit(S))));
  lb.push_back(cdecl("float2", "v",
                     index(var("src"),
                           add(mul(var("p"), lit(S * S)), add(mul(bin("%", add(var("oy"), lit(S / 2)), lit(S)), lit(S)),
                                                              bin("%", add(var("ox"), lit(S / 2)), lit(S)))))));
  lb.push_back(cdecl("long long", "g", gridIndex(s, var("p"), add(var("y0"), var("oy")), add(var("x0"), var("ox")))));
  lb.push_back(exprStmt(call("atomicAdd", {unary("&", mx(index(var("grid"), var("g")), "x")), mx(var("v"), "x")})));
  lb.push_back(exprStmt(call("atomicAdd", {unary("&", mx(index(var("grid"), var("g")), "y")), mx(var("v"), "y")})));
  body.push_back(loop("e", var("tid"), lit(P * S * S), lit(TH), lb));
  NodePtr fn = kernelFn(k.name, TH,
                        {decl("const int* __restrict__", "metadata"), decl("const float2* __restrict__", "subgrids"),
                         decl("float2* __restrict__", "grid"), decl("long long", "units")},
                        body);
  k.source = header(s, k.name,
                    "adder with atomics: one block per subgrid slot, atomicAdd of every value onto the grid (zeroed "
                    "first)") +
             print(removeDeadCode(foldConstants(fn)));
  return k;
}

GridderKernel emitSplitter(const GridderSpec& s) {
  const int S = s.subgridSize, P = s.correlations, TH = gridderAdderThreads(s);
  GridderKernel k;
  k.name = s.name + "_splitter";
  k.threads = TH;
  std::vector<NodePtr> body = unitPrologue();
  for (auto& n : readMeta(s, false)) body.push_back(n);
  body.push_back(
      decl("float2* const", "dst", add(var("subgrids"), mul(var("unit"), lit(static_cast<long long>(P) * S * S)))));
  std::vector<NodePtr> lb;
  lb.push_back(cdecl("int", "p", bin("/", var("e"), lit(S * S))));
  lb.push_back(cdecl("int", "q", bin("%", var("e"), lit(S * S))));
  lb.push_back(cdecl("int", "oy", bin("%", add(bin("/", var("q"), lit(S)), lit(S / 2)), lit(S))));
  lb.push_back(cdecl("int", "ox", bin("%", add(bin("%", var("q"), lit(S)), lit(S / 2)), lit(S))));
  lb.push_back(assign(index(var("dst"), var("e")), index(var("grid"), gridIndex(s, var("p"), add(var("y0"), var("oy")),
                                                                                add(var("x0"), var("ox"))))));
  body.push_back(loop("e", var("tid"), lit(P * S * S), lit(TH), lb));
  NodePtr fn = kernelFn(k.name, TH,
                        {decl("const int* __restrict__", "metadata"), decl("const float2* __restrict__", "grid"),
                         decl("float2* __restrict__", "subgrids"), decl("long long", "units")},
                        body);
  k.source = header(s, k.name,
                    "splitter: one block per subgrid slot; subgrid value q takes grid pixel (x0 + (q + S/2) % S)") +
             print(removeDeadCode(foldConstants(fn)));
  return k;
}

GridderKernel emitZeroFill(const GridderSpec& s, const std::string& what) {
  GridderKernel k;
  k.name = s.name + "_zero_" + what;
  k.threads = 256;
  std::vector<NodePtr> body;
  body.push_back(cdecl("long long", "i", add(mul(ll(var("blockIdx.x")), lit(256)), var("threadIdx.x"))));
  body.push_back(ifStmt(bin("<", var("i"), var("n")), assign(index(var("out"), var("i")), f2(flit(0), flit(0)))));
  NodePtr fn = kernelFn(k.name, 256, {decl("float2* __restrict__", "out"), decl("long long", "n")}, body);
  k.source = header(s, k.name, fmt::format("zero fill of the {}", what)) + print(removeDeadCode(foldConstants(fn)));
  return k;
}

}  // namespace warpforge
