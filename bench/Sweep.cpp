#include "bench/Sweep.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <thread>

#include <fmt/format.h>

#include "bench/Baseline.h"
#include "bench/Timing.h"

namespace warpforge {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Bytes the check may hold per case (inputs + outputs): a few entries, enough to catch a wrong
// index anywhere in an entry, small enough that FFTW's double reference takes well under a second.
constexpr double kCheckBytes = 64.0 * (1 << 20);
constexpr long long kMaxCheckBatch = 8;
constexpr std::size_t kMaxPendingChecks = 4;  // checks running beside the GPU phase (each holds its data)

std::string specErrorReason(const SpecError& e) { return e.path().empty() ? e.detail() : e.path() + ": " + e.detail(); }

// Parsed and verified, or why not (the status and reason of `c`).
std::unique_ptr<FamilySpec> parseCase(const Family& family, SweepCase& c) {
  try {
    auto spec = family.parse(c.spec, c.name);
    spec->verify();
    c.status = SweepStatus::Ready;
    return spec;
  } catch (const SpecError& e) {
    c.status = SweepStatus::Unsupported;
    c.reason = specErrorReason(e);
  } catch (const InconsistentSpec& e) {
    c.status = SweepStatus::Error;
    c.reason = std::string("inconsistent: ") + e.what();
  } catch (const std::exception& e) {
    c.status = SweepStatus::Error;
    c.reason = std::string("parse/verify: ") + e.what();
  }
  return nullptr;
}

std::vector<SweepCase> casesOf(const Family& family, std::uint64_t seed, int count, const SweepSelection& select) {
  const SweepFacet* sweep = sweepFacet(family);
  std::vector<SweepSpec> specs = !select.listed.empty() ? select.listed
                                 : sweep                ? sweep->sweepSpecs(seed, count)
                                                        : std::vector<SweepSpec>{};
  if (!select.group.empty())
    specs.erase(std::remove_if(specs.begin(), specs.end(),
                               [&](const SweepSpec& s) { return s.group.find(select.group) == std::string::npos; }),
                specs.end());
  std::vector<SweepCase> cases(specs.size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    SweepCase& c = cases[i];
    c.index = static_cast<int>(i);
    c.group = specs[i].group;
    c.spec = std::move(specs[i].spec);
    if (!select.with.empty() && c.spec.is_object()) c.spec.merge_patch(select.with);
    c.name = c.spec.is_object() && c.spec.contains("name") && c.spec["name"].is_string()
                 ? c.spec["name"].get<std::string>()
                 : fmt::format("case{}", i);
  }
  return cases;
}

// The first lines of the family's explain(), each cut short: enough to see the plan of a slow case.
std::string shortPlan(const std::string& text) {
  std::string out;
  std::size_t at = 0;
  for (int line = 0; line < 8 && at < text.size(); ++line) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string l = text.substr(at, end - at);
    if (l.size() > 150) l = l.substr(0, 147) + "...";
    out += "       " + l + "\n";
    at = end + 1;
  }
  if (at < text.size()) out += "       ...\n";
  return out;
}

// Bytes per batch entry of the plan's larger side (inputs or outputs), gaps of strided layouts included.
double bytesPerEntrySide(const Executor& exec) {
  double in = 0, out = 0;
  for (const auto& b : exec.plan().buffers) {
    if (!b.isUser()) continue;
    const double per = static_cast<double>(exec.arrayBytes(b.name, 2) - exec.arrayBytes(b.name, 1));
    (b.role == BufferRole::Input ? in : out) += per;
  }
  return std::max({in, out, 1.0});
}

// Zeros everywhere but the inputs: finite, normal values in every floating and integer type (0x3c bytes:
// 1.06 in f16, 0.0115 in f32, int8 60). Timing does not depend on the values; the check used random ones.
class TimingArrays {
 public:
  TimingArrays(const Executor& exec, long long batch) {
    for (const auto& b : exec.plan().buffers) {
      if (!b.isUser() || !b.aliasOf.empty()) continue;
      const std::size_t bytes = static_cast<std::size_t>(exec.arrayBytes(b.name, batch));
      auto d = std::make_unique<DeviceBuffer>(bytes);
      checkCu(cuMemsetD8(d->p, b.role == BufferRole::Input ? 0x3c : 0, std::max<std::size_t>(bytes, 1)),
              "cuMemsetD8 (timing arrays)");
      bindings_[b.name] = d->p;
      buffers_.push_back(std::move(d));
    }
  }
  const ArrayBindings& bindings() const { return bindings_; }

