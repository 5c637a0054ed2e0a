#include "generator/emulate/Emulator.h"

#include <cmath>
#include <map>
#include <stdexcept>

#include "generator/emulate/Half.h"
#include "generator/verify/PhaseValue.h"

namespace warpforge {

namespace {

int physValue(PhysBit p, int lane, int reg, int elem) {
  switch (p.kind) {
    case PhysKind::B: return (elem >> p.index) & 1;
    case PhysKind::T: return (lane >> p.index) & 1;
    case PhysKind::R: return (reg >> p.index) & 1;
    case PhysKind::W: return 0;
  }
  return 0;
}

RegFile emptyFor(const Layout& l) { return RegFile(l.numRegisters(), 1 << l.count(PhysKind::B)); }

double rnd(double x, EmuMode m) { return m == EmuMode::F16 ? roundToHalf(x) : x; }
// f32 arithmetic (round to nearest even), where the f16 mode models f32 accumulators and f32 complex multiplies.
double rnd32(double x, EmuMode m) { return m == EmuMode::F16 ? static_cast<double>(static_cast<float>(x)) : x; }

}  // namespace

int logicalBitValue(const Layout& layout, const std::string& name, int lane, int reg, int elem) {
  auto p = layout.physOf(name);
  if (!p) throw std::logic_error("logical bit " + name + " not in layout " + layout.str());
  return physValue(*p, lane, reg, elem);
}

RegFile phaseRegisters(const LayoutProgram& spec, const ArraySpec& a, EmuMode mode) {
  RegFile rf = emptyFor(a.layout);
  for (int lane = 0; lane < 32; ++lane)
    for (int reg = 0; reg < rf.nregs; ++reg)
      for (int e = 0; e < rf.nelem; ++e) {
        const PhaseEntry p = phaseEntry(a, a.layout, spec.nOut, lane, reg, e);
        double ang = spec.sign * 2.0 * M_PI * static_cast<double>(p.m) / spec.nOut;
        double c = rnd(std::cos(ang), mode), s = rnd(std::sin(ang), mode);
        rf.at(lane, reg, e) = p.comp == PhaseComp::Cos      ? c
                              : p.comp == PhaseComp::Sin    ? s
                              : p.comp == PhaseComp::NegSin ? -s
                                                            : 0.0;
      }
  return rf;
}

void applyMove(RegFile& rf, const MoveOp& op) {
  RegFile old = rf;
  for (int lane = 0; lane < 32; ++lane)
    for (int reg = 0; reg < rf.nregs; ++reg)
      for (int e = 0; e < rf.nelem; ++e) {
        int sl = lane, sr = reg, se = e;
        if (op.kind == MoveOp::LanePermutation) {
          sl = 0;
          for (std::size_t k = 0; k < op.lanePerm.size(); ++k) sl |= ((lane >> k) & 1) << op.lanePerm[k];
        } else {
          // new[Q] = old[Q with bits x, y exchanged]
          int vx = physValue(op.x, lane, reg, e), vy = physValue(op.y, lane, reg, e);
          auto set = [&](PhysBit p, int v) {
            int& dst = p.kind == PhysKind::B ? se : p.kind == PhysKind::T ? sl : sr;
            dst = (dst & ~(1 << p.index)) | (v << p.index);
          };
          set(op.x, vy);
          set(op.y, vx);
        }
        rf.at(lane, reg, e) = old.at(sl, sr, se);
      }
}

void applyRelayout(RegFile& rf, const RelayoutPlan& plan) {
  for (const auto& op : plan.ops) applyMove(rf, op);
  RegFile old = rf;
  for (int lane = 0; lane < 32; ++lane)
    for (int reg = 0; reg < rf.nregs; ++reg) {
      int src = 0;
      for (std::size_t i = 0; i < plan.rename.size(); ++i) src |= ((reg >> i) & 1) << plan.rename[i];
      for (int e = 0; e < rf.nelem; ++e) rf.at(lane, reg, e) = old.at(lane, src, e);
    }
}

namespace {

// f16 C: the exact sum rounded to f16 once. f32 C (the fragment of C's f32 view, MmaCheck.h: f32 register F is half
// F & 1 of __half2 register F >> 1): rounded to f32 once, and to f16 as well unless `keepF32` (the complex multiply
// that follows rounds). The hardware's f32 sum of 16 exact products differs from one rounding by O(2^-24).
void runMma(const MmaStepPlan& m, const RegFile& A, const RegFile& B, RegFile& C, EmuMode mode, bool keepF32) {
  const MmaShape& s = *m.shape;
  const bool f32 = s.cType == "f32";
  std::vector<double> a(s.m * s.k), b(s.k * s.n), d(s.m * s.n);
  for (int it = 0; it < m.count; ++it) {
    const MmaStepPlan::Bases base = m.bases(it);
    auto regOf = MmaStepPlan::fragmentRegister;
    const int baseA = base.a, baseB = base.b, baseC = base.c;
    for (int lane = 0; lane < 32; ++lane) {
      for (int fr = 0; fr < s.a.numRegisters(); ++fr)
        for (int e = 0; e < s.a.elemsPerRegister(); ++e) {
          auto [i, j] = s.a.coord(Operand::A, lane, fr, e);
          a[i * s.k + j] = A.at(lane, regOf(baseA, m.aReg, fr), e);
        }
      for (int fr = 0; fr < s.b.numRegisters(); ++fr)
        for (int e = 0; e < s.b.elemsPerRegister(); ++e) {
          auto [j, k] = s.b.coord(Operand::B, lane, fr, e);
          b[j * s.n + k] = B.at(lane, regOf(baseB, m.bReg, fr), e);
        }
    }
    for (int i = 0; i < s.m; ++i)
      for (int k = 0; k < s.n; ++k) {
        double acc = 0;  // f16 products are exact in double; one rounding at the end
        for (int j = 0; j < s.k; ++j) acc += a[i * s.k + j] * b[j * s.n + k];
        d[i * s.n + k] = !f32 ? rnd(acc, mode) : keepF32 ? rnd32(acc, mode) : rnd(rnd32(acc, mode), mode);
      }
    for (int lane = 0; lane < 32; ++lane)
      for (int fr = 0; fr < s.c.numRegisters(); ++fr)
        for (int e = 0; e < s.c.elemsPerRegister(); ++e) {
          auto [i, k] = s.c.coord(Operand::C, lane, fr, e);
          const int r = regOf(baseC, m.cReg, fr);
          if (f32) C.at(lane, r >> 1, r & 1) = d[i * s.n + k];
          else C.at(lane, r, e) = d[i * s.n + k];
        }
  }
}

// `f32In`: X holds f32 accumulators; the multiply runs in f32 as wf_cmul_f32 does (FMUL, then FFMA) and rounds to f16.
void runCmul(const CmulStepPlan& p, const RegFile& E, const RegFile& X, RegFile& Y, EmuMode mode, bool f32In) {
  for (int d = 0; d < X.nregs; ++d) {
    if ((d >> p.reImDataBit) & 1) continue;
    int dIm = d | (1 << p.reImDataBit);
    int pRe = p.phaseRegOfDataReg[d], pIm = pRe | (1 << p.reImPhaseBit);
    for (int lane = 0; lane < 32; ++lane)
      for (int e = 0; e < X.nelem; ++e) {
        double xr = X.at(lane, d, e), xi = X.at(lane, dIm, e), er = E.at(lane, pRe, e), ei = E.at(lane, pIm, e);
        if (f32In) {
          const double t1 = rnd32(ei * xi, mode), t2 = rnd32(ei * xr, mode);
          Y.at(lane, p.outRegOfDataReg[d], e) = rnd(rnd32(er * xr - t1, mode), mode);
          Y.at(lane, p.outRegOfDataReg[dIm], e) = rnd(rnd32(er * xi + t2, mode), mode);
          continue;
        }
        // Same rounding sequence as the emitted code: HMUL2 then HFMA2.
        double t1 = rnd(ei * xi, mode), t2 = rnd(ei * xr, mode);
        Y.at(lane, p.outRegOfDataReg[d], e) = rnd(er * xr - t1, mode);
        Y.at(lane, p.outRegOfDataReg[dIm], e) = rnd(er * xi + t2, mode);
      }
  }
}

}  // namespace

std::vector<std::vector<cdouble>> emulateWarp(const Plan& plan, EmuMode mode,
                                              const std::vector<std::vector<cdouble>>& x) {
  const LayoutProgram& s = *plan.spec;
  const int ffts = 1 << s.batchBits();
  if (static_cast<int>(x.size()) != ffts)
    throw std::invalid_argument("emulateWarp: one input per FFT of the warp (2^batch bits)");
  std::map<std::string, RegFile> rf;
  const Layout& in = s.array(s.input)->layout;
  auto indexOf = [](const Layout& l, char letter, int lane, int reg, int e) {
    int v = 0;
    for (const auto& en : l.entries())
      if (en.logical[0] == letter) v |= logicalBitValue(l, en.logical, lane, reg, e) << std::stoi(en.logical.substr(1));
    return v;
  };
  RegFile X = emptyFor(in);
  for (int lane = 0; lane < 32; ++lane)
    for (int reg = 0; reg < X.nregs; ++reg)
      for (int e = 0; e < X.nelem; ++e) {
        const int n = indexOf(in, 'n', lane, reg, e), f = indexOf(in, 'f', lane, reg, e);
        // n >= n_in: a zero-padding element (the kernel never reads it).
        cdouble v = n < s.nIn ? x.at(f).at(n) : cdouble(0, 0);
        X.at(lane, reg, e) = rnd(logicalBitValue(in, "ReIm", lane, reg, e) ? v.imag() : v.real(), mode);
      }
  rf[s.input] = X;
  for (const auto& st : plan.steps) {
    const StepSpec& sp = *st.spec;
    const ArraySpec& outArr = *s.array(sp.c);
    RegFile out = emptyFor(outArr.layout);
    switch (sp.op) {
      case StepOp::Mma:
        runMma(st.mma, phaseRegisters(s, *s.array(sp.a), mode), rf.at(sp.b), out, mode, st.f32Out);
        break;
      case StepOp::Cmul:
        runCmul(st.cmul, phaseRegisters(s, *s.array(sp.a), mode), rf.at(sp.b), out, mode, st.f32In);
        break;
      case StepOp::Relayout:
        out = rf.at(sp.b);
        applyRelayout(out, st.relayout);
        break;
    }
    rf[sp.c] = out;
  }
  const Layout& ol = s.array(s.output)->layout;
  const RegFile& Y = rf.at(s.output);
  std::vector<std::vector<cdouble>> y(ffts, std::vector<cdouble>(s.nOut));
  for (int lane = 0; lane < 32; ++lane)
    for (int reg = 0; reg < Y.nregs; ++reg)
      for (int e = 0; e < Y.nelem; ++e) {
        const int q = indexOf(ol, 'q', lane, reg, e), f = indexOf(ol, 'f', lane, reg, e);
        double v = Y.at(lane, reg, e);
        if (logicalBitValue(ol, "ReIm", lane, reg, e)) y[f][q].imag(v);
        else y[f][q].real(v);
      }
  return y;
}

std::vector<cdouble> emulateFft(const Plan& plan, EmuMode mode, const std::vector<cdouble>& x) {
  std::vector<std::vector<cdouble>> xs(1 << plan.spec->batchBits(), std::vector<cdouble>(plan.spec->nIn, 0.0));
  xs[0] = x;
  return emulateWarp(plan, mode, xs)[0];
}

EmulateSummary emulateAgainstFftw(const Plan& plan, EmuMode mode, std::uint64_t seed, int ffts) {
  EmulateSummary sum;
  const int perWarp = 1 << plan.spec->batchBits();
  for (int f = 0; f < ffts; f += perWarp) {
    std::vector<std::vector<cdouble>> xs;
    for (int i = 0; i < perWarp; ++i) {
      auto x = randomComplex(plan.spec->nIn, seed + f + i);
      if (mode == EmuMode::F16)
        for (auto& v : x) v = cdouble(roundToHalf(v.real()), roundToHalf(v.imag()));
      xs.push_back(std::move(x));
    }
    auto ys = emulateWarp(plan, mode, xs);
    for (int i = 0; i < perWarp && f + i < ffts; ++i) {
      auto ref = referenceDft(xs[i], plan.spec->nOut, plan.spec->sign);
      sum.maxRelErr = std::max(sum.maxRelErr, relativeError(ys[i], ref));
      ++sum.ffts;
    }
  }
  return sum;
}

}  // namespace warpforge
