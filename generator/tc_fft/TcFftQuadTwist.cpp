#include "generator/tc_fft/TcFftQuadTwist.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

namespace warpforge {

namespace {

// Phase arrays read by exactly one step (an MMA's or a complex multiply's operand), in step order.
std::vector<std::string> singleUsePhases(const LayoutProgram& sub) {
  std::map<std::string, int> uses;
  std::vector<std::string> order;
  for (const auto& st : sub.steps)
    if ((st.op == StepOp::Mma || st.op == StepOp::Cmul) && !st.a.empty()) {
      if (!uses[st.a]++) order.push_back(st.a);
    }
  std::vector<std::string> out;
  for (const auto& a : order)
    if (uses[a] == 1) out.push_back(a);
  return out;
}

bool namesBit(const ArraySpec& a, int k) {
  for (const auto& f : a.phase)
    if (std::count(f.n.begin(), f.n.end(), k)) return true;
  return false;
}

PhaseTwist emptyTwist() {
  PhaseTwist t;
  t.var = "part";
  t.scale = 4;
  return t;
}

}  // namespace

PhaseTwist tcFftQuadTwist(const LayoutProgram& sub, bool packed) {
  const std::vector<std::string> arrays = singleUsePhases(sub);
  PhaseTwist t = emptyTwist();
  for (int k = 0; k < sub.logIn; ++k) {
    int best = -1;
    std::string bestArray;
    for (const auto& name : arrays) {
      if (!namesBit(*sub.array(name), k)) continue;
      PhaseTwist trial = t;
      trial.bits[name].push_back(k);
      const int held = PhasePlan(sub, packed, &trial).registersHeld();
      if (best < 0 || held < best) best = held, bestArray = name;
    }
    if (best < 0)
      throw std::logic_error(fmt::format("{}: no phase array read by one step names input bit n{}", sub.name, k));
    t.bits[bestArray].push_back(k);
  }
  checkTcFftQuadTwist(sub, t);
  return t;
}

void checkTcFftQuadTwist(const LayoutProgram& sub, const PhaseTwist& t) {
  if (t.var != "part" || t.scale != 4)
    throw std::logic_error("the four-warp twist is W^(p m), W = exp(sign 2 pi i / 4096): variable part, scale 4");
  const std::vector<std::string> arrays = singleUsePhases(sub);
  std::vector<int> applied(sub.logIn, 0);
  for (const auto& [name, bits] : t.bits) {
    if (std::find(arrays.begin(), arrays.end(), name) == arrays.end())
      throw std::logic_error(fmt::format("twist on '{}': not a phase operand read by exactly one step", name));
    for (int k : bits) {
      if (k < 0 || k >= sub.logIn)
        throw std::logic_error(fmt::format("twist on '{}': n{} is not an input bit (n_in {})", name, k, sub.nIn));
      if (!namesBit(*sub.array(name), k))
        throw std::logic_error(fmt::format("twist on '{}': its phase factors do not name n{}", name, k));
      ++applied[k];
    }
  }
  for (int k = 0; k < sub.logIn; ++k)
    if (applied[k] != 1)
      throw std::logic_error(fmt::format("twist of input bit n{} applied {} times (once is the rule)", k, applied[k]));
}

}  // namespace warpforge
