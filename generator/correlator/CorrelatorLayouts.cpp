#include "generator/correlator/CorrelatorLayouts.h"

#include "generator/complexmma/ComplexMma.h"
#include "generator/layout/Wgmma.h"
#include "generator/verify/MmaCheck.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

namespace warpforge {

namespace {

Layout corrLayout(const std::string& text) { return cmma::layoutText(text); }

// Row bits of the r1 side (row = pol + P * receiver) and column bits of the r2 side.
std::vector<std::string> sideBits(int side, int polarizations, int count) {
  std::vector<std::string> out;
  if (polarizations == 2) out.push_back(fmt::format("pol{}", side));
  for (int i = 0; static_cast<int>(out.size()) < count; ++i) out.push_back(fmt::format("rcv{}_{}", side, i));
  return out;
}

std::string fill(std::string text, const std::vector<std::string>& names, char tag) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string key = fmt::format("{{{}{}}}", tag, i);
    for (auto p = text.find(key); p != std::string::npos; p = text.find(key)) text.replace(p, key.size(), names[i]);
  }
  return text;
}

}  // namespace

CorrelatorMma correlatorMma(SampleType type, int polarizations) {
  CorrelatorMma m;
  const auto rows = sideBits(1, polarizations, 4);  // 16 rows of A and C
  const auto cols = sideBits(2, polarizations, 2);  // 4 inputs (8 columns with ReIm_out) of B and C
  // Hand-written from the PTX ISA's fragment figures (groupID = lane >> 2 holds the row of A and C and
  // the column of B; threadID_in_group = lane & 3 the k position); correlatorConsistency() checks them
  // against FragmentTable, which tests/FragmentTableTest.cpp re-derives from the PTX formulas.
  const std::string c = "t0 t1 t2 t3 t4 <-> {c0} {c1} {r0} {r1} {r2}, r0 r1 <-> ReIm_out {r3}";
  if (type == SampleType::CF16) {
    m.shape = findMmaShape("m16n8k16", "f16");
    m.a = corrLayout(
        fill(fill("b0 <-> ReIm, t0 t1 t2 t3 t4 <-> time0 time1 {r0} {r1} {r2}, r0 r1 <-> {r3} time2", rows, 'r'), cols,
             'c'));
    m.b = corrLayout(
        fill("b0 <-> ReIm_in, t0 t1 t2 t3 t4 <-> time0 time1 ReIm_out {c0} {c1}, r0 <-> time2", cols, 'c'));
    m.timesPerStep = 8;
    m.timesPerWord = 1;
  } else {
    m.shape = findMmaShape("m16n8k32", "s8");
    m.a = corrLayout(
        fill("b0 b1 <-> ReIm time0, t0 t1 t2 t3 t4 <-> time1 time2 {r0} {r1} {r2}, r0 r1 <-> {r3} time3", rows, 'r'));
    m.b = corrLayout(
        fill("b0 b1 <-> ReIm_in time0, t0 t1 t2 t3 t4 <-> time1 time2 ReIm_out {c0} {c1}, r0 <-> time3", cols, 'c'));
    m.timesPerStep = 16;
    m.timesPerWord = 2;
  }
  m.c = corrLayout(fill(fill(c, rows, 'r'), cols, 'c'));
  m.aAddr = ldmatrixAddressLayout(m.a, "");
  m.bAddr = ldmatrixAddressLayout(m.b, sideBits(2, polarizations, 3)[2]);
  // The f16 shape in FragmentTable has an f16 accumulator; the kernel uses the f32 one, whose C fragment
  // is the s32 one's (c0 c1 on columns 2 tig, 2 tig + 1): r0 <-> k0, r1 <-> i3.
  return m;
}

Layout ldmatrixAddressLayout(const Layout& operand, const std::string& extraReg) {
  std::vector<std::string> names;
  for (int t = 2; t < 5; ++t) names.push_back(operand.logicalAt({PhysKind::T, t}).value_or("?"));
  for (int r = 0; r < 2; ++r) {
    auto n = operand.logicalAt({PhysKind::R, r});
    names.push_back(n ? *n : extraReg);
  }
  return corrLayout(fmt::format("t0 t1 t2 t3 t4 <-> {} {} {} {} {}", names[0], names[1], names[2], names[3], names[4]));
}

