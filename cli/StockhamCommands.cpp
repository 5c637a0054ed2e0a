// The stockham family's emit / compile / run / bench / verify.
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/Commands.h"
#include "generator/spec/JsonReader.h"
#include "generator/stockham/PlanHeader.h"
#include "generator/stockham/StockhamEmitter.h"
#include "generator/stockham/StockhamPlan.h"
#include "generator/stockham/Twiddles.h"
#include "runtime/Nvrtc.h"
#include "runtime/SpillFree.h"
#include "runtime/StockhamAb.h"
#include "runtime/StockhamRun.h"
#include "runtime/StockhamTune.h"

namespace warpforge::cli {

namespace {
struct Emitted {
  StockhamSpec spec;
  StockhamPlan plan;
  std::vector<StockhamKernel> kernels;
};
// Kernels as the runtime would build them for `arch` (register target relaxed where ptxas would spill).
Emitted emitAll(const std::string& file, const std::string& arch, std::vector<NvrtcResult>* compiled = nullptr) {
  Emitted e{parseStockhamSpecFile(file), {}, {}};
  e.plan = planStockham(e.spec);
  for (const auto& k : e.plan.kernels) {
    SpillFreeKernel sf = emitStockhamSpillFree(k.desc, arch);
    e.kernels.push_back(sf.kernel);
    if (compiled) compiled->push_back(sf.compiled);
  }
  return e;
}
std::string shape(const StockhamSpec& s) { return fmt::format("{}", fmt::join(s.lengths, " x ")); }
}  // namespace

bool isStockham(const std::string& file) { return specFamily(file) == "stockham"; }

int stockhamVerify(const std::string& file) {
  Emitted e{parseStockhamSpecFile(file), {}, {}};
  e.plan = planStockham(e.spec);
  for (const auto& k : e.plan.kernels) e.kernels.push_back(emitStockhamKernel(k.desc));
  const StockhamSpec& s = e.spec;
  fmt::print("{}: {} (stockham {} {} {}, {}): OK, {} kernel(s)\n{}", file, s.name, s.precision, s.transform, shape(s),
             s.sign < 0 ? "forward" : "inverse", e.kernels.size(), e.plan.describe());
  for (const auto& k : e.kernels)
    fmt::print("  {}: block {} threads = {} per FFT x {} FFTs, {} bytes shared{}{}\n", k.desc.kernelName,
               k.geom.threadsPerFft * k.geom.fftsPerBlock, k.geom.threadsPerFft, k.geom.fftsPerBlock, k.geom.sharedBytes,
               k.geom.fftMajorLoad ? ", column-tiled load" : "", k.geom.fftMajorStore ? ", column-tiled store" : "");
  return 0;
}

// Per kernel: the geometry as the runtime builds it for o.arch, then each radix pass and what it
// reads: shared or global memory, twiddle loads per butterfly.
int stockhamExplain(const Options& o) {
  Emitted e = emitAll(o.spec, o.arch);
  fmt::print("{}: {} kernel(s); geometry as built for {} (spill-free)\n", e.spec.name, e.kernels.size(), o.arch);
  for (const auto& k : e.kernels) {
    const KernelDesc& d = k.desc;
    const KernelGeometry& g = k.geom;
    const int T = g.threadsPerFft;
    fmt::print("{}: {}\n", d.kernelName, d.role);
    fmt::print("  length {} = {}; block {} threads = {} per FFT x {} FFTs; {} B shared{}; register target {}; {} grid\n", d.length,
               fmt::join(d.factors, " x "), T * g.fftsPerBlock, T, g.fftsPerBlock, g.sharedBytes,
               g.padShift ? fmt::format(" (one pad element per {})", 1 << g.padShift) : std::string(), g.registerTarget,
               g.persistent ? (g.workQueue ? "persistent (groups from a work counter)" : "persistent") : "full");
    fmt::print("  thread indices {}; twiddles {}\n", g.indexPerGroup ? "recomputed per group" : "held across groups",
               g.deriveTwiddles ? "W^(kr) loaded for r a power of two, the rest derived" : "every W^(kr) from the table");
    fmt::print("  load {}; store {}\n", g.directLoad ? "by the first pass from global memory" : (g.fftMajorLoad ? "staged, column tile" : "staged, element-major"),
               g.directStore ? "by the last pass to global memory" : (g.fftMajorStore ? "staged, column tile" : "staged, element-major"));
    long long ns = 1;
    for (std::size_t p = 0; p < d.factors.size(); ++p) {
      const int R = d.factors[p], butterflies = d.length / R;
      int loads = 0;
      for (int r = 1; r < R && ns > 1; ++r) loads += twiddleLoaded(r, g.deriveTwiddles);
      fmt::print("  pass {}: radix {:>2}, sub-transforms {} -> {}, {} butterflies, {} per thread; reads {}, writes {}; {} twiddle loads per butterfly\n",
                 p, R, ns, ns * R, butterflies, (butterflies + T - 1) / T, p == 0 && g.directLoad ? "global" : "shared",
                 p + 1 == d.factors.size() && g.directStore ? "global" : "shared", loads);
      ns *= R;
    }
  }
  return 0;
}

int stockhamEmit(const Options& o) {
  Emitted e = emitAll(o.spec, o.arch);
  std::filesystem::create_directories(o.outDir);
  for (const auto& k : e.kernels) {
    std::ofstream(std::filesystem::path(o.outDir) / (k.desc.kernelName + ".cu")) << k.source;
    fmt::print("wrote {}/{}.cu (block {}, {} bytes shared)\n", o.outDir, k.desc.kernelName, k.geom.threadsPerFft * k.geom.fftsPerBlock,
               k.geom.sharedBytes);
  }
  std::ofstream(std::filesystem::path(o.outDir) / (e.spec.name + "_plan.h")) << stockhamLaunchHeader(e.plan, e.kernels);
  fmt::print("wrote {}/{}_plan.h\n", o.outDir, e.spec.name);
  return 0;
}

int stockhamCompile(const Options& o) {
  std::vector<NvrtcResult> compiled;
  Emitted e = emitAll(o.spec, o.arch, &compiled);
  int rc = 0;
  for (std::size_t i = 0; i < e.kernels.size(); ++i) {
    const StockhamKernel& k = e.kernels[i];
    const NvrtcResult& r = compiled[i];
    fmt::print("{} [{}]: CUBIN {} bytes, {} registers (target {}), {} bytes stack, spill stores {} B, spill loads {} B\n", k.desc.kernelName,
               o.arch, r.cubin.size(), r.registers, k.geom.registerTarget, r.stackFrameBytes, r.spillStoreBytes, r.spillLoadBytes);
    if (r.spillStoreBytes > 0 || r.spillLoadBytes > 0) rc = 1;
  }
  return rc;
}

// The spec file with `tuningJson`'s members added to (or replacing those of) its "tuning" object.
StockhamSpec withTuning(const std::string& file, const std::string& tuningJson) {
  Json j = parseJsonText(readSpecFileText(file), file);
  Json extra = parseJsonText(tuningJson, "--ab");
  if (!extra.is_object()) throw SpecError("--ab", "", fmt::format("expected a JSON object of tuning members, found {}", extra.type_name()));
  if (!j.is_object()) return parseStockhamSpecFile(file);  // reports the file's own error
  for (auto it = extra.begin(); it != extra.end(); ++it) j["tuning"][it.key()] = it.value();
  return parseStockhamSpecText(j.dump(2), file + " with --ab " + tuningJson);
}

int stockhamRun(const Options& o, bool bench) {
  StockhamSpec s = o.ab.empty() ? parseStockhamSpecFile(o.spec) : withTuning(o.spec, o.ab);
  if (!requireDevice(bench ? "bench" : "run")) return 3;
  Runtime rt;
  if (bench && o.tune) {
    fmt::print("tuning {} on {} (batch {}, medians of {}):\n", s.name, rt.deviceName(), o.batch, o.reps);
    TuneResult t = tuneStockham(rt, s, o.batch, o.reps, [](const TuneTrial& tr) {
      if (tr.ms > 0) fmt::print("  {:<16} {:8.4f} ms  {}\n", tr.stage, tr.ms, tr.geometry);
      else fmt::print("  {:<16}   failed     {}\n", tr.stage, tr.error);
    });
    const TuneTrial &best = t.trials[t.best], &base = t.trials[t.baseline];
    fmt::print("best: {:.4f} ms vs {:.4f} ms as given ({:.2f}x) over {} candidates: {}\n  spec members: {}\n", best.ms, base.ms,
               base.ms / best.ms, t.trials.size(), best.geometry, tuningJson(best));
    s.factors = best.ranFactors;  // the check below runs the winner as printed
    s.tuning = best.ran;
  }
  StockhamCheck c = runStockham(rt, s, o.batch, o.seed, bench ? o.reps : 1);
  double bound = stockhamErrorBound(s, c);
  fmt::print("spec={} {} {} {} batch={} seed={} kernels={} checked={} unwritten={}\nmax_rel_err={:.3e} (cuFFT on the same input: {:.3e}; bound {:.1e})\n",
             s.name, s.transform, s.precision, shape(s), c.batch, o.seed, c.kernels, c.checked, c.unwritten, c.maxRelErr, c.cufftMaxRelErr,
             bound);
  fmt::print("warpforge {:.4f} ms ({:.0f} GB/s of user arrays)", c.ourMs, c.bytes / (c.ourMs * 1e-3) / 1e9);
  if (c.cufftMs > 0) fmt::print(", {} {:.4f} ms: ratio {:.2f}x", c.cufftTimed, c.cufftMs, c.cufftMs / c.ourMs);
  fmt::print(" ({})\n", bench ? "medians, interleaved" : "one run");
  if (!o.ab.empty()) {
    StockhamAbResult ab = abStockham(rt, parseStockhamSpecFile(o.spec), s, o.batch, o.reps);
    fmt::print("A/B (medians of {}, interleaved A B A): as given {:.4f} ms (again {:.4f} ms), with {} {:.4f} ms: {:.3f}x as fast (A vs A {:.3f})\n",
               o.reps, ab.aMs, ab.aAgainMs, o.ab, ab.bMs, ab.aMs / ab.bMs, ab.aMs / ab.aAgainMs);
  }
  if (c.copyMs > 0)
    fmt::print("{:.3g} FFTs/s; copy ceiling (device-to-device copy of the same bytes) {:.0f} GB/s: warpforge at {:.0f}%{}\n",
               c.batch / (c.ourMs * 1e-3), c.bytes / (c.copyMs * 1e-3) / 1e9, 100 * c.copyMs / c.ourMs,
               c.cufftMs > 0 ? fmt::format(", cuFFT at {:.0f}%", 100 * c.copyMs / c.cufftMs) : std::string());
  return c.unwritten == 0 && c.maxRelErr <= bound ? 0 : 1;
}

}  // namespace warpforge::cli
