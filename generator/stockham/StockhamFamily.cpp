#include "generator/stockham/StockhamFamily.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "generator/stockham/CoopRadix.h"
#include "generator/stockham/RealPlanes.h"
#include "generator/stockham/StockhamData.h"
#include "generator/stockham/StockhamLaunch.h"
#include "generator/stockham/StockhamLayout.h"
#include "generator/stockham/StockhamTune.h"
#include "generator/stockham/Twiddles.h"

namespace warpforge {

std::vector<SweepSpec> stockhamSweepSpecs(std::uint64_t seed, int count);  // StockhamSweep.cpp

namespace {

std::string shape(const StockhamSpec& s) { return fmt::format("{}", fmt::join(s.lengths, " x ")); }

class StockhamFamilySpec : public FamilySpec, public BenchFacet, public TuneFacet {
 public:
  explicit StockhamFamilySpec(StockhamSpec s) : s_(std::move(s)) {}
  const Family& family() const override { return stockhamFamily(); }
  const std::string& name() const override { return s_.name; }
  const std::string& file() const override { return s_.file; }

  // The first-try kernels (no compiler consulted): what the plan is, not how one arch builds it.
  VerifyReport verify() const override {
    StockhamBuild b = buildStockham(s_, "", nullptr, false);
    VerifyReport r;
    r.warnings = stockhamWarnings(s_, b, "");
    r.text = fmt::format("{}: {} (stockham {} {} {}, {}): OK, {} kernel(s)\n{}", s_.file, s_.name,
                         precisionName(s_.precision), transformName(s_.transform), shape(s_),
                         s_.sign < 0 ? "forward" : "inverse", b.kernels.size(), b.plan.describe());
    Json kernels = Json::array();
    int passes = 0;
    for (const auto& sf : b.kernels) {
      const StockhamKernel& k = sf.kernel;
      const KernelGeometry& g = k.geom;
      r.text += fmt::format("  {}: block {} threads = {} per FFT x {} FFTs, {} bytes shared{}{}\n", k.desc.kernelName,
                            g.threadsPerFft * g.fftsPerBlock, g.threadsPerFft, g.fftsPerBlock, g.sharedBytes,
                            g.fftMajorLoad ? ", column-tiled load" : "", g.fftMajorStore ? ", column-tiled store" : "");
      kernels.push_back({{"name", k.desc.kernelName},
                         {"block", g.threadsPerFft * g.fftsPerBlock},
                         {"threads_per_fft", g.threadsPerFft},
                         {"ffts_per_block", g.fftsPerBlock},
                         {"shared_bytes", g.sharedBytes},
                         {"length", k.desc.length},
                         {"factors", k.desc.factors}});
      passes += static_cast<int>(k.desc.factors.size());
    }
    r.counts["kernels"] = kernels;
    r.counts["passes"] = passes;
    const long long maxBatch = stockhamMaxBatch(s_.output, s_.outShape(), s_.file, "/output");
    if (maxBatch >= 0) r.counts["max_batch"] = maxBatch;
    return r;
  }

