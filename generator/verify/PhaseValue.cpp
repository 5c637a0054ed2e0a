#include "generator/verify/PhaseValue.h"

#include <stdexcept>

#include <fmt/format.h>

namespace warpforge {

namespace {
bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

bool isPassIn(const std::string& l) { return endsWith(l, "_in"); }
bool isPassOut(const std::string& l) { return endsWith(l, "_out"); }

std::string passBase(const std::string& l) {
  if (isPassIn(l)) return l.substr(0, l.size() - 3);
  if (isPassOut(l)) return l.substr(0, l.size() - 4);
  return l;
}

int physBitValue(PhysBit p, int lane, int reg, int elem) {
  switch (p.kind) {
    case PhysKind::B: return (elem >> p.index) & 1;
    case PhysKind::T: return (lane >> p.index) & 1;
    case PhysKind::R: return (reg >> p.index) & 1;
    case PhysKind::W: return 0;
  }
  return 0;
}

std::optional<PhysBit> factorBitPosition(const Layout& l, const std::string& name) {
  if (auto p = l.physOf(name)) return p;
  return l.physOf(name + "_in");
}

PhaseEntry phaseEntry(const ArraySpec& a, const Layout& l, int nOut, int lane, int reg, int elem) {
  auto value = [&](const std::string& name) {
    auto p = factorBitPosition(l, name);
    if (!p)
      throw std::logic_error(fmt::format("phase array '{}': factor bit {} is not in layout {}", a.name, name, l.str()));
    return physBitValue(*p, lane, reg, elem);
  };
  PhaseEntry e;
  for (const auto& en : l.entries())
    if (isPassIn(en.logical) && en.logical != "ReIm_in") {
      const std::string base = passBase(en.logical);
      if (physBitValue(en.phys, lane, reg, elem) != physBitValue(*l.physOf(base + "_out"), lane, reg, elem)) {
        e.comp = PhaseComp::Zero;
        return e;
      }
    }
  long long m = 0;
  for (const auto& f : a.phase)
    for (int j : f.q)
      if (value(fmt::format("q{}", j)))
        for (int k : f.n)
          if (value(fmt::format("n{}", k))) m += (1LL << (j + k)) % nOut;
  e.m = m % nOut;
  e.comp = phaseComponent(l, lane, reg, elem);
  return e;
}

PhaseComp phaseComponent(const Layout& l, int lane, int reg, int elem) {
  if (auto in = l.physOf("ReIm_in")) {
    const int i = physBitValue(*in, lane, reg, elem), o = physBitValue(*l.physOf("ReIm_out"), lane, reg, elem);
    return o == i ? PhaseComp::Cos : (o == 0 ? PhaseComp::NegSin : PhaseComp::Sin);  // [[c, -s], [s, c]]
  }
  return physBitValue(*l.physOf("ReIm"), lane, reg, elem) ? PhaseComp::Sin : PhaseComp::Cos;
}

}  // namespace warpforge
