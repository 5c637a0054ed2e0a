#pragma once
// The correlator's device helpers, as AST functions printed into each kernel
// source (NVRTC needs no header): sample clamping (-128 -> -127, -8 -> -7),
// 4-bit -> 8-bit widening, the conj_perm expansion of B, and the two MMAs.
#include <string>

#include "generator/correlator/CorrelatorSpec.h"

namespace warpforge {
// wgmmaN: also the sm_90a wgmma helpers for m64 x wgmmaN instructions (0: none).
std::string correlatorDeviceHelpers(SampleType type, int wgmmaN = 0, bool clamp = true);
// The pipeline's helpers (sm_90a): clamp / widen / conj_perm, the wgmma helper of the pipeline's atom (m64 x 2 rows)
// with the descriptors of pipeDescriptors (64-byte swizzle, SBO 512 and, for the diagonal tile's A, 1024), its fences,
// and templates/warpforge_async.cuh (mbarriers, bulk copies, setmaxnreg).
struct CorrPipe;
std::string correlatorPipelineHelpers(const CorrPipe& p);
// The pipeline with the operands as stored (transform "none", PipelineDirect.h): templates/warpforge_async.cuh, 16-byte
// cp.async by window address, ldmatrix, the (re, im) -> (im, -re) row of A in registers, B's descriptor and the
// wgmma helpers with A from registers (m64 x rows and, on 128-input tiles, the diagonal's m64 x rows / 2).
struct DirectPipe;
std::string correlatorDirectHelpers(const DirectPipe& p);
}  // namespace warpforge
