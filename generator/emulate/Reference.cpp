#include "generator/emulate/Reference.h"

#include <cmath>
#include <mutex>
#include <random>

#include <fftw3.h>

namespace warpforge {

namespace {
std::mutex planMutex;  // FFTW planning is not thread-safe
}

std::vector<cdouble> referenceDft(const std::vector<cdouble>& x, int nOut, int sign) {
  std::vector<cdouble> in(nOut, 0.0), out(nOut);
  for (std::size_t i = 0; i < x.size() && i < in.size(); ++i) in[i] = x[i];
  fftw_plan p;
  {
    std::lock_guard<std::mutex> lock(planMutex);
    p = fftw_plan_dft_1d(nOut, reinterpret_cast<fftw_complex*>(in.data()), reinterpret_cast<fftw_complex*>(out.data()),
                         sign > 0 ? FFTW_BACKWARD : FFTW_FORWARD, FFTW_ESTIMATE);
  }
  fftw_execute(p);
  {
    std::lock_guard<std::mutex> lock(planMutex);
    fftw_destroy_plan(p);
  }
  return out;
}

std::vector<cdouble> referenceDftNd(const std::vector<cdouble>& x, const std::vector<int>& dims, int sign) {
  std::vector<cdouble> in(x), out(x.size());
  fftw_plan p;
  {
    std::lock_guard<std::mutex> lock(planMutex);
    p = fftw_plan_dft(static_cast<int>(dims.size()), dims.data(), reinterpret_cast<fftw_complex*>(in.data()),
                      reinterpret_cast<fftw_complex*>(out.data()), sign > 0 ? FFTW_BACKWARD : FFTW_FORWARD, FFTW_ESTIMATE);
  }
  fftw_execute(p);
  {
    std::lock_guard<std::mutex> lock(planMutex);
    fftw_destroy_plan(p);
  }
  return out;
}

double relativeError(const std::vector<cdouble>& out, const std::vector<cdouble>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    cdouble o = i < out.size() ? out[i] : cdouble(NAN, NAN);
    num += std::norm(o - ref[i]);
    den += std::norm(ref[i]);
  }
  double e = std::sqrt(num / den);
  return std::isnan(e) ? INFINITY : e;
}

std::vector<cdouble> randomComplex(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<cdouble> v(n);
  for (auto& z : v) {
    double re = u(rng);
    z = cdouble(re, u(rng));
  }
  return v;
}

}  // namespace warpforge
