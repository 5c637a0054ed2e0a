#include "generator/gridder/GridderFamily.h"

#include <fmt/format.h>

#include "generator/gridder/GridderBench.h"
#include "generator/gridder/GridderCheck.h"
#include "generator/gridder/GridderData.h"
#include "generator/gridder/GridderLaunch.h"
#include "generator/gridder/GridderMmaFragments.h"

namespace warpforge {

namespace {

std::string shape(const GridderSpec& s) {
  return fmt::format(
      "{} S = {}, {} correlation(s), grid {}^2 x {} w-plane(s), image {} rad (cell {:.3g} arcsec), {} stations ({} "
      "baselines) x {} time "
      "steps x {} channels",
      s.grid() ? "grid" : "degrid", s.subgridSize, s.correlations, s.gridSize, s.wPlanes, s.imageSize,
      s.imageSize / s.gridSize * 206264.806, s.stations, s.baselines(), s.timeSteps, s.channels);
}

std::string phasorText(const GridderSpec& s) {
  return s.phasor == GridPhasor::Sfu ? "__sincosf on the SFU (absolute error 2^-21.41 on [-pi, pi], plus |phase| "
                                       "2^-24..2^-23 from its argument scaling)"
                                     : "sincosf (full range reduction, ~1 ulp)";
}

class GridderFamilySpec final : public FamilySpec, public BenchFacet {
 public:
  explicit GridderFamilySpec(GridderSpec s) : s_(std::move(s)) {}
  const Family& family() const override { return gridderFamily(); }
  const std::string& name() const override { return s_.name; }
  const std::string& file() const override { return s_.file; }

  VerifyReport verify() const override {
    const auto fft = gridderFftSpec(s_);
    const VerifyReport fr = fft->verify();
    const int P = s_.correlations;
    VerifyReport r;
    r.text = fmt::format("{}: {} (gridder: {}): OK\n", s_.file, s_.name, shape(s_));
    r.text += fmt::format(
        "  subgrids: <= {} time steps x {} channels ({} channel group(s){}), {} at least, {} slots; kernel support {} "
        "pixels\n",
        s_.timeStepsPerSubgrid, s_.channelsPerSubgrid, s_.channelGroups(),
        s_.aterms ? fmt::format(", A-terms every {} time steps: {} intervals", s_.atermInterval, s_.atermIntervals())
                  : "",
        s_.minSubgrids(), s_.maxSubgrids, s_.kernelSupport);
    const GridderSpec::MmaShape mm = s_.mmaShape();
    const std::string gridderText =
        s_.engine == GridEngine::Fma
            ? fmt::format("{} threads x {} pixels, {} time steps x {} channels staged per round", s_.gridThreads(),
                          s_.tuning.pixelsPerThread, s_.stageTimeSteps(), s_.channelsPerSubgrid)
            : fmt::format(
                  "tensor cores ({}: {}), {} warps x {} tiles of 16 pixels, {} pass(es) over the visibilities, {} time "
                  "steps x {} channels "
                  "(padded to k-steps of 4) staged per round",
                  gridEngineName(s_.engine),
                  s_.engine == GridEngine::MmaTf32x3 ? "hi x hi + hi x lo + lo x hi, about f32"
                                                     : "one tf32 product, up to 2^-10 per term",
                  mm.warps, mm.tilesPerWarp, mm.parts, s_.mmaStageSteps(), s_.mmaChannels());
    if (s_.grid())
      r.text += fmt::format("  gridder: {}; adder: {}\n", gridderText,
                            s_.adder == GridAdder::Tiles
                                ? fmt::format("atomic-free, {} tiles of {} x {} per w-plane",
                                              s_.tilesPerSide() * s_.tilesPerSide(), s_.subgridSize, s_.subgridSize)
                                : "atomicAdd per subgrid onto a zeroed grid");
    else if (s_.engine == GridEngine::Fma)
      r.text += fmt::format(
          "  degridder: {} threads x {} channel(s), {} pixels staged per round; splitter: one block per subgrid\n",
          s_.tuning.degridThreads, s_.tuning.visibilitiesPerThread, s_.tuning.stagePixels);
    else
      r.text += fmt::format(
          "  degridder: tensor cores ({}: {}), {} warps x {} tiles of 8 visibilities per pass, {} pixels staged per "
          "round as "
          "operands; splitter: one block per subgrid\n",
          gridEngineName(s_.engine),
          s_.engine == GridEngine::MmaTf32x3 ? "[A hi; A lo] x B hi + A hi x B lo, about f32"
                                             : "one tf32 product, up to 2^-10 per term",
          s_.tuning.degridThreads / 32, s_.tuning.mmaVisibilityTiles, s_.tuning.stagePixels);
    r.text += fmt::format("  phasor: {}; per visibility and pixel {}\n", phasorText(s_),
                          s_.engine == GridEngine::Fma ? fmt::format("{} FMAs + 1 sincos", 4 * P + 1)
                                                       : fmt::format("{} FMA(s) + 1 sincos, the products summed on the "
                                                                     "tensor cores (mma.sync m16n8k8 tf32)",
                                                                     s_.grid() ? 1 : 3));
    if (s_.engine != GridEngine::Fma) {
      // The tensor-core kernel's operand layouts, through the common check (generator/verify/MmaCheck.h).
      const GridderMmaLayouts l = gridderMmaLayouts(!s_.grid());
      if (const auto problems = gridderMmaProblems(l); !problems.empty())
        throw std::logic_error("gridder: the m16n8k8 tf32 operand layouts: " + problems.front());
      r.text += fmt::format("  tensor-core operands agree with the m16n8k8 tf32 atom: A {}; B {}; C {}\n", l.a.str(),
                            l.b.str(), l.c.str());
    }
    r.text += "  subgrid FFT (stockham family, through the registry): " + fr.text;
    r.warnings = s_.warnings;
    for (const auto& w : fr.warnings) r.warnings.push_back("subgrid FFT: " + w);
    r.counts["subgrid_slots"] = s_.maxSubgrids;
    r.counts["min_subgrids"] = s_.minSubgrids();
    r.counts["fmas_per_visibility_pixel"] = 4 * P + 1;
    r.counts["sincos_per_visibility_pixel"] = 1;
    r.counts["visibilities"] = s_.visibilities();
    r.counts["subgrid_fft"] = fr.counts;
    return r;
  }

