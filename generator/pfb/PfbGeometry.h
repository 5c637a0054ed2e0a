#pragma once
// How the channeliser is cut into two kernels (see README.md, "Design").
//
// The 2N real FIR outputs of a spectrum are paired into N complex points z[n] = y[2n] + i y[2n + 1], whose
// N-point FFT Z is split into the real FFT X (X[k] = (Z[k] + conj Z[N-k]) / 2 - i/2 e^{-i pi k / N} (Z[k] - conj
// Z[N-k])). Z is computed in four steps, N = n1 x n2, n = n2 * m1 + m2, k = k1 + n1 * k2:
//   kernel A ("fir"):  per column m2, Y[k1][m2] = e^{-2 pi i m2 k1 / N} sum_{m1} z[n2 m1 + m2] e^{-2 pi i m1 k1 / n1}
//   kernel B ("post"): per row k1,    Z[k1 + n1 k2] = sum_{m2} Y[k1][m2] e^{-2 pi i m2 k2 / n2}
// Kernel A: a block owns `columns` columns x n1 rows (one real sample per thread: two per complex position) of one
// stream for a run of consecutive spectra: each thread keeps its T weights (in shared memory at 17..24 taps) and the
// last T samples of its position in registers (every sample read once), computes the FIR for `chunk` spectra into
// shared memory, runs the n1-point column FFTs of the chunk there, and stores Y (twiddled) to the scratch
// [stream][spectrum][k1][m2].
// Kernel B: a block owns one row pair {k1, n1 - k1} ({0, n1/2} for pair 0: the rows the r2c split pairs), or every
// pair in turn (postPairLoop), for a group of spectra and polarizations of one receiver: loads the rows, runs the
// n2-point row FFTs, splits, applies gain and delay, and stores (ci8: staged in shared memory and stored as 32-byte
// runs of the correlator's layout).
#include <string>
#include <vector>

#include "generator/pfb/PfbSpec.h"

