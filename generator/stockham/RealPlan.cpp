// r2c / c2r. The real axis (the innermost) is a job of its own, batched over the other axes; those are c2c axes on
// the complex side's array (r2c: after the real axis, in place on the output; c2r: before it, from the input into
// scratch). An even real length N = 2L runs as a complex FFT of L on the real array viewed as L pairs, with the split
// (r2c) or merge (c2r) that relates it to the N-point transform (RealFusion.h):
//  - L smooth and at most maxFusedRealHalf, or up to maxSplitKernelHalf where that kernel runs 256 threads or more:
//    one kernel, the split fused into its store (the merge into its first pass);
//  - L up to maxSplitKernelHalf: the complex FFT of L by the general path into scratch and a copy kernel that
//    applies the split (or the merge into scratch first), which holds the L + 1 values of one FFT;
//  - longer L of radix primes: the two-kernel plan of L with the split fused into its row kernel (the merge into its
//    column kernel) through mirrored FFT pairs (MirrorPairs.h);
//  - other long L (Bluestein): the complex FFT of L into scratch and a mirrored split (merge) kernel of its own.
// An odd real length runs as the complex FFT of N itself: r2c reads the real array as (x, 0) and stores outputs
// 0..N/2; c2r reads the half the array holds and its conjugate mirror (Access::hermitianN) and stores real parts. 1D
// batches pair their entries, one complex FFT for two (addOddRealAxis says where).
// 2D / 3D whose inner axes' plane fits one block: those axes as one kernel, the real plane (RealPlanes.h; an even
// innermost length, or any with tuning fuse_axes true).
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "generator/stockham/FactorizationModel.h"
#include "generator/stockham/MirrorPairs.h"
#include "generator/stockham/PlanBuilder.h"
#include "generator/stockham/RealPlanes.h"

