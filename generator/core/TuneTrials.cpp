#include "generator/core/TuneTrials.h"

#include <stdexcept>

#include <fmt/format.h>

namespace warpforge {

TuneOutcome timeTuneTrials(TuneTimer& timer, const std::vector<std::optional<Generated>>& plans,
                           std::vector<TuneTrialReport> reports, const std::string& specName,
                           const std::function<void(const TuneTrialReport&)>& onTrial) {
  std::vector<Generated> built;
  std::vector<std::size_t> which;
  for (std::size_t i = 0; i < plans.size(); ++i)
    if (plans[i]) {
      built.push_back(*plans[i]);
      which.push_back(i);
    }
  std::vector<std::string> errors;
  const std::vector<double> ms = timer.time(built, &errors);
  for (std::size_t j = 0; j < which.size(); ++j) {
    reports[which[j]].ms = j < ms.size() ? ms[j] : -1;
    if (reports[which[j]].ms <= 0)
      reports[which[j]].error = j < errors.size() && !errors[j].empty() ? errors[j] : "timing failed";
  }
  TuneOutcome o;
  for (const auto& r : reports) {
    o.trials.push_back(r);
    if (onTrial) onTrial(r);
  }
  if (o.trials.empty() || o.trials[0].ms <= 0)
    throw std::runtime_error(fmt::format("{}: the spec as given does not run: {}", specName,
                                         o.trials.empty() ? "no trial" : o.trials[0].error));
  for (std::size_t i = 0; i < o.trials.size(); ++i)
    if (o.trials[i].ms > 0 && o.trials[i].ms < o.trials[o.best].ms) o.best = i;
  return o;
}

}  // namespace warpforge
