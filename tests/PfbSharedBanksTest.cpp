// Shared-memory bank conflicts of the pfb kernels, counted on the CPU for every access pattern of the specs in specs/:
// the FIR's stores (one float per thread), the column and row FFT passes' loads and stores (float2), the post kernel's
// row loads and split reads (float2), the ci8 staging's stores (one 16-bit value per thread) and its 32-byte run reads
// (4-byte words), the phase tables' writes and reads (float2). The index formulas mirror the emitted code
// (PfbFirEmitter.cpp, PfbFftCode.cpp emitPass, PfbPostEmitter.cpp); the slot function is the generator's own
// (pfbSwizzled, pfbPadded). Model: a warp access is served in phases (32 lanes for accesses up to 4 bytes, 16 for 8
// bytes); a phase costs as many wavefronts as the most distinct 4-byte words any one bank holds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "TestUtil.h"
#include "generator/pfb/PfbGeometry.h"
#include "generator/pfb/PfbSpec.h"

using namespace warpforge;

namespace {

// Byte addresses of one warp access (-1: lane inactive), `bytes` per lane.
int waysOf(const std::vector<long long>& address, int bytes) {
  const int phase = bytes == 8 ? 16 : 32;
  int worst = 0;
  for (int p0 = 0; p0 < 32; p0 += phase) {
    std::map<int, std::set<long long>> bank;
    for (int l = p0; l < p0 + phase; ++l)
      if (address[l] >= 0)
        for (long long w = address[l] / 4; w <= (address[l] + bytes - 1) / 4; ++w) bank[w % 32].insert(w);
    for (const auto& [b, words] : bank) worst = std::max(worst, static_cast<int>(words.size()));
  }
  return worst;
}

struct Tally {
  int worst = 0;
  long long accesses = 0, wavefronts = 0;
  void add(const std::vector<long long>& address, int bytes) {
    const int w = waysOf(address, bytes);
    worst = std::max(worst, w), ++accesses, wavefronts += w;
  }
};

using Slot = std::function<long long(long long)>;

// Every warp access of the passes of `fft` (emitPass): butterfly bf, inner = bf % IC, j = bf / IC % (M / R),
// outer = bf / (IC M / R); loads at outer os + inner + (j + r M / R) ps, stores at outer os + inner + (d + r ns) ps.
void passes(const PfbFftPlan& fft, int IC, long long os, long long ps, long long points, const Slot& slot, Tally& t) {
  long long ns = 1;
  for (int R : fft.radices) {
    const long long MR = fft.length / R, butterflies = points / R;
    for (long long w0 = 0; w0 < butterflies; w0 += 32)
      for (int r = 0; r < R; ++r) {
        std::vector<long long> ld(32, -1), st(32, -1);
        for (int l = 0; l < 32 && w0 + l < butterflies; ++l) {
          const long long bf = w0 + l, inner = bf % IC, j = bf / IC % MR, outer = bf / (IC * MR);
          const long long at = outer * os + inner, d = j / ns * ns * R + j % ns;
          ld[l] = 8 * slot(at + (j + r * MR) * ps);
          st[l] = 8 * slot(at + (d + r * ns) * ps);
        }
        t.add(ld, 8), t.add(st, 8);
      }
    ns *= R;
  }
}

struct Counts {
  Tally firStore, columns, storeRead, rowLoad, rows, split, splitPair0, stagingStore, stagingRead, phaseWrite,
      phaseRead;
};

Counts count(const PfbSpec& s, bool previous) {
  const PfbGeometry g = pfbGeometry(s, previous);
  const Slot slot = previous ? Slot([](long long a) { return a + a / 8; }) : Slot(pfbSwizzled);
  const int C = g.columns, PA = g.pointsA, TA = g.threadsA, N2 = g.n2;
  Counts c;
  // fir: y of spectrum i; current: float part t & 1 of point t / 2; previous: the float2 of point t
  for (int i = 0; i < g.chunk; ++i)
    for (int w0 = 0; w0 < TA; w0 += 32) {
      std::vector<long long> a(32);
      for (int l = 0; l < 32; ++l) {
        const int t = w0 + l;
        a[l] = previous ? 8 * slot(static_cast<long long>(i) * PA + t)
                        : 8 * slot(static_cast<long long>(i) * PA + t / 2) + 4 * (t & 1);
      }
      c.firStore.add(a, previous ? 8 : 4);
    }
  passes(g.columnFft, C, static_cast<long long>(g.n1) * C, C, static_cast<long long>(g.chunk) * PA, slot, c.columns);
  // the scratch store reads element e (current: e = t + m threads; previous: i PA + t): contiguous either way
  for (long long e0 = 0; e0 < static_cast<long long>(g.chunk) * PA; e0 += 32) {
    std::vector<long long> a(32);
    for (int l = 0; l < 32; ++l) a[l] = 8 * slot(e0 + l);
    c.storeRead.add(a, 8);
  }
  // post: rows loaded element e, then the row passes, then the split reads Z[A], Z[N - A] of item it
  const long long chunkPoints = static_cast<long long>(g.combosPerChunk) * 2 * N2;
  for (long long e0 = 0; e0 < chunkPoints; e0 += 32) {
    std::vector<long long> a(32);
    for (int l = 0; l < 32; ++l) a[l] = 8 * slot(e0 + l);
    c.rowLoad.add(a, 8);
  }
  passes(g.rowFft, 1, N2, 1, chunkPoints, slot, c.rows);
  for (int pair : {0, 1})
    for (long long w0 = 0; w0 < static_cast<long long>(g.combosPerChunk) * N2; w0 += 32) {
      std::vector<long long> za(32, -1), zb(32, -1);
      for (int l = 0; l < 32; ++l) {
        const long long it = w0 + l, item = it % N2, z = it / N2 * 2 * N2;
        if (it >= static_cast<long long>(g.combosPerChunk) * N2) continue;
        long long a, b;
        if (pair) a = z + item, b = z + 2 * N2 - 1 - item;
        else if (item < N2 / 2) a = z + item, b = z + (item ? N2 - item : N2 / 2);
        else a = z + N2 / 2 + item, b = z + 2 * N2 - 1 + N2 / 2 - item;
        za[l] = 8 * slot(a), zb[l] = 8 * slot(b);
      }
      Tally& t = pair ? c.split : c.splitPair0;  // pair 0: one block of n1 / 2, its own reads
      t.add(za, 8), t.add(zb, 8);
    }
  // phase tables (with a delay): entry t written; split item it reads H[ih], HB[ih] and L[il] of its combination
  if (s.delay) {
    const long long PE = g.phaseEntries(), LB = g.phaseLow(), NH = N2 / LB;
    for (long long w0 = 0; w0 < g.combosPerChunk * PE; w0 += 32) {
      std::vector<long long> a(32, -1);
      for (int l = 0; l < 32 && w0 + l < g.combosPerChunk * PE; ++l) a[l] = 8 * (w0 + l);
      c.phaseWrite.add(a, 8);
    }
    for (long long w0 = 0; w0 < static_cast<long long>(g.combosPerChunk) * N2; w0 += 32)
      for (long long part = 0; part < 3; ++part) {
        std::vector<long long> a(32, -1);
        for (int l = 0; l < 32; ++l) {
          const long long it = w0 + l, item = it % N2, combo = it / N2;
          if (it >= static_cast<long long>(g.combosPerChunk) * N2) continue;
          a[l] = 8 * (combo * PE + (part < 2 ? item / LB + part * NH : 2 * NH + item % LB));
        }
        c.phaseRead.add(a, 8);
      }
  }
  // ci8 staging: value (which, item) of combination combo at 16-bit element slot 16 + combo (current: combo XOR
  // (slot / 2 & 14)); item = it % n2, combo = cb + it / n2, it = t + m 256
  if (s.outputType == PfbOutputType::CI8) {
    for (int which = 0; which < 2; ++which)
      for (long long w0 = 0; w0 < 16LL * N2; w0 += 32) {
        std::vector<long long> a(32);
        for (int l = 0; l < 32; ++l) {
          const long long it = w0 + l, item = it % N2, combo = it / N2, sl = which * N2 + item;
          a[l] = 2 * (sl * 16 + (previous ? combo : combo ^ ((sl >> 1) & 14)));
        }
        c.stagingStore.add(a, 2);
      }
    for (long long e0 = 0; e0 < 2LL * N2 * 8; e0 += 32) {
      std::vector<long long> a(32);
      for (int l = 0; l < 32; ++l) a[l] = 4 * (previous ? e0 + l : (e0 + l) ^ (((e0 + l) >> 5) & 7));
      c.stagingRead.add(a, 4);
    }
  }
  return c;
}

}  // namespace

