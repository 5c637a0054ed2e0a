#pragma once
// The `beamformer` family's spec: for every batch entry b, channel c, polarization p,
//   beam[b][c][p][t][m] = sum over receivers k of  s[b][c][p][t][k] * w[b][c][p][m][k]      (complex)
// written as complex beams (cf32, cf16, or ci8 / ci4 with a per-beam shift, rounding and symmetric
// saturation, as CHORD's baseband beamformer), or as detected power
//   power[b][c][t / I][m] = sum over p and over the I samples of the window of |beam|^2   (f32).
// K receivers, M beams, N samples per call. See README.md.
#include <string>
#include <vector>

#include "warpforge/json.h"

namespace warpforge {

enum class BfType { CI4, CI8, CF16 };
const char* bfTypeName(BfType t);
inline int bfComplexBytes(BfType t) { return t == BfType::CI4 ? 1 : t == BfType::CI8 ? 2 : 4; }

enum class BfOutType { CF32, CF16, CI8, CI4 };
const char* bfOutTypeName(BfOutType t);
inline int bfOutBytes(BfOutType t) {
  return t == BfOutType::CF32 ? 8 : t == BfOutType::CF16 ? 4 : t == BfOutType::CI8 ? 2 : 1;
}

// One operand (samples or weights): its complex format and where element (b, c, p, i, k) lives,
// in elements (complex values for interleaved, real values of each of the two arrays for planar):
//   b * batch + c * channel + p * polarization + i * outer + k * receiver
// (outer = time for samples, beam for weights). A batch stride of 0 (weights only): one set for all entries.
struct BfOperand {
  BfType type = BfType::CI8;
  bool planar = false;
  bool ci4RealHigh = true;  // ci4: the real part in the high nibble
  long long batch = 0, channel = 0, polarization = 0, outer = 0, receiver = 1;
  long long span = 0;  // elements of one batch entry (highest offset + 1)
  std::string layout = "default";
};
// Bytes of one element of the operand's array: a component of a planar array, else a complex value.
inline int arrayElemBytes(const BfOperand& o) {
  return o.planar ? (o.type == BfType::CF16 ? 2 : 1) : bfComplexBytes(o.type);
}

// The block tile and its warps (0: chosen by the plan's cost model, see bfTiling()); stages: shared-memory
// buffers (2: the next stage's global loads are in flight while this stage's MMAs run; 1: load, then compute;
// 0: by measurement, bfDefaultStages());
// minBlocks: __launch_bounds__'s blocks per SM (0: 2, relaxed to 1 where ptxas would spill and a compiler is at hand).
struct BfTuning {
  int blockTimes = 0, blockBeams = 0, warpTimes = 0, warpBeams = 0;
  int stages = 0;
  int minBlocks = 0;
  bool wordLoads = false;  // "loads": "words": 32-bit global loads and shared stores only (A/B of the 16-byte chunks)
  int expand = 0;  // "expand": 1 "staged" (conj / swap of the samples once at staging), 2 "registers" (per MMA step), 0
                   // auto (staged where it fits)
  std::string mma =
      "auto";  // "mma": "auto" (wgmma on an sm_90 target where BeamformerWgmma.h allows it), "mma_sync", "wgmma"
};

struct BeamformerSpec {
  std::string file, name;
  long long receivers = 0, beams = 0, samples = 0;  // K, M, N
  int channels = 1, polarizations = 1;
  BfOperand in, w;     // samples, weights
  bool power = false;  // output: detected power instead of beams
  BfOutType outType = BfOutType::CF32;
  bool outCi4RealHigh = true;
  bool outPlanar = false;   // beams as two arrays beams_re, beams_im (cf32, cf16, ci8)
  long long integrate = 1;  // power: samples per integration window
  BfTuning tuning;
  std::string baseline;  // bench's library: "" (the type's default), cgemm, cgemm_i8, cgemm_lt_f16, none
  std::vector<std::string>
      warnings;  // tuning the kernel will not honour as given (verify reports them; --strict: errors)

  bool integer() const { return in.type != BfType::CF16; }
  bool intOut() const { return !power && (outType == BfOutType::CI8 || outType == BfOutType::CI4); }
  int outMax() const { return outType == BfOutType::CI4 ? 7 : 127; }
  // Largest |component| of a sample / weight as the kernel uses it (ci8 samples: -128 reads as -127).
  long long maxSample() const { return in.type == BfType::CI4 ? 8 : 127; }
  long long maxWeight() const { return w.type == BfType::CI4 ? 8 : 128; }
  long long windows() const { return samples / integrate; }
  // Elements of the output per batch entry.
  long long outElems() const {
    return power ? static_cast<long long>(channels) * windows() * beams
                 : static_cast<long long>(channels) * polarizations * samples * beams;
  }
};

// Errors are SpecErrors naming `file` and the JSON path.
BeamformerSpec parseBeamformerSpec(const Json& root, const std::string& file);
BeamformerSpec parseBeamformerSpecText(const std::string& text, const std::string& file);

}  // namespace warpforge
