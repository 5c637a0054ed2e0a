#pragma once
// Fragment tables of the warp-level `mma.sync` instructions, written in the
// register-bit notation: which matrix-index bit each physical bit carries.
// Matrix bits: i = row of A and C (m), j = summed (k of PTX), k = column of B
// and C (n of PTX), as in the CHIME note's appendix B.
#include <string>
#include <utility>
#include <vector>

#include "generator/layout/BitMap.h"

namespace warpforge {

enum class Operand { A, B, C };

struct FragmentLayout {
  std::vector<std::string> b;  // matrix bit on b0, b1, ...
  std::vector<std::string> t;  // matrix bit on t0..t4
  std::vector<std::string> r;  // matrix bit on the fragment's own registers
  int numRegisters() const { return 1 << r.size(); }
  int elemsPerRegister() const { return 1 << b.size(); }
  // (row, col) of the element held at (lane, fragment register, element).
  std::pair<int, int> coord(Operand op, int lane, int reg, int elem) const;
  // The atom as a bit map: physical bit ("b0", "t2", "r1": the fragment's own registers) -> matrix bit ("j0", "k0",
  // "i3").
  BitMap atom() const;
};

struct MmaShape {
  std::string shape;   // "m16n8k16"
  std::string abType;  // "f16", "bf16", "tf32", "s8"
  std::string cType;   // "f16", "f32", "s32"
  int m, n, k;
  FragmentLayout a, b, c;
  int smCycles;             // cost model (note eq. 30); 0 where the note gives none
  std::string ptx() const;  // full instruction name
  const FragmentLayout& operand(Operand op) const { return op == Operand::A ? a : op == Operand::B ? b : c; }
};

// All shapes warpforge knows (every mma.sync any family emits); the spec names one by (shape, precision).
const std::vector<MmaShape>& allMmaShapes();
// The first shape of that name and operand type (for f16 operands: the f16 accumulator).
const MmaShape* findMmaShape(const std::string& shape, const std::string& abType);
const MmaShape* findMmaShape(const std::string& shape, const std::string& abType, const std::string& cType);
std::string knownShapesFor(const std::string& abType);
// The same instruction with a 32-bit accumulator (f16 operands: f32, s8: s32; any other: itself): the atom whose C
// fragment the complex families' accumulator layouts are written against.
const MmaShape& mmaAccumulatorShape(const MmaShape& s);

}  // namespace warpforge
