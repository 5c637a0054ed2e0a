#include "generator/stockham/StockhamPlan.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "generator/emulate/Reference.h"
#include "generator/stockham/BluesteinLength.h"
#include "generator/stockham/CoopRadix.h"
#include "generator/stockham/StockhamEmitter.h"
#include "generator/stockham/Twiddles.h"
#include "warpforge/spec_error.h"

namespace warpforge {

const char* bufferName(Buffer b) {
  switch (b) {
    case Buffer::Input: return "input";
    case Buffer::Output: return "output";
    case Buffer::Tmp0: return "tmp0";
    case Buffer::Tmp1: return "tmp1";
    case Buffer::Tmp2: return "tmp2";
  }
  return "?";
}

namespace {

using cd = std::complex<double>;

// exp(sign 2 pi i num / den) with the argument reduced exactly.
cd unitRoot(long long num, long long den, int sign) {
  num %= den;
  double a = 2.0 * M_PI * static_cast<double>(num) / static_cast<double>(den);
  return {std::cos(a), sign * std::sin(a)};
}

// One side of a 1D job: where the FFT's elements live.
struct Side {
  Buffer buf = Buffer::Input;
  Storage storage = Storage::C32;
  bool planar = false;
  long long offset = 0, elemStride = 1;
  std::vector<long long> batchStride;  // per job batch digit, innermost first, the user batch last
  long long imStride = 0;              // real arrays: Access::imStride
  // Scalars between complex elements i and i + 1 (a real array holds each complex element as two scalars).
  long long pairStride() const { return isReal(storage) ? 2 * elemStride : elemStride; }
};

// A batch of 1D FFTs of one length; the builder picks single kernel, two
// kernels or Bluestein.
struct Job {
  int n = 1;
  int sign = -1;
  Side in, out;
  std::vector<long long> counts;  // inner batch digit counts (the user batch is the unbounded last digit)
  long long inValid = -1, outValid = -1;
  std::vector<cd> loadTable, storeTable;
  bool hasLoadTable = false, hasStoreTable = false;  // the tables may be left empty (PlanBuilder::tables_)
  Fuse fuse = Fuse::None;
  int fuseN = 0;
  std::vector<int> factors;
  std::vector<int> axes;  // fused axes (KernelDesc::axes): n is their product, factors each axis's, fastest first
  bool copyOnly = false;  // no radix passes: the kernel only applies its fusions (the r2c split, the c2r merge)
  std::string role;
  std::string kernelRole;  // the kernel's header comment where it must not name N (Bluestein)
  long long fftsPerBatch() const {
    long long p = 1;
    for (long long c : counts) p *= c;
    return p;
  }
};

class PlanBuilder {
 public:
  PlanBuilder(const StockhamSpec& s, const std::string& arch, bool tables)
      : s_(s), tables_(tables), maxOneKernel_(maxOneKernelLength(s.precision, arch)) {
    if (!s.factors.empty() && s.length() > maxOneKernel_)
      throw SpecError(s.file, "/factors",
                      fmt::format("length {} takes more than one kernel on {} (one block's shared memory there holds an FFT of up to {}); "
                                  "explicit factors are for one-kernel lengths",
                                  s.length(), arch, maxOneKernel_));
    plan_.specName = s.name;
    plan_.f64 = s.precision == "f64";
    compute_ = plan_.f64 ? Storage::C64 : Storage::C32;
  }

  StockhamPlan build() {
    if (s_.transform == "c2c") buildC2c();
    else buildReal();
    return plan_;
  }

 private:
  Storage userComplex() const { return s_.precision == "f16" ? Storage::C16 : s_.precision == "f32" ? Storage::C32 : Storage::C64; }
  Storage userReal() const { return s_.precision == "f16" ? Storage::R16 : s_.precision == "f32" ? Storage::R32 : Storage::R64; }