 private:
  std::vector<std::unique_ptr<DeviceBuffer>> buffers_;
  ArrayBindings bindings_;
};

struct GpuResult {
  std::shared_ptr<TestData> data;
  std::shared_ptr<std::map<std::string, std::vector<unsigned char>>> outputs;
};

// One case on the device: the plan on a small random batch (outputs kept for the check), then the plan,
// the baseline and the copy ceiling timed interleaved at the full batch. Everything it allocates is freed
// on return.
GpuResult runOnDevice(Compiler& compiler, const FamilySpec& spec, const Generated& generated, const SweepOptions& o,
                      SweepCase& c) {
  Executor exec(compiler, generated.plan);
  for (const auto& k : exec.kernelStats())
    c.kernels += fmt::format("{}{} ({} regs, {} blocks/SM)", c.kernels.empty() ? "" : "; ", k.name, k.registers,
                             k.blocksPerSm);

  GpuResult g;
  const double entryBytes = static_cast<double>(std::max<long long>(generated.plan.userBytes(1), 1));
  // Interleaved outputs (distance under the span) stay disjoint only up to their batch limit.
  long long batchLimit = 1LL << 28;
  for (const auto& b : generated.plan.buffers)
    if (b.maxBatch >= 0) batchLimit = std::max<long long>(1, std::min(batchLimit, b.maxBatch));
  c.checkBatch = std::clamp<long long>(static_cast<long long>(kCheckBytes / entryBytes), 1,
                                       std::min(kMaxCheckBatch, batchLimit));
  g.data = std::make_shared<TestData>(
      spec.randomInputs(c.checkBatch, o.seed * 1000003ULL + static_cast<std::uint64_t>(c.index)));
  {
    DeviceArrays arrays(exec, *g.data, c.checkBatch);
    exec.run(arrays.bindings(), c.checkBatch);
    g.outputs = std::make_shared<std::map<std::string, std::vector<unsigned char>>>(arrays.downloadOutputs());
  }

  long long batch = std::clamp<long long>(static_cast<long long>(o.bytesPerSide / bytesPerEntrySide(exec)), 1,
                                          batchLimit);
  // Ours, the baseline's dense copy, the copy ceiling and workspaces: keep well inside free memory.
  std::size_t freeBytes = 0, totalBytes = 0;
  checkCu(cuMemGetInfo(&freeBytes, &totalBytes), "cuMemGetInfo");
  const double need = 3.0 * static_cast<double>(generated.plan.userBytes(batch)) +
                      static_cast<double>(exec.workspaceBytes(batch));
  if (need > 0.6 * static_cast<double>(freeBytes))
    batch = std::max<long long>(1, static_cast<long long>(batch * 0.6 * freeBytes / need));
  c.batch = batch;

  TimingArrays arrays(exec, batch);
  std::unique_ptr<BaselineRun> base;
  std::string why = "the family names no baseline";
  if (auto req = baselineOf(spec)) {
    // The baseline's own dense layout, sized from the small batch; its error was not asked for here.
    // (The family's own strided array where the request gives cuFFT a layout: offset + (B - 1) distance + span
    // elements.)
    const double smallBytes = static_cast<double>(req->denseInput(*g.data, c.checkBatch).size());
    std::size_t bytes = static_cast<std::size_t>(smallBytes / static_cast<double>(c.checkBatch) *
                                                 static_cast<double>(batch));
    const auto* fft = std::get_if<FftBaseline>(&req->library);
    if (fft && fft->inLayout) {
      const auto& l = *fft->inLayout;
      const double elemBytes = smallBytes / static_cast<double>(l.offset + (c.checkBatch - 1) * l.distance + l.span);
      bytes = static_cast<std::size_t>(elemBytes * static_cast<double>(l.offset + (batch - 1) * l.distance + l.span));
    }
    req->denseInput = [bytes](const TestData&, long long) { return std::vector<unsigned char>(bytes, 0x3c); };
    req->error = nullptr;
    why.clear();
    // The data of the check batch: what a baseline reads besides its input (a channeliser pair's gains and delays).
    base = makeBaseline(*req, *g.data, batch, &why);
  }
  const std::size_t copyBytes = static_cast<std::size_t>(std::max<long long>(generated.plan.userBytes(batch) / 2, 1));
  DeviceBuffer copySrc(copyBytes), copyDst(copyBytes);
  std::vector<std::function<void()>> jobs{[&] { exec.run(arrays.bindings(), batch); }};
  if (base) jobs.push_back([&] { base->exec(); });
  jobs.push_back([&] {
    checkCu(cuMemcpyDtoDAsync(copyDst.p, copySrc.p, copyBytes, nullptr), "cuMemcpyDtoDAsync (copy ceiling)");
  });
  std::vector<double> ms = interleavedMedians(jobs, o.warmups, o.reps);
  checkCu(cuCtxSynchronize(), "timed runs");
  c.oursMs = ms[0];
  if (base) c.baselineMs = ms[1];
  else c.reason = "no baseline: " + (why.empty() ? std::string("the baseline library refused it") : why);
  c.copyMs = ms.back();
  return g;
}