void checkLdmatrix(const Layout& operand, const Layout& addr, const std::vector<std::string>& words,
                   const std::string& extraReg, const std::string& path, std::vector<ConsistencyIssue>& issues) {
  auto value = [](const Layout& l, const std::string& name, int lane, int reg) {
    auto ph = l.physOf(name);
    if (!ph) return -1;
    return ph->kind == PhysKind::T ? (lane >> ph->index) & 1 : ph->kind == PhysKind::R ? (reg >> ph->index) & 1 : -1;
  };
  // The logical bits a word of shared memory is addressed by: the address layout's and the two in-row word bits.
  std::vector<std::string> names;
  for (const auto& e : addr.entries()) names.push_back(e.logical);
  names.push_back(words[0]);
  names.push_back(words[1]);
  for (int lane = 0; lane < 32; ++lane)
    for (int reg = 0; reg < 4; ++reg) {
      const int src = 8 * reg +
                      (lane >>
                       2);  // PTX: register `reg` of `lane` is row lane / 4 of matrix reg, bytes 4 (lane % 4) ..
      for (const auto& n : names) {
        const int got = n == words[0] ? lane & 1 : n == words[1] ? (lane >> 1) & 1 : value(addr, n, src, 0);
        // What the operand holds there: register bit 1 is `extraReg` (the second fragment) where it has one register
        // bit.
        int want = value(operand, n, lane, reg & 1);
        if (operand.count(PhysKind::R) == 2) want = value(operand, n, lane, reg);
        else if (n == extraReg) want = reg >> 1;
        if (want < 0 || got != want) {
          issues.push_back(
              {path, fmt::format("ldmatrix: lane {} register {} receives {} = {} where the operand holds {}", lane, reg,
                                 n, got, want < 0 ? std::string("no such bit") : std::to_string(want))});
          return;
        }
      }
    }
  // Every operand bit on a lane or register (beyond the bytes of a word) must be addressed.
  for (const auto& e : operand.entries())
    if (e.phys.kind != PhysKind::B && std::find(names.begin(), names.end(), e.logical) == names.end())
      issues.push_back(
          {path, fmt::format("ldmatrix: the operand's bit {} ({}) is not addressed", e.logical, e.phys.str())});
}

CorrelatorTiling correlatorTiling(const CorrelatorSpec& s, bool wgmma) {
  CorrelatorTiling t;
  t.rowsPerBlock = s.tuning.receiversPerBlock * s.polarizations;
  t.wgmma = wgmma;
  if (wgmma) {
    t.warpRows = 16;
    t.warpCols = t.rowsPerBlock;
    t.warpsI = t.rowsPerBlock / 16;  // rowsPerBlock / 64 warpgroups of 4 warps
    t.warpsJ = 1;
  } else {
    t.warpsI = t.warpsJ = t.rowsPerBlock / 32;
  }
  t.tilesPerSide = static_cast<int>((s.inputs() + t.rowsPerBlock - 1) / t.rowsPerBlock);
  return t;
}

WgmmaStage wgmmaStage(const CorrelatorSpec& s, int rowsPerBlock) {
  WgmmaStage w;
  w.kBytes = s.tuning.timesPerStage * 2 *
             (s.type == SampleType::CF16 ? 2 : 1);  // staged samples are 8-bit (ci4 widened) or f16 pairs
  w.sbo = w.kBytes / 16 * w.lbo;
  w.aBytes = rowsPerBlock * w.kBytes;
  w.bBytes = 2 * rowsPerBlock * w.kBytes;
  w.bufferBytes = w.aBytes + w.bBytes;
  return w;
}

