// warpforge device helpers: warp-level tensor-core MMAs as inline PTX.
// Fragment register order follows the PTX ISA (see generator/layout/FragmentTable.cpp).
#pragma once
#include "warpforge_complex.cuh"

// D(16x8) = A(16x8) * B(8x8), f16 in and out; zero accumulator.
__device__ __forceinline__ void wf_mma_m16n8k8_f16(wf_u32& d0, wf_u32& d1, wf_u32 a0, wf_u32 a1, wf_u32 b0) {
  asm("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3}, {%4}, {%5, %6};"
      : "=r"(d0), "=r"(d1)
      : "r"(a0), "r"(a1), "r"(b0), "r"(0u), "r"(0u));
}

// D(16x8) = A(16x16) * B(16x8), f16 in and out; zero accumulator.
__device__ __forceinline__ void wf_mma_m16n8k16_f16(wf_u32& d0, wf_u32& d1, wf_u32 a0, wf_u32 a1, wf_u32 a2, wf_u32 a3,
                                                    wf_u32 b0, wf_u32 b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%8, %9};"
      : "=r"(d0), "=r"(d1)
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(0u), "r"(0u));
}