namespace warpforge {

namespace {

long long product(const std::vector<long long>& v) {
  long long p = 1;
  for (long long x : v) p *= x;
  return p;
}

// The strides of a job's batch digits in `io`: axes `top` .. 0 (innermost first), then the user's batch.
std::vector<long long> batchDigitStrides(const StockhamIo& io, int top) {
  std::vector<long long> st;
  for (int d = top; d >= 0; --d) st.push_back(io.strides[d]);
  st.push_back(io.distance);
  return st;
}

}  // namespace

std::vector<cd> mirroredRealTable(long long N, long long elem, int n, long long m, int sign) {
  std::vector<cd> t;
  for (int i = 0; i <= n; ++i) t.push_back(unitRoot(i * elem, N, sign));
  for (long long r = 0; r < m; ++r) t.push_back(unitRoot(r, N, sign));
  return t;
}

void PlanBuilder::buildReal() {
  if (const int planeAxes = fusedRealAxes(s_, maxOneKernel_); planeAxes >= 2) return buildRealPlane(planeAxes);
  const int D = static_cast<int>(s_.lengths.size());
  const bool r2c = s_.transform == Transform::R2C;
  // The complex side's array: the lengths with the innermost halved plus one.
  const std::vector<long long> shape = r2c ? s_.outShape() : s_.inShape();
  // Strides of the real axis job's batch digits (the outer axes, innermost first, then the user's batch) in `io`.
  auto outerStrides = [&](const StockhamIo& io) { return batchDigitStrides(io, D - 2); };
  std::vector<long long> counts;
  for (int d = D - 2; d >= 0; --d) counts.push_back(s_.lengths[d]);
  const StockhamIo& realIo = r2c ? s_.input : s_.output;
  const Side realSide{r2c ? Buffer::Input : Buffer::Output,
                      userReal(),
                      false,
                      realIo.offset,
                      realIo.strides[D - 1],
                      outerStrides(realIo)};
  Side complexSide;
  if (r2c) {
    complexSide = Side{Buffer::Output,           userComplex(),          s_.output.planar, s_.output.offset,
                       s_.output.strides[D - 1], outerStrides(s_.output)};
  } else if (D == 1) {
    complexSide = Side{Buffer::Input,   userComplex(),       s_.input.planar,
                       s_.input.offset, s_.input.strides[0], outerStrides(s_.input)};
  } else {
    // c2r: the outer axes first, from the input into dense scratch (the input is the caller's, left as given).
    const Buffer spectra = Buffer::Tmp0;
    StockhamIo dense;
    dense.strides = denseStrides(shape);
    dense.distance = product(shape);
    reserve(spectra, dense.distance);
    addComplexAxes(shape, s_.input, Buffer::Input, userComplex(), s_.input.planar, dense, spectra, compute_, +1);
    complexSide = Side{spectra, compute_, false, 0, 1, outerStrides(dense)};
  }
  addRealAxis(counts, realSide, complexSide);
  if (r2c && D > 1)
    addComplexAxes(shape, s_.output, Buffer::Output, userComplex(), s_.output.planar, s_.output, Buffer::Output,
                   userComplex(), -1);
}

// The c2c axes 0 .. D-2 of the complex array `shape`: the first from (src, srcIo) into (dst, dstIo), the others in
// place on dst.
void PlanBuilder::addComplexAxes(const std::vector<long long>& shape, const StockhamIo& srcIo, Buffer src,
                                 Storage srcStorage, bool srcPlanar, const StockhamIo& dstIo, Buffer dst,
                                 Storage dstStorage, int sign, int top) {
  const int D = static_cast<int>(shape.size());
  const bool dstPlanar = dst == Buffer::Output && s_.output.planar;
  if (top < 0) top = D - 2;
  for (int a = top; a >= 0; --a) {
    const bool first = a == top;
    const StockhamIo& inIo = first ? srcIo : dstIo;
    Job j;
    j.n = static_cast<int>(shape[a]);
    j.sign = sign;
    j.role = fmt::format("axis {} of {}D ({} {}: the complex side's c2c)", a, D, transformName(s_.transform),
                         fmt::join(shape, " x "));
    j.in = Side{first ? src : dst,
                first ? srcStorage : dstStorage,
                first ? srcPlanar : dstPlanar,
                inIo.offset,
                inIo.strides[a],
                {}};
    j.out = Side{dst, dstStorage, dstPlanar, dstIo.offset, dstIo.strides[a], {}};
    for (int d = D - 1; d >= 0; --d) {
      if (d == a) continue;
      j.counts.push_back(shape[d]);
      j.in.batchStride.push_back(inIo.strides[d]);
      j.out.batchStride.push_back(dstIo.strides[d]);
    }
    j.in.batchStride.push_back(inIo.distance);
    j.out.batchStride.push_back(dstIo.distance);
    addJob(j);
  }
}

void PlanBuilder::buildRealPlane(int axes) {
  const int D = static_cast<int>(s_.lengths.size()), lo = D - axes, N = s_.length();
  const bool r2c = s_.transform == Transform::R2C, odd = N % 2;
  const int M = odd ? N : N / 2;
  const std::vector<long long> shape = r2c ? s_.outShape() : s_.inShape();
  // Batch digits: the axes outside the plane, innermost first, then the user's batch.
  auto outerStrides = [&](const StockhamIo& io) { return batchDigitStrides(io, lo - 1); };
  Job j;
  j.axes.assign(s_.lengths.begin() + lo, s_.lengths.end() - 1);
  j.axes.push_back(M);
  j.n = 1;
  for (int n : j.axes) j.n *= n;
  for (int f = axes - 1; f >= 0; --f) {  // each axis's factors, fastest axis first
    const std::vector<int> axis = defaultFactors(j.axes[f], false);
    j.factors.insert(j.factors.end(), axis.begin(), axis.end());
  }
  for (int d = lo - 1; d >= 0; --d) j.counts.push_back(s_.lengths[d]);
  j.sign = r2c ? -1 : +1;
  j.fuse = r2c ? Fuse::PlaneSplit : Fuse::PlaneMerge;
  j.fuseN = N;
  const StockhamIo& realIo = r2c ? s_.input : s_.output;
  Side realSide{r2c ? Buffer::Input : Buffer::Output, userReal(), false, realIo.offset, 1, outerStrides(realIo)};
  realSide.scalarReal = odd;
  Side complexSide;
  if (r2c) {
    complexSide = Side{Buffer::Output, userComplex(), s_.output.planar, s_.output.offset, 1, outerStrides(s_.output)};
  } else if (lo == 0) {
    complexSide = Side{Buffer::Input, userComplex(), s_.input.planar, s_.input.offset, 1, outerStrides(s_.input)};
  } else {
    // c2r: the axes outside the plane first, from the input into dense scratch (the input is left as given).
    StockhamIo dense;
    dense.strides = denseStrides(shape);
    dense.distance = product(shape);
    reserve(Buffer::Tmp0, dense.distance);
    addComplexAxes(shape, s_.input, Buffer::Input, userComplex(), s_.input.planar, dense, Buffer::Tmp0, compute_, +1,
                   lo - 1);
    complexSide = Side{Buffer::Tmp0, compute_, false, 0, 1, outerStrides(dense)};
  }
  j.in = r2c ? realSide : complexSide;
  j.out = r2c ? complexSide : realSide;
  if (!odd) {  // W_N^(-+k), k = 0..L: the split's (merge's) twiddles
    std::vector<cd> w;
    for (int k = 0; k <= M; ++k) w.push_back(unitRoot(k, N, r2c ? -1 : +1));
    (r2c ? j.storeTable : j.loadTable) = std::move(w);
    (r2c ? j.hasStoreTable : j.hasLoadTable) = true;
  }
  j.role = fmt::format("axes {}..{} of {}D in one kernel: the {} real plane as a complex FFT of {} ({})", lo, D - 1, D,
                       fmt::join(s_.lengths.begin() + lo, s_.lengths.end(), " x "), fmt::join(j.axes, " x "),
                       r2c ? (odd ? "real rows as (x, 0), outputs k <= N/2 stored"
                                  : "real rows as pairs, the split at the store")
                           : (odd ? "the half and its conjugate mirror read, real parts stored"
                                  : "the merge at the load, real rows stored as pairs"));
  addSingle(j);
  if (r2c && lo > 0)
    addComplexAxes(shape, s_.output, Buffer::Output, userComplex(), s_.output.planar, s_.output, Buffer::Output,
                   userComplex(), -1, lo - 1);
}

void PlanBuilder::addRealAxis(const std::vector<long long>& counts, const Side& realSide, const Side& complexSide) {
  const int N = s_.length();
  const bool r2c = s_.transform == Transform::R2C;
  if (N % 2) return addOddRealAxis(counts, realSide, complexSide);
  const int L = N / 2;
  Job j;
  j.n = L;
  j.fuseN = N;
  j.factors = {};
  j.counts = counts;
  std::vector<cd> w;
  for (int k = 0; k <= L; ++k) w.push_back(unitRoot(k, N, r2c ? -1 : +1));
  // tuning.real_split where the plan can take it (RealSplit; stockhamWarnings names the rest), else the rule below.
  const std::optional<RealSplit> asked = s_.tuning.realSplit;
  // Fused past 4096 up to the split kernel's limit (f32 / f16 16384, f64 8192) where one kernel holds L: longer fused
  // halves spill (f32 27216 on sm_90: 344 bytes of stack). By default past maxFusedRealHalf only where the fused
  // kernel runs kMinFusedRealHalfThreads or more on its one FFT (f64 twice as many).
  const bool fusable = isSmooth(L, maxPrime_) && L <= std::min(maxSplitKernelHalf(s_.precision), maxOneKernel_);
  const bool ruleFuses = isSmooth(L, maxPrime_) &&
                         (L <= maxFusedRealHalf(s_.precision) ||
                          (fusable && factorizationCost(L, defaultFactors(L, r2c), plan_.f64, r2c).threads >=
                                          (plan_.f64 ? 2 : 1) * kMinFusedRealHalfThreads));
  const bool fuse = !asked ? ruleFuses : asked == RealSplit::Fused && (fusable || ruleFuses);
  if (fuse) {
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
  // The split (merge) kernel holds L + 1 values: where the arch's shared memory holds no FFT that long, mirrored pairs.
  const bool longHalf = L > maxSplitKernelHalf(s_.precision) || L + 1 > maxOneKernel_;
  // The mirrored kernel holds two of its FFTs per block at least: its length within half of what one block holds.
  const bool inHalfPlan = asked && asked != RealSplit::Fused ? asked == RealSplit::Mirrored : longHalf;
  int n1 = inHalfPlan && isCoopSmooth(L, maxPrime_) ? tunedTwoKernelSplit(L) : 0;
  // f32 r2c: the longer side as the columns, the mirrored rows (with the split) the shorter, where the sides are
  // within 2x of each other and the longer one is of radix primes (as every split timed so). On an H200 (`bench --ab`
  // with `split`, one process each) r2c f32 2^22 ran 1.13x so, 2^24 1.30-1.32x, five other lengths 1.00-1.01x; c2c's
  // plain columns ran 0.91x (c2c f32 2^23), and c2r is untimed.
  if (r2c && n1 > 0 && s_.tuning.split == 0 && s_.precision == Precision::F32) {
    const long long longer = L / n1;
    if (longer > n1 && longer <= 2LL * n1 && longer <= maxOneKernel_ && isSmooth(longer, maxPrime_))
      n1 = static_cast<int>(longer);
  }
  if (n1 > 0 && (r2c ? L / n1 : n1) <= maxOneKernel_ / 2) {
    // The two-kernel plan of L, the split in its row kernel, the merge in its column kernel (mirrored FFT pairs).
    j.sign = r2c ? -1 : +1;
    j.fuse = r2c ? Fuse::R2CPost : Fuse::C2RPre;
    j.role = fmt::format("{} of {} as a complex FFT of {}", r2c ? "r2c" : "c2r", N, L);
    j.in = r2c ? realSide : complexSide;
    j.out = r2c ? complexSide : realSide;
    return addTwoKernels(j, n1);
  }
  const Buffer half = complexSide.buf == Buffer::Tmp0 ? Buffer::Tmp1
                                                      : Buffer::Tmp0;  // (c2r of 2D/3D: the spectra in tmp0)
  reserve(half, L * j.fftsPerBatch());
  Job fft = j, fix = j;
  fix.copyOnly = true;
  fix.fuseN = N;
  if (longHalf) {
    // One element per FFT, L FFTs in mirrored pairs: the split or the merge of any half, L + m + 1 table entries.
    fix.n = 1;
    fix.mirrored = true;
    fix.counts.insert(fix.counts.begin(), L);
  }
  const Side halfSide = longHalf ? Side{half,
                                        compute_,
                                        false,
                                        0,
                                        L,
                                        [&] {
                                          std::vector<long long> st{1};
                                          long long acc = L;
                                          for (long long c : counts) st.push_back(acc), acc *= c;
                                          st.push_back(acc);
                                          return st;
                                        }()}
                                 : dense(half, L, counts);
  // The user's complex side as L FFTs of one element: element 1 of FFT 0 is X[L].
  Side userSide = complexSide;
  if (longHalf) {
    userSide.elemStride = complexSide.elemStride * L;
    userSide.batchStride.insert(userSide.batchStride.begin(), complexSide.pairStride());
  }
  const std::vector<cd> table = longHalf ? mirroredRealTable(N, L, 1, L, r2c ? -1 : +1) : std::move(w);
  if (r2c) {
    fft.sign = -1;
    fft.role = fmt::format("r2c of {}, step 1: complex FFT of {} on the real pairs into scratch", N, L);
    fft.in = realSide;
    fft.out = dense(half, L, counts);
    fix.role = fmt::format("r2c of {}, last step: the split X[k] = E[k] + W_N^k O[k], k = 0..{}", N, L);
    fix.sign = -1;
    fix.fuse = Fuse::R2CPost;
    fix.in = halfSide;
    fix.out = userSide;
    fix.storeTable = table;
    fix.hasStoreTable = true;
    addJob(fft);
    addSingle(fix);
  } else {
    fix.role = fmt::format(
        "c2r of {}, step 1: the merge Z[k] = (X[k] + conj X[L-k]) + i W_N^-k (X[k] - conj X[L-k]) into scratch", N);
    fix.sign = +1;
    fix.fuse = Fuse::C2RPre;
    fix.in = userSide;
    fix.out = halfSide;
    fix.loadTable = table;
    fix.hasLoadTable = true;
    fft.sign = +1;
    fft.role = fmt::format("c2r of {}, step 2: inverse complex FFT of {} from scratch onto the real pairs", N, L);
    fft.in = dense(half, L, counts);
    fft.out = realSide;
    addSingle(fix);
    addJob(fft);
  }
}

void PlanBuilder::addOddRealAxis(const std::vector<long long>& counts, const Side& realSide, const Side& complexSide) {
  const int N = s_.length();
  const bool r2c = s_.transform == Transform::R2C;
  Job j;
  j.n = N;
  j.counts = counts;
  j.sign = r2c ? -1 : +1;
  j.in = r2c ? realSide : complexSide;
  j.out = r2c ? complexSide : realSide;
  if (!r2c) {
    j.in.hermitianN = N;
    j.in.hermitianStride = complexSide.elemStride;
    j.out.scalarReal = true;
  }
  // Batch entries in pairs (1D): one complex FFT of x_2p + i x_2p+1 does the work of two. c2r only reads the pair's two
  // Hermitian halves and stores the real and imaginary parts, so it always pairs; r2c needs a split pass through
  // scratch, which pays only where the FFT of N is Bluestein's (a convolution of M >= 2N - 1 points): r2c f32 59049
  // in two kernels of 243 ran 0.79x as fast paired (H200, docs/stockham.md).
  // Not by default where consecutive entries are adjacent in memory (distance 1): their FFTs are column tiles, which
  // pairs would break into strided rows.
  const bool interleaved = realSide.batchStride.back() == 1 || complexSide.batchStride.back() == 1;
  const bool pair = counts.empty() && (s_.tuning.pairBatch ? *s_.tuning.pairBatch
                                                           : !interleaved && (!r2c || !isCoopSmooth(N, maxPrime_)));
  if (!pair) {
    if (r2c) {
      j.role = fmt::format("r2c of odd {} as a complex FFT of the real input, outputs 0..{}", N, N / 2);
      j.in.scalarReal = true;
      j.outValid = N / 2 + 1;
    } else {
      j.role = fmt::format(
          "c2r of odd {} as a complex FFT of the half spectrum and its conjugate mirror, real parts stored", N);
    }
    return addJob(j);
  }
  j.pairedBatch = true;
  auto pairEntries = [](Side& side) {
    side.pairOffset = side.batchStride.back();
    side.batchStride.back() *= 2;
  };
  if (!r2c) {
    j.role = fmt::format(
        "c2r of odd {}, batch entries in pairs: a complex FFT of X_2p + i X_2p+1 (each half and its conjugate mirror), "
        "real parts stored to entry 2p, imaginary parts to 2p + 1",
        N);
    pairEntries(j.in);
    pairEntries(j.out);
    return addJob(j);
  }
  // r2c: Z = FFT(x_2p + i x_2p+1) into scratch, then the split X_2p[k] = (Z[k] + conj Z[N-k]) / 2, X_2p+1[k] =
  // (Z[k] - conj Z[N-k]) / 2i as N FFTs of one element in mirrored pairs (k and N - k in one block).
  const Buffer zBuf = Buffer::Tmp0;
  reserve(zBuf, N);  // N per pair: a batch entry's share rounded up
  j.role = fmt::format("r2c of odd {}, batch entries in pairs, step 1: complex FFT of x_2p + i x_2p+1 into scratch", N);
  j.in.scalarReal = true;
  pairEntries(j.in);
  j.out = dense(zBuf, N, counts);
  addJob(j);
  Job split;
  split.n = 1;
  split.sign = -1;
  split.copyOnly = true;
  split.mirrored = true;
  split.pairedBatch = true;
  split.fuse = Fuse::PairSplit;
  split.counts = {N};
  split.role = fmt::format(
      "r2c of odd {}, batch entries in pairs, step 2: the split X_2p[k] = (Z[k] + conj Z[N-k]) / 2, X_2p+1[k] = "
      "(Z[k] - conj Z[N-k]) / 2i, k = 0..{}",
      N, N / 2);
  split.in = Side{zBuf, compute_, false, 0, 1, {1, N}};
  split.out = complexSide;
  split.out.batchStride = {complexSide.elemStride, complexSide.batchStride.back()};
  pairEntries(split.out);
  addSingle(split);
}

}  // namespace warpforge