  // How many inner axes of a 2D/3D c2c transform one kernel takes together (KernelDesc::axes): the most whose plane
  // holds at most one kernel's length, each axis a smooth length, laid out densely (row-major) in the input and the
  // output, so that the plane is one run per FFT. 1: one kernel per axis. One kernel reads and writes the data once
  // where a kernel per axis moves it once per axis.
  int fusedInnerAxes() const {
    const int D = static_cast<int>(s_.lengths.size());
    if (D < 2 || s_.tuning.fuseAxes == 0 || !s_.factors.empty()) return 1;
    auto dense = [&](const StockhamIo& io, int from) {
      for (int a = from; a < D - 1; ++a)
        if (io.strides[a] != io.strides[a + 1] * s_.lengths[a + 1]) return false;
      return true;
    };
    for (int m = D; m >= 2; --m) {
      long long plane = 1;
      bool smooth = true;
      for (int a = D - m; a < D; ++a) {
        plane *= s_.lengths[a];
        smooth = smooth && s_.lengths[a] > 1 && isSmooth(s_.lengths[a], maxPrime_);
      }
      if (smooth && plane <= maxSingleKernelLength(s_.precision) && dense(s_.input, D - m) && dense(s_.output, D - m)) return m;
    }
    return 1;
  }

  void buildC2c() {
    const int D = static_cast<int>(s_.lengths.size());
    Storage inStorage = s_.input.type == "ci8" ? Storage::CI8 : s_.input.type == "ci4" ? Storage::CI4 : userComplex();
    const int fused = fusedInnerAxes();
    for (int a = D - 1; a >= 0; --a) {
      const bool firstAxis = a == D - 1;
      // The first kernel takes axes a - fused + 1 .. a together; the fused axes count as one of length = their plane.
      const int lo = firstAxis ? a - fused + 1 : a;
      Job j;
      j.n = 1;
      for (int f = lo; f <= a; ++f) j.n *= s_.lengths[f];
      j.sign = s_.sign;
      j.factors = s_.factors;
      if (lo < a) {
        j.axes.assign(s_.lengths.begin() + lo, s_.lengths.begin() + a + 1);
        j.factors.clear();
        for (int f = a; f >= lo; --f) {
          const std::vector<int> axis = defaultFactors(s_.lengths[f], false);
          j.factors.insert(j.factors.end(), axis.begin(), axis.end());
        }
      }
      j.role = D == 1 ? "1D" : lo < a ? fmt::format("axes {}..{} of {}D in one kernel ({} plane)", lo, a, D, fmt::join(j.axes, " x "))
                                      : fmt::format("axis {} of {}D", a, D);
      j.in = Side{firstAxis ? Buffer::Input : Buffer::Output, firstAxis ? inStorage : userComplex(),
                  firstAxis ? s_.input.planar : s_.output.planar, firstAxis ? s_.input.offset : s_.output.offset,
                  firstAxis ? s_.input.strides[a] : s_.output.strides[a], {}};
      j.out = Side{Buffer::Output, userComplex(), s_.output.planar, s_.output.offset, s_.output.strides[a], {}};
      const StockhamIo& inIo = firstAxis ? s_.input : s_.output;
      for (int d = D - 1; d >= 0; --d) {
        if (d >= lo && d <= a) continue;
        j.counts.push_back(s_.lengths[d]);
        j.in.batchStride.push_back(inIo.strides[d]);
        j.out.batchStride.push_back(s_.output.strides[d]);
      }
      j.in.batchStride.push_back(inIo.distance);
      j.out.batchStride.push_back(s_.output.distance);
      if (firstAxis) j.inValid = s_.input.validLength;
      if (s_.inPlace) j.in.buf = Buffer::Output;
      addJob(j);
      a = lo;
    }
  }

