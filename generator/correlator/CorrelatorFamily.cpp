#include "generator/correlator/CorrelatorFamily.h"
#include "generator/correlator/CorrelatorDirectVariants.h"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "generator/correlator/CorrelatorData.h"
#include "generator/correlator/CorrelatorEmitter.h"
#include "generator/correlator/CorrelatorLayouts.h"
#include "generator/correlator/CorrelatorModel.h"
#include "generator/correlator/CorrelatorPlan.h"
#include "generator/correlator/CorrelatorTune.h"
#include "generator/correlator/Pipeline.h"
#include "generator/correlator/PipelineDirect.h"
#include "generator/correlator/PipelineEmitter.h"

namespace warpforge {

namespace {

// TCC's operation count, so that figures compare: 8 R^2 / 2 P^2 C T per batch entry.
double tccOps(const CorrelatorSpec& s) {
  return 8.0 * s.receivers * s.receivers / 2.0 * s.polarizations * s.polarizations * s.channels *
         static_cast<double>(s.samples);
}

// Shared memory of the correlate kernel (two stage buffers; dynamic above 48 KiB): at most what sm_80 lends one
// block (163 KiB; sm_90 227 KiB). sm_86 / sm_89 lend 99 KiB: verify says so above that.
constexpr int kMaxShared = 163 * 1024;
constexpr int kMaxSharedEveryArch = 99 * 1024;

class CorrelatorFamilySpec final : public FamilySpec, public BenchFacet, public TuneFacet {
 public:
  explicit CorrelatorFamilySpec(CorrelatorSpec s) : s_(std::move(s)) {}
  const Family& family() const override { return correlatorFamily(); }
  const std::string& name() const override { return s_.name; }
  const std::string& file() const override { return s_.file; }

