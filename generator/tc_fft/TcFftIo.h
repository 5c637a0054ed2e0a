#pragma once
// How a tc_fft kernel moves an FFT's values between memory and the registers of its input and output layouts: the
// element offset of every register (lane bits add a per-lane offset, register bits constants), vector accesses where
// the lowest index bits sit on registers, batch bits f (several FFTs per warp, `fStride` elements apart), and zero
// padding (input index bits from log2 n_in up: registers or lanes where one is set read zeros, never memory).
#include <string>
#include <vector>

#include "ast/Ast.h"
#include "generator/layout/Layout.h"

namespace warpforge {

struct IoPlan {
  char letter = 'n';           // 'n' (input) or 'q' (output)
  int logReal = 0;             // index bits below this address memory; carried bits above are zero padding
  long long fStride = 0;       // elements between the warp's FFTs (batch bit f_k adds fStride << k)
  int vecBits = 0;             // registers per vector access = 1 << vecBits
  std::vector<int> vecRegBit;  // register bit of index bit 0, 1, ...
  ast::NodePtr laneOffset;     // element offset contributed by lane bits
  int padLaneMask = 0;         // lanes with any of these bits set hold zero padding
};

// `logReal`: log2 of the elements one FFT has in memory (n_in or n_out).
IoPlan ioPlan(const Layout& l, char letter, int logReal, long long fStride);

// Loads (or stores) every register of `array` from/to `ptr` + `laneVar` + each register's offset; registers of zero
// padding get 0 and lanes of it (`validVar`: a bool per lane) read 0 instead of memory.
std::vector<ast::NodePtr> registerAccess(const Layout& l, const IoPlan& p, const std::string& array,
                                         const std::string& ptr, const std::string& laneVar, bool load,
                                         const std::string& validVar = "");

ast::NodePtr laneBit(int t);

}  // namespace warpforge
