#pragma once
// Bluestein's whole convolution in one kernel (KernelDesc::convolve): the length-M sequence stays in shared memory
// between the forward FFT of the chirped, zero-padded input and the inverse FFT. The kernel runs its radix passes
// twice: stage 0 at sign -1, stage 1 at sign +1 with conjugated twiddles, its first read multiplied by the
// convolution kernel FFT(conj chirp)/M (passed in the big_lo slot). The chirp itself is the load and store table.
// (RadixPass.cpp reads KernelContext::stage for the second stage's first read and twiddles.)
#include <vector>

#include "generator/stockham/KernelContext.h"

namespace warpforge {

class BluesteinKernel {
 public:
  explicit BluesteinKernel(const KernelDesc& d) : d_(d) {}
  // How many times the kernel runs its passes.
  int stages() const { return d_.convolve ? 2 : 1; }
  // Kernel-entry statements (the convolution kernel's pointer).
  void prologue(const KernelContext& k, std::vector<ast::NodePtr>& body) const {
    if (!d_.convolve) return;
    body.push_back(ast::comment(
        "Bluestein: the convolution kernel FFT(conj chirp)/M comes in the big_lo slot of the parameter list"));
    body.push_back(ast::decl("const " + k.cT + "*", "conv", ast::var("big_lo")));
  }
  // The comment that opens stage s's passes.
  void openStage(std::vector<ast::NodePtr>& loop, int s) const {
    if (!d_.convolve) return;
    loop.push_back(ast::comment(
        s == 0 ? "Bluestein convolution, forward half: FFT of the chirped, zero-padded input"
               : "inverse half: times FFT(conj chirp)/M in the first read, inverse FFT (conjugated twiddles)"));
  }

 private:
  const KernelDesc& d_;
};

}  // namespace warpforge