  std::string explain(const EmitTarget& target) const override {
    const GridderBuild b = buildGridderPlan(s_, target);
    std::string o = fmt::format("{}: {}; target {}\n", s_.name, shape(s_), target.arch);
    o += fmt::format(
        "launch plan ({} kernels; {} from the stockham family's plan of the subgrid FFT, composed through the "
        "registry):\n",
        b.plan.kernels.size(), b.fftKernels);
    for (const auto& k : b.plan.kernels)
      o += fmt::format("  {} <<<{} threads>>>: {}\n", k.name, k.blockX * k.blockY, k.note);
    o += "buffers:\n";
    for (const auto& buf : b.plan.buffers)
      o += fmt::format("  {} ({}, {}): {}\n", buf.name, roleName(buf.role), buf.elementType, buf.note);
    o += fmt::format(
        "phase per visibility and pixel: psi = fma(k_c / k0 - 1, B, A) with A = U l + V m + W n, B = k0 (u l + v m + w "
        "n), U, V, W, "
        "k0 u, k0 v, k0 w staged per time step (U = k0 u - u0 in double, so the f32 phases stay below ~pi S/2){}; "
        "phasor {}\n",
        s_.shiftL != 0 || s_.shiftM != 0
            ? "; the phase-centre shift k_c (u shift_l + v shift_m) rotates each visibility once, in double"
            : "",
        phasorText(s_));
    return o;
  }

  Generated emit(const EmitTarget& target) const override {
    verify();
    return Generated{buildGridderPlan(s_, target).plan};
  }

  long long defaultBatch() const override { return 1; }
  TestData randomInputs(long long batch, std::uint64_t seed) const override { return gridderInputs(s_, batch, seed); }
  Check check(const TestData& data, const std::map<std::string, std::vector<unsigned char>>& outputs,
              long long batch) const override {
    return gridderCheck(s_, data, outputs, batch);
  }
  std::vector<BenchVariant> benchVariants(const EmitTarget& target) const override {
    return gridderBenchVariants(s_, buildGridderPlan(s_, target));
  }
  std::string benchNotes(const std::vector<double>& variantMs, const std::vector<long long>& variantBatch, double,
                         int) const override {
    return gridderBenchNotes(s_, variantMs, variantBatch);
  }

 private:
  GridderSpec s_;
};

class GridderFamily final : public Family {
 public:
  std::string name() const override { return "gridder"; }
  std::string summary() const override {
    return "Image-Domain Gridding: gridder / degridder (SFU or exact sincos, A-terms, taper), subgrid FFT from the "
           "stockham family, tile adder / splitter";
  }
  std::unique_ptr<FamilySpec> parse(const Json& root, const std::string& file) const override {
    return makeGridderSpec(parseGridderSpec(root, file));
  }
};

}  // namespace

const Family& gridderFamily() {
  static const GridderFamily f;
  return f;
}

std::unique_ptr<FamilySpec> makeGridderSpec(GridderSpec spec) {
  return std::make_unique<GridderFamilySpec>(std::move(spec));
}

}  // namespace warpforge
