#include "generator/stockham/StockhamPlan.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "generator/stockham/BluesteinLength.h"
#include "generator/stockham/FactorizationModel.h"
#include "generator/stockham/FusedPlanes.h"
#include "generator/stockham/MirrorPairs.h"
#include "generator/stockham/PlanBuilder.h"
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

PlanBuilder::PlanBuilder(const StockhamSpec& s, const std::string& arch, bool tables)
    : s_(s),
      tables_(tables),
      maxOneKernel_(maxOneKernelLength(s.precision, arch)),
      maxPrime_(maxPrimeRadix(s.precision)) {
  if (!s.factors.empty() && s.length() > maxOneKernel_)
    throw SpecError(s.file, "/factors",
                    fmt::format("length {} takes more than one kernel on {} (one block's shared memory there holds an "
                                "FFT of up to {}); "
                                "explicit factors are for one-kernel lengths",
                                s.length(), arch, maxOneKernel_));
  plan_.specName = s.name;
  plan_.f64 = s.f64();
  compute_ = plan_.f64 ? Storage::C64 : Storage::C32;
}

StockhamPlan PlanBuilder::build() {
  if (s_.transform == Transform::C2C) buildC2c();
  else buildReal();
  return plan_;
}

Storage PlanBuilder::userComplex() const {
  return s_.precision == Precision::F16 ? Storage::C16 : s_.precision == Precision::F32 ? Storage::C32 : Storage::C64;
}
Storage PlanBuilder::userReal() const {
  return s_.precision == Precision::F16 ? Storage::R16 : s_.precision == Precision::F32 ? Storage::R32 : Storage::R64;
}

