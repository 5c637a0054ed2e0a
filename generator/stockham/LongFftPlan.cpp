// Lengths past one kernel: N = n1 x n2 as a column kernel (n1-point FFTs at stride n2, times the four-step twiddle
// W_N^(k1 j2)) and a row kernel (n2-point FFTs, transposed store) through scratch; or three kernels, the rows of n2
// two kernels themselves.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "generator/stockham/PlanBuilder.h"

namespace warpforge {

// n1 of a two-kernel split N = n1 x n2 (0 where none): the largest divisor up to sqrt(N) whose cofactor one kernel
// holds; where none is (f64 3^15 = 2187 x 6561 against 4096), the row kernel may take up to the shared memory of
// the largest f32 kernel (16384 x 8 B: f64 8192), the column kernel staying below sqrt(N). A column length of
// radix primes first; else one with cooperative primes (CoopRadix.h), for an N that has one (its cofactor then
// is cooperative-smooth too).
int PlanBuilder::twoKernelSplit(long long N) const {
  for (bool coop : {false, true})
    for (int limit : {maxSingleKernelLength(s_.precision), maxSplitRowLength(s_.precision)})
      for (int d = static_cast<int>(std::sqrt(static_cast<double>(N))); d >= 2; --d)
        if (N % d == 0 && N / d <= limit && (coop ? isCoopSmooth(d, maxPrime_) : isSmooth(d, maxPrime_))) return d;
  return 0;
}

int PlanBuilder::tunedTwoKernelSplit(long long N) const {
  const int n1 = s_.tuning.split;
  if (n1 >= 2 && N % n1 == 0 && n1 <= maxSingleKernelLength(s_.precision) &&
      N / n1 <= maxSplitRowLength(s_.precision) && isCoopSmooth(n1, maxPrime_) && isCoopSmooth(N / n1, maxPrime_))
    return n1;
  return twoKernelSplit(N);
}

// n1 of a three-kernel plan N = n1 x (m1 x m2) (0 where none): the radix-smooth divisor whose cofactor has a
// two-kernel split, the longest of the three lengths the shortest (each near the cube root of N).
int PlanBuilder::threeKernelSplit(long long N) const {
  int best = 0;
  long long bestLongest = 0;
  for (int d = 2; static_cast<long long>(d) * d * d <= N; ++d) {
    if (N % d || !isSmooth(d, maxPrime_)) continue;
    const int m1 = twoKernelSplit(N / d);
    if (m1 == 0) continue;
    const long long longest = std::max<long long>(d, N / d / m1);
    if (best == 0 || longest <= bestLongest) best = d, bestLongest = longest;
  }
  return best;
}

// f16 scratch between the kernels of a plain job (no tables: Bluestein's convolutions stay in float): half the
// intermediate traffic for one more rounding to f16, which leaves the error well below cuFFT's own f16 error. A real
// transform's complex half (its split or merge fused into the last or first kernel) only where the tuning asks: it
// runs on the CPU against FFTW but has not been measured on a GPU.
bool PlanBuilder::halfScratch(const Job& j) const {
  if (s_.precision != Precision::F16 || j.hasLoadTable || j.hasStoreTable) return false;
  return j.fuse == Fuse::None ? s_.tuning.halfScratch != false : s_.tuning.halfScratch == true;
}

// Three kernels for a radix-smooth length past one kernel (the plain job: no tables or bounds on the output, whose
// natural index the inner split would reorder): where the tuning asks, and by default for f16 with its scratch in
// f16 where the two-kernel split has a side of 4096 or more, whose column tiles stage 4096 float values per column at
// one block per SM (shorter sides run as fast or faster in two kernels).
// And for odd f32 lengths whose split has a side of 2048 or more: their column tiles hold 2-4 FFTs, rows of 16-32
// bytes that start anywhere in a sector (sides of 343-729 run faster in two kernels).
// And for f64 where a side passes 2048 (2^23 = 2048 x 4096, 3^14 = 2187^2, 7^8 = 2401^2, 5^9 = 625 x 3125): column
// tiles of 2-4 such FFTs and rows that hold a long FFT's values across its passes (7^4 spills at every geometry); and
// for f32 where both sides are 4096 or more (2^24), whose column tiles hold 4 FFTs, rows of 32 bytes. Sides of 2048
// (f64 2^21, 2^22) and f32 2048 x 4096 ran as fast or faster in two kernels.
bool PlanBuilder::threeKernels(const Job& j) const {
  if (s_.tuning.threeKernels == false || j.fuse != Fuse::None || j.hasStoreTable || j.outValid >= 0 ||
      isReal(j.out.storage))
    return false;
  if (s_.tuning.threeKernels != true) {
    const int n1 = twoKernelSplit(j.n);
    const long long side = n1 == 0 ? 0 : std::max<long long>(n1, j.n / n1);
    const long long shortSide = n1 == 0 ? 0 : std::min<long long>(n1, j.n / n1);
    const bool halfRule = halfScratch(j) && side >= 4096;
    const bool oddRule = s_.precision == Precision::F32 && j.n % 2 == 1 && side >= 2048;
    const bool f64Rule = s_.precision == Precision::F64 && side > 2048;
    const bool f32Rule = s_.precision == Precision::F32 && shortSide >= 4096;
    if (!halfRule && !oddRule && !f64Rule && !f32Rule) return false;
  }
  return threeKernelSplit(j.n) > 0;  // the search over splits last: it tries every divisor up to the cube root
}

// N = n1 x n2, the rows of n2 two kernels themselves: steps 2 and 3 read and write whole sectors as the two-kernel
// plan's do, each FFT a third of N's digits (f16 2^24: three passes of 256 points, where two passes of 4096 leave
// one column block per SM).
void PlanBuilder::addThreeKernels(const Job& j) { addTwoKernels(j, threeKernelSplit(j.n), 1, 3); }

// N = N1 * N2: X[k1 + N1 k2] = sum_j2 W_N2^{j2 k2} W_N^{j2 k1} sum_j1 x[j1 N2 + j2] W_N1^{j1 k1}.
// steps == 3: the rows of N2 are two kernels too (steps 2 and 3), their FFTs ordered with k1 innermost, so that
// the last step's column tile stores consecutive addresses.
void PlanBuilder::addTwoKernels(const Job& j, int n1, int step, int steps) {
  const long long N = j.n;
  if (n1 == 0) n1 = tunedTwoKernelSplit(N);
  if (n1 == 0) throw std::logic_error(fmt::format("stockham plan: no two-kernel split of {}", N));
  const int n2 = static_cast<int>(N / n1);
  const Buffer scratch = freeTmp(j);
  const bool half = halfScratch(j);
  reserve(scratch, N * j.fftsPerBatch(), half);
  Side tmpA = dense(scratch, N, j.counts);  // tmp[k1 * N2 + j2]
  if (half) tmpA.storage = Storage::C16;
  const bool nestedRows = steps - step == 2;
  auto stepName = [&](int k) { return fmt::format("step {}/{}", step + k, steps); };

  Job a = j;
  a.longStep = true;
  a.role = j.role + fmt::format(", {}: {} columns of {} (stride {}) times W_{}^(k1 j2)", stepName(0), n2, n1, n2, N);
  if (!a.kernelRole.empty()) a.kernelRole += fmt::format(", {} (columns)", stepName(0));
  a.n = n1;
  a.factors = {};
  a.counts.insert(a.counts.begin(), n2);
  a.in.elemStride = j.in.elemStride * n2;
  a.in.batchStride.insert(a.in.batchStride.begin(), j.in.pairStride());
  if (isReal(j.in.storage) && !j.in.scalarReal) a.in.imStride = j.in.imStride ? j.in.imStride : j.in.elemStride;
  a.out = tmpA;
  a.out.elemStride = n2;
  a.out.batchStride.insert(a.out.batchStride.begin(), 1);
  a.outValid = -1;
  a.storeTable.clear();
  a.hasStoreTable = false;
  // A real half: the c2r merge in the column kernel, the r2c split in the row kernel, both as mirrored FFT pairs.
  a.fuse = j.fuse == Fuse::C2RPre ? j.fuse : Fuse::None;
  if (a.fuse == Fuse::C2RPre) {
    a.mirrored = true;
    a.loadTable = mirroredRealTable(j.fuseN, n2, n1, n2, +1);
    a.hasLoadTable = true;
  }
  StockhamPlanKernel ka = kernel(a, n1, {});
  ka.desc.natInElem = n2;
  ka.desc.natInDigit0 = 1;
  ka.desc.bigN = N;
  long long split = 1;
  while (split * split < N) split *= 2;
  ka.desc.bigSplit = split;
  for (long long r = 0; r < split; ++r) ka.bigLo.push_back(unitRoot(r, N, j.sign));
  for (long long h = 0; h * split < N; ++h) ka.bigHi.push_back(unitRoot(h * split, N, j.sign));
  plan_.kernels.push_back(std::move(ka));

  Job b = j;
  b.longStep = true;
  b.role = j.role + fmt::format(", {}: {} rows of {}, stored at stride {}",
                                nestedRows ? fmt::format("steps {}-{}", step + 1, steps) : stepName(1), n1, n2,
                                steps == 3 ? j.out.elemStride * n1 : n1);
  if (!b.kernelRole.empty()) b.kernelRole += fmt::format(", {} (rows)", stepName(1));
  b.n = n2;
  b.factors = {};
  b.counts.insert(b.counts.begin(), n1);
  b.in = tmpA;
  b.in.batchStride.insert(b.in.batchStride.begin(), n2);
  b.out.elemStride = j.out.elemStride * n1;
  b.out.batchStride.insert(b.out.batchStride.begin(), j.out.pairStride());
  if (isReal(j.out.storage) && !j.out.scalarReal) b.out.imStride = j.out.imStride ? j.out.imStride : j.out.elemStride;
  b.inValid = -1;
  b.loadTable.clear();
  b.hasLoadTable = false;
  b.fuse = j.fuse == Fuse::R2CPost ? j.fuse : Fuse::None;
  if (b.fuse == Fuse::R2CPost) {
    b.mirrored = true;
    b.storeTable = mirroredRealTable(j.fuseN, n1, n2, n1, -1);
    b.hasStoreTable = true;
  }
  if (nestedRows) return addTwoKernels(b, 0, step + 1, steps);
  if (steps == 3) {  // the inner rows of a three-kernel plan: k1 (output stride 1) innermost, then k1' (stride n1)
    std::swap(b.counts[0], b.counts[1]);
    std::swap(b.in.batchStride[0], b.in.batchStride[1]);
    std::swap(b.out.batchStride[0], b.out.batchStride[1]);
  }
  StockhamPlanKernel kb = kernel(b, n2, {});
  kb.desc.natOutElem = n1;
  kb.desc.natOutDigit0 = 1;
  plan_.kernels.push_back(std::move(kb));
}

}  // namespace warpforge
