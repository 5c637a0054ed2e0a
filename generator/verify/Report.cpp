#include "generator/verify/Report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace warpforge {

namespace {
std::string opName(const StepPlan& s) {
  switch (s.spec->op) {
    case StepOp::Mma: return "mma " + s.spec->shape;
    case StepOp::Cmul: return "cmul";
    case StepOp::Relayout: return "relayout";
  }
  return "?";
}

std::string mmaCell(const InstrCounts& c) {
  std::vector<std::string> v;
  for (const auto& [k, n] : c.mma) v.push_back(fmt::format("{}x{}", n, k));
  return v.empty() ? "-" : fmt::format("{}", fmt::join(v, " "));
}
}  // namespace

std::string formatVerifyReport(const Plan& plan, const CostTable& costs) {
  const LayoutProgram& s = *plan.spec;
  std::string out = fmt::format("{}: {} ({} -> {}, {}), {} steps: CONSISTENT\n\n", s.file, s.name, s.nIn, s.nOut,
                                s.precision, plan.steps.size());
  out += fmt::format("{:<4} {:<14} {:<22} {:<16} {:>6} {:>6} {:>6} {:>8}\n", "step", "op", "arrays", "mma", "hfma2",
                     "shfl", "bperm", "cycles");
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const StepPlan& st = plan.steps[i];
    std::string arrays = st.spec->a.empty() ? fmt::format("{} -> {}", st.spec->b, st.spec->c)
                                            : fmt::format("{}*{} -> {}", st.spec->a, st.spec->b, st.spec->c);
    out += fmt::format("{:<4} {:<14} {:<22} {:<16} {:>6} {:>6} {:>6} {:>8}\n", i, opName(st), arrays,
                       mmaCell(st.counts), st.counts.hfma2, st.counts.shuffles, st.counts.byteperms,
                       st.counts.smCycles);
  }
  const InstrCounts& t = plan.total;
  out += fmt::format("{:<4} {:<14} {:<22} {:<16} {:>6} {:>6} {:>6} {:>8}\n\n", "all", "", "", mmaCell(t), t.hfma2,
                     t.shuffles, t.byteperms, t.smCycles);
  const int perWarp = 1 << s.batchBits();
  out += perWarp > 1 ? fmt::format("instruction counts per warp ({} FFTs):\n", perWarp)
                     : std::string("instruction counts per FFT:\n");
  for (const auto& [k, n] : t.mma) out += fmt::format("  mma {:<10} {:>4}\n", k, n);
  out += fmt::format("  HFMA2/HMUL2    {:>4}\n  shfl           {:>4}\n  byte_perm      {:>4}\n", t.hfma2, t.shuffles,
                     t.byteperms);
  if (t.ffma || t.cvt)  // f32 accumulators (counted like HFMA2 in the SM-cycles)
    out += fmt::format("  FFMA/FMUL      {:>4}\n  f16<->f32 cvt  {:>4}\n", t.ffma, t.cvt);
  out += fmt::format("SM-cycle estimate (eq. 30 costs: k8 {} k16 {} hfma2 {} shfl {} byte_perm {}): {} SM-cycles/FFT\n",
                     costs.mmaK8, costs.mmaK16, costs.hfma2, costs.shuffle, costs.bytePerm, t.smCycles / perWarp);
  for (const auto& w : plan.warnings) out += "warning: " + w + "\n";
  return out;
}

std::string formatExplain(const Plan& plan) {
  const LayoutProgram& s = *plan.spec;
  std::string out = fmt::format("{}: {}\n", s.file, s.name);
  for (const auto& a : s.arrays) {
    out += fmt::format("  [{}] {}{}\n", a.name, a.layout.str(),
                       a.stored ? fmt::format("   (stored: {})", a.stored->str()) : "");
  }
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const StepPlan& st = plan.steps[i];
    out += fmt::format("\nstep {} ({}): {}\n", i, st.spec->path, opName(st));
    if (st.spec->op == StepOp::Mma) {
      const auto& m = st.mma;
      std::vector<std::string> mb;
      for (const auto& [k, v] : m.matrixBits) mb.push_back(k + "=" + v);
      out += fmt::format("  {}\n  matrix bits: {}\n", m.shape->ptx(), fmt::join(mb, " "));
      out += fmt::format("  fragment registers: A r{{{}}} B r{{{}}} C r{{{}}}\n", fmt::join(m.aReg, ","),
                         fmt::join(m.bReg, ","), fmt::join(m.cReg, ","));
      out += fmt::format("  loop bits: {} -> {} MMAs\n",
                         m.loopBits.empty() ? "none" : fmt::format("{}", fmt::join(m.loopBits, " ")), m.count);
    } else if (st.spec->op == StepOp::Cmul) {
      out += fmt::format("  phase register per data register: [{}]\n", fmt::join(st.cmul.phaseRegOfDataReg, " "));
    } else {
      for (const auto& op : st.relayout.ops) out += "  " + op.str() + "\n";
      out += fmt::format("  register rename (target r_i <- r_{}): [{}]\n", "x", fmt::join(st.relayout.rename, " "));
    }
  }
  return out;
}

}  // namespace warpforge
