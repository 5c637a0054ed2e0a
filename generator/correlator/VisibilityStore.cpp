#include "generator/correlator/VisibilityStore.h"

#include <stdexcept>

#include <fmt/format.h>

namespace warpforge::corr_emit {

using namespace ast;

namespace {

// One visibility of a thread's fragment: its Re and Im registers and its row and column offsets in the fragment.
struct FragmentVisibility {
  int re = -1, im = -1, row = 0, col = 0;
};

// The int2 index of visibility [bl(r1, r2)] (one polarization) or of [bl(r1, r2)][outer][0] (two).
NodePtr visibilityIndex(const NodePtr& outer, int P) {
  NodePtr bl = bin("+", bin("/", bin("*", cast("long long", var("r2")), bin("+", var("r2"), lit(1))), lit(2)),
                   var("r1"));
  if (P == 1) return bl;
  return bin("*", bin("+", bin("*", bl, lit(2)), outer), lit(2));
}

// `hi ? b : a` where they differ.
NodePtr pick(long long a, long long b) { return a == b ? lit(a) : ternary(var("hi"), lit(b), lit(a)); }
NodePtr clearBit0(NodePtr v) { return bin("&", std::move(v), unary("~", lit(1))); }

NodePtr negIf(bool neg, NodePtr v) { return neg ? unary("-", std::move(v)) : v; }

// *(int4*)(visv + e) = (a.re, a.im, b.re, b.im) (f32: float4), or the int2 / float2 of one visibility.
NodePtr store16(bool f32, const NodePtr& e, std::vector<NodePtr> words) {
  const std::string t = f32 ? "float4" : "int4";
  return assign(index(cast(t + "*", bin("+", var("visv"), e)), lit(0)), call("make_" + t, std::move(words)));
}
NodePtr store8(bool f32, const NodePtr& e, NodePtr re, NodePtr im) {
  const std::string t = f32 ? "float2" : "int2";
  return assign(index(var("visv"), e), call("make_" + t, {std::move(re), std::move(im)}));
}

}  // namespace

std::vector<NodePtr> emitVisibilityStore(const Ctx& x) {
  std::vector<NodePtr> out;
  const CorrelatorMma& m = x.m;
  const int fa = x.t.warpRows / 16, fb = x.t.warpCols / 4;
  const int P = x.P;
  const bool f32 = x.s.type == SampleType::CF16, negIm = x.s.conjugate == "r1";
  const std::string valT = f32 ? "float" : "int";
  const auto rowNames = sideNames(1, P, 4), colNames = sideNames(2, P, 2);
  out.push_back(decl("const int", "c_row", laneField(m.c, rowNames)));
  out.push_back(decl("const int", "c_col", laneField(m.c, colNames)));
  // The visibilities of one fragment in this thread (the same registers in every fragment).
  std::vector<FragmentVisibility> vs;
  for (int reg = 0; reg < 4; ++reg) {
    if (regField(m.c, {"ReIm_out"}, reg)) continue;
    FragmentVisibility v{reg, -1, regField(m.c, rowNames, reg), regField(m.c, colNames, reg)};
    for (int r2 = 0; r2 < 4; ++r2)
      if (regField(m.c, {"ReIm_out"}, r2) && regField(m.c, rowNames, r2) == v.row &&
          regField(m.c, colNames, r2) == v.col)
        v.im = r2;
    vs.push_back(v);
  }
  if (vs.size() != 2 || vs[0].im < 0 || vs[1].im < 0)
    throw std::logic_error("correlator visibility store: expected two (re, im) register pairs per C fragment");
  auto predicate = [&](NodePtr extra) {
    NodePtr p = bin("&&", bin("<=", var("r1"), var("r2")), bin("<", var("gj"), lit(x.N)));
    return extra ? bin("&&", p, extra) : p;
  };
  auto coords = [&](std::vector<NodePtr>& body, int i, int j, NodePtr rowOff, NodePtr colOff, bool clearRow,
                    bool clearCol) {
    NodePtr gi = bin("+", bin("+", var("trow"), var("c_row")), bin("+", lit(i * 16), rowOff));
    NodePtr gj = bin("+", bin("+", var("tcol"), var("c_col")), bin("+", lit(j * 4), colOff));
    body.push_back(decl("const int", "gi", clearRow ? clearBit0(gi) : gi));
    body.push_back(decl("const int", "gj", clearCol ? clearBit0(gj) : gj));
    body.push_back(decl("const int", "r1", P == 2 ? bin(">>", var("gi"), lit(1)) : var("gi")));
    body.push_back(decl("const int", "r2", P == 2 ? bin(">>", var("gj"), lit(1)) : var("gj")));
  };
  if (P == 1) {
    // One visibility per 8-byte store; consecutive lanes of a column write consecutive baselines.
    for (int i = 0; i < fa; ++i)
      for (int j = 0; j < fb; ++j)
        for (const auto& v : vs) {
          const int d = (i * fb + j) * 4;
          std::vector<NodePtr> body;
          coords(body, i, j, lit(v.row), lit(v.col), false, false);
          body.push_back(
              ifStmt(predicate(nullptr), block({store8(f32, visibilityIndex(nullptr, 1), index("d", d + v.re),
                                                       negIf(negIm, index("d", d + v.im)))})));
          out.push_back(block(body));
        }
    return out;
  }
  // Two polarizations: the inner index of V[..][p][q] is pol2 (order r1_r2) or pol1 (r2_r1), a lane bit of C. The
  // lane with that bit 0 ("lo") keeps its first visibility and receives its partner's first (the inner index 1 of the
  // same entry); the partner ("hi") keeps its second and receives lo's second.
  const std::string inner = x.s.polOrder == "r1_r2" ? "pol2" : "pol1";
  int laneMask = 0;
  for (int t = 0; t < 5; ++t)
    if (m.c.logicalAt({PhysKind::T, t}) == inner) laneMask = 1 << t;
  if (!laneMask) throw std::logic_error("correlator visibility store: the inner polarization is not a lane bit of C");
  out.push_back(decl("const bool", "hi", bin("!=", bin("&", var("lane"), lit(laneMask)), lit(0))));
  const bool innerIsCol = inner == "pol2";
  const FragmentVisibility &a = vs[0], &b = vs[1];
  for (int i = 0; i < fa; ++i)
    for (int j = 0; j < fb; ++j) {
      const int d = (i * fb + j) * 4;
      std::vector<NodePtr> body;
      NodePtr are = index("d", d + a.re), aim = negIf(negIm, index("d", d + a.im));
      NodePtr bre = index("d", d + b.re), bim = negIf(negIm, index("d", d + b.im));
      body.push_back(decl("const " + valT, "give_re", ternary(var("hi"), are, bre)));
      body.push_back(decl("const " + valT, "give_im", ternary(var("hi"), aim, bim)));
      body.push_back(decl("const " + valT, "got_re",
                          call("__shfl_xor_sync", {var("0xffffffffu"), var("give_re"), lit(laneMask)})));
      body.push_back(decl("const " + valT, "got_im",
                          call("__shfl_xor_sync", {var("0xffffffffu"), var("give_im"), lit(laneMask)})));
      // The stored pair's entry: lo's first visibility, hi's second, with the inner bit cleared.
      coords(body, i, j, pick(a.row, b.row), pick(a.col, b.col), !innerIsCol, innerIsCol);
      NodePtr outer = innerIsCol ? bin("&", var("gi"), lit(1)) : bin("&", var("gj"), lit(1));
      std::vector<NodePtr> words{ternary(var("hi"), var("got_re"), are), ternary(var("hi"), var("got_im"), aim),
                                 ternary(var("hi"), bre, var("got_re")), ternary(var("hi"), bim, var("got_im"))};
      body.push_back(ifStmt(predicate(nullptr), block({store16(f32, visibilityIndex(outer, 2), words)})));
      out.push_back(block(body));
    }
  return out;
}

std::vector<NodePtr> emitPipelineVisibilityStore(const CorrelatorSpec& s, const CorrPipe& p, bool half,
                                                 int columnInputs) {
  const bool f32 = s.type == SampleType::CF16, negIm = s.conjugate == "r1";
  const std::string valT = f32 ? "float" : "int";
  const int P = s.polarizations;
  const PipeAccumulator a = pipeAccumulator(p);  // the accumulator positions, read from the wgmma atom
  auto times = [](int w, NodePtr v) { return w == 1 ? v : bin("*", lit(w), std::move(v)); };
  auto predicate = [&] { return bin("&&", bin("<=", var("r1"), var("r2")), bin("<", var("gj"), lit(s.inputs()))); };
  auto reOf = [&](const NodePtr& e) { return index(var("d"), bin("+", times(a.regBlock, var("q")), e)); };
  auto imOf = [&](const NodePtr& e) {
    return negIf(negIm, index(var("d"), bin("+", bin("+", times(a.regBlock, var("q")), e), lit(a.regIm))));
  };
  std::vector<NodePtr> perPair;  // body of the loop over q and the row pair h (rows gi0, gi0 + 8)
  perPair.push_back(decl("const int", "gi", bin("+", var("gi0"), times(a.rowHalf, var("h")))));
  perPair.push_back(decl("const int", "gj", bin("+", var("gj0"), times(a.inputBlock, var("q")))));
  perPair.push_back(decl("const int", "r1", P == 2 ? bin(">>", var("gi"), lit(1)) : var("gi")));
  NodePtr e0 = times(a.regRowHalf, var("h")), e1 = bin("+", times(a.regRowHalf, var("h")), lit(a.regInput));
  if (P == 1) {
    // Columns gj, gj + 1: two receivers, baselines apart; 8 bytes each.
    perPair.push_back(raw("#pragma unroll"));
    std::vector<NodePtr> one{decl("const int", "r2", bin("+", var("gj"), var("c"))),
                             ifStmt(predicate(), block({store8(f32, visibilityIndex(nullptr, 1),
                                                               reOf(bin("+", e0, times(a.regInput, var("c")))),
                                                               imOf(bin("+", e0, times(a.regInput, var("c")))))}))};
    perPair.push_back(
        forLoop(decl("int", "c", lit(0)), bin("<", var("c"), lit(2)), assign(var("c"), lit(1), "+="), block(one)));
  } else {
    perPair.push_back(decl("const int", "r2", bin(">>", var("gj"), lit(1))));
    if (s.polOrder == "r1_r2") {
      // [bl][p = gi & 1][q = 0, 1]: columns gj, gj + 1 of this thread, one 16-byte store.
      perPair.push_back(ifStmt(predicate(), block({store16(f32, visibilityIndex(bin("&", var("gi"), lit(1)), 2),
                                                           {reOf(e0), imOf(e0), reOf(e1), imOf(e1)})})));
    } else {
      // [bl][q][p = 0, 1]: rows gi, gi + 1 are lanes lane, lane ^ laneRow0 (row bit 0 = lane bit 2). The even row's
      // lane keeps column gj and receives the odd row's; the odd row's lane keeps column gj + 1 and receives the even
      // row's.
      perPair.push_back(decl("const " + valT, "give_re", ternary(var("hi"), reOf(e0), reOf(e1))));
      perPair.push_back(decl("const " + valT, "give_im", ternary(var("hi"), imOf(e0), imOf(e1))));
      perPair.push_back(decl("const " + valT, "got_re",
                             call("__shfl_xor_sync", {var("0xffffffffu"), var("give_re"), lit(a.laneRow0)})));
      perPair.push_back(decl("const " + valT, "got_im",
                             call("__shfl_xor_sync", {var("0xffffffffu"), var("give_im"), lit(a.laneRow0)})));
      std::vector<NodePtr> words{ternary(var("hi"), var("got_re"), reOf(e0)),
                                 ternary(var("hi"), var("got_im"), imOf(e0)),
                                 ternary(var("hi"), reOf(e1), var("got_re")),
                                 ternary(var("hi"), imOf(e1), var("got_im"))};
      perPair.push_back(
          ifStmt(predicate(), block({store16(f32, visibilityIndex(cast("int", var("hi")), 2), std::move(words))})));
    }
  }
  std::vector<NodePtr> out;
  if (P == 2 && s.polOrder != "r1_r2")
    out.push_back(decl("const bool", "hi", bin("!=", bin("&", var("lane"), lit(a.laneRow0)), lit(0))));
  std::vector<NodePtr> perQ{raw("#pragma unroll"), forLoop(decl("int", "h", lit(0)), bin("<", var("h"), lit(2)),
                                                           assign(var("h"), lit(1), "+="), block(perPair))};
  out.push_back(raw("#pragma unroll"));
  out.push_back(
      forLoop(decl("int", "q", lit(0)),
              bin("<", var("q"),
                  lit(columnInputs ? columnInputs / a.inputBlock : p.rows / (half ? 2 * a.inputBlock : a.inputBlock))),
              assign(var("q"), lit(1), "+="), block(perQ)));
  return out;
}

}  // namespace warpforge::corr_emit
