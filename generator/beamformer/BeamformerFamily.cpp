#include "generator/beamformer/BeamformerFamily.h"

#include <cstring>

#include <fmt/format.h>

#include "generator/complexmma/SaturationCount.h"
#include "generator/beamformer/BeamformerData.h"
#include "generator/beamformer/BeamformerLayouts.h"
#include "generator/beamformer/BeamformerTune.h"
#include "generator/beamformer/BeamformerWgmma.h"
#include "generator/emulate/Half.h"

namespace warpforge {

namespace {

// 8 M N K operations per complex GEMM (4 real multiply-adds per complex one), per batch entry.
double gemmOps(const BeamformerSpec& s) {
  return 8.0 * static_cast<double>(s.beams) * static_cast<double>(s.samples) * static_cast<double>(s.receivers) *
         s.channels * s.polarizations;
}

// Bytes of the user's arrays per batch entry (inputs read once, output written once): the traffic floor.
double userBytesPerEntry(const BeamformerSpec& s) {
  auto operand = [](const BfOperand& o) {
    return static_cast<double>(o.span) * (o.planar ? 2 : 1) * arrayElemBytes(o);
  };
  return operand(s.in) + (s.w.batch ? operand(s.w) : 0.0) +
         static_cast<double>(s.outElems()) * (s.power ? 4 : bfOutBytes(s.outType)) +
         (s.intOut() ? 4.0 * s.channels * s.polarizations * s.beams : 0.0);
}

// The power output computed the unfused way, for bench: complex f32 beams of the same GEMM to a scratch buffer,
// then a detection kernel (|beam|^2 summed over pols and the window, one thread per output element).
LaunchPlan unfusedPowerPlan(const BeamformerSpec& s, const EmitTarget& target) {
  BeamformerSpec v = s;
  v.power = false;
  v.outType = BfOutType::CF32;
  v.name = s.name + "_unfused";
  LaunchPlan p = beamformerLaunchPlan(v, emitBeamformer(v, target));
  for (auto& b : p.buffers)
    if (b.name == "beams")
      b.role = BufferRole::Scratch, b.name = "beams_scratch",
      b.note = "complex f32 beams [batch][channel][pol][time][beam] (scratch)";
  for (auto& a : p.kernels[0].args)
    if (a.kind == PlanArg::Kind::Buffer && a.name == "beams") a.name = "beams_scratch";
  PlanBuffer o;
  o.name = "power";
  o.role = BufferRole::Output;
  o.elementType = "unsigned char";
  o.elementBytes = 1;
  o.alignment = 16;
  o.perBatchElems = s.outElems() * 4;
  o.note = "[batch][channel][window][beam] f32";
  p.buffers.push_back(o);
  const std::string kn = v.name + "_detect";
  const long long W = s.windows(), M = s.beams, N = s.samples, P = s.polarizations;
  std::string src = fmt::format(
      "// {0}: |beam|^2 summed over {1} pols and {2} samples per window, from complex f32 beams in memory (the unfused "
      "pair's second kernel)\n"
      "extern \"C\" __global__ void __launch_bounds__(256) {0}(const float2* __restrict__ beams, float* __restrict__ "
      "power, long long total) {{\n"
      "  const long long e = (long long)blockIdx.x * 256 + threadIdx.x;\n"
      "  if (e >= total) return;\n"
      "  const long long m = e % {3}, win = (e / {3}) % {4}, bc = e / ({3}LL * {4});\n"
      "  float acc = 0.f;\n"
      "  for (int p = 0; p < {1}; ++p) {{\n"
      "    const float2* row = beams + ((bc * {1} + p) * {5} + win * {2}) * {3} + m;\n"
      "    for (int i = 0; i < {2}; ++i) {{ const float2 v = row[(long long)i * {3}]; acc += fmaf(v.y, v.y, v.x * "
      "v.x); }}\n"
      "  }}\n"
      "  power[e] = acc;\n"
      "}}\n",
      kn, P, s.integrate, M, W, N);
  p.sources.push_back({kn + ".cu", src});
  PlanKernel k;
  k.name = kn;
  k.source = 1;
  k.blockX = 256;
  k.grid = GridRule{static_cast<long long>(s.channels) * W * M, 256, false};
  k.args = {PlanArg::buffer("beams_scratch", "const float2*", "beams"), PlanArg::buffer("power", "float*", "power"),
            PlanArg::batchTimes(static_cast<long long>(s.channels) * W * M, "total")};
  k.note = "detection: one thread per (batch entry, channel, window, beam)";
  p.kernels.push_back(k);
  p.check();
  return p;
}

// Dense tensor-core operations per SM per clock at Hopper's rates (H100 SXM: 1979 TOPS s8, 989 TFLOPS f16 at
// 132 SMs x 1830 MHz); mma.sync issues below them on sm_90 (wgmma reaches them).
double peakOpsPerSmClock(const BeamformerSpec& s) { return s.integer() ? 8192 : 4096; }

}  // namespace

LaunchPlan beamformerLaunchPlan(const BeamformerSpec& s, const BeamformerKernel& k) {
  LaunchPlan p;
  p.specName = s.name;
  p.family = "beamformer";
  p.unitName = "batch";
  p.minArch = 80;
  p.sources.push_back({k.name + ".cu", k.source, k.wgmma});
  if (k.wgmma) p.onlyArch = 90;  // wgmma: sm_90a code
  std::vector<PlanArg> args;
  for (int side = 0; side < 2; ++side) {
    const BfOperand& o = side == 0 ? s.in : s.w;
    const auto names = bfArrayNames(s, side == 1);
    const int eb = arrayElemBytes(o);
    for (std::size_t i = 0; i < names.size(); ++i) {
      PlanBuffer b;
      b.name = names[i];
      b.role = BufferRole::Input;
      b.elementType = "unsigned char";
      b.elementBytes = 1;
      if (o.batch) b.perBatchElems = o.batch * eb;
      else b.fixedElems = o.span * eb;
      b.alignment = 16;
      b.note = fmt::format("{} {} ({}{}), element (b, c, p, {}, k) at b*{} + c*{} + p*{} + {}*{} + k*{} ({} B each)",
                           side == 0 ? "samples" : "weights", bfTypeName(o.type), o.planar ? "planar, " : "interleaved",
                           o.planar ? (i == 0 ? "real parts" : "imaginary parts") : "", side == 0 ? "t" : "m", o.batch,
                           o.channel, o.polarization, side == 0 ? "t" : "m", o.outer, o.receiver, eb);
      p.buffers.push_back(b);
    }
    const std::string pa = side == 0 ? "s_a" : "w_a", pb = side == 0 ? "s_b" : "w_b";
    args.push_back(PlanArg::buffer(names[0], "const unsigned char*", pa));
    args.push_back(names.size() > 1 ? PlanArg::buffer(names[1], "const unsigned char*", pb)
                                    : PlanArg::null("const unsigned char*", pb));
  }
  if (s.intOut()) {
    PlanBuffer b;
    b.name = "shifts";
    b.role = BufferRole::Input;
    b.elementType = "int";
    b.elementBytes = 4;
    b.perBatchElems = static_cast<long long>(s.channels) * s.polarizations * s.beams;
    b.note = "[batch][channel][pol][beam] int32: beam = saturate(round(acc / 2^shift)), shift clamped to 0..31";
    p.buffers.push_back(b);
    args.push_back(PlanArg::buffer("shifts", "const int*", "shifts"));
  } else {
    args.push_back(PlanArg::null("const int*", "shifts"));
  }
  PlanBuffer o;
  o.role = BufferRole::Output;
  o.elementType = "unsigned char";
  o.elementBytes = 1;
  o.alignment = 16;
  if (s.power) {
    o.name = "power";
    o.perBatchElems = s.outElems() * 4;
    o.note = fmt::format("[batch][channel][window][beam] f32: |beam|^2 summed over {} pols and {} samples",
                         s.polarizations, s.integrate);
  } else if (s.outPlanar) {
    o.name = "beams_re";
    o.perBatchElems = s.outElems() * (bfOutBytes(s.outType) / 2);
    o.note = fmt::format("[batch][channel][pol][time][beam] real parts ({} planar: {} B each)",
                         bfOutTypeName(s.outType), bfOutBytes(s.outType) / 2);
  } else {
    o.name = "beams";
    o.perBatchElems = s.outElems() * bfOutBytes(s.outType);
    o.note = fmt::format("[batch][channel][pol][time][beam] {} (re, im){}", bfOutTypeName(s.outType),
                         s.outType == BfOutType::CI4
                             ? (s.outCi4RealHigh ? ", real in the high nibble" : ", real in the low nibble")
                             : "");
  }
  p.buffers.push_back(o);
  args.push_back(PlanArg::buffer(o.name, "unsigned char*", "out"));
  if (!s.power && s.outPlanar) {
    PlanBuffer im = o;
    im.name = "beams_im";
    im.note = fmt::format("[batch][channel][pol][time][beam] imaginary parts ({} planar: {} B each)",
                          bfOutTypeName(s.outType), bfOutBytes(s.outType) / 2);
    p.buffers.push_back(im);
    args.push_back(PlanArg::buffer("beams_im", "unsigned char*", "out_im"));
  } else {
    args.push_back(PlanArg::null("unsigned char*", "out_im"));
  }
  args.push_back(PlanArg::batchTimes(1, "batch"));
  if (s.intOut()) {
    // The saturation count of this call (as the correlator's `saturated`): the kernel's blocks add theirs to
    // sat_count, the last to finish moves it to `saturated` and re-zeroes both counters.
    for (auto& b : cmma::saturationCountBuffers(
             fmt::format("complex beams of this call (all batch entries) with a component clamped to +-{}", s.outMax()),
             "clamped beams summed over the blocks (left zero)", "blocks finished (left zero)"))
      p.buffers.push_back(std::move(b));
    args.push_back(PlanArg::buffer("saturated", "unsigned long long*", "saturated"));
    args.push_back(PlanArg::buffer("sat_count", "unsigned long long*", "sat_count"));
    args.push_back(PlanArg::buffer("blocks_done", "unsigned int*", "blocks_done"));
  } else {
    args.push_back(PlanArg::null("unsigned long long*", "saturated"));
    args.push_back(PlanArg::null("unsigned long long*", "sat_count"));
    args.push_back(PlanArg::null("unsigned int*", "blocks_done"));
  }
  PlanKernel kr;
  kr.name = k.name;
  kr.source = 0;
  kr.blockX = k.tiling.threads;
  kr.sharedBytes = k.sharedBytes;  // dynamic
  kr.grid = GridRule{k.tiling.blocksPerBatch, 1, false};
  kr.args = args;
  kr.note = k.wgmma ? fmt::format(
                          "one block per (batch entry, channel, {}{} samples, {} beams), two warpgroups of wgmma "
                          "m64n{} (sm_90a); {} B dynamic "
                          "shared memory (a ring of {} cp.async stages)",
                          s.power ? "" : "pol, ", k.tiling.range, k.tiling.beams, k.tiling.beams, k.sharedBytes,
                          k.tiling.stages)
                    : fmt::format(
                          "one block per (batch entry, channel, {}{} samples, {} beams), {} x {} warps of {} x {}; {} "
                          "B dynamic shared memory ({} stage{})",
                          s.power ? "" : "pol, ", k.tiling.range, k.tiling.beams, k.tiling.warpsT, k.tiling.warpsM,
                          k.tiling.warpTimes, k.tiling.warpBeams, k.sharedBytes, k.tiling.stages,
                          k.tiling.stages > 1 ? "s, double-buffered" : "");
  p.kernels.push_back(kr);
  p.check();
  return p;
}

namespace {

class BeamformerFamilySpec final : public FamilySpec, public BenchFacet, public TuneFacet {
 public:
  explicit BeamformerFamilySpec(BeamformerSpec s) : s_(std::move(s)) {}
  const Family& family() const override { return beamformerFamily(); }
  const std::string& name() const override { return s_.name; }
  const std::string& file() const override { return s_.file; }