bool correlatorUsesWgmma(const CorrelatorSpec& s, const std::string& arch) {
  if (arch != "sm_90" && arch != "sm_90a") return false;
  // auto: 8-bit and f16 samples on 128-row tiles, and on 64-row tiles for calls of 1024 samples or more. H100
  // (bench, same runs): R = 576 8-bit 128-row 1.03x and 1.04x of mma.sync, f16 1.13x; 64-row
  // tiles: R = 64 1.04x, R = 80 1.07x, R = 2048 1.05x, f16 R = 80 1.30x; short calls (MeerKAT, T = 256) 0.85x;
  // 4-bit 0.97x twice.
  const int rows = s.tuning.receiversPerBlock * s.polarizations;
  const bool autoWgmma = s.type != SampleType::CI4 && (rows == 128 || (rows == 64 && s.samples >= 1024));
  if (s.tuning.mma == "mma_sync" || (s.tuning.mma == "auto" && !autoWgmma)) return false;
  if (rows != 64 && rows != 128) return false;
  return 2 * wgmmaStage(s, rows).bufferBytes <= kWgmmaMaxShared;
}

void checkWgmmaDescriptors(const CorrelatorSpec& s, int rows, std::vector<ConsistencyIssue>& issues,
                           std::vector<std::string>& proved) {
  const WgmmaStage w = wgmmaStage(s, rows);
  const std::size_t before = issues.size();
  auto issue = [&](const std::string& m) { issues.push_back({"/tuning", "wgmma shared memory: " + m}); };
  const long long total = 2LL * w.bufferBytes;
  if (total > kWgmmaMaxShared) issue(fmt::format("{} B exceed {} B", total, kWgmmaMaxShared));
  // Descriptor fields: 14 bits of (value >> 4); start addresses are below 2^18 (the shared window of sm_90 is 228 KiB).
  if (w.lbo % 16 || w.sbo % 16 || (w.lbo >> 4) >= (1 << 14) || (w.sbo >> 4) >= (1 << 14) || total > (1 << 18))
    issue(fmt::format("descriptor fields do not fit: lbo {}, sbo {}, {} B", w.lbo, w.sbo, total));
  // The staging's byte map: (buffer, region, row, k byte) -> offset, each offset at most once, inside the buffer.
  std::vector<unsigned char> used(static_cast<std::size_t>(total), 0);
  long long stored = 0;
  for (int b = 0; b < 2; ++b)
    for (int region = 0; region < 2; ++region)
      for (int r = 0; r < (region ? 2 * rows : rows); ++r)
        for (int kb = 0; kb < w.kBytes; ++kb) {
          const long long o = static_cast<long long>(b) * w.bufferBytes + (region ? w.aBytes : 0) + w.offset(r, kb);
          if (o < 0 || o >= total || (region == 0 && w.offset(r, kb) >= w.aBytes) ||
              (region == 1 && w.offset(r, kb) >= w.bBytes)) {
            issue(fmt::format("row {} byte {} of region {} lands outside it (offset {})", r, kb, region, o));
            return;
          }
          if (used[static_cast<std::size_t>(o)]++) {
            issue(fmt::format("offset {} is stored twice", o));
            return;
          }
          ++stored;
        }
  // What wgmma reads (the common descriptor check, generator/verify/MmaCheck.h), with the emitter's descriptors: A of
  // warpgroup g at k-step ks starts at row 64 g, k byte bytesPerStep ks of the A region; B (2 rows x columns) at k
  // byte bytesPerStep ks of the B region. Each must find the staged byte it means.
  long long reads = 0;
  const int steps = w.kBytes / w.bytesPerStep;
  for (int b = 0; b < 2; ++b)
    for (int ks = 0; ks < steps; ++ks) {
      const long long buffer = static_cast<long long>(b) * w.bufferBytes, k0 = w.bytesPerStep * ks;
      for (int g = 0; g < rows / 64; ++g) {
        const std::string why = checkWgmmaOperand(
            w.descA(buffer, g, ks).encode(), 64, w.bytesPerStep,
            [&](int m, int kb) { return buffer + w.offset(64 * g + m, k0 + kb); }, &reads);
        if (!why.empty()) {
          issue(fmt::format("A of warpgroup {}, k-step {}: {}", g, ks, why));
          return;
        }
      }
      const std::string why = checkWgmmaOperand(
          w.descB(buffer, ks).encode(), 2 * rows, w.bytesPerStep,
          [&](int n, int kb) { return buffer + w.aBytes + w.offset(n, k0 + kb); }, &reads);
      if (!why.empty()) {
        issue(fmt::format("B, k-step {}: {}", ks, why));
        return;
      }
    }
  if (issues.size() == before)
    proved.push_back(
        fmt::format("wgmma ({} rows): {} staged bytes disjoint in 2 x {} B; {} descriptor reads (lbo {}, sbo {}) find "
                    "the byte staged for them",
                    rows, stored, w.bufferBytes, reads, w.lbo, w.sbo));
}

