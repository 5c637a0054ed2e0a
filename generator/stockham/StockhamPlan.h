#pragma once
// Host-side plan for a stockham spec: the chain of kernels (KernelDesc), the
// buffers each reads and writes, and the tables each needs (computed here in
// double, converted to the compute precision by the runtime).
//
//  - a length that one kernel holds: one kernel;
//  - longer 1D lengths N = N1 * N2: a column kernel (N1-point FFTs at stride
//    N2, times the four-step twiddle W_N^{k1 j2} from two small tables) and a
//    row kernel (N2-point FFTs, transposed store), through a scratch buffer (f16: held in
//    f16); f16 lengths whose split has a side of 4096 as three kernels, the rows of N2
//    themselves two (tuning three_kernels);
//  - lengths with a prime factor above 31 (above 127 where cooperative radices serve): Bluestein, a length-M
//    convolution (M >= 2N-1, BluesteinLength.h) as two FFTs with the chirp fused into their loads and stores;
//  - 2D/3D: one 1D job per axis, last axis first, the rest in place on the output; inner axes whose plane fits one
//    block as one kernel (c2c: FusedPlanes.h; r2c / c2r: RealPlanes.h, even innermost lengths unless fuse_axes).
#include <complex>
#include <string>
#include <vector>

#include "generator/stockham/KernelDesc.h"
#include "generator/stockham/StockhamSpec.h"

namespace warpforge {

enum class Buffer { Input, Output, Tmp0, Tmp1, Tmp2 };
const char* bufferName(Buffer b);

struct StockhamPlanKernel {
  KernelDesc desc;
  Buffer src = Buffer::Input, dst = Buffer::Output;
  std::string note;            // what this kernel does in the plan (the kernel's own comment leaves out N)
  long long fftsPerBatch = 1;  // FFTs per user batch entry: launch ffts = batch * fftsPerBatch
  std::vector<std::complex<double>> twiddles, loadTable, storeTable, bigLo, bigHi;
};

struct StockhamPlan {
  std::string specName;
  bool f64 = false;
  std::vector<StockhamPlanKernel> kernels;
  // Complex elements of the compute type per user batch entry, per scratch buffer (tmp2: only the
  // r2c/c2r general path with a Bluestein half, whose convolution needs two kernels).
  long long tmpElemsPerBatch[3] = {0, 0, 0};
  // Scratch held as complex f16 (tuning half_scratch: an f16 plan's intermediate between its kernels), else the
  // compute type.
  bool tmpHalf[3] = {false, false, false};
  std::string describe() const;
};

// The plan for `arch` (its shared memory bounds the longest FFT one kernel takes, maxOneKernelLength).
// tables = false leaves the Bluestein chirp tables empty (the kernels still say they use them):
// for verify and explain, which never look at the contents.
StockhamPlan planStockham(const StockhamSpec& spec, const std::string& arch, bool tables = true);

// The longest 1D length of radix primes one kernel takes on `arch` (one FFT per block, every value in shared
// memory): what one block's shared memory holds (sm_90: f32 / f16 27225, f64 12856; sm_80: 19515 / 9215; sm_86 /
// sm_89: 11805 / 5574).
int maxOneKernelLength(Precision precision, const std::string& arch);

}  // namespace warpforge
