#include "generator/beamformer/BeamformerFamily.h"

#include <cstring>

#include <fmt/format.h>

#include "generator/beamformer/BeamformerData.h"
#include "generator/beamformer/BeamformerLayouts.h"
#include "generator/emulate/Half.h"

namespace warpforge {

namespace {

constexpr int kMaxStaticShared = 48 * 1024;

// 8 M N K operations per complex GEMM (the issue's count), per batch entry.
double gemmOps(const BeamformerSpec& s) {
  return 8.0 * static_cast<double>(s.beams) * static_cast<double>(s.samples) * static_cast<double>(s.receivers) * s.channels * s.polarizations;
}

int arrayElemBytes(const BfOperand& o) { return o.planar ? (o.type == BfType::CF16 ? 2 : 1) : bfComplexBytes(o.type); }

}  // namespace

LaunchPlan beamformerLaunchPlan(const BeamformerSpec& s, const BeamformerKernel& k) {
  LaunchPlan p;
  p.specName = s.name;
  p.family = "beamformer";
  p.unitName = "batch";
  p.minArch = 80;
  p.sources.push_back({k.name + ".cu", k.source});
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
      b.note = fmt::format("{} {} ({}{}), element (b, c, p, {}, k) at b*{} + c*{} + p*{} + {}*{} + k*{} ({} B each)", side == 0 ? "samples" : "weights",
                           bfTypeName(o.type), o.planar ? "planar, " : "interleaved", o.planar ? (i == 0 ? "real parts" : "imaginary parts") : "",
                           side == 0 ? "t" : "m", o.batch, o.channel, o.polarization, side == 0 ? "t" : "m", o.outer, o.receiver, eb);
      p.buffers.push_back(b);
    }
    const std::string pa = side == 0 ? "s_a" : "w_a", pb = side == 0 ? "s_b" : "w_b";
    args.push_back(PlanArg::buffer(names[0], "const unsigned char*", pa));
    args.push_back(names.size() > 1 ? PlanArg::buffer(names[1], "const unsigned char*", pb) : PlanArg::null("const unsigned char*", pb));
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
    o.note = fmt::format("[batch][channel][window][beam] f32: |beam|^2 summed over {} pols and {} samples", s.polarizations, s.integrate);
  } else {
    o.name = "beams";
    o.perBatchElems = s.outElems() * bfOutBytes(s.outType);
    o.note = fmt::format("[batch][channel][pol][time][beam] {} (re, im){}", bfOutTypeName(s.outType),
                         s.outType == BfOutType::CI4 ? (s.outCi4RealHigh ? ", real in the high nibble" : ", real in the low nibble") : "");
  }
  p.buffers.push_back(o);
  args.push_back(PlanArg::buffer(o.name, "unsigned char*", "out"));
  args.push_back(PlanArg::batchTimes(1, "batch"));
  PlanKernel kr;
  kr.name = k.name;
  kr.source = 0;
  kr.blockX = k.tiling.threads;
  kr.sharedBytes = 0;  // static
  kr.grid = GridRule{k.tiling.blocksPerBatch, 1, false};
  kr.args = args;
  kr.note = fmt::format("one block per (batch entry, channel, {}{} samples, {} beams); {} B static shared memory", s.power ? "" : "pol, ", k.tiling.range,
                        k.tiling.beams, k.sharedBytes);
  p.kernels.push_back(kr);
  p.check();
  return p;
}

namespace {

class BeamformerFamilySpec final : public FamilySpec {
 public:
  explicit BeamformerFamilySpec(BeamformerSpec s) : s_(std::move(s)) {}
  const Family& family() const override { return beamformerFamily(); }
  const std::string& name() const override { return s_.name; }
  const std::string& file() const override { return s_.file; }

