#include "bench/Benchmark.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "bench/Baseline.h"
#include "bench/Timing.h"

namespace warpforge {

namespace {
EmitTarget deviceTarget(NvrtcProbe& probe) {
  CUdevice dev = 0;
  checkCu(cuCtxGetDevice(&dev), "cuCtxGetDevice");
  return {deviceInfo(dev).arch, &probe};
}

// A variant's own run and check, as the default's: what to print in its row.
// `row.batch` is the batch the variant is timed at.
void checkVariant(Compiler& compiler, const FamilySpec& spec, const Generated& main, const BenchVariant& v,
                  std::uint64_t seed, BenchRow& row) {
  if (v.repeats > 0) {
    row.check = "not checked: it repeats its steps on resident data (a timing of the arithmetic)";
    return;
  }
  if (v.partial) {
    row.check = "not checked: it times part of the plan";
    return;
  }
  for (const auto& b : main.plan.buffers)
    if (b.isUser() && b.role == BufferRole::Output && !v.generated.plan.buffer(b.name)) {
      row.check = fmt::format("not checked: it does not write the spec's output '{}' (another output model)", b.name);
      return;
    }
  try {
    const RunReport rv = runGenerated(compiler, spec, v.generated, {row.batch, seed, 1, false, {}});
    row.checkFailed = !rv.check.ok();
    row.check = rv.check.ok()
                    ? fmt::format("OK, error {:.3e} (bound {:.1e}), unwritten 0", rv.check.error, rv.check.bound)
                    : fmt::format("FAILED: error {:.3e} (bound {:.1e}), unwritten {}: {}", rv.check.error,
                                  rv.check.bound, rv.check.unwritten, rv.check.detail);
  } catch (const std::exception& e) {
    row.checkFailed = true;
    row.check = fmt::format("FAILED: {}", e.what());
  }
}

}  // namespace

std::vector<std::size_t> keptVariants(const std::vector<BenchVariant>& variants, const std::string& filter) {
  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    bool keep = filter.empty();
    for (std::size_t from = 0; !keep && filter != "none" && from <= filter.size();) {
      const std::size_t bar = std::min(filter.find('|', from), filter.size());
      keep = bar > from && variants[i].name.find(filter.substr(from, bar - from)) != std::string::npos;
      from = bar + 1;
    }
    if (keep) kept.push_back(i);
  }
  return kept;
}

bool variantRepeatsDefault(const BenchVariant& v, const LaunchPlan& main, long long rowBatch, long long batch) {
  const LaunchPlan& p = v.generated.plan;
  if (v.repeats > 0 || rowBatch != batch || p.sources.size() != main.sources.size()) return false;
  for (std::size_t i = 0; i < p.sources.size(); ++i)
    if (p.sources[i].text != main.sources[i].text) return false;
  return launchPlanHeader(p) == launchPlanHeader(main);
}

bool benchChecksPassed(const BenchReport& r) {
  if (!r.check.ok()) return false;
  for (const auto& row : r.rows)
    if (row.checkFailed) return false;
  return true;
}

