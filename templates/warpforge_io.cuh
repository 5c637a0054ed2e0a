// warpforge device helpers: warp-cooperative copies between global memory and
// a warp's shared-memory staging slice, 16 bytes per lane per step, so every
// warp-wide access is one contiguous 512-byte run.
#pragma once
#include "warpforge_complex.cuh"

// A staging slice's chunk arrangement: 16-byte chunk c of a row is kept at chunk c ^ S(c), S moving chunk-index bit
// kFromI onto bit kToI (i = 0..2; -1: unused). The emitter picks S so that layout-ordered register accesses hit
// distinct banks; S reads only bits it does not write, so it is a bijection.
template <int kFrom0, int kTo0, int kFrom1, int kTo1, int kFrom2, int kTo2>
struct wf_swizzle {
  static __device__ __forceinline__ int chunk(int c) {
    return c ^ (kFrom0 < 0 ? 0 : ((c >> (kFrom0 < 0 ? 0 : kFrom0)) & 1) << (kTo0 < 0 ? 0 : kTo0)) ^
           (kFrom1 < 0 ? 0 : ((c >> (kFrom1 < 0 ? 0 : kFrom1)) & 1) << (kTo1 < 0 ? 0 : kTo1)) ^
           (kFrom2 < 0 ? 0 : ((c >> (kFrom2 < 0 ? 0 : kFrom2)) & 1) << (kTo2 < 0 ? 0 : kTo2));
  }
};

// Global -> shared, chunk c of the row into chunk Swizzle::chunk(c) of the slice. kStreaming: the input is read once,
// so it should not displace anything in L1/L2 (ld.global.cs).
template <int kWords, bool kStreaming, class Swizzle>
__device__ __forceinline__ void wf_warp_load16_swizzled(wf_u32* __restrict__ stage, const wf_u32* __restrict__ src,
                                                        int lane) {
  static_assert(kWords % 128 == 0, "staged copies move whole 512-byte warp rows");
#pragma unroll
  for (int i = 0; i < kWords / 4; i += 32) {
    const uint4* p = reinterpret_cast<const uint4*>(src) + i + lane;
    reinterpret_cast<uint4*>(stage)[Swizzle::chunk(i + lane)] = kStreaming ? __ldcs(p) : *p;
  }
}
// Shared -> global, the counterpart. kStreaming: the output is written once (st.global.cs).
template <int kWords, bool kStreaming, class Swizzle>
__device__ __forceinline__ void wf_warp_store16_swizzled(wf_u32* __restrict__ dst, const wf_u32* __restrict__ stage,
                                                         int lane) {
  static_assert(kWords % 128 == 0, "staged copies move whole 512-byte warp rows");
#pragma unroll
  for (int i = 0; i < kWords / 4; i += 32) {
    uint4 v = reinterpret_cast<const uint4*>(stage)[Swizzle::chunk(i + lane)];
    uint4* p = reinterpret_cast<uint4*>(dst) + i + lane;
    if (kStreaming) __stcs(p, v);
    else *p = v;
  }
}
// Global -> shared without passing through registers (cp.async, sm_80+): the copy of the next FFT's input overlaps
// the current FFT's arithmetic.
template <int kWords, class Swizzle>
__device__ __forceinline__ void wf_warp_load16_async_swizzled(wf_u32* stage, const wf_u32* __restrict__ src, int lane) {
  static_assert(kWords % 128 == 0, "staged copies move whole 512-byte warp rows");
#pragma unroll
  for (int i = 0; i < kWords / 4; i += 32) {
    unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(stage + 4 * Swizzle::chunk(i + lane)));
    const wf_u32* from = src + 4 * (i + lane);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(from) : "memory");
  }
}

