#include "generator/beamformer/BeamformerEpilogue.h"

#include <stdexcept>

#include <fmt/format.h>

#include "generator/complexmma/ComplexMma.h"

namespace warpforge {

using namespace ast;

namespace {

using Ctx = BfKernelContext;

// Epilogue of one pol: each (re, im) register pair of C -> the beam store, or |beam|^2 into ps.
std::vector<NodePtr> emitEpilogue(const Ctx& x) {
  std::vector<NodePtr> out;
  const BfMma& m = x.m;
  const auto tb = cmma::bitNames("time", 0, 3), mb = cmma::bitNames("beam", 0, 3);
  const int fa = x.t.warpTimes / 8, fb = x.t.warpBeams / 8;
  const BeamformerSpec& s = x.s;
  if (s.intOut()) {
    // The shifts of this thread's beams, loaded and clamped once (not once per time fragment and component).
    for (int j = 0; j < fb; ++j)
      for (int reg = 0; reg < 4; ++reg) {
        if (cmma::regField(m.c, {"ReIm_out"}, reg) || cmma::regField(m.c, tb, reg)) continue;
        const int mIn = cmma::regField(m.c, mb, reg);
        NodePtr mm = bin("+", var("m0"), bin("+", var("wm"), bin("+", var("c_beam"), lit(j * 8 + mIn))));
        out.push_back(decl("const int", fmt::format("shv{}_{}", j, mIn),
                           ternary(bin("<", mm, lit(s.beams)), call("bf_shc", {index(var("shbase"), mm)}), lit(0))));
      }
  }
  for (int i = 0; i < fa; ++i)
    for (int j = 0; j < fb; ++j)
      for (int reg = 0; reg < 4; ++reg) {
        if (cmma::regField(m.c, {"ReIm_out"}, reg)) continue;
        int imReg = -1;
        for (int r2 = 0; r2 < 4; ++r2)
          if (cmma::regField(m.c, {"ReIm_out"}, r2) && cmma::regField(m.c, tb, r2) == cmma::regField(m.c, tb, reg) &&
              cmma::regField(m.c, mb, r2) == cmma::regField(m.c, mb, reg))
            imReg = r2;
        if (imReg < 0) throw std::logic_error("beamformer emitter: no imaginary register for a real one in C");
        const int d = (i * fb + j) * 4;
        NodePtr re = index("d", d + reg), im = index("d", d + imReg);
        std::vector<NodePtr> body;
        body.push_back(decl("const int", "tl",
                            bin("+", var("wt"), bin("+", var("c_time"), lit(i * 8 + cmma::regField(m.c, tb, reg))))));
        body.push_back(decl("const int", "ml",
                            bin("+", var("wm"), bin("+", var("c_beam"), lit(j * 8 + cmma::regField(m.c, mb, reg))))));
        if (s.power) {
          body.push_back(decl("const float", "fr", x.f16 ? re : cast("float", re)));
          body.push_back(decl("const float", "fi", x.f16 ? im : cast("float", im)));
          body.push_back(
              decl("const float", "pw", call("fmaf", {var("fi"), var("fi"), bin("*", var("fr"), var("fr"))})));
          body.push_back(ifStmt(bin("==", var("p"), lit(0)),
                                assign(index(index(var("ps"), var("tl")), var("ml")), var("pw")),
                                assign(index(index(var("ps"), var("tl")), var("ml")), var("pw"), "+=")));
        } else {
          body.push_back(decl("const long long", "t", bin("+", var("t0"), var("tl"))));
          body.push_back(decl("const int", "mm", bin("+", var("m0"), var("ml"))));
          std::vector<NodePtr> st;
          st.push_back(decl("const long long", "e", bin("+", bin("*", var("t"), lit(s.beams)), var("mm"))));
          // Planar beams: the real part to obase, the imaginary part to obase_im, element e of each.
          auto planar = [&](const char* type, const NodePtr& vr, const NodePtr& vi) {
            st.push_back(assign(index(cast(std::string(type) + "*", var("obase")), var("e")), cast(type, vr)));
            st.push_back(assign(index(cast(std::string(type) + "*", var("obase_im")), var("e")), cast(type, vi)));
          };
          const NodePtr fre = x.f16 ? re : cast("float", re), fim = x.f16 ? im : cast("float", im);
          switch (s.outType) {
            case BfOutType::CF32:
              if (s.outPlanar) planar("float", fre, fim);
              else
                st.push_back(assign(index(cast("float2*", var("obase")), var("e")), call("make_float2", {fre, fim})));
              break;
            case BfOutType::CF16:
              if (s.outPlanar) planar("unsigned short", call("bf_f2h", {fre}), call("bf_f2h", {fim}));
              else
                st.push_back(assign(index(cast("wf_u32*", var("obase")), var("e")),
                                    bin("|", call("bf_f2h", {fre}), bin("<<", call("bf_f2h", {fim}), lit(16)))));
              break;
            case BfOutType::CI8:
            case BfOutType::CI4: {
              st.push_back(decl("const int", "sh", var(fmt::format("shv{}_{}", j, cmma::regField(m.c, mb, reg)))));
              st.push_back(decl("unsigned", "hit", lit(0)));
              st.push_back(decl("const int", "qr", call("bf_sat", {re, var("sh"), lit(s.outMax()), var("hit")})));
              st.push_back(decl("const int", "qi", call("bf_sat", {im, var("sh"), lit(s.outMax()), var("hit")})));
              st.push_back(assign(var("nsat"), var("hit"), "+="));  // complex beams with a clamped component
              if (s.outType == BfOutType::CI8 && s.outPlanar) planar("signed char", var("qr"), var("qi"));
              else if (s.outType == BfOutType::CI8)
                st.push_back(assign(index(cast("unsigned short*", var("obase")), var("e")),
                                    cast("unsigned short", bin("|", bin("&", var("qr"), lit(0xff)),
                                                               bin("<<", bin("&", var("qi"), lit(0xff)), lit(8))))));
              else {
                const char* hiV = s.outCi4RealHigh ? "qr" : "qi";
                const char* loV = s.outCi4RealHigh ? "qi" : "qr";
                st.push_back(assign(index(cast("unsigned char*", var("obase")), var("e")),
                                    cast("unsigned char", bin("|", bin("<<", bin("&", var(hiV), lit(15)), lit(4)),
                                                              bin("&", var(loV), lit(15))))));
              }
              break;
            }
          }
          body.push_back(
              ifStmt(bin("&&", bin("<", var("t"), lit(s.samples)), bin("<", var("mm"), lit(s.beams))), block(st)));
        }
        out.push_back(block(body));
      }
  return out;
}

// Power: the windows of this tile (I < 64: all of them in one tile) or one window over several tiles.
std::vector<NodePtr> emitIntegrate(const Ctx& x) {
  std::vector<NodePtr> out;
  const BeamformerSpec& s = x.s;
  const BfTiling& t = x.t;
  if (t.tilesPerRange == 1) {
    std::vector<NodePtr> body;
    body.push_back(decl("const int", "w", bin("/", var("qq"), lit(t.beams))));
    body.push_back(decl("const int", "ml", bin("%", var("qq"), lit(t.beams))));
    body.push_back(decl("float", "acc", flit(0)));
    body.push_back(forLoop(
        decl("int", "i", lit(0)), bin("<", var("i"), lit(s.integrate)), assign(var("i"), lit(1), "+="),
        block({assign(var("acc"),
                      index(index(var("ps"), bin("+", bin("*", var("w"), lit(s.integrate)), var("i"))), var("ml")),
                      "+=")})));
    body.push_back(decl("const long long", "win", bin("+", bin("*", var("rg"), lit(t.windowsPerRange)), var("w"))));
    body.push_back(decl("const int", "mm", bin("+", var("m0"), var("ml"))));
    body.push_back(
        ifStmt(bin("&&", bin("<", var("win"), lit(s.windows())), bin("<", var("mm"), lit(s.beams))),
               assign(index(var("pbase"), bin("+", bin("*", var("win"), lit(s.beams)), var("mm"))), var("acc"))));
    out.push_back(forLoop(decl("int", "qq", var("tid")),
                          bin("<", var("qq"), lit(static_cast<long long>(t.windowsPerRange) * t.beams)),
                          assign(var("qq"), lit(t.threads), "+="), block(body)));
  } else {
    std::vector<NodePtr> body;
    body.push_back(decl("const int", "rows", bin("-", lit(s.integrate), bin("*", var("tile"), lit(t.times)))));
    body.push_back(forLoop(decl("int", "i", lit(0)),
                           bin("&&", bin("<", var("i"), lit(t.times)), bin("<", var("i"), var("rows"))),
                           assign(var("i"), lit(1), "+="),
                           block({assign(var("run"), index(index(var("ps"), var("i")), var("tid")), "+=")})));
    out.push_back(ifStmt(bin("<", var("tid"), lit(t.beams)), block(body)));
  }
  return out;
}

}  // namespace

std::vector<NodePtr> bfEpilogue(const BeamformerSpec& s, const BfMma& m, const BfTiling& t, bool f16) {
  return emitEpilogue(Ctx{s, m, t, f16});
}
std::vector<NodePtr> bfIntegrate(const BeamformerSpec& s, const BfTiling& t) {
  return emitIntegrate(Ctx{s, BfMma{}, t, false});
}

}  // namespace warpforge
