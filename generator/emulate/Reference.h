#pragma once
// Double-precision references and error measures.
#include <complex>
#include <cstdint>
#include <vector>

namespace warpforge {

using cdouble = std::complex<double>;

// Y_q = sum_{n < nIn} exp(sign 2 pi i q n / nOut) x_n on the zero-padded input, in double: kissfft's mixed
// radix (BSD-3-Clause) where every prime factor is small, Bluestein over power-of-two lengths otherwise. Tests
// check it against FFTW, which only tests and bench link.
std::vector<cdouble> referenceDft(const std::vector<cdouble>& x, int nOut, int sign);

// Multi-dimensional DFT (row-major, dims outermost first): referenceDft along each axis.
std::vector<cdouble> referenceDftNd(const std::vector<cdouble>& x, const std::vector<int>& dims, int sign);

// ||out - ref|| / ||ref|| (2-norms).
double relativeError(const std::vector<cdouble>& out, const std::vector<cdouble>& ref);

// Uniform in [-1, 1] for both parts, from a fixed seed.
std::vector<cdouble> randomComplex(std::size_t n, std::uint64_t seed);

}  // namespace warpforge
