#pragma once
// The plan builder behind planStockham (StockhamPlan.h), shared by the files that hold its strategies:
//   StockhamPlan.cpp   c2c axes, the choice between them, and each kernel's description;
//   LongFftPlan.cpp    lengths past one kernel: two or three kernels through scratch (four-step);
//   BluesteinPlan.cpp  lengths with a prime no pass takes: a convolution of length M >= 2n - 1;
//   RealPlan.cpp       r2c / c2r as a complex FFT of half the length with the split or the merge.
// Internal to the family.
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "generator/stockham/StockhamPlan.h"

namespace warpforge {

using cd = std::complex<double>;

// exp(sign 2 pi i num / den) with the argument reduced exactly.
inline cd unitRoot(long long num, long long den, int sign) {
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
  std::vector<long long> batchStride;             // per job batch digit, innermost first, the user batch last
  long long imStride = 0;                         // real arrays: Access::imStride
  bool scalarReal = false;                        // Access::scalarReal
  long long hermitianN = 0, hermitianStride = 0;  // Access::hermitianN, hermitianStride
  long long pairOffset = 0;                       // Access::pairOffset
  // Scalars between complex elements i and i + 1 (a real array holds each complex element as two scalars).
  long long pairStride() const { return isReal(storage) && !scalarReal ? 2 * elemStride : elemStride; }
};

// A batch of 1D FFTs of one length; the builder picks single kernel, two kernels or Bluestein.
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
  std::vector<int> axes;     // fused axes (KernelDesc::axes): n is their product, factors each axis's, fastest first
  bool copyOnly = false;     // no radix passes: the kernel only applies its fusions (the r2c split, the c2r merge)
  bool mirrored = false;     // KernelDesc::mirrored (digit 0 = counts[0])
  bool pairedBatch = false;  // KernelDesc::pairedBatch (every kernel of the job)
  bool longStep = false;     // KernelDesc::longStep
  std::string role;
  std::string kernelRole;  // the kernel's header comment where it must not name N (Bluestein)
  long long fftsPerBatch() const {
    long long p = 1;
    for (long long c : counts) p *= c;
    return p;
  }
};

// The split / merge twiddles of a mirrored kernel (MirrorPairs.h): W_N^(sign i elem), i = 0..n, then W_N^(sign r), r <
// m.
std::vector<cd> mirroredRealTable(long long N, long long elem, int n, long long m, int sign);

class PlanBuilder {
 public:
  PlanBuilder(const StockhamSpec& s, const std::string& arch, bool tables);
  StockhamPlan build();

 private:
  Storage userComplex() const;
  Storage userReal() const;
  void buildC2c();
  // RealPlan.cpp
  void buildReal();
  // The inner `axes` axes as one real-plane kernel (RealPlanes.h), the outer ones c2c as in the general path.
  void buildRealPlane(int axes);
  // The c2c axes `top` .. 0 (-1: D - 2 .. 0) of the complex array `shape`.
  void addComplexAxes(const std::vector<long long>& shape, const StockhamIo& srcIo, Buffer src, Storage srcStorage,
                      bool srcPlanar, const StockhamIo& dstIo, Buffer dst, Storage dstStorage, int sign, int top = -1);
  void addRealAxis(const std::vector<long long>& counts, const Side& realSide, const Side& complexSide);
  void addOddRealAxis(const std::vector<long long>& counts, const Side& realSide, const Side& complexSide);
  // A job of any length: one kernel, the long-FFT plans or Bluestein.
  void addJob(const Job& j);
  bool takesOneKernel(const Job& j) const;  // addJob's one-kernel case
  bool bluesteinAsked() const;              // the tuning names a Bluestein rule or length
  void addSingle(const Job& j);
  Side dense(Buffer b, long long n, const std::vector<long long>& counts) const;
  Buffer freeTmp(const Job& j, Buffer avoid = Buffer::Input) const;
  void reserve(Buffer b, long long elemsPerBatch, bool half = false);
  // plainF32: see factorizeStockham.
  std::vector<int> defaultFactors(int length, bool r2cSplit, bool plainF32 = false) const;
  StockhamPlanKernel kernel(const Job& j, int length, std::vector<int> factors);

  // LongFftPlan.cpp
  int twoKernelSplit(long long N) const;
  // twoKernelSplit, or tuning.split where it is a split of N that the two kernels can take.
  int tunedTwoKernelSplit(long long N) const;
  int threeKernelSplit(long long N) const;
  bool halfScratch(const Job& j) const;
  bool threeKernels(const Job& j) const;
  void addThreeKernels(const Job& j);
  void addTwoKernels(const Job& j, int n1 = 0, int step = 1, int steps = 2);

  // BluesteinPlan.cpp
  void addBluestein(const Job& j);

  const StockhamSpec& s_;
  bool tables_;
  const int maxOneKernel_;  // maxOneKernelLength for the plan's arch
  const int maxPrime_;
  StockhamPlan plan_;
  Storage compute_;
};

}  // namespace warpforge
