#pragma once
// The gridder's CPU reference in double: IDG's formula (docs/gridder.md) evaluated directly per subgrid
// (every visibility at every pixel), A-terms, taper, fftshift, a double FFT for the subgrid FFT and the
// adder; the degridder as its adjoint chain. Also a direct DFT image of the visibilities and
// the image of a grid at the pixels the subgrids sample, for the test that ties the two.
#include <complex>
#include <vector>

#include "generator/gridder/GridderData.h"
#include "generator/gridder/GridderPlanner.h"
#include "generator/gridder/GridderSpec.h"

namespace warpforge {

using cd = std::complex<double>;

// Magnitudes of the phases psi = (k u - u0) l + (k v - v0) m + (k w - w0) n the kernels evaluate in f32
// (their size sets the phasors' error; the shift's k (u shift_l + v shift_m) rotates each visibility in double).
struct GridPhaseStats {
  double sumSq = 0, maxAbs = 0;
  long long count = 0;
  void add(double psi) {
    sumSq += psi * psi, ++count;
    maxAbs = std::max(maxAbs, std::abs(psi));
  }
  double rms() const { return count ? std::sqrt(sumSq / static_cast<double>(count)) : 0.0; }
};

// Pixel geometry: l, m (unshifted, the subgrid's offsets multiply these) and l', m', n.
struct GridPixel {
  double l, m, ls, ms, n;
};
GridPixel gridPixelLmn(const GridderSpec& s, int x, int y);

// Gridding: the corrected image of subgrid g, [p][y][x] (unshifted): A1^H P A2, taper.
std::vector<cd> referenceSubgridImage(const GridderSpec& s, const GridView& v, const Subgrid& g,
                                      GridPhaseStats* stats = nullptr);
// Its uv values as the kernels store them: fftshift, inverse FFT (unscaled), [p][qy][qx].
std::vector<cd> referenceSubgridUv(const GridderSpec& s, const GridView& v, const Subgrid& g,
                                   GridPhaseStats* stats = nullptr);
// Grid pixel (x0 + ox, y0 + oy) receives uv value [(oy + S/2) % S][(ox + S/2) % S].
inline int gridUvIndex(int offset, int S) { return (offset + S / 2) % S; }
// The grid [plane][p][G][G] of one batch entry: every planned subgrid added.
std::vector<cd> referenceGrid(const GridderSpec& s, const GridView& v, const GridPlan& plan,
                              GridPhaseStats* stats = nullptr);

// Degridding: visibilities [t][c][p] (t < timeCount, c < channelCount) of subgrid g from v.grid:
// splitter, forward FFT (unscaled), unshift, taper, A1 P A2^H, sum of pixel e^{+i psi} / S^2;
// flagged visibilities (zero weight, non-finite uvw) are 0.
std::vector<cd> referenceDegridSubgrid(const GridderSpec& s, const GridView& v, const Subgrid& g,
                                       GridPhaseStats* stats = nullptr);
// All visibilities [bl][t][c][p] of one batch entry (0 where no subgrid holds them).
std::vector<cd> referenceDegrid(const GridderSpec& s, const GridView& v, const GridPlan& plan,
                                GridPhaseStats* stats = nullptr);

// The direct DFT image of the planned (gridded) visibilities at l = jx L/S (+ shift), m = jy L/S:
//   sum over visibilities of A1^H (weight V e^{-i k (u l' + v m' + w n)}) A2 at subgrid pixel (jx + S/2, jy + S/2)
// and the same read off a grid: sum over planes of e^{-i 2 pi w0 n} DFT(grid)(jx, jy) / (S^2 taper).
// Both [p] for -S/2 <= jx, jy < S/2.
std::vector<cd> directImage(const GridderSpec& s, const GridView& v, const GridPlan& plan, int jx, int jy);
std::vector<cd> gridImage(const GridderSpec& s, const GridView& v, const std::vector<cd>& grid, int jx, int jy);

}  // namespace warpforge
