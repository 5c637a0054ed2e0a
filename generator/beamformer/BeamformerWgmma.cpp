#include "generator/beamformer/BeamformerWgmma.h"

#include <algorithm>

#include <fmt/format.h>

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

}  // namespace

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
         wgmmaDescriptorHelper("bf_desc_sw128", WgmmaSwizzle::B128, 16, 1024) +
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
                     {bin("+", bin("+", var("slot"), bin("*", var("n"), num(128))),
                          bin("<<", bin("^", var("ch"), paren(bin("&", var("n"), num(7)))), num(4))),
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
  // This thread's A words: row 8 warp + lane / 4 (time; the warpgroup's rows 16 w + 8 ReIm_out + that), words
  // lane % 4 and lane % 4 + 4 of each k-step (k = 2 word (+1) of PTX's A fragment; the weights rows hold the same
  // receivers at the same byte positions).
  const int wordBytes = s.in.type == BfType::CI4 ? 2 : 4, stepBytes = w.receiversPerStep * w.sampleBytes;
  out.push_back(decl("const unsigned", "a_off",
                     bin("+",
                         bin("+", num(w.weightRegion),
                             bin("*", bin("+", bin("*", var("warp"), num(8)), bin(">>", var("lane"), num(2))),
                                 num(w.sampleStride))),
                         bin("*", bin("&", var("lane"), num(3)), num(wordBytes)))));

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
  const int steps = w.receiversPerStage / w.receiversPerStep;
  for (int ks = 0; ks < steps; ++ks) {
    for (int h = 0; h < 2; ++h) {
      const int off = ks * stepBytes + h * stepBytes / 2;
      NodePtr load = call(fmt::format("bf_lds{}", s.in.type == BfType::CI4 ? 16 : 32),
                          {bin("+", bin("+", var("slot"), var("a_off")), num(off))});
      if (s.in.type == BfType::CI4) load = call(s.in.ci4RealHigh ? "bf_widen2_hi" : "bf_widen2_lo", {load});
      if (s.in.type == BfType::CI8) load = call("bf_clamp8", {load});
      st.push_back(decl("const wf_u32", fmt::format("x{}_{}", ks, h), load));
    }
  }
  // The A operands of this stage (4 registers per k-step). A wgmma reads its A registers until it completes, so the
  // stage's group is retired (wait 0) before the next stage loads new ones. Leaving one group in
  // flight (wait 1) gave wrong sums: ptxas reloaded the same physical registers for the next stage's A while the
  // previous wgmmas still read them, with or without asm operand fences to keep the old values live.
  for (int ks = 0; ks < steps; ++ks)
    for (int r = 0; r < 4; ++r)
      st.push_back(decl("const wf_u32", fmt::format("a{}_{}", ks, r),
                        call(r % 2 ? "bf_swap" : "bf_conj", {var(fmt::format("x{}_{}", ks, r / 2))})));
  st.push_back(call0("bf_wgmma_fence"));
  for (int ks = 0; ks < steps; ++ks) {
    std::vector<NodePtr> args{var("d")};
    for (int r = 0; r < 4; ++r) args.push_back(var(fmt::format("a{}_{}", ks, r)));
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

void bfWgmmaCheck(const BeamformerSpec& s, std::vector<BfIssue>& issues, std::vector<std::string>& proved, int mutate) {
  const BfWgmma w = bfWgmma(s);
  const bool f16 = !s.integer();
  const MmaShape& sh = *findMmaShape(f16 ? "m16n8k16" : "m16n8k32", f16 ? "f16" : "s8");
  const int stepBytes = w.receiversPerStep * w.sampleBytes, wordBytes = s.in.type == BfType::CI4 ? 2 : 4;
  const int steps = w.receiversPerStage / w.receiversPerStep;
  auto issue = [&](const std::string& m) { issues.push_back({"/tuning/mma", "wgmma path: " + m}); };
  // The swizzle is relative to 1024-byte atoms: every buffer of the ring must start on one (the kernel rounds the
  // ring's base up to 1024 and adds multiples of stageBytes), and the weights region is whole 8-row groups.
  if (w.stageBytes % 1024 || w.weightRegion % 1024 || w.sampleStride % 16)
    issue(
        fmt::format("stage {} B / weights region {} B not whole 1024-byte atoms, or sample rows of {} B not 16-byte "
                    "aligned",
                    w.stageBytes, w.weightRegion, w.sampleStride));
  if (w.powerBytes + 1023 + w.stages * w.stageBytes > w.sharedBytes)
    issue("the ring does not fit the shared memory the plan asks for");
  // B: the cp.async fill puts byte `byte` of beam n's 128-byte row of receivers at n * 128 + the byte with its
  // 16-byte chunk index XORed with n % 8; the common descriptor check reads every (beam, k byte) of each k-step
  // through the kernel's descriptor (128-byte swizzle, 8-row groups SBO = 1024 B apart) and must find that byte, so
  // B's element (n, k) of k-step ks is weight byte 32 ks + k of beam n.
  auto placed = [&](int n, int byte) { return n * 128 + (((byte / 16) ^ (mutate == 1 ? 0 : n & 7)) << 4) + byte % 16; };
  std::vector<int> written(static_cast<std::size_t>(w.weightRegion), 0);
  for (int n = 0; n < w.n; ++n)
    for (int byte = 0; byte < 128; ++byte) ++written[static_cast<std::size_t>(placed(n, byte))];
  if (std::any_of(written.begin(), written.end(), [](int v) { return v != 1; }))
    issue("the weights fill does not write every byte of its region once");
  long long reads = 0;
  for (int ks = 0; ks < steps; ++ks) {
    const std::string why = checkWgmmaOperand(
        WgmmaDescriptor{static_cast<unsigned>(ks * 32), 16, 1024, 0, WgmmaSwizzle::B128}.encode(), w.n, 32,
        [&](int n, int kb) -> long long { return placed(n, ks * 32 + kb); }, &reads);
    if (!why.empty()) {
      issue(fmt::format("B, k-step {}: {}", ks, why));
      return;
    }
  }
  long long checked = 0;
  const int elemBytes = f16 ? 2 : 1;
  for (int lane = 0; lane < 32; ++lane)
    for (int reg = 0; reg < 4; ++reg)
      for (int e = 0; e < (f16 ? 2 : 4); ++e) {
        const auto [row, k] = sh.a.coord(Operand::A, lane, reg, e);
        // The kernel: register reg = (conj, swap)[reg & 1] of word (lane % 4) + 4 (reg >> 1) of the k-step, row time
        // lane / 4.
        const int time = lane >> 2, reIm = mutate == 3 ? 1 - (reg & 1) : reg & 1,
                  word = (lane & 3) + (mutate == 2 ? 1 : 4) * (reg >> 1);
        if (row % 8 != time || row / 8 != reIm) {
          issue(fmt::format("A lane {} register {} is row {} in PTX's fragment, the kernel's (time {}, ReIm_out {})",
                            lane, reg, row, time, reIm));
          continue;
        }
        for (int ks = 0; ks < steps; ++ks) {
          // Sample: the word's receivers from the byte the kernel loads (widened ci4: word = two receivers of 2 bytes).
          const int sByte = ks * stepBytes + word * wordBytes;
          const int rcvA = sByte / w.sampleBytes + (f16 ? 0 : e / 2);
          const int compIn = e % 2;  // element of the staged word before conj / swap: re, im
          // conj: (re, -im); swap: (im, re): the sample component this element carries and its sign.
          const int sComp = reIm == 0 ? compIn : 1 - compIn;
          const int sign = (reIm == 0 && compIn == 1) ? -1 : 1;
          for (int n = 0; n < w.n; ++n) {
            const int wb = ks * 32 + k * elemBytes;  // B's element (n, k): weight byte wb of beam n (shown above)
            const int rcvB = wb / w.weightBytes, wComp = (wb % w.weightBytes) / (w.weightBytes / 2);
            if (rcvB != rcvA)
              issue(fmt::format("k-step {} k {}: A carries receiver {}, B receiver {}", ks, k, rcvA, rcvB));
            // Re row: s_re w_re - s_im w_im; Im row: s_re w_im + s_im w_re.
            const bool ok = reIm == 0 ? (sComp == wComp && sign == (sComp == 0 ? 1 : -1))
                                      : (sComp != wComp && sign == 1);
            if (!ok)
              issue(
                  fmt::format("k-step {} k {} row {}: sample component {} (sign {}) times weight component {} is not a "
                              "term of the complex product",
                              ks, k, row, sComp, sign, wComp));
            ++checked;
            if (issues.size() > 20) return;
          }
        }
      }
  proved.push_back(
      fmt::format("wgmma m64n{}{} (sm_90a): {} A elements x beams x k-steps read the sample and weight components of "
                  "one term of the complex product "
                  "(A per PTX's fragment table, B per the 128-byte-swizzled K-major layout through the descriptors); "
                  "the weights fill writes each byte once",
                  w.n, f16 ? "k16" : "k32", checked));
}

}  // namespace warpforge
