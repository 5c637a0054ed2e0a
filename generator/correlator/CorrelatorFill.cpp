#include "generator/correlator/CorrelatorEmitContext.h"

#include "ast/Passes.h"

// The fill of one shared-memory stage of the correlate kernel: global loads into registers, then clamp / widen and
// 16-byte stores in the layout the MMA operand loads expect (ldmatrix rows or wgmma core matrices).
namespace warpforge::corr_emit {

using namespace ast;

NodePtr u32(long long v) { return cast("wf_u32", lit(v)); }

NodePtr declArrayless(const std::string& name) { return decl("wf_u32", name); }

// Offset (in samples) of time `t` (an expression) for receiver r, pol p (expressions), relative to the channel's base.
NodePtr sampleOffsetExpr(const Ctx& x, const NodePtr& r, const NodePtr& p, const NodePtr& t) {
  const CorrelatorInput& in = x.s.input;
  NodePtr off = bin("+", bin("*", cast("long long", r), lit(in.receiver)), bin("*", p, lit(in.polarization)));
  if (in.timesPerBlock > 1) {
    off = bin("+", off, bin("*", cast("long long", bin("/", t, lit(in.timesPerBlock))), lit(in.timeBlock)));
    off = bin("+", off, bin("*", bin("%", t, lit(in.timesPerBlock)), lit(in.time)));
  } else {
    off = bin("+", off, bin("*", cast("long long", t), lit(in.timeBlock)));
  }
  return foldConstants(off);
}

// Statements that turn the loaded source words into `count` staged words w0.. (ci4: widen; 8-bit: clamp).
// `src` are the names of the source words (wf_u32 variables); writes the staged words into `dst` names.
std::vector<NodePtr> stageWords(const Ctx& x, const std::vector<std::string>& src,
                                const std::vector<std::string>& dst) {
  std::vector<NodePtr> out;
  if (x.s.type == SampleType::CI4) {
    for (std::size_t k = 0; k < src.size(); ++k)
      out.push_back(exprStmt(call(x.s.ci4RealHigh ? "corr_widen4_hi" : "corr_widen4_lo",
                                  {var(src[k]), var(dst[2 * k]), var(dst[2 * k + 1])})));
  } else if (x.s.type == SampleType::CI8) {
    for (std::size_t k = 0; k < src.size(); ++k) out.push_back(assign(var(dst[k]), call("corr_clamp8", {var(src[k])})));
  } else {
    for (std::size_t k = 0; k < src.size(); ++k) out.push_back(assign(var(dst[k]), var(src[k])));
  }
  return out;
}

// Stores staged words (4 consecutive words starting at word index `w0`, a multiple of 4) of row `n` of side `side`:
// rows hold the staged words in time order (what the ldmatrix address layouts assume), so the 4 words are one
// 16-byte store (rows are 16-byte aligned: the row stride is a multiple of 4 words); the column side also
// stores its conj_perm copy.
std::vector<NodePtr> storeStaged(const Ctx& x, int side, const NodePtr& n, const NodePtr& w0,
                                 const std::vector<std::string>& words) {
  std::vector<NodePtr> out;
  if (x.wg) {
    // wgmma: row r, 16-byte chunk c of a region at (r / 8) sbo + c lbo + (r % 8) 16 (WgmmaStage::offset, PTX's
    // canonical layout: the three strides are read from it); the column side's rows are 2 n (plain) and 2 n + 1
    // (conj_perm copy).
    const long long rowGroup = x.ws.offset(8, 0), chunk = x.ws.offset(0, 16), rowInGroup = x.ws.offset(1, 0);
    auto at = [&](const NodePtr& row, long long region) {
      // every fill path stages 4 words (one 16-byte chunk, w0 = 4 g) per unit: the chunk index is g
      NodePtr off = bin("+", bin("+", bin("*", bin(">>", row, lit(3)), lit(rowGroup)), bin("*", var("g"), lit(chunk))),
                        bin("*", bin("&", row, lit(7)), lit(rowInGroup)));
      if (region) off = bin("+", off, lit(region));
      return index(cast("uint4*", bin("+", var("sbuf"), foldConstants(off))), lit(0));
    };
    std::vector<NodePtr> plain, conj;
    for (const auto& w : words) {
      plain.push_back(var(w));
      conj.push_back(call("corr_conj_perm", {var(w)}));
    }
    if (side == 0) {
      out.push_back(assign(at(n, 0), call("make_uint4", plain)));
    } else {
      out.push_back(assign(at(bin("*", n, lit(2)), x.ws.aBytes), call("make_uint4", plain)));
      out.push_back(assign(at(bin("+", bin("*", n, lit(2)), lit(1)), x.ws.aBytes), call("make_uint4", conj)));
    }
    return out;
  }
  auto store = [&](NodePtr row, std::vector<NodePtr> vals) {
    out.push_back(
        assign(index(cast("uint4*", unary("&", index(row, w0))), lit(0)), call("make_uint4", std::move(vals))));
  };
  std::vector<NodePtr> plain, conj;
  for (const auto& w : words) {
    plain.push_back(var(w));
    conj.push_back(call("corr_conj_perm", {var(w)}));
  }
  if (side == 0) {
    store(index(var("sa"), n), plain);
  } else {
    store(index(index(var("sb"), n), lit(0)), plain);
    store(index(index(var("sb"), n), lit(1)), conj);
  }
  return out;
}

Fill emitFill(const Ctx& x) {
  Fill out;
  const int threads = x.t.threads();
  const int rows = x.t.rowsPerBlock;
  const long long eb = elemBytes(x.s.type);
  const int groupsPerRow = x.ts /
                           x.vt;  // units along time per row (4 staged words each for Time; PolTime: per receiver)
  const bool pol = x.path == LoadPath::PolTime;
  const int rowsPerUnit = pol ? 2 : 1;
  const int unitsPerSide = rows / rowsPerUnit * groupsPerRow;
  int parts = 0;  // async: 16-byte raw slots of one thread per stage, in program order
  for (int side = 0; side < 2; ++side) {
    const std::string tileVar = side == 0 ? "ti" : "tj";
    for (int k = 0; k * threads < unitsPerSide; ++k) {
      const std::string L = fmt::format("L{}_{}_", side, k);
      auto index0 = [&](std::vector<NodePtr>& body) {
        body.push_back(decl("const int", "u", bin("+", var("tid"), lit(static_cast<long long>(k) * threads))));
        if (x.wg) {
          // wgmma: 8 consecutive threads on 8 unit rows of one 16-byte chunk (one core matrix: conflict-free stores)
          body.push_back(decl("const int", "g", bin("%", bin("/", var("u"), lit(8)), lit(groupsPerRow))));
          body.push_back(decl("const int", "n",
                              bin("*",
                                  bin("+", bin("*", bin("/", var("u"), lit(8 * groupsPerRow)), lit(8)),
                                      bin("%", var("u"), lit(8))),
                                  lit(rowsPerUnit))));
        } else {
          body.push_back(decl("const int", "g", bin("%", var("u"), lit(groupsPerRow))));
          body.push_back(decl("const int", "n", bin("*", bin("/", var("u"), lit(groupsPerRow)), lit(rowsPerUnit))));
        }
      };
      std::vector<NodePtr> ld, st, rawReads;
      index0(ld);
      index0(st);
      const std::size_t stHead = st.size();
      ld.push_back(
          decl("const int", "gi", bin("+", bin("*", var(tileVar), lit(rows)), var("n"))));  // first input of the unit
      ld.push_back(decl("const int", "t", bin("+", var("sl"), bin("*", var("g"), lit(x.vt)))));
      const NodePtr valid = bin("<", var("gi"), lit(x.N));
      const NodePtr r = pol ? bin("/", var("gi"), lit(2)) : (x.P == 2 ? bin(">>", var("gi"), lit(1)) : var("gi"));
      const NodePtr p = pol ? lit(0) : (x.P == 2 ? bin("&", var("gi"), lit(1)) : lit(0));
      const NodePtr addr = bin("+", var("chan"), bin("*", sampleOffsetExpr(x, r, p, var("t")), lit(eb)));
      const NodePtr w0 = bin("*", var("g"), lit(4));  // word index of the unit's first staged word in its row
      // Loads of `bytes` at `a` into L<h*4 + q>, zero where the unit's input is beyond the receivers.
      auto load = [&](int bytes, const NodePtr& a, int first) {
        const int words = bytes / 4;
        const char* vt = words == 4 ? "uint4" : words == 2 ? "uint2" : "unsigned int";
        static const char* f[] = {"x", "y", "z", "w"};
        std::vector<NodePtr> then, otherwise;
        const std::string v = fmt::format("{}v{}", L, first);
        if (x.async) {
          // cp.async into this thread's raw slot (zero-filled where the unit's input is beyond the receivers; the
          // source then points at the channel's start); the stage step reads it back into the L registers.
          const NodePtr slot = bin("+", var("rawp"),
                                   bin("*", bin("+", lit(static_cast<long long>(parts++) * threads), var("tid")),
                                       lit(16)));
          ld.push_back(
              exprStmt(call(fmt::format("corr_cp_async{}", bytes), {slot, ternary(valid, a, var("chan")), valid})));
          rawReads.push_back(
              decl(fmt::format("const {}", vt), v, index(cast(fmt::format("const {}*", vt), slot), lit(0))));
          for (int q = 0; q < words; ++q) {
            const std::string dst = fmt::format("{}{}", L, first + q);
            out.decls.push_back(decl("wf_u32", dst, lit(0)));
            rawReads.push_back(assign(var(dst), words == 1 ? var(v) : member(var(v), f[q])));
          }
          return;
        }
        then.push_back(decl(fmt::format("const {}", vt), v, call("__ldg", {cast(fmt::format("const {}*", vt), a)})));
        for (int q = 0; q < words; ++q) {
          const std::string dst = fmt::format("{}{}", L, first + q);
          out.decls.push_back(decl("wf_u32", dst, lit(0)));
          then.push_back(assign(var(dst), words == 1 ? var(v) : member(var(v), f[q])));
          otherwise.push_back(assign(var(dst), lit(0)));
        }
        ld.push_back(ifStmt(valid, block(then), block(otherwise)));
      };
      if (x.path == LoadPath::Time) {
        const int bytes = static_cast<int>(x.vt * eb);
        load(bytes, addr, 0);
        std::vector<std::string> src, dst = names("w", 0, 4);
        for (int q = 0; q < bytes / 4; ++q) src.push_back(fmt::format("{}{}", L, q));
        for (auto& d : dst) st.push_back(declArrayless(d));
        for (auto& e : stageWords(x, src, dst)) st.push_back(e);
        for (auto& e : storeStaged(x, side, var("n"), w0, dst)) st.push_back(e);
      } else if (x.path == LoadPath::PolTime) {
        // vt times x 2 pols: ci8 32 bytes, ci4 16, cf16 32; staged words of pol 0 and pol 1.
        const int bytes = static_cast<int>(x.vt * 2 * eb);
        std::vector<std::string> src;
        for (int h = 0; h * 16 < bytes; ++h) {
          const int part = std::min(16, bytes - 16 * h);
          load(part, bin("+", addr, lit(16LL * h)), 4 * h);
          for (int q = 0; q < part / 4; ++q) src.push_back(fmt::format("{}{}", L, 4 * h + q));
        }
        // Interleaved staged words (8-bit after widening): word k holds (time k, pol 0), (time k, pol 1) for 8-bit;
        // for f16 word 2k is (time k, pol 0), 2k + 1 (time k, pol 1).
        std::vector<std::string> mixed = names("x", 0, 8);
        for (auto& d : mixed) st.push_back(declArrayless(d));
        for (auto& e : stageWords(x, src, mixed)) st.push_back(e);
        std::vector<std::string> p0 = names("w", 0, 4), p1 = names("y", 0, 4);
        for (auto& d : p0) st.push_back(declArrayless(d));
        for (auto& d : p1) st.push_back(declArrayless(d));
        for (int q = 0; q < 4; ++q) {
          if (x.s.type == SampleType::CF16) {
            st.push_back(assign(var(p0[q]), var(mixed[2 * q])));
            st.push_back(assign(var(p1[q]), var(mixed[2 * q + 1])));
          } else {
            // staged word q of a pol = its samples at times 2q, 2q + 1 = low halves (pol 0) or high halves (pol 1) of
            // mixed words 2q, 2q + 1.
            st.push_back(
                assign(var(p0[q]), call("__byte_perm", {var(mixed[2 * q]), var(mixed[2 * q + 1]), lit(0x5410)})));
            st.push_back(
                assign(var(p1[q]), call("__byte_perm", {var(mixed[2 * q]), var(mixed[2 * q + 1]), lit(0x7632)})));
          }
        }
        for (auto& e : storeStaged(x, side, var("n"), w0, p0)) st.push_back(e);
        for (auto& e : storeStaged(x, side, bin("+", var("n"), lit(1)), w0, p1)) st.push_back(e);
      } else {
        // Element: 4 staged words = 4 * timesPerWord samples, each loaded alone (and clamped / widened in the load
        // part).
        const int tpw = x.m.timesPerWord;
        std::vector<std::string> dst;
        for (int q = 0; q < 4; ++q) {
          dst.push_back(fmt::format("{}{}", L, q));
          out.decls.push_back(decl("wf_u32", dst.back(), lit(0)));
        }
        for (int q = 0; q < 4; ++q) {
          if (x.s.type == SampleType::CF16) {
            ld.push_back(
                assign(var(dst[q]),
                       ternary(valid,
                               call("__ldg", {cast("const unsigned int*",
                                                   bin("+", var("chan"),
                                                       bin("*", sampleOffsetExpr(x, r, p, bin("+", var("t"), lit(q))),
                                                           lit(eb))))}),
                               u32(0))));
          } else {
            std::vector<NodePtr> parts;
            for (int h = 0; h < tpw; ++h) {
              NodePtr a = bin("+", var("chan"),
                              bin("*", sampleOffsetExpr(x, r, p, bin("+", var("t"), lit(q * tpw + h))), lit(eb)));
              NodePtr v = x.s.type == SampleType::CI8
                              ? cast("wf_u32", call("__ldg", {cast("const unsigned short*", a)}))
                              : call(x.s.ci4RealHigh ? "corr_widen1_hi" : "corr_widen1_lo",
                                     {call("__ldg", {cast("const unsigned char*", a)})});
              parts.push_back(h == 0 ? v : bin("<<", v, lit(16)));
            }
            NodePtr word = parts.size() == 1 ? parts[0] : bin("|", parts[0], parts[1]);
            NodePtr clamp = call(x.s.type == SampleType::CI8 ? "corr_clamp8" : "corr_clamp4", {word});
            ld.push_back(assign(var(dst[q]), ternary(valid, clamp, u32(0))));
          }
        }
        for (auto& e : storeStaged(x, side, var("n"), w0, dst)) st.push_back(e);
      }
      st.insert(st.begin() + static_cast<std::ptrdiff_t>(stHead), rawReads.begin(), rawReads.end());
      NodePtr ldBlock = block(ld), stBlock = block(st);
      if ((k + 1) * threads > unitsPerSide) {
        NodePtr own = bin("<", bin("+", var("tid"), lit(static_cast<long long>(k) * threads)), lit(unitsPerSide));
        ldBlock = ifStmt(own, ldBlock);
        stBlock = ifStmt(own, stBlock);
      }
      out.loads.push_back(ldBlock);
      out.stages.push_back(stBlock);
    }
  }
  out.rawStageBytes = parts * threads * 16;
  return out;
}

}  // namespace warpforge::corr_emit