  // r2c / c2r of N = 2L as a complex FFT of L on the real array viewed as L pairs, with the
  // split (r2c) or merge (c2r) that relates it to the N-point transform:
  //  - L smooth and at most kMaxFusedHalf: one kernel, the split fused into its store (the merge
  //    into its first pass);
  //  - otherwise: the complex FFT of L by the general path (two kernels or Bluestein) into scratch,
  //    and a copy kernel that applies the split (r2c); or the merge into scratch first (c2r).
  void buildReal() {
    const int N = s_.length(), L = N / 2;
    const bool r2c = s_.transform == "r2c";
    Job j;
    j.n = L;
    j.fuseN = N;
    j.factors = {};
    const Side realSide = r2c ? Side{Buffer::Input, userReal(), false, s_.input.offset, s_.input.strides[0], {s_.input.distance}}
                              : Side{Buffer::Output, userReal(), false, s_.output.offset, s_.output.strides[0], {s_.output.distance}};
    const Side complexSide = r2c ? Side{Buffer::Output, userComplex(), s_.output.planar, s_.output.offset, s_.output.strides[0], {s_.output.distance}}
                                 : Side{Buffer::Input, userComplex(), s_.input.planar, s_.input.offset, s_.input.strides[0], {s_.input.distance}};
    std::vector<cd> w;
    for (int k = 0; k <= L; ++k) w.push_back(unitRoot(k, N, r2c ? -1 : +1));
    if (L <= maxFusedRealHalf(s_.precision) && isSmooth(L, maxPrime_)) {
      if (r2c) {
        j.sign = -1;
        j.fuse = Fuse::R2CPost;
        j.role = fmt::format("r2c of {} as a complex FFT of {} with the split fused into the store", N, L);
        j.in = realSide;
        j.out = complexSide;
        j.storeTable = std::move(w);
        j.hasStoreTable = true;
      } else {
        j.sign = +1;
        j.fuse = Fuse::C2RPre;
        j.role = fmt::format("c2r of {} as a complex FFT of {} with the merge fused into the first pass", N, L);
        j.in = complexSide;
        j.out = realSide;
        j.loadTable = std::move(w);
        j.hasLoadTable = true;
      }
      addSingle(j);
      return;
    }
    const Buffer half = Buffer::Tmp0;
    reserve(half, L);
    Job fft = j, fix = j;
    fix.copyOnly = true;
    fix.fuseN = N;
    if (r2c) {
      fft.sign = -1;
      fft.role = fmt::format("r2c of {}, step 1: complex FFT of {} on the real pairs into scratch", N, L);
      fft.in = realSide;
      fft.out = dense(half, L, {});
      fix.role = fmt::format("r2c of {}, last step: the split X[k] = E[k] + W_N^k O[k], k = 0..{}", N, L);
      fix.sign = -1;
      fix.fuse = Fuse::R2CPost;
      fix.in = dense(half, L, {});
      fix.out = complexSide;
      fix.storeTable = std::move(w);
      fix.hasStoreTable = true;
      addJob(fft);
      addSingle(fix);
    } else {
      fix.role = fmt::format("c2r of {}, step 1: the merge Z[k] = (X[k] + conj X[L-k]) + i W_N^-k (X[k] - conj X[L-k]) into scratch", N);
      fix.sign = +1;
      fix.fuse = Fuse::C2RPre;
      fix.in = complexSide;
      fix.out = dense(half, L, {});
      fix.loadTable = std::move(w);
      fix.hasLoadTable = true;
      fft.sign = +1;
      fft.role = fmt::format("c2r of {}, step 2: inverse complex FFT of {} from scratch onto the real pairs", N, L);
      fft.in = dense(half, L, {});
      fft.out = realSide;
      addSingle(fix);
      addJob(fft);
    }
  }

  void addJob(const Job& j) {
    const int maxSingle = std::min(maxSingleKernelLength(s_.precision), maxOneKernel_);
    if (j.n <= maxOneKernel_ && isSmooth(j.n, maxPrime_)) return addSingle(j);
    // Cooperative primes (37..127, f64 29..127) where the FFT is one kernel (CoopRadix.h); not in the fused r2c/c2r
    // kernels, which keep Bluestein.
    if (j.n <= maxSingle && j.fuse == Fuse::None && isCoopSmooth(j.n, maxPrime_)) return addSingle(j);
    if (isSmooth(j.n, maxPrime_)) return threeKernels(j) ? addThreeKernels(j) : addTwoKernels(j);
    // Longer lengths with a cooperative prime take the cooperative passes in a two-kernel plan: two trips through
    // global memory where Bluestein past one kernel's convolution takes four (H100, Nsight Compute, session 18: f64
    // 13583 = 17^2 x 47 as a 28672-point Bluestein, four kernels of 380-510 us against cuFFT's two of 223 and 321).
    if (j.fuse == Fuse::None && isCoopSmooth(j.n, maxPrime_) && twoKernelSplit(j.n) > 0) return addTwoKernels(j);
    addBluestein(j);
  }

