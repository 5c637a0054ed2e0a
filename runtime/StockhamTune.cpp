#include "runtime/StockhamTune.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "generator/stockham/StockhamPlan.h"
#include "runtime/DeviceUtil.h"
#include "runtime/SpillFree.h"
#include "runtime/StockhamExec.h"
#include "runtime/StockhamRun.h"

namespace warpforge {

namespace {

struct Candidate {
  std::vector<int> factors;
  KernelTuning tuning;
  bool operator==(const Candidate&) const = default;
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
  const int maxRadix = s.precision == "f64" ? 13 : 49;
  for (int r : {maxRadix, 16, 8}) add(factorizeStockham(n, r));
  // Greedy powers of two (16 x 16 x 4 rather than the default's 16 x 8 x 8).
  std::vector<int> greedy;
  int rest = n;
  for (int r : {16, 8, 4, 2})
    while (r <= maxRadix && rest % r == 0) {
      greedy.push_back(r);
      rest /= r;
    }
  if (rest > 1) {
    for (int r : factorizeStockham(rest, maxRadix)) greedy.push_back(r);
    std::sort(greedy.rbegin(), greedy.rend());
  }
  add(greedy);
  return out;
}

std::string describeGeometry(const StockhamExecutor& exec) {
  std::vector<std::string> parts;
  for (std::size_t k = 0; k < exec.kernels().size(); ++k) {
    const KernelGeometry& g = exec.kernels()[k].geom;
    parts.push_back(fmt::format("{} = {}x{} thr, {} regs (target {}), {}{}{}{}{}{}", fmt::join(exec.kernels()[k].desc.factors, "x"),
                                g.threadsPerFft, g.fftsPerBlock, exec.registers(k), g.registerTarget,
                                g.directLoad ? "direct" : "staged", g.directStore ? "/direct" : "/staged", g.persistent ? "" : ", full grid",
                                g.indexPerGroup ? ", indices per group" : "", g.deriveTwiddles ? ", derived twiddles" : "",
                                g.workQueue ? ", work queue" : ""));
  }
  return fmt::format("{}", fmt::join(parts, " | "));
}

}  // namespace

std::string tuningJson(const TuneTrial& t) {
  std::vector<std::string> kv;
  const KernelTuning& k = t.ran;
  if (k.threadsPerFft) kv.push_back(fmt::format("\"threads_per_fft\": {}", k.threadsPerFft));
  if (k.blockThreads) kv.push_back(fmt::format("\"block_threads\": {}", k.blockThreads));
  if (k.registerTarget) kv.push_back(fmt::format("\"register_target\": {}", k.registerTarget));
  if (k.directLoad >= 0) kv.push_back(fmt::format("\"direct_load\": {}", k.directLoad ? "true" : "false"));
  if (k.directStore >= 0) kv.push_back(fmt::format("\"direct_store\": {}", k.directStore ? "true" : "false"));
  if (k.persistent >= 0) kv.push_back(fmt::format("\"persistent\": {}", k.persistent ? "true" : "false"));
  if (k.indexPerGroup >= 0) kv.push_back(fmt::format("\"index_per_group\": {}", k.indexPerGroup ? "true" : "false"));
  if (k.deriveTwiddles >= 0) kv.push_back(fmt::format("\"derive_twiddles\": {}", k.deriveTwiddles ? "true" : "false"));
  if (k.workQueue >= 0) kv.push_back(fmt::format("\"work_queue\": {}", k.workQueue ? "true" : "false"));
  std::string out;
  if (!t.ranFactors.empty()) out += fmt::format("\"factors\": [{}], ", fmt::join(t.ranFactors, ", "));
  out += fmt::format("\"tuning\": {{{}}}", fmt::join(kv, ", "));
  return out;
}

TuneResult tuneStockham(Runtime& rt, const StockhamSpec& spec, long long batch, int reps, const std::function<void(const TuneTrial&)>& onTrial) {
  const std::string arch = rt.deviceArch();
  const StockhamArrayBytes bytes = stockhamArrayBytes(spec, batch);
  DeviceBuffer in(bytes.in), inIm(std::max<std::size_t>(bytes.inIm, 1));
  std::unique_ptr<DeviceBuffer> out, outIm;
  // Finite, normal values in every storage type (timing does not depend on them).
  checkCu(cuMemsetD8(in.p, 0x3c, bytes.in), "cuMemsetD8");
  if (bytes.inIm) checkCu(cuMemsetD8(inIm.p, 0x3c, bytes.inIm), "cuMemsetD8");
  StockhamBuffers bufs{in.p, inIm.p, in.p, inIm.p};
  if (!spec.inPlace) {
    out = std::make_unique<DeviceBuffer>(bytes.out);
    outIm = std::make_unique<DeviceBuffer>(std::max<std::size_t>(bytes.outIm, 1));
    bufs.out = out->p;
    bufs.outIm = outIm->p;
  }

  StockhamPlan basePlan = planStockham(spec);
  const bool oneKernel1d = basePlan.kernels.size() == 1 && spec.lengths.size() == 1 && spec.transform == "c2c";
  TuneResult result;
  std::map<std::string, double> timedSources;  // identical kernels and grid: one timing
  EventTimer timer;
  // Emit, make spill-free and compile a stage's candidates on all host cores, then time them one by one.
  auto runStage = [&](const std::string& stage, const std::vector<Candidate>& cands) {
    std::vector<Candidate> todo;
    for (const Candidate& c : cands) {
      bool seen = false;
      for (const TuneTrial& t : result.trials) seen = seen || (t.factors == c.factors && t.tuning == c.tuning);
      if (!seen && std::find(todo.begin(), todo.end(), c) == todo.end()) todo.push_back(c);
    }
    std::vector<std::string> errors(todo.size());
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> pool;
    const unsigned workers = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), static_cast<unsigned>(todo.size())));
    for (unsigned w = 0; w < workers; ++w)
      pool.emplace_back([&] {
        for (std::size_t i; (i = next++) < todo.size();) {
          try {
            StockhamPlan plan = planStockham(variant(spec, todo[i]));
            for (const PlanKernel& pk : plan.kernels) rt.compile(emitStockhamSpillFree(pk.desc, arch).kernel.source, spec.name, arch);
          } catch (const std::exception& e) {
            errors[i] = e.what();
          }
        }
      });
    for (auto& t : pool) t.join();
    for (std::size_t i = 0; i < todo.size(); ++i) {
      TuneTrial t;
      t.stage = stage;
      t.factors = todo[i].factors;
      t.tuning = todo[i].tuning;
      t.error = errors[i];
      if (t.error.empty()) {
        try {
          StockhamExecutor exec(rt, variant(spec, todo[i]));
          t.geometry = describeGeometry(exec);
          const KernelGeometry& g = exec.kernels()[0].geom;
          t.ran = KernelTuning{g.threadsPerFft, g.threadsPerFft * g.fftsPerBlock, g.registerTarget, g.directLoad ? 1 : 0, g.directStore ? 1 : 0,
                               g.persistent ? 1 : 0, g.indexPerGroup ? 1 : 0, g.deriveTwiddles ? 1 : 0, g.workQueue ? 1 : 0};
          if (oneKernel1d) t.ranFactors = exec.kernels()[0].desc.factors;
          std::string key;
          for (const auto& k : exec.kernels()) key += k.source + (k.geom.persistent ? "P" : "F");
          auto hit = timedSources.find(key);
          if (hit != timedSources.end()) {
            t.ms = hit->second;
          } else {
            for (int w = 0; w < 2; ++w) exec.run(bufs, batch);
            checkCu(cuCtxSynchronize(), "stockham tuning run");
            std::vector<double> ms;
            for (int r = 0; r < reps; ++r) ms.push_back(timer.ms([&] { exec.run(bufs, batch); }));
            t.ms = median(ms);
            timedSources.emplace(key, t.ms);
          }
        } catch (const std::exception& e) {
          t.error = e.what();
        }
      }
      result.trials.push_back(t);
      if (onTrial) onTrial(t);
    }
  };
  auto best = [&] {
    std::size_t b = result.baseline;
    for (std::size_t i = 0; i < result.trials.size(); ++i)
      if (result.trials[i].ms > 0 && (result.trials[b].ms <= 0 || result.trials[i].ms < result.trials[b].ms)) b = i;
    return b;
  };
  auto current = [&] {
    const TuneTrial& t = result.trials[best()];
    return Candidate{t.factors, t.tuning};
  };

  runStage("as given", {Candidate{spec.factors, spec.tuning}});
  result.baseline = 0;
  if (result.trials[0].ms <= 0) throw std::runtime_error(fmt::format("{}: the spec as given does not run: {}", spec.name, result.trials[0].error));

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
  for (int round = 0; round < 2; ++round) {
    const int T0 = emitStockhamKernel(planStockham(variant(spec, current())).kernels[0].desc).geom.threadsPerFft;
    std::vector<int> threads;
    for (int T : {T0 * 2, T0, T0 / 2, T0 / 4})
      if (T >= 1 && T <= 1024) threads.push_back(T);
    vary("threads per FFT", threads, &KernelTuning::threadsPerFft);
    vary("block threads", {64, 128, 256, 512, 1024}, &KernelTuning::blockThreads);
    vary("register target", {32, 40, 48, 64, 80, 96, 128, 168, 255}, &KernelTuning::registerTarget);
    if (round == 0) {
      std::vector<Candidate> c;
      for (int l : {1, 0})
        for (int st : {1, 0}) {
          Candidate v = current();
          v.tuning.directLoad = l;
          v.tuning.directStore = st;
          c.push_back(v);
        }
      runStage("direct I/O", c);
      vary("grid", {1, 0}, &KernelTuning::persistent);
      vary("thread indices", {0, 1}, &KernelTuning::indexPerGroup);
      vary("twiddles", {0, 1}, &KernelTuning::deriveTwiddles);
      vary("work queue", {0, 1}, &KernelTuning::workQueue);
    }
  }
  result.best = best();
  return result;
}

}  // namespace warpforge
