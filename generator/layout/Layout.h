#pragma once
// Register-bit layouts (docs: ../shared/docs/layout-notation.md).
// A Layout is a bijection between the physical index bits of a warp-held
// array (b = byte/half position in a 32-bit register, t = lane, r = register,
// w = warp) and named logical bits (n3, q0, ReIm, ReIm_in, ...).
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "generator/layout/BitMap.h"

namespace warpforge {

enum class PhysKind { B, T, R, W };

struct PhysBit {
  PhysKind kind;
  int index;
  bool operator==(const PhysBit&) const = default;
  std::string str() const;
  // "b0", "t3", "r12", "w1"; nullopt for anything else.
  static std::optional<PhysBit> parse(const std::string& name);
};

// Thrown for malformed layout text; the spec parser adds file and JSON path.
struct LayoutError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Layout {
 public:
  struct Entry {
    PhysBit phys;
    std::string logical;
  };

  Layout() = default;
  explicit Layout(std::vector<Entry> entries);  // validates bijection/naming

  // Parses "b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r <-> n2 n1 n0".
  static Layout parse(const std::string& text);

  const std::vector<Entry>& entries() const { return entries_; }
  std::optional<std::string> logicalAt(PhysBit p) const;
  std::optional<PhysBit> physOf(const std::string& logical) const;
  bool hasLogical(const std::string& logical) const { return physOf(logical).has_value(); }

  int count(PhysKind k) const;
  int numBits() const { return static_cast<int>(entries_.size()); }
  int numRegisters() const { return 1 << count(PhysKind::R); }
  // Logical bits held on register bits, in register order r0, r1, ...
  std::vector<std::string> registerBits() const;
  std::vector<std::string> logicalBits() const;

  // Same map as a different object with register bits renamed? (free in code)
  bool equalUpToRegisterOrder(const Layout& other) const;
  bool operator==(const Layout& other) const;

  // Exchange the logical bits held by two physical bits (used by relayout).
  Layout swapped(PhysBit a, PhysBit b) const;

  // Canonical text in the note's notation, groups b, t, r, w.
  std::string str() const;

  // The layout as a bit map from physical bit names ("b0", "t3", ...) to logical names, and back
  // (generator/layout/BitMap.h: compose, invert, product, divide).
  BitMap map() const;
  static Layout fromMap(const BitMap& m);

 private:
  std::vector<Entry> entries_;
};

// Index helpers: a physical address (lane, register, element-in-register)
// and its inverse, given which logical bit values are set.
struct PhysAddr {
  int lane = 0;
  int reg = 0;
  int elem = 0;  // value of the b bits
  int warp = 0;
};

}  // namespace warpforge
