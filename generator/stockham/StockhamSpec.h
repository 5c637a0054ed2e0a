#pragma once
// The `stockham` family: batched 1D/2D/3D FFTs (c2c, r2c, c2r) in f16, f32 or
// f64 with rocFFT-style affine layouts (strides per dimension, distance,
// offset), interleaved or planar, optional explicit factorization, and input
// fusions (complex int8/int4 widened in the load, implicit zero padding).
#include <functional>
#include <string>
#include <vector>

#include "generator/stockham/KernelDesc.h"
#include "warpforge/json.h"

namespace warpforge {

struct StockhamIo {
  std::vector<long long> strides;  // per dimension, outermost first; complex elements (reals for real arrays)
  long long distance = 0, offset = 0;
  bool planar = false;
  std::string type;                // input only: "" (the precision), "ci8" or "ci4"
  long long validLength = -1;      // input only, 1D c2c: elements present, the rest read as zeros
  std::string stridesKey;          // "stride" or "strides" where the spec gave them: the JSON path of errors
};

struct StockhamSpec {
  std::string file, name;
  std::string precision = "f32";   // f16 | f32 | f64 (f16 stores half, computes in float)
  std::string transform = "c2c";   // c2c | r2c | c2r
  std::vector<int> lengths;        // logical lengths (real lengths for r2c/c2r), outermost first
  int sign = -1;                   // forward = exp(-2 pi i ...) as cuFFT/FFTW
  bool inPlace = false;
  StockhamIo input, output;
  std::vector<int> factors;        // 1D single-kernel only; empty: chosen by the generator
  KernelTuning tuning;             // launch-geometry overrides for every kernel of the plan ("tuning")

  int length() const { return lengths.back(); }
  long long complexLength() const { return transform == "c2c" ? length() : length() / 2; }  // 1D: r2c / c2r run N/2 complex points
  long long points() const;                     // product of the lengths
  std::vector<long long> inShape() const;       // array shapes: r2c/c2r have N/2+1 on the complex side
  std::vector<long long> outShape() const;
};

// Errors are SpecErrors naming `file` and the JSON path.
StockhamSpec parseStockhamSpec(const Json& root, const std::string& file);
StockhamSpec parseStockhamSpecText(const std::string& text, const std::string& file);
StockhamSpec parseStockhamSpecFile(const std::string& file);

// Radices with generated butterflies, largest first (the default order).
const std::vector<int>& stockhamRadices();
// The generator's factorization, radices at most maxRadix, largest first: the
// power-of-two part spread evenly over the fewest passes of radix <= 16, the odd
// part greedily (radix 49 only where maxRadix admits it: its butterfly needs
// ~250 registers; 2401 = 7^4 ran 1.6x faster than 49 x 49 on the H100). Throws
// std::invalid_argument naming the first prime that is not a radix.
// Primes 17..maxPrime are radices at any maxRadix (no smaller radix can replace them).
// factorizeStockhamGreedy is that rule; factorizeStockham keeps it for powers of two and where
// factorizeStockhamModel (every factorization over the model's radices, composites such as 6, 10,
// 12, 15, 20 included, scored by factorizationCost, the lowest taken) expects less than 10% gain.
// r2cSplit: the kernel fuses the r2c split into its last pass (StockhamPlan), which favours a small last radix.
std::vector<int> factorizeStockham(int n, int maxRadix = 27, int maxPrime = 31, bool f64 = false, bool r2cSplit = false);
std::vector<int> factorizeStockhamGreedy(int n, int maxRadix = 27, int maxPrime = 31);
// Calls visit for every multiset of `radices` (given largest first) whose product is n, each largest first, with at
// most maxFactors factors: the search of factorizeStockhamModel and of the long-FFT kernels (LongFftFactors.h).
void forEachFactorization(int n, const std::vector<int>& radices, std::size_t maxFactors, const std::function<void(const std::vector<int>&)>& visit);
std::vector<int> factorizeStockhamModel(int n, int maxRadix = 27, int maxPrime = 31, bool f64 = false, bool r2cSplit = false);
// The cost model's view of one factorization (largest radix first) of a single-kernel length n.
struct FactorCost {
  int threads = 1;     // threads per FFT (balancedThreadsPerFft)
  int held = 1;        // peak complex values per thread
  int iterations = 1;  // peak butterflies per thread in one pass
  int registers = 0;   // estimated registers per thread
  int warps = 0;       // estimated resident warps per SM
  double time = 0;     // estimated SM clocks per point
  double score = 0;    // time x (1 + 5% per iteration above 2 in the busiest pass)
};
FactorCost factorizationCost(int n, const std::vector<int>& factors, bool f64, bool r2cSplit = false);
bool isSmooth(long long n, int maxPrime = 31);  // all prime factors are radices (2..13 and 17..maxPrime)
// Smooth, or with prime factors 37..127 too: the cooperative passes of one-kernel FFTs (CoopRadix.h).
bool isCoopSmooth(long long n, int maxPrime = 31);
bool isLargePrimeRadix(int r);  // the primes 17..127 (37 and up: cooperative passes, CoopRadix.h)
// The largest prime radix per precision: the symmetric butterfly holds (R - 1) / 2 sums and
// differences; f64 radix 29 and 31 spilled at 255 registers (ptxas, sm_80 and sm_90).
int maxPrimeRadix(const std::string& precision);

// Largest length one shared-memory kernel transforms on every arch (sm_86 aside), per precision: the axes of 2D / 3D
// transforms, fused planes, the sides of two-kernel splits and cooperative-prime kernels keep it. A 1D length of
// radix primes takes one kernel up to maxOneKernelLength (StockhamPlan.h), which depends on the arch.
int maxSingleKernelLength(const std::string& precision);
// Largest Bluestein convolution done in one kernel (KernelDesc::convolve), as the single-kernel
// limit; longer convolutions take two kernels each way through a scratch buffer. (At 16384, f32,
// the kernel spills 32 bytes per thread at 1024 threads and 64 registers: SpillFree keeps it.)
int maxConvolveKernelLength(const std::string& precision);
// The row kernel of a two-kernel plan where no split has both sides within maxSingleKernelLength
// (f64 3^15 = 2187 x 6561): the shared memory of the largest f32 kernel (f64 8192).
int maxSplitRowLength(const std::string& precision);
// r2c/c2r: the largest N/2 (the split/merge kernel holds N/2 + 1 values of one FFT in shared
// memory), and the largest N/2 done in one kernel with the split or merge fused.
constexpr int kMaxRealHalf = 8192;
int maxFusedRealHalf(const std::string& precision);
// Largest 1D length (two kernels; Bluestein convolutions included).
long long maxLength(const std::string& precision);
// Largest Bluestein convolution (a power of two >= 2n - 1): bounds the chirp tables to 256 MiB.
long long maxBluesteinLength(const std::string& precision);
// Bluestein's convolution length for a transform of length n (tuning "bluestein": "smooth"; the default is powerOfTwo
// until the GPU timing says otherwise): the 7-smooth M >= 2n - 1 of least cost
// M (1 + 0.05 x its odd prime factors), the next power of two costing M (mixed-radix passes cost more per point:
// session 8's sweep). n = 9150 (2n - 1 = 18299): 18432 = 2^11 x 9 instead of 32768.
// powerOfTwo (the default plan): the next power of two.
long long bluesteinLength(long long n, bool powerOfTwo = false);

}  // namespace warpforge