// A case made ready for the device: parsed, verified, emitted, every source compiled.
struct Prepared {
  std::shared_ptr<FamilySpec> spec;
  std::optional<Generated> generated;
};

// Host work on every core: parse, verify, emit (the family's spill-free search compiles through the probe)
// and NVRTC every source into the Compiler's cache, so that the Executor on the device side only loads.
// Cases are handed out as they finish (a slow compile holds up no other case). The Compiler is thread-safe
// (locked memory caches; disk entries written to unique temporaries and renamed).
class Preparer {
 public:
  Preparer(Compiler& compiler, const Family& family, std::vector<SweepCase>& cases, std::string arch, unsigned threads)
      : compiler_(compiler), family_(family), cases_(cases), arch_(std::move(arch)), prepared_(cases.size()) {
    for (unsigned t = 0; t < std::max(1u, threads); ++t) pool_.emplace_back([this] { work(); });
  }
  ~Preparer() { join(); }  // also where the device phase throws: no worker outlives the sweep
  // Cases not yet started are handed back unprepared (status Ready, no plan).
  void stop() { stop_ = true; }
  void join() {
    stop_ = true;
    for (auto& t : pool_)
      if (t.joinable()) t.join();
  }
  // The next finished case; `idle` runs every 200 ms while none is. Call once per case.
  std::pair<std::size_t, Prepared> take(const std::function<void()>& idle = {}) {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!ready_.wait_for(lock, std::chrono::milliseconds(200), [&] { return !queue_.empty(); }))
      if (idle) {
        lock.unlock();
        idle();
        lock.lock();
      }
    const std::size_t i = queue_.front();
    queue_.pop_front();
    return {i, std::move(prepared_[i])};
  }

 private:
  void work() {
    NvrtcProbe probe;
    for (std::size_t i; (i = next_++) < cases_.size();) {
      SweepCase& c = cases_[i];  // this worker's until it is queued under the mutex
      Prepared p;
      if (!stop_) {
        const auto t0 = Clock::now();
        p.spec = parseCase(family_, c);
        if (p.spec) try {
            Generated g = p.spec->emit({arch_, &probe});
            for (const auto& s : g.plan.sources) compiler_.compile(s.text, g.plan.specName, compileTarget(s, arch_));
            p.generated = std::move(g);
          } catch (const SpecError& e) {
            c.status = SweepStatus::Unsupported;
            c.reason = specErrorReason(e);
          } catch (const std::exception& e) {
            c.status = SweepStatus::Error;
            c.reason = std::string("emit/compile: ") + e.what();
          }
        c.prepareSeconds = since(t0);
      }
      std::lock_guard<std::mutex> lock(mutex_);
      prepared_[i] = std::move(p);
      queue_.push_back(i);
      ready_.notify_all();
    }
  }

  Compiler& compiler_;
  const Family& family_;
  std::vector<SweepCase>& cases_;
  const std::string arch_;
  std::vector<Prepared> prepared_;
  std::deque<std::size_t> queue_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> stop_{false};
  std::vector<std::thread> pool_;  // last: started after every member it uses
};

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double at = p * static_cast<double>(sorted.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(at)), hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - static_cast<double>(lo));
}

