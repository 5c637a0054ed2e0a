#include "generator/pfb/PfbGeometry.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "generator/core/ArchLimits.h"

namespace warpforge {

PfbFftPlan pfbFftPlan(int length) {
  if (length < 2 || (length & (length - 1)))
    throw std::invalid_argument("pfbFftPlan: length must be a power of two >= 2");
  PfbFftPlan p;
  p.length = length;
  int rest = length;
  while (rest >= 8) p.radices.push_back(8), rest /= 8;
  // A remainder of 2 after a radix 8 becomes 4 x 4 (the same passes, cheaper butterflies).
  if (rest == 2 && !p.radices.empty()) p.radices.back() = 4, rest = 4;
  if (rest > 1) p.radices.push_back(rest);
  long long ns = 1, off = 0;
  for (int R : p.radices) {
    p.twiddleOffsets.push_back(off);
    if (ns > 1) off += ns * (R - 1);
    ns *= R;
  }
  p.twiddleOffsets.push_back(off);
  return p;
}

namespace {

void appendPassTwiddles(const PfbFftPlan& p, std::vector<float>& t) {
  long long ns = 1;
  for (int R : p.radices) {
    if (ns > 1)
      for (int r = 1; r < R; ++r)
        for (long long k = 0; k < ns; ++k) {
          const double a = -2.0 * M_PI * static_cast<double>(r * k) / static_cast<double>(ns * R);
          t.push_back(static_cast<float>(std::cos(a)));
          t.push_back(static_cast<float>(std::sin(a)));
        }
    ns *= R;
  }
}

}  // namespace

bool spectrumPostInPlaceFits(long long channels, const PfbFftPlan& rowFft, int threads) {
  // Constant trips of every pass and of the split (its registers hold each trip's inputs); at most 32 values per
  // thread in a pass.
  if (channels < 1024 || (channels / 2) % threads) return false;
  for (int R : rowFft.radices)
    if ((channels / R) % threads || channels / threads > 32) return false;
  return true;
}

PfbGeometry pfbGeometry(const PfbSpec& s, bool previous, long long spectrumPostChannels, bool sharedWeights,
                        int minChunk) {
  PfbGeometry g;
  g.previous = previous;
  const long long N = s.channels;
  // Columns of at most 32 points: a block of 8 columns x 32 rows = 256 threads, whose 4T weight and window
  // registers fit twice per SM; 8 columns of int8 pairs are 16-byte row segments (the neighbouring column group,
  // the next block, reads the other half of each 32-byte sector at the same time).
  g.n1 = static_cast<int>(std::min<long long>(32, N / 8));
  g.n2 = static_cast<int>(N / g.n1);
  g.columns = 8;
  g.pointsA = g.n1 * g.columns;
  // A thread per real sample keeps 2T weight and window registers (64 at T = 16 with the FFT's): 512 threads, two
  // blocks per SM (half the SM's warps); a thread per complex point needs 4T (two blocks of 256: a quarter).
  g.threadsA = previous ? g.pointsA : 2 * g.pointsA;
  g.columnFft = pfbFftPlan(g.n1);
  g.rowFft = pfbFftPlan(g.n2);
  // (NVRTC 13, sm_90: at three blocks the row-pair post kernel spills 8-84 bytes from 16k channels on, every output)
  g.postBlocksPerSm = g.n2 >= 512 ? 2 : 3;
  g.chunk = s.taps;
  if (!previous && s.taps < minChunk) g.chunk = s.taps * ((minChunk + s.taps - 1) / s.taps);
  if (!previous && sharedWeights && s.taps > 16 && s.taps <= 24)
    for (int h = 16; h >= 8 && !g.firSharedWeights; --h) {
      const long long bytes = 2 * pfbBufferSlots(static_cast<long long>(h) * g.pointsA, false) * 8 +
                              static_cast<long long>(g.threadsA) * s.taps * 4;
      if (s.taps % h == 0 && bytes <= 232448 / 2 - 1024) g.chunk = h, g.firSharedWeights = true;
    }
  // Runs of 4T spectra per block where a stream has at least 8T (2T otherwise: more, shorter runs fill the GPU): the
  // T - 1 spectra of warm-up read again by the next run and the block's 2T weights (from L2) cost at most a quarter
  // (a half) of the input bytes again; the input is a tenth of the traffic.
  // (whole loop trips: multiples of max(T, chunk))
  const int period = std::max(s.taps, g.chunk);
  g.runSpectra = s.taps == 1 ? 32 : (s.spectra >= 8 * s.taps ? 4 : 2) * s.taps;
  g.runSpectra = (g.runSpectra + period - 1) / period * period;
  if (g.runSpectra > s.spectra) g.runSpectra = static_cast<int>((s.spectra + period - 1) / period * period);
  g.runs = (s.spectra + g.runSpectra - 1) / g.runSpectra;
  g.sharedA = static_cast<int>(2 * pfbBufferSlots(static_cast<long long>(g.chunk) * g.pointsA, previous) * 8 +
                               (g.firSharedWeights ? static_cast<long long>(g.threadsA) * s.taps * 4 : 0));
  // Kernel B: units of 16 (spectrum, pol) combinations, so that a ci8 unit stores 32-byte runs: katgpucbf
  // [receiver][channel][spectrum][pol]: 16 / P spectra x P pols per channel; tcc
  // [channel][spectrum/16][receiver][pol][16]: 16 spectra of one pol per channel. cf32 spectra: 16 spectra of one pol
  // (stored directly, 8 bytes per channel).
  g.polsPerUnit = s.layout == PfbLayout::Katgpucbf ? s.polarizations : 1;
  g.spectraPerUnit = 16 / g.polsPerUnit;
  // Rows of about 2048 points per FFT chunk: 256 threads x one radix-8 butterfly.
  g.combosPerChunk = static_cast<int>(std::clamp<long long>(2048 / (2 * g.n2), 1, g.combosPerUnit()));
  g.stagingBytes = s.outputType == PfbOutputType::CI8 ? 2 * g.n2 * g.combosPerUnit() * 2 : 0;
  g.sharedB = static_cast<int>(2 * pfbBufferSlots(static_cast<long long>(g.combosPerChunk) * 2 * g.n2, previous) * 8) +
              g.stagingBytes;
  if (!previous && s.outputType == PfbOutputType::CF32 && N <= spectrumPostChannels) {
    g.spectrumPost = true;
    g.spectrumPostCombos = static_cast<int>(std::max<long long>(1, 1024 / N));
    while ((s.streams() * s.spectra) % g.spectrumPostCombos) g.spectrumPostCombos /= 2;
    g.sharedB = static_cast<int>(2 * g.spectrumPostCombos * N * 8);
    g.threadsB = pfbSpectrumPostThreads(N);
  } else if (!previous && s.outputType == PfbOutputType::CF32 && spectrumPostChannels > 0) {
    // One buffer (where two do not fit): passes and split in place, over the whole spectrum or, where one buffer of
    // it does not fit either, over half its row pairs (two blocks per combination).
    for (int parts = 1; parts <= 2 && !g.spectrumPost; parts *= 2)
      if (N / parts <= 2 * spectrumPostChannels && g.n1 == 32 &&
          spectrumPostInPlaceFits(N / parts, g.rowFft, kSpectrumPostInPlaceThreads)) {
        g.spectrumPost = g.spectrumPostInPlace = true;
        g.spectrumPostParts = parts;
        g.sharedB = static_cast<int>(N / parts * 8);
        g.threadsB = kSpectrumPostInPlaceThreads;
      }
  }
  // (H200, the plan against a block per pair: 1.15-1.32x faster at 64 and 256 channels, level at 128 and 512, 4 %
  // slower at 1024, 6 % at 2048)
  g.postPairLoop = !previous && !g.spectrumPost && g.n2 <= 8;
  g.stepTwiddleOffset = g.columnFft.twiddleOffsets.back();
  g.splitTwiddleOffset = g.rowFft.twiddleOffsets.back();
  return g;
}

long long pfbSpectrumPostChannelsFor(const std::string& arch) {
  // Two buffers of the longest spectrum, 1 KiB reserved.
  return 2 * kMaxSpectrumPostChannels * 8 + 1024 <= maxSharedPerBlock(arch) ? kMaxSpectrumPostChannels : 4096;
}

int pfbSpectrumPostThreads(long long channels) { return channels <= 1024 ? 128 : channels <= 4096 ? 256 : 1024; }

std::vector<float> pfbTwiddlesA(const PfbSpec& s, const PfbGeometry& g) {
  std::vector<float> t;
  appendPassTwiddles(g.columnFft, t);
  // e^{-2 pi i m2 k1 / N} at [k1][m2]
  for (long long k1 = 0; k1 < g.n1; ++k1)
    for (long long m2 = 0; m2 < g.n2; ++m2) {
      const double a = -2.0 * M_PI * static_cast<double>(k1 * m2) / static_cast<double>(s.channels);
      t.push_back(static_cast<float>(std::cos(a)));
      t.push_back(static_cast<float>(std::sin(a)));
    }
  return t;
}

std::vector<float> pfbTwiddlesB(const PfbSpec& s, const PfbGeometry& g) {
  std::vector<float> t;
  appendPassTwiddles(g.rowFft, t);
  // e^{-i pi k / N}, k < N
  for (long long k = 0; k < s.channels; ++k) {
    const double a = -M_PI * static_cast<double>(k) / static_cast<double>(s.channels);
    t.push_back(static_cast<float>(std::cos(a)));
    t.push_back(static_cast<float>(std::sin(a)));
  }
  return t;
}

}  // namespace warpforge
