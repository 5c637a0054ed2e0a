// The post kernel of cf32 spectra (PfbGeometry::spectrumPost): a block owns one (spectrum, pol) combination, or
// several consecutive ones below 1024 channels, all n1 rows of their scratch, so that their channels leave as one
// contiguous run. The row-pair kernel (PfbPostEmitter.cpp)
// owns rows k1 and n1 - k1 of 16 combinations: its cf32 channels k1 + n1 k2 lie n1 x 8 bytes apart, 8 bytes of
// every 32-byte sector per store, and the L2 takes four partial writes per sector (ncu on an H200, 4k channels: L2
// 70 % busy at 19 % DRAM throughput). Here the split writes each channel to a staging buffer in shared memory, and
// the block stores the spectrum with consecutive lanes on consecutive channels.
//
// Same arithmetic as the row-pair kernel: the same row FFT passes over the same rows, the same split twiddles,
// split and gain, so that without a delay the two kernels' spectra are equal bit for bit. The delay phase takes one
// sincospif per split item (the row-pair kernel's per-chunk tables hold one combination's phases per row pair).
#include <algorithm>
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

std::string pfbPostSpectrumSource(const PfbSpec& s, const PfbGeometry& g, const std::string& name) {
  const int TB = g.threadsB, N1 = g.n1, N2 = g.n2;
  const long long N = s.channels;
  // C consecutive combinations per block (PfbGeometry::spectrumPostCombos): contiguous in the scratch and the output,
  // their NC points one buffer of C spectra; a split item's combination is i / (N / 2).
  const int C = g.spectrumPostCombos;
  const long long NC = C * N;
  auto widen = [&](NodePtr e) { return s.halfScratch ? call("__half22float2", {std::move(e)}) : e; };
  // The block's threads over `count` elements (loads, stores) or split items, `i` = t + TB m.
  auto trips = [&](long long count, const std::string& i, std::vector<NodePtr> inner) -> NodePtr {
    return forLoop(decl("int", i, var("t")), bin("<", var(i), lit(count)), assign(var(i), lit(TB), "+="),
                   block(std::move(inner)));
  };

  std::vector<NodePtr> body;
  body.push_back(externSharedArray("float2", "pfb_shared"));
  body.push_back(
      comment(fmt::format("two buffers of the {}'s {} rows x {} points (swizzled slots); the split stages the "
                          "channels in the "
                          "buffer the last pass did not write",
                          C > 1 ? fmt::format("{} combinations", C) : std::string("combination"), N1, N2)));
  body.push_back(decl("float2* const", "buf0", var("pfb_shared")));
  body.push_back(decl("float2* const", "buf1", bin("+", var("pfb_shared"), lit(NC))));
  body.push_back(decl("const int", "t", var("(int)threadIdx.x")));
  if (C == 1) {
    body.push_back(
        comment("block u = one (batch entry, receiver, pol, spectrum): Y at scratch + u N, channels at out + u N"));
    body.push_back(decl("const long long", "u", cast("long long", var("blockIdx.x"))));
  } else {
    body.push_back(
        comment(fmt::format("block: combinations u .. u + {} (batch entry, receiver, pol, spectrum), "
                            "consecutive: Y at scratch + u N, channels at out + u N",
                            C - 1)));
    body.push_back(decl("const long long", "u", bin("*", cast("long long", var("blockIdx.x")), lit(C))));
  }
  body.push_back(decl(fmt::format("const {}* const", s.scratchElement()), "src",
                      bin("+", var("scratch"), bin("*", var("u"), lit(N)))));
  body.push_back(decl("float2* const", "dst", bin("+", var("out"), bin("*", var("u"), lit(N)))));
  // The gains of combination u's stream (per item where a block holds several combinations: `cu` its combination).
  auto gainBase = [&](NodePtr unit) {
    return bin("+", var("gains"),
               bin("*", bin("%", bin("/", std::move(unit), lit(s.spectra)), lit(s.streams())), lit(N)));
  };
  if (s.perChannelGain && C == 1) body.push_back(decl("const float2* const", "gain", gainBase(var("u"))));

  pfb::PassShape shape;
  shape.innerCount = 1;
  shape.outerStride = N2;
  shape.pointStride = 1;
  shape.threads = TB;
  shape.table = "twiddles";
  shape.slot = "pfb_slot";
  for (auto& n : pfb::hoistTwiddles(g.rowFft, shape, "r")) body.push_back(n);
  // A thread's split items share their item (i % n2) where n2 divides the block: its factor of the split twiddle.
  const bool factored = g.factoredSplitTwiddle;  // (emitPfb sets it only where TB % n2 == 0)
  if (factored)
    body.push_back(decl("const float2", "wi",
                        call("__ldg", {bin("+", var("twiddles"),
                                           bin("+", lit(g.splitTwiddleOffset),
                                               bin("*", lit(N1), bin("%", var("t"), lit(N2)))))})));

  if (s.delay && C == 1) {
    // e^{i (phi - pi d k / N)} = e^{i phi} u for channel A (u = e^{-i pi d A / N}), e^{i (phi - pi d)} conj(u) for N -
    // A.
    body.push_back(comment("the delay phase's constants: (d, phi) of the combination, e^{i phi}, e^{i (phi - pi d)}"));
    body.push_back(decl("const float2", "dl", call("__ldg", {bin("+", var("delays"), var("u"))})));
    body.push_back(decl("const float", "half", bin("*", var("dl.y"), flit(1.0 / M_PI))));
    body.push_back(declGroup("float", {{"sn0", nullptr}, {"cs0", nullptr}, {"sn1", nullptr}, {"cs1", nullptr}}));
    body.push_back(exprStmt(call("sincospif", {var("half"), var("&sn0"), var("&cs0")})));
    body.push_back(exprStmt(call("sincospif", {bin("-", var("half"), var("dl.x")), var("&sn1"), var("&cs1")})));
  } else if (s.delay) {
    // The same constants per combination, computed by its thread c < C into shared memory (the load's barrier
    // publishes them): (d, phi / pi) and e^{i phi}, e^{i (phi - pi d)}.
    body.push_back(
        withNote(sharedArray("float2", "pfb_dl", {decimal(C)}), "per combination of the block: (d, phi / pi)"));
    body.push_back(
        withNote(sharedArray("float4", "pfb_rot", {decimal(C)}), "per combination: e^{i phi}, e^{i (phi - pi d)}"));
    std::vector<NodePtr> setup;
    setup.push_back(decl("const float2", "d", call("__ldg", {bin("+", var("delays"), bin("+", var("u"), var("t")))})));
    setup.push_back(decl("const float", "half", bin("*", var("d.y"), flit(1.0 / M_PI))));
    setup.push_back(declGroup("float", {{"sn0", nullptr}, {"cs0", nullptr}, {"sn1", nullptr}, {"cs1", nullptr}}));
    setup.push_back(exprStmt(call("sincospif", {var("half"), var("&sn0"), var("&cs0")})));
    setup.push_back(exprStmt(call("sincospif", {bin("-", var("half"), var("d.x")), var("&sn1"), var("&cs1")})));
    setup.push_back(assign(index(var("pfb_dl"), var("t")), call("make_float2", {var("d.x"), var("half")})));
    setup.push_back(
        assign(index(var("pfb_rot"), var("t")), call("make_float4", {var("cs0"), var("sn0"), var("cs1"), var("sn1")})));
    body.push_back(ifStmt(bin("<", var("t"), lit(C)), block(setup)));
  }

  body.push_back(comment(C == 1 ? "load the combination's rows (contiguous in the scratch)"
                                : "load the combinations' rows (contiguous in the scratch)"));
  body.push_back(
      trips(NC, "e", {assign(index(var("buf0"), call("pfb_slot", {var("e")})), widen(index(var("src"), var("e"))))}));
  body.push_back(exprStmt(call("__syncthreads", {})));
  const int passes = static_cast<int>(g.rowFft.radices.size());
  for (int p = 0; p < passes; ++p) {
    shape.in = p % 2 ? "buf1" : "buf0";
    shape.out = p % 2 ? "buf0" : "buf1";
    shape.butterflies = lit(NC / g.rowFft.radices[p]);
    body.push_back(pfb::emitPass(g.rowFft, p, shape, "r"));
  }
  const std::string fin = passes % 2 ? "buf1" : "buf0", stage = passes % 2 ? "buf0" : "buf1";

  // Split item i = n2 pair + item: channels A = pfb_channel(pair, item, 0) and N - A. Z[A], Z[N - A] are elements xa,
  // xb of the pair's two rows (row A then row B, n2 each), as the row-pair kernel numbers them.
  std::vector<NodePtr> it;
  // (several combinations: item i of combination cu = i / (N / 2) is item j = i % (N / 2) of its spectrum, whose
  // elements and staged channels lie cu N further)
  if (C > 1) {
    it.push_back(decl("const int", "cu", bin("/", var("i"), lit(N / 2))));
    it.push_back(decl("const int", "j", bin("%", var("i"), lit(N / 2))));
    it.push_back(decl("const int", "cbase", bin("*", var("cu"), lit(N))));
  }
  const char* j = C > 1 ? "j" : "i";
  it.push_back(decl("const int", "pair", bin("/", var(j), lit(N2))));
  it.push_back(decl("const int", "item", bin("%", var(j), lit(N2))));
  it.push_back(decl("const int", "rowA", var("pair")));
  it.push_back(decl("const int", "rowB", ternary(var("pair"), bin("-", lit(N1), var("pair")), lit(N1 / 2))));
  it.push_back(decl("const int", "kA", call("pfb_channel", {var("pair"), var("item"), lit(0)})));
  it.push_back(decl("const int", "kB", call("pfb_channel", {var("pair"), var("item"), lit(1)})));
  it.push_back(declGroup("int", {{"xa", nullptr}, {"xb", nullptr}}));
  auto setX = [&](NodePtr a, NodePtr b) {
    return block({assign(var("xa"), std::move(a)), assign(var("xb"), std::move(b))});
  };
  it.push_back(
      ifChain({{bin("!=", var("pair"), lit(0)), setX(var("item"), bin("-", decimal(2 * N2 - 1), var("item")))},
               {bin("<", var("item"), decimal(N2 / 2)),
                setX(var("item"), ternary(var("item"), bin("-", decimal(N2), var("item")), decimal(N2 / 2)))}},
              setX(bin("+", decimal(N2 / 2), var("item")), bin("-", decimal(2 * N2 - 1 + N2 / 2), var("item")))));
  auto element = [&](const std::string& x) {
    NodePtr e = ternary(bin("<", var(x), lit(N2)), bin("+", bin("*", var("rowA"), lit(N2)), var(x)),
                        bin("+", bin("*", var("rowB"), lit(N2)), bin("-", var(x), lit(N2))));
    return C > 1 ? bin("+", var("cbase"), std::move(e)) : e;
  };
  it.push_back(decl("const float2", "za", index(var(fin), call("pfb_slot", {element("xa")}))));
  it.push_back(decl("const float2", "zb", index(var(fin), call("pfb_slot", {element("xb")}))));
  it.push_back(decl("const bool", "edge", bin("&&", bin("==", var("pair"), lit(0)), bin("==", var("item"), lit(0)))));
  it.push_back(declGroup("float2", {{"xa_", nullptr}, {"xb_", nullptr}}));
  {
    std::vector<NodePtr> gen;
    NodePtr gather = call("__ldg", {bin("+", var("twiddles"), bin("+", lit(g.splitTwiddleOffset), var("kA")))});
    if (factored) {
      // e^{-i pi (pair + n1 item) / N} = e^{-i pi pair / N} e^{-i pi n1 item / N}; pair 0's channels take the gather.
      gen.push_back(decl("const float2", "wp",
                         call("__ldg", {bin("+", var("twiddles"), bin("+", lit(g.splitTwiddleOffset), var("pair")))})));
      gen.push_back(
          decl("const float2", "w",
               ternary(var("pair"), call("make_float2", {cmulX("wi", "wp"), cmulY("wi", "wp")}), std::move(gather))));
    } else {
      gen.push_back(decl("const float2", "w", std::move(gather)));
    }
    for (auto& n : pfb::splitHalves()) gen.push_back(n);
    for (auto& n : pfb::splitCombine("w", "xa_", "xb_")) gen.push_back(n);
    it.push_back(ifStmt(var("edge"), block(pfb::splitEdge("xa_", "xb_")), block(gen)));
  }
  if (s.delay && C > 1) {
    it.push_back(decl("const float2", "dl", index(var("pfb_dl"), var("cu"))));
    it.push_back(decl("const float", "half", var("dl.y")));
    it.push_back(decl("const float4", "rc", index(var("pfb_rot"), var("cu"))));
  }
  if (s.delay) {
    it.push_back(declGroup("float", {{"sn", nullptr}, {"cs", nullptr}}));
    it.push_back(exprStmt(
        call("sincospif",
             {bin("*", unary("-", var("dl.x")), bin("*", cast("float", var("kA")), flit(1.0 / static_cast<double>(N)))),
              var("&sn"), var("&cs")})));
    for (auto& n :
         C > 1 ? pfb::delayRotations("rc.x", "rc.y", "rc.z", "rc.w") : pfb::delayRotations("cs0", "sn0", "cs1", "sn1"))
      it.push_back(n);
    it.push_back(ifUnbraced(var("edge"),
                            block({exprStmt(call("sincospif", {bin("-", var("half"), bin("*", flit(0.5), var("dl.x"))),
                                                               var("&sn"), var("&cs")})),
                                   assign(var("rotB"), call("make_float2", {var("cs"), var("sn")}))})));
  }
  // Gain and delay of one channel, then its staging slot: channel c at c ^ ((c >> 5) & 31), so that a warp's 32
  // channels n1 = 32 apart (consecutive items of one pair, n2 >= 32: 1024 channels and more) meet distinct banks, and a
  // run of 32 consecutive channels stays in its 32 slots (shorter spectra: a warp spans pairs, up to 4-way).
  auto post = [&](const std::string& x, const std::string& k, const std::string& rot) {
    std::vector<NodePtr> st;
    std::string v = x;
    if (s.delay) {
      st.push_back(decl("const float2", "vr", call("make_float2", {cmulX(v, rot), cmulY(v, rot)})));
      v = "vr";
    }
    if (s.perChannelGain) {
      st.push_back(
          decl("const float2", "gn",
               call("__ldg", {bin("+", C > 1 ? gainBase(bin("+", var("u"), var("cu"))) : var("gain"), var(k))})));
      st.push_back(decl("const float2", "vg", call("make_float2", {cmulX(v, "gn"), cmulY(v, "gn")})));
      v = "vg";
    } else if (s.gain != 1.0) {
      st.push_back(
          decl("const float2", "vg",
               call("make_float2", {bin("*", var(v + ".x"), flit(s.gain)), bin("*", var(v + ".y"), flit(s.gain))})));
      v = "vg";
    }
    // (several combinations: the block's index cbase + k of C N arranged as the store reads it; a spectrum is whole
    // runs of 32, so each stays within its own N slots)
    auto at = [&] { return C > 1 ? bin("+", var("cbase"), var(k)) : var(k); };
    st.push_back(assign(index(var(stage), bin("^", at(), bin("&", bin(">>", at(), lit(5)), lit(31)))), var(v)));
    return block(st);
  };
  it.push_back(post("xa_", "kA", "rotA"));
  it.push_back(post("xb_", "kB", "rotB"));
  body.push_back(comment("split, gain and delay: each item yields channels A and N - A, staged by channel"));
  body.push_back(trips(NC / 2, "i", std::move(it)));
  body.push_back(exprStmt(call("__syncthreads", {})));
  body.push_back(comment(C == 1 ? "store the spectrum: consecutive lanes on consecutive channels"
                                : "store the spectra: consecutive lanes on consecutive channels"));
  body.push_back(
      trips(NC, "c",
            {assign(index(var("dst"), var("c")),
                    index(var(stage), bin("^", var("c"), bin("&", bin(">>", var("c"), lit(5)), lit(31)))))}));

  // Blocks per SM: as many as shared memory holds (sm_90: 227 KiB), at most kSpectrumPostBlocksPerSm (four of 256
  // threads: 64 registers; a lower cap spills in the row passes and split; of 128 threads: 128), fewer of larger
  // blocks.
  const int minBlocks = std::clamp(232448 / (g.sharedB + 4096), 1,
                                   std::max(1, std::min(kSpectrumPostBlocksPerSm, 1024 / TB)));
  NodePtr fn = function(fmt::format("extern \"C\" __global__ void __launch_bounds__({}, {})", TB, minBlocks), "", name,
                        pfb::postParams(s), block(body));
  const std::string header = fmt::format(
      "// {}: {} row FFTs ({} points, all {} rows of {} per block), real-FFT split, {}{}, "
      "cf32 spectra\n// stored contiguously through shared memory; generated by warpforge (pfb family)\n",
      name, s.name, N2, N1,
      C > 1 ? fmt::format("{} consecutive (spectrum, pol) combinations", C)
            : std::string("one (spectrum, pol) combination"),
      s.perChannelGain ? "per-channel gain" : fmt::format("gain {}", s.gain), s.delay ? ", delay phase slope" : "");
  return header + (s.halfScratch ? "#include <cuda_fp16.h>\n" : "") + pfb::channelHelper(g, N) +
         pfb::slotHelper(false) + print(foldConstants(fn));
}

}  // namespace warpforge