  VerifyReport verify() const override {
    // Tuning the mma.sync kernel cannot have (threads, accumulators, shared memory per block) is a spec error (exit 2),
    // not an inconsistent spec: the defaults adapt to what the spec sets.
    if (s_.tuning.mma != "wgmma")
      for (const auto& [path, message] : bfTilingProblems(s_, bfTiling(s_, bfMma(s_.in.type))))
        throw SpecError(s_.file, path, message);
    BfConsistency c = bfConsistency(s_);
    // The sm_90 emission's path, checked too where it is the wgmma one.
    if (bfUsesWgmma(s_, "sm_90"))
      bfWgmmaCheck(s_, c.issues, c.proved);  // "mma": "wgmma" it cannot take is a spec error (parse)
    if (!c.issues.empty()) {
      std::vector<InconsistentSpec::Issue> issues;
      std::string text;
      for (const auto& i : c.issues) {
        issues.push_back({i.path, i.message});
        text += fmt::format("{}: {}: {}\n", s_.file, i.path, i.message);
      }
      throw InconsistentSpec(text, issues);
    }
    const BeamformerKernel k = emitBeamformer(s_);
    const BfMma m = bfMma(s_.in.type);
    const std::string ins = s_.in.type == BfType::CF16 ? "mma.sync m16n8k16 f16 -> f32" : "mma.sync m16n8k32 s8 -> s32";
    const BfTiling& t = k.tiling;
    const long long kSteps = (s_.receivers + t.receiversPerStage(m) - 1) / t.receiversPerStage(m) *
                             (t.wordsPerStage / 8);
    const long long mmas = t.blocksPerBatch * t.tilesPerRange * (s_.power ? s_.polarizations : 1) * (t.threads / 32) *
                           (t.warpTimes / 8) * (t.warpBeams / 8) * kSteps;
    const double done = static_cast<double>(mmas) * 2.0 * 16 * 8 * (s_.in.type == BfType::CF16 ? 16 : 32);
    VerifyReport r;
    r.text = fmt::format(
        "{}: {} (beamformer {} receivers x {} beams, {} samples per call, {} channels x {} pols, {} x {} -> {}): OK\n",
        s_.file, s_.name, s_.receivers, s_.beams, s_.samples, s_.channels, s_.polarizations, bfTypeName(s_.in.type),
        bfTypeName(s_.w.type), s_.power ? fmt::format("power / {} samples", s_.integrate) : bfOutTypeName(s_.outType));
    for (const auto& line : c.proved) r.text += "  proved: " + line + "\n";
    r.text += fmt::format(
        "  tile {} samples x {} beams ({} x {} warps of {} x {}{}), {} stage{}; {} blocks per batch entry, {} B "
        "shared; {} MMAs ({}), "
        "tensor-core work {:.2f}x the 8 M N K count\n",
        t.times, t.beams, t.warpsT, t.warpsM, t.warpTimes, t.warpBeams,
        s_.tuning.blockBeams ? ", from the spec's tuning" : ", chosen by the cost model", t.stages,
        t.stages > 1 ? "s (double-buffered)" : "", t.blocksPerBatch, k.sharedBytes, mmas, ins, done / gemmOps(s_));
    if (s_.integer())
      r.text += fmt::format(
          "  exactness: int32 sums exact for K <= {} (this spec {}); ci8 samples' -128 reads as -127, weights' -128 "
          "and ci4 -8 exact\n",
          2147483647LL / (2 * s_.maxSample() * s_.maxWeight()), s_.receivers);
    r.counts["mma"] = mmas;
    r.counts["blocks_per_batch"] = t.blocksPerBatch;
    r.counts["shared_bytes"] = k.sharedBytes;
    r.counts["gemm_ops_per_batch"] = gemmOps(s_);
    r.counts["stores_checked"] = c.storesChecked;
    r.warnings = s_.warnings;
    return r;
  }

