// warpforge device helpers: warp-cooperative copies between global memory and
// a warp's shared-memory staging slice, 16 bytes per lane per step, so every
// warp-wide access is one contiguous 512-byte run.
#pragma once
#include "warpforge_complex.cuh"

// Global -> shared. kStreaming: the input is read once, so it should not
// displace anything in L1/L2 (ld.global.cs).
template <int kWords, bool kStreaming>
__device__ __forceinline__ void wf_warp_load16(wf_u32* __restrict__ stage, const wf_u32* __restrict__ src, int lane) {
  static_assert(kWords % 128 == 0, "staged copies move whole 512-byte warp rows");
#pragma unroll
  for (int i = 0; i < kWords / 4; i += 32) {
    const uint4* p = reinterpret_cast<const uint4*>(src) + i + lane;
    reinterpret_cast<uint4*>(stage)[i + lane] = kStreaming ? __ldcs(p) : *p;
  }
}

// Shared -> global. kStreaming: the output is written once (st.global.cs).
template <int kWords, bool kStreaming>
__device__ __forceinline__ void wf_warp_store16(wf_u32* __restrict__ dst, const wf_u32* __restrict__ stage, int lane) {
  static_assert(kWords % 128 == 0, "staged copies move whole 512-byte warp rows");
#pragma unroll
  for (int i = 0; i < kWords / 4; i += 32) {
    uint4 v = reinterpret_cast<const uint4*>(stage)[i + lane];
    uint4* p = reinterpret_cast<uint4*>(dst) + i + lane;
    if (kStreaming) __stcs(p, v);
    else *p = v;
  }
}
