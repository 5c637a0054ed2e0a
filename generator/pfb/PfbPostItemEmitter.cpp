// The per-item post kernel (bench's variant "post kernel per item"): the row FFTs, the r2c split, gain and delay,
// the store (see PfbGeometry.h), each split item decoding its combination, channels and slots, one sincospif per item.
#include <cmath>

#include <fmt/format.h>

#include "ast/Passes.h"
#include "ast/Printer.h"
#include "generator/pfb/PfbEmitter.h"
#include "generator/pfb/PfbFftCode.h"
#include "generator/pfb/PfbPostParts.h"

namespace warpforge {

using namespace ast;
using pfb::cmulX;
using pfb::cmulY;

std::string pfbPostItemSource(const PfbSpec& s, const PfbGeometry& g, const std::string& name) {
  const bool ci8 = s.outputType == PfbOutputType::CI8;
  const int TB = g.threadsB, N2 = g.n2, QC = g.combosPerChunk, PU = g.polsPerUnit, GS = g.spectraPerUnit;
  const long long N = s.channels, S = s.spectra, P = s.polarizations, Q = s.streams();
  const long long chunkPoints = static_cast<long long>(QC) * 2 * N2;
  const char* slotFn = pfb::slotFunction(g.previous);
  // Work on spectrum s only where s < S: the current kernels drop the test where every unit's spectra exist.
  const bool allSpectra = !g.previous && S % GS == 0;
  auto ifSpectrum = [&](NodePtr body) {
    return allSpectra ? std::move(body) : ifStmt(bin("<", var("s"), lit(S)), std::move(body));
  };

  std::vector<NodePtr> body;
  body.push_back(externSharedArray("float2", "pfb_shared"));
  body.push_back(comment(
      fmt::format("two buffers of {} (spectrum, pol) combinations x 2 rows x {} points{}", QC, N2,
                  ci8 ? fmt::format("; then the staged ci8 output [channel slot][{} combinations]", g.combosPerUnit())
                      : "")));
  body.push_back(decl("float2* const", "buf0", var("pfb_shared")));
  body.push_back(
      decl("float2* const", "buf1", bin("+", var("pfb_shared"), lit(pfbBufferSlots(chunkPoints, g.previous)))));
  if (ci8)
    body.push_back(
        decl("unsigned char* const", "staging",
             cast("unsigned char*", bin("+", var("pfb_shared"), lit(2 * pfbBufferSlots(chunkPoints, g.previous))))));
  if (s.delay) {
    // The notes line up as the kernel has always printed them (6 and 5 spaces after the declarations).
    body.push_back(
        withNote(sharedArray("float2", "pfb_dl", {decimal(QC)}), "per combination of the chunk: (d, phi / pi)", 6));
    body.push_back(withNote(sharedArray("float2", "pfb_rot", {decimal(2 * QC)}), "e^{i phi}, e^{i (phi - pi d)}", 5));
  }
  pfb::appendBlockDecode(s, g, body);
  body.push_back(comment("first stream of this receiver in the batch entry (stream q = receiver x pols + pol)"));
  body.push_back(decl("const long long", "q0", bin("+", bin("*", var("b"), lit(Q)), bin("*", var("r"), lit(P)))));
  body.push_back(decl("const int", "t", var("(int)threadIdx.x")));

  pfb::PassShape shape;
  shape.innerCount = 1;
  shape.outerStride = N2;
  shape.pointStride = 1;
  shape.threads = TB;
  shape.table = "twiddles";
  shape.slot = slotFn;
  shape.baseSlots = !g.slotPerElement;
  for (auto& n : pfb::hoistTwiddles(g.rowFft, shape, "r")) body.push_back(n);
  if (ci8) {
    body.push_back(decl("unsigned", "sat0", lit(0)));
    if (PU == 2) body.push_back(decl("unsigned", "sat1", lit(0)));
  }

  std::vector<NodePtr> chunk;
  // combination -> (spectrum s, pol p): pol fastest (the katgpucbf layout's order within a channel's run)
  auto decode = [&](std::vector<NodePtr>& st, NodePtr combo) {
    st.push_back(decl("const int", "combo", std::move(combo)));
    st.push_back(decl("const int", "s", bin("+", var("s0"), bin("/", var("combo"), lit(PU)))));
    st.push_back(decl("const int", "p", bin("+", var("p0"), bin("%", var("combo"), lit(PU)))));
  };
  {
    std::vector<NodePtr> ld;
    decode(ld, bin("+", var("cb"), bin("/", var("e"), lit(2 * N2))));
    ld.push_back(
        decl("const int", "row", ternary(bin("%", bin("/", var("e"), lit(N2)), lit(2)), var("rowB"), var("rowA"))));
    ld.push_back(decl("float2", "v", call("make_float2", {flit(0), flit(0)})));
    ld.push_back(ifSpectrum(block({assign(
        var("v"), index(var("scratch"),
                        bin("+", bin("*", bin("+", bin("*", bin("+", var("q0"), var("p")), lit(S)), var("s")), lit(N)),
                            bin("+", bin("*", var("row"), lit(N2)), bin("%", var("e"), lit(N2))))))})));
    ld.push_back(assign(index(var("buf0"), call(slotFn, {var("e")})), var("v")));
    chunk.push_back(comment("load rows A and B of each combination (contiguous in the scratch)"));
    chunk.push_back(forLoop(decl("int", "e", var("t")), bin("<", var("e"), lit(chunkPoints)),
                            assign(var("e"), lit(TB), "+="), block(ld)));
  }
  if (s.delay) {
    // Per combination: (d, phi / pi) and the constants e^{i phi}, e^{i (phi - pi d)} of the phase slope.
    std::vector<NodePtr> st;
    decode(st, bin("+", var("cb"), var("t")));
    std::vector<NodePtr> live;
    live.push_back(decl("const float2", "dl",
                        call("__ldg", {bin("+", var("delays"),
                                           bin("+", bin("*", bin("+", var("q0"), var("p")), lit(S)), var("s")))})));
    live.push_back(decl("const float", "half", bin("*", var("dl.y"), flit(1.0 / M_PI))));
    live.push_back(decl("float", "sn"));
    live.push_back(decl("float", "cs"));
    live.push_back(assign(index(var("pfb_dl"), var("t")), call("make_float2", {var("dl.x"), var("half")})));
    live.push_back(exprStmt(call("sincospif", {var("half"), var("&sn"), var("&cs")})));
    live.push_back(
        assign(index(var("pfb_rot"), bin("*", lit(2), var("t"))), call("make_float2", {var("cs"), var("sn")})));
    live.push_back(exprStmt(call("sincospif", {bin("-", var("half"), var("dl.x")), var("&sn"), var("&cs")})));
    live.push_back(assign(index(var("pfb_rot"), bin("+", bin("*", lit(2), var("t")), lit(1))),
                          call("make_float2", {var("cs"), var("sn")})));
    st.push_back(ifSpectrum(block(live)));
    chunk.push_back(ifStmt(bin("<", var("t"), lit(QC)), block(st)));
  }
  chunk.push_back(exprStmt(call("__syncthreads", {})));
  const int passes = static_cast<int>(g.rowFft.radices.size());
  for (int p = 0; p < passes; ++p) {
    shape.in = p % 2 ? "buf1" : "buf0";
    shape.out = p % 2 ? "buf0" : "buf1";
    shape.butterflies = lit(chunkPoints / g.rowFft.radices[p]);
    chunk.push_back(pfb::emitPass(g.rowFft, p, shape, "r"));
  }
  const std::string fin = passes % 2 ? "buf1" : "buf0";
  {
    std::vector<NodePtr> it;
    decode(it, bin("+", var("cb"), bin("/", var("it"), lit(N2))));
    std::vector<NodePtr> live;
    live.push_back(decl("const int", "item", bin("%", var("it"), lit(N2))));
    live.push_back(decl("const int", "z", bin("*", bin("/", var("it"), lit(N2)), lit(2 * N2))));
    live.push_back(comment("Z[A] and Z[N - A] (row A at elements z .. z + n2 - 1 of the buffer, row B after it)"));
    live.push_back(decl("float2", "za"));
    live.push_back(decl("float2", "zb"));
    // za = fin[slot(z + a)], zb = fin[slot(z + b)]: `z + c + item` / `z + c - item` left to right.
    auto z = [](NodePtr c, const char* op) {
      return c ? bin(op, bin("+", var("z"), std::move(c)), var("item")) : bin("+", var("z"), var("item"));
    };
    auto pairOf = [&](NodePtr a, NodePtr b) {
      return block({assign(var("za"), index(var(fin), call(slotFn, {std::move(a)}))),
                    assign(var("zb"), index(var(fin), call(slotFn, {std::move(b)})))});
    };
    live.push_back(ifChain({{bin("!=", var("pair"), lit(0)), pairOf(z(nullptr, "+"), z(decimal(2 * N2 - 1), "-"))},
                            {bin("<", var("item"), decimal(N2 / 2)),
                             pairOf(z(nullptr, "+"),
                                    bin("+", var("z"),
                                        ternary(var("item"), bin("-", decimal(N2), var("item")), decimal(N2 / 2))))}},
                           pairOf(z(decimal(N2 / 2), "+"), z(decimal(2 * N2 - 1 + N2 / 2), "-"))));
    live.push_back(decl("const int", "kA", call("pfb_channel", {var("pair"), var("item"), lit(0)})));
    live.push_back(decl("const int", "kB", call("pfb_channel", {var("pair"), var("item"), lit(1)})));
    live.push_back(decl("float2", "xa"));
    live.push_back(decl("float2", "xb"));
    live.push_back(
        comment("X[A] = E - i W F, X[N - A] = conj(E + i W F): E = (Z[A] + conj Z[N-A]) / 2, F = (Z[A] - conj Z[N-A]) "
                "/ 2, W = e^{-i pi A / N}"));
    {
      std::vector<NodePtr> gen = pfb::splitHalves();
      gen.push_back(decl("const float2", "w",
                         call("__ldg", {bin("+", var("twiddles"), bin("+", lit(g.splitTwiddleOffset), var("kA")))})));
      for (auto& n : pfb::splitCombine("w", "xa", "xb")) gen.push_back(n);
      live.push_back(ifStmt(bin("&&", bin("==", var("pair"), lit(0)), bin("==", var("item"), lit(0))),
                            block(pfb::splitEdge("xa", "xb")), block(gen)));
    }
    const long long streamChannels = N;
    if (s.delay) {
      // e^{i (phi - pi d k / N)} for k = A and N - A: u = e^{-i pi d A / N} (one sincospif), rot(A) = e^{i phi} u,
      // rot(N - A) = e^{i (phi - pi d)} conj(u), the two constants per combination from shared memory. Item 0 of
      // pair 0 (channels 0 and N / 2): rot(0) = e^{i phi}, rot(N / 2) = e^{i (phi - pi d / 2)}.
      live.push_back(comment("the phase slope: e^{i (phi - pi d k / N)} for both channels"));
      live.push_back(decl("const float2", "dl", index(var("pfb_dl"), bin("/", var("it"), lit(N2)))));
      live.push_back(decl("float", "sn"));
      live.push_back(decl("float", "cs"));
      live.push_back(
          exprStmt(call("sincospif", {bin("*", unary("-", var("dl.x")),
                                          bin("*", cast("float", var("kA")), flit(1.0 / static_cast<double>(N)))),
                                      var("&sn"), var("&cs")})));
      live.push_back(decl("const float2", "c0", index(var("pfb_rot"), bin("*", lit(2), bin("/", var("it"), lit(N2))))));
      live.push_back(decl("const float2", "c1",
                          index(var("pfb_rot"), bin("+", bin("*", lit(2), bin("/", var("it"), lit(N2))), lit(1)))));
      for (auto& n : pfb::delayRotations("c0.x", "c0.y", "c1.x", "c1.y")) live.push_back(n);
      live.push_back(
          ifUnbraced(bin("&&", bin("==", var("pair"), lit(0)), bin("==", var("item"), lit(0))),
                     block({exprStmt(call("sincospif", {bin("-", var("dl.y"), bin("*", flit(0.5), var("dl.x"))),
                                                        unary("&", var("sn")), unary("&", var("cs"))})),
                            assign(var("rotB"), call("make_float2", {var("cs"), var("sn")}))})));
    }
    // The post-processing and store of one channel value.
    auto post = [&](const std::string& x, const std::string& k, int which) {
      std::vector<NodePtr> st;
      std::string v = x;
      if (s.delay) {
        const std::string rot = which ? "rotB" : "rotA";
        st.push_back(decl("const float2", "vr", call("make_float2", {cmulX(v, rot), cmulY(v, rot)})));
        v = "vr";
      }
      if (s.perChannelGain) {
        st.push_back(
            decl("const float2", "gn",
                 call("__ldg",
                      {bin("+", var("gains"),
                           bin("+", bin("*", bin("+", bin("*", var("r"), lit(P)), var("p")), lit(streamChannels)),
                               var(k)))})));
        st.push_back(decl("const float2", "vg", call("make_float2", {cmulX(v, "gn"), cmulY(v, "gn")})));
        v = "vg";
      } else if (s.gain != 1.0) {
        st.push_back(
            decl("const float2", "vg",
                 call("make_float2", {bin("*", var(v + ".x"), flit(s.gain)), bin("*", var(v + ".y"), flit(s.gain))})));
        v = "vg";
      }
      if (!ci8) {
        st.push_back(
            assign(index(var("out"),
                         bin("+", bin("*", bin("+", bin("*", bin("+", var("q0"), var("p")), lit(S)), var("s")), lit(N)),
                             var(k))),
                   var(v)));
      } else {
        st.push_back(comment("round half to even, saturate to +-127 (counted when a part rounds beyond)"));
        st.push_back(decl("const float", "qr", call("rintf", {var(v + ".x")})));
        st.push_back(decl("const float", "qi", call("rintf", {var(v + ".y")})));
        st.push_back(decl("const unsigned", "clipped",
                          cast("unsigned", bin("||", bin(">", call("fabsf", {var("qr")}), flit(127)),
                                               bin(">", call("fabsf", {var("qi")}), flit(127))))));
        if (PU == 2)
          st.push_back(ifUnbraced(bin("%", var("combo"), lit(2)), assign(var("sat1"), var("clipped"), "+="),
                                  assign(var("sat0"), var("clipped"), "+=")));
        else st.push_back(assign(var("sat0"), var("clipped"), "+="));
        st.push_back(
            decl("const int", "ir", cast("int", call("fminf", {call("fmaxf", {var("qr"), flit(-127)}), flit(127)}))));
        st.push_back(
            decl("const int", "ii", cast("int", call("fminf", {call("fmaxf", {var("qi"), flit(-127)}), flit(127)}))));
        // Slot (which, item) holds the unit's 16 combinations (32 bytes); the current kernels rotate its 4-byte
        // words by XOR (slot / 4) mod 8, so that a warp's 32 items (one combination) meet 32 banks.
        auto slotIndex = [&] { return bin("+", lit(static_cast<long long>(which) * N2), var("item")); };
        NodePtr within = g.previous ? var("combo")
                                    : bin("^", var("combo"), bin("&", bin(">>", slotIndex(), lit(1)), lit(14)));
        st.push_back(assign(index(cast("unsigned short*", var("staging")),
                                  bin("+", bin("*", slotIndex(), lit(g.combosPerUnit())), within)),
                            cast("unsigned short", bin("|", bin("&", var("ir"), lit(0xff)),
                                                       bin("<<", bin("&", var("ii"), lit(0xff)), lit(8))))));
      }
      return block(st);
    };
    live.push_back(post("xa", "kA", 0));
    live.push_back(post("xb", "kB", 1));
    it.push_back(ifSpectrum(block(live)));
    chunk.push_back(comment("split, gain and delay, store: item it of a combination yields two channels"));
    chunk.push_back(forLoop(decl("int", "it", var("t")), bin("<", var("it"), lit(static_cast<long long>(QC) * N2)),
                            assign(var("it"), lit(TB), "+="), block(it)));
  }
  chunk.push_back(exprStmt(call("__syncthreads", {})));
  body.push_back(forLoop(decl("int", "cb", lit(0)), bin("<", var("cb"), lit(g.combosPerUnit())),
                         assign(var("cb"), lit(QC), "+="), block(chunk)));

  if (ci8) {
    // 32-byte runs: katgpucbf, a channel's 16 / P spectra x P pols; tcc, one pol's 16 spectra of a channel.
    std::vector<NodePtr> st;
    st.push_back(decl("const int", "slot", bin("/", var("e"), lit(8))));
    st.push_back(
        decl("const int", "k",
             call("pfb_channel", {var("pair"), bin("%", var("slot"), lit(N2)), bin("/", var("slot"), lit(N2))})));
    NodePtr run;
    if (s.layout == PfbLayout::Katgpucbf)
      run = bin("*",
                bin("+", bin("*", bin("+", bin("*", cast("long long", var("r")), lit(N)), var("k")), lit(S)),
                    var("s0")),
                lit(P));
    else
      run = bin("+",
                bin("*",
                    bin("+",
                        bin("*",
                            bin("+", bin("*", cast("long long", var("k")), lit(S / 16)), bin("/", var("s0"), lit(16))),
                            lit(s.receivers)),
                        var("r")),
                    lit(P * 16)),
                bin("*", var("p0"), lit(16)));
    st.push_back(comment("element offset of the run (ci8 elements), then 4-byte words"));
    st.push_back(decl("const long long", "at", bin("+", bin("*", var("b"), lit(s.outputElementsPerBatch())), run)));
    st.push_back(
        assign(index(cast("unsigned*", var("out")), bin("+", bin("/", var("at"), lit(2)), bin("%", var("e"), lit(8)))),
               index(cast("const unsigned*", var("staging")),
                     g.previous ? var("e") : bin("^", var("e"), bin("&", bin(">>", var("e"), lit(5)), lit(7))))));
    body.push_back(comment("store the staged runs: 8 threads per 32-byte run"));
    body.push_back(forLoop(decl("int", "e", var("t")), bin("<", var("e"), lit(2LL * N2 * 8)),
                           assign(var("e"), lit(TB), "+="), block(st)));
    pfb::appendSaturationTail(s, g, body);
  }

  std::vector<NodePtr> params = pfb::postParams(s);
  NodePtr fn = function(fmt::format("extern \"C\" __global__ void __launch_bounds__({})", TB), "", name, params,
                        block(body));
  return pfb::postHeader(s, g, name) + pfb::channelHelper(g, N) + pfb::slotHelper(g.previous) +
         print(foldConstants(fn));
}

}  // namespace warpforge
