#include "generator/gridder/GridderMmaFragments.h"

#include <stdexcept>

#include <fmt/format.h>

#include "generator/gridder/GridderEmit.h"
#include "generator/layout/FragmentTable.h"

namespace warpforge {

using gridemit::kQual;

QuadFragments tf32Fragments() {
  const MmaShape* m = findMmaShape("m16n8k8", "tf32");
  if (!m || m->a.numRegisters() != 4 || m->b.numRegisters() != 2 || m->c.numRegisters() != 4)
    throw std::logic_error("gridder: the fragment table has no m16n8k8 tf32 shape with 4 / 2 / 4 registers");
  QuadFragments q{};
  for (int r = 0; r < 4; ++r) {
    const auto [ai, ak] = m->a.coord(Operand::A, 0, r, 0);
    const auto [ci, ck] = m->c.coord(Operand::C, 0, r, 0);
    q.aRow[r] = ai, q.aK[r] = ak, q.cRow[r] = ci, q.cCol[r] = ck;
  }
  for (int r = 0; r < 2; ++r) q.bK[r] = m->b.coord(Operand::B, 0, r, 0).first;
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane / 4, t = lane % 4;
    for (int r = 0; r < 4; ++r) {
      if (m->a.coord(Operand::A, lane, r, 0) != std::make_pair(g + q.aRow[r], t + q.aK[r]) ||
          m->c.coord(Operand::C, lane, r, 0) != std::make_pair(g + q.cRow[r], 2 * t + q.cCol[r]))
        throw std::logic_error(
            fmt::format("gridder: the m16n8k8 tf32 A or C fragment is not quad-shaped at lane {} register {}", lane,
                        r));
    }
    for (int r = 0; r < 2; ++r)
      if (m->b.coord(Operand::B, lane, r, 0) != std::make_pair(t + q.bK[r], g))
        throw std::logic_error(
            fmt::format("gridder: the m16n8k8 tf32 B fragment is not quad-shaped at lane {} register {}", lane, r));
  }
  // The phasor's cosine and sine of one (pixel, visibility) pair go to k = t and k = t + 4 of A; B's
  // two registers hold the matching cos row and sin row.
  for (int r = 0; r < 4; ++r)
    if ((q.aRow[r] != 0 && q.aRow[r] != 8) || (q.aK[r] != 0 && q.aK[r] != 4))
      throw std::logic_error("gridder: unexpected m16n8k8 tf32 A fragment offsets");
  if (q.bK[0] + q.bK[1] != 4 || (q.bK[0] != 0 && q.bK[0] != 4))
    throw std::logic_error("gridder: unexpected m16n8k8 tf32 B fragment offsets");
  return q;
}

std::string tf32MmaHelpers() {
  const MmaShape* m = findMmaShape("m16n8k8", "tf32");  // tf32Fragments() has checked it
  std::string o;
  o += "// round to tf32 (10-bit mantissa, nearest): the hi part; x - hi is the lo part, exact in f32\n";
  o += fmt::format(
      "{} unsigned gr_tf32(float x) {{\n  unsigned r;\n  asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(r) : \"f\"(x));\n  "
      "return r;\n}}\n",
      kQual);
  o += "// c += a b, one m16n8k8 tf32 product (fragments as in the PTX ISA: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 "
       "(g+8, t+4); b0 (t, g), b1 (t+4, g))\n";
  o += fmt::format(
      "{} void gr_mma(float4& c, unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0, unsigned b1) {{\n"
      "  asm(\"{} {{%0, %1, %2, %3}}, {{%4, %5, %6, %7}}, {{%8, %9}}, {{%0, %1, %2, %3}};\"\n"
      "      : \"+f\"(c.x), \"+f\"(c.y), \"+f\"(c.z), \"+f\"(c.w)\n"
      "      : \"r\"(a0), \"r\"(a1), \"r\"(a2), \"r\"(a3), \"r\"(b0), \"r\"(b1));\n}}\n",
      kQual, m->ptx());
  return o;
}

}  // namespace warpforge