  // Per kernel: the geometry as built for the target, then each radix pass and what it reads:
  // shared or global memory, twiddle loads per butterfly.
  std::string explain(const EmitTarget& target) const override {
    StockhamBuild b = buildStockham(s_, target.arch, target.probe, false);
    const auto spilling = std::count_if(b.kernels.begin(), b.kernels.end(),
                                        [](const SpillFreeKernel& sf) { return sf.compiled.spills(); });
    const std::string searched =
        !target.probe ? "first try, no compiler consulted"
        : spilling
            ? fmt::format("the register search's least spilling choice: {} kernel(s) spill, see the warnings", spilling)
            : "spill-free";
    std::string o = fmt::format("{}: {} kernel(s); geometry as built for {} ({})\n", s_.name, b.kernels.size(),
                                target.arch, searched);
    for (const auto& sf : b.kernels) {
      const KernelDesc& d = sf.kernel.desc;
      const KernelGeometry& g = sf.kernel.geom;
      const int T = g.threadsPerFft;
      o += fmt::format("{}: {}\n", d.kernelName, d.role);
      o += fmt::format(
          "  length {} = {}; block {} threads = {} per FFT x {} FFTs; {} B shared{}; register target {}; {} grid\n",
          d.length, fmt::join(d.factors, " x "), T * g.fftsPerBlock, T, g.fftsPerBlock, g.sharedBytes,
          g.padShift ? fmt::format(" (one pad element per {})", 1 << g.padShift) : std::string(), g.registerTarget,
          g.persistent ? (g.workQueue ? "persistent (groups from a work counter)" : "persistent") : "full");
      o += fmt::format("  thread indices {}; twiddles {}\n",
                       g.indexPerGroup ? "recomputed per group" : "held across groups",
                       g.deriveTwiddles ? "W^(kr) loaded for r a power of two, the rest derived"
                                        : "every W^(kr) from the table");
      o += fmt::format("  load {}; store {}\n",
                       g.directLoad ? "by the first pass from global memory"
                       : g.prefetch && g.fftMajorLoad
                           ? "staged, column tile, copied (cp.async) while the previous group's tile is stored"
                       : g.prefetch ? "staged, element-major, copied (cp.async) during the previous group's last pass"
                       : g.fftMajorLoad ? "staged, column tile"
                       : d.axes.size() > 1
                           ? fmt::format("staged, element-major, the {} plane digit-reversed (fastest axis first)",
                                         fmt::join(d.axes, " x "))
                           : std::string("staged, element-major"),
                       g.directStore ? (g.fusedSplit ? "by the last pass to global memory, r2c split fused (mirrored "
                                                       "butterfly pairs)"
                                                     : "by the last pass to global memory")
                                     : (g.fftMajorStore ? "staged, column tile" : "staged, element-major"));
      const int halves = d.convolve ? 2 : 1;  // a Bluestein convolution kernel runs its passes forward, then inverse
      for (int h = 0; h < halves; ++h) {
        if (d.convolve)
          o += h == 0 ? "  forward half (chirped input, zero padded):\n"
                      : "  inverse half (times FFT(conj chirp)/M in its first read):\n";
        long long ns = 1;
        for (std::size_t p = 0; p < d.factors.size(); ++p) {
          const int R = d.factors[p], butterflies = d.length / R;
          int loads = 0;
          for (int r = 1; r < R && passTwiddled(d.axes, ns); ++r) loads += twiddleLoaded(r, g.deriveTwiddles);
          if (streamsPass(d, g, R)) {
            o += fmt::format(
                "  pass {}: radix {} as one thread's butterfly, outputs stored pair by pair, sub-transforms {} -> {}, "
                "{} butterflies, 1 per thread; "
                "reads {}, writes {}; {} twiddle loads per butterfly\n",
                p, R, ns, ns * R, butterflies, p == 0 && g.directLoad ? "global" : "shared",
                p + 1 == d.factors.size() && g.directStore ? "global" : "shared", loads);
            ns *= R;
            continue;
          }
          if (isCoopRadix(R, threadPrimeLimit(d.f64))) {
            const CoopShape cs = coopShape(R, d.length, T);
            o += fmt::format(
                "  pass {}: radix {} cooperatively, sub-transforms {} -> {}, {} butterflies x {} items of {} output "
                "pairs, {} items per thread; "
                "reads shared, writes shared; {} twiddle loads per input pair\n",
                p, R, ns, ns * R, butterflies, cs.groups, cs.pairs, cs.iters, passTwiddled(d.axes, ns) ? 2 : 0);
            ns *= R;
            continue;
          }
          o += fmt::format(
              "  pass {}: radix {:>2}, sub-transforms {} -> {}, {} butterflies, {} per thread; reads {}, writes {}; {} "
              "twiddle loads per butterfly\n",
              p, R, ns, ns * R, butterflies, (butterflies + T - 1) / T,
              p == 0 && h == 0 && g.directLoad ? "global" : "shared",
              p + 1 == d.factors.size() && h + 1 == halves && g.directStore ? "global" : "shared", loads);
          ns *= R;
        }
      }
    }
    for (const std::string& w : stockhamWarnings(s_, b, target.arch)) o += "warning: " + w + "\n";
    return o;
  }

  Generated emit(const EmitTarget& target) const override {
    return Generated{buildStockham(s_, target.arch, target.probe).launchPlan(s_)};
  }

