#include "generator/tc_fft/LaunchInfo.h"

#include <algorithm>

#include <fmt/format.h>

namespace warpforge {

long long LaunchInfo::gridFor(long long batch, int smCount, int blocksPerSm) const {
  long long need = (batch + fftsPerBlock - 1) / fftsPerBlock;
  long long resident = static_cast<long long>(std::max(1, smCount)) * std::max(1, blocksPerSm);
  return std::max(1LL, std::min(need, resident));
}

std::string launchHeaderText(const LaunchInfo& i, const std::string& headerComment) {
  return fmt::format(R"(// {comment}
#pragma once

namespace warpforge_kernels {{

// Launch description of kernel `{kernel}` (spec `{spec}`).
// Kernel signature:
//   extern "C" __global__ void {kernel}(const __half2* input, __half2* output,
//       long long batch, long long input_distance, long long output_distance{repeats_sig});
// FFT b reads input[b * input_distance + n], 0 <= n < {n_in}, and writes
// output[b * output_distance + q], 0 <= q < {n_out}; elements are {elem}.
struct {spec}_launch {{
  static constexpr const char* kernel_name = "{kernel}";
  static constexpr int block_threads = {block};
  static constexpr int ffts_per_block = {per_block};      // one FFT per warp per grid-stride step
  static constexpr int dynamic_shared_bytes = {smem};
  static constexpr int min_arch = {arch};                 // compute capability x10
  static constexpr int n_in = {n_in};
  static constexpr int n_out = {n_out};
  static constexpr int input_distance_multiple = {in_vec};   // vector loads need this alignment
  static constexpr int output_distance_multiple = {out_vec};
  static constexpr bool takes_repeats = {bench};

  struct params {{
    const void* input;
    void* output;
    long long batch;
    long long input_distance;
    long long output_distance;
  }};

  // Grid that covers `batch`, capped at the resident blocks of the device.
  static long long grid_for(long long batch, int sm_count, int blocks_per_sm) {{
    long long need = (batch + ffts_per_block - 1) / ffts_per_block;
    long long resident = (long long)(sm_count > 0 ? sm_count : 1) * (blocks_per_sm > 0 ? blocks_per_sm : 1);
    long long g = need < resident ? need : resident;
    return g > 0 ? g : 1;
  }}
}};

}}  // namespace warpforge_kernels
)",
                     fmt::arg("comment", headerComment), fmt::arg("kernel", i.kernelName), fmt::arg("spec", i.specName),
                     fmt::arg("repeats_sig", i.inRegisterBenchmark ? ", int repeats" : ""), fmt::arg("n_in", i.nIn),
                     fmt::arg("n_out", i.nOut), fmt::arg("elem", "interleaved complex f16, real part in the low half"),
                     fmt::arg("block", i.blockThreads), fmt::arg("per_block", i.fftsPerBlock), fmt::arg("smem", i.dynamicSharedBytes),
                     fmt::arg("arch", i.minArch), fmt::arg("in_vec", i.inputVectorElems), fmt::arg("out_vec", i.outputVectorElems),
                     fmt::arg("bench", i.inRegisterBenchmark ? "true" : "false"));
}

}  // namespace warpforge