  VerifyReport verify() const override {
    ConsistencyReport c = correlatorConsistency(s_);
    const CorrelatorKernels k = emitCorrelator(s_);
    if (k.sharedBytes > kMaxShared)  // tuning that cannot be met: a spec error (exit 2), not an inconsistent spec
      throw SpecError(s_.file, "/tuning/times_per_stage",
                      fmt::format("the two stage buffers need {} B of shared memory (> {} B): fewer times per stage or "
                                  "receivers per block",
                                  k.sharedBytes, kMaxShared));
    // The sm_90 pipeline's proofs for the tile sm_90 gets (its copies, transform, bank groups, descriptors, store).
    requireDirectPossible(s_);
    const CorrelatorChoice sm90 = chooseCorrelator(s_, "sm_90");
    requireCopiesPossible(s_, sm90, "sm_90");
    if (sm90.path == CorrelatorPath::Pipeline && sm90.direct) {
      std::vector<PipeIssue> issues;
      checkDirect(s_, directPipe(s_, sm90.rows, sm90.stages), issues, c.proved);
      for (const auto& i : issues) c.issues.push_back({i.path, i.message});
    } else if (sm90.path == CorrelatorPath::Pipeline) {
      std::vector<PipeIssue> issues;
      checkPipeline(s_, corrPipe(s_, sm90.rows, sm90.stages, 0, sm90.sharedTransform, sm90.wholeTriangle), issues,
                    c.proved);
      for (const auto& i : issues) c.issues.push_back({i.path, i.message});
    }
    if (!c.issues.empty()) {
      std::vector<InconsistentSpec::Issue> issues;
      std::string text;
      for (const auto& i : c.issues) {
        issues.push_back({i.path, i.message});
        text += fmt::format("{}: {}: {}\n", s_.file, i.path, i.message);
      }
      throw InconsistentSpec(text, issues);
    }
    VerifyReport r;
    const CorrelatorTiling& t = k.tiling;
    const long long steps = s_.samples / (s_.type == SampleType::CF16 ? 8 : 16);
    // Active warps: all of an off-diagonal tile, the upper triangle of warps of a diagonal one.
    const long long W = t.warpsI;
    const long long warps = (t.tiles() - t.tilesPerSide) * W * W +
                            static_cast<long long>(t.tilesPerSide) * W * (W + 1) / 2;
    const long long mmas = warps * (t.warpRows / 16) * (t.warpCols / 4) * steps * s_.channels;
    const double useful = tccOps(s_), done = static_cast<double>(mmas) *
                                             (s_.type == SampleType::CF16 ? 2.0 * 16 * 8 * 16 : 2.0 * 16 * 8 * 32);
    r.text = fmt::format("{}: {} (correlator {} x {} pol, {} channels, {} samples per call, {}): OK\n", s_.file,
                         s_.name, s_.receivers, s_.polarizations, s_.channels, s_.samples, sampleTypeName(s_.type));
    for (const auto& line : c.proved) r.text += "  proved: " + line + "\n";
    r.text += fmt::format("  input: {} layout, load path: {}; conjugate {}, polarization order {}\n", s_.input.layout,
                          loadPathName(k.loadPath), s_.conjugate, s_.polOrder);
    r.text += fmt::format(
        "  tiles: {} per channel ({} x {} inputs, {} warps), {} samples per stage, {} B shared; {} MMAs per batch "
        "entry ({}), "
        "tensor-core work {:.2f}x TCC's op count\n",
        t.tiles(), t.rowsPerBlock, t.rowsPerBlock, W * W, s_.tuning.timesPerStage, k.sharedBytes, mmas,
        s_.type == SampleType::CF16 ? "m16n8k16 f16" : "m16n8k32 s8", done / useful);
    if (s_.writesVisibilities())
      r.text += fmt::format(
          "  output: visibilities (TCC's model): the correlate kernel writes each call's {} visibilities once, no "
          "accumulators, no reduce kernel, no missing marker\n",
          s_.integer() ? "int32" : "f32");
    r.text += fmt::format("  sm_90: {}\n", sm90.why);
    if (sm90.path == CorrelatorPath::Wgmma) {
      r.text += fmt::format(
          "  sm_90: wgmma m64n{}k{} (sm_90a target), {} warpgroups per block, {} B shared (two stage buffers); {}\n",
          2 * t.rowsPerBlock, s_.type == SampleType::CF16 ? 16 : 32, t.rowsPerBlock / 64,
          2 * wgmmaStage(s_, t.rowsPerBlock).bufferBytes,
          s_.tuning.mma == "wgmma" ? "tuning.mma \"wgmma\": emitting for another target is an error"
                                   : "mma.sync on other targets or with tuning.mma \"mma_sync\"");
    }
    if (k.sharedBytes > kMaxSharedEveryArch)
      r.text += fmt::format("  note: {} B of shared memory per block: sm_80 / sm_90 only (sm_86 / sm_89 lend {} B)\n",
                            k.sharedBytes, kMaxSharedEveryArch);
    r.text += fmt::format("  exactness: int32 tensor-core sums exact up to {} samples per call (this spec: {}); {}\n",
                          s_.integer() ? s_.maxExactSamples() : 0, s_.samples,
                          s_.symmetric ? "sample_range symmetric: no -128 / -8 in the data, nothing clamped"
                                       : "-128 -> -127, -8 -> -7 before use");
    r.counts["mma"] = Json::object({{s_.type == SampleType::CF16 ? "m16n8k16" : "m16n8k32", mmas}});
    r.counts["tiles_per_channel"] = t.tiles();
    r.counts["shared_bytes"] = k.sharedBytes;
    r.counts["tcc_ops_per_batch"] = useful;
    r.counts["stores_checked"] = c.storesChecked;
    return r;
  }

