// warpforge device helpers: complex __half2 arithmetic and phase packing.
// Registers hold two f16 values as a 32-bit word (low half = b0 = 0).
#pragma once
#include <cuda_fp16.h>

typedef unsigned int wf_u32;

__device__ __forceinline__ __half2 wf_as_h2(wf_u32 x) { return *reinterpret_cast<__half2*>(&x); }
__device__ __forceinline__ wf_u32 wf_as_u32(__half2 x) { return *reinterpret_cast<wf_u32*>(&x); }

// Packs two floats into one register, low half first (round to nearest).
__device__ __forceinline__ wf_u32 wf_pack(float lo, float hi) { return wf_as_u32(__floats2half2_rn(lo, hi)); }

// (re, im) <- E * (xr, xi) on two complex numbers per register pair:
// re = er*xr - ei*xi, im = er*xi + ei*xr as HMUL2 + HFMA2 each.
__device__ __forceinline__ void wf_cmul(wf_u32& re, wf_u32& im, wf_u32 xr, wf_u32 xi, wf_u32 er, wf_u32 ei) {
  __half2 t1 = __hmul2(wf_as_h2(ei), wf_as_h2(xi));
  __half2 t2 = __hmul2(wf_as_h2(ei), wf_as_h2(xr));
  re = wf_as_u32(__hfma2(wf_as_h2(er), wf_as_h2(xr), __hneg2(t1)));
  im = wf_as_u32(__hfma2(wf_as_h2(er), wf_as_h2(xi), t2));
}

// The same on f32 values (f32 MMA accumulators): xr0, xr1 are the real parts of the two complex numbers, xi0, xi1
// their imaginary parts; E's f16 halves are widened exactly, the products and sums are f32 (FMUL, then FFMA), and
// each result is rounded to f16 once.
__device__ __forceinline__ void wf_cmul_f32(wf_u32& re, wf_u32& im, float xr0, float xr1, float xi0, float xi1,
                                            wf_u32 er, wf_u32 ei) {
  const float2 e_r = __half22float2(wf_as_h2(er)), e_i = __half22float2(wf_as_h2(ei));
  re = wf_pack(fmaf(e_r.x, xr0, -(e_i.x * xi0)), fmaf(e_r.y, xr1, -(e_i.y * xi1)));
  im = wf_pack(fmaf(e_r.x, xi0, e_i.x * xr0), fmaf(e_r.y, xi1, e_i.y * xr1));
}

// The radix-2 butterfly that joins two half-length FFTs (decimation in time), in f32: (e, o) <- (e + t o, e - t o)
// with the twiddle t = a b (complex, a = (ar, ai), b = (br, bi)), each word one __half2 complex value (re = low
// half); the results are rounded to f16 once.
__device__ __forceinline__ void wf_radix2(wf_u32& e, wf_u32& o, float ar, float ai, float br, float bi) {
  const float tr = ar * br - ai * bi, ti = ar * bi + ai * br;
  const float2 x = __half22float2(wf_as_h2(e)), y = __half22float2(wf_as_h2(o));
  const float pr = tr * y.x - ti * y.y, pi = tr * y.y + ti * y.x;
  e = wf_pack(x.x + pr, x.y + pi);
  o = wf_pack(x.x - pr, x.y - pi);
}

// cos and sin of sign * 2 pi m / n for integer m (exact argument reduction).
__device__ __forceinline__ void wf_phase(int m, int n, int sign, float& c, float& s) {
  sincospif(2.0f * static_cast<float>(m & (n - 1)) / static_cast<float>(n), &s, &c);
  s = sign > 0 ? s : -s;
}

// Unpacks a stored complex phase held as (c, s) in one register (b <-> ReIm)
// into the two rows of the MMA operand [[c, -s], [s, c]]:
//   ReIm_out = 0 -> (c, -s): flip the sign bit of the high half
//   ReIm_out = 1 -> (s,  c): swap the halves
__device__ __forceinline__ wf_u32 wf_unpack_row0(wf_u32 cs) { return cs ^ 0x80000000u; }
__device__ __forceinline__ wf_u32 wf_unpack_row1(wf_u32 cs) { return __byte_perm(cs, 0u, 0x1032); }
// Stored form with ReIm on a register bit (c in one register, s in another):
// the operand needs c, -s, s, c; -s is one sign flip.
__device__ __forceinline__ wf_u32 wf_negate(wf_u32 x) { return x ^ 0x80008000u; }