  VerifyReport verify() const override {
    BfConsistency c = bfConsistency(s_);
    const BeamformerKernel k = emitBeamformer(s_);
    if (k.sharedBytes > kMaxStaticShared) c.issues.push_back({"/tuning", fmt::format("{} B of shared memory (> {} B)", k.sharedBytes, kMaxStaticShared)});
    if (!c.issues.empty()) {
      std::vector<InconsistentSpec::Issue> issues;
      std::string text;
      for (const auto& i : c.issues) {
        issues.push_back({i.path, i.message});
        text += fmt::format("{}: {}: {}\n", s_.file, i.path, i.message);
      }
      throw InconsistentSpec(text, issues);
    }
    const BfMma m = bfMma(s_.in.type);
    const std::string ins = s_.in.type == BfType::CF16 ? "mma.sync m16n8k16 f16 -> f32" : "mma.sync m16n8k32 s8 -> s32";
    const BfTiling& t = k.tiling;
    const long long kSteps = (s_.receivers + t.receiversPerStage(m) - 1) / t.receiversPerStage(m) * (t.wordsPerStage / 8);
    const long long mmas = t.blocksPerBatch * t.tilesPerRange * (s_.power ? s_.polarizations : 1) * (t.threads / 32) * (t.warpTimes / 8) *
                           (t.warpBeams / 8) * kSteps;
    const double done = static_cast<double>(mmas) * 2.0 * 16 * 8 * (s_.in.type == BfType::CF16 ? 16 : 32);
    VerifyReport r;
    r.text = fmt::format("{}: {} (beamformer {} receivers x {} beams, {} samples per call, {} channels x {} pols, {} x {} -> {}): OK\n", s_.file, s_.name,
                         s_.receivers, s_.beams, s_.samples, s_.channels, s_.polarizations, bfTypeName(s_.in.type), bfTypeName(s_.w.type),
                         s_.power ? fmt::format("power / {} samples", s_.integrate) : bfOutTypeName(s_.outType));
    for (const auto& line : c.proved) r.text += "  proved: " + line + "\n";
    r.text += fmt::format("  {} blocks per batch entry, {} B shared; {} MMAs ({}), tensor-core work {:.2f}x the 8 M N K count\n", t.blocksPerBatch,
                          k.sharedBytes, mmas, ins, done / gemmOps(s_));
    if (s_.integer())
      r.text += fmt::format("  exactness: int32 sums exact for K <= {} (this spec {}); ci8 samples' -128 reads as -127, weights' -128 and ci4 -8 exact\n",
                            2147483647LL / (2 * s_.maxSample() * s_.maxWeight()), s_.receivers);
    r.counts["mma"] = mmas;
    r.counts["blocks_per_batch"] = t.blocksPerBatch;
    r.counts["shared_bytes"] = k.sharedBytes;
    r.counts["gemm_ops_per_batch"] = gemmOps(s_);
    r.counts["stores_checked"] = c.storesChecked;
    return r;
  }

  std::string explain(const EmitTarget& target) const override {
    const BeamformerKernel k = emitBeamformer(s_);
    const BfMma m = bfMma(s_.in.type);
    std::string o = fmt::format("{}: one kernel (same for every arch >= sm_80; target {})\n", s_.name, target.arch);
    o += fmt::format("{}: block {} threads, tile {} samples x {} beams, {} blocks per batch entry, {} B shared, {} receivers per stage\n", k.name,
                     k.tiling.threads, k.tiling.times, k.tiling.beams, k.tiling.blocksPerBatch, k.sharedBytes, k.tiling.receiversPerStage(m));
    o += fmt::format("  loads: samples {}, weights {}\n", k.vectorSamples ? "two receivers per load" : "one receiver per load",
                     k.vectorWeights ? "two receivers per load" : "one receiver per load");
    o += fmt::format("  A: {}\n  B: {}\n  C: {}\n", m.a.str(), m.b.str(), m.c.str());
    return o;
  }

  Generated emit(const EmitTarget&) const override {
    verify();
    return Generated{beamformerLaunchPlan(s_, emitBeamformer(s_))};
  }

  long long defaultBatch() const override { return 1; }
  TestData randomInputs(long long batch, std::uint64_t seed) const override { return beamformerInputs(s_, batch, seed); }
  Check check(const TestData& data, const std::map<std::string, std::vector<unsigned char>>& outputs, long long batch) const override {
    return beamformerCheck(s_, data, outputs, batch);
  }

