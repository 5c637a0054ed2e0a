// The correlate kernel of the pipeline with the operands as stored (PipelineDirect.h): producer warpgroup (tensor,
// bulk or 16-byte copies into the operand ring), consumer warpgroups (ldmatrix + Im rows in registers, wgmma with A
// from registers), the triangle store of either output model.
#include <fmt/format.h>

#include "generator/complexmma/ComplexMma.h"
#include "generator/correlator/DeviceHelpers.h"
#include "generator/correlator/PipelineCode.h"
#include "generator/correlator/PipelineDirect.h"
#include "generator/correlator/PipelineDirectStore.h"

namespace warpforge {

namespace {

using corr_emit::Code;
using corr_emit::timeOffset;

// The 64-byte-swizzled offset of (input `n`, 16-byte chunk `c`) in a side (DirectPipe::offset), as C.
std::string swizzled(const std::string& n, const std::string& c) {
  return fmt::format("((({0}) >> 3) * {2}u + (({0}) & 7) * 64u + ((({1}) ^ ((({0}) & 7) >> 1)) << 4))", n, c, kPipeSbo);
}

// The column side's byte of (input `n`, 16-byte chunk `c` of the stage's 64), as C: the swizzled layout, or with
// tensor copies time block c / 2, half c % 2 under the 32-byte swizzle (DirectPipe::bOffset).
std::string columnChunk(const DirectPipe& p, const std::string& n, const std::string& c) {
  if (!p.tensorB) return swizzled(n, c);
  return fmt::format(
      "((unsigned)(({1}) >> 1) * {2}u + (unsigned)({0}) * 32u + (((({1}) & 1) ^ ((({0}) >> 2) & 1)) << 4))", n, c,
      p.rows * 32);
}

// Persistent blocks: the loop over this block's units (batch entry, channel, tile), each decoded (emitTileDecode).
void openUnitLoop(Code& c, const CorrelatorSpec& s, const DirectPipe& p, long long tiles) {
  c.open(
      fmt::format("for (long long unit0 = blockIdx.x; unit0 < batch * {}LL; unit0 += gridDim.x)", tiles * s.channels));
  corr_emit::emitTileDecode(c, s, tiles, p.rows, p.eb, "this unit's tile", "unit0");
}

// The row side by bulk copies: the tile's first row input's samples (a_src) and one time block's bytes of the
// tile's valid row inputs (a_run), declared once per tile.
void emitRowBulkSource(Code& c, const CorrelatorSpec& s, const DirectPipe& p) {
  const CorrelatorInput& in = s.input;
  c(
      fmt::format("const unsigned char* const a_src = chan + ((long long)(row0 / {}) * {}LL + (long long)(row0 % {}) * "
                  "{}LL) * {};",
                  p.P, in.receiver, p.P, in.polarization, p.eb));
  c(
      fmt::format("const unsigned a_run = (unsigned)({1}LL - row0 < {0} ? {1}LL - row0 : {0}) * {2}u;  // bytes of one "
                  "time block's row-side copy",
                  p.rows, p.N, p.runBytes));
}

// The row side's bulk copies of stage k: how many (a partial last stage copies its whole time blocks), as C.
std::string rowBulkCopies(const DirectPipe& p, long long nst) {
  const int blocks = 64 / p.runBytes, runS = p.runBytes / p.eb;
  const long long lastBlocks = (p.samples - (nst - 1) * p.ts + runS - 1) / runS;
  return p.samples % p.ts ? fmt::format("(k == {} ? {}u : {}u)", nst - 1, lastBlocks, blocks)
                          : fmt::format("{}u", blocks);
}

// The row side's bulk copies of stage k into the slot at `base`, one per time block, completing on its full barrier
// (cluster pairs: each block multicasts every other time block into both).
void emitRowBulkLoop(Code& c, const CorrelatorSpec& s, const DirectPipe& p) {
  const int blocks = 64 / p.runBytes, runS = p.runBytes / p.eb;
  c("#pragma unroll");
  c.open(fmt::format("for (int blk = 0; blk < {}; ++blk)", blocks));
  c(fmt::format("const long long t = (long long)k * {} + blk * {};", p.ts, runS));
  if (p.samples % p.ts)
    c(fmt::format("if (t >= {}) break;  // a partial last stage: its whole time blocks", p.samples));
  const std::string src = fmt::format("a_src + ({}) * {}", timeOffset(s.input, "t"), p.eb);
  const std::string dst = fmt::format("base + blk * {}u", p.rows * p.runBytes);
  if (p.pairs) {
    c(fmt::format("if (!paired) wfa_bulk_g2s({}, {}, a_run, full + 8u * slot);", dst, src));
    c(
        fmt::format("else if ((blk & 1) == (int)rank) wfa_bulk_g2s_multicast({}, {}, a_run, full + 8u * slot, 3);  // "
                    "into both blocks",
                    dst, src));
  } else {
    c(fmt::format("wfa_bulk_g2s({}, {}, a_run, full + 8u * slot);", dst, src));
  }
  c.close();
}

// The producer with the column side by tensor copies: its first thread alone, per stage one arrival expecting the
// stage's bytes, the row side's bulk copies (off the diagonal) and one tensor copy of the column side's box.
void emitProducerTensor(Code& c, const CorrelatorSpec& s, const DirectPipe& p, long long nst, long long tiles) {
  const int boxBytes = p.columnMap.box[0] * p.columnMap.box[1] * p.columnMap.box[2];
  if (p.producerRegs) c(fmt::format("wfa_setmaxnreg_dec<{}>();", p.producerRegs));
  c.open("if (tid == 0)");
  if (p.persistent) {  // the ring runs on across units: slot and parity carry over
    c("int slot = 0;");
    c("unsigned par = 0;");
    c("#pragma unroll 1");
    openUnitLoop(c, s, p, tiles);
  }
  if (p.bulkA) emitRowBulkSource(c, s, p);
  c(fmt::format("const int b_plane = (int)(b * {}LL + channel);  // the tensor map's batch x channel coordinate",
                s.channels));
  if (!p.persistent) {
    c("int slot = 0;");
    c("unsigned par = 0;");
  }
  c("#pragma unroll 1");
  c.open(fmt::format("for (int k = 0; k < {}; ++k)", nst));
  c("while (!wfa_mbar_try_wait(empty + 8u * slot, par ^ 1u)) {}  // the consumers released the slot");
  c(fmt::format("const unsigned base = ring + slot * {}u;", p.slotBytes));
  if (p.bulkA) {
    c(
        fmt::format("wfa_mbar_arrive_tx(full + 8u * slot, (diag ? 0u : {} * a_run) + {}u);  // the stage's bytes: A's "
                    "bulk copies (off the diagonal) and B's box",
                    rowBulkCopies(p, nst), boxBytes));
    c.open("if (!diag)");
    emitRowBulkLoop(c, s, p);
    c.close();
  } else {
    c(fmt::format("wfa_mbar_arrive_tx(full + 8u * slot, {}u);  // the stage's bytes: B's box (every tile is diagonal)",
                  boxBytes));
  }
  c(
      fmt::format("wfa_tma_load_4d(base + {}u, &b_map, 0, col0, {} * k, b_plane, full + 8u * slot);  // B: inputs col0 "
                  "..., time blocks of stage k (zeros past the inputs and samples)",
                  p.sideBytes, p.tensorTimeBlock(1)));
  c(fmt::format("if (++slot == {}) slot = 0, par ^= 1u;", p.stages));
  c.close();
  if (p.persistent) c.close();  // the unit loop
  c.close();
}

void emitProducer(Code& c, const CorrelatorSpec& s, const DirectPipe& p, long long nst, long long tiles) {
  if (p.tensorB) return emitProducerTensor(c, s, p, nst, tiles);
  const CorrelatorInput& in = s.input;
  const int J = p.unitsPerThread, D = p.inFlight, S = p.stages;
  if (p.producerRegs) c(fmt::format("wfa_setmaxnreg_dec<{}>();", p.producerRegs));
  if (p.persistent) {
    c("// the ring runs on across units: g counts the stages issued, stage g - 1 - inFlight is published after g");
    c("int slot = 0;");
    c("unsigned par = 0;");
    c("long long g = 0;");
    c("#pragma unroll 1");
    openUnitLoop(c, s, p, tiles);
  }
  c(
      fmt::format("// unit j of this thread: side j / {} (1: the column side; {}), input (u / 4) % {}, chunk u % 4, "
                  "u = tid + 128 j",
                  J / 2,
                  p.bulkA ? "the row side's units are unused: bulk copies" : "a diagonal tile copies only that one",
                  p.rows));
  c(fmt::format("const unsigned char* src[{}];", J));
  c(fmt::format("unsigned dst[{}], chunk[{}];", J, J));
  c(fmt::format("bool valid[{}];", J));
  c("#pragma unroll");
  c.open(fmt::format("for (int j = 0; j < {}; ++j)", J));
  c(fmt::format("const int u = tid + 128 * j, side = diag ? 1 : j / {}, n = (u >> 2) % {}, q = u & 3;", J / 2, p.rows));
  c("const int input = (side ? col0 : row0) + n;");
  c(fmt::format("valid[j] = input < {} && !(diag && j < {});", p.N, J / 2));
  c(fmt::format("src[j] = chan + ((long long)(input / {}) * {}LL + (long long)(input % {}) * {}LL) * {};", p.P,
                in.receiver, p.P, in.polarization, p.eb));
  c(fmt::format("dst[j] = side * {}u + {};", p.sideBytes, swizzled("n", "q")));
  c("chunk[j] = q;");
  c.close();
  if (p.bulkA) {
    c(fmt::format("// the row side: {} bulk copies per stage (one per time block) of the tile's valid row inputs' runs",
                  64 / p.runBytes));
    emitRowBulkSource(c, s, p);
  }
  if (!p.persistent) {
    c("int slot = 0;");
    c("unsigned par = 0;");
  }
  c("#pragma unroll 1");
  c.open(fmt::format("for (int k = 0; k < {}; ++k)", nst));
  if (p.pairs) {
    c("// the consumers of both blocks released the slot (the pair's copies write into both)");
    c("while (!(paired ? wfa_mbar_try_wait_cluster(empty + 8u * slot, par ^ 1u) : wfa_mbar_try_wait(empty + 8u * slot, "
      "par ^ 1u))) {}");
  } else c("while (!wfa_mbar_try_wait(empty + 8u * slot, par ^ 1u)) {}  // the consumers released the slot");
  c(fmt::format("const unsigned base = ring + slot * {}u;", p.slotBytes));
  if (p.bulkA) {
    // A diagonal tile (outside cluster pairs) copies only its column side: A is read from it, as with cp.async.
    // Persistent blocks keep the barrier's count: the first thread arrives there without bytes.
    if (p.persistent)
      c("if (tid == 0 && diag) wfa_mbar_arrive(full + 8u * slot);  // no bulk copies on a diagonal tile");
    c.open(p.pairs ? "if (tid == 0)" : "if (tid == 0 && !diag)");
    c(fmt::format("wfa_mbar_arrive_tx(full + 8u * slot, {} * a_run);  // one more arrival: the copies' bytes{}",
                  rowBulkCopies(p, nst), p.pairs ? " (both blocks' copies)" : ""));
    emitRowBulkLoop(c, s, p);
    c.close();
  }
  c("#pragma unroll");
  c.open(fmt::format("for (int j = {}; j < {}; ++j)", p.bulkA ? J / 2 : 0, J));
  c(fmt::format("const long long t = (long long)k * {} + chunk[j] * {};", p.ts, p.spc));
  c(fmt::format("{}corr_cp16(base + dst[j], src[j] + ({}) * {}, valid[j] && t < {} ? 16u : 0u);",
                p.bulkA ? "" : fmt::format("if (!diag || j >= {}) ", J / 2), timeOffset(in, "t"), p.eb, p.samples));
  c.close();
  c("corr_cp_commit();");
  c(fmt::format("if (++slot == {}) slot = 0, par ^= 1u;", S));
  if (p.persistent) {
    c.open(fmt::format("if (++g > {})", D));
    c(fmt::format("corr_cp_wait<{}>();  // stage g - 1 - {} landed: publish it", D, D));
    c("corr_fence_async_smem();  // to wgmma (async proxy)");
    c(fmt::format("wfa_mbar_arrive(full + 8u * (unsigned)((g - 1 - {}) % {}));", D, S));
  } else {
    c.open(fmt::format("if (k >= {})", D));
    c(fmt::format("corr_cp_wait<{}>();  // stage k - {} landed: publish it", D, D));
    c("corr_fence_async_smem();  // to wgmma (async proxy)");
    c(fmt::format("wfa_mbar_arrive(full + 8u * ((k - {}) % {}));", D, S));
  }
  c.close();
  c.close();
  if (p.persistent) c.close();  // the unit loop
  c("corr_cp_wait<0>();");
  c("corr_fence_async_smem();");
  if (p.persistent)
    c(
        fmt::format("for (long long q = g > {0} ? g - {0} : 0; q < g; ++q) wfa_mbar_arrive(full + 8u * (unsigned)(q % "
                    "{1}));",
                    D, S));
  else
    c(fmt::format("for (int k = {}; k < {}; ++k) wfa_mbar_arrive(full + 8u * (k % {}));",
                  std::max<long long>(0, nst - D), nst, S));
}

// Lane 0's release of `count` slots from `first` (a group's) to the producer, and in cluster pairs to the pair's.
void emitSlotRelease(Code& c, const DirectPipe& p, const std::string& first, long long count,
                     const std::string& comment = "") {
  for (long long i = 0; i < count; ++i) {
    const std::string slot = i ? fmt::format("((({}) + {}) % {})", first, i, p.stages) : first;
    c(fmt::format("wfa_mbar_arrive(empty + 8u * {});{}", slot, comment.empty() ? "" : "  // " + comment));
    if (p.pairs)
      c(fmt::format("if (paired) wfa_mbar_arrive_remote(empty + 8u * {}, rank ^ 1u);  // the pair's producer", slot));
  }
}

// One group of `n` stages (n <= p.group) of a consumer warpgroup with A registers `a` (16 per stage): wait for each
// stage's copies, A by ldmatrix and its Im rows, the wgmmas as one commit group, one group kept in flight, the slots of
// the group before it released.
void emitConsumerGroup(Code& c, const DirectPipe& p, const std::string& k, int n, const std::string& a, bool half) {
  const bool f16 = p.type == SampleType::CF16;
  c.open("");
  c("const int first = slot;  // this group's first slot");
  for (int i = 0; i < n; ++i) {
    c(fmt::format("while (!wfa_mbar_try_wait(full + 8u * slot, par)) {{}}  // stage {}{}'s operands landed", k,
                  i ? fmt::format(" + {}", i) : ""));
    c(fmt::format("const unsigned base{} = ring + slot * {}u;", i, p.slotBytes));
    c(fmt::format("const unsigned long long so{} = (unsigned long long)(slot * {}u);  // the slot in 16-byte units", i,
                  p.slotBytes / 16));
    c(fmt::format("if (++slot == {}) slot = 0, par ^= 1u;", p.stages));
  }
  c("// stage i, half h: registers 16 i + 8 h + 4 ks .. : the sample rows (ldmatrix: a0, a2 of k-steps 0, 1) and their "
    "Im rows (a1, a3)");
  for (int i = 0; i < n; ++i) {
    const int r = 16 * i;
    c(fmt::format("corr_ldsm4(base{0} + a_off0, {1}[{2}], {1}[{3}], {1}[{4}], {1}[{5}]);", i, a, r, r + 2, r + 4,
                  r + 6));
    c(fmt::format("corr_ldsm4(base{0} + a_off1, {1}[{2}], {1}[{3}], {1}[{4}], {1}[{5}]);", i, a, r + 8, r + 10, r + 12,
                  r + 14));
  }
  c("#pragma unroll");
  c(fmt::format("for (int i = 0; i < {0}; i += 2) {1}[i + 1] = corr_im_row({1}[i]);", 16 * n, a));
  c("corr_wgmma_fence();");
  const std::string fn = half ? "corr_wgmma_rs_half" : "corr_wgmma_rs";
  const int acc = p.atom(half).accRegs();
  const int kStep = p.kStepBytes() / 16;  // B's descriptor step from one k-step to the next, in 16-byte units
  auto d = [&](int h) {
    return half ? fmt::format("reinterpret_cast<{} (&)[{}]>(d{})", f16 ? "float" : "int", acc, h)
                : fmt::format("d{}", h);
  };
  for (int i = 0; i < n; ++i)
    for (int ks = 0; ks < 2; ++ks)
      for (int h = 0; h < 2; ++h) {
        const int r = 16 * i + 8 * h + 4 * ks;
        c(fmt::format("{}({}, {}[{}], {}[{}], {}[{}], {}[{}], db0 + so{} + {}ull);", fn, d(h), a, r, a, r + 1, a, r + 2,
                      a, r + 3, i, ks * kStep));
      }
  c("corr_wgmma_commit();");
  c("corr_wgmma_wait<1>();  // the previous group's wgmmas are done: its slots and A registers are free");
  c("__syncwarp(0xffffffffu);");
  c.open(fmt::format("if ({} > 0 && lane == 0)", k));
  emitSlotRelease(c, p, "prev", p.group);
  c.close();
  c("prev = first;");
  c.close();
}

// The consumers' ring state (persistent blocks declare it once, before their unit loop).
void emitConsumerState(Code& c, const DirectPipe& p) {
  c(
      fmt::format("wf_u32 ra[{0}], rb[{0}];  // A registers of even and odd groups (a wgmma reads them until its group "
                  "retires)",
                  16 * p.group));
  c("int slot = 0, prev = 0;");
  c("unsigned par = 0;");
}

// half: the wgmmas take rows / 2 column inputs from fromCol (0 or rows / 2).
void emitConsumers(Code& c, const CorrelatorSpec& s, const DirectPipe& p, long long nst, bool half, int fromCol = 0) {
  const int G = p.group;
  if (!p.persistent) emitConsumerState(c, p);
  if (fromCol)
    c(fmt::format("const unsigned long long db0 = db_full + {}ull;  // B from column input {}",
                  (p.descB(0, 0, 0, fromCol).start - p.descB(0, 0, 0).start) >> 4, fromCol));
  else c("const unsigned long long db0 = db_full;");
  const long long groups = nst / G, pairs = groups / 2;  // full groups, pairs of them
  c("#pragma unroll 1");
  c.open(fmt::format("for (int k = 0; k < {}; k += {})", 2 * G * pairs, 2 * G));
  if (p.lagStages)
    c(fmt::format("if (cg == 0 && k == {}) wfa_bar_arrive(3, 256);  // {} stages in: the second warpgroup may start",
                  p.lagStages, p.lagStages));
  emitConsumerGroup(c, p, "k", G, "ra", half);
  emitConsumerGroup(c, p, fmt::format("k + {}", G), G, "rb", half);
  c.close();
  // The groups after the pairs: one full group and / or a last partial one (alternating registers go on).
  long long k = 2 * G * pairs;
  bool odd = false;
  for (int n : {groups % 2 ? G : 0, static_cast<int>(nst % G)}) {
    if (!n) continue;
    c(fmt::format("// stages {} .. {}", k, k + n - 1));
    emitConsumerGroup(c, p, std::to_string(k), n, odd ? "rb" : "ra", half);
    k += n;
    odd = !odd;
  }
  c("corr_wgmma_wait<0>();");
  if (p.persistent) {  // the ring runs on: the last group's slots go back to the producer before the store
    const long long lastN = nst % G ? nst % G : G;
    c("__syncwarp(0xffffffffu);");
    c.open("if (lane == 0)");
    emitSlotRelease(c, p, "prev", lastN, "the tile's last group");
    c.close();
  }
  if (p.noStore) c("// (bench's ablation: the store left out)");
  else emitDirectStore(c, s, p, half, fromCol);
}

}  // namespace

std::string emitDirectCorrelate(const CorrelatorSpec& s, const DirectPipe& p, const std::string& name) {
  const bool f16 = s.type == SampleType::CF16;
  const long long N = s.inputs();
  const int tps = static_cast<int>((N + p.rows - 1) / p.rows);
  const long long tiles = static_cast<long long>(tps) * (tps + 1) / 2;
  const long long nst = (s.samples + p.ts - 1) / p.ts;
  std::string head = fmt::format(
      "// {}: correlate {} receivers x {} pol, {} channels, {} samples per call ({}), {} layout; generated by "
      "warpforge "
      "(correlator family)\n"
      "// sm_90a pipeline, operands as stored (tuning.transform \"none\"): {} x {} input tiles; {} "
      "copies each stage ({} samples) by {} into {} slots of {} B ({}); {} consumer warpgroup(s) read A by ldmatrix, "
      "form its Im rows in registers and issue {} with A from registers\n",
      name, s.receivers, s.polarizations, s.channels, s.samples, sampleTypeName(s.type), s.input.layout, p.rows, p.rows,
      p.tensorB ? "the producer warpgroup's first thread" : "a producer warpgroup", p.ts,
      p.tensorB
          ? (p.bulkA ? "cp.async.bulk (the row side, one copy per time block) and one TMA tensor copy (the column "
                       "side, 32-byte swizzle)"
                     : "one TMA tensor copy (the column side, 32-byte swizzle)")
      : p.bulkA ? "cp.async.bulk (the row side, one copy per time block) and 16-byte cp.async (the column side)"
                : "16-byte cp.async",
      p.stages, p.slotBytes,
      p.tensorB ? std::string("each slot refilled as soon as the consumers release it")
                : fmt::format("{} stages of copies in flight", p.inFlight),
      p.consumers, p.atom().ptx());
  if (p.pairs)
    head += fmt::format(
        "// clusters of two blocks: the tiles (ti, tj), (ti, tj + 1) of one row side ({} pairs per channel); each "
        "block "
        "copies every other time block of A into both (cp.async.bulk .multicast::cluster) and releases its slots to "
        "both producers\n",
        directPairs(tps));
  if (s.writesVisibilities())
    head += fmt::format("// output: each batch entry's {} visibilities of the call, written once{}\n",
                        f16 ? "f32" : "int32",
                        p.bulkStore ? fmt::format(" (staged in shared memory, {} B per consumer warpgroup, and copied "
                                                  "out by cp.async.bulk stores, one per column receiver)",
                                                  p.stageRuns * p.stageRunStride)
                                    : "");
  head += cmma::sm90aGuard();
  Code c;
  corr_emit::emitKernelOpening(c, s, name, p.threads, p.blocksPerSm, tiles, p.rows, p.eb,
                               p.pairs   ? "A by the pair's bulk copies, B the column side"
                               : p.bulkA ? "A by bulk copies; a diagonal tile copies its column side only, A read there"
                                         : "one side copied: A and B are the column side",
                               p.pairs ? tps : 0, p.pairs ? directPairs(tps) : 0, p.persistent,
                               p.tensorB ? "const __grid_constant__ wf_tensor_map b_map" : "");
  c("// shared memory: the operand ring at a 1024-aligned base (whole swizzle atoms), then the mbarriers");
  c("const unsigned ring = ((unsigned)__cvta_generic_to_shared(wf_smem) + 1023u) & ~1023u;");
  c(fmt::format("const unsigned full = ring + {}u, empty = full + {}u;", p.barriers, 8 * p.stages));
  c.open("if (tid == 0)");
  c(
      fmt::format("for (int i = 0; i < {}; ++i) {{ wfa_mbar_init(full + 8u * i, {}); wfa_mbar_init(empty + 8u * i, "
                  "{}u); }}",
                  p.stages,
                  p.tensorB                              ? "1u"
                  : p.pairs || (p.bulkA && p.persistent) ? "129u"
                  : p.bulkA                              ? "diag ? 128u : 129u"
                                                         : "128u",
                  p.pairs ? fmt::format("paired ? {}u : {}", 8 * p.consumers, 4 * p.consumers)
                          : std::to_string(4 * p.consumers)));
  c("wfa_fence_mbar_init();");
  c.close();
  if (p.pairs) {
    c("wfa_cluster_sync();  // the pair's mbarriers are initialised");
    c.open("if (active)");
  } else {
    c("__syncthreads();  // the only block-wide barrier: the mbarriers are initialised");
  }
  c.open("if (warp < 4)");
  emitProducer(c, s, p, nst, tiles);
  c.close(" else {");
  c.depth++;
  if (p.consumerRegs) c(fmt::format("wfa_setmaxnreg_inc<{}>();", p.consumerRegs));
  c("const int cg = (warp >> 2) - 1;  // consumer warpgroup: row inputs 64 cg .. 64 cg + 63 of the tile");
  const int acc = p.atom().accRegs();
  c(fmt::format("{} d0[{}], d1[{}];  // row inputs 64 cg + 0..31 and + 32..63", f16 ? "float" : "int", acc, acc));
  if (p.staggerNs)
    c(
        fmt::format("if (blockIdx.x & 3) asm volatile(\"nanosleep.u32 %0;\" :: \"r\"({}u * (blockIdx.x & 3)));  // "
                    "start "
                    "a quarter tile apart per block",
                    p.staggerNs));
  if (p.persistent) {
    emitConsumerState(c, p);
    c("#pragma unroll 1");
    openUnitLoop(c, s, p, tiles);
  }
  c("#pragma unroll");
  c(fmt::format("for (int z = 0; z < {}; ++z) d0[z] = 0, d1[z] = 0;", acc));
  if (p.lagStages)
    c(
        fmt::format("if (cg == 1) wfa_bar_sync(3, 256);  // {} stages behind the first warpgroup: one stores while the "
                    "other computes",
                    p.lagStages));
  c("// ldmatrix rows: row input 64 cg + 32 h + 8 (warp % 4) + lane % 8, 16-byte chunk lane / 8 of the stage's 64 "
    "bytes");
  c("const int a_n = 64 * cg + 8 * (warp & 3) + (lane & 7);");
  if (p.bulkA) {
    c("// A from the row side's bulk layout: chunk c of input n in time block 16 c / run, at n run + 16 c % run");
    const std::string at = fmt::format("(unsigned)((16 * (lane >> 3)) / {0} * {1} + (16 * (lane >> 3)) % {0})",
                                       p.runBytes, p.rows * p.runBytes);
    if (p.pairs) {
      c(fmt::format("const unsigned a_off0 = {0} + a_n * {1}u, a_off1 = a_off0 + 32u * {1}u;", at, p.runBytes));
    } else {
      c(p.tensorB ? "// (a diagonal tile: from the column side, as the tensor copy laid it out)"
                  : "// (a diagonal tile: from the column side, swizzled)");
      c(fmt::format("const unsigned a_off0 = diag ? {2}u + {3} : {0} + a_n * {1}u,", at, p.runBytes, p.sideBytes,
                    columnChunk(p, "a_n", "lane >> 3")));
      c(fmt::format("               a_off1 = diag ? {2}u + {3} : a_off0 + 32u * {1}u;", at, p.runBytes, p.sideBytes,
                    columnChunk(p, "a_n + 32", "lane >> 3")));
    }
  } else {
    if (p.tensorB) {  // every tile is diagonal: A from the column side as the tensor copy laid it out
      c(fmt::format("const unsigned a_off0 = {}u + {}, a_off1 = {}u + {};", p.sideBytes,
                    columnChunk(p, "a_n", "lane >> 3"), p.sideBytes, columnChunk(p, "a_n + 32", "lane >> 3")));
    } else {
      c(fmt::format("const unsigned a_side = diag ? {}u : 0u;", p.sideBytes));
      c(fmt::format("const unsigned a_off0 = a_side + {}, a_off1 = a_side + {};", swizzled("a_n", "lane >> 3"),
                    swizzled("a_n + 32", "lane >> 3")));
    }
  }
  c(fmt::format("const unsigned long long db_full = corr_desc_b(ring + {}u);  // B: the column side, slot 0",
                p.sideBytes));
  const std::string narrow = fmt::format("col0 + {} >= {}", p.rows / 2, p.N);
  if (p.consumers == 2) {
    c("// On a diagonal tile the second warpgroup's rows (inputs 64..127) need only columns 64..127.");
    c.open("if (diag && cg == 1)");
    emitConsumers(c, s, p, nst, true, p.rows / 2);
    c.close(" else {");
    c.depth++;
  }
  if (p.narrowEdge) {
    c(fmt::format("// The last column tile holds {} inputs: half-width wgmmas from column input 0.", p.N % p.rows));
    c.open(fmt::format("if ({})", narrow));
    emitConsumers(c, s, p, nst, true, 0);
    c.close(" else {");
    c.depth++;
  }
  emitConsumers(c, s, p, nst, false);
  if (p.narrowEdge) c.close();
  if (p.consumers == 2) c.close();
  if (p.persistent) c.close();  // the unit loop
  if (p.bulkStore)
    c("if ((warp & 3) == 0) wfa_bulk_wait0();  // the last tile's stores complete before the block ends");
  c.close();
  if (p.pairs) {
    c.close();
    c("wfa_cluster_sync();  // neither block leaves while the other may still arrive on its barriers or copy into it");
  }
  c.close();
  return head + correlatorDirectHelpers(p) + c.text;
}

}  // namespace warpforge
