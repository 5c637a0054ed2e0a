#pragma once
// The optional facets of a family: what `bench`, `bench --tune`, `bench --sweep` and `emulate` need from a family
// beyond the user API of warpforge/family.h. A family's spec implements the facets it has by also deriving from
// BenchFacet, TuneFacet or EmulateFacet, its Family from SweepFacet; bench/ and the CLI find them with dynamic_cast
// (bench/Facets.h). bench/ owns their use; they are declared here, below the families, because a family implements
// them and generator/<family>/ uses only the layers below it. Not installed: a user never sees them.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "warpforge/family.h"

namespace warpforge {

// ---- The library a user would otherwise call for the same transform (bench/Baseline.cpp runs it).

// cuFFT (cufftXtMakePlanMany, so that f16/f32/f64 share one path): `lengths` logical, outermost first.
struct FftBaseline {
  enum class Transform { C2C, R2C, C2R };
  enum class Precision { F16, F32, F64 };
  std::vector<long long> lengths;
  Transform transform = Transform::C2C;
  Precision precision = Precision::F32;
  int sign = -1;
  // Where the family's own arrays fit cuFFT's advanced layout (element (b, x0..x_{d-1}) at offset + b * distance +
  // ((x0 * embed[1] + x1) * embed[2] + ...) * stride), the baseline runs on them as they are, like for like:
  // denseInput then returns the family's input array and error reads the family's output array. Unset: dense arrays.
  struct Layout {
    std::vector<long long> embed;
    long long stride = 1, distance = 0, offset = 0;
    long long span = 0;  // elements one batch entry spans (last address + 1 - offset)
  };
  std::optional<Layout> inLayout, outLayout;
  bool inPlace = false;  // with layouts: one array, transformed in place
};

// The element type of a cuBLAS baseline's dense input.
enum class BaselineInput { CI8, CF16 };

// cuBLAS batched C[b] = S[b] S[b]^H for S n x k complex, `batches` per batch entry, the input dense [b][n][k] with k
// fastest.
struct HerkBaseline {
  long long batches = 0, n = 0, k = 0;
  BaselineInput input = BaselineInput::CI8;
};

// Complex GEMMs C[g] = A[g]^T B[g], `gemms` per batch entry; C[g] is M x N column-major in complex f32.
struct GemmBaseline {
  enum class Library {
    Cgemm,       // cublasCgemmStridedBatched on complex f32 copies (either input)
    CgemmI8,     // cublasGemmStridedBatchedEx CUDA_C_8I -> CUDA_C_32F (ci8 only)
    CgemmLtF16,  // cuBLASLt planar complex f16, f32 compute (cf16 only)
  };
  Library library = Library::Cgemm;
  long long gemms = 0, m = 0, n = 0, k = 0;
  BaselineInput input = BaselineInput::CI8;
};

// The real-input channeliser a cuFFT user writes (bench/FirR2cBaseline.cpp): a FIR kernel (spectrum s of stream q:
// y[i] = sum_j weights[j L + i] x_q[(s + j) L + i]), cufftExecR2C of L points, a kernel multiplying channel k < L / 2
// by gain e^{i (phi - pi d k / (L / 2))} and storing it as cf32 or ci8 (round half to even, saturate to +-127) at
// element q / pols * receiverStride + q % pols * polStride + k * channelStride + (s / timeBlock) * blockStride +
// (s % timeBlock) * timeStride of the batch entry. denseInput returns the samples as the family's input holds them
// (streams of streamBytes, one after another).
struct FirR2cBaseline {
  long long streams = 0, spectra = 0, length = 0, taps = 0;  // length: L, the FFT's points
  int sampleBits = 8;
  bool packed = false;  // big-endian bit-packed two's complement; else int8 or little-endian int16
  long long streamBytes = 0;
  std::vector<float> weights;  // taps x L, tap-major
  std::string gains,
      delays;      // TestData arrays: float2 [stream][channel], float2 (d, phi) [batch][stream][spectrum]; "": none
  float gain = 1;  // where there is no gains array
  bool ci8 = true;
  int pols = 1, timeBlock = 1;
  long long receiverStride = 0, polStride = 0, channelStride = 0, blockStride = 0, timeStride = 0, outputPerBatch = 0;
};

struct BaselineRequest {
  std::variant<FftBaseline, HerkBaseline, GemmBaseline, FirR2cBaseline> library;
  std::string description;  // what the baseline's time covers
  // Dense input bytes (the baseline's own layout) for `data`, and the baseline's error
  // against the family's reference given its dense output bytes (-1 where not comparable).
  std::function<std::vector<unsigned char>(const TestData& data, long long batch)> denseInput;
  std::function<double(const std::vector<unsigned char>& denseOutput, const TestData& data, long long batch)> error;
};

// ---- `bench --tune`: timing a family's candidates on the device (bench/ provides the timer).

class TuneTimer {
 public:
  virtual ~TuneTimer() = default;
  // Median milliseconds of each plan on the same buffers; a negative value and a message where one failed.
  virtual std::vector<double> time(const std::vector<Generated>& candidates, std::vector<std::string>* errors) = 0;
  virtual std::string arch() = 0;
  virtual CompileProbe* probe() = 0;
};

struct TuneTrialReport {
  std::string stage, geometry, error;
  double ms = -1;
};
struct TuneOutcome {
  std::vector<TuneTrialReport> trials;
  std::size_t best = 0, baseline = 0;
  Json specMembers = Json::object();  // what to paste into the spec (members of its root object)
};

// A variant of a spec's kernels that `bench` times beside the default.
struct BenchVariant {
  std::string name;
  Generated generated;
  long long batch = 0;  // 0: the bench's batch
  long long repeats =
      0;  // > 0: the "repeats" parameter; the kernel repeats its work in registers (SM-cycles per unit are reported)
  bool partial = false;  // times part of the plan (one of its kernels): its outputs are not the spec's, never checked
};

// A spec a user might write, drawn at random for `bench --sweep`; `group` names the class it was drawn from.
struct SweepSpec {
  std::string group;
  Json spec;
};

// ---- The facets.

// `bench` and `run --baseline`: the baseline library, variants timed beside the default plan, notes on the times.
class BenchFacet {
 public:
  virtual ~BenchFacet() = default;
  virtual std::optional<BaselineRequest> baseline() const { return std::nullopt; }
  virtual std::vector<BenchVariant> benchVariants(const EmitTarget&) const { return {}; }
  // Extra lines for `bench`, given the variants' median times (e.g. cycles per unit against the model); NaN for a
  // variant `bench --variants` left out.
  virtual std::string benchNotes(const std::vector<double>& /*variantMs*/, double /*clockKHz*/, int /*sms*/) const {
    return {};
  }
  // The same with the batch each variant ran at (bench picks one full wave for register-resident repeats).
  virtual std::string benchNotes(const std::vector<double>& variantMs, const std::vector<long long>& /*variantBatch*/,
                                 double clockKHz, int sms) const {
    return benchNotes(variantMs, clockKHz, sms);
  }
};

// `bench --tune`: search the family's tuning space on the device; nullopt where this spec has none.
class TuneFacet {
 public:
  virtual ~TuneFacet() = default;
  virtual std::optional<TuneOutcome> tune(TuneTimer& timer, long long batch,
                                          const std::function<void(const TuneTrialReport&)>& onTrial) const = 0;
};

// `emulate`: the verified steps run on an emulated warp against a reference.
class EmulateFacet {
 public:
  virtual ~EmulateFacet() = default;
  virtual std::string emulate(const std::string& mode, std::uint64_t seed, int count) const = 0;
};

// `bench --sweep`, on the Family: `count` specs a user might write, drawn from the family's classes of sizes and
// layouts (the same seed, the same specs). Specs the family cannot build yet are kept: their parse throws the
// SpecError that the sweep reports as unsupported. The sweep calls emit() on several threads at once.
class SweepFacet {
 public:
  virtual ~SweepFacet() = default;
  virtual std::vector<SweepSpec> sweepSpecs(std::uint64_t seed, int count) const = 0;
};

}  // namespace warpforge