double geomean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / static_cast<double>(v.size()));
}

}  // namespace

const char* sweepStatusName(SweepStatus s) {
  switch (s) {
    case SweepStatus::Ready: return "ready";
    case SweepStatus::Ok: return "ok";
    case SweepStatus::Failed: return "FAILED";
    case SweepStatus::Unsupported: return "unsupported";
    case SweepStatus::Error: return "ERROR";
    case SweepStatus::NoBaseline: return "no-baseline";
    case SweepStatus::Skipped: return "skipped";
  }
  return "?";
}

SweepStats sweepStats(const std::vector<SweepCase>& cases, std::size_t worstCount) {
  SweepStats s;
  std::vector<double> ratios;
  std::map<std::string, std::vector<double>> byGroup;
  std::map<std::string, int> groupCases;
  std::map<std::string, std::vector<double>> copyFractions;
  std::vector<std::string> groupOrder;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const SweepCase& c = cases[i];
    if (!groupCases.count(c.group)) groupOrder.push_back(c.group);
    ++groupCases[c.group];
    if ((c.status == SweepStatus::Ok || c.status == SweepStatus::NoBaseline) && c.oursMs > 0 && c.copyMs > 0)
      copyFractions[c.group].push_back(c.copyMs / c.oursMs);
    switch (c.status) {
      case SweepStatus::Ok:
        if (c.ratio() > 0) {
          ++s.ok;
          ratios.push_back(c.ratio());
          byGroup[c.group].push_back(c.ratio());
          s.worst.push_back(i);
        } else {
          ++s.noBaseline;
        }
        break;
      case SweepStatus::Failed: ++s.failed; break;
      case SweepStatus::Unsupported: ++s.unsupported; break;
      case SweepStatus::Error: ++s.errors; break;
      case SweepStatus::NoBaseline: ++s.noBaseline; break;
      case SweepStatus::Ready:
      case SweepStatus::Skipped: ++s.skipped; break;
    }
  }
  std::sort(ratios.begin(), ratios.end());
  s.geomean = geomean(ratios);
  if (!ratios.empty()) {
    s.min = ratios.front();
    s.max = ratios.back();
    for (int d = 1; d <= 9; ++d) s.deciles.push_back(percentile(ratios, d / 10.0));
  }
  for (double x : ratios) s.below085 += x < 0.85, s.below070 += x < 0.7;
  std::stable_sort(s.worst.begin(), s.worst.end(),
                   [&](std::size_t a, std::size_t b) { return cases[a].ratio() < cases[b].ratio(); });
  if (s.worst.size() > worstCount) s.worst.resize(worstCount);
  for (const auto& g : groupOrder) {
    SweepGroupStats gs;
    gs.group = g;
    gs.cases = groupCases[g];
    const auto& v = byGroup[g];
    gs.timed = static_cast<int>(v.size());
    gs.geomean = geomean(v);
    gs.worst = v.empty() ? 0 : *std::min_element(v.begin(), v.end());
    auto& f = copyFractions[g];
    std::sort(f.begin(), f.end());
    gs.copyFraction = percentile(f, 0.5);
    s.groups.push_back(gs);
  }
  return s;
}

std::vector<SweepCase> sweepCases(const Family& family, std::uint64_t seed, int count, const SweepSelection& select) {
  std::vector<SweepCase> cases = casesOf(family, seed, count, select);
  for (auto& c : cases) parseCase(family, c);
  return cases;
}