BenchReport benchSpec(Compiler& compiler, const FamilySpec& spec, long long batch, int reps, bool checkVariants,
                      const std::string& variantFilter, std::uint64_t seed) {
  useDefaultDevice();
  NvrtcProbe probe;
  const EmitTarget target = deviceTarget(probe);
  Generated main = spec.emit(target);
  const BenchFacet* facet = benchFacet(spec);
  std::vector<BenchVariant> variants = facet ? facet->benchVariants(target) : std::vector<BenchVariant>{};
  // --variants: `kept[i]` is the family's index of timed variant i, so that its notes, which index the family's whole
  // list, get NaN for the others.
  const std::size_t familyVariants = variants.size();
  const std::vector<std::size_t> kept = keptVariants(variants, variantFilter);
  std::vector<BenchVariant> timed;
  for (std::size_t i : kept) timed.push_back(std::move(variants[i]));
  variants = std::move(timed);

  BenchReport r;
  r.spec = spec.name();
  r.unit = main.plan.unitName;
  r.batch = batch;
  r.reps = reps;
  r.seed = seed;
  // Correctness of what is timed, and the baseline's error on the same numbers (the variants' checks on the next
  // seed's inputs, the timing on the one after).
  RunReport check = runGenerated(compiler, spec, main, {batch, seed, 1, true, {}});
  r.device = check.device;
  r.check = check.check;
  r.baselineError = check.baselineError;
  r.bytes = static_cast<double>(main.plan.userBytes(batch));

  std::vector<std::unique_ptr<Executor>> execs;
  execs.push_back(std::make_unique<Executor>(compiler, main.plan));
  for (const auto& v : variants) execs.push_back(std::make_unique<Executor>(compiler, v.generated.plan));
  TestData data = spec.randomInputs(batch, seed + 2);
  DeviceArrays arrays(*execs[0], data, batch);
  std::vector<std::function<void()>> jobs;
  // The job that times each row: a variant that is the default's plan repeats the default's time rather than spend
  // device time on it again (a variant named for a choice the default has since taken).
  std::vector<std::size_t> jobOf;
  for (std::size_t i = 0; i < execs.size(); ++i) {
    BenchRow row;
    row.name = i == 0 ? "warpforge (default)" : "warpforge: " + variants[i - 1].name;
    row.batch = batch;
    ParamValues params;
    if (i > 0 && variants[i - 1].repeats > 0) {
      params["repeats"] = variants[i - 1].repeats;
      // Register-resident repeats: one unit per warp slot of a full wave of resident blocks.
      const PlanKernel& k = variants[i - 1].generated.plan.kernels.at(0);
      row.batch = std::min(batch, 1LL * execs[i]->kernelStats()[0].blocksPerSm * execs[i]->device().smCount *
                                      k.grid.unitsPerBlock * 4);
    } else if (i > 0 && variants[i - 1].batch > 0) {
      row.batch = std::min(batch, variants[i - 1].batch);
    }
    const bool repeat = i > 0 && variantRepeatsDefault(variants[i - 1], main.plan, row.batch, batch);
    if (repeat) {
      row.name += " (the default's kernels: its time repeated)";
      if (checkVariants) row.check = "not checked again: the default's kernels";
    } else if (i > 0 && checkVariants) {
      checkVariant(compiler, spec, main, variants[i - 1], seed + 1, row);
    }
    row.registers = execs[i]->kernelStats()[0].registers;
    row.blocksPerSm = execs[i]->kernelStats()[0].blocksPerSm;
    r.rows.push_back(row);
    if (repeat) {
      jobOf.push_back(jobOf.at(0));
      continue;
    }
    jobOf.push_back(jobs.size());
    Executor* e = execs[i].get();
    // A variant may use a subset of the default plan's arrays (another output model: no accumulators); it gets those.
    ArrayBindings bound;
    for (const auto& [name, ptr] : arrays.bindings())
      if (const PlanBuffer* buf = e->plan().buffer(name); buf && buf->isUser() && buf->aliasOf.empty())
        bound[name] = ptr;
    jobs.push_back([e, bound, params, b = row.batch] { e->run(bound, b, nullptr, 0, -1, params); });
  }
  const std::size_t planJobs = jobs.size();
  std::unique_ptr<BaselineRun> base;
  if (auto req = baselineOf(spec)) base = makeBaseline(*req, data, batch);
  if (base) {
    r.baselineName = base->name;
    jobs.push_back([&] { base->exec(); });
  }
  const std::size_t copyBytes = static_cast<std::size_t>(r.bytes / 2);
  DeviceBuffer copySrc(copyBytes), copyDst(copyBytes);
  jobs.push_back([&] {
    checkCu(cuMemcpyDtoDAsync(copyDst.p, copySrc.p, copyBytes, nullptr), "cuMemcpyDtoDAsync (copy ceiling)");
  });
  std::vector<double> ms = interleavedMedians(jobs, 3, reps);
  std::vector<double> variantMs(familyVariants, std::numeric_limits<double>::quiet_NaN());
  std::vector<long long> variantBatch(familyVariants, 0);
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    r.rows[i].ms = ms[jobOf[i]];
    if (i > 0) variantMs[kept[i - 1]] = r.rows[i].ms, variantBatch[kept[i - 1]] = r.rows[i].batch;
  }
  if (base) r.baselineMs = ms[planJobs];
  r.copyMs = ms.back();
  if (facet) r.notes = facet->benchNotes(variantMs, variantBatch, r.device.clockKHz, r.device.smCount);
  return r;
}

