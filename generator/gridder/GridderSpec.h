#pragma once
// The `gridder` family's spec: Image-Domain Gridding (van der Tol et al. 2018; Veenboer et al. 2017).
// Per subgrid (one baseline, a run of time steps, a range of channels, a position (x0, y0) on the
// grid and a w-plane z), per pixel (x, y) of the S x S subgrid:
//   l = (x - S/2) L/S, m = (y - S/2) L/S,  l' = l + shift_l, m' = m + shift_m,
//   n = (l'^2 + m'^2) / (1 + sqrt(1 - l'^2 - m'^2))
//   phase = (u0 l + v0 m + w0 n) - k_c (u_t l' + v_t m' + w_t n)
//   pixel[p] += weight V[t][c][p] (cos phase, sin phase)
// then A1^H P A2 (per station pair and A-term interval), the taper, the fftshift store, the
// subgrid FFT (inverse, unscaled) and the adder onto grid[z][p][G][G]. The degridder is the
// adjoint chain: splitter, forward FFT, A1 P A2^H, taper, V = sum over pixels of pixel
// (cos, sin)(-phase) / S^2. See README.md.
#include <algorithm>
#include <string>
#include <vector>

#include "warpforge/json.h"

namespace warpforge {

enum class GridDirection { Grid, Degrid };
enum class GridPhasor { Sincos, Sfu };   // sincosf (full range reduction) or __sincosf (SFU, MUFU.SIN/COS)
enum class GridAdder { Tiles, Atomic };  // atomic-free grid tiles, or per-subgrid atomicAdd onto a zeroed grid
// How the gridder and degridder sum phasor x data: 16 FMAs per visibility and pixel (4 correlations) on the
// CUDA cores, or as a real matrix product on the tensor cores (mma.sync m16n8k8 tf32): three tf32 products
// per term (hi x hi + hi x lo + lo x hi: about f32 accuracy), or one (operands rounded to tf32, 2^-11 each: up to 2^-10
// per term).
enum class GridEngine { Fma, MmaTf32x3, MmaTf32 };

struct GridderTuning {
  int pixelsPerThread = 4;        // gridder: subgrid pixels each thread accumulates (the seed's v4 unroll)
  int stageVisibilities = 128;    // gridder: visibilities staged in shared memory per stage (whole time steps)
  int visibilitiesPerThread = 4;  // degridder: channels of one time step each thread accumulates
  int stagePixels = 256;          // degridder: corrected subgrid pixels staged in shared memory per stage
  int degridThreads = 256;        // degridder: block size
  int mmaTilesPerWarp = 4;     // tensor-core gridder: at most this many tiles of 16 pixels per warp (1..4; each holds 4
                               // accumulators and 4 phase terms in registers)
  int mmaVisibilityTiles = 8;  // tensor-core degridder: tiles of 8 visibilities per warp (1..8; each holds 8
                               // accumulators and its 8 visibilities' phase coefficients in registers)
  int residentThreads =
      512;  // gridder and degridder: threads per SM asked of ptxas (__launch_bounds__ min blocks); 512 -> 128 registers
};

// A gridder's name leaves room for its subgrid FFT's: <name>_sgfft within the 64 characters of a spec name.
inline constexpr std::size_t kGridderMaxNameLength = 58;

struct GridderSpec {
  std::string file, name;
  std::vector<std::string>
      warnings;  // tuning the kernels will not honour as given (verify reports them; --strict: errors)
  GridDirection direction = GridDirection::Grid;
  int subgridSize = 32;     // S
  int correlations = 4;     // 1 (scalar), 2 (XX, YY: diagonal Jones), 4 (XX, XY, YX, YY: full 2x2)
  int gridSize = 1024;      // G
  double imageSize = 0.05;  // L (radians); cell size L / G
  double wStep = 0;         // wavelengths per w-plane (0: one plane, w0 = 0)
  int wPlanes = 1;
  double shiftL = 0, shiftM = 0;  // phase-centre shift
  int kernelSupport = 8;          // uv pixels the planner keeps free around a subgrid's visibilities
  // The observation's shape (one batch entry): cross-correlation baselines of `stations`.
  int stations = 8;
  long long timeSteps = 128;
  int channels = 16;
  // Planning: at most this many time steps and channels per subgrid; slots for subgrids.
  int timeStepsPerSubgrid = 128;
  int channelsPerSubgrid = 16;
  long long maxSubgrids = 0;
  bool aterms = false;
  long long atermInterval = 0;  // time steps per A-term interval
  bool taper = true;
  GridPhasor phasor = GridPhasor::Sincos;
  GridAdder adder = GridAdder::Tiles;
  GridEngine engine = GridEngine::Fma;
  GridderTuning tuning;

