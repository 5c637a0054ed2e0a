#pragma once
// One Stockham kernel: a batch of FFTs of one length along one axis, each
// loaded into shared memory, transformed by radix passes and stored, with the
// fusions a plan may ask for at the load and the store. A plan (StockhamPlan)
// is a chain of these; the emitter turns one into CUDA.
#include <optional>
#include <string>
#include <vector>

namespace warpforge {

// How elements are stored in an array the kernel reads or writes.
enum class Storage {
  C16,  // __half2 (or two __half arrays when planar); widened to float
  C32,  // float2
  C64,  // double2
  CI8,  // complex int8 (char2), widened in the load
  CI4,  // complex int4 in one byte: real = high nibble, imag = low nibble, two's complement
  R16,  // real arrays (r2c input, c2r output): complex element j = (a[2j], a[2j+1])
  R32,
  R64,
};

inline bool isReal(Storage s) { return s == Storage::R16 || s == Storage::R32 || s == Storage::R64; }

// Address of complex element i of FFT g: offset + i * elemStride + sum_d digit_d(g) * batchStride[d]
// (strides in units of the storage's scalar for real arrays, of its complex element otherwise).
struct Access {
  Storage storage = Storage::C32;
  bool planar = false;  // re and im in two arrays (same offsets)
  long long offset = 0, elemStride = 1;
  std::vector<long long> batchStride;  // one per KernelDesc::batchCount, innermost first, then the batch itself
  // Real arrays: scalars from the real part of a complex element to its imaginary part (0: elemStride).
  // A column kernel over a real array steps elements by N2 pairs but the pair itself stays adjacent.
  long long imStride = 0;
  long long imOffset() const { return imStride ? imStride : elemStride; }
  // Real arrays of odd-length transforms: element i is the scalar a[i * elemStride], read as (a, 0), written as the
  // real part (not a pair).
  bool scalarReal = false;
  // > 0: the array holds elements 0..N/2 of a Hermitian sequence of N (the c2r input of odd N): element nat > N/2
  // (natural index) is conj of element N - nat, hermitianStride scalars per natural index apart.
  long long hermitianN = 0, hermitianStride = 0;
  // > 0 (a kernel with KernelDesc::pairedBatch): the array holds batch entries 2p and 2p + 1 of pair p, the second
  // pairOffset units (scalars of a real array, else elements) after the first. The pair's FFT sees entry 2p as its
  // real part and 2p + 1 as its imaginary part (a real array read as x_2p + i x_2p+1; a Hermitian input as
  // X_2p + i X_2p+1; a scalar real output stores the real part in 2p, the imaginary part in 2p + 1; a complex output of
  // Fuse::PairSplit stores v in 2p and v_pair in 2p + 1). Entry 2p + 1 of an odd count is read as zero, not stored.
  long long pairOffset = 0;
};

// Fused operation on the way in or out of shared memory.
enum class Fuse {
  None,
  R2CPost,  // store: X[k] = (Z[k] + conj Z[L-k]) / 2 - i/2 W_N^k (Z[k] - conj Z[L-k]), k = 0..L (L+1 outputs)
  C2RPre,   // first read: Z[k] = (X[k] + conj X[L-k]) + i W_N^-k (X[k] - conj X[L-k]); loads L+1 inputs
  // store of a paired odd r2c (KernelDesc::pairedBatch, mirrored FFTs of one element): Z = FFT(x_2p + i x_2p+1) gives
  // X_2p[k] = (Z[k] + conj Z[N-k]) / 2 and X_2p+1[k] = (Z[k] - conj Z[N-k]) / 2i, k = 0..(N-1)/2
  PairSplit,
  // A real plane (KernelDesc::axes, RealPlanes.h): the plane of an r2c / c2r's inner axes as one complex FFT whose
  // fastest axis is M = N/2 (even N = fuseN, the real rows as pairs) or N (odd). The complex side holds rows of N/2
  // + 1.
  PlaneSplit,  // r2c store: X[r, k] = (Z[r, k] + conj Z[-r, M-k]) / 2 - i/2 W_N^k (Z[r, k] - conj Z[-r, M-k]), k =
               // 0..N/2 (odd N: X[r, k] = Z[r, k])
  PlaneMerge,  // c2r load: Z[r, k] = (X[r, k] + conj X[-r, L-k]) + i W_N^-k (X[r, k] - conj X[-r, L-k]), k < L (odd
               // N: X[r, k] for k <= N/2, else conj X[-r, N-k])
};

// Where an even r2c / c2r length N = 2L does its split (merge) (spec tuning "real_split"; unset: the plan's rule).
enum class RealSplit {
  Fused,     // "fused": in the one kernel of L (its last pass or store; the merge in its first read)
  Kernel,    // "kernel": a kernel of its own after (before) the complex FFT of L
  Mirrored,  // "mirrored": in L's two-kernel plan, its row (column) kernel holding mirrored FFT pairs
};
inline const char* realSplitName(RealSplit r) {
  return r == RealSplit::Fused ? "fused" : r == RealSplit::Kernel ? "kernel" : "mirrored";
}

// How a Bluestein convolution length is chosen (spec tuning "bluestein").
enum class BluesteinRule {
  Model,       // the default: one-kernel convolutions from the model of their kernels (BluesteinLength.h), longer ones
               // smooth
  Smooth,      // "smooth": the cheapest 7-smooth M >= 2n - 1 (bluesteinLength)
  PowerOfTwo,  // "power_of_two": the next power of two
};

// Launch-geometry and plan choices a user (spec "tuning") or `warpforge bench --tune` may override. Counts of 0 and
// unset switches keep the generator's choice.
struct KernelTuning {
  int threadsPerFft = 0;               // at most this many threads per FFT (each holds length / threads values)
  int blockThreads = 0;                // threads per block to aim for (FFTs per block = blockThreads / threads per FFT)
  int registerTarget = 0;              // registers per thread for __launch_bounds__ (relaxed where ptxas would spill)
  int spillBytes = 0;                  // spill (bytes stored, and loaded) a kernel may keep before that relaxation
  std::optional<bool> directLoad;      // the first pass reads global memory itself (else staged through shared memory)
  std::optional<bool> directStore;     // the last pass writes global memory itself
  std::optional<bool> persistent;      // grid = resident blocks, each looping over groups (else one block per group)
  std::optional<bool> indexPerGroup;   // KernelGeometry::indexPerGroup; unset: SpillFree decides
  std::optional<bool> deriveTwiddles;  // KernelGeometry::deriveTwiddles
  std::optional<bool> workQueue;       // KernelGeometry::workQueue (unset: for persistent grids)
  std::optional<bool> fusedSplit;      // r2c: KernelGeometry::fusedSplit; false: the split as a staged element loop
  std::optional<bool> prefetch;        // KernelGeometry::prefetch (unset: c2c FFTs of 96 KiB and more)
  std::optional<bool> streamedPrime;   // a cooperative prime one thread per butterfly (true) or cooperative (false);
                                       // unset: streamedPrime's rule (Geometry.cpp)
  int columnValues = 0;  // column-tiled kernels (two-kernel plans, strided axes): at most this many values per thread
                         // (0: 32 f32, 8 f64)
  BluesteinRule bluestein = BluesteinRule::Model;  // (plan)
  long long bluesteinLength = 0;    // (plan) > 0: the Bluestein convolution length M itself (radix-smooth, M >= 2n - 1)
  std::optional<bool> fuseAxes;     // (plan) false: one kernel per axis of a 2D/3D transform; else the inner axes whose
                                    // plane fits one kernel together (r2c / c2r: even N; odd N where true)
  std::optional<bool> halfScratch;  // (plan) f16: the scratch between a long FFT's kernels in f16 (plain jobs unless
                                    // false; a real transform's complex half only if true), else float
  std::optional<bool> threeKernels;    // (plan) 1D lengths past one kernel: three kernels (N = n1 x m1 x m2) or two;
                                       // unset: the plan's rule
  std::optional<RealSplit> realSplit;  // (plan) r2c / c2r of even N: where the split (merge) runs
  std::optional<bool> pairBatch;       // (plan) 1D r2c / c2r of odd N: two batch entries as one complex FFT (unset: c2r
                                  // always, r2c past one kernel or with Bluestein, where the split's pass costs less)
  int split = 0;  // (plan) two-kernel plans N = n1 x n2: n1, the column kernel's FFT length (0: the plan's rule)
  bool operator==(const KernelTuning&) const = default;
};

struct KernelDesc {
  std::string kernelName, specName, role;  // role: which step of the plan, for the header comment
  bool f64 = false;                        // compute in double (else float)
  int sign = -1;
  int length = 1;
  std::vector<int> factors;
  Access in, out;
  // Counts of the inner batch digits (innermost first); the last digit
  // (the user's batch) is unbounded: g = d0 + c0 * (d1 + c1 * (...)).
  std::vector<long long> batchCount;
  // Natural index of element i of FFT g in the whole transform (for the tables
  // and the valid bounds): i * natElem + digit0(g) * natDigit0.
  long long natInElem = 1, natInDigit0 = 0, natOutElem = 1, natOutDigit0 = 0;
  long long inValid = -1, outValid = -1;  // natural index bounds: loads read 0 beyond, stores skip beyond (-1: none)
  bool loadTable = false, storeTable = false;  // multiply by a table indexed by the natural index
  // > 0: four-step twiddle on the store: element i of FFT g times W^{i * digit0(g)}, W = exp(sign 2 pi i / bigN),
  // from two tables lo[m % bigSplit] * hi[m / bigSplit].
  long long bigN = 0, bigSplit = 1;
  Fuse fuse = Fuse::None;
  int fuseN = 0;  // the real length N = 2L for R2CPost / C2RPre; N (even or odd) for PlaneSplit / PlaneMerge
  // Bluestein's whole convolution in one kernel (the length-M sequence stays in shared memory): the
  // radix passes at sign -1, then element k times big_lo[k] (FFT(conj chirp)/M, fused into the first
  // read of the inverse half), then the same passes at sign +1 with conjugated twiddles. The chirp
  // and the bounds are the load and store tables and in_valid / out_valid as in the two-kernel form.
  bool convolve = false;
  // Known at generation (not only at run time as in_valid / out_valid): elements i >= inZeroFrom of
  // each FFT read as zero, elements i >= outDropFrom are never stored (-1: none). A Bluestein
  // convolution of length M pads N <= M / 2 inputs and keeps N outputs: M / 2 for any N, so the
  // source stays the same for every N of one M while the first pass skips half its loads and
  // arithmetic and the last pass half its stores.
  long long inZeroFrom = -1, outDropFrom = -1;
  // Several axes in one kernel (a 2D or 3D plane that fits one block): their lengths, slowest first, product = length.
  // The load puts element (i_0, .., i_{D-1}) of the row-major plane at the digit-reversed shared index (fastest axis
  // as the top digit); the factors are each axis's, fastest axis first; and the twiddles of a pass within an axis
  // are that axis's alone (Twiddles.h). The passes then leave the plane's D-dimensional DFT in row-major order, so
  // the store is a 1D store. Empty: one axis.
  std::vector<int> axes;
  // Mirrored FFT pairs (MirrorPairs.h): digit 0 of the FFT index (count batchCount[0]) is visited as pairs r, m - r, so
  // that the r2c split (R2CPost) or the c2r merge (C2RPre) finds element L - k of the half in the block.
  bool mirrored = false;
  // Odd r2c / c2r: batch entries in pairs, one complex FFT per pair (Access::pairOffset on the user's side). The count
  // argument is then `entries` (batch entries x FFTs per entry) and the kernel runs ceil(entries / 2) pairs' FFTs; the
  // pair is the last batch digit.
  bool pairedBatch = false;
  // A column or row step of a 1D FFT past one kernel (its default grid is persistent: chooseGeometry).
  bool longStep = false;
  KernelTuning tuning;
};

// The launch geometry the emitter chose.
struct KernelGeometry {
  int threadsPerFft = 1, fftsPerBlock = 1;
  int sharedBytes = 0;  // dynamic shared memory
  int smemStride = 1;   // complex elements per FFT in shared memory (before padding)
  int padShift = 4;     // shared index x is stored at x + (x >> padShift)
  bool fftMajorLoad = false,
       fftMajorStore = false;  // consecutive threads walk FFTs (column tiles) rather than elements
  bool columnTile() const { return fftMajorLoad || fftMajorStore; }
  int registerTarget = 64;
  int vectorBytesIn = 0,
      vectorBytesOut = 0;  // > 0: the user array is read/written in vectors of this size (pointer alignment)
  bool directLoad = false, directStore = false;  // the first/last radix pass touches global memory itself
  bool persistent = false;                       // grid = resident blocks (see KernelTuning)
  // Per-thread indices recomputed in every group iteration from an opaque threadIdx read, rather
  // than computed once and held across the group loop: fewer registers, a few more instructions
  // per group. SpillFree.cpp turns it on where the hoisted kernel spills and groups are long.
  bool indexPerGroup = false;
  // A butterfly loads only its twiddles W^(k r) for r a power of two and multiplies the others
  // together (W^(3k) = W^(2k) W^(k), ...): 4 loads instead of 15 for radix 16, at most 3 roundings
  // deeper: the default for half storage and length >= 4096, where the table loads weigh most (Geometry.cpp).
  bool deriveTwiddles = false;
  // Blocks take their groups after the first from a counter in global memory (the kernel's
  // `work` argument: two zeroed 64-bit words, left zeroed by the kernel) instead of every
  // gridDim-th group: a block that runs faster takes more, so no SM idles at the end.
  bool workQueue = false;
  // r2c: the last pass computes butterflies q and ns - q together and writes the split outputs
  // X[k] and X[L - k] from registers (StockhamEmitter splitPass), instead of staging Z in shared
  // memory and running an element loop over the L + 1 outputs after a barrier.
  bool fusedSplit = false;
  // Persistent blocks copy the next group's input into shared memory (cp.async) while the last pass of this group
  // computes and stores: the last pass reads all its inputs into registers first, then a barrier frees the buffer.
  // Kernels of one resident block per SM otherwise leave DRAM idle while they compute. Only where the load is a
  // contiguous run of the compute type and the last pass stores to global memory itself (Geometry.cpp); a long FFT's
  // column step instead issues the copy in its column-tile store, once the tile is read into registers.
  bool prefetch = false;
};

}  // namespace warpforge
