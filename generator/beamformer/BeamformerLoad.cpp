#include "generator/beamformer/BeamformerLoad.h"

namespace warpforge {

using namespace ast;

// Two receivers per 32-bit load where the operand allows it: interleaved 8-bit (4 bytes) or ci4 (2 bytes),
// receiver stride 1 and every other stride even (k is even at the start of a word).
bool bfVectorOk(const BfOperand& o) {
  if (o.type == BfType::CF16 || o.planar || o.receiver != 1) return false;
  return o.batch % 2 == 0 && o.channel % 2 == 0 && o.polarization % 2 == 0 && o.outer % 2 == 0;
}

// The staged word of operand `o` for row element index `idx` (receiver k) into variable `dst`:
// 8-bit: receivers k, k + 1 as (re, im) byte pairs; f16: receiver k's (re, im) halves. Zero where invalid.
// `pa`, `pb`: the operand's arrays (pb: planar imaginary parts). `validRow`: the row (time / beam) exists.
std::vector<NodePtr> bfLoadWord(const BfKernelContext& x, const BfOperand& o, const std::string& pa,
                                const std::string& pb, const NodePtr& idx, const NodePtr& k, const NodePtr& validRow,
                                const std::string& dst, bool clamp8) {
  std::vector<NodePtr> out;
  const long long K = x.s.receivers;
  auto one = [&](const NodePtr& i) -> NodePtr {  // 16 bits (8-bit types) or 32 bits (f16) of one receiver
    switch (o.type) {
      case BfType::CI8:
        if (o.planar)
          return bin("|", cast("wf_u32", index(cast("const unsigned char*", var(pa)), i)),
                     bin("<<", cast("wf_u32", index(cast("const unsigned char*", var(pb)), i)), lit(8)));
        return cast("wf_u32", index(cast("const unsigned short*", var(pa)), i));
      case BfType::CI4:
        return call(o.ci4RealHigh ? "bf_widen1_hi" : "bf_widen1_lo",
                    {cast("wf_u32", index(cast("const unsigned char*", var(pa)), i))});
      case BfType::CF16:
        if (o.planar)
          return bin("|", cast("wf_u32", index(cast("const unsigned short*", var(pa)), i)),
                     bin("<<", cast("wf_u32", index(cast("const unsigned short*", var(pb)), i)), lit(16)));
        return index(cast("const wf_u32*", var(pa)), i);
    }
    return lit(0);
  };
  out.push_back(assign(var(dst), lit(0)));
  if (o.type == BfType::CF16) {
    out.push_back(ifStmt(bin("&&", validRow, bin("<", k, lit(K))), assign(var(dst), one(idx))));
    return out;
  }
  NodePtr second = bin("+", idx, lit(o.receiver));
  std::vector<NodePtr> scalar;
  scalar.push_back(ifStmt(bin("<", k, lit(K)), assign(var(dst), one(idx))));
  scalar.push_back(
      ifStmt(bin("<", bin("+", k, lit(1)), lit(K)), assign(var(dst), bin("<<", one(second), lit(16)), "|=")));
  if (bfVectorOk(o)) {
    NodePtr vec = o.type == BfType::CI8
                      ? index(cast("const wf_u32*", var(pa)), bin(">>", idx, lit(1)))
                      : call(o.ci4RealHigh ? "bf_widen2_hi" : "bf_widen2_lo",
                             {cast("wf_u32", index(cast("const unsigned short*", var(pa)), bin(">>", idx, lit(1))))});
    out.push_back(
        ifStmt(validRow, block({ifStmt(bin("<", bin("+", k, lit(1)), lit(K)), assign(var(dst), vec), block(scalar))})));
  } else {
    out.push_back(ifStmt(validRow, block(scalar)));
  }
  if (clamp8) out.push_back(assign(var(dst), call("bf_clamp8", {var(dst)})));
  return out;
}

}  // namespace warpforge