namespace warpforge {

// One FFT of length `length` as Stockham passes (radix of each pass; sub-transform length before pass p = product
// of the radices before it).
struct PfbFftPlan {
  int length = 1;
  std::vector<int> radices;
  // Offset of pass p's twiddles in its table: w^(r k) = exp(-2 pi i r k / (ns R)) at offset(p) + (r - 1) ns + k.
  std::vector<long long> twiddleOffsets;  // one per pass, plus the total at the end
};
PfbFftPlan pfbFftPlan(int length);

struct PfbGeometry {
  // The previous kernels (bench's "previous kernels" variant): FFT buffers padded one slot per 8, the ci8 staging
  // unrotated, a fir thread per complex point (4T weight and window registers).
  bool previous = false;
  // Every FFT buffer element's slot through pfb_slot (bench's "a slot per element" variant) instead of a constant
  // XOR and offset from a butterfly's base slot (PassShape::baseSlots).
  bool slotPerElement = false;
  // The per-item post kernel (bench's "post kernel per item" variant; the previous and slot-per-element variants use
  // it too): each split item decodes its combination, channels and slots, and takes a sincospif, instead of the
  // thread's channel constants hoisted out of the chunk loop and unrolled constant-offset loads and stores.
  bool perItemPost = false;
  // The post kernel's delay phase from per-chunk tables (two table products per channel pair) instead of a sincospif
  // per channel pair (bench's "post kernel with a sincospif per item" variant); see PfbPostEmitter.cpp.
  bool phaseTables = true;
  // The fir kernel's shared-memory slots as thread constants plus compile-time offsets, and the scratch store through
  // advancing pointers (bench's "fir kernel with a slot per store" variant keeps pfb_slot per store); see
  // PfbFirEmitter.cpp.
  bool firConstSlots = true;
  // The post kernel's __launch_bounds__ blocks per SM (at most; where shared memory holds them): 3 (80 registers), 2
  // (128) for rows of 512 points or more (16k channels and up: the 80-register cap spills there), or 4 (64 registers,
  // its pass twiddles loaded per butterfly; bench's "post kernel at four blocks per SM" variant).
  int postBlocksPerSm = 3;
  // The row-pair post kernel's block loops over every row pair of its unit (rows of at most 8 points, up to 256
  // channels: a unit's pair is one point per thread, and a block per pair spent its time in block starts and the
  // saturation tail's atomics), instead of owning one pair.
  bool postPairLoop = false;
  // cf32 spectra of at most kMaxSpectrumPostChannels channels: the post kernel owns one (spectrum, pol) combination
  // (or spectrumPostCombos consecutive ones), all its rows, and stores its channels as one contiguous run
  // (PfbPostSpectrumEmitter.cpp); otherwise (ci8, longer spectra, bench's variant "row-pair post kernel") a block owns
  // a row pair of 16 combinations.
  bool spectrumPost = false;
  // The spectrum post kernel's (spectrum, pol) combinations per block: 1, or up to 1024 / N below 1024 channels (a
  // power of two dividing the combinations of a batch entry), so that a block's passes, split and store span about
  // 1024 points (at 64 channels one combination left a block's 128 threads 8 butterflies a pass).
  int spectrumPostCombos = 1;
  // The spectrum post kernel with one buffer of the spectrum, where two do not fit (16384 channels on sm_80 / sm_90):
  // each row pass reads its inputs into registers, then after a barrier writes its outputs over them; the split reads
  // every item, then stages the channels in the same buffer. One combination per block.
  bool spectrumPostInPlace = false;
  // In place, the blocks per combination: 1, or 2 where one buffer of the spectrum does not fit either (32768
  // channels): part h holds the row pairs h n1 / 4 .. (h + 1) n1 / 4 - 1, both rows of each (n1 / 2 rows), and stores
  // its channels (those whose row k mod n1 it holds) as runs of up to 8 (n1 = 32).
  int spectrumPostParts = 1;
  // The spectrum post kernel's split twiddle e^{-i pi A / N}, A = pair + n1 item, as the product of a per-thread
  // factor (item) and a per-pair one (one address per warp) instead of a gather whose lanes read channels n1 apart
  // (32 sectors a warp; bench's variant "gathered split twiddles"). emitPfb sets it (PfbVariant).
  bool factoredSplitTwiddle = false;
  int n1 = 0, n2 = 0;
  PfbFftPlan columnFft, rowFft;
  // kernel A
  int columns = 0;   // columns per block
  int pointsA = 0;   // complex points per spectrum of a block: n1 x columns
  int threadsA = 0;  // two per point (one real sample each); the previous kernels one (both samples)
  // Spectra per FIR chunk and column-FFT batch: T, a divisor of it with shared weights, or (fewer than 8 taps) the
  // least multiple of T of at least 8 spectra, so that a batch's barriers and passes serve at least 8 spectra. The
  // FIR's window slots repeat every T spectra: the kernel's loop steps max(T, chunk).
  int chunk = 0;
  // 17 to 24 taps (the current kernels): the thread's T weights in shared memory, read at use, its T window samples in
  // registers, and chunks of a divisor of T (16 .. 8 spectra), so that two blocks of 512 threads fit an SM (64
  // registers, buffers and weights within half its shared memory) instead of one (2T registers, 96 at T = 24).
  bool firSharedWeights = false;
  int runSpectra = 0;  // spectra per block (a multiple of chunk)
  long long runs = 0;  // blocks along one stream's spectra
  int sharedA = 0;     // bytes: two buffers of chunk x pointsA complex f32, then threadsA x T weights if shared
  // kernel B
  int threadsB = 256;
  int spectraPerUnit = 0;  // Gs
  int polsPerUnit = 0;     // Pu
  int combosPerChunk = 0;  // (spectrum, pol) combinations whose rows are transformed together
  int stagingBytes = 0;    // ci8: the unit's output (2 n2 channels x Gs x Pu x 2 bytes)
  int sharedB = 0;
  // Table offsets (complex elements): twiddles_a = column passes, then the four-step twiddles [k1][m2];
  // twiddles_b = row passes, then the split twiddles e^{-i pi k / N}, k < N.
  long long stepTwiddleOffset = 0, splitTwiddleOffset = 0;

