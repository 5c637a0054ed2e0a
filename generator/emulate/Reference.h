#pragma once
// Double-precision references and error measures.
#include <complex>
#include <cstdint>
#include <vector>

namespace warpforge {

using cdouble = std::complex<double>;

// Y_q = sum_{n < nIn} exp(sign 2 pi i q n / nOut) x_n, via FFTW on the
// zero-padded input (sign +1 is FFTW_BACKWARD).
std::vector<cdouble> referenceDft(const std::vector<cdouble>& x, int nOut, int sign);

// Multi-dimensional DFT (row-major, dims outermost first), via FFTW.
std::vector<cdouble> referenceDftNd(const std::vector<cdouble>& x, const std::vector<int>& dims, int sign);

// ||out - ref|| / ||ref|| (2-norms).
double relativeError(const std::vector<cdouble>& out, const std::vector<cdouble>& ref);

// Uniform in [-1, 1] for both parts, from a fixed seed.
std::vector<cdouble> randomComplex(std::size_t n, std::uint64_t seed);

}  // namespace warpforge
