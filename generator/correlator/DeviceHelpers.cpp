#include "generator/correlator/DeviceHelpers.h"

#include <fmt/format.h>

#include "ast/Printer.h"
#include "generator/complexmma/ComplexMma.h"

namespace warpforge {

using namespace ast;


// ldmatrix .x4 (sm_75+), `a` a shared-window address: lane L gives the address of row L % 8 of 8 x 16-byte matrix L / 8; register i of
// lane l receives bytes 4 (l % 4) .. + 3 of row l / 4 of matrix i. volatile with a memory clobber: the
// address is a plain integer, so the compiler must not move the staging stores across it.
NodePtr ldmatrixFn() {
  return raw(
      "static __device__ __forceinline__ void corr_ldsm4(unsigned a, wf_u32& r0, wf_u32& r1, wf_u32& r2, wf_u32& r3) {\n"
      "  asm volatile(\"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\" : \"=r\"(r0), \"=r\"(r1), \"=r\"(r2), \"=r\"(r3)"
      " : \"r\"(a) : \"memory\");\n"
      "}");
}

// sm_90a warpgroup MMA helpers: the fence / commit / wait of the async group, the proxy fence that makes the staging's
// ordinary shared-memory stores visible to wgmma, and one m64 x N x (32 bytes of k) wgmma with both operands in shared
// memory (descriptors: K-major, no swizzle), D += A B (scale-d 1). The accumulators are the caller's array, indexed
// with constants once inlined.
NodePtr wgmmaFns(SampleType type, int n) {
  const bool f16 = type == SampleType::CF16;
  const int regs = n / 2;  // 64 x n accumulators over 128 threads
  std::string ops, cons;
  for (int i = 0; i < regs; ++i) {
    ops += fmt::format("{}%{}", i ? ", " : "", i);
    cons += fmt::format("{}\"{}\"(d[{}])", i ? ", " : "", f16 ? "+f" : "+r", i);
  }
  const std::string ins = f16 ? fmt::format("wgmma.mma_async.sync.aligned.m64n{}k16.f32.f16.f16", n)
                              : fmt::format("wgmma.mma_async.sync.aligned.m64n{}k32.s32.s8.s8", n);
  const std::string tail = f16 ? fmt::format("%{}, %{}, p, 1, 1, 0, 0", regs, regs + 1) : fmt::format("%{}, %{}, p", regs, regs + 1);
  return raw(fmt::format(
      "static __device__ __forceinline__ void corr_wgmma_fence() {{ asm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\"); }}\n"
      "static __device__ __forceinline__ void corr_wgmma_commit() {{ asm volatile(\"wgmma.commit_group.sync.aligned;\" ::: \"memory\"); }}\n"
      "static __device__ __forceinline__ void corr_wgmma_wait0() {{ asm volatile(\"wgmma.wait_group.sync.aligned 0;\" ::: \"memory\"); }}\n"
      "static __device__ __forceinline__ void corr_fence_async_smem() {{ asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\"); }}\n"
      "// cp.async of 16 / 8 bytes through L1 (.ca: the two 16-byte halves of a sector are read by two threads), zero-filled (no bytes read) where !valid.\n"
      "static __device__ __forceinline__ void corr_cp_async16(void* dst, const void* src, bool valid) {{\n"
      "  asm volatile(\"cp.async.ca.shared.global [%0], [%1], 16, %2;\" :: \"r\"((unsigned)__cvta_generic_to_shared(dst)), \"l\"(src), \"r\"(valid ? 16 : 0) : \"memory\");\n"
      "}}\n"
      "static __device__ __forceinline__ void corr_cp_async8(void* dst, const void* src, bool valid) {{\n"
      "  asm volatile(\"cp.async.ca.shared.global [%0], [%1], 8, %2;\" :: \"r\"((unsigned)__cvta_generic_to_shared(dst)), \"l\"(src), \"r\"(valid ? 8 : 0) : \"memory\");\n"
      "}}\n"
      "static __device__ __forceinline__ void corr_cp_commit() {{ asm volatile(\"cp.async.commit_group;\" ::: \"memory\"); }}\n"
      "template <int N> static __device__ __forceinline__ void corr_cp_wait() {{ asm volatile(\"cp.async.wait_group %0;\" :: \"n\"(N) : \"memory\"); }}\n"
      "// Descriptor of a K-major operand without swizzle: start address >> 4 (bits 0-13), lbo >> 4 (16-29), sbo >> 4 (32-45).\n"
      "static __device__ __forceinline__ unsigned long long corr_desc(unsigned addr, unsigned lbo, unsigned sbo) {{\n"
      "  return (unsigned long long)((addr & 0x3ffff) >> 4) | (unsigned long long)(lbo >> 4) << 16 | (unsigned long long)(sbo >> 4) << 32;\n"
      "}}\n"
      "static __device__ __forceinline__ void corr_wgmma({0} (&d)[{1}], unsigned long long da, unsigned long long db) {{\n"
      "  asm volatile(\"{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{2}, 0;\\n{3} {{{4}}}, {5};\\n}}\\n\"\n"
      "               : {6}\n"
      "               : \"l\"(da), \"l\"(db), \"r\"(1) : \"memory\");\n"
      "}}",
      f16 ? "float" : "int", regs, regs + 2, ins, ops, tail, cons));
}

std::string correlatorDeviceHelpers(SampleType type, int wgmmaN) {
  std::vector<NodePtr> items;
  items.push_back(cmma::typedefU32());
  items.push_back(ldmatrixFn());
  if (type == SampleType::CF16) {
    items.push_back(cmma::conjPermFn("corr_", true));
    items.push_back(cmma::mmaFn("corr_", true));
  } else {
    items.push_back(cmma::clampFn("corr_", 8));
    items.push_back(cmma::clampFn("corr_", 4));
    if (type == SampleType::CI4) {
      items.push_back(cmma::widen4Fn("corr_", true));
      items.push_back(cmma::widen4Fn("corr_", false));
      items.push_back(cmma::widen1Fn("corr_", true));
      items.push_back(cmma::widen1Fn("corr_", false));
    }
    items.push_back(cmma::conjPermFn("corr_", false));
    items.push_back(cmma::mmaFn("corr_", false));
  }
  if (wgmmaN) items.push_back(wgmmaFns(type, wgmmaN));
  return print(unit(items));
}

}  // namespace warpforge