// The same copies into a slice kept in row order (no swizzle).
template <int kWords, bool kStreaming>
__device__ __forceinline__ void wf_warp_load16(wf_u32* __restrict__ stage, const wf_u32* __restrict__ src, int lane) {
  wf_warp_load16_swizzled<kWords, kStreaming, wf_swizzle<-1, -1, -1, -1, -1, -1> >(stage, src, lane);
}
template <int kWords, bool kStreaming>
__device__ __forceinline__ void wf_warp_store16(wf_u32* __restrict__ dst, const wf_u32* __restrict__ stage, int lane) {
  wf_warp_store16_swizzled<kWords, kStreaming, wf_swizzle<-1, -1, -1, -1, -1, -1> >(dst, stage, lane);
}
template <int kWords>
__device__ __forceinline__ void wf_warp_load16_async(wf_u32* stage, const wf_u32* __restrict__ src, int lane) {
  wf_warp_load16_async_swizzled<kWords, wf_swizzle<-1, -1, -1, -1, -1, -1> >(stage, src, lane);
}
// One 4-byte cp.async (cp.async.ca: 4 and 8 bytes go through L1), for the copies that scatter single words.
__device__ __forceinline__ void wf_cp_async4(wf_u32* dst, const wf_u32* __restrict__ src) {
  unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(d), "l"(src) : "memory");
}
// Global -> shared, de-interleaved by polyphase part: row word w (w = first + j, j < kWords) goes to word w >> 1 of
// part w & 1's region (kRegionWords apart), its 16-byte chunks arranged by Swizzle and part 1's bank bit 4 flipped, so
// that the 32 lanes of each copy (16 words of each part) and the reads of either region hit distinct banks. `src` is
// row word `first`, a multiple of kWords (a power of two). Each lane's offset is computed once: the swizzle is linear
// and the index bits of first, j and the lane are disjoint.
template <int kWords, int kRegionWords, class Swizzle>
__device__ __forceinline__ void wf_warp_load_parts_async(wf_u32* stage, const wf_u32* __restrict__ src, int first,
                                                         int lane) {
  static_assert(kWords % 32 == 0 && kRegionWords % 32 == 0, "whole 128-byte warp accesses");
  const int part = lane & 1, i = (first >> 1) | (lane >> 1);
  const int base = part * kRegionWords + ((4 * Swizzle::chunk(i >> 2) + (i & 3)) ^ (part << 4));
#pragma unroll
  for (int j = 0; j < kWords; j += 32) wf_cp_async4(stage + (base ^ (4 * Swizzle::chunk(j >> 3))), src + j + lane);
}
// Named barrier `id` (1..15; 0 is __syncthreads) of kThreads threads (whole warps): the warps of one FFT meet, their
// shared-memory writes before it visible to each other after it.
template <int kThreads>
__device__ __forceinline__ void wf_named_barrier(int id) { asm volatile("bar.sync %0, %1;" ::"r"(id), "n"(kThreads) : "memory"); }
__device__ __forceinline__ void wf_cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
// Waits until at most kPending of this thread's committed groups are in flight.
template <int kPending>
__device__ __forceinline__ void wf_cp_async_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(kPending) : "memory"); }

// Vector types of 1, 2 and 4 words for the row copies below.
template <int kVec> struct wf_vec_t;
template <> struct wf_vec_t<1> { typedef wf_u32 type; };
template <> struct wf_vec_t<2> { typedef uint2 type; };
template <> struct wf_vec_t<4> { typedef uint4 type; };

// Global -> shared for a warp that holds kRows FFTs: row r (kWords words) from src + r * distance into the dense
// slice at r * kWords, kVec words per access (kWords % kVec == 0; rows and slice aligned to kVec words), the warp's
// lanes spread over every vector of every row. Rows from `valid` on (past the end of the batch) are zero-filled.
template <int kWords, int kRows, int kVec, bool kStreaming>
__device__ __forceinline__ void wf_warp_load_rows(wf_u32* __restrict__ stage, const wf_u32* __restrict__ src, long long distance,
                                                  int valid, int lane) {
  typedef typename wf_vec_t<kVec>::type V;
  constexpr int kPerRow = kWords / kVec, kTotal = kRows * kPerRow;
  static_assert(kWords % kVec == 0, "rows move as whole vectors");
#pragma unroll
  for (int base = 0; base < kTotal; base += 32) {
    const int i = base + lane;
    if (kTotal % 32 != 0 && i >= kTotal) break;
    const int row = i / kPerRow, col = i % kPerRow;
    V v = {};
    if (row < valid) {
      const V* p = reinterpret_cast<const V*>(src + row * distance) + col;
      v = kStreaming ? __ldcs(p) : *p;
    }
    reinterpret_cast<V*>(stage + row * kWords)[col] = v;
  }
}

// Shared -> global, the counterpart: rows from `valid` on are not written.
template <int kWords, int kRows, int kVec, bool kStreaming>
__device__ __forceinline__ void wf_warp_store_rows(wf_u32* __restrict__ dst, const wf_u32* __restrict__ stage, long long distance,
                                                   int valid, int lane) {
  typedef typename wf_vec_t<kVec>::type V;
  constexpr int kPerRow = kWords / kVec, kTotal = kRows * kPerRow;
  static_assert(kWords % kVec == 0, "rows move as whole vectors");
#pragma unroll
  for (int base = 0; base < kTotal; base += 32) {
    const int i = base + lane;
    if (kTotal % 32 != 0 && i >= kTotal) break;
    const int row = i / kPerRow, col = i % kPerRow;
    if (row >= valid) continue;
    const V v = reinterpret_cast<const V*>(stage + row * kWords)[col];
    V* p = reinterpret_cast<V*>(dst + row * distance) + col;
    if (kStreaming) __stcs(p, v);
    else *p = v;
  }
}