  std::string explain(const EmitTarget& target) const override {
    const CorrelatorKernels k = emitCorrelatorFor(s_, target.arch);
    const CorrelatorMma m = correlatorMma(s_.type, s_.polarizations);
    std::string o = fmt::format("{}: {} (target {}: {}; {})\n", s_.name,
                                k.visibilities ? "one kernel writing the visibilities" : "two kernels", target.arch,
                                k.wgmma ? "wgmma, sm_90a code" : "mma.sync, the same code for every arch >= sm_80",
                                chooseCorrelator(s_, target.arch).why);
    if (k.direct) {
      const DirectPipe p = directPipe(s_, k.tiling.rowsPerBlock, k.opStages);
      o += fmt::format(
          "{}: block {} threads (producer warpgroup + {} consumer warpgroup(s)), tile {} x {} inputs ({} tiles per "
          "channel), {} B dynamic shared memory, {} block(s) per SM\n",
          k.correlateName, p.threads, p.consumers, p.rows, p.rows, k.tiling.tiles(), p.sharedBytes, p.blocksPerSm);
      o += fmt::format(
          "  per stage of {} samples: operands as stored (transform none): {} straight into {} operand slots ({}); "
          "consumers read A by ldmatrix and form its Im rows (im, -re) in registers; 2 x 2 {} with A from registers "
          "per consumer warpgroup{}; no clamp ({})\n",
          p.ts,
          p.tensorB ? std::string(p.bulkA ? "the row side by cp.async.bulk (one copy per time block; a diagonal tile "
                                            "reads A from its column side), the column side by one TMA tensor copy "
                                            "(issued by the producer's first thread),"
                                          : "the column side by one TMA tensor copy (every tile diagonal: A read "
                                            "from it),")
          : p.pairs ? std::string("the row side by cp.async.bulk multicast in clusters of two blocks (one row side), "
                                  "the column side by 16-byte cp.async,")
          : p.bulkA ? std::string("the row side by cp.async.bulk (one copy per time block; a diagonal tile copies its "
                                  "column side only), the column side by 16-byte cp.async,")
                    : std::string("16-byte cp.async copies"),
          p.stages,
          p.tensorB ? std::string("column side time block by time block, 32-byte swizzle")
                    : fmt::format("{}, {} stages of copies in flight", wgmmaSwizzleName(p.swizzle), p.inFlight),
          p.atom().ptx(),
          p.narrowEdge ? fmt::format(" (the last column tile, {} inputs, half-width)", p.N % p.rows) : "",
          s_.type == SampleType::CF16 ? "cf16" : "sample_range symmetric");
      if (!k.visibilities)
        o += fmt::format("{}: grid-stride over {} visibilities, {} threads per block\n", k.reduceName,
                         s_.visibilities(), k.reduceThreads);
      return o;
    }
    if (k.pipeline) {
      const CorrPipe p = corrPipe(s_, k.tiling.rowsPerBlock, k.opStages, k.rawStages, k.sharedTransform,
                                  k.wholeTriangle);
      o += fmt::format(
          "{}: block {} threads (loader warpgroup + {} consumer warpgroup(s)), tile {} x {} inputs ({} tiles per "
          "channel), {} B dynamic shared "
          "memory, {} blocks per SM\n",
          k.correlateName, p.threads, p.consumers, p.rows, p.rows, k.tiling.tiles(), p.sharedBytes, p.blocksPerSm);
      const std::string who = transformOwners(p, s_.tuning.transform == "split");
      o += fmt::format(
          "  per stage of {} samples: bulk copies ({}) into {} raw slots; transform ({}{}conj_perm) {} into {} "
          "operand slots ({}); "
          "{} x {} per consumer warpgroup\n",
          p.ts, rawKindName(p.kind), p.rawStages,
          s_.type == SampleType::CF16 ? ""
          : p.clamp                   ? "clamp, "
                                      : "no clamp: sample_range symmetric, ",
          s_.type == SampleType::CI4 ? "widen 4 -> 8 bits, " : "", who, p.opStages, wgmmaSwizzleName(p.swizzle),
          p.steps, p.wholeTriangle ? std::string("wgmma m64nN pieces") : p.atom().ptx());
      if (p.wholeTriangle) {
        o += fmt::format("  the whole triangle, {} stage(s) per wait; pieces (rows x column inputs) per warpgroup:",
                         p.stagesPerSync);
        for (std::size_t g = 0; g < p.pieces.size(); ++g)
          for (const PipePiece& pc : p.pieces[g])
            o += fmt::format(" [{}] {}..{} x {}..{}", g, 64 * pc.strip, 64 * pc.strip + 63, pc.col0,
                             pc.col0 + pc.width - 1);
        o += "\n";
      } else if (p.stagesPerSync > 1) {
        o += fmt::format("  {} stages per loader iteration and consumer wait\n", p.stagesPerSync);
      }
      // The roofline at an H100's dense tensor peak (8192 ops per SM and clock, 132 SMs, 1755 MHz) beside the model.
      // m16n8 equivalents (32 k bytes each) per block and stage
      const double done = 2.0 * 16 * 8 * 32 * static_cast<double>(k.mmasPerStage) *
                          static_cast<double>(k.tiling.tiles()) * s_.channels *
                          std::ceil(static_cast<double>(s_.samples) / p.ts);
      o += fmt::format("  roofline {:.1f} us (tensor work {:.2f}x TCC's op count), cost model {:.1f} us\n",
                       done / (8192.0 * 132 * 1755e6) * 1e6, done / tccOps(s_),
                       correlatorPipelineModel(s_, p.rows, 132, 1755, p.wholeTriangle));
      if (!k.visibilities)
        o += fmt::format("{}: grid-stride over {} visibilities, {} threads per block\n", k.reduceName,
                         s_.visibilities(), k.reduceThreads);
      return o;
    }
    o += fmt::format("{}: block {} threads, tile {} x {} inputs of the triangle ({} tiles per channel), {} B shared\n",
                     k.correlateName, k.tiling.threads(), k.tiling.rowsPerBlock, k.tiling.rowsPerBlock,
                     k.tiling.tiles(), k.sharedBytes);
    o += fmt::format(
        "  per stage of {} samples: load ({}), clamp{}, conj_perm copy of the column side; then {} x {} MMAs\n",
        s_.tuning.timesPerStage, loadPathName(k.loadPath), s_.type == SampleType::CI4 ? " and widen 4 -> 8 bits" : "",
        k.mmasPerStage, k.wgmma ? std::string("m16n8 equivalents in wgmma m64 instructions") : m.shape->ptx());
    o += fmt::format("  A: {}\n  B: {}\n  C: {}\n", m.a.str(), m.b.str(), m.c.str());
    if (!k.visibilities)
      o += fmt::format("{}: grid-stride over {} visibilities, {} threads per block\n", k.reduceName, s_.visibilities(),
                       k.reduceThreads);
    return o;
  }

