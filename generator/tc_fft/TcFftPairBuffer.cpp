#include "generator/tc_fft/TcFftPairBuffer.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace warpforge {

namespace {

// The row buffer's chunk arrangement for the interleaved reads (single words at 2 i + part, every lane of a warp in
// one phase): lane index bits above the 128-byte range move onto the chunk bits 0..2 (word bits 2..4) that the other
// lanes leave free, as stageSwizzle does for whole rows. Only chunk bits below the row's half are moved, so each warp's
// copy of its half keeps the half's own arrangement. Word bit 0 (the part) and bit 1 stay, so at best 8 bank groups
// serve the 32 lanes: a 4-way conflict, against 32-way unswizzled where every lane bit lies above the range.
StageSwizzle polyphaseSwizzle(const Layout& l, const IoPlan& p, int halfChunkBit) {
  StageSwizzle swz;
  std::vector<int> freeBits{0, 1, 2}, high;
  for (int t = 0; t < 5; ++t) {
    const auto name = l.logicalAt({PhysKind::T, t});
    if (!name || (*name)[0] != 'n') continue;
    const int k = std::stoi(name->substr(1));
    if (k >= p.logReal) continue;  // zero-padding lanes read no memory
    const int word = k + p.indexShift, chunk = word - 2;
    swz.laneMask |= 1LL << word;
    if (chunk >= 0 && chunk <= 2) freeBits.erase(std::find(freeBits.begin(), freeBits.end(), chunk));
    if (chunk >= 3 && chunk < halfChunkBit) high.push_back(chunk);
  }
  for (std::size_t i = 0; i < high.size() && i < freeBits.size(); ++i) swz.moves.push_back({high[i], freeBits[i]});
  swz.laneMask |= 1;  // the part
  for (auto [from, to] : swz.moves) swz.laneMask |= 1LL << (to + 2);
  return swz;
}

constexpr long long kPartBankBit = 16;  // word bit 4, flipped in part 1's region (de-interleaved)

}  // namespace

PairInput pairInput(const Layout& in, int logIn, bool wordReads, bool swizzled) {
  PairInput p;
  p.wordReads = wordReads;
  p.halfIn = 1 << logIn;
  if (wordReads) {
    p.plan = ioPlan(in, 'n', logIn, 0, 1);
    int halfChunkBit = 0;
    while ((4 << halfChunkBit) < p.halfIn) ++halfChunkBit;
    if (swizzled) p.swizzle = polyphaseSwizzle(in, p.plan, halfChunkBit);
  } else {
    p.plan = ioPlan(in, 'n', logIn, 0);
    if (swizzled) p.swizzle = stageSwizzle(in, p.plan);
    p.swizzle.laneMask |= kPartBankBit;  // the lane's offset carries the part's flip
  }
  return p;
}

long long PairInput::word(int part, long long offset) const {
  if (wordReads) return swizzle.word(offset | part);
  return part * halfIn + (swizzle.word(offset) ^ (part ? kPartBankBit : 0));
}

int pairInputBankWays(const Layout& in, const PairInput& p) {
  int worst = 1;
  auto phaseWays = [&](const std::vector<long long>& words) {
    std::map<int, std::set<long long>> perBank;
    for (long long w : words) perBank[static_cast<int>(w & 31)].insert(w);
    for (const auto& [bank, ws] : perBank) worst = std::max(worst, static_cast<int>(ws.size()));
  };
  const int width = 1 << p.plan.vecBits, phaseLanes = 32 / width;
  int vmask = 0;
  for (int b : p.plan.vecRegBit) vmask |= 1 << b;
  for (int part = 0; part < 2; ++part) {
    // The register reads: the lanes of a phase at their own offset plus the register group's.
    for (int g = 0; g < in.numRegisters(); ++g) {
      const long long off = ioRegisterOffset(in, p.plan, g);
      if ((g & vmask) || off < 0) continue;
      for (int first = 0; first < 32; first += phaseLanes) {
        std::vector<long long> words;
        for (int lane = first; lane < first + phaseLanes; ++lane)
          if (const long long lo = ioLaneOffset(in, p.plan, lane); lo >= 0)
            for (int i = 0; i < width; ++i) words.push_back(p.word(part, lo | off) + i);
        phaseWays(words);
      }
    }
    // The copy of the warp's half of the row: 16-byte chunks, 8 lanes a phase (interleaved), or single words scattered
    // to both regions, 32 lanes a phase (wf_warp_load_parts_async).
    if (p.wordReads) {
      for (long long first = 0; first < p.halfIn / 4; first += 8) {
        std::vector<long long> words;
        for (long long c = first; c < first + 8; ++c)
          for (int i = 0; i < 4; ++i) words.push_back(part * p.halfIn + 4 * p.swizzle.chunk(c) + i);
        phaseWays(words);
      }
    } else {
      for (long long j = 0; j < p.halfIn; j += 32) {
        std::vector<long long> words;
        for (int lane = 0; lane < 32; ++lane) {
          const long long w = part * p.halfIn + j + lane;
          words.push_back(p.word(static_cast<int>(w & 1), w >> 1));
        }
        phaseWays(words);
      }
    }
  }
  return worst;
}

}  // namespace warpforge
