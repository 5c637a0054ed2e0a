#include "generator/layout/Wgmma.h"

#include <algorithm>

#include <fmt/format.h>

#include "generator/layout/FieldPlace.h"

namespace warpforge {

const char* wgmmaSwizzleName(WgmmaSwizzle s) {
  switch (s) {
    case WgmmaSwizzle::None: return "no swizzle";
    case WgmmaSwizzle::B128: return "128-byte swizzle";
    case WgmmaSwizzle::B64: return "64-byte swizzle";
    case WgmmaSwizzle::B32: return "32-byte swizzle";
  }
  return "?";
}

int wgmmaRowBytes(WgmmaSwizzle s) {
  switch (s) {
    case WgmmaSwizzle::None: return 16;
    case WgmmaSwizzle::B128: return 128;
    case WgmmaSwizzle::B64: return 64;
    case WgmmaSwizzle::B32: return 32;
  }
  return 16;
}

int wgmmaAtomBytes(WgmmaSwizzle s) { return 8 * wgmmaRowBytes(s); }

std::uint64_t WgmmaDescriptor::encode() const {
  return static_cast<std::uint64_t>((start & 0x3ffff) >> 4) | static_cast<std::uint64_t>((lbo >> 4) & 0x3fff) << 16 |
         static_cast<std::uint64_t>((sbo >> 4) & 0x3fff) << 32 | static_cast<std::uint64_t>(baseOffset & 7) << 49 |
         static_cast<std::uint64_t>(swizzle) << 62;
}

WgmmaDescriptor WgmmaDescriptor::decode(std::uint64_t bits) {
  WgmmaDescriptor d;
  d.start = static_cast<unsigned>(bits & 0x3fff) << 4;
  d.lbo = static_cast<unsigned>(bits >> 16 & 0x3fff) << 4;
  d.sbo = static_cast<unsigned>(bits >> 32 & 0x3fff) << 4;
  d.baseOffset = static_cast<int>(bits >> 49 & 7);
  d.swizzle = static_cast<WgmmaSwizzle>(bits >> 62 & 3);
  return d;
}

std::string WgmmaDescriptor::fieldProblem() const {
  if (start % 16 || lbo % 16 || sbo % 16)
    return fmt::format("start {}, lbo {}, sbo {}: not multiples of 16", start, lbo, sbo);
  if (start >= (1u << 18) || (lbo >> 4) >= (1u << 14) || (sbo >> 4) >= (1u << 14))
    return fmt::format("start {}, lbo {}, sbo {}: beyond the 14-bit fields", start, lbo, sbo);
  if (swizzle != WgmmaSwizzle::None && baseOffset == 0 &&
      (start % wgmmaAtomBytes(swizzle)) >= static_cast<unsigned>(wgmmaRowBytes(swizzle)))
    return fmt::format(
        "start {} is {} B into a {}-byte swizzle atom with base offset 0 (only k offsets inside the first row are "
        "allowed)",
        start, start % wgmmaAtomBytes(swizzle), wgmmaAtomBytes(swizzle));
  return "";
}

namespace {
// Address bits 4 .. 3 + b are XORed with bits 7 .. 6 + b: b = 3 (128-byte), 2 (64-byte), 1 (32-byte).
unsigned swizzleAddress(WgmmaSwizzle s, unsigned a) {
  const int b = s == WgmmaSwizzle::B128 ? 3 : s == WgmmaSwizzle::B64 ? 2 : s == WgmmaSwizzle::B32 ? 1 : 0;
  const unsigned mask = (1u << b) - 1;
  return a ^ (((a >> 7) & mask) << 4);
}
}  // namespace

unsigned wgmmaOperandAddress(const WgmmaDescriptor& d, int row, int kbyte) {
  if (d.swizzle == WgmmaSwizzle::None)
    return d.start + static_cast<unsigned>(row / 8) * d.sbo + static_cast<unsigned>(kbyte / 16) * d.lbo +
           static_cast<unsigned>(row % 8) * 16 + kbyte % 16;
  const unsigned w = static_cast<unsigned>(wgmmaRowBytes(d.swizzle));
  return swizzleAddress(d.swizzle, d.start + static_cast<unsigned>(row / 8) * d.sbo +
                                       static_cast<unsigned>(row % 8) * w + static_cast<unsigned>(kbyte));
}

unsigned wgmmaStoreOffset(WgmmaSwizzle s, int row, int kbyte, unsigned sbo, unsigned lbo) {
  if (s == WgmmaSwizzle::None)
    return static_cast<unsigned>(row / 8) * sbo + static_cast<unsigned>(kbyte / 16) * lbo +
           static_cast<unsigned>(row % 8) * 16 + kbyte % 16;
  const unsigned w = static_cast<unsigned>(wgmmaRowBytes(s));
  // Inside an atom-aligned region the swizzle XOR depends only on the row's place in its atom.
  return static_cast<unsigned>(row / 8) * sbo +
         swizzleAddress(s, static_cast<unsigned>(row % 8) * w + static_cast<unsigned>(kbyte));
}

std::string WgmmaAtom::ptx() const {
  return f16 ? fmt::format("wgmma.mma_async.sync.aligned.m64n{}k16.f32.f16.f16", n)
             : fmt::format("wgmma.mma_async.sync.aligned.m64n{}k32.s32.s8.s8", n);
}

std::string WgmmaAtom::nProblem() const {
  const bool ok = f16 ? n >= 8 && n <= 256 && n % 8 == 0
                      : n == 8 || n == 16 || n == 24 || (n >= 32 && n <= 256 && n % 16 == 0);
  return ok ? "" : fmt::format("m64n{} is not a {} wgmma shape", n, f16 ? "f16" : "s8");
}

Layout wgmmaAccumulatorLayout(int n) {
  std::vector<BitMap::Pair> p{{"t0", "k1"}, {"t1", "k2"}, {"t2", "i0"}, {"t3", "i1"}, {"t4", "i2"},
                              {"w0", "i4"}, {"w1", "i5"}, {"r0", "k0"}, {"r1", "i3"}};
  for (int r = 2; (1 << r) < n / 2; ++r) p.push_back({fmt::format("r{}", r), fmt::format("k{}", r + 1)});
  return Layout::fromMap(BitMap(std::move(p)));
}

void wgmmaAccumulatorCoord(int thread, int reg, int& row, int& col) {
  static const Layout atom = wgmmaAccumulatorLayout(256);
  static const FieldPlace rows = fieldPlace(atom, matrixIndexBits('i', 64)),
                          cols = fieldPlace(atom, matrixIndexBits('k', 256));
  auto at = [&](const FieldPlace& f) {
    return f.part(PhysKind::T, thread % 32) + f.part(PhysKind::W, thread / 32) + f.part(PhysKind::R, reg);
  };
  row = at(rows);
  col = at(cols);
}

std::string wgmmaSyncHelpers(const std::string& p) {
  return fmt::format(
      "static __device__ __forceinline__ void {0}wgmma_fence() {{ asm volatile(\"wgmma.fence.sync.aligned;\" ::: "
      "\"memory\"); }}\n"
      "static __device__ __forceinline__ void {0}wgmma_commit() {{ asm volatile(\"wgmma.commit_group.sync.aligned;\" "
      "::: \"memory\"); }}\n"
      "template <int N> static __device__ __forceinline__ void {0}wgmma_wait() {{ asm "
      "volatile(\"wgmma.wait_group.sync.aligned %0;\" :: \"n\"(N) : \"memory\"); }}\n"
      "// Shared-memory bytes written by this thread's ordinary stores (generic proxy) become visible to wgmma and "
      "bulk copies (async proxy).\n"
      "static __device__ __forceinline__ void {0}fence_async_smem() {{ asm volatile(\"fence.proxy.async.shared::cta;\" "
      "::: \"memory\"); }}\n",
      p);
}

std::string wgmmaDescriptorHelper(const std::string& name, WgmmaSwizzle s, unsigned lbo, unsigned sbo,
                                  bool runtimeOffsets) {
  const std::string lboText = runtimeOffsets ? "lbo" : std::to_string(lbo),
                    sboText = runtimeOffsets ? "sbo" : std::to_string(sbo);
  std::string o = fmt::format(
      "// Descriptor of a K-major operand ({}): start >> 4 (bits 0-13), LBO >> 4 (16-29), SBO >> 4 (32-45), layout "
      "type {} (62-63).\n",
      wgmmaSwizzleName(s), static_cast<int>(s));
  o += fmt::format("static __device__ __forceinline__ unsigned long long {}(unsigned addr{}) {{\n", name,
                   runtimeOffsets ? ", unsigned lbo, unsigned sbo" : "");
  o += fmt::format(
      "  return (unsigned long long)((addr & 0x3ffff) >> 4) | (unsigned long long)({} >> 4) << 16 | (unsigned long "
      "long)({} >> 4) << 32{};\n",
      lboText, sboText, s == WgmmaSwizzle::None ? "" : fmt::format(" | {}ull << 62", static_cast<int>(s)));
  o += "}\n";
  return o;
}

std::string wgmmaHelper(const WgmmaAtom& atom, const std::string& name, const std::string& comment) {
  const int regs = atom.accRegs();
  std::string ops, cons;
  for (int i = 0; i < regs; ++i) {
    ops += fmt::format("{}%{}", i ? ", " : "", i);
    cons += fmt::format("{}\"{}\"(d[{}])", i ? ", " : "", atom.f16 ? "+f" : "+r", i);
  }
  // Operands after the accumulators: [a0..a3 |] [da,] db, then the scale-d predicate's source (the constant 1).
  const int first = regs, scaleD = atom.aRegisters ? regs + 5 : regs + 2;
  std::string aOps = atom.aRegisters ? fmt::format("{{%{}, %{}, %{}, %{}}}", first, first + 1, first + 2, first + 3)
                                     : fmt::format("%{}", first);
  const int bOp = atom.aRegisters ? first + 4 : first + 1;
  // f16: imm-scale-a, imm-scale-b = 1; imm-trans-a (descriptor A only), imm-trans-b = 0 (both K-major).
  std::string tail = fmt::format("{}, %{}, p", aOps, bOp);
  if (atom.f16) tail += atom.aRegisters ? ", 1, 1, 0" : ", 1, 1, 0, 0";
  const std::string params = atom.aRegisters ? "wf_u32 a0, wf_u32 a1, wf_u32 a2, wf_u32 a3, unsigned long long b"
                                             : "unsigned long long da, unsigned long long db";
  const std::string inputs = atom.aRegisters ? "\"r\"(a0), \"r\"(a1), \"r\"(a2), \"r\"(a3), \"l\"(b), \"r\"(1)"
                                             : "\"l\"(da), \"l\"(db), \"r\"(1)";
  std::string o = comment.empty() ? "" : comment + "\n";
  o += fmt::format("static __device__ __forceinline__ void {}({} (&d)[{}], {}) {{\n", name, atom.f16 ? "float" : "int",
                   regs, params);
  o += fmt::format("  asm volatile(\"{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{}, 0;\\n{} {{{}}}, {};\\n}}\\n\"\n", scaleD,
                   atom.ptx(), ops, tail);
  o += fmt::format("               : {}\n", cons);
  o += fmt::format("               : {} : \"memory\");\n", inputs);
  o += "}";
  return o;
}

int sharedWavefronts16(const unsigned (&addresses)[8]) {
  // Per 16-byte bank group (address / 16 mod 8), the distinct 16-byte chunks it serves: one wavefront each.
  int worst = 1;
  for (int g = 0; g < 8; ++g) {
    unsigned seen[8];
    int count = 0;
    for (unsigned a : addresses)
      if (a / 16 % 8 == static_cast<unsigned>(g) && std::find(seen, seen + count, a / 16) == seen + count)
        seen[count++] = a / 16;
    worst = std::max(worst, count);
  }
  return worst;
}

}  // namespace warpforge
