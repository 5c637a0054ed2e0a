#include "generator/beamformer/BeamformerWgmma.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "generator/complexmma/ComplexMma.h"
#include "generator/layout/FieldPlace.h"
#include "generator/layout/FragmentTable.h"
#include "generator/layout/Wgmma.h"
#include "generator/verify/MmaCheck.h"

namespace warpforge {

using namespace ast;

namespace {

int bytesPerReceiver(BfType t) { return t == BfType::CF16 ? 4 : t == BfType::CI8 ? 2 : 1; }

// wgmma N for `beams`: f16 takes any multiple of 8 up to 256; s8 8, 16, 24 and multiples of 16 up to 256.
int wgmmaN(const BeamformerSpec& s) {
  // Default at most 128: 128-beam tiles at two blocks per SM ran faster than 256-beam tiles at one (H100, LOFAR and
  // FRB specs): the second block's wgmmas run while the first waits at its stage barrier.
  int n = s.tuning.blockBeams ? s.tuning.blockBeams : static_cast<int>(std::min<long long>(128, (s.beams + 7) / 8 * 8));
  if (s.integer() && n > 24) n = (n + 15) / 16 * 16;
  return std::min(n, 256);
}

// The weights stage: 128-byte rows of receivers, 8-row groups of 1024 B (one swizzle atom each).
constexpr WgmmaSwizzle kWeightsSwizzle = WgmmaSwizzle::B128;
constexpr unsigned kWeightsSbo = 1024;

// The bits of an element's place in a staged row of receivers (the samples and the weights as given): element e is
// component e % 2 (ReIm_in) of receiver e / 2 (rcv0, rcv1, ...).
std::string rowElementBit(int x) { return x == 0 ? "ReIm_in" : fmt::format("rcv{}", x - 1); }

// The part of field `f` that the bits of `kind` carry, printed from their run: ((v >> shift) & mask) * 2^field scale,
// the shift, mask and factor left out where they are identities (`bits`: how many bits of `kind` v has).
NodePtr fieldTerm(const FieldPlace& f, PhysKind kind, const std::string& v, int bits, int scale) {
  const auto run = f.run(kind);
  if (!run) throw std::logic_error("the layout's field is not one run of " + v + " bits");
  NodePtr e = var(v);
  if (run->shift) e = bin(">>", e, decimal(run->shift));
  if (run->shift + run->count < bits) e = bin("&", e, decimal((1 << run->count) - 1));
  const long long factor = (1LL << run->field) * scale;
  return factor == 1 ? e : bin("*", e, decimal(factor));
}

std::vector<std::string> bitNames(const std::string& prefix, int count) { return cmma::bitNames(prefix, 0, count); }

int log2i(int v) {
  int x = 0;
  while ((1 << x) < v) ++x;
  return x;
}

}  // namespace

BfFillPlace bfFillPlace(WgmmaSwizzle s, unsigned sbo) {
  // Rows of one 8-row group lie rowStride apart; the swizzle XORs the 16-byte chunk index with the row's place in
  // its group (row 7 of the group: its chunk 0 lands at chunk xorMask).
  BfFillPlace p;
  p.rowStride = static_cast<int>(wgmmaStoreOffset(s, 8, 0, sbo)) / 8;
  p.xorMask = (static_cast<int>(wgmmaStoreOffset(s, 7, 0, sbo)) - 7 * p.rowStride) >> 4;
  return p;
}

BfWgmmaOperands bfWgmmaOperands(const BeamformerSpec& s) {
  // A thread's registers hold the words of PTX's A fragment per warp: its lane's threadID_in_group picks consecutive
  // words of a k-step's receivers and the register's high bit the step's second half, so that A's summed index runs
  // over the receivers in their staged order, as B's does (the weights rows as given, read through the descriptor).
  // Row ReIm_out 0 is conj(word), row 1 swap(word); the block's 8 warps hold 8 samples each.
  const char* text = s.integer() ? "b0 b1 <-> ReIm_in rcv0, t0 t1 t2 t3 t4 <-> rcv1 rcv2 time0 time1 time2, "
                                   "r0 r1 <-> ReIm_out rcv3, w0 w1 w2 <-> time3 time4 time5"
                                 : "b0 <-> ReIm_in, t0 t1 t2 t3 t4 <-> rcv0 rcv1 time0 time1 time2, "
                                   "r0 r1 <-> ReIm_out rcv2, w0 w1 w2 <-> time3 time4 time5";
  return {cmma::layoutText(text), bfFillPlace(kWeightsSwizzle, kWeightsSbo)};
}

std::optional<std::string> bfWgmmaBlocker(const BeamformerSpec& s) {
  if (s.tuning.mma == "mma_sync") return std::string("tuning.mma is \"mma_sync\"");
  if (s.w.type == BfType::CI4)
    return std::string("ci4 weights (the weights go to shared memory as given: 8-bit or f16 only)");
  if (s.in.planar || s.w.planar)
    return std::string("planar operands (the staging copies interleaved (re, im) rows as they are)");
  if (s.tuning.warpTimes || s.tuning.warpBeams || s.tuning.expand || s.tuning.wordLoads ||
      (s.tuning.blockTimes && s.tuning.blockTimes != 64))
    return std::string("mma.sync tuning members (warp_times, warp_beams, expand, loads, block_times other than 64)");
  if (s.tuning.blockBeams && s.integer() && s.tuning.blockBeams > 24 && s.tuning.blockBeams % 16)
    return fmt::format("block_beams {}: s8 wgmma takes N = 8, 16, 24 or a multiple of 16", s.tuning.blockBeams);
  if (s.tuning.blockBeams > 256) return fmt::format("block_beams {} (wgmma N is at most 256)", s.tuning.blockBeams);
  for (int side = 0; side < 2; ++side) {
    const BfOperand& o = side == 0 ? s.in : s.w;
    const long long eb = bytesPerReceiver(o.type);
    if (o.receiver != 1)
      return fmt::format("{} receiver stride {} (16-byte copies need contiguous receivers)",
                         side ? "weights" : "samples", o.receiver);
    // Strides of axes with one entry are never applied (channels / pols of 1).
    for (long long st :
         {o.batch, s.channels > 1 ? o.channel : 0LL, s.polarizations > 1 ? o.polarization : 0LL, o.outer})
      if (st * eb % 16)
        return fmt::format("a {} stride of {} B (16-byte copies need rows on 16-byte boundaries)",
                           side ? "weights" : "samples", st * eb);
  }
  if (s.tuning.stages && s.tuning.stages < 3)
    return fmt::format("stages {} (the wgmma ring needs at least 3)", s.tuning.stages);
  const BfWgmma w = bfWgmma(s);
  // A wgmma holds its n / 2 accumulators, 4 A registers and the descriptor at once: min_blocks must leave room for them
  // (ptxas stops with "insufficient registers" otherwise; ~40 more for addresses and the loop).
  if (s.tuning.minBlocks) {
    const int regs = std::min(255, 65536 / (256 * s.tuning.minBlocks));
    if (w.n / 2 + 40 > regs)
      return fmt::format("min_blocks {} leaves {} registers per thread; a {}-beam wgmma tile needs about {}",
                         s.tuning.minBlocks, regs, w.n, w.n / 2 + 40);
  }
  if (w.sharedBytes > kBfWgmmaMaxShared)
    return fmt::format("{} B of shared memory at {} stages (at most {} B)", w.sharedBytes, w.stages, kBfWgmmaMaxShared);
  return std::nullopt;
}

bool bfUsesWgmma(const BeamformerSpec& s, const std::string& arch) {
  if (arch != "sm_90" && arch != "sm_90a") return false;
  return !bfWgmmaBlocker(s);
}

BfWgmma bfWgmma(const BeamformerSpec& s) {
  BfWgmma w;
  w.n = wgmmaN(s);
  w.weightBytes = bytesPerReceiver(s.w.type);
  w.sampleBytes = bytesPerReceiver(s.in.type);
  w.receiversPerStage = 128 / w.weightBytes;
  w.receiversPerStep = s.integer() ? 16 : 8;
  w.weightRegion = w.n * 128;
  w.sampleRowBytes = w.receiversPerStage * w.sampleBytes;
  w.sampleStride = w.sampleRowBytes + 16;
  w.stageBytes = (w.weightRegion + 64 * w.sampleStride + 1023) / 1024 * 1024;
  w.powerBytes = s.power ? 64 * (w.n + 1) * 4 : 0;
  const int fixed = w.powerBytes + 1024;
  if (s.tuning.stages) {
    w.stages = s.tuning.stages;
  } else {
    // Four buffers (two in flight ahead of the one computed on) where they fit; three where four do not; small tiles
    // keep room for two blocks per SM.
    const int budget = w.n <= 128 ? kBfWgmmaMaxShared / 2 : kBfWgmmaMaxShared;
    w.stages = std::clamp((budget - fixed) / w.stageBytes, 3, 4);
  }
  w.sharedBytes = fixed + w.stages * w.stageBytes;
  return w;
}

BfTiling bfWgmmaTiling(const BeamformerSpec& s) {
  const BfWgmma w = bfWgmma(s);
  BfTiling t;
  t.wgmma = true;
  t.times = 64;
  t.beams = w.n;
  t.warpTimes = 8;
  t.warpBeams = w.n;
  t.stages = w.stages;
  t.expandStaged = false;
  bfFillGrid(s, t);
  return t;
}

std::string bfWgmmaHelpers(const BeamformerSpec& s, int n) {
  // The wgmma instruction, its fences and the descriptor come from generator/layout/Wgmma (shared with the correlator).
  return std::string(
             "// cp.async of one 16-byte chunk, `bytes` (0..16) of it read and the rest zero-filled (tails of K, M and "
             "N).\n"
             "static __device__ __forceinline__ void bf_cp_async16(unsigned dst, const void* src, int bytes) {\n"
             "  asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16, %2;\" :: \"r\"(dst), \"l\"(src), \"r\"(bytes) "
             ": \"memory\");\n"
             "}\n"
             "static __device__ __forceinline__ void bf_cp_commit() { asm volatile(\"cp.async.commit_group;\" ::: "
             "\"memory\"); }\n"
             "template <int N> static __device__ __forceinline__ void bf_cp_wait() { asm "
             "volatile(\"cp.async.wait_group %0;\" :: \"n\"(N) : \"memory\"); }\n"
             "static __device__ __forceinline__ wf_u32 bf_lds32(unsigned a) { wf_u32 v; asm volatile(\"ld.shared.u32 "
             "%0, [%1];\" : \"=r\"(v) : \"r\"(a) : \"memory\"); return v; }\n"
             "static __device__ __forceinline__ wf_u32 bf_lds16(unsigned a) { unsigned short v; asm "
             "volatile(\"ld.shared.u16 %0, [%1];\" : \"=h\"(v) : \"r\"(a) : \"memory\"); return v; }\n") +
         wgmmaSyncHelpers("bf_") +
         // K-major rows of 128 bytes with the 128-byte swizzle, 8-row groups 1024 B apart; the atoms are 1024-byte
         // aligned (base offset 0).
         wgmmaDescriptorHelper("bf_desc_sw128", kWeightsSwizzle, 16, kWeightsSbo) +
         wgmmaHelper(WgmmaAtom{n, !s.integer(), true}, "bf_wgmma",
                     fmt::format("// D (m64 x {}) += A (this warpgroup's 64 rows, registers) B (descriptor).", n)) +
         "\n";
}

std::vector<NodePtr> emitWgmmaMainloop(const BeamformerSpec& s, const BfWgmma& w) {
  const int S = w.stages, N = w.n;
  const long long K = s.receivers;
  const long long kt = (K + w.receiversPerStage - 1) / w.receiversPerStage;
  const int wChunks = N * 8, sChunksPerRow = w.sampleRowBytes / 16, sChunks = 64 * sChunksPerRow;
  const int rpcW = 16 / w.weightBytes, rpcS = 16 / w.sampleBytes;  // receivers per 16-byte chunk
  const BfWgmmaOperands ops = bfWgmmaOperands(s);
  std::vector<NodePtr> out;
  out.push_back(
      comment(fmt::format("K loop: {} stages of {} receivers through a ring of {} buffers ({} B each: {} beams x 128 B "
                          "swizzled, then 64 sample rows of {} B)",
                          kt, w.receiversPerStage, S, w.stageBytes, N, w.sampleStride)));
  auto num = [](long long v) { return decimal(v); };
  auto call0 = [](const std::string& fn) { return exprStmt(call(fn, {})); };
  out.push_back(
      decl("const unsigned char* const", "w_src", bin("+", var("w_a"), bin("*", var("wbase"), num(w.weightBytes)))));
  out.push_back(
      decl("const unsigned char* const", "s_src", bin("+", var("s_a"), bin("*", var("sbase"), num(w.sampleBytes)))));
  // The fill of stage f into its buffer: weights rows (8 lanes per 128-byte row: coalesced reads, the swizzle spreads
  // the 16-byte stores over all banks), then the sample rows.
  auto copyLoop = [&](int chunks, std::vector<NodePtr> perChunk) {
    std::vector<NodePtr> b;
    b.push_back(decl("const int", "id", bin("+", var("tid"), bin("*", var("q"), num(256)))));
    if (chunks % 256) b.push_back(ifStmt(bin("<", var("id"), lit(chunks)), block(perChunk)));
    else
      for (auto& n : perChunk) b.push_back(n);
    return std::vector<NodePtr>{raw("#pragma unroll"),
                                forLoop(decl("int", "q", lit(0)), bin("<", var("q"), lit((chunks + 255) / 256)),
                                        assign(var("q"), lit(1), "+="), block(b))};
  };
  // bytes = (in range && k < K) ? min(16, (K - k) * elementBytes) : 0: the 16-byte chunk's valid bytes.
  auto validBytes = [&](NodePtr inRange, int elementBytes) {
    return decl("const int", "bytes",
                ternary(paren(bin("&&", inRange, bin("<", var("k"), num(K)))),
                        call("min", {num(16), bin("*", bin("-", num(K), var("k")), num(elementBytes))}), num(0)));
  };
  std::vector<NodePtr> fill;
  fill.push_back(
      withNote(decl("const int", "kf", bin("*", var("f"), num(w.receiversPerStage))), "first receiver of the stage"));
  fill.push_back(
      decl("const unsigned", "slot",
           bin("+", var("bf_ring"), bin("*", paren(bin("%", var("f"), num(S))), decimal(w.stageBytes, IntSuffix::U)))));
  const NodePtr beamRow = bin("+", var("m0"), var("n"));
  for (auto& n : copyLoop(
           wChunks,
           {withNote(declGroup("const int", {{"n", bin(">>", var("id"), num(3))}, {"ch", bin("&", var("id"), num(7))}}),
                     "beam row, 16-byte chunk"),
            decl("const int", "k", bin("+", var("kf"), bin("*", var("ch"), num(rpcW)))),
            validBytes(bin("<", beamRow, num(s.beams)), w.weightBytes),
            exprStmt(
                call("bf_cp_async16",
                     {bin("+", bin("+", var("slot"), bin("*", var("n"), num(ops.fill.rowStride))),
                          bin("<<", bin("^", var("ch"), paren(bin("&", var("n"), num(ops.fill.xorMask)))), num(4))),
                      ternary(var("bytes"),
                              bin("+", var("w_src"),
                                  bin("*", bin("+", bin("*", cast("long long", beamRow), num(s.w.outer)), var("k")),
                                      num(w.weightBytes))),
                              var("w_src")),
                      var("bytes")}))}))
    fill.push_back(n);
  for (auto& n :
       copyLoop(sChunks, {withNote(declGroup("const int", {{"row", bin("/", var("id"), num(sChunksPerRow))},
                                                           {"ch", bin("%", var("id"), num(sChunksPerRow))}}),
                                   "sample row, 16-byte chunk"),
                          decl("const long long", "t", bin("+", var("t0"), var("row"))),
                          decl("const int", "k", bin("+", var("kf"), bin("*", var("ch"), num(rpcS)))),
                          validBytes(bin("<", var("t"), num(s.samples)), w.sampleBytes),
                          exprStmt(call("bf_cp_async16",
                                        {bin("+",
                                             bin("+", bin("+", var("slot"), num(w.weightRegion)),
                                                 bin("*", var("row"), num(w.sampleStride))),
                                             bin("*", var("ch"), num(16))),
                                         ternary(var("bytes"),
                                                 bin("+", var("s_src"),
                                                     bin("*", bin("+", bin("*", var("t"), num(s.in.outer)), var("k")),
                                                         num(w.sampleBytes))),
                                                 var("s_src")),
                                         var("bytes")}))}))
    fill.push_back(n);
  auto fillIf = [&](const NodePtr& stage) {
    return block({decl("const int", "f", stage), ifStmt(bin("<", var("f"), lit(kt)), block(fill)),
                  withNote(call0("bf_cp_commit"), "one group per stage, empty past the end")});
  };

  // The buffers of the previous pol / tile may still be read by slower warps.
  out.push_back(call0("__syncthreads"));
  out.push_back(raw("#pragma unroll 1"));
  out.push_back(forLoop(decl("int", "pf", lit(0)), bin("<", var("pf"), lit(S - 1)), assign(var("pf"), lit(1), "+="),
                        fillIf(var("pf"))));
  // This thread's A words, read from the A layout: the sample row (time bits on lanes and warps) and the receivers of
  // its lane (the receiver bits on lanes, sampleBytes each; the weights rows hold the same receivers at the same k).
  const FieldPlace time = fieldPlace(ops.a, bitNames("time", 6)),
                   rcv = fieldPlace(ops.a, bitNames("rcv", log2i(w.receiversPerStep)));
  const int stepBytes = w.receiversPerStep * w.sampleBytes;
  out.push_back(decl("const unsigned", "a_off",
                     bin("+",
                         bin("+", num(w.weightRegion),
                             bin("*",
                                 bin("+", fieldTerm(time, PhysKind::W, "warp", ops.a.count(PhysKind::W), 1),
                                     fieldTerm(time, PhysKind::T, "lane", 5, 1)),
                                 num(w.sampleStride))),
                         fieldTerm(rcv, PhysKind::T, "lane", 5, w.sampleBytes))));

  std::vector<NodePtr> st;
  st.push_back(withNote(call0(fmt::format("bf_cp_wait<{}>", S - 2)),
                        fmt::format("groups of stages kt + 1 .. kt + {} may still be in flight", S - 2)));
  st.push_back(call0("bf_fence_async_smem"));
  st.push_back(
      withNote(call0("__syncthreads"), "stage kt landed for every thread; every warpgroup is done with stage kt - 1"));
  st.push_back(fillIf(bin("+", var("kt"), lit(S - 1))));  // into the buffer of stage kt - 1
  st.push_back(decl("const unsigned", "slot",
                    bin("+", var("bf_ring"),
                        bin("*", paren(bin("%", var("kt"), num(S))), decimal(w.stageBytes, IntSuffix::U)))));
  // Load h of a k-step: the receivers its index puts on A's register bits (the registers' receiver part).
  const auto rcvRegs = rcv.of(PhysKind::R);
  const int loads = 1 << rcvRegs.size(), regs = ops.a.numRegisters();
  auto loadOf = [&](int reg) {
    int h = 0;
    for (std::size_t i = 0; i < rcvRegs.size(); ++i) h |= ((reg >> rcvRegs[i].first) & 1) << i;
    return h;
  };
  const int steps = w.receiversPerStage / w.receiversPerStep;
  for (int ks = 0; ks < steps; ++ks) {
    for (int h = 0; h < loads; ++h) {
      int receiver = 0;
      for (std::size_t i = 0; i < rcvRegs.size(); ++i) receiver |= ((h >> i) & 1) << rcvRegs[i].second;
      const int off = ks * stepBytes + receiver * w.sampleBytes;
      NodePtr load = call(fmt::format("bf_lds{}", s.in.type == BfType::CI4 ? 16 : 32),
                          {bin("+", bin("+", var("slot"), var("a_off")), num(off))});
      if (s.in.type == BfType::CI4) load = call(s.in.ci4RealHigh ? "bf_widen2_hi" : "bf_widen2_lo", {load});
      if (s.in.type == BfType::CI8) load = call("bf_clamp8", {load});
      st.push_back(decl("const wf_u32", fmt::format("x{}_{}", ks, h), load));
    }
  }
  // The A operands of this stage (the registers of a k-step; row ReIm_out 0 conj, 1 swap). A wgmma reads its A
  // registers until it completes, so the stage's group is retired (wait 0) before the next stage loads new ones.
  // Leaving one group in flight (wait 1) gave wrong sums: ptxas reloaded the same physical registers for the next
  // stage's A while the previous wgmmas still read them, with or without asm operand fences to keep the old values
  // live.
  const FieldPlace reIm = fieldPlace(ops.a, {"ReIm_out"});
  for (int ks = 0; ks < steps; ++ks)
    for (int r = 0; r < regs; ++r)
      st.push_back(
          decl("const wf_u32", fmt::format("a{}_{}", ks, r),
               call(reIm.part(PhysKind::R, r) ? "bf_swap" : "bf_conj", {var(fmt::format("x{}_{}", ks, loadOf(r)))})));
  st.push_back(call0("bf_wgmma_fence"));
  for (int ks = 0; ks < steps; ++ks) {
    std::vector<NodePtr> args{var("d")};
    for (int r = 0; r < regs; ++r) args.push_back(var(fmt::format("a{}_{}", ks, r)));
    args.push_back(call("bf_desc_sw128", {bin("+", var("slot"), num(ks * 32))}));
    st.push_back(exprStmt(call("bf_wgmma", args)));
  }
  st.push_back(call0("bf_wgmma_commit"));
  st.push_back(withNote(call0("bf_wgmma_wait<0>"),
                        "this stage's wgmmas done: its A registers and, after the next barrier, its buffer are free"));
  out.push_back(raw("#pragma unroll 1"));
  out.push_back(
      forLoop(decl("int", "kt", lit(0)), bin("<", var("kt"), lit(kt)), assign(var("kt"), lit(1), "+="), block(st)));
  return out;
}

void bfWgmmaCheck(const BeamformerSpec& s, std::vector<BfIssue>& issues, std::vector<std::string>& proved,
                  const BfWgmmaOperands* operands) {
  const BfWgmma w = bfWgmma(s);
  const BfWgmmaOperands ops = operands ? *operands : bfWgmmaOperands(s);
  const bool f16 = !s.integer();
  const BfMma mma = bfMma(s.in.type);  // the instruction per warp and the epilogue's accumulator layout
  const MmaShape& atom = mmaAccumulatorShape(*mma.shape);
  const int elemBytes = f16 ? 2 : 1, steps = w.receiversPerStage / w.receiversPerStep;
  auto issue = [&](const std::string& m) { issues.push_back({"/tuning/mma", "wgmma path: " + m}); };
  const std::size_t before = issues.size();
  // The swizzle is relative to 1024-byte atoms: every buffer of the ring must start on one (the kernel rounds the
  // ring's base up to 1024 and adds multiples of stageBytes), and the weights region is whole 8-row groups.
  if (w.stageBytes % 1024 || w.weightRegion % 1024 || w.sampleStride % 16)
    issue(
        fmt::format("stage {} B / weights region {} B not whole 1024-byte atoms, or sample rows of {} B not 16-byte "
                    "aligned",
                    w.stageBytes, w.weightRegion, w.sampleStride));
  if (w.powerBytes + 1023 + w.stages * w.stageBytes > w.sharedBytes)
    issue("the ring does not fit the shared memory the plan asks for");
  if (w.weightBytes != 2 * elemBytes || w.sampleBytes * (s.in.type == BfType::CI4 ? 2 : 1) != 2 * elemBytes ||
      steps * w.receiversPerStep != w.receiversPerStage)
    issue(
        "a staged receiver is not one (re, im) pair of the instruction's elements, or the k-steps do not tile a "
        "stage");
  // B: the fill puts byte `byte` of beam n's 128-byte row of receivers at ops.fill.at(n, byte) (the expression it
  // prints); the common descriptor check reads every (beam, k byte) of each k-step through the kernel's descriptor
  // (128-byte swizzle, 8-row groups kWeightsSbo apart) and must find that byte, so B's element (n, k) of k-step ks is
  // weight byte 32 ks + k elemBytes of beam n.
  std::vector<int> written(static_cast<std::size_t>(w.weightRegion), 0);
  for (int n = 0; n < w.n; ++n)
    for (int byte = 0; byte < 128; ++byte) {
      const int at = ops.fill.at(n, byte);
      if (at >= 0 && at < w.weightRegion) ++written[static_cast<std::size_t>(at)];
    }
  if (std::any_of(written.begin(), written.end(), [](int v) { return v != 1; }))
    issue("the weights fill does not write every byte of its region once");
  long long reads = 0;
  for (int ks = 0; ks < steps; ++ks) {
    const std::string why = checkWgmmaOperand(
        WgmmaDescriptor{static_cast<unsigned>(ks * 32), 16, kWeightsSbo, 0, kWeightsSwizzle}.encode(), w.n, 32,
        [&](int n, int kb) -> long long { return ops.fill.at(n, ks * 32 + kb); }, &reads);
    if (!why.empty()) {
      issue(fmt::format("B, k-step {}: {}", ks, why));
      return;
    }
  }
  // B as a register layout of the instruction's B atom: matrix bit j x is bit x of the element's place in the
  // weights row (ReIm_in, then the receivers of the k-step; the k-steps are the loop above them), k x is beam x.
  std::vector<Layout::Entry> bEntries;
  const Layout bAtom = atomLayout(atom.b);
  for (const auto& e : bAtom.entries())
    bEntries.push_back({e.phys, e.logical[0] == 'j' ? rowElementBit(std::stoi(e.logical.substr(1)))
                                                    : fmt::format("beam{}", e.logical.substr(1))});
  const Layout b(std::move(bEntries));
  // A per warp (the warp bits are rows outside the m16 fragment: checked below).
  std::vector<Layout::Entry> aEntries;
  for (const auto& e : ops.a.entries())
    if (e.phys.kind != PhysKind::W) aEntries.push_back(e);
  const Layout a(std::move(aEntries));
  const MmaCheck mc = checkMmaOperands(atom, {"A (sample registers)", &a}, {"B (weights through the descriptor)", &b},
                                       {"C (accumulators)", &mma.c}, {/*fixedRegisters=*/true});
  for (const auto& p : mc.problems) issue(p);
  std::set<std::string> summed, rows, wantSummed{"ReIm_in"}, wantRows{"ReIm_out", "time0", "time1", "time2"};
  if (const auto A = matrixBits(a, atom.a))
    for (const auto& [bit, lg] : A->pairs()) (bit[0] == 'j' ? summed : rows).insert(lg);
  for (int r = 0; (1 << r) < w.receiversPerStep; ++r) wantSummed.insert(fmt::format("rcv{}", r));
  if (summed != wantSummed) issue("A's summed bits are not exactly ReIm_in and the receiver bits of one k-step");
  if (rows != wantRows) issue("A's rows are not exactly ReIm_out and time0..2");
  // A register is a staged word as loaded (ci4 widened to the same order): its elements are the row's.
  for (int x = 0; x < a.count(PhysKind::B); ++x)
    if (a.logicalAt({PhysKind::B, x}) != rowElementBit(x))
      issue(
          fmt::format("A's element bit b{} is not bit {} of the staged word's elements ({})", x, x, rowElementBit(x)));
  // The warps: the wgmma atoms put warp w of a warpgroup on rows 16 w .. 16 w + 15 of A and of the accumulators
  // (wgmmaAccumulatorLayout) and the block's two warpgroups on samples 0..31 and 32..63; the epilogue stores warp w's
  // accumulators as samples 8 w .. 8 w + 7 (bfWgmmaTiling), so A's warp bits must be those samples' bits.
  const BfTiling tl = bfWgmmaTiling(s);
  const int laneTimes = log2i(tl.warpTimes), warpBits = log2i(tl.threads / 32);
  for (int x = 0; x < std::max(warpBits, ops.a.count(PhysKind::W)); ++x)
    if (ops.a.logicalAt({PhysKind::W, x}) != fmt::format("time{}", laneTimes + x))
      issue(fmt::format("A's warp bit w{} does not carry time{} (the samples the epilogue stores for that warp)", x,
                        laneTimes + x));
  if (issues.size() == before)
    proved.push_back(
        fmt::format("wgmma m64n{}{} (sm_90a): A registers (per warp PTX's A fragment), B (the weights through the "
                    "128-byte-swizzled descriptors, {} reads) and the accumulators agree through {} {}: summed = "
                    "ReIm_in + {} receiver bits, rows = ReIm_out + the warps' samples; the weights fill writes each "
                    "byte once",
                    w.n, f16 ? "k16" : "k32", reads, atom.shape, atom.abType, wantSummed.size() - 1));
}

}  // namespace warpforge
