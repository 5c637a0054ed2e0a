// warpforge device helpers: warp-cooperative copies between global memory and
// a warp's shared-memory staging slice, 16 bytes per lane per step, so every
// warp-wide access is one contiguous 512-byte run.
#pragma once
#include "warpforge_complex.cuh"

template <int kWords>
__device__ __forceinline__ void wf_warp_copy16(wf_u32* __restrict__ dst, const wf_u32* __restrict__ src, int lane) {
  static_assert(kWords % 128 == 0, "staged copies move whole 512-byte warp rows");
#pragma unroll
  for (int i = 0; i < kWords / 4; i += 32)
    reinterpret_cast<uint4*>(dst)[i + lane] = reinterpret_cast<const uint4*>(src)[i + lane];
}
