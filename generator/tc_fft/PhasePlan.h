#pragma once
// Phase registers of a tc_fft kernel: which registers hold which E(q, n)
// values, computed once per thread before the FFT loop (sincospif in f32,
// rounded to f16). Registers with identical contents in every lane are
// computed once and shared (the note's E_{Z3->Z4} / E_{Z4->Y'} observation,
// found automatically). Phases with a stored (packed) layout are kept packed
// and unpacked at use when `packed` is set.
#include <map>
#include <string>
#include <vector>

#include "ast/Ast.h"
#include "generator/verify/Plan.h"

namespace warpforge {

class PhasePlan {
 public:
  PhasePlan(const LayoutProgram& spec, bool packed);

  // Declarations and computation of every phase register (uses `lane`).
  std::vector<ast::NodePtr> prologue() const;
  // Expression for register `reg` of the array's operand layout.
  ast::NodePtr operand(const std::string& array, int reg) const;
  // What the emitted code puts in element `elem` of that register in lane `lane`, in double: the same held registers,
  // sharing and unpacking as operand(), for tests to set against the emulator's phases.
  double operandValue(const std::string& array, int reg, int lane, int elem) const;
  // Registers actually held (after sharing), and before sharing.
  int registersHeld() const { return held_; }
  int registersNaive() const { return naive_; }

 private:
  struct Slot {
    std::string var;  // shared variable name, e.g. "E_Z1_Z2_r2"
    bool owner;       // computes it (else copies nothing: aliases the owner)
  };
  const LayoutProgram& spec_;
  bool packed_;
  std::map<std::string, std::vector<std::string>> regVar_;  // array -> per held register, the variable holding it
  std::map<std::string, std::pair<std::string, int>> owner_;  // variable -> (array, register) that computes it
  double heldValue(const std::string& var, int lane, int elem) const;
  std::vector<ast::NodePtr> prologue_;
  int held_ = 0, naive_ = 0;

  bool usesStored(const ArraySpec& a) const { return packed_ && a.stored.has_value(); }
};

}  // namespace warpforge
