#pragma once
// Stockham autosort FFT kernels, generated through the AST from a KernelDesc:
// a coalesced load of F FFTs into shared memory (element-major for unit
// element stride, FFT-major "column tiles" for unit batch stride), one radix
// pass per factor with straight-line butterflies (Butterfly.h) and twiddles
// from a table, and a coalesced store, with the plan's fusions on the way.
//
// Every kernel has the same parameter list, so one executor launches them all:
//   (in, in_im, out, out_im, twiddles, load_table, store_table, big_lo, big_hi, long long ffts,
//    long long in_valid, long long out_valid, unsigned long long* work)
// (work: the group counters of KernelGeometry::workQueue, zeroed before the first launch.)
// The valid bounds are arguments, not literals, so that Bluestein kernels of one
// convolution length are the same source (and one cache entry) for every N.
#include <optional>
#include <string>
#include <vector>

#include "generator/core/ArchLimits.h"
#include "generator/stockham/KernelDesc.h"

namespace warpforge {

// Bytes of one complex value of the precision (f64: 16, f32: 8).
inline int complexBytes(bool f64) { return f64 ? 16 : 8; }

struct StockhamKernel {
  std::string source;
  KernelDesc desc;
  KernelGeometry geom;
};

KernelGeometry chooseGeometry(const KernelDesc& d, int maxThreadsPerFft = 1024);
// A side whose consecutive FFTs are consecutive in memory (element stride > 1, batch stride one element: a complex
// value, a real pair, a scalar of a scalar real array): its kernel stages it through a column tile of FFTs side by side
// (KernelGeometry::fftMajorLoad / fftMajorStore).
bool isColumnTiled(const Access& a);
// The cooperative prime R (CoopRadix.h) this kernel's threads compute whole, outputs streamed (streamedPrimeLimit), or
// 0: where the kernel's length is R (f64: R <= 47), 2R (f64: R <= 31), R^2 (f32 / f16: R <= 59) or another multiple
// m R (f64: R <= 31) whose other passes hold at most 4/3 R values on m threads (37 x 25 stays cooperative: its radix-25
// pass would hold 50 values at one radix-37 butterfly per thread).
// tuned: the tuning's streamed_prime (false: never; true: the largest cooperative prime up to the limit at any length).
int streamedPrime(const std::vector<int>& factors, int length, bool f64, bool columnTile = false,
                  std::optional<bool> tuned = {});
// Whether the radix-R pass streams at `threads` threads per FFT (one butterfly of it per thread). Column tiles never
// stream (their kernels hold at most 8 f64 / 32 f32 values per thread).
bool streamsPass(const std::vector<int>& factors, int length, int R, int threads, bool f64, bool columnTile = false,
                 std::optional<bool> tuned = {});
// Whether the kernel of `d` at geometry `g` computes its radix-R pass streamed (a cooperative prime R, one thread per
// butterfly): what the emitter, the explanation and the geometry's own choices ask.
bool streamsPass(const KernelDesc& d, const KernelGeometry& g, int R);
// Complex values one thread holds in a radix-r pass of its own butterflies: its share of the pass's length / r
// butterflies over `threads` threads (the last round counted whole), r values each.
inline int passValues(int length, int r, int threads) { return (length / r + threads - 1) / threads * r; }
// Complex values one thread holds in the busiest pass with `threads` threads per FFT.
int heldValues(const std::vector<int>& factors, int length, int threads, bool f64, bool columnTile = false,
               std::optional<bool> tuned = {});
// Threads per FFT the geometry takes by default (no tuning): one butterfly of the largest radix per
// thread, or the thread count of another radix where that holds fewer values (Geometry.cpp). The
// factorization cost model (StockhamSpec.cpp) scores each candidate at this thread count.
int balancedThreadsPerFft(const std::vector<int>& factors, int length, bool f64, int maxThreadsPerFft = 1024,
                          std::optional<bool> tuned = {});
// Shortest run of one FFT's consecutive elements (per warp instruction) that a pass reads or writes
// in global memory itself; shorter runs are staged through shared memory (Geometry.cpp).
constexpr int kMinDirectRunBytes = 64;
// registerTarget 0: the geometry's; else registers per thread to aim for.
// maxThreadsPerFft: fewer threads hold more values each but may use more registers.
// indexPerGroup: sets KernelGeometry::indexPerGroup where given, else the geometry's (from the tuning).
StockhamKernel emitStockhamKernel(const KernelDesc& d, int registerTarget = 0, int maxThreadsPerFft = 1024,
                                  std::optional<bool> indexPerGroup = std::nullopt);

// Column tiles: bytes of one value of a tile row in global memory (the narrower of the FFT-major sides).
int tileRowValueBytes(const KernelDesc& d, const KernelGeometry& g);
// Blocks of `threads` resident per SM of `arch` at `registers` per thread and `sharedBytes` per block (registers
// allocated per warp in units of 256, 64 K per SM; 1 KB of shared memory reserved per block).
int residentBlocksPerSm(int threads, int registers, long long sharedBytes, const std::string& arch = "sm_90");
// The longest FFT whose values (with their pad elements) one block of `arch` holds in shared memory (f16 computes in
// float).
int longestFftInSharedMemory(const std::string& arch, bool f64);
// The register targets a spilling kernel of `threads` per block is relaxed to (SpillFree.cpp) from `target`: one per
// number of resident blocks (65536 registers per SM) below the target's, most blocks first.
std::vector<int> relaxedRegisterTargets(int threads, int target);
// The register target that leaves `blocks` blocks of `threads` resident (registers allocated per warp, in eights).
int registerTargetForBlocks(int threads, int blocks);
// The register target a kernel of `threads` per block starts from (Geometry.cpp; the factorization cost model
// estimates against it): 1024 threads resident, f64 up to 128, f64 kernels of 257..512 threads two blocks unless
// oneBlock (column tiles, or shared memory that keeps one block resident).
int defaultRegisterTarget(int threads, bool f64, bool oneBlock = false);

// C++ type names of a storage, for the emitter and the launch header.
std::string storageElementType(Storage s, bool planar);

}  // namespace warpforge