std::vector<SweepCase> prepareSweep(Compiler& compiler, const Family& family, std::uint64_t seed, int count,
                                    const std::string& arch, unsigned threads, const SweepSelection& select) {
  std::vector<SweepCase> cases = casesOf(family, seed, count, select);
  {
    Preparer preparer(compiler, family, cases, arch,
                      threads ? threads : std::max(1u, std::thread::hardware_concurrency()));
    for (std::size_t k = 0; k < cases.size(); ++k) preparer.take();
  }
  return cases;
}

SweepReport runSweep(Compiler& compiler, const Family& family, const SweepOptions& o,
                     const std::function<void(const SweepCase&)>& onCase) {
  const auto start = Clock::now();
  useDefaultDevice();
  CUdevice dev = 0;
  checkCu(cuCtxGetDevice(&dev), "cuCtxGetDevice");
  SweepReport r;
  r.family = family.name();
  r.device = deviceInfo(dev);
  r.options = o;
  r.cases = casesOf(family, o.seed, o.cases, o.select);
  const std::size_t n = r.cases.size();
  const std::string arch = r.device.arch;

  r.threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  Preparer preparer(compiler, family, r.cases, arch, r.threads);

  // The device takes the cases as they are ready (a slow compile holds up no other case); checks run beside it.
  std::vector<std::shared_ptr<FamilySpec>> specs(n);
  std::deque<std::pair<std::size_t, std::future<void>>> checks;
  auto finish = [&](std::size_t i) {
    if (onCase) onCase(r.cases[i]);
  };
  auto drain = [&](std::size_t keep) {
    for (auto it = checks.begin(); it != checks.end();) {
      if (it->second.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
        it->second.get();
        finish(it->first);
        it = checks.erase(it);
      } else {
        ++it;
      }
    }
    while (checks.size() > keep) {
      checks.front().second.get();
      finish(checks.front().first);
      checks.pop_front();
    }
  };
  const auto gpuStart = Clock::now();
  double waited = 0;
  for (std::size_t done = 0; done < n; ++done) {
    const auto w = Clock::now();
    auto [i, p] = preparer.take([&] { drain(kMaxPendingChecks); });  // report finished checks while the host prepares
    waited += since(w);
    SweepCase& c = r.cases[i];
    drain(kMaxPendingChecks);
    if (!r.aborted.empty() || since(start) > o.budgetSeconds) {
      preparer.stop();
      c.status = SweepStatus::Skipped;
      c.reason = r.aborted.empty() ? fmt::format("time budget of {:.0f} s spent", o.budgetSeconds)
                                   : "the sweep was aborted";
      finish(i);
      continue;
    }
    if (c.status != SweepStatus::Ready || !p.generated) {
      if (c.status == SweepStatus::Ready) c.status = SweepStatus::Skipped, c.reason = "not prepared";
      finish(i);
      continue;
    }
    specs[i] = p.spec;
    const auto t0 = Clock::now();
    GpuResult g;
    try {
      g = runOnDevice(compiler, *p.spec, *p.generated, o, c);
    } catch (const std::exception& e) {
      c.status = SweepStatus::Error;
      c.reason = e.what();
      // An error that leaves the context unusable (an illegal address, ...) would fail every later case.
      if (cuCtxSynchronize() != CUDA_SUCCESS)
        r.aborted = fmt::format("case {} ({}) left the CUDA context unusable: {}", i, c.name, e.what());
    }
    c.gpuSeconds = since(t0);
    p.generated.reset();
    if (c.status != SweepStatus::Ready) {
      finish(i);
      continue;
    }
    checks.emplace_back(i, std::async(std::launch::async, [&c, spec = p.spec, g] {
                          const auto t = Clock::now();
                          try {
                            Check k = spec->check(*g.data, *g.outputs, c.checkBatch);
                            c.error = k.error;
                            c.bound = k.bound;
                            c.unwritten = k.unwritten;
                            if (!k.ok()) c.status = SweepStatus::Failed, c.reason = k.detail;
                            else c.status = c.baselineMs > 0 ? SweepStatus::Ok : SweepStatus::NoBaseline;
                          } catch (const std::exception& e) {
                            c.status = SweepStatus::Error;
                            c.reason = std::string("check: ") + e.what();
                          }
                          c.checkSeconds = since(t);
                        }));
  }
  preparer.join();
  drain(0);
  r.gpuSeconds = since(gpuStart) - waited;
  for (const auto& c : r.cases) r.prepareSeconds += c.prepareSeconds;

  // The plans of the slowest cases, as the family explains them (its spill-free search is memoised: no recompiles).
  NvrtcProbe probe;
  for (std::size_t i : sweepStats(r.cases).worst) try {
      if (specs[i]) r.cases[i].plan = shortPlan(specs[i]->explain({arch, &probe}));
    } catch (const std::exception& e) {
      r.cases[i].plan = std::string("       (explain failed: ") + e.what() + ")\n";
    }
  r.totalSeconds = since(start);
  return r;
}

