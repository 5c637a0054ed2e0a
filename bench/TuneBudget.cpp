#include "bench/TuneBudget.h"

#include <chrono>

#include <fmt/format.h>

namespace warpforge {

BudgetTuneTimer::BudgetTuneTimer(TuneTimer& inner, double budgetSeconds, Clock now)
    : inner_(inner), budget_(budgetSeconds), now_(std::move(now)), start_(now_()) {}

double BudgetTuneTimer::steadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::vector<double> BudgetTuneTimer::time(const std::vector<Generated>& candidates, std::vector<std::string>* errors) {
  const double elapsed = now_() - start_;
  if (first_ || elapsed < budget_) {
    first_ = false;
    return inner_.time(candidates, errors);
  }
  untimed_ += static_cast<int>(candidates.size());
  if (errors)
    errors->assign(candidates.size(),
                   fmt::format("not timed: --budget of {:.0f} s spent ({:.0f} s)", budget_, elapsed));
  return std::vector<double>(candidates.size(), -1.0);
}

}  // namespace warpforge
