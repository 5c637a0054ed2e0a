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
#include <stdexcept>

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
  // One buffer (PfbGeometry::spectrumPostInPlace): passes and split read their inputs into registers before a
  // barrier, then write over them.
  const bool inPlace = g.spectrumPostInPlace;
  // P blocks per combination (PfbGeometry::spectrumPostParts): block part h holds PP row pairs, NB points; its local
  // row lr < PP is row A of pair h PP + lr, lr >= PP row B of pair h PP + lr - PP (pfb_part_row). It stages channel k
  // at (k / n1) 2 PP + its local row (the held channels of each run of n1 together), swizzled by the index's bits 4..7
  // (a warp's items of one pair, 2 PP = 16 slots apart, meet 16 distinct pairs of banks).
  const int P = g.spectrumPostParts, PP = N1 / 2 / P;
  const long long NB = NC / P;
  if (P > 1 && (!inPlace || C != 1 || 2 * PP != 16))
    throw std::logic_error("pfbPostSpectrumSource: parts only in place, one combination, 16 rows per part");
  auto stagedSlot = [&](NodePtr k) { return bin("^", k, bin("&", bin(">>", k, lit(4)), lit(15))); };
  auto widen = [&](NodePtr e) { return s.halfScratch ? call("__half22float2", {std::move(e)}) : e; };
  // The block's threads over `count` elements (loads, stores) or split items, `i` = t + TB m.
  auto trips = [&](long long count, const std::string& i, std::vector<NodePtr> inner) -> NodePtr {
    return forLoop(decl("int", i, var("t")), bin("<", var(i), lit(count)), assign(var(i), lit(TB), "+="),
                   block(std::move(inner)));
  };
  // The same over a multiple of the block, unrolled: trip m has `i` = t + TB m (registers indexed by m stay registers).
  auto constTrips = [&](long long count, const std::string& i, std::vector<NodePtr> inner) -> std::vector<NodePtr> {
    inner.insert(inner.begin(), decl("const int", i, bin("+", var("t"), bin("*", lit(TB), var("m")))));
    return {raw("#pragma unroll"), forLoop(decl("int", "m", lit(0)), bin("<", var("m"), lit(count / TB)),
                                           exprStmt(unary("++", var("m"))), block(std::move(inner)))};
  };

  std::vector<NodePtr> body;
  body.push_back(externSharedArray("float2", "pfb_shared"));
  if (inPlace) {
    body.push_back(comment(
        fmt::format("one buffer of the {}'s {} rows x {} points (swizzled slots): the passes "
                    "and the split in place, the split staging the channels over its inputs",
                    P > 1 ? fmt::format("block's part (1 of {}) of its combination", P) : std::string("combination"),
                    N1 / P, N2)));
    body.push_back(decl("float2* const", "buf0", var("pfb_shared")));
  } else {
    body.push_back(
        comment(fmt::format("two buffers of the {}'s {} rows x {} points (swizzled slots); the split stages the "
                            "channels in the "
                            "buffer the last pass did not write",
                            C > 1 ? fmt::format("{} combinations", C) : std::string("combination"), N1, N2)));
    body.push_back(decl("float2* const", "buf0", var("pfb_shared")));
    body.push_back(decl("float2* const", "buf1", bin("+", var("pfb_shared"), lit(NC))));
  }
  body.push_back(decl("const int", "t", var("(int)threadIdx.x")));
  if (P > 1) {
    body.push_back(
        comment(fmt::format("blocks {} u .. {} u + {}: one (batch entry, receiver, pol, spectrum), part h "
                            "of its row pairs; Y at scratch + u N, channels at out + u N",
                            P, P, P - 1)));
    body.push_back(decl("const long long", "u", cast("long long", bin("/", var("blockIdx.x"), lit(P)))));
    body.push_back(decl("const int", "h", cast("int", bin("%", var("blockIdx.x"), lit(P)))));
  } else if (C == 1) {
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
  // (in place, a pass holds its 16 inputs per thread across its barrier: its twiddles are loaded per butterfly)
  shape.hoist = !inPlace;
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
  NodePtr loadFrom = P > 1 ? bin("+", bin("*", call("pfb_part_row", {var("h"), bin("/", var("e"), lit(N2))}), lit(N2)),
                                 bin("%", var("e"), lit(N2)))
                           : var("e");
  body.push_back(
      trips(NB, "e",
            {assign(index(var("buf0"), call("pfb_slot", {var("e")})), widen(index(var("src"), std::move(loadFrom))))}));
  body.push_back(exprStmt(call("__syncthreads", {})));
  const int passes = static_cast<int>(g.rowFft.radices.size());
  for (int p = 0; p < passes; ++p) {
    shape.in = inPlace || p % 2 == 0 ? "buf0" : "buf1";
    shape.out = inPlace || p % 2 ? "buf0" : "buf1";
    shape.inPlace = inPlace;
    shape.butterflies = lit(NB / g.rowFft.radices[p]);
    body.push_back(pfb::emitPass(g.rowFft, p, shape, "r"));
  }
  const std::string fin = inPlace || passes % 2 == 0 ? "buf0" : "buf1";
  const std::string stage = inPlace || passes % 2 ? "buf0" : "buf1";

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
  if (P > 1) {
    // (the pair's rows are the block's local rows j / n2 and PP + j / n2)
    it.push_back(decl("const int", "pair", bin("+", bin("*", var("h"), lit(PP)), bin("/", var(j), lit(N2)))));
    it.push_back(decl("const int", "item", bin("%", var(j), lit(N2))));
    it.push_back(decl("const int", "rowA", bin("/", var(j), lit(N2))));
    it.push_back(decl("const int", "rowB", bin("+", lit(PP), bin("/", var(j), lit(N2)))));
  } else {
    it.push_back(decl("const int", "pair", bin("/", var(j), lit(N2))));
    it.push_back(decl("const int", "item", bin("%", var(j), lit(N2))));
    it.push_back(decl("const int", "rowA", var("pair")));
    it.push_back(decl("const int", "rowB", ternary(var("pair"), bin("-", lit(N1), var("pair")), lit(N1 / 2))));
  }
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
  // In place the items' elements are read by a loop of their own before the barrier (`reads`), then taken from
  // registers.
  std::vector<NodePtr> reads = it;
  reads.push_back(assign(index(var("za_h"), var("m")), index(var(fin), call("pfb_slot", {element("xa")}))));
  reads.push_back(assign(index(var("zb_h"), var("m")), index(var(fin), call("pfb_slot", {element("xb")}))));
  it.push_back(decl("const float2", "za",
                    inPlace ? index(var("za_h"), var("m")) : index(var(fin), call("pfb_slot", {element("xa")}))));
  it.push_back(decl("const float2", "zb",
                    inPlace ? index(var("zb_h"), var("m")) : index(var(fin), call("pfb_slot", {element("xb")}))));
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
    if (P > 1) {
      st.push_back(decl("const int", "sk" + k,
                        bin("+", bin("*", bin("/", var(k), lit(N1)), lit(2 * PP)),
                            call("pfb_part_local", {var("h"), bin("%", var(k), lit(N1))}))));
      st.push_back(assign(index(var(stage), stagedSlot(var("sk" + k))), var(v)));
    } else {
      st.push_back(assign(index(var(stage), bin("^", at(), bin("&", bin(">>", at(), lit(5)), lit(31)))), var(v)));
    }
    return block(st);
  };
  it.push_back(post("xa_", "kA", "rotA"));
  it.push_back(post("xb_", "kB", "rotB"));
  body.push_back(comment("split, gain and delay: each item yields channels A and N - A, staged by channel"));
  if (inPlace) {
    const int held = static_cast<int>(NB / 2 / TB);
    body.push_back(declArray("float2", "za_h", held));
    body.push_back(declArray("float2", "zb_h", held));
    for (auto& n : constTrips(NB / 2, "i", std::move(reads))) body.push_back(std::move(n));
    body.push_back(exprStmt(call("__syncthreads", {})));
    for (auto& n : constTrips(NB / 2, "i", std::move(it))) body.push_back(std::move(n));
  } else {
    body.push_back(trips(NC / 2, "i", std::move(it)));
  }
  body.push_back(exprStmt(call("__syncthreads", {})));
  body.push_back(comment(C == 1 ? "store the spectrum: consecutive lanes on consecutive channels"
                                : "store the spectra: consecutive lanes on consecutive channels"));
  if (P > 1)
    body.push_back(
        trips(NB, "e",
              {assign(index(var("dst"), bin("+", bin("*", bin("/", var("e"), lit(2 * PP)), lit(N1)),
                                            call("pfb_part_row", {var("h"), bin("%", var("e"), lit(2 * PP))}))),
                      index(var(stage), stagedSlot(var("e"))))}));
  else
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
      "// {}: {} row FFTs ({} points, {} rows of {} per block{}), real-FFT split, {}{}, "
      "cf32 spectra\n// stored contiguously through shared memory; generated by warpforge (pfb family)\n",
      name, s.name, N2, P > 1 ? fmt::format("the {} rows of {} row pairs", N1 / P, PP) : fmt::format("all {}", N1),
      C > 1 ? fmt::format("{} consecutive (spectrum, pol) combinations", C)
            : std::string("one (spectrum, pol) combination"),
      inPlace ? ", in place in one buffer" : "", s.perChannelGain ? "per-channel gain" : fmt::format("gain {}", s.gain),
      s.delay ? ", delay phase slope" : "");
  const std::string partHelpers = P == 1 ? ""
                                         : fmt::format(
                                               "// Part h's local row lr: row A of pair h {0} + lr (lr < {0}), else "
                                               "row B of pair h {0} + lr - {0}; "
                                               "pair p's rows are p and {1} - p (0 and {2} for pair 0)\n"
                                               "static __device__ __forceinline__ int pfb_part_row(int h, int lr) {{\n"
                                               "  const int p = h * {0} + (lr < {0} ? lr : lr - {0});\n"
                                               "  return lr < {0} ? p : (p ? {1} - p : {2});\n}}\n"
                                               "// The local row of row r in its part h (the inverse of pfb_part_row)\n"
                                               "static __device__ __forceinline__ int pfb_part_local(int h, int r) {{\n"
                                               "  if (r == {2}) return {0};\n"
                                               "  return r < {2} ? r - h * {0} : {0} + ({1} - r) - h * {0};\n}}\n",
                                               PP, N1, N1 / 2);
  return header + (s.halfScratch ? "#include <cuda_fp16.h>\n" : "") + pfb::channelHelper(g, N) +
         pfb::slotHelper(false) + partHelpers + print(foldConstants(fn));
}

}  // namespace warpforge
