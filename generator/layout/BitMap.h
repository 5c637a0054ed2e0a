#pragma once
// The layout algebra: a BitMap is a bijection between two finite sets of named index bits, read as a map of
// addresses (x = sum of x_k 2^k over the domain's bits, moved bit by bit onto the codomain). Every register layout is
// one (physical bits b0, t3, r1 ... -> logical bits n7, q0, ReIm ...), every MMA atom is one (physical -> matrix bits
// i0, j3, k1 ...), and the questions the verifier and the synthesizer ask are compositions of them:
//   - which logical bit plays matrix bit j2 of operand B:   layout.compose(atom.inverse())        (matrix -> logical)
//   - the physical permutation a relayout must perform:     to.inverse().compose(from)            (physical ->
//   physical)
//   - an operand built from an atom and a role assignment: roles.compose(atom) (physical -> logical), then
//     .product(loops) to add the register bits the fragment does not own.
// In the spirit of Triton's LinearLayout restricted to permutation matrices (a layout here never XORs bits: swizzles
// are the wgmma atoms' business), with CuTe's vocabulary for the product and the quotient.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace warpforge {

struct BitMapError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class BitMap {
 public:
  struct Pair {
    std::string from, to;
    bool operator==(const Pair&) const = default;
  };

  BitMap() = default;
  // Throws BitMapError when a name repeats on either side (the map must be a bijection).
  explicit BitMap(std::vector<Pair> pairs);
  // x -> x for every name.
  static BitMap identity(const std::vector<std::string>& names);

  const std::vector<Pair>& pairs() const { return pairs_; }
  int size() const { return static_cast<int>(pairs_.size()); }
  std::vector<std::string> domain() const;
  std::vector<std::string> image() const;
  bool hasDomain(const std::string& x) const { return apply(x).has_value(); }
  bool hasImage(const std::string& y) const { return preimage(y).has_value(); }
  std::optional<std::string> apply(const std::string& x) const;
  std::optional<std::string> preimage(const std::string& y) const;

  // y -> x for every x -> y.
  BitMap inverse() const;
  // (this o inner): x -> this(inner(x)). Every image bit of `inner` must be in this map's domain; this map's domain
  // bits that `inner` does not reach are dropped (composition restricts to what `inner` produces).
  BitMap compose(const BitMap& inner) const;
  // The disjoint union: both maps side by side. Domains and images must not overlap.
  BitMap product(const BitMap& other) const;
  // The quotient by a factor: `factor` must be this map restricted to its domain (this = factor.product(quotient));
  // returns the rest. A factor that disagrees with this map on some bit is an error naming the bit.
  BitMap divide(const BitMap& factor) const;
  // This map on the given domain bits only (each must be in the domain).
  BitMap restrict(const std::vector<std::string>& domainBits) const;
  // Each image name y replaced by rename(y) (a bijection of names, e.g. ReIm -> ReIm_in).
  BitMap renameImage(const BitMap& rename) const;

  // Equal as maps (the order of pairs is irrelevant).
  bool operator==(const BitMap& o) const;
  // "b0->ReIm t0->n7 ..." in the order of the pairs.
  std::string str() const;

 private:
  std::vector<Pair> pairs_;
};

}  // namespace warpforge
