#pragma once
// Complex products on real tensor cores: the machinery shared by the tensor-core
// families that multiply complex low-bit or f16 data (no family is named here).
//
//  * Layouts with free logical names in the register-bit notation
//    (docs/layout-notation.md): "b0 b1 <-> ReIm_in rcv0, t0 t1 <-> ...".
//  * Index expressions derived from a Layout (the lane part of a set of logical
//    bits; the register part of a fragment register).
//  * Device helpers, as AST functions with a caller-chosen name prefix:
//      clamp8 / clamp4   bytes 0x80 (-128) / 0xf8 (-8) -> one more (-127 / -7), no carries
//      widen4_{hi,lo}    a word of four ci4 samples -> two words of ci8 (re, im) bytes, clamped
//      widen1_{hi,lo}    one ci4 byte -> (re, im) bytes in the low half, not clamped
//      conj_perm         (re, im) -> (-im, re)   [8-bit pairs or one f16 pair]
//      conj              (re, im) -> (re, -im)
//      swap              (re, im) -> (im, re)
//      mma_s8 / mma_f16  mma.sync m16n8k32 s8 -> s32 / m16n8k16 f16 -> f32 (instruction and fragments: the atom's)
//  * CPU models of the same word operations (what the verifier and tests enumerate).
#include <cstdint>
#include <string>
#include <vector>

#include "ast/Ast.h"
#include "generator/layout/FragmentTable.h"
#include "generator/layout/Layout.h"

namespace warpforge::cmma {

// A Layout from the notation with any logical names (Layout::parse knows only the FFT's).
Layout layoutText(const std::string& text);

// The value of the logical bits `names` (names[k] has weight 2^k) contributed by the lane bits: an expression of
// `lane`, printed from fieldPlace (generator/layout/FieldPlace.h).
ast::NodePtr laneField(const Layout& l, const std::vector<std::string>& names);
// The value of the same bits held by the r bits of fragment register `reg`.
int regField(const Layout& l, const std::vector<std::string>& names, int reg);
// "prefix0", "prefix1", ... (count names starting at `from`).
std::vector<std::string> bitNames(const std::string& prefix, int from, int count);

// Device helpers (static __device__ __forceinline__), named prefix + the names above; they use the typedef
// The preprocessor guard of a source that uses sm_90a-only instructions (wgmma): an error naming the target to build
// for.
std::string sm90aGuard();
// `wf_u32` (typedefU32() prints it once per source).
ast::NodePtr typedefU32();
ast::NodePtr clampFn(const std::string& prefix, int bits);        // prefix + "clamp8" / "clamp4"
ast::NodePtr widen4Fn(const std::string& prefix, bool realHigh);  // prefix + "widen4_hi" / "widen4_lo" (uses clamp4)
ast::NodePtr widen1Fn(const std::string& prefix, bool realHigh);  // prefix + "widen1_hi" / "widen1_lo"
ast::NodePtr conjPermFn(const std::string& prefix, bool f16);     // prefix + "conj_perm"
ast::NodePtr conjFn(const std::string& prefix, bool f16);         // prefix + "conj"
ast::NodePtr swapFn(const std::string& prefix, bool f16);         // prefix + "swap"
ast::NodePtr mmaFn(const std::string& prefix, bool f16);          // prefix + "mma_f16" / "mma_s8"

// CPU models (bit-for-bit what the helpers compute).
std::uint32_t clampModel(std::uint32_t w, int bits);
std::uint32_t widen1Model(std::uint32_t byte, bool realHigh);  // (re, im) bytes in bits 0..15, not clamped
std::uint32_t conjPermModel(std::uint32_t w, bool f16);
std::uint32_t conjModel(std::uint32_t w, bool f16);
std::uint32_t swapModel(std::uint32_t w, bool f16);

}  // namespace warpforge::cmma
