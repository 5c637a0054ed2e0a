#pragma once
// How an emitted tc_fft kernel is launched, as the emitter decided it;
// tcFftLaunchPlan (TcFftLaunch.h) turns it into the generic LaunchPlan.
#include <string>

namespace warpforge {

struct LaunchInfo {
  std::string specName;
  std::string kernelName;
  int blockThreads = 128;
  int fftsPerBlock = 4;  // one FFT per warp per grid-stride iteration
  int dynamicSharedBytes = 0;
  int minBlocksPerSm = 0;               // __launch_bounds__'s second argument where > 0 (a register cap)
  int minArch = 80;                     // mma.sync m16n8k16 f16 needs sm_80+
  std::string elementType = "__half2";  // interleaved complex f16 (re = low half)
  int nIn = 0, nOut = 0;
  int inputVectorElems = 1;          // input_distance must be a multiple of this
  int outputVectorElems = 1;         // output_distance likewise
  bool inRegisterBenchmark = false;  // takes an extra `int repeats` parameter
};

}  // namespace warpforge
