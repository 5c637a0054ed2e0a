// Lengths with a prime factor no radix pass takes: Bluestein's algorithm, a circular convolution of length M >= 2n - 1
// (BluesteinLength.h) with the chirp fused into the loads and stores of its FFTs; in one kernel where M fits
// (KernelDesc::convolve, BluesteinKernel.h), else as two FFT jobs through scratch.
#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "generator/emulate/Reference.h"
#include "generator/stockham/BluesteinLength.h"
#include "generator/stockham/PlanBuilder.h"

namespace warpforge {

// y_k = c_k sum_j (x_j c_j) conj(c_{k-j}), c_j = exp(sign pi i j^2 / n): a circular
// convolution of length M >= 2n - 1 (a power of two, or with tuning "bluestein": "smooth" a 7-smooth length) done as
// FFT_M, pointwise product, IFFT_M.
void PlanBuilder::addBluestein(const Job& j) {
  const long long n = j.n;
  // The spec's M (planStockham pins one-kernel convolutions, BluesteinLength.h), else "smooth" / past 8192 the
  // cheapest 7-smooth M, which runs faster than the next power of two (fewer points)
  const long long M = s_.tuning.bluesteinLength > 0
                          ? s_.tuning.bluesteinLength
                          : bluesteinLength(n, s_.tuning.bluestein == BluesteinRule::PowerOfTwo);
  if (M < 2 * n - 1)
    throw std::logic_error(
        "stockham plan: a Bluestein convolution shorter than 2n - 1");  // the parser checks the tuning's
  std::vector<cd> chirp, bh;
  if (tables_) {
    chirp.resize(n);
    std::vector<cd> b(M, 0.0);
    for (long long k = 0; k < n; ++k) chirp[k] = unitRoot((k * k) % (2 * n), 2 * n, j.sign);
    for (long long k = 0; k < n; ++k) {
      b[k] = std::conj(chirp[k]);
      if (k) b[M - k] = std::conj(chirp[k]);
    }
    bh = referenceDft(b, static_cast<int>(M), -1);
    for (auto& v : bh) v /= static_cast<double>(M);
  }
  if (M <= maxConvolveKernelLength(s_.precision)) {
    // The whole convolution in one kernel: the length-M sequence never leaves shared memory, so
    // the kernel moves N elements in and N out instead of N + 2M + N through a scratch buffer.
    Job c = j;
    c.role = j.role +
             fmt::format(
                 ", Bluestein {} via {} in one kernel: chirp, FFT, times FFT(conj chirp)/M, inverse FFT, times chirp",
                 n, M);
    c.kernelRole = fmt::format(
        "Bluestein convolution of length {} in one kernel: chirp and zero padding, FFT, times FFT(conj chirp)/M, "
        "inverse FFT, times chirp, first N outputs",
        M);
    c.n = static_cast<int>(M);
    c.sign = -1;  // the twiddle table is the forward half's; the inverse half conjugates it
    c.factors = {};
    c.inValid = j.inValid >= 0 ? std::min<long long>(j.inValid, n) : n;
    c.loadTable = chirp;
    c.hasLoadTable = true;
    c.outValid = j.outValid >= 0 ? std::min<long long>(j.outValid, n) : n;
    c.storeTable = std::move(chirp);
    c.hasStoreTable = true;
    StockhamPlanKernel k = kernel(c, static_cast<int>(M), {});
    k.desc.convolve = true;
    k.desc.inZeroFrom = k.desc.outDropFrom = (M + 1) / 2;  // n <= (M + 1) / 2 for any n this M serves (M >= 2n - 1)
    k.bigLo = std::move(bh);
    reserve(k.src, 0);
    plan_.kernels.push_back(std::move(k));
    return;
  }
  const Buffer conv = freeTmp(j);
  reserve(conv, M * j.fftsPerBatch());
  Job f = j;
  f.role = j.role + fmt::format(", Bluestein {} via {}: chirp, FFT, times FFT(conj chirp)/M", n, M);
  f.kernelRole = fmt::format("Bluestein convolution of length {}: chirp and zero padding, FFT, times FFT(conj chirp)/M",
                             M);
  f.n = static_cast<int>(M);
  f.sign = -1;
  f.factors = {};
  f.inValid = j.inValid >= 0 ? std::min<long long>(j.inValid, n) : n;
  f.loadTable = chirp;
  f.hasLoadTable = true;
  f.out = dense(conv, M, j.counts);
  f.outValid = -1;
  f.storeTable = std::move(bh);
  f.hasStoreTable = true;
  addJob(f);
  f = Job{};  // its tables are copied into the kernels: do not hold them twice
  Job i = j;
  i.role = j.role + fmt::format(", Bluestein {} via {}: inverse FFT, times chirp", n, M);
  i.kernelRole = fmt::format("Bluestein convolution of length {}: inverse FFT, times chirp, first N outputs", M);
  i.n = static_cast<int>(M);
  i.sign = +1;
  i.factors = {};
  i.in = dense(conv, M, j.counts);
  i.inValid = -1;
  i.loadTable.clear();
  i.hasLoadTable = false;
  i.outValid = j.outValid >= 0 ? std::min<long long>(j.outValid, n) : n;
  i.storeTable = std::move(chirp);
  i.hasStoreTable = true;
  addJob(i);
}

}  // namespace warpforge