std::string formatBench(const BenchReport& r) {
  std::string o = fmt::format(
      "device: {} ({} SMs, {} MHz max clock)\nspec: {}  batch: {} (one {} each)  timed reps: {} (medians, CUDA events, "
      "interleaved)\n",
      r.device.name, r.device.smCount, r.device.clockKHz / 1000, r.spec, r.batch, r.unit, r.reps);
  o += fmt::format("check: error {:.3e} (bound {:.1e}){}, unwritten {}, seed {}: {}\n", r.check.error, r.check.bound,
                   r.baselineError >= 0 ? fmt::format(", baseline's error {:.3e}", r.baselineError) : "",
                   r.check.unwritten, r.seed, r.check.ok() ? "OK" : "FAILED");
  o += fmt::format("\n{:<52} {:>10} {:>14} {:>9} {:>8}\n", "", "median ms", r.unit + "/s", "GB/s", "vs base");
  auto line = [&](const std::string& name, double ms, long long batch, const std::string& extra) {
    const double gbs = r.bytes * batch / r.batch / (ms * 1e-3) / 1e9;
    o += fmt::format("{:<52} {:>10.4f} {:>14.4g} {:>9.1f} {:>8}{}\n", name, ms, batch / (ms * 1e-3), gbs,
                     r.baselineMs > 0 ? fmt::format("{:.2f}x", r.baselineMs * batch / r.batch / ms) : "-", extra);
  };
  for (const auto& row : r.rows)
    line(row.name, row.ms, row.batch, fmt::format("   ({} regs, {} blocks/SM)", row.registers, row.blocksPerSm));
  if (r.baselineMs > 0) line(r.baselineName, r.baselineMs, r.batch, "");
  o += fmt::format("{:<52} {:>10.4f} {:>14} {:>9.1f}\n", "device-to-device copy of the same bytes (ceiling)", r.copyMs,
                   "-", r.bytes / (r.copyMs * 1e-3) / 1e9);
  if (!r.rows.empty())
    o += fmt::format("\nwarpforge at {:.0f}% of the copy ceiling{}\n", 100 * r.copyMs / r.rows[0].ms,
                     r.baselineMs > 0 ? fmt::format(", baseline at {:.0f}%; ratio {:.2f}x",
                                                    100 * r.copyMs / r.baselineMs, r.baselineMs / r.rows[0].ms)
                                      : std::string());
  o += r.notes;
  bool any = false;
  for (const auto& row : r.rows)
    if (!row.check.empty()) {
      if (!any) o += "\nvariants' checks (fresh inputs, poisoned outputs, the default's reference and bound):\n";
      any = true;
      o += fmt::format("  {}: {}\n", row.name, row.check);
    }
  return o;
}

AbResult abSpecs(Compiler& compiler, const FamilySpec& a, const FamilySpec& b, long long batch, int reps) {
  useDefaultDevice();
  NvrtcProbe probe;
  const EmitTarget target = deviceTarget(probe);
  Executor ea(compiler, a.emit(target).plan), eb(compiler, b.emit(target).plan);
  for (const auto& buf : ea.plan().buffers)
    if (buf.isUser() &&
        (!eb.plan().buffer(buf.name) || ea.arrayBytes(buf.name, batch) != eb.arrayBytes(buf.name, batch)))
      throw std::invalid_argument(
          fmt::format("A/B of {} and {}: the two specs must have the same arrays", a.name(), b.name()));
  TestData data = a.randomInputs(batch, 779);
  DeviceArrays arrays(ea, data, batch);
  auto runA = [&] { ea.run(arrays.bindings(), batch); };
  std::vector<double> ms = interleavedMedians({runA, [&] { eb.run(arrays.bindings(), batch); }, runA}, 3, reps);
  return {ms[0], ms[2], ms[1]};
}

}  // namespace warpforge