// The current kernels meet each bank once per phase in every pattern of every shipped spec (the pair-0 split reads,
// one block in n1 / 2, at most twice: their mirror runs start one element off); the previous kernels' padding
// conflicted on every contiguous access (2-way) and their staging stores 8-way (the test of the count itself).
TEST(PfbSharedBanks, CurrentKernelsAreConflictFree) {
  int specs = 0;
  for (const auto& e : std::filesystem::directory_iterator(test::sourcePath("specs"))) {
    const std::string f = e.path().filename().string();
    if (f.rfind("pfb_", 0) != 0 || e.path().extension() != ".json") continue;
    ++specs;
    const PfbSpec s = parsePfbSpecText(test::readFile(e.path().string()), f);
    const Counts c = count(s, false);
    for (const auto& [name, t] :
         {std::pair{"fir store", c.firStore}, std::pair{"column passes", c.columns},
          std::pair{"scratch store read", c.storeRead}, std::pair{"row load", c.rowLoad},
          std::pair{"row passes", c.rows}, std::pair{"staging store", c.stagingStore},
          std::pair{"staging read", c.stagingRead}, std::pair{"phase table write", c.phaseWrite},
          std::pair{"phase table read", c.phaseRead}})
      EXPECT_LE(t.worst, 1) << s.name << ": " << name << " " << t.wavefronts << " wavefronts for " << t.accesses;
    EXPECT_LE(c.split.worst, 1) << s.name;
    EXPECT_LE(c.splitPair0.worst, 2) << s.name;
    std::printf(
        "[banks] %s: fir store %lld/%lld, columns %lld/%lld, rows %lld/%lld, split %lld/%lld, staging %lld/%lld, "
        "phase tables %lld/%lld (wavefronts / accesses)\n",
        s.name.c_str(), c.firStore.wavefronts, c.firStore.accesses, c.columns.wavefronts, c.columns.accesses,
        c.rows.wavefronts, c.rows.accesses, c.split.wavefronts, c.split.accesses, c.stagingStore.wavefronts,
        c.stagingStore.accesses, c.phaseRead.wavefronts, c.phaseRead.accesses);
    if (s.outputType == PfbOutputType::CI8 && s.channels >= 4096) {
      const Counts p = count(s, true);
      EXPECT_EQ(p.rowLoad.worst, 2) << s.name;
      EXPECT_EQ(p.stagingStore.worst, 8) << s.name;
    }
  }
  EXPECT_GE(specs, 3);
}

