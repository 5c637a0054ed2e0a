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

// f32 accumulators: D(16x8) = A * B with f16 A and B, f32 D from a zero accumulator; d0, d1 are row g, columns 2t and
// 2t + 1, d2, d3 row g + 8 (lane = 4g + t): the halves of the f16 variant's d0 and d1, unrounded.
__device__ __forceinline__ void wf_mma_m16n8k8_f32(float& d0, float& d1, float& d2, float& d3, wf_u32 a0, wf_u32 a1,
                                                   wf_u32 b0) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};"
      : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
      : "r"(a0), "r"(a1), "r"(b0), "f"(0.0f), "f"(0.0f), "f"(0.0f), "f"(0.0f));
}

__device__ __forceinline__ void wf_mma_m16n8k16_f32(float& d0, float& d1, float& d2, float& d3, wf_u32 a0, wf_u32 a1,
                                                    wf_u32 a2, wf_u32 a3, wf_u32 b0, wf_u32 b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%10, %11, %12, %13};"
      : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(0.0f), "f"(0.0f), "f"(0.0f), "f"(0.0f));
}