  Side dense(Buffer b, long long n, const std::vector<long long>& counts) const {
    Side s{b, compute_, false, 0, 1, {}};
    long long acc = n;
    for (long long c : counts) {
      s.batchStride.push_back(acc);
      acc *= c;
    }
    s.batchStride.push_back(acc);
    return s;
  }
  Buffer freeTmp(const Job& j, Buffer avoid = Buffer::Input) const {
    for (Buffer b : {Buffer::Tmp0, Buffer::Tmp1, Buffer::Tmp2})
      if (b != j.in.buf && b != j.out.buf && b != avoid) return b;
    throw std::logic_error("stockham plan: no free scratch buffer");
  }
  void reserve(Buffer b, long long elemsPerBatch, bool half = false) {
    if (b == Buffer::Tmp0 || b == Buffer::Tmp1 || b == Buffer::Tmp2) {
      const int i = b == Buffer::Tmp0 ? 0 : b == Buffer::Tmp1 ? 1 : 2;
      if (plan_.tmpElemsPerBatch[i] && plan_.tmpHalf[i] != half) throw std::logic_error("stockham plan: a scratch buffer held in two types");
      plan_.tmpElemsPerBatch[i] = std::max(plan_.tmpElemsPerBatch[i], elemsPerBatch);
      plan_.tmpHalf[i] = half;
    }
  }

  // The factorization a kernel of `length` takes unless the spec names one (f64 stops at radix 13: radix-16 f64
  // butterflies hold 16 double2 inputs, 15 twiddles and their products, too many registers).
  std::vector<int> defaultFactors(int length, bool r2cSplit) const {
    return factorizeStockham(length, plan_.f64 ? 13 : 27, maxPrime_, plan_.f64, r2cSplit);
  }

  static Access access(const Side& s) { return Access{s.storage, s.planar, s.offset, s.elemStride, s.batchStride, s.imStride}; }

  StockhamPlanKernel kernel(const Job& j, int length, std::vector<int> factors) {
    StockhamPlanKernel k;
    KernelDesc& d = k.desc;
    d.kernelName = fmt::format("{}_k{}", s_.name, plan_.kernels.size());
    d.specName = s_.name;
    d.role = j.kernelRole.empty() ? j.role : j.kernelRole;
    k.note = j.role;
    d.f64 = plan_.f64;
    d.sign = j.sign;
    d.length = length;
    d.in = access(j.in);
    d.out = access(j.out);
    if (j.copyOnly) d.factors.clear();
    else if (!factors.empty()) d.factors = std::move(factors);
    // f64 column tiles (FFTs side by side, at most 8 values per thread) take the fewest passes: the factorization
    // model, which assumes a row kernel's threads, chose 243 = 3^5 for them, 31 threads per FFT at 172 registers
    // (H100, bench --sweep-cases, session 21, single-kernel f64 columns at stride 65536: 243 as 9 x 9 x 3 1.68x
    // faster than 3^5, 0.58x -> 0.98x cuFFT; 729 and 2187 took 9^3 (x 3) already).
    else if (plan_.f64 && (isColumnTiled(d.in) || isColumnTiled(d.out))) d.factors = factorizeStockhamGreedy(length, 13, maxPrime_);
    else d.factors = defaultFactors(length, j.fuse == Fuse::R2CPost);
    d.batchCount = j.counts;
    d.inValid = j.inValid;
    d.outValid = j.outValid;
    // R2C/C2R use their table for W_N^k inside the fused split/merge, not as a multiply
    d.loadTable = j.hasLoadTable && j.fuse != Fuse::C2RPre;
    d.storeTable = j.hasStoreTable && j.fuse != Fuse::R2CPost;
    d.fuse = j.fuse;
    d.fuseN = j.fuseN;
    d.axes = j.axes;
    d.tuning = s_.tuning;
    k.src = j.in.buf;
    k.dst = j.out.buf;
    k.fftsPerBatch = j.fftsPerBatch();
    k.twiddles = twiddleTable(d.factors, j.sign, d.axes);
    k.loadTable = j.loadTable;
    k.storeTable = j.storeTable;
    return k;
  }