// The cf32 spectrum post kernel (PfbPostSpectrumEmitter.cpp) over one combination of 4096 channels: its row loads,
// row passes, split reads (item i = t + 256 m: pair i / n2, item i % n2), staging stores (channel c at
// c ^ ((c >> 5) & 31)) and store reads meet each bank once per phase, except pair 0's split reads (as the row-pair
// kernel's). Without the staging swizzle the stores of a warp's channels n1 = 32 apart would hit one bank.
TEST(PfbSharedBanks, SpectrumPostKernelIsConflictFree) {
  const PfbSpec s = parsePfbSpecText(test::readFile(test::sourcePath("specs/pfb_meerkat_4k_10bit_cf32.json")), "s");
  const PfbGeometry g = pfbGeometry(s);
  ASSERT_TRUE(g.spectrumPost);
  const long long N = s.channels, N1 = g.n1, N2 = g.n2;
  const Slot slot(pfbSwizzled);
  auto staged = [](long long c) { return c ^ ((c >> 5) & 31); };
  Tally load, rows, split, splitPair0, stage, plain, store;
  for (long long e0 = 0; e0 < N; e0 += 32) {
    std::vector<long long> a(32), b(32);
    for (int l = 0; l < 32; ++l) a[l] = 8 * slot(e0 + l), b[l] = 8 * staged(e0 + l);
    load.add(a, 8), store.add(b, 8);
  }
  passes(g.rowFft, 1, N2, 1, N, slot, rows);
  auto channel = [&](long long pair, long long item, int which) {
    const long long a = pair ? pair + N1 * item : item < N2 / 2 ? N1 * item : N1 / 2 + N1 * (item - N2 / 2);
    return which == 0 ? a : pair == 0 && item == 0 ? N / 2 : N - a;
  };
  for (long long w0 = 0; w0 < N / 2; w0 += 32) {
    std::vector<long long> za(32), zb(32), ka(32), kb(32), pa(32);
    const long long pair = w0 / N2;
    for (int l = 0; l < 32; ++l) {
      const long long item = (w0 + l) % N2, rowA = pair, rowB = pair ? N1 - pair : N1 / 2;
      long long xa, xb;
      if (pair) xa = item, xb = 2 * N2 - 1 - item;
      else if (item < N2 / 2) xa = item, xb = item ? N2 - item : N2 / 2;
      else xa = N2 / 2 + item, xb = 2 * N2 - 1 + N2 / 2 - item;
      auto element = [&](long long x) { return x < N2 ? rowA * N2 + x : rowB * N2 + x - N2; };
      za[l] = 8 * slot(element(xa)), zb[l] = 8 * slot(element(xb));
      ka[l] = 8 * staged(channel(pair, item, 0)), kb[l] = 8 * staged(channel(pair, item, 1));
      pa[l] = 8 * channel(pair, item, 0);
    }
    Tally& t = pair ? split : splitPair0;
    t.add(za, 8), t.add(zb, 8);
    stage.add(ka, 8), stage.add(kb, 8), plain.add(pa, 8);
  }
  for (const auto& [name, t] :
       {std::pair{"row load", load}, std::pair{"row passes", rows}, std::pair{"split reads", split},
        std::pair{"staging stores", stage}, std::pair{"store reads", store}})
    EXPECT_LE(t.worst, 1) << name << ": " << t.wavefronts << " wavefronts for " << t.accesses;
  EXPECT_LE(splitPair0.worst, 2);
  EXPECT_GE(plain.worst, 16);  // the count itself: unswizzled, the channels n1 apart share banks
  std::printf(
      "[banks] spectrum post kernel, 4096 channels: split %lld/%lld, staging %lld/%lld (unswizzled %lld), "
      "store %lld/%lld\n",
      split.wavefronts, split.accesses, stage.wavefronts, stage.accesses, plain.wavefronts, store.wavefronts,
      store.accesses);
}
