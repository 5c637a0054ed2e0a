#pragma once
// The gridder family's kernels, each built as an AST and printed (one source each):
//   <name>_gridder    one block per subgrid slot, S^2 / pixels_per_thread threads (the seed's v4):
//                     time steps' uvw (as phases relative to the subgrid) and their visibilities
//                     (weighted; flagged ones zero) staged in shared memory, every thread
//                     accumulating pixels_per_thread pixels x P correlations in registers with one
//                     FMA and one sincos per visibility and pixel (SFU __sincosf where the spec
//                     says sfu); then A1^H P A2, the taper and the fftshift store.
//   <name>_degridder  one block per subgrid slot: corrected pixels (unshift, taper, A1 P A2^H)
//                     staged in shared memory, each thread accumulating visibilities_per_thread
//                     channels of one time step; weights 0 / non-finite uvw give 0; / S^2.
//   <name>_adder      tiles: one block per S x S grid tile and w-plane summing the subgrids the
//                     planner listed for it (atomic-free, every grid value written once);
//                     atomic: one block per subgrid, atomicAdd onto a grid zeroed by <name>_zero_grid.
//   <name>_splitter   one block per subgrid: the grid's S x S values into the subgrid (fftshifted).
//   <name>_zero_*     grid-stride zero fill (the atomic adder's grid; the degridder's visibilities,
//                     so that those no subgrid holds read 0).
#include <string>

#include "generator/gridder/GridderSpec.h"

namespace warpforge {

struct GridderKernel {
  std::string name, source;
  int threads = 256;
  int sharedBytes = 0;  // static
};

GridderKernel emitGridderKernel(const GridderSpec& s);
GridderKernel emitDegridderKernel(const GridderSpec& s);
GridderKernel emitTileAdder(const GridderSpec& s);
GridderKernel emitAtomicAdder(const GridderSpec& s);
GridderKernel emitSplitter(const GridderSpec& s);
GridderKernel emitZeroFill(const GridderSpec& s,
                           const std::string& what);  // <name>_zero_<what>: float2* out, long long n

// Threads of the tile adder and the splitter: whole warps dividing S^2, at most 256.
int gridderAdderThreads(const GridderSpec& s);

}  // namespace warpforge
