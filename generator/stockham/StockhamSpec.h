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

struct StockhamIo {
  std::vector<long long> strides;  // per dimension, outermost first; complex elements (reals for real arrays)
  long long distance = 0, offset = 0;
  bool planar = false;
  std::string type;                // input only: "" (the precision), "ci8" or "ci4"
  long long validLength = -1;      // input only, 1D c2c: elements present, the rest read as zeros
  std::string stridesKey;          // "stride" or "strides" where the spec gave them: the JSON path of errors
};

struct StockhamSpec {
  std::string file, name;
  std::string precision = "f32";   // f16 | f32 | f64 (f16 stores half, computes in float)
  std::string transform = "c2c";   // c2c | r2c | c2r
  std::vector<int> lengths;        // logical lengths (real lengths for r2c/c2r), outermost first
  int sign = -1;                   // forward = exp(-2 pi i ...) as cuFFT/FFTW
  bool inPlace = false;
  StockhamIo input, output;
  std::vector<int> factors;        // 1D single-kernel only; empty: chosen by the generator
  KernelTuning tuning;             // launch-geometry overrides for every kernel of the plan ("tuning")

  int length() const { return lengths.back(); }
  long long points() const;                     // product of the lengths
  std::vector<long long> inShape() const;       // array shapes: r2c/c2r have N/2+1 on the complex side
  std::vector<long long> outShape() const;
};

// Errors are SpecErrors naming `file` and the JSON path.
StockhamSpec parseStockhamSpec(const Json& root, const std::string& file);
StockhamSpec parseStockhamSpecText(const std::string& text, const std::string& file);
StockhamSpec parseStockhamSpecFile(const std::string& file);

// Radices with generated butterflies, largest first (the default order).
const std::vector<int>& stockhamRadices();
// The generator's factorization, radices at most maxRadix, largest first: the
// power-of-two part spread evenly over the fewest passes of radix <= 16, the odd
// part greedily (radix 49 only where maxRadix admits it: its butterfly needs
// ~250 registers; 2401 = 7^4 ran 1.6x faster than 49 x 49 on the H100). Throws
// std::invalid_argument naming the first prime that is not a radix.
std::vector<int> factorizeStockham(int n, int maxRadix = 27);
bool isSmooth(long long n);  // all prime factors are radices

// Largest length one shared-memory kernel transforms, per precision.
int maxSingleKernelLength(const std::string& precision);
// Largest 1D length (two kernels; Bluestein convolutions included).
long long maxLength(const std::string& precision);
// Largest Bluestein convolution (a power of two >= 2n - 1): bounds the chirp tables to 256 MiB.
long long maxBluesteinLength(const std::string& precision);

}  // namespace warpforge
