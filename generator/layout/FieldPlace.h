#pragma once
// Where a layout puts an index field: an integer whose bit x is the logical bit names[x] (the rows i0 .. i3 of an MMA
// atom read as a layout, a family's receiver bits rcv1_0 rcv1_1 on its operand). The emitters print their lane and
// register index expressions and pick the register that holds a field value from it, so that the code reads operand
// positions from the same layouts the operand check (generator/verify/MmaCheck.h) proves against the atoms
// (FragmentTable.h, Wgmma.h).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "generator/layout/FragmentTable.h"
#include "generator/layout/Layout.h"

namespace warpforge {

struct FieldPlace {
  struct Bit {
    int field = 0;  // the field bit (names[field])
    PhysBit phys;   // the physical bit that carries it
  };
  // Physical bits shift .. shift + count - 1 of one kind carry field bits field .. field + count - 1 in order: that
  // kind's part of the field is ((index >> shift) & (2^count - 1)) << field.
  struct Run {
    int shift = 0, count = 0, field = 0;
  };
  std::vector<Bit> bits;  // in field-bit order; a field bit the layout lacks is absent (it reads 0)

  // The field's part held by index `index` of `kind` (a lane, a register, an element, a warp).
  int part(PhysKind kind, int index) const;
  // The bits `kind` carries, as (physical index, field bit) pairs in field-bit order.
  std::vector<std::pair<int, int>> of(PhysKind kind) const;
  // The bits of `kind` as one run; nothing where `kind` carries none or they are not one run.
  std::optional<Run> run(PhysKind kind) const;
  // 2^(physical index) of the bit of `kind` that carries field bit `field` (its weight in the index of that kind:
  // register i + weight holds the field's value + 2^field); 0 where no bit of `kind` carries it.
  int weight(PhysKind kind, int field) const;
};

FieldPlace fieldPlace(const Layout& layout, const std::vector<std::string>& names);

// An atom's operand fragment as a layout (physical bit -> matrix bit "i0", "j3", "k1"; the fragment's registers r0,
// r1, ...), so that fieldPlace names where the atom puts its rows, columns and summed index.
Layout atomLayout(const FragmentLayout& atom);
// The bits of a matrix index of `extent` (a power of two): axis 'i' and 8 give "i0", "i1", "i2".
std::vector<std::string> matrixIndexBits(char axis, int extent);

}  // namespace warpforge
