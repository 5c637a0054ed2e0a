// Launch geometry of a Stockham kernel: threads per FFT, FFTs per block, shared
// memory pitch and padding, register target.
#include <algorithm>
#include <optional>
#include <tuple>
#include <utility>

#include "generator/stockham/CoopRadix.h"
#include "generator/stockham/StockhamEmitter.h"

namespace warpforge {

namespace {
// Elements of one 128-byte shared-memory row: lengths that are a multiple of it get one pad element per row.
int padRow(bool f64) { return f64 ? 8 : 16; }
// Bytes of one complex element of an array as the kernel reads or writes it.
int storageBytes(Storage s);
// Bytes of one element of an array as the kernel reads or writes it (a scalar real array: one scalar).
int accessBytes(const Access& a) { return a.scalarReal ? storageBytes(a.storage) / 2 : storageBytes(a.storage); }
int storageBytes(Storage s) {
  switch (s) {
    case Storage::C16:
    case Storage::R16: return 4;
    case Storage::C32:
    case Storage::R32: return 8;
    case Storage::C64:
    case Storage::R64: return 16;
    case Storage::CI8: return 2;
    case Storage::CI4: return 1;
  }
  return 8;
}

// FFTs side by side in a column tile, each tile row a run of that many values in global memory. A run that is not
// a whole number of 32-byte sectors (9 x 8 B: the tiles of non-power-of-two columns, 256 / t FFTs) leaves sectors
// part-used on both ends (Nsight Compute: 72-byte runs used 22.5 of every 32 bytes); such tiles take a power of two of
// FFTs reaching 128-byte runs, up to 1024 threads. Runs of whole sectors keep their width (wider rows of whole
// sectors only cost occupancy). The widening comes before the values-per-thread choice below, which it lets take 8.
int wholeSectorRows(int ffts, int threadsPerFft, int valueBytes, bool pinned) {
  if (pinned || (static_cast<long long>(ffts) * valueBytes) % 32 == 0) return ffts;
  int wide = 1;
  while (wide < ffts || wide * valueBytes < 128) wide *= 2;
  while (wide > ffts && static_cast<long long>(wide) * threadsPerFft > 1024) wide /= 2;
  return std::max(ffts, wide);
}
}  // namespace

bool isColumnTiled(const Access& a) {
  if (a.elemStride == 1 || a.batchStride.empty()) return false;
  // Real arrays: consecutive FFTs one pair (two scalars, the pair's parts adjacent) or one scalar apart.
  if (isReal(a.storage)) return a.scalarReal ? a.batchStride[0] == 1 : a.batchStride[0] == 2 && a.imOffset() == 1;
  return a.batchStride[0] == 1;
}

int tileRowValueBytes(const KernelDesc& d, const KernelGeometry& g) {
  return std::min(g.fftMajorLoad ? storageBytes(d.in.storage) : 1 << 20,
                  g.fftMajorStore ? storageBytes(d.out.storage) : 1 << 20);
}

int longestFftInSharedMemory(const std::string& arch, bool f64) {
  // One FFT per block, padded as chooseGeometry pads (one element per row), 1 KB reserved per block.
  const long long row = padRow(f64);
  return static_cast<int>(((maxSharedPerBlock(arch) - 1024) / complexBytes(f64) - 1) * row / (row + 1));
}

int residentBlocksPerSm(int threads, int registers, long long sharedBytes, const std::string& arch) {
  const int warps = (threads + 31) / 32;
  const bool small = arch == "sm_86" || arch == "sm_89";  // 100 KB shared, 1536 threads per SM
  const long long smemPerSm = small ? 100 * 1024 : arch == "sm_80" || arch == "sm_87" ? 164 * 1024 : 228 * 1024;
  const int byRegs = 65536 / (warps * ((std::max(1, registers) * 32 + 255) / 256 * 256));
  const int bySmem = static_cast<int>(smemPerSm / (sharedBytes + 1024));
  const int byThreads = (small ? 1536 : 2048) / (warps * 32);
  return std::max(0, std::min({byRegs, bySmem, byThreads, 32}));
}

// The target is the __launch_bounds__ minimum of blocks, and ptxas takes about what that allows; targets follow the
// levels of resident blocks (relaxedRegisterTargets), not a fixed list, which skipped levels that are not powers of
// two. ptxas is not monotonic in the target: a kernel that spills at one level may compile clean at a lower one.
// Registers per thread: as many as leave 1024 threads (32 warps) resident, counting the block in whole warps (a
// resident block more outweighs a few registers); f64 holds more values and takes up to 128. Column tiles too
// (f32 / f16): they hold 8 or 16 values, which fit 64 registers. Where ptxas would spill, SpillFree.cpp relaxes the
// target one level of resident blocks at a time.
// f64 blocks of 257..512 threads: as many registers as leave two blocks resident (one block idles the SM at every
// barrier of its passes). Not column tiles (their 512-thread f64 kernels keep one block) nor kernels whose shared
// memory keeps one block resident (the target would buy nothing): oneBlock.
int defaultRegisterTarget(int threads, bool f64, bool oneBlock) {
  const int warpThreads = (threads + 31) / 32 * 32;
  if (f64 && !oneBlock && warpThreads > 256 && warpThreads <= 512) return registerTargetForBlocks(threads, 2);
  return f64 ? std::min(128, 65536 / warpThreads) : 65536 / (warpThreads * ((1024 + warpThreads - 1) / warpThreads));
}

int registerTargetForBlocks(int threads, int blocks) {
  return std::min(255, 65536 / (blocks * ((threads + 31) / 32 * 32)) / 8 * 8);
}

std::vector<int> relaxedRegisterTargets(int threads, int target) {
  const int warpThreads = (threads + 31) / 32 * 32;
  std::vector<int> targets;
  for (int blocks = 65536 / (warpThreads * std::max(1, target)) - 1; blocks >= 1; --blocks) {
    const int t = registerTargetForBlocks(threads, blocks);
    if (t > target && (targets.empty() || t > targets.back())) targets.push_back(t);
  }
  return targets;
}

int streamedPrime(const std::vector<int>& factors, int length, bool f64, bool columnTile, std::optional<bool> tuned) {
  if (factors.empty() || columnTile || (tuned && !*tuned)) return 0;
  const int R = *std::max_element(factors.begin(), factors.end());
  if (!isCoopRadix(R, threadPrimeLimit(f64)) || R > streamedPrimeLimit(f64)) return 0;
  if (tuned) return R;
  const int m = length / R;
  // Where the streamed kernel compiles clean on sm_80 and sm_90 (a default kernel does not spill): f64 53 and
  // 2 x 37..43 (sm_80), 2 x 47 and 2 x 53 (sm_90) spill 20-148 bytes at 255 registers; f32 61^2 on 61 threads needs
  // 255 registers and runs slower than cooperative.
  if (m == 1) return !f64 || R <= 47 ? R : 0;
  if (m == 2) return !f64 || R <= 31 ? R : 0;
  if (m == R) return f64 || R <= 59 ? R : 0;
  // Other multiples: m threads per FFT, one radix-R butterfly each, where no other pass then holds more than 4/3 R
  // values (37 x 25 would hold 50 in its radix-25 pass; 29 x 13 held 39 and gained 1.06x, 29 x 14 held 42 and spilled).
  // Timed against the cooperative pass on an H200: f32 111 .. 1376 1.43-1.95x, f64 87 .. 1450 1.02-1.37x. f64 above 31
  // holds too many registers (2 x 37 spilled). A kernel that spills at every register target falls back to the
  // cooperative pass (SpillFree.cpp).
  if ((f64 && R > 31) || m % R == 0) return 0;  // (R twice: only R^2 was measured; 61^2 x 2 took 255 registers)
  for (int r : factors)
    if (r != R && 3 * passValues(length, r, m) > 4 * R) return 0;
  return R;
}

bool streamsPass(const std::vector<int>& factors, int length, int R, int threads, bool f64, bool columnTile,
                 std::optional<bool> tuned) {
  return R == streamedPrime(factors, length, f64, columnTile, tuned) && length / R <= threads;
}

bool streamsPass(const KernelDesc& d, const KernelGeometry& g, int R) {
  return isCoopRadix(R, threadPrimeLimit(d.f64)) &&
         streamsPass(d.factors, d.length, R, g.threadsPerFft, d.f64, g.columnTile(), d.tuning.streamedPrime);
}

int heldValues(const std::vector<int>& factors, int length, int threads, bool f64, bool columnTile,
               std::optional<bool> tuned) {
  int held = 1;
  for (int R : factors)
    held = std::max(held, isCoopRadix(R, threadPrimeLimit(f64)) &&
                                  !streamsPass(factors, length, R, threads, f64, columnTile, tuned)
                              ? coopShape(R, length, threads).held()
                              : passValues(length, R, threads));
  return held;
}

// The largest radix a thread holds whole: a cooperative radix (CoopRadix.h) counts as the values
// its pass aims to leave per thread, unless the kernel streams it (streamedPrime).
int threadRadix(const std::vector<int>& factors, int length, bool f64, bool columnTile = false,
                std::optional<bool> tuned = {}) {
  const int streamed = streamedPrime(factors, length, f64, columnTile, tuned);
  int rmax = 1;
  for (int r : factors)
    rmax = std::max(rmax, isCoopRadix(r, threadPrimeLimit(f64)) && r != streamed ? kCoopHeldValues : r);
  return rmax;
}

int balancedThreadsPerFft(const std::vector<int>& factors, int length, bool f64, int maxThreadsPerFft,
                          std::optional<bool> tuned) {
  const int rmax = threadRadix(factors, length, f64, false, tuned);
  int T = std::max(1, std::min(maxThreadsPerFft, length / rmax));
  // One butterfly of the largest radix per thread leaves a smaller radix several butterflies per
  // thread: 17 x 19 on 17 threads holds 2 x 17 values in the radix-17 pass (the second iteration
  // nearly idle). Where that is more than 1.5x the largest radix, the thread count of another
  // radix that holds fewer values is taken (19 threads: 19 values, 2 of 19 threads idle in one pass).
  const auto held = [&](int threads) { return heldValues(factors, length, threads, f64, false, tuned); };
  if (held(T) * 2 > 3 * rmax) {
    for (int R : factors) {
      if (isCoopRadix(R, threadPrimeLimit(f64))) continue;
      const int cand = std::min(maxThreadsPerFft, length / R);
      if (cand >= 1 && cand <= 1024 && held(cand) < held(T)) T = cand;
    }
  }
  return T;
}

// One FFT's values at least this large (in the compute type): the kernel runs a block per SM (every such kernel
// timed on an H200 did).
constexpr long long kPrefetchMinFftBytes = 96 * 1024;

KernelGeometry chooseGeometry(const KernelDesc& d, int maxThreadsPerFft) {
  KernelGeometry g;
  const int L = d.length;
  g.fftMajorLoad = isColumnTiled(d.in);
  g.fftMajorStore = isColumnTiled(d.out);
  const bool columns = g.columnTile();
  const int rmax = threadRadix(d.factors, L, d.f64, columns, d.tuning.streamedPrime);
  const int cb = complexBytes(d.f64);
  // Column tiles: pad so that consecutive FFTs fall in different banks.
  // Per-FFT pitch in shared memory: a whole number of pad groups, plus one group for
  // column tiles so that the same element of consecutive FFTs falls in another bank.
  // Padding only where power-of-two strides would hit one bank (L a multiple of a 128-byte
  // row of elements); odd strides spread over the banks by themselves.
  const int row = padRow(d.f64);
  g.padShift = L % row == 0 ? (d.f64 ? 3 : 4) : 0;
  const int group = g.padShift ? row : 1;
  const int loaded = L + (d.fuse == Fuse::C2RPre ? 1 : 0);
  g.smemStride = (loaded + group - 1) / group * group +
                 (columns ? (g.padShift ? group : (loaded % 2 == 0 ? 1 : 0)) : 0);
  // A pass holds every element of the block in registers between its reads and
  // its writes (in place in shared memory), so a thread holds E = L / T complex
  // values: one butterfly (E = largest radix) where the block is small, up to
  // 32 (f32) / 8 or 16 (f64) values for column tiles, which need many FFTs per block
  // for full memory sectors.
  const KernelTuning& tu = d.tuning;
  // (tuning column_values: fewer values per thread, more threads per FFT, fewer FFTs side by side: an
  // A/B for the column kernels of two-kernel plans, which take ~190-250 registers at 32 values.)
  const int maxHeld = tu.columnValues > 0 ? tu.columnValues : d.f64 ? 8 : 32;
  const bool halfStorage = d.in.storage == Storage::C16 || d.in.storage == Storage::R16 ||
                           d.out.storage == Storage::C16 || d.out.storage == Storage::R16;
  // Real planes recompute their thread indices per group: their element loops divide by the row length per element
  // (the merge's and split's rows and mirrors), and held across the group loop those took 154-168 registers at 4 x 13
  // (64-128 recomputed).
  g.indexPerGroup = tu.indexPerGroup.value_or(d.fuse == Fuse::PlaneSplit || d.fuse == Fuse::PlaneMerge);
  // Derived twiddles by default for half storage of long FFTs, where the table loads weigh most against the half-size
  // data (shorter f16 FFTs and f32 gain nothing measurable).
  g.deriveTwiddles = tu.deriveTwiddles.value_or(halfStorage && L >= 4096);
  if (tu.threadsPerFft > 0) maxThreadsPerFft = std::min(maxThreadsPerFft, tu.threadsPerFft);
  // Mirrored pairs hold two FFTs per block at least: at most 512 threads each (f64 r2c 26394's rows of 4399 = 83 x 53
  // took 549, a block of 1098 threads that no SM runs).
  if (d.mirrored) maxThreadsPerFft = std::min(maxThreadsPerFft, 512);
  // 128-thread blocks: a barrier stalls fewer warps and blocks in other phases fill the gaps (r2c, f16 and odd lengths
  // ran faster than at 256; c2c f32 powers of two the same either way).
  const int blockThreads = tu.blockThreads > 0 ? tu.blockThreads : 128;
  int T = tu.threadsPerFft == 0 ? balancedThreadsPerFft(d.factors, L, d.f64, maxThreadsPerFft, tu.streamedPrime)
                                : std::max(1, std::min(maxThreadsPerFft, L / rmax));
  // Long f32 FFTs: 256 threads holding up to 32 values each beat 512 holding 16; beyond 32 values per thread (16384)
  // the FFT takes 1024 threads. Half storage keeps 512 (its kernels ran faster so). Not for a Bluestein convolution
  // kernel: its two halves at 32 values per thread took 169 registers at 8192, against 102 at 512 threads.
  if (!d.f64 && !halfStorage && d.fuse == Fuse::None && !d.convolve && tu.threadsPerFft == 0 && T > 256 &&
      T % 256 == 0 && L / 256 <= 32)
    T = 256;
  // c2r of a short complex half (the merge fused into the first read): one thread per FFT, every value in its
  // registers; the merge's pairs then need no shared memory round trip. Up to 58 values (f64: 29): at 62 the thread's
  // registers overflowed its occupancy; r2c, whose split comes last, gained nothing so.
  if (d.fuse == Fuse::C2RPre && !d.factors.empty() && tu.threadsPerFft == 0 && !columns && L * (d.f64 ? 2 : 1) <= 58)
    T = 1;
  int F = std::max(1, blockThreads / T);
  int smemCap = 72 * 1024;
  if (columns) {
    // Many FFTs side by side: each row of the tile is F consecutive values in global memory. Where 256 threads
    // leave rows under 64 bytes, 512 threads double them (rows of 8-16 bytes waste most of each sector; rows of
    // 64 bytes gain nothing from more threads and lose occupancy).
    const int rowValueBytes = tileRowValueBytes(d, g);
    // Where `held` values per thread leave the largest radix's butterflies just short of one per thread (343 =
    // 7^3 at 8 values: 43 threads for 49 butterflies, a second round of 6), a thread per butterfly instead: the
    // second round would run the whole pass again for a few butterflies. So too wherever the largest radix is
    // smaller than `held` and its butterflies leave the last round part idle (powers of 5 and 7): 625 = 5^4 at 8
    // values took 79 threads for 125 butterflies, two rounds with a fifth of the slots idle, 96 registers and one
    // 632-thread block per SM; a thread per butterfly holds 5 values in 32-52 registers, 1000 threads per block. Not
    // where it would narrow the tile's rows below whole 64-byte runs (long columns: one FFT per block), nor where
    // the rounds are whole (1024 = 16 x 16 x 4 at 32 values: two radix-16 butterflies per thread).
    auto tile = [&](int held, bool widen) {
      const int butterflies = L / rmax;
      auto shape = [&](int t, bool wide) {
        const int threads = tu.blockThreads > 0                                 ? tu.blockThreads
                            : wide && std::max(1, 256 / t) * rowValueBytes < 64 ? 512
                                                                                : 256;
        return std::pair<int, int>{t, wholeSectorRows(std::max(1, threads / t), t, rowValueBytes, tu.blockThreads > 0)};
      };
      const int t = std::max(1, std::min({butterflies, (L + held - 1) / held, maxThreadsPerFft}));
      if (tu.columnValues != 0 || t >= butterflies) return shape(t, widen);
      if (2 * butterflies <= 3 * t) return shape(std::min(butterflies, maxThreadsPerFft), widen);
      const auto rounds = shape(t, widen);
      // (t < butterflies here within maxThreadsPerFft means held > rmax: the rounds are what `held` asked for)
      if (butterflies % t != 0 && butterflies <= maxThreadsPerFft) {
        // (the wider of the two block sizes' tiles: at 125 threads per FFT, 512 threads leave 4 FFTs and 32-byte
        // rows where 256 threads widened to whole 128-byte runs leave 8)
        const auto a = shape(butterflies, widen), b = shape(butterflies, false);
        const auto perButterfly = b.second > a.second ? b : a;
        if (perButterfly.second * rowValueBytes >= std::min(64, rounds.second * rowValueBytes)) return perButterfly;
      }
      return rounds;
    };
    // f32 / f16: the fewest values per thread (8 or 16 before 32) that still leave rows of 64 bytes at the block
    // size of 32 values. At 32 values the tiles took 160-255 registers, one block per SM; fewer values per thread
    // keep several blocks resident, unless they shrink the rows (long columns) below whole sectors.
    int held = maxHeld;
    if (tu.columnValues == 0 && !d.f64)
      for (int fewer : {8, 16}) {
        const auto [t, f] = tile(fewer, false);
        if (static_cast<long long>(f) * rowValueBytes >= 64 && f * g.smemStride * cb <= 160 * 1024) {
          held = fewer;
          break;
        }
      }
    // f64 at 8 values per thread leaves 2048-point columns 2 FFTs of 256 threads (32-byte rows); 16 values give 4
    // FFTs of 128 threads and 64-byte rows: 1.10x (c2c 2^22), 1.26x (r2c 2^22), 1.40x (c2r 2^23) on an H200.
    if (tu.columnValues == 0 && d.f64 && tile(held, true).second * rowValueBytes < 64) {
      const int f = tile(2 * held, true).second;
      if (static_cast<long long>(f) * rowValueBytes >= 64 && f * g.smemStride * cb <= 160 * 1024) held *= 2;
    }
    // 512-thread blocks can leave rows under 64 bytes where 256 threads widened to whole sectors leave more
    // (2048-point columns of 128 threads: 4 FFTs, 32-byte rows, against 8): the wider rows then, for 8-byte values.
    // The 8 FFTs of r2c f32 2^23's columns ran 1.66x as fast as 4 (H200, docs/stockham.md); f16 columns already
    // take 8 (and 9 spilled 96 bytes). (f64's 16-byte values take the rule above.)
    const auto widened = tile(held, true), unwidened = tile(held, false);
    const bool shortRows = rowValueBytes == 8 && widened.second * rowValueBytes < 64 &&
                           unwidened.second * rowValueBytes >= 64;
    std::tie(T, F) = shortRows && unwidened.second > widened.second ? unwidened : widened;
    smemCap = 160 * 1024;
  }
  while (F > 1 && F * g.smemStride * cb > smemCap) --F;
  if (d.mirrored) F = std::max(2, F - F % 2);  // FFTs in pairs, one half each
  g.threadsPerFft = T;
  g.fftsPerBlock = F;
  const int flat = F * g.smemStride;
  g.sharedBytes = (flat + (g.padShift ? (flat - 1) >> g.padShift : 0)) * cb;
  // One block by shared memory on sm_80 (164 KB per SM; the geometry knows no arch) keeps the one-block target.
  g.registerTarget = defaultRegisterTarget(T * F, d.f64,
                                           columns || residentBlocksPerSm(T * F, 32, g.sharedBytes, "sm_80") < 2);
  // f64 Bluestein convolutions of 512-2048 points in one kernel (128-256 threads): 80 registers keep 768 threads per
  // SM resident where ~100 kept 512, and the kernel's two FFTs and chirp products are latency-bound. On an H200 (`bench
  // --ab '{"register_target": 80}'`, same process): 2048 points (n 541..997) 1.06-1.07x, 1024 (307, 401) 1.03x, 512
  // (139, 211) 1.01x, clean of spills at each.
  if (d.convolve && d.f64 && T * F <= 256) g.registerTarget = std::min(g.registerTarget, 80);
  if (tu.registerTarget > 0) g.registerTarget = tu.registerTarget;
  // The first pass reads its butterfly inputs straight from global memory and the last
  // pass writes its outputs straight back (coalesced along the FFT), saving a trip
  // through shared memory and two barriers each, except for column tiles (staged for
  // coalescing) and the r2c/c2r fusions (which pair element k with L - k).
  // A direct pass touches, per warp instruction, runs of min(T, butterflies) consecutive elements of
  // each FFT; runs shorter than kMinDirectRunBytes leave sectors partly used by every instruction (c2c
  // f32 24 and 48 run 3 threads per FFT: 24-byte runs, 11 FFTs per warp), so those kernels stage
  // through shared memory, where the load and store are 16-byte vectors over the whole block.
  const int firstRun = d.factors.empty() ? 0 : std::min(T, L / d.factors.front()) * accessBytes(d.in);
  const int lastRun = d.factors.empty() ? 0 : std::min(T, L / d.factors.back()) * accessBytes(d.out);
  // A cooperative pass reads and writes shared memory only (CoopRadix.h).
  const int maxPrime = threadPrimeLimit(d.f64);
  auto coop = [&](int R) { return isCoopRadix(R, maxPrime) && !streamsPass(d, g, R); };
  const bool coopFirst = !d.factors.empty() && coop(d.factors.front());
  const bool coopLast = !d.factors.empty() && coop(d.factors.back());
  // Fused axes load staged: the load's digit reversal is a shared-memory permutation; so does a c2r merge (mirrored
  // pairs: it reads both FFTs of a pair in shared memory before the first pass).
  g.directLoad = !d.factors.empty() && !coopFirst && !g.fftMajorLoad && d.fuse != Fuse::C2RPre && d.axes.size() < 2 &&
                 tu.directLoad.value_or(firstRun >= kMinDirectRunBytes);
  // The fused split holds two butterflies of the last radix per thread: taken by default where that
  // does not raise the kernel's peak of values per thread (r2c 1000: 2 x 4 values against 28 held in
  // the radix-4 pass; r2c 8192 = 16 x 16 x 16 would go from 16 to 32 values, 64 -> 96 registers).
  const int lastRadix = d.factors.empty() ? 0 : d.factors.back();
  // And only where its runs are whole sectors' worth: short FFTs on 2-6 threads write 16-48 B runs, which the staged
  // element loop writes as whole sectors.
  g.fusedSplit = d.fuse == Fuse::R2CPost && !d.factors.empty() && !d.mirrored && !g.fftMajorStore &&
                 tu.directStore != false && !isCoopRadix(lastRadix, maxPrime) &&
                 tu.fusedSplit.value_or(2 * lastRadix <=
                                            heldValues(d.factors, L, T, d.f64, columns, tu.streamedPrime) &&
                                        lastRun >= kMinDirectRunBytes);
  // A last pass that loops (more butterflies than threads) writes a short run per iteration, the later ones with
  // idle lanes: under 128-byte runs of 8- or 16-byte values the store is staged (a pass of one butterfly per thread
  // keeps its direct store at 80 B; half storage is left direct).
  const bool lastLoops = !d.factors.empty() && L / lastRadix > T;
  const bool shortLoopingStore = lastLoops && lastRun < 2 * kMinDirectRunBytes && !halfStorage;
  g.directStore = !d.factors.empty() && !d.mirrored && !coopLast && !g.fftMajorStore &&
                  (d.fuse != Fuse::R2CPost || g.fusedSplit) && d.fuse != Fuse::PlaneSplit &&
                  tu.directStore.value_or(g.fusedSplit || (lastRun >= kMinDirectRunBytes && !shortLoopingStore));
  // A block per group by default; persistent blocks for the steps of a long FFT and for Bluestein convolutions of
  // 16384 points in one kernel. Over the 40 slowest cases of a random sweep (H200, one process each, against cuFFT), a
  // block per group ran 1.05x persistent blocks in geometric mean: up to 1.37x on one-kernel plans of many groups (c2c
  // 6: 0.64x -> 0.88x cuFFT; c2r 314 1.27x, c2r 273 x 70 1.31x), while the long FFTs' column and row steps ran
  // 0.96-1.06x either way. On a fresh sweep the one-kernel convolutions of 16384 points ran 0.62-0.79x persistent
  // blocks (nine plans, seven of them one kernel; a full grid takes them at 256 threads and 255 registers), the shorter
  // ones 0.95-1.27x (26 cases).
  g.persistent = tu.persistent.value_or(d.longStep || (d.convolve && L >= 16384));
  // Persistent blocks take their groups from a work counter: with a fixed share each, a block that started late (the
  // previous kernel still on its SM) made the whole grid wait for it.
  g.workQueue = tu.workQueue.value_or(g.persistent);
  // The next group's copy during the last pass (KernelGeometry::prefetch): persistent blocks without the work counter
  // (each block must know its next group at its last pass), the load staged from a user array of the compute type,
  // and a last pass of whole butterflies (or the fused r2c split) that stores to global memory. By default for a c2c
  // kernel of one FFT of 96 KiB or more (one block per SM, where DRAM idles while it computes). On an H200 against
  // the synchronous load, 14 such sizes ran 1.05x in geometric mean (0.93x at f32 14000 .. 1.35x at 16380); shorter
  // FFTs 0.97-1.01x; the fused r2c split ran slower (f32 32768 0.83x, 24576 0.96x, f64 4096 0.93x) and keeps it a
  // tuning choice.
  const Storage computeComplex = d.f64 ? Storage::C64 : Storage::C32, computeReal = d.f64 ? Storage::R64 : Storage::R32;
  const bool plainInput = (d.in.storage == computeComplex || (d.in.storage == computeReal && !d.in.scalarReal)) &&
                          !d.in.planar && !d.loadTable && d.inValid < 0 && d.in.hermitianN == 0 && d.in.pairOffset == 0;
  const bool lastWhole = !d.factors.empty() && !isCoopRadix(lastRadix, maxPrime);
  const bool oneBlockPerSm = static_cast<long long>(L) * (d.f64 ? 16 : 8) >= kPrefetchMinFftBytes;
  // (Where the spec asks for a grid or load the copy cannot take, the default gives way.)
  const bool prefetchByDefault = d.fuse == Fuse::None && !d.longStep && oneBlockPerSm && tu.persistent != false &&
                                 tu.workQueue != true && tu.directLoad != true;
  // A long FFT's column step (column tiles in and out) copies its next group while its tile is stored instead.
  const bool columnCopy = d.longStep && g.fftMajorLoad && g.fftMajorStore && d.fuse == Fuse::None && !d.mirrored &&
                          d.in.storage == computeComplex;
  const bool rowCopy = lastWhole && g.directStore && !g.fftMajorLoad && !d.convolve && !d.mirrored &&
                       d.axes.size() < 2 && (d.fuse == Fuse::None || (d.fuse == Fuse::R2CPost && g.fusedSplit));
  if (tu.prefetch.value_or(prefetchByDefault) && plainInput && (rowCopy || columnCopy)) {
    g.prefetch = true;
    g.persistent = true;
    g.workQueue = false;
    g.directLoad = false;
  }
  return g;
}

}  // namespace warpforge
