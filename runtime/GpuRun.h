#pragma once
// Runs a generated tc_fft kernel on the GPU: random input, poisoned output,
// comparison with FFTW in double; and the benchmarks against cuFFT.
#include <cstdint>
#include <string>
#include <vector>

#include "generator/emulate/Half.h"  // floatToHalfBits, halfBitsToDouble
#include "generator/verify/Plan.h"
#include "runtime/Runtime.h"

namespace warpforge {

// Host-side binary16 conversion (round to nearest even).

struct RunCheck {
  long long batch = 0;
  long long checkedFfts = 0;    // compared with FFTW
  long long unwrittenValues = 0;  // still holding the poison pattern
  long long nonFinite = 0;
  double maxRelErr = 0;         // max over checked FFTs of ||y - ref|| / ||ref||
  double kernelMs = 0;          // one timed launch (after a warm-up)
  std::uint64_t seed = 0;
};

// checkAll: compare every FFT (else a deterministic sample of at most 4096
// plus the first and last). Distances: n_in + padIn, n_out + padOut.
RunCheck runAgainstFftw(Runtime& rt, const Plan& plan, const EmitOptions& opt, long long batch, std::uint64_t seed, bool checkAll,
                        long long padIn = 0, long long padOut = 0);

struct BenchReport {
  std::string device;
  long long batch = 0;
  int reps = 0;
  double ourMedianMs = 0, cufftMedianMs = 0, copyMedianMs = 0;
  double ourFftPerSec = 0, cufftFftPerSec = 0;
  double ourGBs = 0, cufftGBs = 0, copyGBs = 0;
  double inRegisterCyclesPerFft = 0;   // SM-cycles per FFT, register-resident
  double inRegisterMedianMs = 0;
  int inRegisterRepeats = 0;
  long long inRegisterBatch = 0;
  int registers = 0, blocksPerSm = 0;
  struct Variant {
    std::string name;
    EmitOptions options;
    double medianMs = 0;
    int registers = 0, blocksPerSm = 0;
  };
  std::vector<Variant> variants;  // emitter options compared in the same run
  double modelCycles = 0;
  int clockKHz = 0, smCount = 0;
  double bytesPerFft = 0;   // input + output bytes of one of our FFTs
};

BenchReport benchmarkTcFft(Runtime& rt, const Plan& plan, long long batch, int reps);
std::string formatBench(const BenchReport& r, const std::string& specName);

}  // namespace warpforge
