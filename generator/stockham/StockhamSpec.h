#pragma once
// The `stockham` family: batched 1D complex FFTs of any length whose prime
// factors are all supported radices, in f32 or f64, with arbitrary strides,
// distances and offsets (rocFFT-style affine indexing).
#include <string>
#include <vector>

namespace warpforge {

struct StockhamIo {
  long long stride = 1, distance = 0, offset = 0;  // in complex elements
};

struct StockhamSpec {
  std::string file, name;
  std::string precision = "f32";   // f32 | f64
  int length = 0;
  int sign = -1;                   // forward = exp(-2 pi i ...) as cuFFT/FFTW
  bool inPlace = false;
  StockhamIo input, output;
  std::vector<int> factors;        // empty: chosen by the generator
};

StockhamSpec parseStockhamSpecText(const std::string& text, const std::string& file);
StockhamSpec parseStockhamSpecFile(const std::string& file);

// Radices with generated butterflies, largest first (the default order).
const std::vector<int>& stockhamRadices();
// Greedy factorization into supported radices; throws std::invalid_argument
// naming the unsupported prime (Bluestein is not implemented yet).
// maxRadix: f64 butterflies of 16 need more than 255 registers.
std::vector<int> factorizeStockham(int n, int maxRadix = 16);

}  // namespace warpforge