  Generated emit(const EmitTarget& target) const override {
    verify();
    return Generated{correlatorLaunchPlan(s_, emitCorrelatorFor(s_, target.arch))};
  }

  long long defaultBatch() const override { return 1; }
  TestData randomInputs(long long batch, std::uint64_t seed) const override {
    return correlatorInputs(s_, batch, seed);
  }
  Check check(const TestData& data, const std::map<std::string, std::vector<unsigned char>>& outputs,
              long long batch) const override {
    return correlatorCheck(s_, data, outputs, batch);
  }

  // HerkBaseline (bench/Baseline.cpp): C[b] = A[b] A[b]^H for b < channels, A n x k = inputs x samples complex, the
  // time index fastest; cuBLAS batched complex GEMM, int8 -> complex f32 (f16 widened to f32 on the host).
  std::optional<BaselineRequest> baseline() const override {
    if (s_.type == SampleType::CI4) return std::nullopt;  // cuBLAS has no complex int4
    BaselineRequest r;
    HerkBaseline herk;
    herk.batches = s_.channels;
    herk.n = s_.inputs();
    herk.k = s_.samples;
    herk.input = s_.type == SampleType::CI8 ? BaselineInput::CI8 : BaselineInput::CF16;
    r.library = herk;
    r.description = fmt::format(
        "cuBLAS {} HERK n = {} (receivers x pols), k = {} samples, {} channels per batch entry -> complex f32",
        s_.type == SampleType::CI8 ? "ci8" : "cf16", s_.inputs(), s_.samples, s_.channels);
    const CorrelatorSpec s = s_;
    // Dense [batch][channel][input][time] samples, clamped like ours (8-bit) or as given (f16).
    r.denseInput = [s](const TestData& data, long long batch) {
      const long long eb = s.type == SampleType::CI8 ? 2 : 4;
      const auto& in = data.arrays.at("input");
      std::vector<unsigned char> out(static_cast<std::size_t>(batch * s.channels * s.inputs() * s.samples * eb));
      std::size_t o = 0;
      for (long long b = 0; b < batch; ++b)
        for (long long c = 0; c < s.channels; ++c)
          for (long long n = 0; n < s.inputs(); ++n)
            for (long long t = 0; t < s.samples; ++t, o += eb) {
              const long long off = sampleOffset(s, b, c, t, n / s.polarizations, n % s.polarizations);
              std::memcpy(&out[o], &in[static_cast<std::size_t>(off * eb)], eb);
              if (eb == 2)
                for (int h = 0; h < 2; ++h)
                  if (out[o + h] == 0x80) out[o + h] = 0x81;
            }
      return out;
    };
    r.error = nullptr;
    return r;
  }