  // Proposed kinds for bench/ (not implemented there yet):
  //   "cgemm"       cublasCgemm (complex f32) on cf32 copies of the data
  //   "cgemm_lt_f16" cuBLASLt planar complex f16 (CUDA_C_16F, CUBLASLT_ORDER_COL planar, f32 compute)
  //   "cgemm_i8"    cublasGemmEx CUDA_C_8I x CUDA_C_8I -> CUDA_C_32F, CUBLAS_COMPUTE_32F
  // lengths = {batch of GEMMs (channels x pols), M beams, N samples, K receivers}; C[m][n] = sum_k W[m][k] S[k][n]
  // with W m x k and S k x n column-major (W = weights [beam][receiver] row-major = k-fastest; S = samples [time][receiver]).
  std::optional<BaselineRequest> baseline() const override {
    BaselineRequest r;
    r.kind = s_.in.type == BfType::CF16 ? "cgemm_lt_f16" : "cgemm_i8";
    r.lengths = {static_cast<long long>(s_.channels) * s_.polarizations, s_.beams, s_.samples, s_.receivers};
    r.precision = s_.in.type == BfType::CF16 ? "cf16" : "ci8";
    r.description = fmt::format("cuBLAS{} complex GEMM M = {} beams, N = {} samples, K = {} receivers, {} GEMMs per batch entry -> complex f32",
                                s_.in.type == BfType::CF16 ? "Lt planar f16" : " GemmEx int8", s_.beams, s_.samples, s_.receivers,
                                s_.channels * s_.polarizations);
    const BeamformerSpec s = s_;
    // Dense inputs: per GEMM g = c P + p, weights [g][m][k] then samples [g][t][k], interleaved ci8 (ci4 widened, clamped as ours) or
    // planar f16 (all real parts of the GEMM's matrix, then all imaginary parts).
    r.denseInput = [s](const TestData& data, long long batch) {
      std::vector<unsigned char> out;
      for (long long b = 0; b < batch; ++b)
        for (long long c = 0; c < s.channels; ++c)
          for (long long p = 0; p < s.polarizations; ++p)
            for (int side = 1; side >= 0; --side) {
              const long long rows = side ? s.beams : s.samples;
              std::vector<BfValue> v;
              for (long long i = 0; i < rows; ++i)
                for (long long k = 0; k < s.receivers; ++k) v.push_back(side ? bfWeight(s, data, b, c, p, i, k) : bfSample(s, data, b, c, p, i, k));
              if (s.integer()) {
                for (const auto& x : v) {
                  out.push_back(static_cast<unsigned char>(static_cast<signed char>(std::max(-128.0, x.re))));
                  out.push_back(static_cast<unsigned char>(static_cast<signed char>(std::max(-128.0, x.im))));
                }
              } else {
                for (int part = 0; part < 2; ++part)
                  for (const auto& x : v) {
                    const std::uint16_t h = floatToHalfBits(part ? x.im : x.re);
                    out.push_back(static_cast<unsigned char>(h & 0xff));
                    out.push_back(static_cast<unsigned char>(h >> 8));
                  }
              }
            }
      return out;
    };
    r.error = nullptr;
    return r;
  }

  std::string benchNotes(const std::vector<double>&, double, int) const override {
    return fmt::format("op count (8 M N K per complex GEMM): {:.4g} per batch entry\n", gemmOps(s_));
  }

 private:
  BeamformerSpec s_;
};

class BeamformerFamily final : public Family {
 public:
  std::string name() const override { return "beamformer"; }
  std::string summary() const override {
    return "tensor-core complex beamformer: ci4/ci8/cf16 samples x weights, complex beams (cf32, cf16, shifted and saturated ci8/ci4) or fused power";
  }
  std::unique_ptr<FamilySpec> parse(const Json& root, const std::string& file) const override { return makeBeamformerSpec(parseBeamformerSpec(root, file)); }
};

}  // namespace

const Family& beamformerFamily() {
  static const BeamformerFamily f;
  return f;
}

std::unique_ptr<FamilySpec> makeBeamformerSpec(BeamformerSpec spec) { return std::make_unique<BeamformerFamilySpec>(std::move(spec)); }

}  // namespace warpforge