  long long columnGroups() const { return n2 / columns; }
  long long pairs() const { return n1 / 2; }
  long long unitsA(const PfbSpec& s) const { return static_cast<long long>(s.streams()) * runs * columnGroups(); }
  long long spectrumGroups(const PfbSpec& s) const { return (s.spectra + spectraPerUnit - 1) / spectraPerUnit; }
  long long unitsB(const PfbSpec& s) const {
    if (spectrumPost) return static_cast<long long>(s.streams()) * s.spectra / spectrumPostCombos * spectrumPostParts;
    return static_cast<long long>(s.receivers) * spectrumGroups(s) * (s.polarizations / polsPerUnit) *
           (postPairLoop ? 1 : pairs());
  }
  int combosPerUnit() const { return spectraPerUnit * polsPerUnit; }
  // The post kernel's phase tables (PfbPostEmitter.cpp): item = LB ih + il, LB = phaseLow() (divides n2 / 2); per
  // combination of a chunk H[ih], HB[ih] (n2 / LB each) and L[il] (LB), phaseEntries() float2 in all.
  int phaseLow() const { return n2 / 2 < 16 ? n2 / 2 : 16; }
  int phaseEntries() const { return 2 * (n2 / phaseLow()) + phaseLow(); }
};

// Two f32 buffers of a whole spectrum per post block (64 KiB at 4096 channels: three blocks per SM on sm_90; 128 KiB
// at 8192: one, of 1024 threads).
constexpr long long kMaxSpectrumPostChannels = 8192;
// The longest cf32 spectrum the spectrum post kernel takes when emitted for `arch`: kMaxSpectrumPostChannels where a
// block may hold its two buffers (maxSharedPerBlock), else 4096 (sm_86, sm_89, sm_12x: 99 KiB).
long long pfbSpectrumPostChannelsFor(const std::string& arch);
// The in-place spectrum post kernel's block (16 values per thread per pass at 16384 channels).
constexpr int kSpectrumPostInPlaceThreads = 1024;
// Whether the in-place spectrum post kernel takes `channels` at `threads` per block: every pass and the split in
// constant trips of at most 32 values per thread.
bool spectrumPostInPlaceFits(long long channels, const PfbFftPlan& rowFft, int threads);
// The spectrum post kernel's launch bound: at most four blocks of 256 threads per SM (64 registers; a lower cap spills
// in the row passes and split), fewer of larger blocks, or where shared memory holds fewer.
constexpr int kSpectrumPostBlocksPerSm = 4;
// The spectrum post kernel's threads per block, by length (H200, bench's block-size variants against the cuFFT pair in
// one run per length; blocks of more than 256 threads gather their split twiddles): 128 up to 1024 channels (at 1024:
// 1.08x the 256-thread plan), 256 up to 4096 (at 4096: 128 threads 0.87x, 512 0.99x; at 2048, 128 threads 1.02x,
// level), 1024 at 8192, where two 64 KiB buffers leave one block per SM (1.09x 256 threads with gathered twiddles).
int pfbSpectrumPostThreads(long long channels);
// The spectrum post kernel where it applies (cf32, at most spectrumPostChannels channels, not the previous kernels);
// spectrumPostChannels 0: the row-pair kernel. sharedWeights false: the fir kernel's weights in registers at every
// tap count; minChunk 1: chunks of T spectra at every tap count (bench's variants).
PfbGeometry pfbGeometry(const PfbSpec& s, bool previous = false,
                        long long spectrumPostChannels = kMaxSpectrumPostChannels, bool sharedWeights = true,
                        int minChunk = 8);

// Shared-memory FFT buffers hold complex element a at slot pfbSwizzled(a) (pfb_slot in the kernels): the low four
// index bits (16 slots = 128 bytes, every bank once) XOR f(a / 16), f(h) = (h ^ 2h ^ 4h) mod 16. A half-warp of 8-byte
// accesses is conflict-free when its 16 slots differ mod 16: contiguous runs of 16 (aligned) stay so (one XOR
// constant); stride-R stores (R = 8, 4, 2: R j + r) get distinct low bits from h's low bits (f's low three bits are a
// triangular map of them); two runs of 8 a distance D = 32, 64 or 128 apart (the column passes' and later row passes'
// stores) differ in bit 3 of f (f3 = h1 ^ h2 ^ h3). tests/PfbSharedBanksTest.cpp counts every pattern's ways.
inline long long pfbSwizzled(long long a) {
  const long long h = a >> 4;
  return a ^ ((h ^ (h << 1) ^ (h << 2)) & 15);
}
// The previous kernels' padding: element a at a + a / 8 (pfb_pad).
inline long long pfbPadded(long long n) { return n + (n + 7) / 8; }
// Slots of a buffer of n complex elements (the swizzle permutes within aligned 16-slot blocks).
inline long long pfbBufferSlots(long long n, bool previous) { return previous ? pfbPadded(n) : (n + 15) / 16 * 16; }

// The tables, computed in double and stored as interleaved f32 (re, im).
std::vector<float> pfbTwiddlesA(const PfbSpec& s, const PfbGeometry& g);
std::vector<float> pfbTwiddlesB(const PfbSpec& s, const PfbGeometry& g);

}  // namespace warpforge