  // Few variants (each is compiled on the device before it is timed): the default correlate kernel alone (TCC's part),
  // the reduce kernel alone, the pipeline with the other tile (the cost model's data) and with the other transform.
  // Names do not depend on the target.
  std::vector<BenchVariant> benchVariants(const EmitTarget& target) const override {
    benchArch_ = target.arch;  // benchNotes names the same list
    std::vector<BenchVariant> v;
    const CorrelatorKernels k = emitCorrelatorFor(s_, target.arch);
    v.push_back(
        {"correlate kernel only (TCC's part; no reduction)", Generated{correlatorLaunchPlan(s_, k, false)}, 1, 0});
    if (!s_.writesVisibilities()) {
      // The other output model at batch 1 (its arrays, input and visibilities, are the default plan's there).
      CorrelatorSpec vis = s_;
      vis.output = "visibilities";
      v.push_back({"correlate only, output visibilities (TCC's model: int32 written once)",
                   Generated{correlatorLaunchPlan(vis, emitCorrelatorFor(vis, target.arch))}, 1, 0});
      v.push_back({"reduce kernel only", Generated{correlatorLaunchPlan(s_, k, true, false)}, 1, 0});
    }
    const CorrelatorChoice c = chooseCorrelator(s_, target.arch);
    const bool pipe = c.path == CorrelatorPath::Pipeline;
    // The square tile the cost model ranks first (the default's where it is square); the whole triangle of a channel
    // in one block beside it where it fits.
    const int square = !c.wholeTriangle                                                     ? c.rows
                       : correlatorPipelineModel(s_, 128) < correlatorPipelineModel(s_, 64) ? 128
                                                                                            : 64;
    // Where the triangle fits one block (a property of the spec: the names stay the same on every target): the other
    // block form, i.e. square tiles where the default is the whole triangle (the kernel before it) and vice versa.
    // A variant's rings must fit one block's shared memory (the spec's ring of 8 slots does not on 128-input tiles):
    // a variant that does not is left out rather than failing the launch.
    auto fitsShared = [&](const CorrelatorSpec& spec, int rows, int stages, bool shared, bool whole) {
      return !pipe || pipeSharedFits(corrPipe(spec, rows, stages, 0, shared, whole));
    };
    if (pipeTriangleFits(s_) && fitsShared(s_, c.wholeTriangle ? square : 0, c.stages,
                                           c.wholeTriangle && c.sharedTransform, !c.wholeTriangle)) {
      const CorrelatorKernels form = !pipe             ? k
                                     : c.wholeTriangle ? emitCorrelatorPipeline(s_, square, c.stages, c.sharedTransform)
                                                       : emitCorrelatorPipeline(s_, 0, c.stages, false, 0, true);
      v.push_back({"correlate only, pipeline with the other block form (whole triangle per channel <-> square tiles)",
                   Generated{correlatorLaunchPlan(s_, form, false)}, 1, 0});
    }
    if (pipeTriangleFits(s_)) {
      // The whole triangle with two stages per loader iteration and consumer wait (tuning.stages_per_sync 2).
      CorrelatorSpec pairs = s_;
      pairs.tuning.stagesPerSync = 2;
      const CorrelatorKernels paired = pipe ? emitCorrelatorPipeline(pairs, 0, c.stages && c.stages < 4 ? 4 : c.stages,
                                                                     false, 0, true)
                                            : k;
      v.push_back({"correlate only, pipeline, whole triangle per channel, two stages per wait (stages_per_sync 2)",
                   Generated{correlatorLaunchPlan(pairs, paired, false)}, 1, 0});
      // Four stages per wait (8 operand slots) where they fit beside the raw ring.
      CorrelatorSpec fours = s_;
      fours.tuning.stagesPerSync = 4;
      fours.tuning.stages = 0;
      if (pipe && pipeSharedFits(corrPipe(fours, 0, 0, 0, false, true)))
        v.push_back(
            {"correlate only, pipeline, whole triangle per channel, four stages per wait (stages_per_sync 4, 8 "
             "operand slots)",
             Generated{correlatorLaunchPlan(fours, emitCorrelatorPipeline(fours, 0, 0, false, 0, true), false)}, 1, 0});
    }
    // Square tiles with 2 and 4 stages per loader iteration and consumer wait (tuning.stages_per_sync) on the ring of 2
    // N operand slots, and 2 with 6 slots (the loader a whole group ahead of the consumers' previous group); those
    // beyond 2 per wait on 4 slots where they fit.
    for (const auto& [perSync, slots] : std::vector<std::pair<int, int>>{{2, 4}, {2, 6}, {4, 8}}) {
      CorrelatorSpec grouped = s_;
      grouped.tuning.stagesPerSync = perSync;
      grouped.tuning.stages = slots;
      const bool fits = pipe && fitsShared(grouped, square, slots, c.sharedTransform, false);
      if (slots > 4 && !fits) continue;
      v.push_back({fmt::format("correlate only, pipeline square tiles, {} stages per wait (stages_per_sync {}, {} "
                               "operand slots)",
                               perSync == 2 ? "two" : "four", perSync, slots),
                   Generated{correlatorLaunchPlan(
                       grouped, fits ? emitCorrelatorPipeline(grouped, square, slots, c.sharedTransform) : k, false)},
                   1, 0});
    }
    // Where the default uses the operands as stored, the transform pipeline's own alternatives (its other tile,
    // transform, raw ring, stages per wait) are not the default's: the variants above and below time those instead.
    const int other = pipe && square == 64 ? 128 : 64;
    if (!c.direct && fitsShared(s_, other, c.stages, false, false)) {
      const CorrelatorKernels alt = c.path == CorrelatorPath::Pipeline ? emitCorrelatorPipeline(s_, other, c.stages)
                                                                       : k;
      v.push_back({"correlate only, pipeline with the other tile (64 <-> 128 inputs)",
                   Generated{correlatorLaunchPlan(s_, alt, false)}, 1, 0});
    }
    // The other transform (loader alone <-> loader and consumers), on the square tile.
    if (!c.direct && fitsShared(s_, square, c.stages, !c.sharedTransform, false)) {
      const CorrelatorKernels xf = c.path == CorrelatorPath::Pipeline
                                       ? emitCorrelatorPipeline(s_, square, c.stages, !c.sharedTransform)
                                       : k;
      v.push_back({"correlate only, pipeline with the other transform (loader <-> shared)",
                   Generated{correlatorLaunchPlan(s_, xf, false)}, 1, 0});
    }
    // The split transform (the consumers transform A and B's last groups, the loader the rest) on the square tile,
    // where one round of the consumers is part of B.
    CorrelatorSpec split = s_;
    split.tuning.transform = "split";
    if (pipe && s_.tuning.transform != "split" && c.stages != 2 && fitsShared(split, square, c.stages, true, false) &&
        corrPipe(split, square, c.stages, 0, true).bConsumerGroups)
      v.push_back({"correlate only, pipeline with the split transform (the consumers: A and part of B)",
                   Generated{correlatorLaunchPlan(split, emitCorrelatorPipeline(split, square, c.stages, true), false)},
                   1, 0});
    // The operands as stored (transform "none") on the square tile, where the sample type and range allow it.
    const CorrelatorSpec asStored = asStoredSpec(s_);
    if (pipe && !c.direct && !directBlocker(asStored) && !pipelineBlocker(asStored) &&
        directSharedFits(directPipe(asStored, square)))
      v.push_back(
          {"correlate only, pipeline with the operands as stored (transform none: copies into the ring, A's Im rows in "
           "registers)",
           Generated{correlatorLaunchPlan(asStored, emitCorrelatorDirect(asStored, square), false)}, 1, 0});
    if (pipe && c.direct) {
      // The default uses the operands as stored: the transform pipeline beside it, and its own other choices.
      CorrelatorSpec shared = s_;
      shared.tuning.transform = "shared";
      shared.tuning.transformGiven = true;
      v.push_back({"correlate only, pipeline with the transform (shared: where the operands cannot be used as stored)",
                   Generated{correlatorLaunchPlan(shared, emitCorrelatorFor(shared, target.arch), false)}, 1, 0});
      addDirectVariants(v, s_, c);
    }
    // The deepest raw ring that fits (up to 8 slots: more stages of bulk copies in flight than the default 4).
    if (!c.direct) {
      const CorrelatorKernels deep =
          c.path == CorrelatorPath::Pipeline
              ? emitCorrelatorPipeline(s_, c.rows, c.stages, c.sharedTransform,
                                       pipeDeepestRawStages(s_, c.rows, c.stages, c.sharedTransform, c.wholeTriangle),
                                       c.wholeTriangle)
              : k;
      v.push_back({"correlate only, pipeline with the deepest raw ring that fits (up to 8 slots)",
                   Generated{correlatorLaunchPlan(s_, deep, false)}, 1, 0});
      // The default's block form and tile with the other stages per wait (1 <-> 2): the default's choice timed beside
      // it.
      CorrelatorSpec perWait = s_;
      perWait.tuning.stagesPerSync = s_.tuning.stagesPerSync == 1 ? 2 : 1;
      perWait.tuning.stagesPerSyncGiven = true;
      const bool perWaitFits = c.path == CorrelatorPath::Pipeline &&
                               ringHoldsStagesPerSync(perWait.tuning.stagesPerSync, c.stages);
      v.push_back(
          {"correlate only, pipeline with the other stages per wait (1 <-> 2; the default's block form and tile)",
           Generated{correlatorLaunchPlan(perWait,
                                          perWaitFits ? emitCorrelatorPipeline(perWait, c.rows, c.stages,
                                                                               c.sharedTransform, 0, c.wholeTriangle)
                                                      : k,
                                          false)},
           1, 0});
    }
    // What the target got before the pipeline (register-staged wgmma or mma.sync): auto must not lose to it.
    const CorrelatorKernels before = c.path == CorrelatorPath::Pipeline
                                         ? emitCorrelator(s_, correlatorUsesWgmma(s_, target.arch))
                                         : k;
    const BenchVariant beforeVariant{"correlate only, the path before the pipeline (wgmma or mma.sync)",
                                     Generated{correlatorLaunchPlan(s_, before, false)}, 1, 0};
    if (s_.writesVisibilities()) {
      v.push_back(beforeVariant);
      return v;
    }
    // The reduce kernel's options and the kernels before it, timed beside the default (batch 1).
    const auto reduceVariant = [&](const std::string& what, const ReduceOptions& o) {
      CorrelatorKernels r = k;
      r.reduceUnroll = o.unroll;
      r.reduceSource = emitReduce(s_, r.reduceName, r.reduceThreads, o);
      v.push_back({"reduce kernel only, " + what, Generated{correlatorLaunchPlan(s_, r, true, false)}, 1, 0});
    };
    ReduceOptions o;
    o.resetWithLoads = true;
    reduceVariant("resets issued with the loads", o);
    o = {};
    o.prefetch = false;
    reduceVariant("next sweep's loads after the stores (no prefetch)", o);
    o = {};
    o.unroll = kReduceUnroll / 2;
    reduceVariant("half the units per thread", o);
    o.unroll = 2 * kReduceUnroll;
    reduceVariant("twice the units per thread", o);
    // The previous kernels: one block per sweep of threads x unroll visibilities (an uncapped grid).
    const auto oneBlockPerSweep = [&](const std::string& what, std::string source) {
      CorrelatorKernels r = k;
      r.reduceUnroll = kReduceUnroll;
      r.reduceSource = std::move(source);
      LaunchPlan p = correlatorLaunchPlan(s_, r, true, false);
      const long long perSweep = static_cast<long long>(r.reduceThreads) * r.reduceUnroll;
      p.kernels.back().grid = GridRule{(s_.visibilities() + perSweep - 1) / perSweep, 1, false};
      v.push_back({"reduce kernel only, " + what, Generated{p}, 1, 0});
    };
    oneBlockPerSweep("previous kernel (one block per sweep, loads first)",
                     emitReduceOneBlockPerSweep(s_, k.reduceName, k.reduceThreads));
    oneBlockPerSweep("the kernel before it (flags before the loads)",
                     emitReducePrevious(s_, k.reduceName, k.reduceThreads));
    v.push_back(beforeVariant);
    // In the accumulators model each variant times one kernel of the plan (correlate or reduce): none is the whole
    // plan whose outputs the spec's check reads.
    for (auto& x : v) x.partial = true;
    return v;
  }

