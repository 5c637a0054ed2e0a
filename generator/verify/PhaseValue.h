#pragma once
// What a phase array holds, element by element (docs/layout-notation.md): E = prod over its factors of E(q_J, n_K),
// as the 2x2 real block [[c, -s], [s, c]] where it is an MMA operand (ReIm_in, ReIm_out), as (c, s) where it is
// elementwise (ReIm), and zero off the diagonal of every other pass-through pair x_in, x_out. The emulator, the
// emitter's phase registers and the verifier read phases through this one definition.
#include <optional>
#include <string>

#include "generator/verify/Program.h"

namespace warpforge {

// Pass-through names: "n5_in" / "n5_out" (and ReIm_in / ReIm_out) are the two halves of the data bit "n5".
bool isPassIn(const std::string& logical);
bool isPassOut(const std::string& logical);
// "n5_in" -> "n5"; a name without suffix is returned as is.
std::string passBase(const std::string& logical);

enum class PhaseComp { Cos, Sin, NegSin, Zero };

// E at one element: exp(sign * 2 pi i m / n_out) read as the component `comp`.
struct PhaseEntry {
  long long m = 0;  // in [0, n_out)
  PhaseComp comp = PhaseComp::Cos;
};

// Where layout `l` keeps the value of factor bit `name` ("q3", "n0"): the bit itself, else its _in half.
std::optional<PhysBit> factorBitPosition(const Layout& l, const std::string& name);

// The phase array `a` at (lane, register, element) of `l` (its operand or its stored layout).
PhaseEntry phaseEntry(const ArraySpec& a, const Layout& l, int nOut, int lane, int reg, int elem);

// Which of c, s, -s the layout puts at (lane, register, element), ignoring the pass-through pairs' zeros.
PhaseComp phaseComponent(const Layout& l, int lane, int reg, int elem);

// The value 0 or 1 of physical bit p at (lane, register, element).
int physBitValue(PhysBit p, int lane, int reg, int elem);

}  // namespace warpforge