void PlanBuilder::buildC2c() {
  const int D = static_cast<int>(s_.lengths.size());
  Storage inStorage = s_.input.type == InputType::CI8   ? Storage::CI8
                      : s_.input.type == InputType::CI4 ? Storage::CI4
                                                        : userComplex();
  const int fused = fusedInnerAxes(s_);
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
    j.role = D == 1   ? "1D"
             : lo < a ? fmt::format("axes {}..{} of {}D in one kernel ({} plane)", lo, a, D, fmt::join(j.axes, " x "))
                      : fmt::format("axis {} of {}D", a, D);
    j.in = Side{firstAxis ? Buffer::Input : Buffer::Output,
                firstAxis ? inStorage : userComplex(),
                firstAxis ? s_.input.planar : s_.output.planar,
                firstAxis ? s_.input.offset : s_.output.offset,
                firstAxis ? s_.input.strides[a] : s_.output.strides[a],
                {}};
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

// Smooth lengths one block holds, and cooperative primes (37..127, f64 29..127) where the FFT is one kernel
// (CoopRadix.h); not in the fused r2c/c2r kernels, which keep Bluestein.
bool PlanBuilder::takesOneKernel(const Job& j) const {
  const int maxSingle = std::min(maxSingleKernelLength(s_.precision), maxOneKernel_);
  return (j.n <= maxOneKernel_ && isSmooth(j.n, maxPrime_)) ||
         (j.n <= maxSingle && j.fuse == Fuse::None && !bluesteinAsked() && isCoopSmooth(j.n, maxPrime_));
}

// A Bluestein rule or length in the tuning: lengths with a cooperative prime take Bluestein instead of the
// cooperative passes.
bool PlanBuilder::bluesteinAsked() const {
  return s_.tuning.bluestein != BluesteinRule::Model || s_.tuning.bluesteinLength > 0;
}

void PlanBuilder::addJob(const Job& j) {
  if (takesOneKernel(j)) return addSingle(j);
  if (isSmooth(j.n, maxPrime_)) return threeKernels(j) ? addThreeKernels(j) : addTwoKernels(j);
  // Longer lengths with a cooperative prime take the cooperative passes in a two-kernel plan: two trips through
  // global memory where Bluestein past one kernel's convolution takes four, each over twice the points.
  if (j.fuse == Fuse::None && !bluesteinAsked() && isCoopSmooth(j.n, maxPrime_) && twoKernelSplit(j.n) > 0)
    return addTwoKernels(j);
  addBluestein(j);
}

Side PlanBuilder::dense(Buffer b, long long n, const std::vector<long long>& counts) const {
  Side s{b, compute_, false, 0, 1, {}};
  long long acc = n;
  for (long long c : counts) {
    s.batchStride.push_back(acc);
    acc *= c;
  }
  s.batchStride.push_back(acc);
  return s;
}

Buffer PlanBuilder::freeTmp(const Job& j, Buffer avoid) const {
  for (Buffer b : {Buffer::Tmp0, Buffer::Tmp1, Buffer::Tmp2})
    if (b != j.in.buf && b != j.out.buf && b != avoid) return b;
  throw std::logic_error("stockham plan: no free scratch buffer");
}

void PlanBuilder::reserve(Buffer b, long long elemsPerBatch, bool half) {
  if (b == Buffer::Tmp0 || b == Buffer::Tmp1 || b == Buffer::Tmp2) {
    const int i = b == Buffer::Tmp0 ? 0 : b == Buffer::Tmp1 ? 1 : 2;
    if (plan_.tmpElemsPerBatch[i] && plan_.tmpHalf[i] != half)
      throw std::logic_error("stockham plan: a scratch buffer held in two types");
    plan_.tmpElemsPerBatch[i] = std::max(plan_.tmpElemsPerBatch[i], elemsPerBatch);
    plan_.tmpHalf[i] = half;
  }
}

// The factorization a kernel of `length` takes unless the spec names one (f64 stops at radix 13: radix-16 f64
// butterflies hold 16 double2 inputs, 15 twiddles and their products, too many registers).
std::vector<int> PlanBuilder::defaultFactors(int length, bool r2cSplit, bool plainF32) const {
  return factorizeStockham(length, plan_.f64 ? 13 : 27, maxPrime_, plan_.f64, r2cSplit, plainF32);
}

static Access access(const Side& s) {
  return Access{s.storage,  s.planar,     s.offset,     s.elemStride,      s.batchStride,
                s.imStride, s.scalarReal, s.hermitianN, s.hermitianStride, s.pairOffset};
}

StockhamPlanKernel PlanBuilder::kernel(const Job& j, int length, std::vector<int> factors) {
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
  // model, which assumes a row kernel's threads, chose 243 = 3^5 for them, 31 threads per FFT at 172 registers,
  // where 9 x 9 x 3 runs much faster.
  else if (plan_.f64 && (isColumnTiled(d.in) || isColumnTiled(d.out)))
    d.factors = factorizeStockhamGreedy(length, 13, maxPrime_);
  else {
    const bool plainF32 = s_.precision == Precision::F32 && s_.lengths.size() == 1 && j.fuse == Fuse::None &&
                          !j.hasLoadTable && !j.hasStoreTable && !isColumnTiled(d.in) && !isColumnTiled(d.out);
    d.factors = defaultFactors(length, j.fuse == Fuse::R2CPost && !j.mirrored, plainF32);
  }
  d.batchCount = j.counts;
  d.inValid = j.inValid;
  d.outValid = j.outValid;
  // R2C/C2R use their table for W_N^k inside the fused split/merge, not as a multiply
  d.loadTable = j.hasLoadTable && j.fuse != Fuse::C2RPre && j.fuse != Fuse::PlaneMerge;
  d.storeTable = j.hasStoreTable && j.fuse != Fuse::R2CPost && j.fuse != Fuse::PlaneSplit;
  d.fuse = j.fuse;
  d.fuseN = j.fuseN;
  d.axes = j.axes;
  d.mirrored = j.mirrored;
  d.pairedBatch = j.pairedBatch;
  d.longStep = j.longStep;
  d.tuning = s_.tuning;
  k.src = j.in.buf;
  k.dst = j.out.buf;
  k.fftsPerBatch = j.mirrored ? mirroredFftsPerBatch(j.counts) : j.fftsPerBatch();
  k.twiddles = twiddleTable(d.factors, j.sign, d.axes);
  k.loadTable = j.loadTable;
  k.storeTable = j.storeTable;
  return k;
}

void PlanBuilder::addSingle(const Job& j) {
  StockhamPlanKernel k = kernel(j, j.n, j.factors);
  reserve(k.src, 0);
  plan_.kernels.push_back(std::move(k));
}

// An unpinned one-kernel Bluestein convolution takes the length BluesteinLength.h estimates fastest.
StockhamPlan planStockham(const StockhamSpec& spec, const std::string& arch, bool tables) {
  return PlanBuilder(pinBluesteinLength(spec), arch, tables).build();
}

// One FFT takes one kernel while its shared memory fits the arch's block, past maxSingleKernelLength too: one trip
// through global memory against two, which outweighs the one resident block such a kernel gets. On sm_86 / sm_89
// (99 KiB) the limit is below maxSingleKernelLength: f32 16384 (139 KiB) cannot launch there.
int maxOneKernelLength(Precision precision, const std::string& arch) {
  return longestFftInSharedMemory(arch, precision == Precision::F64);
}

std::string StockhamPlan::describe() const {
  std::string out;
  for (const auto& k : kernels)
    out += fmt::format("  {}: {} -> {}, length {}{}, {} FFTs per batch entry ({})\n", k.desc.kernelName,
                       bufferName(k.src), bufferName(k.dst), k.desc.length,
                       k.desc.factors.empty() && (k.desc.length > 1 || k.desc.mirrored)
                           ? std::string(" (no radix passes)")
                           : fmt::format(" = {}", fmt::join(k.desc.factors, " x ")),
                       k.fftsPerBatch, k.note);
  if (tmpElemsPerBatch[0] || tmpElemsPerBatch[1] || tmpElemsPerBatch[2])
    out += fmt::format("  scratch per batch entry: tmp0 {} and tmp1 {}{} complex {}\n", tmpElemsPerBatch[0],
                       tmpElemsPerBatch[1], tmpElemsPerBatch[2] ? fmt::format(" and tmp2 {}", tmpElemsPerBatch[2]) : "",
                       f64                        ? "double"
                       : tmpHalf[0] || tmpHalf[1] ? "half"
                                                  : "float");
  return out;
}

}  // namespace warpforge
