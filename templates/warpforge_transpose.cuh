// warpforge device helpers: the data-movement primitives of App. A.
#pragma once
#include "warpforge_complex.cuh"

// Local transpose b0 <-> r (16-bit elements): lo/hi are the registers whose
// r bit is 0/1. Afterwards lo = (lo.low, hi.low), hi = (lo.high, hi.high).
__device__ __forceinline__ void wf_local_transpose16(wf_u32& lo, wf_u32& hi) {
  wf_u32 a = __byte_perm(lo, hi, 0x5410);
  wf_u32 b = __byte_perm(lo, hi, 0x7632);
  lo = a;
  hi = b;
}

// Warp transpose t_i <-> r: one shuffle per register pair. `upper` is the
// lane's t_i bit; lanes exchange the register the partner is missing.
__device__ __forceinline__ void wf_warp_transpose(wf_u32& lo, wf_u32& hi, int lane_bit, bool upper) {
  wf_u32 send = upper ? lo : hi;
  wf_u32 recv = __shfl_xor_sync(0xffffffffu, send, lane_bit);
  if (upper) lo = recv;
  else hi = recv;
}