  // About 512 MiB of input and output together (the sweep's timing batch: 256 MiB on the larger side), at most
  // 2^16 entries; interleaved outputs run at most their batch limit. (A fixed 2^16 asked 2^20-point FFTs for
  // 512 GiB: `bench` spent minutes filling host arrays.)
  long long defaultBatch() const override {
    const double entryBytes = static_cast<double>(std::max<long long>(1, emit({}).plan.userBytes(1)));
    const long long fill = std::clamp<long long>(static_cast<long long>(512.0 * (1 << 20) / entryBytes), 1, 1 << 16);
    const long long maxBatch = stockhamMaxBatch(s_.output, s_.outShape(), s_.file, "/output");
    return maxBatch >= 0 ? std::min(maxBatch, fill) : fill;
  }

  TestData randomInputs(long long batch, std::uint64_t seed) const override {
    return stockhamRandomInputs(s_, batch, seed);
  }
  Check check(const TestData& data, const std::map<std::string, std::vector<unsigned char>>& outputs,
              long long batch) const override {
    return stockhamCheck(s_, data, outputs, batch);
  }
  std::optional<BaselineRequest> baseline() const override { return stockhamBaseline(s_); }
  // A real plane the default runs as one kernel (RealPlanes.h) is also timed in the form it replaced: tuning
  // fuse_axes false, the real axis then the outer axes c2c, one kernel each; where the default keeps one kernel per
  // axis for an odd innermost length, the plane (fuse_axes true) is the variant.
  std::vector<BenchVariant> benchVariants(const EmitTarget& target) const override {
    std::vector<BenchVariant> v;
    StockhamSpec plane = s_;
    plane.tuning.fuseAxes = true;
    const int maxPlane = maxOneKernelLength(s_.precision, target.arch);
    if (fusedRealAxes(s_, maxPlane) >= 2) {
      StockhamSpec perAxis = s_;
      perAxis.tuning.fuseAxes = false;
      v.push_back({"one kernel per axis (fuse_axes false: the real axis, then the outer axes c2c)",
                   Generated{buildStockham(perAxis, target.arch, target.probe).launchPlan(perAxis)}});
    } else if (!s_.tuning.fuseAxes.has_value() && fusedRealAxes(plane, maxPlane) >= 2) {
      v.push_back({"the real plane in one kernel (fuse_axes true)",
                   Generated{buildStockham(plane, target.arch, target.probe).launchPlan(plane)}});
    }
    // Where some kernel of the plan can copy its next group during its last pass (KernelGeometry::prefetch) and the
    // spec does not say, the other form is timed too: the synchronous load where the default copies ahead, the copy
    // where it does not.
    if (!s_.tuning.prefetch.has_value()) {
      auto prefetches = [](const StockhamBuild& b) {
        return std::any_of(b.kernels.begin(), b.kernels.end(),
                           [](const SpillFreeKernel& k) { return k.kernel.geom.prefetch; });
      };
      const bool byDefault = prefetches(buildStockham(s_, target.arch, target.probe));
      StockhamSpec other = s_;
      other.tuning.prefetch = !byDefault;
      const StockhamBuild b = buildStockham(other, target.arch, target.probe);
      if (byDefault)
        v.push_back({"each group loaded when its block reaches it (prefetch false)", Generated{b.launchPlan(other)}});
      else if (prefetches(b))
        v.push_back({"the next group's copy during the last pass (prefetch true)", Generated{b.launchPlan(other)}});
    }
    return v;
  }
  std::optional<TuneOutcome> tune(TuneTimer& timer, long long,
                                  const std::function<void(const TuneTrialReport&)>& onTrial) const override {
    return tuneStockham(s_, timer, onTrial);
  }

 private:
  StockhamSpec s_;
};

class StockhamFamily : public Family, public SweepFacet {
 public:
  std::string name() const override { return "stockham"; }
  std::string summary() const override {
    return "batched 1D/2D/3D FFTs (c2c, r2c, c2r; f16/f32/f64), any length, strided/planar/int8/int4/zero-padded "
           "layouts";
  }
  std::unique_ptr<FamilySpec> parse(const Json& root, const std::string& file) const override {
    return makeStockhamSpec(parseStockhamSpec(root, file));
  }
  std::vector<SweepSpec> sweepSpecs(std::uint64_t seed, int count) const override {
    return stockhamSweepSpecs(seed, count);
  }
};

}  // namespace

const Family& stockhamFamily() {
  static const StockhamFamily f;
  return f;
}

std::unique_ptr<FamilySpec> makeStockhamSpec(StockhamSpec spec) {
  checkStockhamLayouts(spec);  // as the parser does: a spec built in code gets the same memory-safety checks
  return std::make_unique<StockhamFamilySpec>(std::move(spec));
}

}  // namespace warpforge