  std::string explain(const EmitTarget& target) const override {
    const BeamformerKernel k = emitBeamformer(s_);
    const BfMma m = bfMma(s_.in.type);
    if (bfUsesWgmma(s_, target.arch)) {
      const BeamformerKernel w = emitBeamformerWgmma(s_);
      const BfWgmma g = bfWgmma(s_);
      return fmt::format(
          "{}: one kernel (target {}: wgmma, sm_90a code; sm_80..sm_89 targets get the mma.sync kernel)\n"
          "{}: block 256 threads (two warpgroups), tile 64 samples x {} beams, {} blocks per batch entry, {} B shared, "
          "{} receivers per stage, "
          "a ring of {} cp.async buffers of {} B\n"
          "  A: registers, conj / swap of the staged samples (rows of {} B; PTX's m16n8k{} A fragment per warp)\n"
          "  B: the weights, 128-byte-swizzled K-major rows (descriptor: SBO 1024 B, layout type 1)\n"
          "  D: mma.sync's C fragment per 8 beams, rows (time, ReIm_out) of each warp's 8 samples\n",
          s_.name, target.arch, w.name, g.n, w.tiling.blocksPerBatch, w.sharedBytes, g.receiversPerStage, g.stages,
          g.stageBytes, g.sampleStride, s_.integer() ? 32 : 16);
    }
    std::string o = fmt::format("{}: one kernel (same for every arch >= sm_80; target {}{})\n", s_.name, target.arch,
                                s_.tuning.mma != "mma_sync" && bfWgmmaBlocker(s_)
                                    ? "; wgmma on sm_90 not taken: " + *bfWgmmaBlocker(s_)
                                    : "");
    o += fmt::format(
        "{}: block {} threads, tile {} samples x {} beams, {} blocks per batch entry, {} B shared, {} receivers per "
        "stage\n",
        k.name, k.tiling.threads, k.tiling.times, k.tiling.beams, k.tiling.blocksPerBatch, k.sharedBytes,
        k.tiling.receiversPerStage(m));
    auto loads = [&](bool chunk, bool vec, const BfOperand& op) {
      return chunk ? fmt::format("{} receivers per {}-byte load, one 16-byte shared store",
                                 op.type == BfType::CF16 ? 4 : 8, op.type == BfType::CI4 ? 8 : 16)
             : vec ? std::string("two receivers per load")
                   : std::string("one receiver per load");
    };
    o += fmt::format("  loads: samples {}, weights {}\n", loads(k.chunkSamples, k.vectorSamples, s_.in),
                     loads(k.chunkWeights, k.vectorWeights, s_.w));
    o += fmt::format("  A: {}\n  B: {}\n  C: {}\n", m.a.str(), m.b.str(), m.c.str());
    return o;
  }

