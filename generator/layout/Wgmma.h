#pragma once
// wgmma (sm_90a warpgroup MMA) as data, in one place: the instruction atoms (m64 x n x one 32-byte k-step, s8 -> s32
// or f16 -> f32, A from shared memory or from registers), PTX's canonical K-major shared-memory layouts (no swizzle;
// 32-, 64- and 128-byte swizzles) with the matrix descriptor that names them, and the device-helper texts every family
// prints (so that the instruction, its operands and the descriptor bits are written once). The verifier reads
// operands through the same formulas (wgmmaOperandAddress; generator/verify/MmaCheck.h checkWgmmaOperand), the
// writers place bytes with wgmmaStoreOffset.
//
// PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate": the descriptor holds start >> 4 (bits 0-13),
// leading byte offset >> 4 (16-29), stride byte offset >> 4 (32-45), base offset (49-51), swizzle (62-63: 0 none,
// 1 128-byte, 2 64-byte, 3 32-byte). K-major operand, row r (M or N), byte kb of K:
//   none:      start + (r / 8) SBO + (kb / 16) LBO + (r % 8) 16 + kb % 16           (8 x 16-byte core matrices)
//   W-byte:    a = start + (r / 8) SBO + (r % 8) W + kb, then address bits 4 .. 3 + log2(W / 16) ^= bits 7 ..
//              (rows of W bytes, 8-row atoms of 8 W bytes that must start on an 8 W boundary; LBO unused while
//              one instruction's k bytes stay inside a row)
#include <cstdint>
#include <string>

#include "generator/layout/Layout.h"

namespace warpforge {

enum class WgmmaSwizzle { None = 0, B128 = 1, B64 = 2, B32 = 3 };  // the descriptor's bits 62-63

const char* wgmmaSwizzleName(WgmmaSwizzle s);
// Bytes of one row of the swizzle pattern (128 / 64 / 32; none: 16, a core matrix row) and of one 8-row atom.
int wgmmaRowBytes(WgmmaSwizzle s);
int wgmmaAtomBytes(WgmmaSwizzle s);

struct WgmmaDescriptor {
  unsigned start = 0;          // shared-window byte address
  unsigned lbo = 16, sbo = 0;  // bytes
  int baseOffset = 0;
  WgmmaSwizzle swizzle = WgmmaSwizzle::None;
  std::uint64_t encode() const;
  static WgmmaDescriptor decode(std::uint64_t bits);
  // Empty where every field is representable (multiples of 16 within 14 bits after >> 4, start below 2^18).
  std::string fieldProblem() const;
};

// The shared-window byte address wgmma reads for (row, k byte) of a K-major operand through descriptor `d`.
unsigned wgmmaOperandAddress(const WgmmaDescriptor& d, int row, int kbyte);
// A writer's placement of (row, k byte) in a K-major region laid out for swizzle `s` whose 8-row groups are `sbo`
// bytes apart (none: 16-byte chunks `lbo` apart along k), relative to a base aligned to the swizzle atom.
unsigned wgmmaStoreOffset(WgmmaSwizzle s, int row, int kbyte, unsigned sbo, unsigned lbo = 128);

// One wgmma.mma_async instruction: m64 nN, k = one 32-byte step of both operands.
struct WgmmaAtom {
  int n = 0;
  bool f16 = false;         // f16 x f16 -> f32 (k16), else s8 x s8 -> s32 (k32)
  bool aRegisters = false;  // A from registers (four 32-bit words per thread: mma.sync's m16 A fragment per warp)
  int k() const { return f16 ? 16 : 32; }
  int accRegs() const { return n / 2; }
  std::string ptx() const;  // e.g. "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8"
  // Empty where N is allowed for the type (f16: a multiple of 8 to 256; s8: 8, 16, 24, a multiple of 16 to 256).
  std::string nProblem() const;
};

// The accumulator fragment as an atom: physical bit -> matrix bit of the m64 x n tile (rows i0..i5, columns k0..),
// lane bits t, the warp of the warpgroup w, the thread's registers r (as many bits as n / 2 registers need):
//   t0 t1 <-> k1 k2, t2 t3 t4 <-> i0 i1 i2, w0 w1 <-> i4 i5, r0 r1 <-> k0 i3, r2 r3 ... <-> k3 k4 ...
// i.e. thread t (0..127), register i -> row 16 (t / 32) + (t % 32) / 4 + 8 ((i / 2) % 2), column
// 8 (i / 4) + 2 (t % 4) + i % 2. Per warp it is mma.sync's m16n8 32-bit C fragment, once per 8 columns.
Layout wgmmaAccumulatorLayout(int n);
// (row, column) of register `reg` of thread `thread` (0..127 of the warpgroup), read from that atom.
void wgmmaAccumulatorCoord(int thread, int reg, int& row, int& col);

// Device helpers (static __device__ __forceinline__, inline PTX), named prefix + ...:
//   wgmma_fence, wgmma_commit, wgmma_wait<N> (template), fence_async_smem (fence.proxy.async.shared::cta)
std::string wgmmaSyncHelpers(const std::string& prefix);
// `name`(unsigned addr): the descriptor of a K-major operand at shared-window address `addr` with the given swizzle
// and constant LBO / SBO; with `runtimeOffsets`, `name`(addr, lbo, sbo).
std::string wgmmaDescriptorHelper(const std::string& name, WgmmaSwizzle s, unsigned lbo, unsigned sbo,
                                  bool runtimeOffsets = false);
// `name`(T (&d)[n / 2], [wf_u32 a0..a3,] unsigned long long [da,] db): D += A B with scale-d from the constant 1
// (f16: scales 1, 1, no transposes). `comment` (optional) is printed above it.
std::string wgmmaHelper(const WgmmaAtom& atom, const std::string& name, const std::string& comment = "");

// Shared-memory wavefronts of one 16-byte access by 8 consecutive threads (a quarter warp: 128-bit accesses are
// served 8 threads at a time): 1 where the 8 addresses hit distinct 16-byte bank groups (or the same address).
int sharedWavefronts16(const unsigned (&addresses)[8]);

}  // namespace warpforge
