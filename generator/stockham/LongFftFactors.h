#pragma once
// Long FFTs (one FFT per block, the block's shared memory holding all of it) run one block per SM, and every pass but
// the first and last holds all of a thread's values in registers between its shared-memory read and write. There the
// factorization decides more than anywhere else: the fewest passes at one butterfly of the largest radix per thread,
// compiled without spilling. The default factorization (a model that assumes 64-128 registers) and the spill-free
// fallback (halving the threads) can leave a long FFT on few threads at 255 registers: f64 5000 = 8 x 5^4 on 156
// threads, where 10 x 10 x 10 x 5 runs on 500 threads at 116 registers.
#include <string>

#include "generator/stockham/SpillFree.h"
#include "generator/stockham/StockhamPlan.h"

namespace warpforge {

// Whether the kernel is a long one-FFT row kernel whose factorization the compiler may choose (no factors, threads,
// block or register target pinned by the spec).
bool isLongFftKernel(const KernelDesc& d, bool factorsPinned);

// Candidate factorizations of a long FFT, largest radix first, best first: fewest passes, then the most threads (one
// butterfly of the largest radix per thread unless a middle pass would hold more than 1.5x its values; at least
// kLongFftMinThreads, at most 1024), then the fewest values held in a middle pass. Radices up to 32 (f64: 16) of the
// primes 2, 3, 5 (7 alone or with 2; 11, 13 alone) and 49.
std::vector<std::vector<int>> longFftFactorizations(int length, bool f64);

// The kernel of the first candidate (up to kLongFftCandidates compiled for `arch`) that compiles clean
// (kTolerableSpillBytes), else, where the plan's own kernel spills, that spills at most kLongFftTolerableSpill bytes
// (then the same with the smallest radix first, for more threads than the plan's kernel), where it has fewer passes or
// more threads than emitStockhamSpillFree's kernel of the plan's factors; the plan kernel's factors and twiddles are
// updated to it. Otherwise (and without a probe) emitStockhamSpillFree's kernel.
SpillFreeKernel emitLongFftKernel(StockhamPlanKernel& k, const std::string& arch, CompileProbe* probe);

constexpr int kLongFftMinThreads = 256;
constexpr int kLongFftTolerableSpill = 64;
constexpr std::size_t kLongFftCandidates = 8;  // factorizations compiled per order

}  // namespace warpforge