  Generated emit(const EmitTarget& target) const override {
    verify();
    if (s_.tuning.mma == "wgmma" && !bfUsesWgmma(s_, target.arch))
      throw SpecError(s_.file, "/tuning/mma",
                      fmt::format("\"wgmma\" needs an sm_90 target (this emission: {}); \"auto\" picks mma.sync there",
                                  target.arch));
    return Generated{beamformerLaunchPlan(s_, emitBeamformer(s_, target))};
  }

  long long defaultBatch() const override { return 1; }
  TestData randomInputs(long long batch, std::uint64_t seed) const override {
    return beamformerInputs(s_, batch, seed);
  }
  Check check(const TestData& data, const std::map<std::string, std::vector<unsigned char>>& outputs,
              long long batch) const override {
    return beamformerCheck(s_, data, outputs, batch);
  }

  // bench/Baseline.cpp runs it: GemmBaseline{GEMMs per batch entry (channels x pols), M beams, N samples, K receivers};
  // beams C[g] (M x N column-major = [t][m], complex f32) = W[g] (used transposed from [m][k]) x S[g] ([t][k]).
  //   "cgemm_i8"     cublasGemmStridedBatchedEx CUDA_C_8I -> CUDA_C_32F (ci8; ci4 widened to ci8 by the harness)
  //   "cgemm_lt_f16" cuBLASLt planar complex f16, f32 compute (cf16)
  //   "cgemm"        cublasCgemmStridedBatched on complex f32 copies (either type)
  // The spec's "baseline" member picks one (default: cgemm_i8 for integers, cgemm_lt_f16 for cf16). cuBLAS writes
  // complex f32 beams: no shift / saturation / 4-bit packing, and for power output no detection or integration.
  std::optional<BaselineRequest> baseline() const override {
    if (s_.baseline == "none") return std::nullopt;
    BaselineRequest r;
    const std::string kind = s_.baseline.empty() ? (s_.integer() ? "cgemm_i8" : "cgemm_lt_f16") : s_.baseline;
    GemmBaseline gemm;
    gemm.library = kind == "cgemm_i8"       ? GemmBaseline::Library::CgemmI8
                   : kind == "cgemm_lt_f16" ? GemmBaseline::Library::CgemmLtF16
                                            : GemmBaseline::Library::Cgemm;
    gemm.gemms = static_cast<long long>(s_.channels) * s_.polarizations;
    gemm.m = s_.beams;
    gemm.n = s_.samples;
    gemm.k = s_.receivers;
    gemm.input = s_.integer() ? BaselineInput::CI8 : BaselineInput::CF16;
    r.library = gemm;
    const char* lib = kind == "cgemm_i8"       ? "cuBLAS complex int8"
                      : kind == "cgemm_lt_f16" ? "cuBLASLt planar complex f16"
                                               : "cuBLAS cgemm (f32)";
    std::string what = s_.power ? "complex f32 beams only (GEMM; no |beam|^2, no integration: the unfused pair would "
                                  "add a detection kernel)"
                       : s_.intOut() ? fmt::format("complex f32 beams (no shift, saturation or {} packing)",
                                                   bfOutTypeName(s_.outType))
                                     : "complex f32 beams";
    r.description = fmt::format("{}{}: M = {} beams, N = {}, K = {}, {} GEMMs per entry -> {}", lib,
                                s_.in.type == BfType::CI4 ? " on ci4 widened to ci8 by the harness" : "", s_.beams,
                                s_.samples, s_.receivers, s_.channels * s_.polarizations, what);
    const BeamformerSpec s = s_;
    r.denseInput = [s](const TestData& data, long long batch) { return bfBaselineDenseInput(s, data, batch); };
    r.error = [s](const std::vector<unsigned char>& dense, const TestData& data, long long batch) {
      return bfBaselineBeamsError(s, data, dense, batch);
    };
    return r;
  }