  void addSingle(const Job& j) {
    StockhamPlanKernel k = kernel(j, j.n, j.factors);
    reserve(k.src, 0);
    plan_.kernels.push_back(std::move(k));
  }

  // n1 of a two-kernel split N = n1 x n2 (0 where none): the largest divisor up to sqrt(N) whose cofactor one kernel
  // holds; where none is (f64 3^15 = 2187 x 6561 against 4096), the row kernel may take up to the shared memory of
  // the largest f32 kernel (16384 x 8 B: f64 8192), the column kernel staying below sqrt(N). A column length of
  // radix primes first; else one with cooperative primes (CoopRadix.h), for an N that has one (its cofactor then
  // is cooperative-smooth too).
  int twoKernelSplit(long long N) const {
    for (bool coop : {false, true})
      for (int limit : {maxSingleKernelLength(s_.precision), maxSplitRowLength(s_.precision)})
        for (int d = static_cast<int>(std::sqrt(static_cast<double>(N))); d >= 2; --d)
          if (N % d == 0 && N / d <= limit && (coop ? isCoopSmooth(d, maxPrime_) : isSmooth(d, maxPrime_))) return d;
    return 0;
  }

  // n1 of a three-kernel plan N = n1 x (m1 x m2) (0 where none): the radix-smooth divisor whose cofactor has a
  // two-kernel split, the longest of the three lengths the shortest (each near the cube root of N).
  int threeKernelSplit(long long N) const {
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
  // intermediate traffic, one more rounding to f16 (H100, bench --ab, session 20: f16 2^15..2^24 two-kernel plans
  // 1.06x-1.21x faster, error 2.9e-4 against cuFFT's own 1.4e-3..2.3e-3 on the same inputs).
  bool halfScratch(const Job& j) const {
    return s_.precision == "f16" && s_.tuning.halfScratch != 0 && j.fuse == Fuse::None && !j.hasLoadTable && !j.hasStoreTable;
  }

  // Three kernels for a radix-smooth length past one kernel (the plain job: no tables or bounds on the output, whose
  // natural index the inner split would reorder): where the tuning asks, and by default for f16 with its scratch in
  // f16 where the two-kernel split has a side of 4096 or more, whose column tiles stage 4096 float values per column at
  // one block per SM (H100, bench --ab, session 20, both in f16 scratch: 2^24 1.46x, 2^23 1.16x, 2^22 = 2048^2 0.87x,
  // 2^20 0.55x; f32 2^23 / 2^24 0.97x / 1.01x and f64 0.8x-1.14x: not taken there).
  // And for odd f32 lengths whose split has a side of 2048 or more: their column tiles hold 2-4 FFTs, rows of 16-32
  // bytes that start anywhere in a sector (H100, bench --sweep-cases, session 21: 7^8 = 2401^2 1.35x, 7^7 1.22x, 5^9
  // 1.10x, 3^14 1.19x, 3^13 1.04x; sides of 343-729 lose: 7^6 0.91x, 3^12 0.89x, 5^8 1.04x).
  bool threeKernels(const Job& j) const {
    if (s_.tuning.threeKernels == 0 || j.fuse != Fuse::None || j.hasStoreTable || j.outValid >= 0 || isReal(j.out.storage)) return false;
    if (s_.tuning.threeKernels != 1) {
      const int n1 = twoKernelSplit(j.n);
      const long long side = n1 == 0 ? 0 : std::max<long long>(n1, j.n / n1);
      const bool halfRule = halfScratch(j) && side >= 4096;
      const bool oddRule = s_.precision == "f32" && j.n % 2 == 1 && side >= 2048;
      if (!halfRule && !oddRule) return false;
    }
    return threeKernelSplit(j.n) > 0;  // the search over splits last: it tries every divisor up to the cube root
  }

  // N = n1 x n2, the rows of n2 two kernels themselves: steps 2 and 3 read and write whole sectors as the two-kernel
  // plan's do, each FFT a third of N's digits (f16 2^24: three passes of 256 points, where two passes of 4096 leave
  // one column block per SM).
  void addThreeKernels(const Job& j) { addTwoKernels(j, threeKernelSplit(j.n), 1, 3); }

  // N = N1 * N2: X[k1 + N1 k2] = sum_j2 W_N2^{j2 k2} W_N^{j2 k1} sum_j1 x[j1 N2 + j2] W_N1^{j1 k1}.
  // steps == 3: the rows of N2 are two kernels too (steps 2 and 3), their FFTs ordered with k1 innermost, so that
  // the last step's column tile stores consecutive addresses.
  void addTwoKernels(const Job& j, int n1 = 0, int step = 1, int steps = 2) {
    const long long N = j.n;
    if (n1 == 0) n1 = twoKernelSplit(N);
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
    a.role = j.role + fmt::format(", {}: {} columns of {} (stride {}) times W_{}^(k1 j2)", stepName(0), n2, n1, n2, N);
    if (!a.kernelRole.empty()) a.kernelRole += fmt::format(", {} (columns)", stepName(0));
    a.n = n1;
    a.factors = {};
    a.counts.insert(a.counts.begin(), n2);
    a.in.elemStride = j.in.elemStride * n2;
    a.in.batchStride.insert(a.in.batchStride.begin(), j.in.pairStride());
    if (isReal(j.in.storage)) a.in.imStride = j.in.imStride ? j.in.imStride : j.in.elemStride;
    a.out = tmpA;
    a.out.elemStride = n2;
    a.out.batchStride.insert(a.out.batchStride.begin(), 1);
    a.outValid = -1;
    a.storeTable.clear();
    a.hasStoreTable = false;
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
    b.role = j.role + fmt::format(", {}: {} rows of {}, stored at stride {}", nestedRows ? fmt::format("steps {}-{}", step + 1, steps) : stepName(1), n1, n2,
                                  steps == 3 ? j.out.elemStride * n1 : n1);
    if (!b.kernelRole.empty()) b.kernelRole += fmt::format(", {} (rows)", stepName(1));
    b.n = n2;
    b.factors = {};
    b.counts.insert(b.counts.begin(), n1);
    b.in = tmpA;
    b.in.batchStride.insert(b.in.batchStride.begin(), n2);
    b.out.elemStride = j.out.elemStride * n1;
    b.out.batchStride.insert(b.out.batchStride.begin(), j.out.pairStride());
    if (isReal(j.out.storage)) b.out.imStride = j.out.imStride ? j.out.imStride : j.out.elemStride;
    b.inValid = -1;
    b.loadTable.clear();
    b.hasLoadTable = false;
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

  // y_k = c_k sum_j (x_j c_j) conj(c_{k-j}), c_j = exp(sign pi i j^2 / n): a circular
  // convolution of length M >= 2n - 1 (a power of two, or with tuning "bluestein": "smooth" a 7-smooth length) done as FFT_M,
  // pointwise product, IFFT_M.
  void addBluestein(const Job& j) {
    const long long n = j.n;
    // The spec's M (planStockham pins one-kernel convolutions, BluesteinLength.h), else "smooth" / past 8192 the
    // cheapest 7-smooth M (H100, session 10: 0.69x cuFFT over 8 lengths against 0.55x at the next power of two)
    const long long M = s_.tuning.bluesteinLength > 0 ? s_.tuning.bluesteinLength : bluesteinLength(n, s_.tuning.bluesteinPow2 == 1);
    if (M < 2 * n - 1) throw std::logic_error("stockham plan: a Bluestein convolution shorter than 2n - 1");  // the parser checks the tuning's
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
      c.role = j.role + fmt::format(", Bluestein {} via {} in one kernel: chirp, FFT, times FFT(conj chirp)/M, inverse FFT, times chirp", n, M);
      c.kernelRole = fmt::format("Bluestein convolution of length {} in one kernel: chirp and zero padding, FFT, times FFT(conj chirp)/M, inverse FFT, times chirp, first N outputs", M);
      c.n = static_cast<int>(M);
      c.sign = -1;  // the twiddle table is the forward half's; the inverse half conjugates it
      c.factors = {};
      c.inValid = j.inValid >= 0 ? std::min<long long>(j.inValid, n) : n;
      c.loadTable = chirp;
      c.hasLoadTable = true;
      c.outValid = n;
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
    f.kernelRole = fmt::format("Bluestein convolution of length {}: chirp and zero padding, FFT, times FFT(conj chirp)/M", M);
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
    i.outValid = n;
    i.storeTable = std::move(chirp);
    i.hasStoreTable = true;
    addJob(i);
  }

  const StockhamSpec& s_;
  bool tables_;
  const int maxOneKernel_;  // maxOneKernelLength for the plan's arch
  const int maxPrime_ = maxPrimeRadix(s_.precision);
  StockhamPlan plan_;
  Storage compute_;
};

}  // namespace

// An unpinned one-kernel Bluestein convolution takes the length BluesteinLength.h estimates fastest.
StockhamPlan planStockham(const StockhamSpec& spec, const std::string& arch, bool tables) {
  return PlanBuilder(pinBluesteinLength(spec), arch, tables).build();
}

// One FFT takes one kernel while its shared memory fits the arch's block, past maxSingleKernelLength too: one trip
// through global memory against two. H100, sweep A/B, session 22 (bench/RESULTS.md), two kernels -> one: f32 19683
// 0.43x -> 0.89x cuFFT, 18225 0.38x -> 0.77x, 26244 0.36x -> 0.72x, 16807 0.42x -> 0.68x; f64 6561 0.56x -> 0.95x, 6144 0.72x -> 1.20x, 4800 0.39x -> 0.77x, 8192 0.56x -> 0.89x, c2r f64 9000 (halves of
// 4500) 0.51x -> 0.79x; 27 of 28 lengths faster, f64 7776 0.50x -> 0.49x. f64 past 8192 (a sample of 14 smooth
// lengths 8193..12856): 12 faster, e.g. 9464 0.59x -> 0.90x, 8960 1.07x -> 1.79x, 8232 0.53x -> 0.63x; 11440 1.94x ->
// 1.59x, 11830 1.72x -> 1.65x. On sm_86 / sm_89 (99 KiB) the limit is below maxSingleKernelLength: f32 16384
// (139 KiB) could not launch there.
int maxOneKernelLength(const std::string& precision, const std::string& arch) { return longestFftInSharedMemory(arch, precision == "f64"); }

std::string StockhamPlan::describe() const {
  std::string out;
  for (const auto& k : kernels)
    out += fmt::format("  {}: {} -> {}, length {}{}, {} FFTs per batch entry ({})\n", k.desc.kernelName, bufferName(k.src), bufferName(k.dst),
                       k.desc.length,
                       k.desc.factors.empty() && k.desc.length > 1 ? std::string(" (no radix passes)") : fmt::format(" = {}", fmt::join(k.desc.factors, " x ")),
                       k.fftsPerBatch, k.note);
  if (tmpElemsPerBatch[0] || tmpElemsPerBatch[1] || tmpElemsPerBatch[2])
    out += fmt::format("  scratch per batch entry: tmp0 {} and tmp1 {}{} complex {}\n", tmpElemsPerBatch[0], tmpElemsPerBatch[1],
                       tmpElemsPerBatch[2] ? fmt::format(" and tmp2 {}", tmpElemsPerBatch[2]) : "", f64 ? "double" : tmpHalf[0] || tmpHalf[1] ? "half" : "float");
  return out;
}

}  // namespace warpforge
