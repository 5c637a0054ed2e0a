// Kernel B: the row FFTs, the r2c split, gain and delay, the store (see PfbGeometry.h). A thread's split items are
// the same in every chunk (item it = t + 256 m of the chunk: n2 divides 256, or 256 divides n2), so their channels,
// split twiddles, gains, buffer slots and staging slots are computed once, before the chunk loop; the loads, split
// items and staged stores are unrolled with constant offsets from per-thread bases (32-bit offsets within a block's
// rows and a batch entry's output).
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

namespace {

// Which pol of a unit (PU = 2) a split item of trip m belongs to: known when the kernel is generated, a thread
// constant (polT), or only at run time ((cb + combination) & 1, where a chunk holds an odd number of combinations).
enum class PolKind { One, Const, Thread, Runtime };

NodePtr sum(NodePtr a, long long c) { return c ? bin("+", std::move(a), lit(c)) : a; }
std::string suffix(const std::string& base, int j, int count) {
  return count > 1 ? fmt::format("{}{}", base, j) : base;
}

}  // namespace

std::string pfbPostSource(const PfbSpec& s, const PfbGeometry& g, const std::string& name) {
  const bool ci8 = s.outputType == PfbOutputType::CI8;
  const int TB = g.threadsB, N2 = g.n2, N1 = g.n1, QC = g.combosPerChunk, PU = g.polsPerUnit, GS = g.spectraPerUnit;
  const int CU = g.combosPerUnit();
  const long long N = s.channels, S = s.spectra, P = s.polarizations;
  const long long chunkPoints = static_cast<long long>(QC) * 2 * N2, chunkItems = chunkPoints / 2;
  if (TB % 256 || chunkPoints % TB || (N2 > TB && N2 % TB) || (N2 <= TB && TB % N2))
    throw std::logic_error("pfbPostSource: the block must be a multiple of 256 threads and divide the chunk's points");
  const bool allSpectra = S % GS == 0;
  // A scratch element as float2 (`scratch` "f16": widened from __half2).
  auto widen = [&](NodePtr e) { return s.halfScratch ? call("__half22float2", {std::move(e)}) : e; };
  const bool caseA = N2 <= TB;  // a thread's item is t % n2 (one per chunk trip); else t + TB j, j < n2 / TB
  const int IPT = caseA ? 1 : N2 / TB;
  const long long splitTrips = std::max<long long>(1, chunkItems / TB), loadTrips = chunkPoints / TB;
  const long long blockOffsets = P * S * N + 16 * N;  // the largest offset within a block's scratch rows
  const char* offType = blockOffsets < (1LL << 31) ? "int" : "long long";
  const char* outOffType = s.outputElementsPerBatch() < (1LL << 31) ? "int" : "long long";
  // The phase slope's tables per combination of a chunk (PfbGeometry::phaseTables): item = LB ih + il has channel
  // A = base(ih) + n1 il (base(ih) the channel of item LB ih; LB divides n2 / 2, where pair 0's rows change), so
  // e^{i (phi - pi d A / N)} = H[ih] L[il] and e^{i (phi - pi d (N - A) / N)} = HB[ih] conj(L[il]) with
  // H[ih] = e^{i pi (phi / pi - d base / N)}, HB[ih] = e^{i pi (phi / pi - d (N - base) / N)}, L[il] = e^{-i pi d n1 il
  // / N}.
  const bool tables = s.delay && g.phaseTables;
  const int LB = g.phaseLow(), NH = N2 / LB, PE = g.phaseEntries();

  std::vector<NodePtr> body;
  body.push_back(externSharedArray("float2", "pfb_shared"));
  body.push_back(
      comment(fmt::format("two buffers of {} (spectrum, pol) combinations x 2 rows x {} points{}", QC, N2,
                          ci8 ? fmt::format("; then the staged ci8 output [channel slot][{} combinations]", CU) : "")));
  body.push_back(decl("float2* const", "buf0", var("pfb_shared")));
  body.push_back(decl("float2* const", "buf1", bin("+", var("pfb_shared"), lit(pfbBufferSlots(chunkPoints, false)))));
  if (ci8)
    body.push_back(
        decl("unsigned char* const", "staging",
             cast("unsigned char*", bin("+", var("pfb_shared"), lit(2 * pfbBufferSlots(chunkPoints, false))))));
  if (s.delay) {
    body.push_back(
        withNote(sharedArray("float2", "pfb_dl", {decimal(QC)}), "per combination of the chunk: (d, phi / pi)"));
    if (tables)
      body.push_back(withNote(sharedArray("float2", "pfb_ph", {decimal(static_cast<long long>(QC) * PE)}),
                              "per combination: H[ih], HB[ih], L[il] (the phase tables)"));
    else body.push_back(withNote(sharedArray("float4", "pfb_rot", {decimal(QC)}), "e^{i phi}, e^{i (phi - pi d)}"));
  }
  pfb::appendBlockDecode(s, g, body);
  // With the pair loop, the statements from here to the store are its body (PfbGeometry::postPairLoop); the
  // saturation counters are declared before it.
  std::vector<NodePtr> beforeLoop;
  body.push_back(decl("const int", "t", var("(int)threadIdx.x")));
  const std::size_t loopStart = body.size();
  if (g.postPairLoop) pfb::appendRowPair(g, body);
  body.push_back(comment("the block's rows of the scratch: first stream q0 + p0 (q0 = b x streams + r x pols)"));
  body.push_back(decl(
      fmt::format("const {}* const", s.scratchElement()), "src",
      bin("+", var("scratch"),
          bin("*",
              bin("+",
                  bin("*",
                      bin("+", bin("+", bin("*", var("b"), lit(s.streams())), bin("*", var("r"), lit(P))), var("p0")),
                      lit(S)),
                  var("s0")),
              lit(N)))));

  if (!ci8) {
    if (PU != 1) throw std::logic_error("pfbPostSource: cf32 units hold one pol");
    body.push_back(comment("the block's first output spectrum ([receiver][pol][spectrum][channel])"));
    body.push_back(decl("float2* const", "dst", bin("+", var("out"), bin("-", var("src"), var("scratch")))));
  }

  pfb::PassShape shape;
  shape.innerCount = 1;
  shape.outerStride = N2;
  shape.pointStride = 1;
  shape.threads = TB;
  shape.table = "twiddles";
  shape.slot = "pfb_slot";
  // At four blocks per SM (64 registers) each butterfly loads its pass twiddles (L1 hits): the 12 registers of
  // hoisted ones do not fit beside the thread constants.
  shape.hoist = g.postBlocksPerSm < 4;
  for (auto& n : pfb::hoistTwiddles(g.rowFft, shape, "r")) body.push_back(n);

  // Offset of combination c's rows (c < CU) from the block's first: (c % PU) S N + (c / PU) N.
  auto comboOffset = [&](long long c) { return (c % PU) * S * N + (c / PU) * N; };
  const bool qcEven = QC % 2 == 0 || PU == 1;

  // --- thread constants of the loads: element e = t + TB m of the chunk.
  const bool loadA = 2 * N2 <= TB;  // a thread's row, column and first combination are thread constants
  body.push_back(comment("the thread's load elements t + " + std::to_string(TB) +
                         " m: slot pfb_slot(t) + const; scratch offset a thread constant + const"));
  body.push_back(decl("const int", "ls", call("pfb_slot", {var("t")})));
  if (loadA) {
    NodePtr lcl = bin("/", var("t"), lit(2 * N2));
    NodePtr comboPart = PU == 1 ? bin("*", lcl, lit(N))
                                : bin("+", bin("*", bin("%", lcl, lit(2)), lit(S * N)),
                                      bin("*", bin("/", lcl, lit(2)), lit(N)));
    body.push_back(decl(
        std::string("const ") + offType, "lo",
        bin("+",
            bin("+", comboPart,
                bin("*", ternary(bin("%", bin("/", var("t"), lit(N2)), lit(2)), var("rowB"), var("rowA")), lit(N2))),
            bin("%", var("t"), lit(N2)))));
  } else {
    body.push_back(decl(std::string("const ") + offType, "loA", bin("+", bin("*", var("rowA"), lit(N2)), var("t"))));
    body.push_back(decl(std::string("const ") + offType, "loB", bin("+", bin("*", var("rowB"), lit(N2)), var("t"))));
  }

  // --- thread constants of the split items.
  body.push_back(comment("the thread's split items (the same in every chunk): channels, slots, twiddles, gains"));
  if (caseA) body.push_back(decl("const int", "cl", bin("/", var("t"), lit(N2))));
  PolKind polKind = PolKind::One;
  if (PU == 2) {
    if (!qcEven) polKind = PolKind::Runtime;
    else if (caseA && TB / N2 >= 2) polKind = PolKind::Thread;
    else polKind = PolKind::Const;
  }
  if (polKind == PolKind::Thread) body.push_back(decl("const int", "polT", bin("%", var("cl"), lit(2))));
  const std::vector<int> gainPols = polKind == PolKind::Const || polKind == PolKind::Runtime ? std::vector<int>{0, 1}
                                                                                             : std::vector<int>{-1};
  for (int j = 0; j < IPT; ++j) {
    const std::string it = suffix("item", j, IPT), kA = suffix("kA", j, IPT), kB = suffix("kB", j, IPT);
    const std::string xa = suffix("xa", j, IPT), xb = suffix("xb", j, IPT);
    body.push_back(
        decl("const int", it, caseA ? bin("%", var("t"), lit(N2)) : sum(var("t"), static_cast<long long>(TB) * j)));
    body.push_back(decl("const int", kA, call("pfb_channel", {var("pair"), var(it), lit(0)})));
    body.push_back(decl("const int", kB, call("pfb_channel", {var("pair"), var(it), lit(1)})));
    body.push_back(declGroup("int", {{xa, nullptr}, {xb, nullptr}}));
    auto setX = [&](NodePtr a, NodePtr b) {
      return block({assign(var(xa), std::move(a)), assign(var(xb), std::move(b))});
    };
    body.push_back(comment("Z[A], Z[N - A]: elements of the combination's rows A, B"));
    body.push_back(
        (ifChain({{bin("!=", var("pair"), lit(0)), setX(var(it), bin("-", decimal(2 * N2 - 1), var(it)))},
                  {bin("<", var(it), decimal(N2 / 2)),
                   setX(var(it), ternary(var(it), bin("-", decimal(N2), var(it)), decimal(N2 / 2)))}},
                 setX(bin("+", decimal(N2 / 2), var(it)), bin("-", decimal(2 * N2 - 1 + N2 / 2), var(it))))));
    NodePtr zt = caseA ? bin("*", var("cl"), lit(2 * N2)) : nullptr;
    auto slotOf = [&](const std::string& x) { return call("pfb_slot", {zt ? bin("+", zt, var(x)) : var(x)}); };
    body.push_back(decl("const int", suffix("sa", j, IPT), slotOf(xa)));
    body.push_back(decl("const int", suffix("sb", j, IPT), slotOf(xb)));
    body.push_back(decl("const float2", suffix("w", j, IPT),
                        call("__ldg", {bin("+", var("twiddles"), bin("+", lit(g.splitTwiddleOffset), var(kA)))})));
    if (tables) {
      body.push_back(decl("const int", suffix("ih", j, IPT), bin("/", var(it), lit(LB))));
      body.push_back(decl("const int", suffix("il", j, IPT), bin("+", bin("%", var(it), lit(LB)), lit(2 * NH))));
    } else if (s.delay) {
      body.push_back(decl("const float", suffix("ka", j, IPT),
                          bin("*", cast("float", var(kA)), flit(1.0 / static_cast<double>(N)))));
    }
    if (s.perChannelGain)
      for (int pol : gainPols) {
        NodePtr p = pol < 0 ? (polKind == PolKind::Thread ? bin("+", var("p0"), var("polT")) : var("p0"))
                            : bin("+", var("p0"), lit(pol));
        const std::string ps = pol < 0 ? "" : fmt::format("_{}", pol);
        for (int which = 0; which < 2; ++which)
          body.push_back(decl("const float2", suffix(which ? "gB" : "gA", j, IPT) + ps,
                              call("__ldg", {bin("+", var("gains"),
                                                 bin("+", bin("*", bin("+", bin("*", var("r"), lit(P)), p), lit(N)),
                                                     var(which ? kB : kA)))})));
      }
    if (ci8)
      for (int which = 0; which < 2; ++which) {
        NodePtr slotIdx = which ? bin("+", lit(N2), var(it)) : var(it);
        body.push_back(decl("const int", suffix(which ? "stB" : "stA", j, IPT), bin("*", slotIdx, lit(CU))));
        body.push_back(decl("const int", suffix(which ? "mB" : "mA", j, IPT),
                            bin("&", bin(">>", which ? bin("+", lit(N2), var(it)) : var(it), lit(1)), lit(14))));
      }
  }
  body.push_back(decl("const bool", "edge",
                      bin("&&", bin("==", var("pair"), lit(0)), bin("==", var(suffix("item", 0, IPT)), lit(0)))));
  if (ci8) {
    // (with the pair loop, a pair's `sat` of the thread's pol is added to sat0 / sat1 at the end of the pair)
    std::vector<NodePtr>& counters = g.postPairLoop ? beforeLoop : body;
    if (polKind == PolKind::Thread) body.push_back(decl("unsigned", "sat", lit(0)));
    if (polKind != PolKind::Thread || g.postPairLoop) {
      counters.push_back(decl("unsigned", "sat0", lit(0)));
      if (PU == 2) counters.push_back(decl("unsigned", "sat1", lit(0)));
    }
  }
  // Closes the pair loop (where the kernel has one) around body[loopStart ..]: a barrier ends each pair, whose store
  // read the staging the next pair's split writes.
  auto closePairLoop = [&] {
    if (!g.postPairLoop) return;
    std::vector<NodePtr> pairBody(std::make_move_iterator(body.begin() + static_cast<std::ptrdiff_t>(loopStart)),
                                  std::make_move_iterator(body.end()));
    body.resize(loopStart);
    if (ci8 && polKind == PolKind::Thread) {
      pairBody.push_back(assign(var("sat0"), ternary(var("polT"), ulit(0), var("sat")), "+="));
      pairBody.push_back(assign(var("sat1"), ternary(var("polT"), var("sat"), ulit(0)), "+="));
    }
    pairBody.push_back(exprStmt(call("__syncthreads", {})));
    for (auto& n : beforeLoop) body.push_back(std::move(n));
    body.push_back(forLoop(decl("int", "pair", lit(0)), bin("<", var("pair"), lit(g.pairs())),
                           exprStmt(unary("++", var("pair"))), block(std::move(pairBody))));
  };

  // Combination of split trip m within the chunk, as an expression (cl: the thread's first, case A).
  auto splitCombo = [&](long long m) -> NodePtr { return caseA ? sum(var("cl"), m * (TB / N2)) : lit(m / IPT); };
  // Spectrum guard where some units have spectra beyond S.
  auto ifSpectrum = [&](NodePtr combo, NodePtr stmt) {
    if (allSpectra) return stmt;
    return ifStmt(bin("<", bin("+", var("s0"), bin("/", bin("+", var("cb"), std::move(combo)), lit(PU))), lit(S)),
                  block({std::move(stmt)}));
  };

  std::vector<NodePtr> chunk;
  {
    chunk.push_back(comment("load rows A and B of each combination (contiguous in the scratch), all loads first"));
    NodePtr cbOff = PU == 1 ? bin("*", var("cb"), lit(N))
                            : (qcEven ? bin("*", bin("/", var("cb"), lit(2)), lit(N))
                                      : bin("+", bin("*", bin("%", var("cb"), lit(2)), lit(S * N)),
                                            bin("*", bin("/", var("cb"), lit(2)), lit(N))));
    chunk.push_back(decl(fmt::format("const {}* const", s.scratchElement()), "ld",
                         bin("+", var("src"), bin("+", cbOff, var(loadA ? "lo" : "loA")))));
    if (!loadA) chunk.push_back(decl(std::string("const ") + offType, "ldB", bin("-", var("loB"), var("loA"))));
    std::vector<NodePtr> stores;
    for (long long m = 0; m < loadTrips; ++m) {
      const std::string v = fmt::format("v{}", m);
      long long c;
      NodePtr at;
      if (loadA) {
        c = m * (TB / (2 * N2));
        at = lit(comboOffset(c));
      } else {
        const long long per = N2 / TB;  // trips per row
        c = m / (2 * per);
        const long long off = comboOffset(c) + TB * (m % per);
        at = (m / per) % 2 ? sum(var("ldB"), off) : lit(off);
      }
      if (allSpectra) {
        chunk.push_back(decl("const float2", v, widen(index(var("ld"), std::move(at)))));
      } else {
        chunk.push_back(decl("float2", v, call("make_float2", {flit(0), flit(0)})));
        NodePtr load = assign(var(v), widen(index(var("ld"), std::move(at))));
        chunk.push_back(ifSpectrum(loadA ? sum(bin("/", var("t"), lit(2 * N2)), c) : lit(c), std::move(load)));
      }
      stores.push_back(assign(index(var("buf0"), pfb::slotOfBase("ls", TB * m)), var(v)));
    }
    for (auto& st : stores) chunk.push_back(st);
  }
  if (s.delay) {
    // Per combination: (d, phi / pi) and the constants e^{i phi}, e^{i (phi - pi d)} of the phase slope.
    std::vector<NodePtr> live;
    live.push_back(decl("const int", "c", bin("+", var("cb"), var("t"))));
    live.push_back(
        decl("const float2", "dl",
             call("__ldg",
                  {bin("+", var("delays"),
                       bin("+",
                           bin("*",
                               bin("+",
                                   bin("+", bin("+", bin("*", var("b"), lit(s.streams())), bin("*", var("r"), lit(P))),
                                       var("p0")),
                                   bin("%", var("c"), lit(PU))),
                               lit(S)),
                           bin("+", var("s0"), bin("/", var("c"), lit(PU)))))})));
    live.push_back(decl("const float", "half", bin("*", var("dl.y"), flit(1.0 / M_PI))));
    live.push_back(declGroup("float", {{"sn", nullptr}, {"cs", nullptr}, {"sn1", nullptr}, {"cs1", nullptr}}));
    live.push_back(assign(index(var("pfb_dl"), var("t")), call("make_float2", {var("dl.x"), var("half")})));
    live.push_back(exprStmt(call("sincospif", {var("half"), var("&sn"), var("&cs")})));
    live.push_back(exprStmt(call("sincospif", {bin("-", var("half"), var("dl.x")), var("&sn1"), var("&cs1")})));
    live.push_back(
        assign(index(var("pfb_rot"), var("t")), call("make_float4", {var("cs"), var("sn"), var("cs1"), var("sn1")})));
    if (!tables) {
      chunk.push_back(ifStmt(bin("<", var("t"), lit(QC)), block({ifSpectrum(var("t"), block(live))})));
    } else {
      // Entry e of combination c's tables: H (e < NH), HB (e < 2 NH), L; one sincospif each.
      std::vector<NodePtr> tab;
      tab.push_back(decl("const int", "e", bin("%", var("idx"), lit(PE))));
      for (std::size_t i = 1; i < 3; ++i) tab.push_back(live[i]);  // dl, half
      tab.push_back(ifUnbraced(bin("==", var("e"), lit(0)), assign(index(var("pfb_dl"), bin("/", var("idx"), lit(PE))),
                                                                   call("make_float2", {var("dl.x"), var("half")}))));
      tab.push_back(decl("float", "a"));
      NodePtr baseH = call("pfb_channel", {var("pair"), bin("*", lit(LB), var("e")), lit(0)});
      NodePtr baseHB = call("pfb_channel", {var("pair"), bin("*", lit(LB), bin("-", var("e"), lit(NH))), lit(0)});
      const NodePtr invN = flit(1.0 / static_cast<double>(N));
      tab.push_back(ifChain(
          {{bin("<", var("e"), lit(NH)),
            assign(var("a"), bin("-", var("half"), bin("*", var("dl.x"), bin("*", cast("float", baseH), invN))))},
           {bin("<", var("e"), lit(2 * NH)),
            assign(var("a"), bin("-", var("half"),
                                 bin("*", var("dl.x"), bin("*", cast("float", bin("-", lit(N), baseHB)), invN))))}},
          assign(var("a"), bin("*", unary("-", var("dl.x")),
                               bin("*", cast("float", bin("*", bin("-", var("e"), lit(2 * NH)), lit(N1))), invN)))));
      tab.push_back(declGroup("float", {{"sn", nullptr}, {"cs", nullptr}}));
      tab.push_back(exprStmt(call("sincospif", {var("a"), var("&sn"), var("&cs")})));
      tab.push_back(assign(index(var("pfb_ph"), var("idx")), call("make_float2", {var("cs"), var("sn")})));
      std::vector<NodePtr> entry;
      entry.push_back(decl("const int", "c", bin("+", var("cb"), bin("/", var("idx"), lit(PE)))));
      entry.push_back(ifSpectrum(bin("/", var("idx"), lit(PE)), block(tab)));
      chunk.push_back(comment("the chunk's phase tables: H, HB and L of each combination"));
      const long long entries = static_cast<long long>(QC) * PE;
      if (entries <= TB)
        chunk.push_back(
            ifStmt(bin("<", var("t"), lit(entries)), block({decl("const int", "idx", var("t")), block(entry)})));
      else
        chunk.push_back(forLoop(decl("int", "idx", var("t")), bin("<", var("idx"), lit(entries)),
                                assign(var("idx"), lit(TB), "+="), block(entry)));
    }
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
  chunk.push_back(comment("split, gain and delay, store: each split item yields two channels"));
  for (long long m = 0; m < splitTrips; ++m) {
    const int j = static_cast<int>(m % IPT);
    const long long zc = caseA ? m * 2 * TB : (m / IPT) * 2 * N2;  // the constant part of the combination's rows
    NodePtr combo = splitCombo(m);
    std::vector<NodePtr> live;
    live.push_back(decl("const float2", "za", index(var(fin), pfb::slotOfBase(suffix("sa", j, IPT), zc))));
    live.push_back(decl("const float2", "zb", index(var(fin), pfb::slotOfBase(suffix("sb", j, IPT), zc))));
    live.push_back(declGroup("float2", {{"xa", nullptr}, {"xb", nullptr}}));
    {
      const std::string w = suffix("w", j, IPT);
      std::vector<NodePtr> gen = pfb::splitHalves();
      for (auto& n : pfb::splitCombine(w, "xa", "xb")) gen.push_back(n);
      if (j == 0) {
        live.push_back(ifStmt(var("edge"), block(pfb::splitEdge("xa", "xb")), block(gen)));
      } else {
        live.push_back(block(gen));
      }
    }
    if (tables) {
      {
        // rot(A) = H[ih] L[il], rot(N - A) = HB[ih] conj(L[il]); pair 0's item 0: rot(N / 2) = e^{i (phi - pi d / 2)}.
        NodePtr at = bin("*", combo, lit(PE));
        live.push_back(decl("const float2", "h", index(var("pfb_ph"), bin("+", at, var(suffix("ih", j, IPT))))));
        live.push_back(decl("const float2", "hb",
                            index(var("pfb_ph"), bin("+", at, bin("+", var(suffix("ih", j, IPT)), lit(NH))))));
        live.push_back(decl("const float2", "l", index(var("pfb_ph"), bin("+", at, var(suffix("il", j, IPT))))));
        live.push_back(decl("const float2", "rotA", call("make_float2", {cmulX("h", "l"), cmulY("h", "l")})));
        live.push_back(decl("float2", "rotB",
                            call("make_float2",
                                 {bin("+", bin("*", var("hb.x"), var("l.x")), bin("*", var("hb.y"), var("l.y"))),
                                  bin("-", bin("*", var("hb.y"), var("l.x")), bin("*", var("hb.x"), var("l.y")))})));
        if (j == 0) {
          live.push_back(
              ifStmt(var("edge"),
                     block({decl("const float2", "dl", index(var("pfb_dl"), combo)),
                            declGroup("float", {{"sn", nullptr}, {"cs", nullptr}}),
                            exprStmt(call("sincospif", {bin("-", var("dl.y"), bin("*", flit(0.5), var("dl.x"))),
                                                        var("&sn"), var("&cs")})),
                            assign(var("rotB"), call("make_float2", {var("cs"), var("sn")}))})));
        }
      }
    }
    if (s.delay && !tables) {
      // e^{i (phi - pi d k / N)}: u = e^{-i pi d A / N}, rot(A) = e^{i phi} u, rot(N - A) = e^{i (phi - pi d)} conj(u).
      live.push_back(decl("const float2", "dl", index(var("pfb_dl"), combo)));
      live.push_back(declGroup("float", {{"sn", nullptr}, {"cs", nullptr}}));
      live.push_back(exprStmt(
          call("sincospif", {bin("*", unary("-", var("dl.x")), var(suffix("ka", j, IPT))), var("&sn"), var("&cs")})));
      live.push_back(decl("const float4", "c", index(var("pfb_rot"), combo)));
      for (auto& n : pfb::delayRotations("c.x", "c.y", "c.z", "c.w")) live.push_back(n);
      if (j == 0)
        live.push_back(
            ifUnbraced(var("edge"),
                       block({exprStmt(call("sincospif", {bin("-", var("dl.y"), bin("*", flit(0.5), var("dl.x"))),
                                                          var("&sn"), var("&cs")})),
                              assign(var("rotB"), call("make_float2", {var("cs"), var("sn")}))})));
    }
    // Pol of this trip's combination: selects the gains and the saturation count.
    NodePtr polBit;
    int polConst = -1;
    if (polKind == PolKind::Const) polConst = static_cast<int>((caseA ? m * (TB / N2) : m / IPT) % 2);
    if (polKind == PolKind::Runtime) polBit = bin("&", bin("+", var("cb"), combo), lit(1));
    auto post = [&](const std::string& x, int which) {
      std::vector<NodePtr> st;
      std::string v = x;
      const std::string k = suffix(which ? "kB" : "kA", j, IPT);
      if (s.delay) {
        const std::string rot = which ? "rotB" : "rotA";
        st.push_back(decl("const float2", "vr", call("make_float2", {cmulX(v, rot), cmulY(v, rot)})));
        v = "vr";
      }
      if (s.perChannelGain) {
        const std::string gn = suffix(which ? "gB" : "gA", j, IPT);
        NodePtr gsel = polKind == PolKind::Const     ? var(gn + fmt::format("_{}", polConst))
                       : polKind == PolKind::Runtime ? ternary(polBit, var(gn + "_1"), var(gn + "_0"))
                                                     : var(gn);
        st.push_back(decl("const float2", "gn", gsel));
        st.push_back(decl("const float2", "vg", call("make_float2", {cmulX(v, "gn"), cmulY(v, "gn")})));
        v = "vg";
      } else if (s.gain != 1.0) {
        st.push_back(
            decl("const float2", "vg",
                 call("make_float2", {bin("*", var(v + ".x"), flit(s.gain)), bin("*", var(v + ".y"), flit(s.gain))})));
        v = "vg";
      }
      if (!ci8) {
        st.push_back(assign(index(var("dst"), bin("+", bin("*", bin("+", var("cb"), combo), lit(N)), var(k))), var(v)));
        return block(st);
      }
      st.push_back(
          comment("saturate to +-127, round half to even (1.5 x 2^23 added: the low byte is the ci8 part); "
                  "counted when a part rounds beyond"));
      auto q = [&](const std::string& part) {
        return call("__float_as_uint",
                    {call("__fadd_rn",
                          {call("fminf", {call("fmaxf", {var(v + part), flit(-127)}), flit(127)}), flit(12582912.0)})});
      };
      st.push_back(decl("const unsigned", "clipped",
                        cast("unsigned",
                             bin(">=", call("fmaxf", {call("fabsf", {var(v + ".x")}), call("fabsf", {var(v + ".y")})}),
                                 flit(127.5)))));
      NodePtr counter = polKind == PolKind::Thread  ? var("sat")
                        : polKind == PolKind::Const ? var(polConst ? "sat1" : "sat0")
                                                    : var("sat0");
      if (polKind == PolKind::Runtime)
        st.push_back(
            ifUnbraced(polBit, assign(var("sat1"), var("clipped"), "+="), assign(var("sat0"), var("clipped"), "+=")));
      else st.push_back(assign(counter, var("clipped"), "+="));
      const std::string stI = suffix(which ? "stB" : "stA", j, IPT), mI = suffix(which ? "mB" : "mA", j, IPT);
      st.push_back(assign(index(cast("unsigned short*", var("staging")),
                                bin("+", var(stI), bin("^", bin("+", var("cb"), combo), var(mI)))),
                          cast("unsigned short", call("__byte_perm", {q(".x"), q(".y"), lit(0x40)}))));
      return block(st);
    };
    live.push_back(post("xa", 0));
    live.push_back(post("xb", 1));
    NodePtr item = ifSpectrum(combo, block(live));
    if (chunkItems < TB) item = ifStmt(bin("<", var("t"), lit(chunkItems)), block({item}));
    chunk.push_back(item);
  }
  chunk.push_back(exprStmt(call("__syncthreads", {})));
  body.push_back(
      forLoop(decl("int", "cb", lit(0)), bin("<", var("cb"), lit(CU)), assign(var("cb"), lit(QC), "+="), block(chunk)));
  if (!ci8) closePairLoop();

  if (ci8) {
    // 32-byte runs: katgpucbf, a channel's 16 / P spectra x P pols; tcc, one pol's 16 spectra of a channel. Run k
    // starts at base + k x stride (ci8 elements) of the batch entry.
    const long long R = s.receivers;
    NodePtr base = s.layout == PfbLayout::Katgpucbf
                       ? bin("*", bin("+", bin("*", cast("long long", var("r")), lit(N * S)), var("s0")), lit(P))
                       : bin("+",
                             bin("*",
                                 bin("+", bin("*", cast("long long", bin("/", var("s0"), lit(16))), lit(R)), var("r")),
                                 lit(P * 16)),
                             bin("*", var("p0"), lit(16)));
    const long long stride = s.layout == PfbLayout::Katgpucbf ? S * P : S * R * P;
    body.push_back(comment("store the staged runs: 8 threads per 32-byte run, word t % 8 of it"));
    body.push_back(
        decl("unsigned* const", "dst",
             bin("+", cast("unsigned*", var("out")),
                 bin("+", bin("/", bin("+", bin("*", var("b"), lit(s.outputElementsPerBatch())), base), lit(2)),
                     bin("%", var("t"), lit(8))))));
    body.push_back(decl("const int", "ws", bin("^", var("t"), bin("&", bin(">>", var("t"), lit(5)), lit(7)))));
    const long long words = 2LL * N2 * 8, trips = std::max<long long>(1, words / TB);
    std::vector<NodePtr> st;
    st.push_back(decl("const int", "slot", bin("+", bin("/", var("t"), lit(8)), bin("*", var("m"), lit(TB / 8)))));
    st.push_back(
        decl(std::string("const ") + outOffType, "k",
             call("pfb_channel", {var("pair"), bin("%", var("slot"), lit(N2)), bin("/", var("slot"), lit(N2))})));
    st.push_back(
        assign(index(var("dst"), bin("*", var("k"), lit(stride / 2))),
               index(cast("const unsigned*", var("staging")), bin("+", var("ws"), bin("*", var("m"), lit(TB))))));
    NodePtr loop = forLoop(decl("int", "m", lit(0)), bin("<", var("m"), lit(trips)), exprStmt(unary("++", var("m"))),
                           block(st));
    if (words < TB) loop = ifStmt(bin("<", var("t"), lit(words)), block({loop}));
    body.push_back(loop);
    closePairLoop();
    if (polKind == PolKind::Thread && !g.postPairLoop) {
      body.push_back(decl("unsigned", "sat0", ternary(var("polT"), ulit(0), var("sat"))));
      body.push_back(decl("unsigned", "sat1", ternary(var("polT"), var("sat"), ulit(0))));
    }
    pfb::appendSaturationTail(s, g, body);
  }

  // PfbGeometry::postBlocksPerSm blocks per SM where shared memory (sm_90: 227 KiB) holds them, fewer where not: three
  // leave 80 registers, room for the thread constants beside the FFT's (four, 64, spill on sm_80).
  const int minBlocks = static_cast<int>(
      std::clamp<long long>(232448 / (g.sharedB + 4096), 1, std::max(1, g.postBlocksPerSm)));
  NodePtr fn = function(fmt::format("extern \"C\" __global__ void __launch_bounds__({}, {})", TB, minBlocks), "", name,
                        pfb::postParams(s), block(body));
  return pfb::postHeader(s, g, name) + (s.halfScratch ? "#include <cuda_fp16.h>\n" : "") + pfb::channelHelper(g, N) +
         pfb::slotHelper(false) + print(foldConstants(fn));
}

PfbKernels emitPfb(const PfbSpec& s, const PfbVariant& v) {
  PfbKernels k;
  const bool perItem = v.perItemPost || v.previous || v.slotPerElement;
  // The row-pair post kernel's own variants (per item, four blocks per SM, no phase tables) take it for cf32 too.
  const bool rowPair = v.rowPairPost || perItem || v.postBlocksPerSm != PfbVariant{}.postBlocksPerSm || !v.phaseTables;
  k.geometry = pfbGeometry(s, v.previous, rowPair ? 0 : v.spectrumPostChannels, v.firSharedWeights, v.firMinChunk);
  k.geometry.slotPerElement = v.slotPerElement;
  k.geometry.perItemPost = perItem;
  k.geometry.phaseTables = v.phaseTables;
  k.geometry.firConstSlots = v.firConstSlots;
  if (v.postBlocksPerSm > 0) k.geometry.postBlocksPerSm = v.postBlocksPerSm;
  if (v.postPairLoop >= 0 && !k.geometry.spectrumPost && !v.previous) k.geometry.postPairLoop = v.postPairLoop == 1;
  if (perItem) k.geometry.postPairLoop = false;  // (the per-item kernel owns one pair)
  if (k.geometry.spectrumPost && v.spectrumPostThreads > 0) {
    if (k.geometry.spectrumPostInPlace &&
        !spectrumPostInPlaceFits(s.channels / k.geometry.spectrumPostParts, k.geometry.rowFft, v.spectrumPostThreads))
      throw std::logic_error(
          fmt::format("emitPfb: the in-place spectrum post kernel cannot take {} threads", v.spectrumPostThreads));
    k.geometry.threadsB = v.spectrumPostThreads;
  }
  // Factored where measured (blocks of up to 256 threads); at 1024 threads (64 registers) its held factor spills on
  // sm_80 with gains and delays.
  // (and where a block's threads hold whole rows of items: the per-thread factor needs threads % n2 == 0).
  k.geometry.factoredSplitTwiddle = v.factoredSplitTwiddle && k.geometry.spectrumPost && k.geometry.threadsB <= 256 &&
                                    k.geometry.threadsB % k.geometry.n2 == 0;
  if (s.halfScratch && (k.geometry.perItemPost || v.previous))
    throw std::logic_error("emitPfb: an f16 scratch only with the current kernels (bench's earlier kernels read f32)");
  k.firName = s.name + "_fir";
  k.postName = s.name + "_post";
  k.firSource = pfbFirSource(s, k.geometry, k.firName);
  k.postSource = k.geometry.perItemPost    ? pfbPostItemSource(s, k.geometry, k.postName)
                 : k.geometry.spectrumPost ? pfbPostSpectrumSource(s, k.geometry, k.postName)
                                           : pfbPostSource(s, k.geometry, k.postName);
  return k;
}

}  // namespace warpforge