  // Variants bench times beside the default: the default again (its TOPS and % of peak in the notes, which get the
  // variants' times only; bench repeats the default's time for it), the other pipeline depth (1 <-> 2 shared-memory
  // stages), and for power the unfused pair (complex f32 beams to memory + a detection kernel).
  std::vector<BenchVariant> benchVariants(const EmitTarget& target) const override {
    benchArch_ = target.arch;  // benchNotes names the same list
    std::vector<BenchVariant> v;
    v.push_back({"default plan again (TOPS, % of peak in the notes)",
                 Generated{beamformerLaunchPlan(s_, emitBeamformer(s_, target))}, 0, 0});
    if (bfUsesWgmma(s_, target.arch)) {
      // On sm_90: the mma.sync kernel (what sm_80 runs) beside wgmma, and the ring one stage shallower / deeper.
      v.push_back({"mma.sync kernel (the sm_80 path)",
                   Generated{beamformerLaunchPlan(s_, emitBeamformer(s_, EmitTarget{"sm_80", target.probe}))}, 0, 0});
      BeamformerSpec other = s_;
      const int def = bfWgmma(s_).stages;
      other.tuning.stages = def == 3 ? 4 : 3;
      if (!bfWgmmaBlocker(other))
        v.push_back({fmt::format("wgmma, a ring of {} stages", other.tuning.stages),
                     Generated{beamformerLaunchPlan(other, emitBeamformerWgmma(other))}, 0, 0});
      if (bfWgmma(s_).n > 128) {  // smaller tiles, two blocks per SM: more warps to cover the ring's latency
        BeamformerSpec half = s_;
        half.tuning.blockBeams = 128;
        if (!bfWgmmaBlocker(half))
          v.push_back(
              {"wgmma, 128-beam tiles", Generated{beamformerLaunchPlan(half, emitBeamformerWgmma(half))}, 0, 0});
      }
    } else {
      // The other pipeline depth than the default's (what the default's choice of stages is worth).
      BeamformerSpec other = s_;
      other.tuning.stages = bfTiling(s_, bfMma(s_.in.type)).stages == 2 ? 1 : 2;
      other.tuning.mma = "mma_sync";
      if (bfTilingProblems(other, bfTiling(other, bfMma(other.in.type))).empty())
        v.push_back({other.tuning.stages == 1 ? "one shared-memory stage (no double buffering)"
                                              : "two shared-memory stages (double-buffered)",
                     Generated{beamformerLaunchPlan(other, emitBeamformer(other, target))}, 0, 0});
    }
    if (s_.power)
      v.push_back({"unfused: cf32 beams to memory + detection kernel", Generated{unfusedPowerPlan(s_, target)}, 0, 0});
    return v;
  }