std::string formatSweepCase(const SweepCase& c, int total) {
  std::string o = fmt::format("[{:>4}/{}] {:<11} ", c.index + 1, total, sweepStatusName(c.status));
  if (c.ratio() > 0)
    o += fmt::format("{:5.2f}x  {:<34} ours {:9.4f} ms  base {:9.4f} ms  copy {:3.0f}%  batch {}", c.ratio(), c.name,
                     c.oursMs, c.baselineMs, 100 * c.copyMs / c.oursMs, c.batch);
  else if (c.oursMs > 0) o += fmt::format("{:>6} {:<34} ours {:9.4f} ms  batch {}", "-", c.name, c.oursMs, c.batch);
  else o += fmt::format("{:>6} {:<34}", "-", c.name);
  if (c.status == SweepStatus::Failed)
    o += fmt::format("  error {:.2e} > bound {:.1e}, unwritten {}", c.error, c.bound, c.unwritten);
  if (!c.reason.empty() && c.status != SweepStatus::Failed)
    o += "  " + (c.reason.size() > 160 ? c.reason.substr(0, 157) + "..." : c.reason);
  o += fmt::format("  ({:.1f} s host, {:.2f} s GPU)\n", c.prepareSeconds + c.checkSeconds, c.gpuSeconds);
  return o;
}

