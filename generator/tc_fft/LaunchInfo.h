#pragma once
// What a user (or the runtime) needs to launch a generated kernel; the emitter
// fills it and writes it as an includable header (rocFFT-style launch struct).
#include <string>

namespace warpforge {

struct LaunchInfo {
  std::string specName;
  std::string kernelName;
  int blockThreads = 128;
  int fftsPerBlock = 4;          // one FFT per warp per grid-stride iteration
  int dynamicSharedBytes = 0;
  int minArch = 80;              // mma.sync m16n8k16 f16 needs sm_80+
  std::string elementType = "__half2";  // interleaved complex f16 (re = low half)
  int nIn = 0, nOut = 0;
  int inputVectorElems = 1;      // input_distance must be a multiple of this
  int outputVectorElems = 1;     // output_distance likewise
  bool inRegisterBenchmark = false;  // takes an extra `int repeats` parameter

  // Grid for `batch` FFTs: enough blocks to cover it, capped at what stays
  // resident (SMs x blocks per SM from the occupancy calculator).
  long long gridFor(long long batch, int smCount, int blocksPerSm) const;
};

// The header text: `struct <name>_launch` with constants and a params struct.
std::string launchHeaderText(const LaunchInfo& info, const std::string& headerComment);

}  // namespace warpforge