  std::string benchNotes(const std::vector<double>& ms, const std::vector<long long>& batch, double clockKHz,
                         int sms) const override {
    const double peak = peakOpsPerSmClock(s_) * sms * clockKHz * 1e3;
    std::string o = fmt::format(
        "op count (8 M N K per complex GEMM): {:.4g} per batch entry; user arrays {:.4g} B per entry ({:.1f} ops/B)\n",
        gemmOps(s_), userBytesPerEntry(s_), gemmOps(s_) / userBytesPerEntry(s_));
    o += fmt::format(
        "tensor-core peak (dense, {} ops/SM/clock x {} SMs x {:.0f} MHz): {:.0f} T{}OPS; mma.sync on sm_90 issues "
        "below it\n",
        peakOpsPerSmClock(s_), sms, clockKHz / 1e3, peak / 1e12, s_.integer() ? "" : "FL");
    const auto names = benchVariants(EmitTarget{benchArch_, nullptr});
    for (std::size_t i = 0; i < ms.size() && i < names.size(); ++i) {
      const double b = i < batch.size() ? static_cast<double>(batch[i]) : 1.0;
      const double ops = gemmOps(s_) * b, secs = ms[i] * 1e-3;
      o += fmt::format("  {:<56} {:9.4f} ms {:8.1f} TOPS {:5.1f}% of peak {:8.1f} GB/s\n", names[i].name, ms[i],
                       ops / secs / 1e12, 100 * ops / secs / peak, userBytesPerEntry(s_) * b / secs / 1e9);
    }
    if (s_.power && ms.size() >= names.size() && names.size() >= 2)
      o += fmt::format("  fused power vs the unfused pair: {:.2f}x\n", ms.back() / ms[0]);
    return o;
  }

  std::optional<TuneOutcome> tune(TuneTimer& timer, long long,
                                  const std::function<void(const TuneTrialReport&)>& onTrial) const override {
    return tuneBeamformer(s_, timer, onTrial);
  }

 private:
  BeamformerSpec s_;
  mutable std::string benchArch_;  // the target of the last benchVariants() (benchNotes lists the same variants)
};

class BeamformerFamily final : public Family {
 public:
  std::string name() const override { return "beamformer"; }
  std::string summary() const override {
    return "tensor-core complex beamformer: ci4/ci8/cf16 samples x weights, complex beams (cf32, cf16, shifted and "
           "saturated ci8/ci4) or fused power";
  }
  std::unique_ptr<FamilySpec> parse(const Json& root, const std::string& file) const override {
    return makeBeamformerSpec(parseBeamformerSpec(root, file));
  }
};

}  // namespace

const Family& beamformerFamily() {
  static const BeamformerFamily f;
  return f;
}

std::unique_ptr<FamilySpec> makeBeamformerSpec(BeamformerSpec spec) {
  return std::make_unique<BeamformerFamilySpec>(std::move(spec));
}

}  // namespace warpforge
