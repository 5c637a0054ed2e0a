// The pipeline's proofs (checkPipeline, Pipeline.h): bulk copies, transform, bank groups, descriptors, store, budgets.
#include <algorithm>
#include <functional>
#include <map>

#include <fmt/format.h>

#include "generator/correlator/CorrelatorLayouts.h"
#include "generator/correlator/Pipeline.h"
#include "generator/verify/MmaCheck.h"

namespace warpforge {

namespace {

// One bulk copy of a stage: destination offset in the side's raw region, bytes, and the (row, time) of each of its
// samples as the input layout places them (rows relative to the tile's first input).
struct Copy {
  long long dst = 0, bytes = 0;
  std::function<void(long long byte, int& row, int& time)> sample;
};

std::vector<Copy> stageCopies(const CorrPipe& p, int validRows, int validTimes) {
  std::vector<Copy> out;
  const int eb = p.eb;
  switch (p.kind) {
    case RawKind::TimeBlocks:
      for (int b = 0; b * p.T < validTimes; ++b) {
        Copy c;
        c.dst = static_cast<long long>(b) * p.runPitch;
        c.bytes = static_cast<long long>(validRows) * p.T * eb;
        c.sample = [&p, b, eb](long long i, int& row, int& time) {
          row = static_cast<int>(i / (p.T * eb));
          time = b * p.T + static_cast<int>(i % (p.T * eb)) / eb;
        };
        out.push_back(c);
      }
      break;
    case RawKind::RowRuns:
      for (int n = 0; n < validRows; ++n) {
        Copy c;
        c.dst = static_cast<long long>(n) * p.runPitch;
        c.bytes = static_cast<long long>(validTimes) * eb;
        c.sample = [n, eb](long long i, int& row, int& time) {
          row = n;
          time = static_cast<int>(i / eb);
        };
        out.push_back(c);
      }
      break;
    case RawKind::PolRuns:
      for (int q = 0; 2 * q < validRows; ++q) {
        Copy c;
        c.dst = static_cast<long long>(q) * p.runPitch;
        c.bytes = 2LL * validTimes * eb;
        c.sample = [q, eb](long long i, int& row, int& time) {
          row = 2 * q + static_cast<int>(i / eb) % 2;
          time = static_cast<int>(i / (2 * eb));
        };
        out.push_back(c);
      }
      break;
  }
  return out;
}

// The whole triangle's wgmmas: every operand byte of every piece (A: B's sample rows of its strip; B: part h of column
// input col0 + 8 q + m at column 16 q + 8 h + m), every slot and k-step, read through the descriptor the kernel
// computes (the diagonal descriptor plus strip x the strip pitch, B's plus col0's offset, plus slot and k-step).
bool checkTrianglePieces(const CorrPipe& p, std::vector<PipeIssue>& issues, std::vector<std::string>& proved) {
  const unsigned base = 1024;
  const PipeDescriptors d = pipeDescriptors(p);
  long long reads = 0;
  int pieces = 0;
  for (const auto& list : p.pieces)
    for (const PipePiece& pc : list) {
      ++pieces;
      for (int slot = 0; slot < p.opStages; ++slot)
        for (int ks = 0; ks < p.steps; ++ks) {
          const unsigned add = (slot * d.perSlot + d.perStep[static_cast<std::size_t>(ks)]) << 4;
          const unsigned slotBase = base + static_cast<unsigned>(slot * p.opSlotBytes);
          WgmmaDescriptor a = d.diag, b = d.b;
          a.start = base + d.diag.start + static_cast<unsigned>(pc.strip) * d.diagPerGroup + add;
          b.start = base + p.descBAt(0, 0, 0, pc.col0).start + add;
          std::string why = checkWgmmaOperand(
              a.encode(), 64, 32,
              [&](int row, int kb) -> long long {
                return slotBase + p.aBytes + p.bOffset(64 * pc.strip + row, 0, 32 * ks + kb);
              },
              &reads);
          if (why.empty())
            why = checkWgmmaOperand(
                b.encode(), 2 * pc.width, 32,
                [&](int col, int kb) -> long long {
                  return slotBase + p.aBytes +
                         p.bOffset(pc.col0 + 8 * (col / 16) + col % 8, (col / 8) % 2, 32 * ks + kb);
                },
                &reads);
          if (!why.empty()) {
            issues.push_back({"/tuning", fmt::format("pipeline: the whole triangle's piece (rows {}.., columns {}..), "
                                                     "slot {}, k-step {}: {}",
                                                     64 * pc.strip, pc.col0, slot, ks, why)});
            return false;
          }
        }
    }
  proved.push_back(
      fmt::format("pipeline wgmma, the whole triangle ({} pieces over {} warpgroup(s), {}): {} operand bytes of {} "
                  "slots x {} "
                  "k-steps read through the kernel's descriptors are the bytes staged for them",
                  pieces, p.consumers, wgmmaSwizzleName(p.swizzle), reads, p.opStages, p.steps));
  return true;
}

}  // namespace

void checkPipeline(const CorrelatorSpec& s, const CorrPipe& p, std::vector<PipeIssue>& issues,
                   std::vector<std::string>& proved) {
  const std::size_t before = issues.size();
  auto issue = [&](const std::string& m) { issues.push_back({"/tuning", "pipeline: " + m}); };

  // 1. Budgets: shared memory, registers, the wgmma shape.
  if (p.sharedBytes > kWgmmaMaxShared || p.blocksPerSm * (p.sharedBytes + 1024) > 228 * 1024)
    issue(
        fmt::format("{} B of shared memory per block x {} blocks per SM do not fit (227 KiB per block, 228 KiB per SM)",
                    p.sharedBytes, p.blocksPerSm));
  if (p.stagesPerSync > 1 && (p.opStages < 2 * p.stagesPerSync || p.rawStages < p.stagesPerSync))
    issue(fmt::format("{} stages per wait need {} or more operand slots ({}) and {} or more raw slots ({})",
                      p.stagesPerSync, 2 * p.stagesPerSync, p.opStages, p.stagesPerSync, p.rawStages));
  if (p.sharedTransform && p.opStages < 3)
    issue(fmt::format("the shared transform needs 3 or more operand slots ({})", p.opStages));
  if (p.aUnits() * p.aThreads() != (p.rows / 8) * static_cast<int>(p.units.size()))
    issue(fmt::format("{} threads x {} units do not cover the {} units of A", p.aThreads(), p.aUnits(),
                      (p.rows / 8) * p.units.size()));
  if (p.unitsPerThread * p.loaderThreads() != (p.rows / 8) * static_cast<int>(p.units.size()))
    issue(fmt::format("{} loader threads x {} units do not cover the {} units of a side", p.loaderThreads(),
                      p.unitsPerThread, (p.rows / 8) * p.units.size()));
  {
    int next = 0;  // B's assignments cover its groups in order, each unit once
    for (const CorrPipe::Assign& a : p.transformAssign(true)) {
      // The emitter addresses unit j of thread t as group first + t / n + (threads / n) j: whole groups per round.
      if (a.firstGroup != next || a.threads % static_cast<int>(p.units.size()))
        issue(fmt::format("B's transform: {} threads x {} units from group {} do not continue at group {}", a.threads,
                          a.units, a.firstGroup, next));
      next = a.firstGroup + a.threads * a.units / static_cast<int>(p.units.size());
    }
    if (next != p.rows / 8) issue(fmt::format("B's transform covers {} of {} 8-row groups", next, p.rows / 8));
  }
  if (p.launchRegs * p.threads * p.blocksPerSm > 65536)
    issue(fmt::format("{} registers x {} threads x {} blocks exceed 64 Ki", p.launchRegs, p.threads, p.blocksPerSm));
  if (p.loaderRegs) {
    for (int r : {p.loaderRegs, p.consumerRegs})
      if (r % 8 || r < 24 || r > 256) issue(fmt::format("setmaxnreg {} (a multiple of 8 in 24..256)", r));
    if (p.loaderThreads() * p.loaderRegs + 128 * p.consumers * p.consumerRegs > p.threads * p.launchRegs)
      issue(fmt::format("setmaxnreg: {} x {} + {} x 128 x {} registers exceed the {} the block holds",
                        p.loaderThreads(), p.loaderRegs, p.consumers, p.consumerRegs, p.threads * p.launchRegs));
  }
  if (!p.wholeTriangle) {
    if (const std::string why = p.atom().nProblem(); !why.empty()) issue(why);
  } else {
    if (static_cast<int>(p.pieces.size()) != p.consumers) issue("the whole triangle: pieces for every consumer");
    for (const auto& pieces : p.pieces)
      for (const PipePiece& pc : pieces)
        if (const std::string why = p.pieceAtom(pc).nProblem(); !why.empty() || pc.col0 % 8 || pc.width % 8)
          issue(fmt::format("the whole triangle: a piece of {} column inputs from {}: {}", pc.width, pc.col0,
                            why.empty() ? "not whole 8-input groups" : why));
  }

  // 2. The bulk copies of a full stage and of a partial one (edge tile, last stage): disjoint, inside the side's raw
  //    region, each sample where rawOffset() says, and every byte the transform reads brought by a copy.
  long long copiedBytes = 0;
  for (int validRows : {p.rows, std::max(p.P, p.rows / 2 + (p.P == 2 ? 0 : 1))})
    for (int validTimes : {p.ts, p.ts / 2}) {
      std::vector<signed char> owner(static_cast<std::size_t>(p.rawSideBytes), 0);
      for (const Copy& c : stageCopies(p, validRows, validTimes)) {
        if (c.dst % 16 || c.bytes % 16 || c.dst < 0 || c.dst + c.bytes > p.rawSideBytes) {
          issue(fmt::format("a bulk copy of {} B at raw offset {} is misaligned or leaves the {} B side region",
                            c.bytes, c.dst, p.rawSideBytes));
          return;
        }
        for (long long i = 0; i < c.bytes; ++i) {
          if (owner[static_cast<std::size_t>(c.dst + i)]++) {
            issue(fmt::format("raw byte {} is written by two bulk copies", c.dst + i));
            return;
          }
          int row = 0, time = 0;
          c.sample(i, row, time);
          if (p.rawOffset(row, time) != c.dst + i / p.eb * p.eb) {
            issue(fmt::format("row {} time {} lands at raw {}, the transform reads it at {}", row, time, c.dst + i,
                              p.rawOffset(row, time)));
            return;
          }
        }
        copiedBytes += c.bytes;
      }
      // The transform's reads of valid rows and times (every unit of a side, whoever transforms it).
      for (int u = 0; u < (p.rows / 8) * static_cast<int>(p.units.size()); ++u) {
        const int L = u % static_cast<int>(p.units.size()), G = u / static_cast<int>(p.units.size());
        const PipeUnit& unit = p.units[static_cast<std::size_t>(L)];
        if (unit.chunk * p.spc >= validTimes) continue;  // zero-filled past the call
        for (int r : unit.reads) {
          const long long at = p.rawGroupBase(G) + r;
          const int row = 8 * G + unit.outs[0].first;
          if (row >= validRows) continue;
          for (int b = 0; b < 16; ++b)
            if (at + b >= p.rawSideBytes || !owner[static_cast<std::size_t>(at + b)]) {
              issue(fmt::format("the transform reads raw byte {} (row {}) that no copy of the stage brings", at + b,
                                row));
              return;
            }
        }
      }
    }

  // 3. The transform: every operand chunk of A and of B written once, from the raw chunk(s) of the same input and
  //    samples; every 16-byte access of a quarter warp in distinct bank groups. A is transformed by aThreads() threads
  //    (the loader's, or the consumers' with the shared transform), B by the loader's (split: and the consumers').
  {
    long long accesses = 0;
    int worst = 1;
    const int n = static_cast<int>(p.units.size());
    for (int side = p.wholeTriangle ? 1 : 0; side < 2; ++side) {  // the whole triangle has no A region
      std::map<std::pair<int, int>, int> written;                 // (row, chunk) -> count
      for (const CorrPipe::Assign& as : p.transformAssign(side == 1))
        for (int tid = 0; tid < as.threads; ++tid)
          for (int j = 0; j < as.units; ++j) {
            const int u = tid + as.threads * j, G = as.firstGroup + u / n;
            const PipeUnit& unit = p.units[static_cast<std::size_t>(u % n)];
            for (std::size_t w = 0; w < unit.outs.size(); ++w) {
              const int row = 8 * G + unit.outs[w].first, chunk = unit.outs[w].second;
              ++written[{row, chunk}];
              // The raw chunk that holds the first samples of this row's chunk (ci4 rows: 16 samples -> chunks 2 g, 2 g
              // + 1; PolRuns: the receiver's (time, pol) run).
              const bool pairOfChunks = p.type == SampleType::CI4 && p.kind != RawKind::PolRuns;
              const long long wantRead = pairOfChunks ? p.rawOffset(row, (chunk - chunk % 2) * p.spc)
                                                      : p.rawOffset(p.kind == RawKind::PolRuns ? row - row % 2 : row,
                                                                    chunk * p.spc);
              const long long got = p.rawGroupBase(G) + unit.reads[0];
              if (got != wantRead) {
                issue(fmt::format("transform: operand row {} chunk {} is made from raw {}, its samples are at {}", row,
                                  chunk, got, wantRead));
                return;
              }
              if (p.kind == RawKind::PolRuns && (row % 2 == 1) != (w == 0 ? unit.swapOut : !unit.swapOut)) {
                issue(fmt::format("transform: row {} written with the other polarization's words", row));
                return;
              }
            }
          }
      for (int row = 0; row < p.rows; ++row)
        for (int c = 0; c < 4; ++c)
          if (written[{row, c}] != 1) {
            issue(fmt::format("transform: operand row {} chunk {} of {} written {} times", row, c, side ? "B" : "A",
                              written[{row, c}]));
            return;
          }
      // Quarter warps: per warp and instruction (unit j's read i / write w; A, or B and B's conj_perm rows).
      for (const CorrPipe::Assign& as : p.transformAssign(side == 1))
        for (int warp = 0; warp < as.threads / 32; ++warp)
          for (int j = 0; j < as.units; ++j) {
            const std::size_t reads = p.units[0].reads.size(), writes = p.units[0].outs.size();
            for (std::size_t ins = 0; ins < reads + (side ? 2 : 1) * writes; ++ins)
              for (int quarter = 0; quarter < 4; ++quarter) {
                unsigned a[8];
                for (int t = 0; t < 8; ++t) {
                  const int tid = 32 * warp + 8 * quarter + t, u = tid + as.threads * j, G = as.firstGroup + u / n;
                  const PipeUnit& unit = p.units[static_cast<std::size_t>(u % n)];
                  if (ins < reads) {
                    a[t] = static_cast<unsigned>(p.rawGroupBase(G) + unit.reads[ins]);
                  } else {
                    const std::size_t w = (ins - reads) % writes, h = (ins - reads) / writes;
                    const int row = 8 * G + unit.outs[w].first, kb = 16 * unit.outs[w].second;
                    a[t] = static_cast<unsigned>(side == 0 ? p.aOffset(row, kb)
                                                           : p.aBytes + p.bOffset(row, static_cast<int>(h), kb));
                  }
                }
                worst = std::max(worst, sharedWavefronts16(a));
                ++accesses;
              }
          }
    }
    if (worst > 1)
      issue(fmt::format("transform: a quarter warp's 16-byte access takes {} wavefronts (bank conflicts)", worst));
    else
      proved.push_back(
          fmt::format("pipeline transform ({}, {}{}): {} operand chunks of A and B each written once from the raw "
                      "samples of their input; {} "
                      "quarter-warp 16-byte accesses (raw reads, A / B / conj_perm writes, {}) each one wavefront",
                      rawKindName(p.kind), sampleTypeName(p.type),
                      p.bConsumerGroups   ? ", A and B's last groups by the consumers"
                      : p.sharedTransform ? ", A by the consumers"
                                          : "",
                      2 * p.rows * 4, accesses, wgmmaSwizzleName(p.swizzle)));
  }

  // 4. Every operand byte of every wgmma through its descriptor: the consumers' A (off-diagonal: the A region;
  //    diagonal: B's sample rows), B (column 16 q + 8 h + m = part h of input 8 q + m), both k-steps, every slot.
  //    The whole triangle: each piece's A and B through the descriptors the kernel computes.
  if (p.wholeTriangle) {
    if (!checkTrianglePieces(p, issues, proved)) return;
  } else {
    const unsigned base = 1024;  // any 1024-aligned window address: the swizzle depends on the low 10 bits only
    long long reads = 0;
    for (int slot = 0; slot < p.opStages; ++slot)
      for (int ks = 0; ks < p.steps; ++ks) {
        const unsigned slotBase = base + static_cast<unsigned>(slot * p.opSlotBytes);
        for (int diag = 0; diag < 2; ++diag)
          for (int g = 0; g < p.consumers; ++g) {
            const std::string why = checkWgmmaOperand(
                p.descA(base, slot, g, ks, diag == 1).encode(), 64, 32,
                [&](int row, int kb) -> long long {
                  const int n = 64 * g + row, k = 32 * ks + kb;
                  return diag ? slotBase + p.aBytes + p.bOffset(n, 0, k) : slotBase + p.aOffset(n, k);
                },
                &reads);
            if (!why.empty()) {
              issue(fmt::format("A of consumer warpgroup {} ({} tile), slot {}, k-step {}: {}", g,
                                diag ? "diagonal" : "off-diagonal", slot, ks, why));
              return;
            }
          }
        if (p.consumers ==
            2) {  // the diagonal tile's second warpgroup: B's second half (columns of inputs rows / 2 ..)
          const std::string why = checkWgmmaOperand(
              p.descBHalf(base, slot, ks).encode(), p.rows, 32,
              [&](int col, int kb) -> long long {
                return slotBase + p.aBytes +
                       p.bOffset(p.rows / 2 + 8 * (col / 16) + col % 8, (col / 8) % 2, 32 * ks + kb);
              },
              &reads);
          if (!why.empty()) {
            issue(fmt::format("B's second half (diagonal tile), slot {}, k-step {}: {}", slot, ks, why));
            return;
          }
        }
        const std::string why = checkWgmmaOperand(
            p.descB(base, slot, ks).encode(), 2 * p.rows, 32,
            [&](int col, int kb) -> long long {
              return slotBase + p.aBytes + p.bOffset(8 * (col / 16) + col % 8, (col / 8) % 2, 32 * ks + kb);
            },
            &reads);
        if (!why.empty()) {
          issue(fmt::format("B, slot {}, k-step {}: {}", slot, ks, why));
          return;
        }
      }
    proved.push_back(
        fmt::format("pipeline wgmma {} ({}): {} operand bytes of {} slots x {} k-steps (A of {} warpgroup(s) on "
                    "off-diagonal and diagonal tiles, B) "
                    "read through their descriptors are the bytes staged for them",
                    p.atom().ptx(), wgmmaSwizzleName(p.swizzle), reads, p.opStages, p.steps, p.consumers));
  }

  // 5. The triangle store on this tiling: accumulator (thread, register) of consumer g -> row 64 g + row, column input
  //    8 q + m with (Re, Im) in registers i, i + 4 (D columns 16 q + m, 16 q + 8 + m); predicate r1 <= r2 < R.
  //    The whole triangle: piece (strip, col0) -> row 64 strip + row, column input col0 + 8 q + m.
  {
    CorrelatorSpec small = s;
    if (s.visibilitiesPerChannel() * 2 > (1LL << 24)) small.receivers = 3 * p.rows / s.polarizations + 1;
    const long long N = small.inputs(), P = s.polarizations;
    const int tilesPerSide = static_cast<int>((N + p.rows - 1) / p.rows);
    std::vector<unsigned char> writes(static_cast<std::size_t>(small.visibilitiesPerChannel() * 2), 0);
    for (long long tile = 0; tile < static_cast<long long>(tilesPerSide) * (tilesPerSide + 1) / 2; ++tile) {
      int ti = 0, tj = 0;
      tileCoords(tile, ti, tj);
      if (p.wholeTriangle)
        for (const auto& pieces : p.pieces)
          for (const PipePiece& pc : pieces)
            for (int t = 0; t < 128; ++t)
              for (int i = 0; i < p.pieceAtom(pc).accRegs(); ++i) {
                int row = 0, col = 0;
                wgmmaAccumulatorCoord(t, i, row, col);
                const long long gi = 64LL * pc.strip + row, gj = pc.col0 + 8 * (col / 16) + col % 8;
                const long long r1 = gi / P, r2 = gj / P;
                if (!(r1 <= r2 && gj < N)) continue;
                const long long pp = s.polOrder == "r1_r2" ? gi % P : gj % P,
                                qq = s.polOrder == "r1_r2" ? gj % P : gi % P;
                ++writes[static_cast<std::size_t>(((baselineIndex(r1, r2) * P + pp) * P + qq) * 2 + (col / 8) % 2)];
              }
      for (int g = 0; g < (p.wholeTriangle ? 0 : p.consumers); ++g)
        for (int t = 0; t < 128; ++t)
          for (int i = 0; i < p.atom().accRegs(); ++i) {
            // The diagonal tile's second warpgroup (two consumers): an m64 x rows wgmma on the second half of the
            // columns.
            const bool half = p.consumers == 2 && ti == tj && g == 1;
            if (half && i >= p.atom().accRegs() / 2) continue;
            int row = 0, col = 0;
            wgmmaAccumulatorCoord(t, i, row, col);
            const long long gi = static_cast<long long>(ti) * p.rows + 64 * g + row,
                            gj = static_cast<long long>(tj) * p.rows + (half ? p.rows / 2 : 0) + 8 * (col / 16) +
                                 col % 8;
            const int reim = (col / 8) % 2;
            const long long r1 = gi / P, r2 = gj / P;
            if (!(r1 <= r2 && gj < N)) continue;
            const long long pp = s.polOrder == "r1_r2" ? gi % P : gj % P, qq = s.polOrder == "r1_r2" ? gj % P : gi % P;
            ++writes[static_cast<std::size_t>(((baselineIndex(r1, r2) * P + pp) * P + qq) * 2 + reim)];
          }
    }
    long long missing = 0, twice = 0;
    for (auto w : writes) missing += w == 0, twice += w > 1;
    if (missing || twice)
      issue(fmt::format("the triangle store leaves {} components unwritten and writes {} twice", missing, twice));
    else
      proved.push_back(
          fmt::format("pipeline store: {} x {} tiles, {} consumer warpgroup(s) of m64n{} accumulators: all {} "
                      "components of a channel written once{}",
                      p.rows, p.rows, p.consumers, 2 * p.rows, writes.size(),
                      small.receivers != s.receivers ? fmt::format(" (checked with {} receivers)", small.receivers)
                                                     : ""));
  }
  if (issues.size() == before)
    proved.push_back(fmt::format(
        "pipeline budgets: {} B shared ({} operand slots of {} B, {} raw slots of {} B, {} mbarriers), {} blocks per "
        "SM, {} threads at "
        "{} registers{}; bulk copies of full and partial stages ({} B checked) disjoint and bring every byte read",
        p.sharedBytes, p.opStages, p.opSlotBytes, p.rawStages, p.rawSlotBytes, 2 * (p.opStages + p.rawStages),
        p.blocksPerSm, p.threads, p.launchRegs,
        p.loaderRegs ? fmt::format(" (setmaxnreg: loader {}, consumers {})", p.loaderRegs, p.consumerRegs) : "",
        copiedBytes));
}

}  // namespace warpforge
