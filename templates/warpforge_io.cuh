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

// Global -> shared without passing through registers (cp.async, sm_80+):
// the copy of the next FFT's input overlaps the current FFT's arithmetic.
template <int kWords>
__device__ __forceinline__ void wf_warp_load16_async(wf_u32* stage, const wf_u32* __restrict__ src, int lane) {
  static_assert(kWords % 128 == 0, "staged copies move whole 512-byte warp rows");
#pragma unroll
  for (int i = 0; i < kWords / 4; i += 32) {
    unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(stage + 4 * (i + lane)));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src + 4 * (i + lane)) : "memory");
  }
}
__device__ __forceinline__ void wf_cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
// Waits until at most kPending of this thread's committed groups are in flight.
template <int kPending>
__device__ __forceinline__ void wf_cp_async_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(kPending) : "memory"); }
