#include "generator/core/ParallelFor.h"
#include "generator/stockham/StockhamTune.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "generator/stockham/CoopRadix.h"
#include "generator/stockham/FactorizationModel.h"
#include "generator/stockham/RealPlanes.h"
#include "generator/stockham/StockhamLaunch.h"

namespace warpforge {

namespace {

struct Candidate {
  std::vector<int> factors;
  KernelTuning tuning;
  bool operator==(const Candidate&) const = default;
};

// A trial as the search needs it; the TuneTrialReport is what the caller sees.
struct Trial {
  Candidate asked;
  std::vector<int> ranFactors;  // first kernel's, 1D single-kernel c2c specs only
  // What to paste: the first kernel's geometry where every kernel took it, else the candidate as asked.
  KernelTuning ran;
  TuneTrialReport report;
};

StockhamSpec variant(const StockhamSpec& base, const Candidate& c) {
  StockhamSpec s = base;
  s.factors = c.factors;
  s.tuning = c.tuning;
  return s;
}

// Factorizations worth timing for a 1D single-kernel length: the default, its reverse,
// radix 49 allowed, largest radix 16 or 8, greedy powers of two.
std::vector<std::vector<int>> factorCandidates(const StockhamSpec& s, const std::vector<int>& dflt) {
  std::vector<std::vector<int>> out{dflt};
  auto add = [&](std::vector<int> f) {
    if (!f.empty() && std::find(out.begin(), out.end(), f) == out.end()) out.push_back(std::move(f));
  };
  add(std::vector<int>(dflt.rbegin(), dflt.rend()));
  const int n = s.length();
  const bool f64 = s.f64();
  const int maxRadix = f64 ? 13 : 49;
  const int maxPrime = maxPrimeRadix(s.precision);
  for (int r : {maxRadix, 16, 8}) add(factorizeStockham(n, r, maxPrime, f64));
  // The greedy rule the cost model replaced (largest odd radices first).
  add(factorizeStockhamGreedy(n, f64 ? 13 : 27, maxPrime));
  // Greedy powers of two (16 x 16 x 4 rather than the default's 16 x 8 x 8).
  std::vector<int> greedy;
  int rest = n;
  for (int r : {16, 8, 4, 2})
    while (r <= maxRadix && rest % r == 0) {
      greedy.push_back(r);
      rest /= r;
    }
  if (rest > 1) {
    for (int r : factorizeStockham(rest, maxRadix, maxPrime, f64)) greedy.push_back(r);
    std::sort(greedy.rbegin(), greedy.rend());
  }
  add(greedy);
  return out;
}

bool k0IsR2c(const StockhamBuild& b) { return b.kernels[0].kernel.desc.fuse == Fuse::R2CPost; }

std::string describeGeometry(const StockhamBuild& b) {
  std::vector<std::string> parts;
  for (const auto& sf : b.kernels) {
    const KernelGeometry& g = sf.kernel.geom;
    parts.push_back(fmt::format("{} = {}x{} thr, {} regs (target {}), {}{}{}{}{}{}",
                                fmt::join(sf.kernel.desc.factors, "x"), g.threadsPerFft, g.fftsPerBlock,
                                sf.compiled.registers, g.registerTarget, g.directLoad ? "direct" : "staged",
                                g.directStore ? "/direct" : "/staged", g.persistent ? "" : ", full grid",
                                g.indexPerGroup ? ", indices per group" : "",
                                g.deriveTwiddles ? ", derived twiddles" : "", g.workQueue ? ", work queue" : ""));
  }
  return fmt::format("{}", fmt::join(parts, " | "));
}

}  // namespace

Json stockhamTuningMembers(const std::vector<int>& factors, const KernelTuning& k) {
  Json t = Json::object();
  if (k.threadsPerFft) t["threads_per_fft"] = k.threadsPerFft;
  if (k.blockThreads) t["block_threads"] = k.blockThreads;
  if (k.registerTarget) t["register_target"] = k.registerTarget;
  if (k.columnValues) t["column_values"] = k.columnValues;
  if (k.spillBytes) t["spill_bytes"] = k.spillBytes;
  if (k.split) t["split"] = k.split;
  if (k.bluestein == BluesteinRule::PowerOfTwo) t["bluestein"] = "power_of_two";
  if (k.bluestein == BluesteinRule::Smooth) t["bluestein"] = "smooth";
  if (k.bluesteinLength > 0) t["bluestein"] = k.bluesteinLength;
  auto flag = [&](const char* key, const std::optional<bool>& v) {
    if (v) t[key] = *v;
  };
  flag("direct_load", k.directLoad);
  flag("direct_store", k.directStore);
  flag("persistent", k.persistent);
  flag("index_per_group", k.indexPerGroup);
  flag("derive_twiddles", k.deriveTwiddles);
  flag("work_queue", k.workQueue);
  flag("fused_split", k.fusedSplit);
  flag("fuse_axes", k.fuseAxes);
  flag("three_kernels", k.threeKernels);
  flag("half_scratch", k.halfScratch);
  flag("pair_batch", k.pairBatch);
  flag("prefetch", k.prefetch);
  flag("streamed_prime", k.streamedPrime);
  if (k.realSplit) t["real_split"] = realSplitName(*k.realSplit);
  Json out = Json::object();
  if (!factors.empty()) out["factors"] = factors;
  out["tuning"] = t;
  return out;
}

TuneOutcome tuneStockham(const StockhamSpec& spec, TuneTimer& timer,
                         const std::function<void(const TuneTrialReport&)>& onTrial) {
  const std::string arch = timer.arch();
  CompileProbe* probe = timer.probe();
  const StockhamPlan basePlan = planStockham(spec, arch);
  // Factors are varied only where a spec may give them (explicitFactorsApply): not for a Bluestein convolution's
  // length, nor for cooperative primes (f64's 29 among them), which take one kernel but cannot be named as factors.
  const bool oneKernel1d = basePlan.kernels.size() == 1 &&
                           explicitFactorsApply(spec.lengths, spec.real(), spec.precision);
  std::vector<Trial> trials;
  std::size_t baseline = 0;
  std::map<std::string, double> timedSources;  // identical kernels and grid: one timing

  // Emit and make spill-free a stage's candidates on all host cores, then time the new ones together.
  auto runStage = [&](const std::string& stage, const std::vector<Candidate>& cands) {
    std::vector<Candidate> todo;
    for (const Candidate& c : cands) {
      bool seen = false;
      for (const Trial& t : trials) seen = seen || t.asked == c;
      if (!seen && std::find(todo.begin(), todo.end(), c) == todo.end()) todo.push_back(c);
    }
    std::vector<StockhamBuild> builds(todo.size());
    std::vector<std::string> errors(todo.size());
    parallelFor(static_cast<long long>(todo.size()), [&](long long i) {
      try {
        builds[i] = buildStockham(variant(spec, todo[i]), arch, probe);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });

    std::vector<std::string> keys(todo.size());
    std::vector<Generated> toTime;
    std::vector<std::string> toTimeKeys;
    for (std::size_t i = 0; i < todo.size(); ++i) {
      if (!errors[i].empty()) continue;
      for (const auto& k : builds[i].kernels) keys[i] += k.kernel.source + (k.kernel.geom.persistent ? "P" : "F");
      if (timedSources.count(keys[i]) || std::find(toTimeKeys.begin(), toTimeKeys.end(), keys[i]) != toTimeKeys.end())
        continue;
      try {
        toTime.push_back(Generated{builds[i].launchPlan(variant(spec, todo[i]))});
        toTimeKeys.push_back(keys[i]);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    }
    std::map<std::string, std::string> timingErrors;
    if (!toTime.empty()) {
      std::vector<std::string> errs(toTime.size());
      std::vector<double> ms = timer.time(toTime, &errs);
      for (std::size_t j = 0; j < toTime.size(); ++j) {
        if (j < ms.size() && ms[j] > 0) timedSources.emplace(toTimeKeys[j], ms[j]);
        else timingErrors[toTimeKeys[j]] = j < errs.size() && !errs[j].empty() ? errs[j] : "timing failed";
      }
    }
    for (std::size_t i = 0; i < todo.size(); ++i) {
      Trial t;
      t.asked = todo[i];
      t.report.stage = stage;
      t.report.error = errors[i];
      if (t.report.error.empty()) {
        const StockhamBuild& b = builds[i];
        t.report.geometry = describeGeometry(b);
        const KernelGeometry& g = b.kernels[0].kernel.geom;
        // Where the plan's kernels took different geometries (a real plane beside a c2c axis, the two steps of a long
        // FFT) or the register search changed a kernel's description (a streamed prime's cooperative fallback), the
        // candidate is recorded as asked: kernel 0's geometry asked of every kernel would replay another plan (its
        // thread count can exceed another kernel's limit of values per thread), while the asked candidate rebuilds
        // the timed one.
        const auto sameGeometry = [&](const KernelGeometry& k) {
          return k.threadsPerFft == g.threadsPerFft && k.fftsPerBlock == g.fftsPerBlock &&
                 k.registerTarget == g.registerTarget && k.directLoad == g.directLoad &&
                 k.directStore == g.directStore && k.persistent == g.persistent && k.indexPerGroup == g.indexPerGroup &&
                 k.deriveTwiddles == g.deriveTwiddles && k.workQueue == g.workQueue;
        };
        const bool uniform = std::all_of(b.kernels.begin(), b.kernels.end(), [&](const SpillFreeKernel& k) {
          return sameGeometry(k.kernel.geom) && k.kernel.desc.tuning.streamedPrime == todo[i].tuning.streamedPrime;
        });
        t.ran = todo[i].tuning;
        if (uniform) {
          t.ran.threadsPerFft = g.threadsPerFft;
          t.ran.blockThreads = g.threadsPerFft * g.fftsPerBlock;
          t.ran.registerTarget = g.registerTarget;
          t.ran.directLoad = g.directLoad;
          t.ran.directStore = g.directStore;
          t.ran.persistent = g.persistent;
          t.ran.indexPerGroup = g.indexPerGroup;
          t.ran.deriveTwiddles = g.deriveTwiddles;
          t.ran.workQueue = g.workQueue;
          if (k0IsR2c(b)) t.ran.fusedSplit = g.fusedSplit;
        }
        if (oneKernel1d) t.ranFactors = b.kernels[0].kernel.desc.factors;
        if (auto hit = timedSources.find(keys[i]); hit != timedSources.end()) t.report.ms = hit->second;
        else t.report.error = timingErrors.count(keys[i]) ? timingErrors[keys[i]] : "not timed";
      }
      trials.push_back(t);
      if (onTrial) onTrial(t.report);
    }
  };
  auto best = [&] {
    std::size_t b = baseline;
    for (std::size_t i = 0; i < trials.size(); ++i)
      if (trials[i].report.ms > 0 && (trials[b].report.ms <= 0 || trials[i].report.ms < trials[b].report.ms)) b = i;
    return b;
  };
  auto current = [&] { return trials[best()].asked; };

  runStage("as given", {Candidate{spec.factors, spec.tuning}});
  if (trials[0].report.ms <= 0)
    throw std::runtime_error(fmt::format("{}: the spec as given does not run: {}", spec.name, trials[0].report.error));

  if (oneKernel1d) {
    std::vector<Candidate> c;
    for (auto& f : factorCandidates(spec, basePlan.kernels[0].desc.factors)) c.push_back({f, spec.tuning});
    runStage("factors", c);
  }
  // One coordinate over `values`, the others at the best so far.
  auto vary = [&](const std::string& stage, const std::vector<int>& values, int KernelTuning::*field) {
    std::vector<Candidate> c;
    for (int v : values) {
      Candidate cand = current();
      cand.tuning.*field = v;
      c.push_back(cand);
    }
    runStage(stage, c);
  };
  auto varySwitch = [&](const std::string& stage, const std::vector<bool>& values,
                        std::optional<bool> KernelTuning::*field) {
    std::vector<Candidate> c;
    for (bool v : values) {
      Candidate cand = current();
      cand.tuning.*field = v;
      c.push_back(cand);
    }
    runStage(stage, c);
  };
  // A two-kernel plan N = n1 x n2: shorter column FFTs (wider tiles) against longer rows.
  if (spec.lengths.size() == 1 && basePlan.kernels.size() == 2 && basePlan.kernels[0].desc.bigN > 0) {
    const long long N = basePlan.kernels[0].desc.bigN;
    const int n1 = basePlan.kernels[0].desc.length;
    std::vector<int> splits;
    for (int v : {n1, n1 / 2, n1 / 4, n1 / 8, n1 * 2})
      if (v >= 8 && N % v == 0) splits.push_back(v);
    vary("split", splits, &KernelTuning::split);
  }
  // A length with a cooperative prime (37..127, f64 29..127): Bluestein against the cooperative passes (on an H200,
  // f32 4087 = 61 x 67 ran 1.52x faster through Bluestein, f32 1591 = 37 x 43 and f64 29 x 3..110 slower).
  const int maxPrime = maxPrimeRadix(spec.precision);
  if (spec.lengths.size() == 1 && !spec.real() && !isSmooth(spec.length(), maxPrime) &&
      isCoopSmooth(spec.length(), maxPrime)) {
    std::vector<Candidate> c;
    for (BluesteinRule r : {BluesteinRule::Smooth, BluesteinRule::PowerOfTwo}) {
      Candidate v = current();
      v.factors = {};  // (the convolution takes its own factors)
      v.tuning.bluestein = r;
      c.push_back(v);
    }
    runStage("bluestein", c);
  }
  // A cooperative prime computed one thread per butterfly or cooperatively, before the counts are tuned for either.
  bool coopPrime = false;
  for (const StockhamPlanKernel& k : planStockham(variant(spec, current()), arch).kernels)
    for (int r : k.desc.factors) coopPrime = coopPrime || isCoopRadix(r, threadPrimeLimit(k.desc.f64));
  if (coopPrime) varySwitch("streamed prime", {true, false}, &KernelTuning::streamedPrime);
  for (int round = 0; round < 2; ++round) {
    const int T0 = emitStockhamKernel(planStockham(variant(spec, current()), arch).kernels[0].desc).geom.threadsPerFft;
    std::vector<int> threads;
    for (int T : {T0 * 2, T0, T0 / 2, T0 / 4})
      if (T >= 1 && T <= 1024) threads.push_back(T);
    vary("threads per FFT", threads, &KernelTuning::threadsPerFft);
    vary("block threads", {64, 128, 256, 512, 1024}, &KernelTuning::blockThreads);
    vary("register target", {32, 40, 48, 64, 80, 96, 128, 168, 255}, &KernelTuning::registerTarget);
    // A few spilled bytes for more threads or resident blocks (the spill goes to L1).
    vary("spill bytes", {0, 16, 64}, &KernelTuning::spillBytes);
    if (round == 0) {
      std::vector<Candidate> c;
      for (bool l : {true, false})
        for (bool st : {true, false}) {
          Candidate v = current();
          v.tuning.directLoad = l;
          v.tuning.directStore = st;
          c.push_back(v);
        }
      runStage("direct I/O", c);
      varySwitch("grid", {true, false}, &KernelTuning::persistent);
      varySwitch("thread indices", {false, true}, &KernelTuning::indexPerGroup);
      varySwitch("twiddles", {false, true}, &KernelTuning::deriveTwiddles);
      varySwitch("work queue", {false, true}, &KernelTuning::workQueue);
      varySwitch("prefetch", {false, true}, &KernelTuning::prefetch);
      if (spec.transform == Transform::R2C) varySwitch("fused split", {true, false}, &KernelTuning::fusedSplit);
      StockhamSpec asPlane = spec;  // (an odd innermost length takes the plane only where asked)
      asPlane.tuning.fuseAxes = true;
      if (spec.lengths.size() > 1 &&
          (!spec.real() || fusedRealAxes(asPlane, maxOneKernelLength(spec.precision, arch)) >= 2))
        varySwitch("fuse axes", {true, false}, &KernelTuning::fuseAxes);
      if (planStockham(variant(spec, current()), arch).kernels.size() > 1)
        vary("column values", {32, 16, 8}, &KernelTuning::columnValues);
      if (spec.lengths.size() == 1 && !spec.real() && planStockham(variant(spec, current()), arch).kernels.size() > 1)
        varySwitch("three kernels", {false, true}, &KernelTuning::threeKernels);
      if (spec.lengths.size() == 1 && spec.real() && spec.length() % 2 == 0) {
        std::vector<Candidate> c;
        for (RealSplit r : {RealSplit::Fused, RealSplit::Kernel, RealSplit::Mirrored}) {
          Candidate v = current();
          v.tuning.realSplit = r;
          c.push_back(v);
        }
        runStage("real split", c);
      }
    }
  }
  TuneOutcome out;
  for (const Trial& t : trials) out.trials.push_back(t.report);
  out.best = best();
  out.baseline = baseline;
  out.specMembers = stockhamTuningMembers(trials[out.best].ranFactors, trials[out.best].ran);
  return out;
}

}  // namespace warpforge
