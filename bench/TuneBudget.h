#pragma once
// `bench --tune --budget SEC`: a tune timer that stops timing candidates once the budget has passed. Each later
// candidate comes back not timed (a negative time and a message, as a candidate that failed to compile), so that the
// family's search ends with the best it timed. The first call, which times the spec as given, always runs.
#include <functional>
#include <string>
#include <vector>

#include "generator/core/Facets.h"

namespace warpforge {

class BudgetTuneTimer : public TuneTimer {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic
  BudgetTuneTimer(TuneTimer& inner, double budgetSeconds, Clock now = steadySeconds);
  std::vector<double> time(const std::vector<Generated>& candidates, std::vector<std::string>* errors) override;
  std::string arch() override { return inner_.arch(); }
  CompileProbe* probe() override { return inner_.probe(); }
  // Candidates returned untimed so far.
  int untimed() const { return untimed_; }
  static double steadySeconds();

 private:
  TuneTimer& inner_;
  double budget_;
  Clock now_;
  double start_;
  bool first_ = true;
  int untimed_ = 0;
};

}  // namespace warpforge
