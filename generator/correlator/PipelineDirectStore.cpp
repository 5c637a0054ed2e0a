// The direct pipeline's store of a tile's visibilities or accumulators (PipelineDirectStore.h).
#include "generator/correlator/PipelineDirectStore.h"

#include <fmt/format.h>

namespace warpforge {

using corr_emit::Code;

// The tile's visibilities from d0 (row inputs 0..31 of the warpgroup) and d1 (32..63): Re of (row gi, column gj) in
// d[4 j + e], Im in d[4 j + 2 + e] (checkDirect proves it from the accumulator atom).
void emitDirectStore(Code& c, const CorrelatorSpec& s, const DirectPipe& p, bool half, int fromCol) {
  const bool f16 = s.type == SampleType::CF16, vis = s.writesVisibilities(), neg = s.conjugate == "r1";
  const int P = s.polarizations, blocks = (half ? p.rows / 2 : p.rows) / 8;
  const std::string V = f16 ? "float" : "int";
  c(fmt::format("const int gi0 = row0 + 64 * cg + 8 * (warp & 3) + (lane >> 2), gj0 = col0 + {} + 2 * (lane & 3);",
                fromCol));
  if (vis)
    c(fmt::format("{0}* const visv = ({0}*)vis + (b * {1}LL + channel) * {2}LL;", f16 ? "float2" : "int2", s.channels,
                  s.visibilitiesPerChannel()));
  else
    c(fmt::format("{0}* const accv = ({0}*)acc + (b * {1}LL + channel) * {2}LL;", f16 ? "float2" : "longlong2",
                  s.channels, s.visibilitiesPerChannel()));
  const bool shuffle = vis && P == 2 && s.polOrder != "r1_r2";
  if (shuffle) c("const bool hi = (lane & 4) != 0;  // the odd row input of a receiver's pair (lane bit 2: row bit 0)");
  if (p.bulkStore) {
    c(
        fmt::format("// The warpgroup's staging ({} runs of {} B every {} B): free once its previous tile's bulk "
                    "stores "
                    "have read it.",
                    p.stageRuns, p.stageRunBytes, p.stageRunStride));
    c(fmt::format("const unsigned stage = ring + {}u + (unsigned)cg * {}u;", p.staging,
                  p.stageRuns * p.stageRunStride));
    c("if ((warp & 3) == 0) wfa_bulk_wait_read0();");
    c("wfa_bar_sync(1 + cg, 128);  // the staging is free");
  }
  for (int h = 0; h < 2; ++h) {
    c("#pragma unroll");
    c.open(fmt::format("for (int j = 0; j < {}; ++j)", blocks));
    c(fmt::format("const int gi = gi0 + {}, gj = gj0 + 8 * j;", 32 * h));
    auto re = [&](const std::string& e) { return fmt::format("d{}[4 * j + {}]", h, e); };
    auto im = [&](const std::string& e) { return fmt::format("{}d{}[4 * j + 2 + {}]", neg ? "-" : "", h, e); };
    // The staging byte of this thread's 16 bytes (PipelineDirect.h: stageOffset; `pq`: its first polarization
    // product).
    auto staged = [&](const std::string& pq, const std::string& a, const std::string& b, const std::string& cc,
                      const std::string& d) {
      return fmt::format(
          "wfa_sts128(stage + (unsigned)((gj - col0) >> 1) * {}u + (unsigned)((gi - row0 - 64 * cg) >> 1) * 32u + "
          "{}, make_uint4(corr_bits({}), corr_bits({}), corr_bits({}), corr_bits({})))",
          p.stageRunStride, pq, a, b, cc, d);
    };
    if (vis && P == 2 && !shuffle) {
      // [bl][p = gi & 1][q = 0, 1]: this thread's columns gj, gj + 1, one 16-byte store.
      c("const int r1 = gi >> 1, r2 = gj >> 1;");
      if (p.bulkStore)
        c(fmt::format("if (r1 <= r2 && gj < {}) {};", p.N,
                      staged("(gi & 1) * 16u", re("0"), im("0"), re("1"), im("1"))));
      else
        c(
            fmt::format("if (r1 <= r2 && gj < {}) *({}4*)(visv + ((long long)r2 * (r2 + 1) / 2 + r1) * 4 + (gi & 1) * "
                        "2) "
                        "= make_{}4({}, {}, {}, {});",
                        p.N, V, V, re("0"), im("0"), re("1"), im("1")));
    } else if (shuffle) {
      // [bl][q][p = 0, 1]: rows gi, gi + 1 are lanes lane, lane ^ 4. The even row keeps column gj and receives the
      // odd row's; the odd row keeps column gj + 1 and receives the even row's.
      c(fmt::format("const {0} give_re = hi ? {1} : {2}, give_im = hi ? {3} : {4};", V, re("0"), re("1"), im("0"),
                    im("1")));
      c(
          fmt::format("const {} got_re = __shfl_xor_sync(0xffffffffu, give_re, 4), got_im = "
                      "__shfl_xor_sync(0xffffffffu, "
                      "give_im, 4);",
                      V));
      c("const int r1 = gi >> 1, r2 = gj >> 1;");
      if (p.bulkStore) {
        c(fmt::format("if (r1 <= r2 && gj < {}) {{", p.N));
        c(fmt::format("  if (hi) {};", staged("16u", "got_re", "got_im", re("1"), im("1"))));
        c(fmt::format("  else {};", staged("0u", re("0"), im("0"), "got_re", "got_im")));
        c("}");
      } else {
        c(
            fmt::format("if (r1 <= r2 && gj < {}) *({}4*)(visv + ((long long)r2 * (r2 + 1) / 2 + r1) * 4 + (hi ? 2 : "
                        "0)) "
                        "= "
                        "hi ? make_{}4(got_re, got_im, {}, {}) : make_{}4({}, {}, got_re, got_im);",
                        p.N, V, V, re("1"), im("1"), V, re("0"), im("0")));
      }
    } else {
      c("#pragma unroll");
      c.open("for (int e = 0; e < 2; ++e)");
      if (P == 2) c("const int r1 = gi >> 1, r2 = (gj + e) >> 1;");
      else c("const int r1 = gi, r2 = gj + e;");
      c.open(fmt::format("if (r1 <= r2 && gj + e < {})", p.N));
      c("const long long bl = (long long)r2 * (r2 + 1) / 2 + r1;");
      const std::string T = vis ? (f16 ? "float2" : "int2") : (f16 ? "float2" : "longlong2");
      std::string at = "bl";
      if (P == 2)
        at = s.polOrder == "r1_r2" ? "(bl * 2 + (gi & 1)) * 2 + ((gj + e) & 1)"
                                   : "(bl * 2 + ((gj + e) & 1)) * 2 + (gi & 1)";
      if (vis) {
        c(fmt::format("visv[{}] = make_{}({}, {});", at, T, re("e"), im("e")));
      } else {
        c(fmt::format("{}* const dst = accv + {};", T, at));
        c(fmt::format("{} o = dst[0];", T));
        c(fmt::format("o.x += {}{};", f16 ? "" : "(long long)", re("e")));
        c(fmt::format("o.y += {}({});", f16 ? "" : "(long long)", im("e")));
        c("dst[0] = o;");
      }
      c.close();
      c.close();
    }
    c.close();
  }
  if (p.bulkStore) {
    c("corr_fence_async_smem();  // the staging is read by the bulk stores (async proxy)");
    c("wfa_bar_sync(1 + cg, 128);  // the warpgroup's staging is written");
    c("// One run per column receiver r2: the warpgroup's row receivers up to r2 (the triangle), 32 bytes each.");
    c.open("if ((warp & 3) == 0)");
    c("const int rr0 = (row0 + 64 * cg) >> 1;  // the warpgroup's first row receiver");
    c("#pragma unroll");
    c.open(fmt::format("for (int run = lane; run < {}; run += 32)", p.stageRuns));
    c("const int r2 = (col0 >> 1) + run, last = min(r2, rr0 + 31);");
    c(
        fmt::format("if (r2 < {} && last >= rr0) wfa_bulk_s2g(visv + ((long long)r2 * (r2 + 1) / 2 + rr0) * 4, stage + "
                    "(unsigned)run * {}u, (unsigned)(last - rr0 + 1) * 32u);",
                    p.N / 2, p.stageRunStride));
    c.close();
    c("wfa_bulk_commit();");
    c.close();
  }
}

}  // namespace warpforge