  bool grid() const { return direction == GridDirection::Grid; }
  long long baselines() const { return static_cast<long long>(stations) * (stations - 1) / 2; }
  int channelGroups() const { return (channels + channelsPerSubgrid - 1) / channelsPerSubgrid; }
  long long atermIntervals() const { return aterms ? (timeSteps + atermInterval - 1) / atermInterval : 1; }
  // Subgrids of an observation whose every run fits: per baseline, channel group and A-term interval,
  // ceil(steps / time_steps_per_subgrid).
  long long minSubgrids() const;
  int stageTimeSteps() const { return std::max(1, tuning.stageVisibilities / channelsPerSubgrid); }
  int gridThreads() const { return subgridSize * subgridSize / tuning.pixelsPerThread; }
  int tilesPerSide() const { return (gridSize + subgridSize - 1) / subgridSize; }
  long long visibilities() const { return baselines() * timeSteps * channels; }  // per batch entry
  long long gridElems() const { return static_cast<long long>(wPlanes) * correlations * gridSize * gridSize; }
  long long subgridElems() const { return maxSubgrids * correlations * subgridSize * subgridSize; }
  double wOffset(int z) const;  // w0 / (2 pi) of plane z, wavelengths

  // The tensor-core gridder (engine tf32x3 / tf32): the subgrid's S^2 / 16 tiles of 16 pixels go to
  // `warps` warps (at most 8) x `tilesPerWarp` tiles (at most tuning mma_tiles_per_warp: the accumulators
  // and phases stay in registers) per pass, in `parts` passes over the visibilities.
  struct MmaShape {
    int parts, warps, tilesPerWarp;
  };
  MmaShape mmaShape() const;
  int mmaChannels() const { return (channelsPerSubgrid + 3) / 4 * 4; }  // whole k-steps of 4 visibilities
  int mmaStageSteps() const { return std::max(1, tuning.stageVisibilities / mmaChannels()); }
  // Its shared memory: pixel l, m, n (float4 per pixel of a pass) and the staged B operand (8 float4
  // columns per staged visibility) during the sums; the pass's accumulated pixels (P float2 each) after
  // them, in the same bytes (`spool`); plus the channels' dk and the staged time steps' phases.
  int mmaPoolFloat4s() const;
  // (`smain`: each thread's f32 sums, 16 B per thread and tile).
  int mmaSharedBytes() const;
  // The tensor-core degridder: degridder_threads / 32 warps x mma_visibility_tiles tiles of 8 visibilities
  // per pass; stage_pixels corrected pixels staged per round as A operands (2P rows of 16 B per pixel)
  // with their l, m, n (16 B), plus the channels' dk.
  int mmaDegridSharedBytes() const { return channelsPerSubgrid * 4 + tuning.stagePixels * (16 + 32 * correlations); }
};

const char* gridPhasorName(GridPhasor p);
const char* gridEngineName(GridEngine e);

// Errors are SpecErrors naming `file` and the JSON path.
GridderSpec parseGridderSpec(const Json& root, const std::string& file);
GridderSpec parseGridderSpecText(const std::string& text, const std::string& file);

}  // namespace warpforge
