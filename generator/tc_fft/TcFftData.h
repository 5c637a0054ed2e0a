#pragma once
// What a tc_fft run is checked with: random f16 inputs, the comparison with
// a double FFT (every output written, padding untouched), and the cuFFT f16
// baseline on the zero-padded input.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "generator/core/Facets.h"
#include "generator/verify/Program.h"

namespace warpforge {

// TestData::logical of a tc_fft run: what check() and the baseline need to read the input back.
struct TcFftTestData {
  std::uint64_t seed = 0;  // also picks the sampled FFTs of large batches
  long long inputDistance = 0;
};

// Uniform in [-1, 1] (both parts, padding included) rounded to f16, `inputDistance` complex elements per FFT.
TestData tcFftRandomInputs(const LayoutProgram& p, long long inputDistance, long long batch, std::uint64_t seed);

// Every FFT when batch <= 4096, else the first, the last and 4096 sampled. The output
// distance is read from the size of outputs["output"] (whatever the run's parameter was).
// `bound`: the error bound of the kernel that ran (0: tcFftErrorBound(p), the bound of p's own program).
Check tcFftCheck(const LayoutProgram& p, const TestData& data,
                 const std::map<std::string, std::vector<unsigned char>>& outputs, long long batch, double bound = 0);

// The bound on ||y - ref|| / ||ref|| for f16 inputs in [-1, 1]: first-order f16 rounding of every step (TcFftData.cpp),
// so it grows with the number of steps and the bits each MMA sums.
double tcFftErrorBound(const LayoutProgram& p);
// The same bound had the program the given accumulation ("f16" or "f32"), for `auto` to compare.
double tcFftErrorBound(const LayoutProgram& p, const std::string& accumulate);
// The complex multiplies an f32-accumulating program runs in f32 (each right after the MMA whose output only it reads).
int f32ComplexMultiplies(const LayoutProgram& p);

// cuFFT C2C f16 of length n_out on the input zero-padded to n_out.
BaselineRequest tcFftBaseline(const LayoutProgram& p);

}  // namespace warpforge
