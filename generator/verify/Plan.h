#pragma once
// The Verifier's output: every step of a consistent spec resolved down to the
// registers it touches, plus instruction counts. The emulator and the CUDA
// emitter both execute a Plan, so what was proved is what runs.
#include <map>
#include <string>
#include <vector>

#include "generator/layout/FragmentTable.h"
#include "generator/layout/Relayout.h"
#include "generator/verify/Program.h"

namespace warpforge {

struct InstrCounts {
  std::map<std::string, int> mma;  // by shape
  int hfma2 = 0;                   // __half2 FMA-class instructions (HFMA2/HMUL2)
  int shuffles = 0;
  int byteperms = 0;
  int ffma = 0;  // f32 FFMA/FMUL (complex multiplies on f32 accumulators)
  int cvt = 0;   // f16 <-> f32 conversions (f32 results rounded to __half2, f16 phases widened)
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

  // Registers used by MMA number `it` (0 <= it < count): the loop bits set
  // to the bits of `it`, then fragment register `fr` placed on sigma's bits.
  struct Bases {
    int a = 0, b = 0, c = 0;
  };
  Bases bases(int it) const {
    Bases r;
    for (std::size_t x = 0; x < loopBits.size(); ++x) {
      int v = (it >> x) & 1;
      r.c |= v << loopRegC[x];
      if (loopRegA[x] >= 0) r.a |= v << loopRegA[x];
      if (loopRegB[x] >= 0) r.b |= v << loopRegB[x];
    }
    return r;
  }
  static int fragmentRegister(int base, const std::vector<int>& sigma, int fr) {
    for (std::size_t f = 0; f < sigma.size(); ++f) base |= ((fr >> f) & 1) << sigma[f];
    return base;
  }
};

struct CmulStepPlan {
  // For each data register: the phase register holding its factor; -1 if none.
  std::vector<int> phaseRegOfDataReg;
  std::vector<int> outRegOfDataReg;  // register of the output array
  int reImDataBit = 0;               // register bit of ReIm in the data array
  int reImPhaseBit = 0;              // register bit of ReIm in the phase array
};

struct StepPlan {
  const StepSpec* spec = nullptr;
  MmaStepPlan mma;
  CmulStepPlan cmul;
  RelayoutPlan relayout;
  InstrCounts counts;
  // f32 accumulation: the MMA's f32 results go straight into the complex multiply that follows (f32Out on the MMA,
  // f32In on the multiply), which rounds to __half2; an MMA without f32Out rounds its results itself.
  bool f32Out = false, f32In = false;
};

struct Plan {
  const LayoutProgram* spec = nullptr;
  std::vector<StepPlan> steps;
  InstrCounts total;
  std::vector<std::string> warnings;
};

}  // namespace warpforge
