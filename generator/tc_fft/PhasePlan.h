#pragma once
// Phase registers of a tc_fft kernel: which registers hold which E(q, n)
// values, computed once per thread before the FFT loop (sincospif in f32,
// rounded to f16). Registers with identical contents in every lane are
// computed once and shared (the note's E_{Z3->Z4} / E_{Z4->Y'} observation,
// found automatically). Phases with a stored (packed) layout are kept packed
// and unpacked at use when `packed` is set.
//
// Where the largest data array and the held phase registers together pass the
// register budget (4096 points: 128 data registers), the phases that only
// complex multiplies read go to a per-block shared table instead (computed in
// the prologue, each thread writing and reading only its own lane's column),
// then MMA operands until the rest fits: they are read at use, and the
// registers stay free for the data.
#include <map>
#include <string>
#include <vector>

#include "ast/Ast.h"
#include "generator/verify/Plan.h"

namespace warpforge {

// Data registers of the largest array plus held phase registers past which cmul-only phases go to the shared table:
// what a thread has (255) less room for the relayout scratch, addresses and the MMA fragments in flight.
constexpr int kPhaseRegisterBudget = 144;
// f32 accumulators hold an MMA's results in twice the registers until they are rounded, and their complex multiplies
// widen phases and results: less room for phases (at 2048 points the f16 kernel already takes all 255 registers).
constexpr int kPhaseRegisterBudgetF32 = 96;
inline int phaseRegisterBudget(const LayoutProgram& spec) {
  return spec.accumulate == "f32" ? kPhaseRegisterBudgetF32 : kPhaseRegisterBudget;
}

// A per-warp factor folded into the phases: the entries of each listed array also carry
// exp(sign 2 pi i v (sum_k n_k 2^k) / (scale n_out)) over its listed input bits n_k, v a variable of the kernel (the
// four-warp kernel's warp index p, whose twiddle W^(p m) then costs nothing per row). Each input bit must be listed
// once over all arrays, in an array read by one step whose phase factors name that bit.
struct PhaseTwist {
  std::string var;
  int scale = 1;
  std::map<std::string, std::vector<int>> bits;  // phase array -> its input bits k
};

class PhasePlan {
 public:
  // `twist`: a per-warp factor folded into the phases (none by default).
  PhasePlan(const LayoutProgram& spec, bool packed, const PhaseTwist* twist = nullptr);

  // Declarations and computation of every phase register (uses `lane`).
  std::vector<ast::NodePtr> prologue() const;
  // Expression for register `reg` of the array's operand layout.
  ast::NodePtr operand(const std::string& array, int reg) const;
  // What the emitted code puts in element `elem` of that register in lane `lane`, in double: the same held registers,
  // sharing and unpacking as operand(), for tests to set against the emulator's phases (a twist's variable at 0).
  double operandValue(const std::string& array, int reg, int lane, int elem) const;
  // Registers actually held (after sharing), and before sharing.
  int registersHeld() const { return held_; }
  int registersNaive() const { return naive_; }
  // Phase registers kept in the shared table instead (0 under the budget), and its bytes per block.
  int registersTabled() const { return static_cast<int>(tableSlot_.size()); }
  long long tableBytes() const { return 4LL * 32 * registersTabled(); }

 private:
  struct Slot {
    std::string var;  // shared variable name, e.g. "E_Z1_Z2_r2"
    bool owner;       // computes it (else copies nothing: aliases the owner)
  };
  const LayoutProgram& spec_;
  bool packed_;
  PhaseTwist twist_;                                          // empty bits: none
  std::map<std::string, std::vector<std::string>> regVar_;    // array -> per held register, the variable holding it
  std::map<std::string, std::pair<std::string, int>> owner_;  // variable -> (array, register) that computes it
  std::map<std::string, int> tableSlot_;  // variable -> its column in the shared table (the tabled ones)
  double heldValue(const std::string& var, int lane, int elem) const;
  ast::NodePtr ref(const std::string& var) const;  // a held variable, or its table entry for this lane
  std::vector<ast::NodePtr> prologue_;
  int held_ = 0, naive_ = 0;

  bool usesStored(const ArraySpec& a) const { return packed_ && a.stored.has_value(); }
};

}  // namespace warpforge