  std::optional<TuneOutcome> tune(TuneTimer& timer, long long,
                                  const std::function<void(const TuneTrialReport&)>& onTrial) const override {
    return tuneCorrelator(s_, timer, onTrial);
  }

  std::string benchNotes(const std::vector<double>& variantMs, double clockKHz, int sms) const override {
    // The roofline's compute side: dense tensor-core ops per SM per clock (H100 SXM: 1979 TOPS s8, 989 TFLOPS f16 at
    // 1830 MHz; ci4 is widened to s8: Hopper has no int4 MMA), at this GPU's SMs and max clock.
    const double peak = (s_.type == SampleType::CF16 ? 4096.0 : 8192.0) * sms * clockKHz * 1e3;
    std::string o = fmt::format(
        "op count (TCC's 8 R^2/2 P^2 C T): {:.4g} per batch entry; tensor-core peak (dense, {} ops/SM/clock x {} SMs x "
        "{:.0f} MHz): "
        "{:.0f} T{}OPS\n",
        tccOps(s_), s_.type == SampleType::CF16 ? 4096 : 8192, sms, clockKHz / 1e3, peak / 1e12,
        s_.type == SampleType::CF16 ? "FL" : "");
    const auto variants = benchVariants(EmitTarget{benchArch_, nullptr});
    for (std::size_t i = 0; i < variantMs.size() && i < variants.size(); ++i)
      if (std::isnan(variantMs[i])) continue;  // not timed (bench --variants)
      else if (variants[i].name.rfind("reduce", 0) == 0)
        o += fmt::format("  {:<64} {:8.4f} ms  {:7.1f} GB/s of accumulators, visibilities\n", variants[i].name,
                         variantMs[i],
                         (s_.visibilities() * (s_.integer() ? 40.0 : 24.0)) / (variantMs[i] * 1e-3) / 1e9);
      else
        o += fmt::format("  {:<64} {:8.4f} ms  {:7.1f} TOPS {:5.1f}% of peak\n", variants[i].name, variantMs[i],
                         tccOps(s_) / (variantMs[i] * 1e-3) / 1e12,
                         peak > 0 ? 100.0 * tccOps(s_) / (variantMs[i] * 1e-3) / peak : 0.0);
    return o;
  }

 private:
  mutable std::string benchArch_ = "sm_90";  // the target of the last benchVariants() (benchNotes lists them)
  CorrelatorSpec s_;
};

class CorrelatorFamily final : public Family, public SweepFacet {
 public:
  std::string name() const override { return "correlator"; }
  std::string summary() const override {
    return "tensor-core radio-astronomy correlator (X-engine): ci4/ci8/cf16 samples, triangle of baselines, int64 "
           "accumulators reduced to int32 with saturation";
  }
  std::unique_ptr<FamilySpec> parse(const Json& root, const std::string& file) const override {
    return makeCorrelatorSpec(parseCorrelatorSpec(root, file));
  }
  std::vector<SweepSpec> sweepSpecs(std::uint64_t seed, int count) const override {
    return correlatorSweepSpecs(seed, count);
  }
};

}  // namespace

const Family& correlatorFamily() {
  static const CorrelatorFamily f;
  return f;
}

std::unique_ptr<FamilySpec> makeCorrelatorSpec(CorrelatorSpec spec) {
  return std::make_unique<CorrelatorFamilySpec>(std::move(spec));
}

}  // namespace warpforge
