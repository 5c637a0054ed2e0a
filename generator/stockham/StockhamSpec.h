#pragma once
// The `stockham` family: batched 1D/2D/3D FFTs (c2c, r2c, c2r) in f16, f32 or
// f64 with rocFFT-style affine layouts (strides per dimension, distance,
// offset), interleaved or planar, optional explicit factorization, and input
// fusions (complex int8/int4 widened in the load, implicit zero padding).
#include <string>
#include <vector>

#include "generator/stockham/KernelDesc.h"
#include "warpforge/json.h"

namespace warpforge {

enum class Precision { F16, F32, F64 };  // f16 stores half and computes in float
enum class Transform { C2C, R2C, C2R };
enum class InputType {
  Native,
  CI8,
  CI4
};  // the input's element: the precision's own, or complex int8 / int4 widened in the load
const char* precisionName(Precision p);  // "f16", "f32", "f64"
const char* transformName(Transform t);  // "c2c", "r2c", "c2r"

struct StockhamIo {
  std::vector<long long> strides;  // per dimension, outermost first; complex elements (reals for real arrays)
  long long distance = 0, offset = 0;
  bool planar = false;
  InputType type = InputType::Native;  // input only
  long long validLength = -1;          // input only, 1D c2c: elements present, the rest read as zeros
  std::string stridesKey;              // "stride" or "strides" where the spec gave them: the JSON path of errors
};

struct StockhamSpec {
  std::string file, name;
  Precision precision = Precision::F32;
  Transform transform = Transform::C2C;
  std::vector<int> lengths;  // logical lengths (real lengths for r2c/c2r), outermost first
  int sign = -1;             // forward = exp(-2 pi i ...) as cuFFT/FFTW
  bool inPlace = false;
  StockhamIo input, output;
  std::vector<int> factors;  // 1D single-kernel only; empty: chosen by the generator
  KernelTuning tuning;       // launch-geometry overrides for every kernel of the plan ("tuning")

  bool f64() const { return precision == Precision::F64; }
  bool real() const { return transform != Transform::C2C; }
  int length() const { return lengths.back(); }
  // The complex transform a 1D length runs as: r2c / c2r of even N run N/2 complex points, odd N run N.
  long long complexLength() const { return real() && length() % 2 == 0 ? length() / 2 : length(); }
  long long points() const;                // product of the lengths
  std::vector<long long> inShape() const;  // array shapes: r2c/c2r have N/2+1 on the complex side
  std::vector<long long> outShape() const;
};

// Errors are SpecErrors naming `file` and the JSON path.
StockhamSpec parseStockhamSpec(const Json& root, const std::string& file);
StockhamSpec parseStockhamSpecText(const std::string& text, const std::string& file);
StockhamSpec parseStockhamSpecFile(const std::string& file);

// Radices with generated butterflies, largest first (the default order).
const std::vector<int>& stockhamRadices();
bool isSmooth(long long n, int maxPrime = 31);  // all prime factors are radices (2..13 and 17..maxPrime)
// Smooth, or with prime factors 37..127 too: the cooperative passes of one-kernel FFTs (CoopRadix.h).
bool isCoopSmooth(long long n, int maxPrime = 31);
bool isLargePrimeRadix(int r);  // the primes 17..127 (37 and up: cooperative passes, CoopRadix.h)
// The largest prime radix per precision: the symmetric butterfly holds (R - 1) / 2 sums and
// differences; f64 radix 29 and 31 spilled at 255 registers (ptxas, sm_80 and sm_90).
int maxPrimeRadix(Precision precision);
// Whether a spec may give "factors": a 1D c2c length of radix primes that one kernel takes on sm_90. (The tuner
// varies and records factors only there, so that the spec it prints parses.)
bool explicitFactorsApply(const std::vector<int>& lengths, bool real, Precision precision);

// Largest length one shared-memory kernel transforms on every arch (sm_86 aside), per precision: the axes of 2D / 3D
// transforms, fused planes, the sides of two-kernel splits and cooperative-prime kernels keep it. A 1D length of
// radix primes takes one kernel up to maxOneKernelLength (StockhamPlan.h), which depends on the arch.
int maxSingleKernelLength(Precision precision);
// Largest Bluestein convolution done in one kernel (KernelDesc::convolve), as the single-kernel
// limit; longer convolutions take two kernels each way through a scratch buffer.
int maxConvolveKernelLength(Precision precision);
// The row kernel of a two-kernel plan where no split has both sides within maxSingleKernelLength
// (f64 3^15 = 2187 x 6561): the shared memory of the largest f32 kernel (f64 8192).
int maxSplitRowLength(Precision precision);
// r2c/c2r of even N = 2L: the largest L always done in one kernel with the split or merge fused (up to
// maxSplitKernelHalf where that kernel runs enough threads), and the largest L whose split or merge is a kernel of its
// own holding one FFT's L + 1 values (longer halves fuse it through mirrored FFT pairs).
int maxFusedRealHalf(Precision precision);
// Past maxFusedRealHalf a fused half runs one FFT of up to 144 KiB per block: fewer threads than this on it leave too
// few warps to cover the latency (f64 takes twice as many for the plan to fuse it; docs/stockham.md has the figures).
inline constexpr int kMinFusedRealHalfThreads = 256;
// Row-major strides in elements of a dense array of `shape` (outermost first, innermost stride 1).
std::vector<long long> denseStrides(const std::vector<long long>& shape);
// r2c/c2r of even N = 2L past maxFusedRealHalf: the largest L whose split or merge is a kernel of its own after
// (before) the complex FFT of L, holding one FFT's L + 1 values in shared memory (f32 / f16 16384: 128 KiB; f64 8192).
int maxSplitKernelHalf(Precision precision);
// The longest real length of r2c / c2r (1D; the innermost axis of 2D / 3D keeps maxSingleKernelLength).
long long maxRealLength(Precision precision);
// Largest 1D length (two kernels; Bluestein convolutions included).
long long maxLength(Precision precision);
// Largest Bluestein convolution (a power of two >= 2n - 1): bounds the chirp tables to 256 MiB.
long long maxBluesteinLength(Precision precision);

}  // namespace warpforge
