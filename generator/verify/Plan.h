#pragma once
// The Verifier's output: every step of a consistent spec resolved down to the
// registers it touches, plus instruction counts. The emulator and the CUDA
// emitter both execute a Plan, so what was proved is what runs.
#include <map>
#include <string>
#include <vector>

#include "generator/layout/FragmentTable.h"
#include "generator/layout/Relayout.h"
#include "generator/spec/Spec.h"

namespace warpforge {

struct InstrCounts {
  std::map<std::string, int> mma;  // by shape
  int hfma2 = 0;                   // __half2 FMA-class instructions (HFMA2/HMUL2)
  int shuffles = 0;
  int byteperms = 0;
  double smCycles = 0;
  InstrCounts& operator+=(const InstrCounts& o);
};

struct MmaStepPlan {
  const MmaShape* shape = nullptr;
  // For operand X in {A, B, C}: regBit[X][f] = the array register bit that
  // plays the fragment's own register bit f.
  std::vector<int> aReg, bReg, cReg;
  // Loop bits (logical names, C's register bits outside the fragment), and
  // where each sits in A and B (-1 = the operand is reused across it).
  std::vector<std::string> loopBits;
  std::vector<int> loopRegC, loopRegA, loopRegB;
  std::map<std::string, std::string> matrixBits;  // "i0" -> "q0", ...
  int count = 0;
};

struct CmulStepPlan {
  // For each data register: the phase register holding its factor; -1 if none.
  std::vector<int> phaseRegOfDataReg;
  std::vector<int> outRegOfDataReg;  // register of the output array
  int reImDataBit = 0;   // register bit of ReIm in the data array
  int reImPhaseBit = 0;  // register bit of ReIm in the phase array
};

struct StepPlan {
  const StepSpec* spec = nullptr;
  MmaStepPlan mma;
  CmulStepPlan cmul;
  RelayoutPlan relayout;
  InstrCounts counts;
};

struct Plan {
  const TcFftSpec* spec = nullptr;
  std::vector<StepPlan> steps;
  InstrCounts total;
  std::vector<std::string> warnings;
};

}  // namespace warpforge
