#include "generator/gridder/GridderMmaFragments.h"

#include <stdexcept>

#include <fmt/format.h>

#include "generator/gridder/GridderEmit.h"
#include "generator/complexmma/ComplexMma.h"
#include "generator/layout/FragmentTable.h"
#include "generator/verify/MmaCheck.h"

namespace warpforge {

using gridemit::kQual;

GridderMmaLayouts gridderMmaLayouts(bool degrid) {
  GridderMmaLayouts l;
  if (degrid) {
    l.a = cmma::layoutText("t0 t1 t2 t3 t4 <-> pix0 pix1 ReIm cor0 cor1, r0 r1 <-> part SinCos");
    l.b = cmma::layoutText("t0 t1 t2 t3 t4 <-> pix0 pix1 vis0 vis1 vis2, r0 <-> SinCos");
    l.c = cmma::layoutText("t0 t1 t2 t3 t4 <-> vis1 vis2 ReIm cor0 cor1, r0 r1 <-> vis0 part");
    l.rowHalf = "part";
    l.colPair = "vis0";
  } else {
    l.a = cmma::layoutText("t0 t1 t2 t3 t4 <-> vis0 vis1 pix0 pix1 pix2, r0 r1 <-> pix3 SinCos");
    l.b = cmma::layoutText("t0 t1 t2 t3 t4 <-> vis0 vis1 ReIm cor0 cor1, r0 <-> SinCos");
    l.c = cmma::layoutText("t0 t1 t2 t3 t4 <-> cor0 cor1 pix0 pix1 pix2, r0 r1 <-> ReIm pix3");
    l.rowHalf = "pix3";
    l.colPair = "ReIm";
  }
  return l;
}

std::vector<std::string> gridderMmaProblems(const GridderMmaLayouts& l) {
  const MmaShape* m = findMmaShape("m16n8k8", "tf32");
  if (!m) return {"the fragment table has no m16n8k8 tf32 shape"};
  std::vector<std::string> out =
      checkMmaOperands(*m, {"A", &l.a}, {"B", &l.b}, {"C", &l.c}, {/*fixedRegisters=*/true}).problems;
  const auto a = matrixBits(l.a, m->a);
  if (out.empty() && (!a || a->apply("j2") != "SinCos"))
    out.push_back("SinCos must be summed bit j2 of A and B (k 0..3 the cosine, k 4..7 the sine)");
  return out;
}

QuadFragments tf32Fragments(bool degrid) {
  const GridderMmaLayouts l = gridderMmaLayouts(degrid);
  if (const auto problems = gridderMmaProblems(l); !problems.empty())
    throw std::logic_error(fmt::format("gridder: the m16n8k8 tf32 operand layouts: {}", problems.front()));
  QuadFragments q{};
  for (int r = 0; r < 4; ++r) {
    q.aRow[r] = 8 * cmma::regField(l.a, {l.rowHalf}, r);
    q.aK[r] = 4 * cmma::regField(l.a, {"SinCos"}, r);
    q.cRow[r] = 8 * cmma::regField(l.c, {l.rowHalf}, r);
    q.cCol[r] = cmma::regField(l.c, {l.colPair}, r);
  }
  for (int r = 0; r < 2; ++r) q.bK[r] = 4 * cmma::regField(l.b, {"SinCos"}, r);
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
