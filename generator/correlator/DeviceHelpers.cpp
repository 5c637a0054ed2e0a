#include "generator/correlator/DeviceHelpers.h"

#include <set>

#include <fmt/format.h>

#include "ast/Printer.h"
#include "generator/complexmma/ComplexMma.h"
#include "generator/correlator/Pipeline.h"
#include "generator/correlator/PipelineDirect.h"
#include "generator/layout/Wgmma.h"
#include "templates/Embedded.h"

namespace warpforge {

using namespace ast;

// ldmatrix .x4 (sm_75+), `a` a shared-window address: lane L gives the address of row L % 8 of 8 x 16-byte matrix L /
// 8; register i of lane l receives bytes 4 (l % 4) .. + 3 of row l / 4 of matrix i. volatile with a memory clobber: the
// address is a plain integer, so the compiler must not move the staging stores across it.
NodePtr ldmatrixFn() {
  return raw(
      "static __device__ __forceinline__ void corr_ldsm4(unsigned a, wf_u32& r0, wf_u32& r1, wf_u32& r2, wf_u32& r3) "
      "{\n"
      "  asm volatile(\"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\" : \"=r\"(r0), \"=r\"(r1), "
      "\"=r\"(r2), \"=r\"(r3)"
      " : \"r\"(a) : \"memory\");\n"
      "}");
}

// sm_90a warpgroup MMA helpers: the fence / commit / wait of the async group, the proxy fence that makes the staging's
// ordinary shared-memory stores visible to wgmma, and one m64 x N x (32 bytes of k) wgmma with both operands in shared
// memory (descriptors: K-major, no swizzle), D += A B (scale-d 1). The accumulators are the caller's array, indexed
// with constants once inlined.
// cp.async's commit and wait of groups (the register-staged wgmma kernel's ring and the operands-as-stored producer).
constexpr const char* kCpAsyncGroupHelpers =
    "static __device__ __forceinline__ void corr_cp_commit() { asm volatile(\"cp.async.commit_group;\" ::: "
    "\"memory\"); }\n"
    "template <int N> static __device__ __forceinline__ void corr_cp_wait() { asm "
    "volatile(\"cp.async.wait_group %0;\" :: \"n\"(N) : \"memory\"); }\n";

NodePtr wgmmaFns(SampleType type, int n) {
  const bool f16 = type == SampleType::CF16;
  return raw(wgmmaSyncHelpers("corr_") +
             "static __device__ __forceinline__ void corr_wgmma_wait0() { asm volatile(\"wgmma.wait_group.sync.aligned "
             "0;\" ::: \"memory\"); }\n"
             "// cp.async of 16 / 8 bytes through L1 (.ca: the two 16-byte halves of a sector are read by two "
             "threads), zero-filled (no bytes read) where !valid.\n"
             "static __device__ __forceinline__ void corr_cp_async16(void* dst, const void* src, bool valid) {\n"
             "  asm volatile(\"cp.async.ca.shared.global [%0], [%1], 16, %2;\" :: "
             "\"r\"((unsigned)__cvta_generic_to_shared(dst)), \"l\"(src), \"r\"(valid ? 16 : 0) : \"memory\");\n"
             "}\n"
             "static __device__ __forceinline__ void corr_cp_async8(void* dst, const void* src, bool valid) {\n"
             "  asm volatile(\"cp.async.ca.shared.global [%0], [%1], 8, %2;\" :: "
             "\"r\"((unsigned)__cvta_generic_to_shared(dst)), \"l\"(src), \"r\"(valid ? 8 : 0) : \"memory\");\n"
             "}\n" +
             std::string(kCpAsyncGroupHelpers) + wgmmaDescriptorHelper("corr_desc", WgmmaSwizzle::None, 0, 0, true) +
             wgmmaHelper(WgmmaAtom{n, f16, false}, "corr_wgmma"));
}

// The staging's clamp of the minimum (-128 -> -127, -8 -> -7): cmma's, or where the spec's sample_range is
// "symmetric" the identity (no such value in the data; NVRTC then drops every call).
static void pushClamps(std::vector<NodePtr>& items, bool clamp) {
  if (clamp) {
    items.push_back(cmma::clampFn("corr_", 8));
    items.push_back(cmma::clampFn("corr_", 4));
    return;
  }
  items.push_back(
      raw("// sample_range \"symmetric\": the data hold no -128 / -8, so nothing is clamped before conj_perm.\n"));
  for (const char* name : {"corr_clamp8", "corr_clamp4"})
    items.push_back(raw(fmt::format("static __device__ __forceinline__ wf_u32 {}(wf_u32 w) {{ return w; }}\n", name)));
}

std::string correlatorDeviceHelpers(SampleType type, int wgmmaN, bool clamp) {
  std::vector<NodePtr> items;
  items.push_back(cmma::typedefU32());
  items.push_back(ldmatrixFn());
  if (type == SampleType::CF16) {
    items.push_back(cmma::conjPermFn("corr_", true));
    items.push_back(cmma::mmaFn("corr_", true));
  } else {
    pushClamps(items, clamp);
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

std::string correlatorPipelineHelpers(const CorrPipe& p) {
  const SampleType type = p.type;
  std::vector<NodePtr> items;
  items.push_back(cmma::typedefU32());
  if (type == SampleType::CF16) {
    items.push_back(cmma::conjPermFn("corr_", true));
  } else {
    pushClamps(items, p.clamp);
    if (type == SampleType::CI4) {
      items.push_back(cmma::widen4Fn("corr_", true));
      items.push_back(cmma::widen4Fn("corr_", false));
    }
    items.push_back(cmma::conjPermFn("corr_", false));
  }
  std::string o = print(unit(items));
  for (const auto& f : embeddedTemplates())
    if (std::string(f.name) == "warpforge_async.cuh") o += f.text;
  o += wgmmaSyncHelpers("corr_");
  const PipeDescriptors d = pipeDescriptors(p);
  o += wgmmaDescriptorHelper("corr_desc_sw64", d.b.swizzle, d.b.lbo, d.b.sbo);
  o += wgmmaDescriptorHelper("corr_desc_sw64_diag", d.diag.swizzle, d.diag.lbo, d.diag.sbo);
  if (p.wholeTriangle) {  // one helper per piece width
    std::set<int> widths;
    for (const auto& pieces : p.pieces)
      for (const PipePiece& pc : pieces) widths.insert(pc.width);
    for (int w : widths) {
      const WgmmaAtom atom = p.pieceAtom({0, 0, w});
      o += wgmmaHelper(atom, fmt::format("corr_wgmma_n{}", atom.n),
                       fmt::format("// D (m64 x {}) += A (64 rows, descriptor) B ({} columns from a piece's first).",
                                   atom.n, atom.n)) +
           "\n";
    }
    return o;
  }
  const WgmmaAtom atom = p.atom();
  o += wgmmaHelper(atom, "corr_wgmma",
                   fmt::format("// D (m64 x {}) += A (64 rows, descriptor) B ({} columns, descriptor).", atom.n,
                               atom.n)) +
       "\n";
  if (atom.n == 256)  // the diagonal tile's second warpgroup: half of the columns
    o += wgmmaHelper(WgmmaAtom{atom.n / 2, atom.f16, atom.aRegisters}, "corr_wgmma_half",
                     fmt::format("// D (m64 x {}) += A (64 rows) B (the second half of the columns).", atom.n / 2)) +
         "\n";
  return o;
}

std::string correlatorDirectHelpers(const DirectPipe& p) {
  const bool f16 = p.type == SampleType::CF16;
  std::string o = print(unit({cmma::typedefU32(), ldmatrixFn()}));
  for (const auto& f : embeddedTemplates())
    if (std::string(f.name) == "warpforge_async.cuh") o += f.text;
  o += wgmmaSyncHelpers("corr_");
  o += "// cp.async of 16 bytes (L2 only: each chunk is read once) into a shared-window address; `bytes` 0 "
       "zero-fills.\n"
       "static __device__ __forceinline__ void corr_cp16(unsigned dst, const void* src, unsigned bytes) { asm "
       "volatile(\"cp.async.cg.shared.global [%0], [%1], 16, %2;\" :: \"r\"(dst), \"l\"(src), \"r\"(bytes) : "
       "\"memory\"); }\n";
  o += kCpAsyncGroupHelpers;
  if (f16)
    o += "// A's Im row from its sample row: (re, im) -> (im, -re) per f16 pair (exact).\n"
         "static __device__ __forceinline__ wf_u32 corr_im_row(wf_u32 w) { return (w >> 16) | ((w ^ 0x8000u) << 16); "
         "}\n";
  else
    o += "// A's Im row from its sample row: (re, im) -> (im, -re) per 8-bit pair; 0x100 - re per 16-bit half holds "
         "-re in its low\n// byte without borrows (sample_range symmetric: no -128, whose negation does not exist).\n"
         "static __device__ __forceinline__ wf_u32 corr_im_row(wf_u32 w) { return __byte_perm(w, 0x01000100u - (w & "
         "0x00ff00ffu), 0x6341); }\n";
  if (p.bulkStore)
    o += "// A visibility part's bits, for the 16-byte shared stores of the staging.\n"
         "static __device__ __forceinline__ unsigned corr_bits(int v) { return (unsigned)v; }\n"
         "static __device__ __forceinline__ unsigned corr_bits(float v) { return __float_as_uint(v); }\n";
  const WgmmaDescriptor b = p.descB(0, 0, 0);
  o += wgmmaDescriptorHelper("corr_desc_b", b.swizzle, b.lbo, b.sbo);  // B's layout: 64-byte or 32-byte swizzle
  o += wgmmaHelper(p.atom(), "corr_wgmma_rs",
                   fmt::format("// D (m64 x {}) += A (registers: 32 row inputs' sample rows and Im rows) B ({} column "
                               "inputs, descriptor).",
                               p.rows, p.rows)) +
       "\n";
  if (p.consumers == 2 || p.narrowEdge)
    o += wgmmaHelper(p.atom(true), "corr_wgmma_rs_half",
                     fmt::format("// D (m64 x {}) += A (registers) B (half of the column inputs: from input 0 or {}).",
                                 p.rows / 2, p.rows / 2)) +
         "\n";
  return o;
}

}  // namespace warpforge