void tileCoords(long long tile, int& ti, int& tj) {
  long long r1, r2;
  baselineReceivers(tile, r1, r2);
  ti = static_cast<int>(r1);
  tj = static_cast<int>(r2);
}

std::uint32_t conjPermModel(std::uint32_t w, SampleType type) {
  return cmma::conjPermModel(w, type == SampleType::CF16);
}

ConsistencyReport correlatorConsistency(const CorrelatorSpec& s, const CorrelatorMma* mma) {
  ConsistencyReport rep;
  auto issue = [&](const std::string& path, const std::string& msg) { rep.issues.push_back({path, msg}); };
  const CorrelatorMma m = mma ? *mma : correlatorMma(s.type, s.polarizations);
  // 1. The complex MMA as a layout program: A (samples of the r1 side), B (the expanded samples of the r2 side: the
  //    identity on ReIm, ReIm_in summed against A's ReIm, ReIm_out a column) and C (f32 / s32 accumulators) read
  //    through the instruction's atom by the common check; registers are passed to the instruction by position.
  const MmaShape& atom = mmaAccumulatorShape(*m.shape);
  const MmaCheck mc = checkMmaOperands(atom, {"A", &m.a}, {"B", &m.b, /*passThrough=*/true}, {"C", &m.c},
                                       {/*fixedRegisters=*/true});
  for (const auto& p : mc.problems) issue("/mma", p);
  // What the correlator needs of the agreed bits: the summed (j) bits are ReIm and the time bits of one step, none of
  // them reaches C, and the visibility's (re, im) pair is column bit k0 (c0, c1 of one thread).
  const auto A = matrixBits(m.a, atom.a), B = matrixBits(m.b, atom.b), C = matrixBits(m.c, atom.c);
  std::set<std::string> want{"ReIm"}, summed;
  for (int t = 0; (1 << t) < m.timesPerStep; ++t) want.insert(fmt::format("time{}", t));
  if (A)
    for (const auto& [bit, lg] : A->pairs())
      if (bit[0] == 'j') summed.insert(lg);
  if (summed != want) issue("/mma/A", "the summed bits are not exactly ReIm and the time bits of one step");
  if (C)
    for (const auto& [bit, lg] : C->pairs())
      if (want.count(lg) || lg == "ReIm_in") issue("/mma/C", fmt::format("summed bit {} appears in C", lg));
  if (!B || B->apply("k0") != "ReIm_out")
    issue("/mma/B", "ReIm_out must be column bit k0 (re and im of a visibility in c0, c1)");
  rep.proved.push_back(
      fmt::format("{} {}: A, B, C layouts agree with the fragment tables; summed bits = ReIm + {} time bits",
                  atom.shape, atom.abType, want.size() - 1));

  // 1b. The fragment loads: ldmatrix .x4 through the address layouts the emitter uses, from rows of staged words in
  // time order.
  {
    const std::size_t before = rep.issues.size();
    const int inWord = m.timesPerWord == 2 ? 1 : 0;
    const auto words = cmma::bitNames("time", inWord, 3);
    checkLdmatrix(m.a, m.aAddr, words, "", "/mma/A", rep.issues);
    checkLdmatrix(m.b, m.bAddr, words, sideBits(2, s.polarizations, 3)[2], "/mma/B", rep.issues);
    if (rep.issues.size() == before)
      rep.proved.push_back(fmt::format("ldmatrix.x4: A ({}) and B pairs ({}) load every fragment register's word",
                                       m.aAddr.str(), m.bAddr.str()));
  }

  // 2. The complex expansion: sum over ReIm_in of A[ReIm] B[ReIm_in][ReIm_out] = (s1 conj s2)[ReIm_out],
  //    B's ReIm_out = 1 column being conj_perm of the sample word; every byte pattern of the imaginary parts.
  long long expansionCases = 0;
  if (s.type == SampleType::CF16) {
    for (std::uint32_t w : {0x3c00bc00u, 0x00000000u, 0x80007bffu, 0xfbff0001u}) {
      const std::uint32_t p = conjPermModel(w, s.type);
      if ((p & 0xffff) != ((w >> 16) ^ 0x8000) || (p >> 16) != (w & 0xffff))
        issue("/mma/B", fmt::format("conj_perm({:#x}) = {:#x}", w, p));
      ++expansionCases;
    }
  } else {
    for (int im0 = -127; im0 <= 127; ++im0)
      for (int im1 = -127; im1 <= 127; im1 += 3)
        for (int re : {-127, -1, 0, 1, 127}) {
          const std::uint32_t w = (re & 0xff) | (im0 & 0xff) << 8 | ((-re) & 0xff) << 16 | (im1 & 0xff) << 24;
          const std::uint32_t p = conjPermModel(w, s.type);
          auto sb = [](std::uint32_t x, int i) {
            return static_cast<int>(static_cast<signed char>((x >> (8 * i)) & 0xff));
          };
          // Column ReIm_out = 1 of sample pair (re, im) must be (-im, re): then for a1 + i b1 and a2 + i b2,
          // a1 * (-b2) + b1 * a2 = Im(s1 conj s2) and a1 a2 + b1 b2 = Re(s1 conj s2) (column ReIm_out = 0, the plain
          // word).
          if (sb(p, 0) != -im0 || sb(p, 1) != re || sb(p, 2) != -im1 || sb(p, 3) != -re) {
            issue("/mma/B", fmt::format("conj_perm({:#010x}) = {:#010x}, expected (-im0, re0, -im1, re1)", w, p));
            break;
          }
          ++expansionCases;
        }
  }
  rep.proved.push_back(
      fmt::format("conj_perm expansion of B: {} sample words give (-im, re) exactly (values clamped to +-{})",
                  expansionCases, s.integer() ? s.maxComponent() : 65504));

  // 3. The triangle store: blocks (triangle tiles), warps (skipped below the diagonal), fragments and
  //    registers (C layout) with the store predicate r1 <= r2 < R write each (bl, p, q, ReIm) once.
  // The store check enumerates every component of one channel; beyond 2^24 of them it runs on the same
  // tiling with fewer receivers (three tiles per side and one receiver more: full, partial and diagonal tiles).
  CorrelatorSpec small = s;
  if (s.visibilitiesPerChannel() * 2 > (1LL << 24)) small.receivers = 3 * s.tuning.receiversPerBlock + 1;
  const int P = s.polarizations;
  const long long N = small.inputs();
  auto bitValue = [](const Layout& l, const std::string& name, int lane, int reg) {
    auto ph = l.physOf(name);
    if (!ph) return 0;
    return ph->kind == PhysKind::T ? (lane >> ph->index) & 1 : ph->kind == PhysKind::R ? (reg >> ph->index) & 1 : 0;
  };
  const auto rowNames = sideBits(1, P, 4), colNames = sideBits(2, P, 2);
  // The C fragment's (row, column, re/im) of each (lane, register), read from the layout once: the same for every
  // tile, warp and fragment below.
  struct CElement {
    long long row = 0, col = 0;
    int reim = 0;
  };
  std::array<std::array<CElement, 4>, 32> cElement{};
  for (int lane = 0; lane < 32; ++lane)
    for (int reg = 0; reg < 4; ++reg) {
      CElement& c = cElement[lane][reg];
      for (std::size_t k = 0; k < rowNames.size(); ++k)
        c.row |= static_cast<long long>(bitValue(m.c, rowNames[k], lane, reg)) << k;
      for (std::size_t k = 0; k < colNames.size(); ++k)
        c.col |= static_cast<long long>(bitValue(m.c, colNames[k], lane, reg)) << k;
      c.reim = bitValue(m.c, "ReIm_out", lane, reg);
    }
  const int rowsPerBlock = s.tuning.receiversPerBlock * P;
  std::vector<bool> paths{false};
  if (correlatorUsesWgmma(s, "sm_90")) paths.push_back(true);  // the tiling emitted for sm_90 (wgmma, sm_90a target)
  for (bool wg : paths) {
    const CorrelatorTiling t = correlatorTiling(small, wg);
    std::vector<unsigned char> writes(static_cast<std::size_t>(small.visibilitiesPerChannel() * 2), 0);
    long long checked = 0;
    for (long long tile = 0; tile < t.tiles(); ++tile) {
      int ti, tj;
      tileCoords(tile, ti, tj);
      if (ti > tj || tj >= t.tilesPerSide) issue("/tiles", fmt::format("tile {} decodes to ({}, {})", tile, ti, tj));
      for (int wi = 0; wi < t.warpsI; ++wi)
        for (int wj = 0; wj < t.warpsJ; ++wj) {
          if (t.skipsWarp(ti == tj, wi, wj))
            continue;  // below the diagonal: every row receiver exceeds every column receiver
          for (int fa = 0; fa < t.warpRows / 16; ++fa)
            for (int fb = 0; fb < t.warpCols / 4; ++fb)
              for (int lane = 0; lane < 32; ++lane)
                for (int reg = 0; reg < 4; ++reg) {
                  const long long row = cElement[lane][reg].row, col = cElement[lane][reg].col;
                  const int reim = cElement[lane][reg].reim;
                  const long long i = static_cast<long long>(ti) * t.rowsPerBlock + wi * t.warpRows + fa * 16 + row;
                  const long long j = static_cast<long long>(tj) * t.rowsPerBlock + wj * t.warpCols + fb * 4 + col;
                  const long long r1 = i / P, r2 = j / P;
                  if (!(r1 <= r2 && j < N)) continue;  // the kernel's store predicate
                  const long long p = i % P, q = j % P;
                  const long long pp = s.polOrder == "r1_r2" ? p : q, qq = s.polOrder == "r1_r2" ? q : p;
                  const long long e = ((baselineIndex(r1, r2) * P + pp) * P + qq) * 2 + reim;
                  ++writes[static_cast<std::size_t>(e)];
                  ++checked;
                }
        }
    }
    rep.storesChecked += checked;
    long long missing = 0, twice = 0;
    for (auto w : writes) missing += w == 0, twice += w > 1;
    if (missing || twice)
      issue("/tuning", fmt::format("the triangle store ({}) leaves {} visibility components unwritten and writes {} "
                                   "more than once",
                                   wg ? "wgmma" : "mma.sync", missing, twice));
    rep.proved.push_back(fmt::format(
        "triangle store ({}): {} tiles of {} x {} rows, {} warps of {} x {} each: all {} components of a channel "
        "written exactly once{}",
        wg ? "wgmma: accumulators of warp w = the m16n8 C layout at rows 16 w, one fragment per 8 columns" : "mma.sync",
        t.tiles(), t.rowsPerBlock, t.rowsPerBlock, t.warpsI * t.warpsJ, t.warpRows, t.warpCols, writes.size(),
        small.receivers != s.receivers ? fmt::format(" (checked with {} receivers, same tiling)", small.receivers)
                                       : ""));
    if (wg) checkWgmmaDescriptors(s, rowsPerBlock, rep.issues, rep.proved);
  }
  return rep;
}

}  // namespace warpforge