std::string formatSweep(const SweepReport& r) {
  const SweepStats s = sweepStats(r.cases);
  const int total = static_cast<int>(r.cases.size());
  std::string o = fmt::format(
      "\nsweep of the {} family: {} cases, seed {} (`warpforge bench --sweep {} --cases {} --seed {}` repeats them)\n",
      r.family, total, r.options.seed, r.family, r.options.cases, r.options.seed);
  o += fmt::format(
      "device: {} ({} SMs); defaults (no wisdom); timing batch ~{:.0f} MB on the larger side; medians of {} "
      "interleaved runs after {} warm-ups\n",
      r.device.name, r.device.smCount, r.options.bytesPerSide / (1 << 20), r.options.reps, r.options.warmups);
  o += fmt::format(
      "cases: {} timed, {} failed the check, {} unsupported, {} errors, {} without a baseline, {} skipped\n", s.ok,
      s.failed, s.unsupported, s.errors, s.noBaseline, s.skipped);
  if (s.ok) {
    o += fmt::format(
        "baseline_ms / ours_ms over {} timed cases: geometric mean {:.3f}x; min {:.2f}x, max {:.2f}x; {} below 0.85x, "
        "{} below 0.7x\n",
        s.ok, s.geomean, s.min, s.max, s.below085, s.below070);
    o += "deciles (10% .. 90%):";
    for (double d : s.deciles) o += fmt::format(" {:.2f}", d);
    o += "\n";
  }
  o += "\nper class                                    cases  timed  geomean  worst  ours at (median % of the copy "
       "ceiling)\n";
  for (const auto& g : s.groups)
    o += fmt::format("  {:<42} {:>5}  {:>5}  {:>7}  {:>5}  {:>4}\n", g.group, g.cases, g.timed,
                     g.timed ? fmt::format("{:.3f}x", g.geomean) : "-", g.timed ? fmt::format("{:.2f}x", g.worst) : "-",
                     g.copyFraction > 0 ? fmt::format("{:.0f}%", 100 * g.copyFraction) : "-");
  if (!s.worst.empty()) {
    o += fmt::format("\n{} worst cases:\n", s.worst.size());
    for (std::size_t k = 0; k < s.worst.size(); ++k) {
      const SweepCase& c = r.cases[s.worst[k]];
      o += fmt::format(
          "  {:>2}. {:.2f}x {} [{}]: ours {:.4f} ms, baseline {:.4f} ms, copy ceiling {:.4f} ms (ours at {:.0f}%), "
          "batch {}\n",
          k + 1, c.ratio(), c.name, c.group, c.oursMs, c.baselineMs, c.copyMs, 100 * c.copyMs / c.oursMs, c.batch);
      o += fmt::format("       spec: {}\n       kernels: {}\n{}", c.spec.dump(), c.kernels, c.plan);
    }
  }
  auto list = [&](SweepStatus st, const char* title) {
    std::string part;
    int count = 0;
    for (const auto& c : r.cases)
      if (c.status == st) {
        ++count;
        std::string why = c.reason.size() > 170 ? c.reason.substr(0, 167) + "..." : c.reason;
        if (st == SweepStatus::Failed)
          why = fmt::format("error {:.3e} > bound {:.1e}, unwritten {}", c.error, c.bound, c.unwritten);
        part += fmt::format("  {} [{}]: {}\n", c.name, c.group, why);
      }
    if (count) o += fmt::format("\n{} ({}):\n{}", title, count, part);
  };
  list(SweepStatus::Failed, "FAILED the check (excluded from the ratios)");
  list(SweepStatus::Error, "ERRORS (excluded from the ratios)");
  list(SweepStatus::NoBaseline, "no baseline (excluded from the ratios)");
  // Unsupported: by reason with the numbers taken out, then each case.
  std::map<std::string, std::pair<int, std::string>> reasons;
  for (const auto& c : r.cases)
    if (c.status == SweepStatus::Unsupported) {
      auto& e = reasons[std::regex_replace(c.reason, std::regex("[0-9]+"), "#")];
      if (e.first++ == 0) e.second = c.name;
    }
  if (!reasons.empty()) {
    o += fmt::format("\nunsupported, by reason ({} cases):\n", s.unsupported);
    std::vector<std::pair<int, std::string>> sorted;
    for (const auto& [why, e] : reasons)
      sorted.push_back({e.first, fmt::format("{:>4} x {} (e.g. {})", e.first, why.substr(0, 150), e.second)});
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [count, line] : sorted) o += "  " + line + "\n";
  }
  list(SweepStatus::Unsupported, "unsupported");
  list(SweepStatus::Skipped, "skipped");
  if (!r.aborted.empty()) o += fmt::format("\nABORTED: {}\n", r.aborted);
  o += fmt::format(
      "\ntime: {:.1f} s in all; host preparation (parse, emit, NVRTC) {:.0f} s of CPU on {} threads; device phase "
      "{:.1f} s\n",
      r.totalSeconds, r.prepareSeconds, r.threads, r.gpuSeconds);
  return o;
}

Json sweepCaseJson(const SweepCase& c) {
  Json j = {{"index", c.index}, {"name", c.name}, {"group", c.group}, {"status", sweepStatusName(c.status)}};
  if (!c.reason.empty()) j["reason"] = c.reason;
  if (c.ratio() > 0) j["ratio"] = c.ratio();
  if (c.oursMs > 0) j["ours_ms"] = c.oursMs;
  if (c.baselineMs > 0) j["baseline_ms"] = c.baselineMs;
  if (c.copyMs > 0) j["copy_ms"] = c.copyMs;
  if (c.batch) j["batch"] = c.batch;
  if (c.checkBatch) {
    j["check_batch"] = c.checkBatch;
    j["error"] = c.error;
    j["bound"] = c.bound;
    j["unwritten"] = c.unwritten;
  }
  if (!c.kernels.empty()) j["kernels"] = c.kernels;
  if (!c.plan.empty()) j["plan"] = c.plan;
  j["seconds"] = {{"prepare", c.prepareSeconds}, {"gpu", c.gpuSeconds}, {"check", c.checkSeconds}};
  j["spec"] = c.spec;
  return j;
}

}  // namespace warpforge
