#include "generator/correlator/PipelineTransform.h"

#include <fmt/format.h>

namespace warpforge {

using corr_emit::Code;

void emitUnitVariables(Code& c, const CorrPipe& p, const std::string& t, int threads) {
  const bool f16 = p.type == SampleType::CF16;
  c(fmt::format("// this thread's transform units: entry {0} % {1} of the table, 8-row groups {0} / {1} + {2} j", t,
                p.units.size(), threads / static_cast<int>(p.units.size())));
  c(fmt::format("const uint2 un = corr_units[{} % {}];", t, p.units.size()));
  c(fmt::format("const unsigned g0 = {} / {};", t, p.units.size()));
  c(fmt::format("const unsigned rd0 = g0 * {}u + (un.x & 0xffffu);", p.rawGroupBase(1)));
  c("const unsigned wa0 = g0 * 512u + (un.y & 0xfffu), wa1 = g0 * 512u + ((un.y >> 12) & 0xfffu);");
  c("const unsigned wb0 = g0 * 1024u + (un.y & 0xfffu), wb1 = g0 * 1024u + ((un.y >> 12) & 0xfffu);");
  c(
      fmt::format("const int tc = (int)((un.y >> 24) & 15u) * {};  // the first sample of the unit's chunk: zeros at "
                  "and past the call's end",
                  p.spc));
  if (p.kind == RawKind::PolRuns) {
    if (f16)
      c("const unsigned sw0 = (un.y >> 28) ? 0x7654u : 0x3210u, sw1 = sw0 ^ 0x4444u;  // whole words of pol 1 / pol 0");
    else c("const unsigned sp0 = (un.y >> 28) ? 0x7632u : 0x5410u, sp1 = sp0 ^ 0x2222u;  // halves of pol 1 / pol 0");
  }
}

void emitTransform(Code& c, const CorrelatorSpec& s, const CorrPipe& p, bool toB, int threads, int units) {
  const bool f16 = s.type == SampleType::CF16, ci4 = s.type == SampleType::CI4, pol = p.kind == RawKind::PolRuns;
  const int gs = threads / static_cast<int>(p.units.size());  // 8-row groups between a thread's consecutive units
  const int rdj = p.rawGroupBase(gs), oj = (toB ? 1024 : 512) * gs;
  const std::string src = toB ? "rawb" : "rawa", dst = toB ? "opb" : "opa", w0 = toB ? "wb0" : "wa0",
                    w1 = toB ? "wb1" : "wa1";
  const std::string widen = s.ci4RealHigh ? "corr_widen4_hi" : "corr_widen4_lo";
  c(fmt::format("// {}: {} unit(s) per thread; loads first (independent), then clamp{} and 16-byte stores",
                toB ? "B (samples and conj_perm copies)" : "A", units, ci4 ? " / widen" : ""));
  for (int j = 0; j < units; ++j) {
    c(fmt::format("uint4 x{0} = make_uint4(0u, 0u, 0u, 0u){1};", j,
                  pol && !ci4 ? fmt::format(", y{} = x{}", j, j) : ""));
    c(fmt::format("if (tc < nt) {{ x{0} = wfa_lds128({1} + rd0 + {2}u);{3} }}", j, src, j * rdj,
                  pol && !ci4 ? fmt::format(" y{0} = wfa_lds128({1} + rd0 + {2}u);", j, src, j * rdj + 16) : ""));
  }
  auto store = [&](const std::string& at, const std::string& words) {
    c(fmt::format("wfa_sts128({}, make_uint4({}));", at, words));
  };
  auto conj = [&](const std::string& v) {
    return fmt::format("corr_conj_perm({0}.x), corr_conj_perm({0}.y), corr_conj_perm({0}.z), corr_conj_perm({0}.w)", v);
  };
  for (int j = 0; j < units; ++j) {
    const std::string o0 = fmt::format("{} + {} + {}u", dst, w0, j * oj),
                      o1 = fmt::format("{} + {} + {}u", dst, w1, j * oj);
    c.open("");
    std::vector<std::string> first, second;  // the words of the unit's first and second output chunk
    if (!pol && !ci4) {
      if (!f16)
        for (const char* f : {"x", "y", "z", "w"}) c(fmt::format("x{0}.{1} = corr_clamp8(x{0}.{1});", j, f));
      c(fmt::format("const uint4 v0 = x{};", j));
    } else {
      // 8 words m0..m7: ci4 widened (row runs: 16 samples of one input; pol runs: 8 times x 2 pols), 8-bit clamped.
      c("wf_u32 m[8];");
      if (ci4) {
        c(
            fmt::format("{0}(x{1}.x, m[0], m[1]); {0}(x{1}.y, m[2], m[3]); {0}(x{1}.z, m[4], m[5]); {0}(x{1}.w, m[6], "
                        "m[7]);",
                        widen, j));
      } else {
        c(
            fmt::format("m[0] = x{0}.x; m[1] = x{0}.y; m[2] = x{0}.z; m[3] = x{0}.w; m[4] = y{0}.x; m[5] = y{0}.y; "
                        "m[6] = y{0}.z; m[7] = y{0}.w;",
                        j));
        if (!f16) {
          c("#pragma unroll");
          c("for (int i = 0; i < 8; ++i) m[i] = corr_clamp8(m[i]);");
        }
      }
      if (!pol) {
        c("const uint4 v0 = make_uint4(m[0], m[1], m[2], m[3]), v1 = make_uint4(m[4], m[5], m[6], m[7]);");
      } else if (f16) {
        // word k of a pol row = time k of that pol: words 2 k (pol 0), 2 k + 1 (pol 1); `sw0` picks the row written
        // first.
        c("const uint4 v0 = make_uint4(__byte_perm(m[0], m[1], sw0), __byte_perm(m[2], m[3], sw0), __byte_perm(m[4], "
          "m[5], sw0), __byte_perm(m[6], m[7], sw0));");
        c("const uint4 v1 = make_uint4(__byte_perm(m[0], m[1], sw1), __byte_perm(m[2], m[3], sw1), __byte_perm(m[4], "
          "m[5], sw1), __byte_perm(m[6], m[7], sw1));");
      } else {
        // 8-bit: mixed word k = time k's (pol 0, pol 1); a pol row's word k = times 2 k, 2 k + 1: halves of m[2 k], m[2
        // k + 1].
        c("const uint4 v0 = make_uint4(__byte_perm(m[0], m[1], sp0), __byte_perm(m[2], m[3], sp0), __byte_perm(m[4], "
          "m[5], sp0), __byte_perm(m[6], m[7], sp0));");
        c("const uint4 v1 = make_uint4(__byte_perm(m[0], m[1], sp1), __byte_perm(m[2], m[3], sp1), __byte_perm(m[4], "
          "m[5], sp1), __byte_perm(m[6], m[7], sp1));");
      }
    }
    const bool two = pol || ci4;
    store(o0, "v0.x, v0.y, v0.z, v0.w");
    if (two) store(o1, "v1.x, v1.y, v1.z, v1.w");
    if (toB) {
      store(o0 + " + 512u", conj("v0"));
      if (two) store(o1 + " + 512u", conj("v1"));
    }
    c.close();
  }
}

void emitConsumersB(Code& c, const CorrelatorSpec& s, const CorrPipe& p) {
  if (!p.bConsumerGroups) return;
  const CorrPipe::Assign share = p.transformAssign(true).back();
  c.open("");
  c(fmt::format("// B's groups {}..{} (the split transform: the loader takes the groups before them)", share.firstGroup,
                p.rows / 8 - 1));
  c(fmt::format("const int nt = min({}, {} - st * {});", p.ts, s.samples, p.ts));
  c(fmt::format("const unsigned rawb = raw_ring + rs * {}u + (diag ? 0u : {}u) + {}u;", p.rawSlotBytes, p.rawSideBytes,
                p.rawGroupBase(share.firstGroup)));
  c(fmt::format("const unsigned opb = op_ring + os * {}u + {}u;", p.opSlotBytes,
                p.aBytes + p.bOffset(8 * share.firstGroup, 0, 0)));
  emitTransform(c, s, p, true, share.threads, share.units);
  c.close();
}

}  // namespace warpforge
