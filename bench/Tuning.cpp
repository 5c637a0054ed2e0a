
#include <fmt/format.h>

#include "bench/Benchmark.h"
#include "bench/Timing.h"
#include "bench/TuneBudget.h"
#include "generator/core/ParallelFor.h"

namespace warpforge {

namespace {

// Times a family's candidates on one set of arrays: compiled in parallel on the host first
// (NVRTC needs no device), then each warmed up and timed alone.
class DeviceTuneTimer : public TuneTimer {
 public:
  DeviceTuneTimer(Compiler& compiler, const FamilySpec& spec, long long batch, int reps)
      : compiler_(compiler), batch_(batch), reps_(reps) {
    CUdevice dev = 0;
    checkCu(cuCtxGetDevice(&dev), "cuCtxGetDevice");
    arch_ = deviceInfo(dev).arch;
    base_ = std::make_unique<Executor>(compiler_, spec.emit({arch_, &probe_}).plan);
    data_ = spec.randomInputs(batch, 780);
    arrays_ = std::make_unique<DeviceArrays>(*base_, data_, batch);
  }
  std::string arch() override { return arch_; }
  CompileProbe* probe() override { return &probe_; }

  std::vector<double> time(const std::vector<Generated>& candidates, std::vector<std::string>* errors) override {
    std::vector<std::pair<const KernelSource*, std::string>> sources;
    for (const auto& c : candidates)
      for (const auto& s : c.plan.sources) sources.push_back({&s, c.plan.specName});
    parallelFor(static_cast<long long>(sources.size()), [&](long long i) {
      try {
        compiler_.compile(sources[i].first->text, sources[i].second, compileTarget(*sources[i].first, arch_));
      } catch (...) {  // reported when the candidate is loaded below
      }
    });
    std::vector<double> ms;
    if (errors) errors->assign(candidates.size(), "");
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      try {
        Executor e(compiler_, candidates[i].plan);
        ms.push_back(interleavedMedians({[&] { e.run(arrays_->bindings(), batch_); }}, 2, reps_)[0]);
      } catch (const std::exception& ex) {
        ms.push_back(-1);
        if (errors) (*errors)[i] = ex.what();
      }
    }
    return ms;
  }

 private:
  Compiler& compiler_;
  long long batch_;
  int reps_;
  std::string arch_;
  NvrtcProbe probe_;
  std::unique_ptr<Executor> base_;
  TestData data_;
  std::unique_ptr<DeviceArrays> arrays_;
};

}  // namespace

std::optional<TuneOutcome> tuneSpec(Compiler& compiler, const FamilySpec& spec, long long batch, int reps,
                                    const std::function<void(const TuneTrialReport&)>& onTrial, double budgetSeconds,
                                    int* untimed) {
  const TuneFacet* tuner = tuneFacet(spec);
  if (!tuner) return std::nullopt;
  useDefaultDevice();
  DeviceTuneTimer timer(compiler, spec, batch, reps);
  if (budgetSeconds <= 0) return tuner->tune(timer, batch, onTrial);
  BudgetTuneTimer budgeted(timer, budgetSeconds);
  std::optional<TuneOutcome> out = tuner->tune(budgeted, batch, onTrial);
  if (untimed) *untimed = budgeted.untimed();
  return out;
}

}  // namespace warpforge
