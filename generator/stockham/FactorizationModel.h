#pragma once
// How a one-kernel length is factored into radix passes (largest radix first, the order the kernels run them).
//  - factorizeStockhamGreedy: the power-of-two part spread evenly over the fewest passes of radix <= 16, the odd part
//    greedily, largest radix first (radix 49 only where maxRadix admits it: its butterfly needs ~250 registers).
//    Primes 17..maxPrime are radices at any maxRadix (no smaller radix can replace them).
//  - factorizeStockhamModel: every factorization over the model's radices (composites such as 6 and 10 included),
//    scored by factorizationCost, the lowest taken.
//  - factorizeStockham: the greedy rule for powers of two, and wherever the model expects less than a clear gain.
// Each throws std::invalid_argument naming the first prime that is not a radix.
// r2cSplit: the kernel fuses the r2c split into its last pass (StockhamPlan), which favours a small last radix.
#include <functional>
#include <vector>

namespace warpforge {

// plainF32: an f32 c2c row kernel of a 1D length without fusions or tables, the kind whose threshold was timed (the
// model's choice from a 3.5 % expected gain there, 10 % elsewhere).
std::vector<int> factorizeStockham(int n, int maxRadix = 27, int maxPrime = 31, bool f64 = false, bool r2cSplit = false,
                                   bool plainF32 = false);
std::vector<int> factorizeStockhamGreedy(int n, int maxRadix = 27, int maxPrime = 31);
std::vector<int> factorizeStockhamModel(int n, int maxRadix = 27, int maxPrime = 31, bool f64 = false,
                                        bool r2cSplit = false);
// Calls visit for every multiset of `radices` (given largest first) whose product is n, each largest first, with at
// most maxFactors factors: the search of factorizeStockhamModel and of the long-FFT kernels (LongFftFactors.h).
void forEachFactorization(int n, const std::vector<int>& radices, std::size_t maxFactors,
                          const std::function<void(const std::vector<int>&)>& visit);

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

}  // namespace warpforge
