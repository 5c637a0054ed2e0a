#include "generator/layout/FieldPlace.h"

#include <fmt/format.h>

namespace warpforge {

FieldPlace fieldPlace(const Layout& layout, const std::vector<std::string>& names) {
  FieldPlace p;
  for (std::size_t k = 0; k < names.size(); ++k)
    if (const auto ph = layout.physOf(names[k])) p.bits.push_back({static_cast<int>(k), *ph});
  return p;
}

int FieldPlace::part(PhysKind kind, int index) const {
  int v = 0;
  for (const Bit& b : bits)
    if (b.phys.kind == kind) v |= ((index >> b.phys.index) & 1) << b.field;
  return v;
}

std::vector<std::pair<int, int>> FieldPlace::of(PhysKind kind) const {
  std::vector<std::pair<int, int>> out;
  for (const Bit& b : bits)
    if (b.phys.kind == kind) out.push_back({b.phys.index, b.field});
  return out;
}

std::optional<FieldPlace::Run> FieldPlace::run(PhysKind kind) const {
  const auto on = of(kind);
  if (on.empty()) return std::nullopt;
  Run r{on.front().first, 0, on.front().second};
  for (const auto& [phys, field] : on) {
    if (phys != r.shift + r.count || field != r.field + r.count) return std::nullopt;
    ++r.count;
  }
  return r;
}

int FieldPlace::weight(PhysKind kind, int field) const {
  for (const Bit& b : bits)
    if (b.phys.kind == kind && b.field == field) return 1 << b.phys.index;
  return 0;
}

Layout atomLayout(const FragmentLayout& atom) { return Layout::fromMap(atom.atom()); }

std::vector<std::string> matrixIndexBits(char axis, int extent) {
  std::vector<std::string> out;
  for (int x = 0; (1 << x) < extent; ++x) out.push_back(fmt::format("{}{}", axis, x));
  return out;
}

}  // namespace warpforge
