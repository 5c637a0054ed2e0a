#pragma once
// CPU warp emulator: executes a verified Plan on 32 emulated lanes with the
// mma.sync fragment semantics, in double or with f16 rounding where the
// hardware rounds. Only the input/output and phase layouts give numbers a
// meaning; every other step is pure register arithmetic and data movement,
// so a wrong plan gives a wrong answer.
#include <cstdint>
#include <string>
#include <vector>

#include "generator/emulate/Reference.h"
#include "generator/verify/Plan.h"

namespace warpforge {

enum class EmuMode { Double, F16 };

// Register file of one warp-held array: value[lane][reg][elem].
struct RegFile {
  int nregs = 0, nelem = 0;
  std::vector<double> v;
  RegFile() = default;
  RegFile(int regs, int elems) : nregs(regs), nelem(elems), v(32 * regs * elems, 0.0) {}
  double& at(int lane, int reg, int elem) { return v[(lane * nregs + reg) * nelem + elem]; }
  double at(int lane, int reg, int elem) const { return v[(lane * nregs + reg) * nelem + elem]; }
};

// Value of logical bit `name` at a physical address of `layout`.
int logicalBitValue(const Layout& layout, const std::string& name, int lane, int reg, int elem);

// Contents of a phase array in its operand layout (what the MMA/FMA reads).
RegFile phaseRegisters(const LayoutProgram& spec, const ArraySpec& a, EmuMode mode);

// Applies one data-movement op / a full relayout to a register file.
void applyMove(RegFile& rf, const MoveOp& op);
void applyRelayout(RegFile& rf, const RelayoutPlan& plan);

// One warp's FFTs: x holds 2^(batch bits) inputs of n_in entries each; returns as many outputs of n_out entries.
std::vector<std::vector<cdouble>> emulateWarp(const Plan& plan, EmuMode mode,
                                              const std::vector<std::vector<cdouble>>& x);
// One FFT (the first of the warp; the others get zeros): x has n_in entries; returns n_out outputs.
std::vector<cdouble> emulateFft(const Plan& plan, EmuMode mode, const std::vector<cdouble>& x);

struct EmulateSummary {
  double maxRelErr = 0;
  int ffts = 0;
};
EmulateSummary emulateAgainstFftw(const Plan& plan, EmuMode mode, std::uint64_t seed, int ffts);

}  // namespace warpforge
