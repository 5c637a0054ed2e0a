#include "generator/tc_fft/TcFftBench.h"

#include <cmath>

#include <fmt/format.h>

#include "generator/tc_fft/TcFftEmitter.h"
#include "generator/verify/Verifier.h"

namespace warpforge {

std::vector<BenchVariant> tcFftBenchVariants(const Plan& plan, TcFftDistances d, bool oneWarpVariants) {
  const std::string prefix = oneWarpVariants ? "one warp per FFT, " : "";
  // EmitOptions: packedPhases, inRegisterBenchmark, prefetch, staged, streaming, asyncCopy, swizzledStage.
  const std::vector<std::pair<std::string, EmitOptions>> options = {
      {"packed, staged, cp.async double buffer", EmitOptions{true, false, false, true, true, true}},
      {"unpacked, staged, cp.async double buffer", EmitOptions{false, false, false, true, true, true}},
      {"packed, staged, synchronous", EmitOptions{true, false, false, true, true, false}},
      {"packed, staged, no cache hints, synchronous", EmitOptions{true, false, false, true, false, false}},
      {"packed, staged, plain slices (bank conflicts), synchronous",
       EmitOptions{true, false, false, true, true, false, false}},
      {"packed, staged, plain slices (bank conflicts), cp.async double buffer",
       EmitOptions{true, false, false, true, true, true, false}},
      {"packed phases, direct I/O", EmitOptions{true, false, false, false}},
      {"packed phases, direct I/O, prefetch", EmitOptions{true, false, true, false}}};
  std::vector<BenchVariant> out;
  // Kernels staged row by row (batch bits, zero padding, short rows) have one I/O scheme, the default's: only the
  // in-register variant applies.
  const bool rows = !wholeRowIo(*plan.spec);
  for (const auto& [name, o] : options) {
    if (rows && (o.asyncCopy || !o.staged || !o.streaming || !o.swizzledStage || o.packedPhases)) continue;
    if (o.staged && o.asyncCopy && stagedSharedBytes(*plan.spec, true) > kMaxAsyncSharedBytes)
      continue;  // two staging buffers do not fit
    out.push_back({prefix + name, Generated{tcFftLaunchPlan(emitTcFft(plan, o), d)}, 0, 0});
  }
  // The same design with the other accumulation (f32 accumulators beside an f16 spec, f16 beside an f32 one), with
  // the default emit options: what accumulating in f32 costs.
  {
    LayoutProgram other = *plan.spec;
    other.accumulate = other.accumulate == "f32" ? "f16" : "f32";
    const Plan otherPlan = Verifier().verify(other);  // refers to `other`, which outlives it
    out.push_back({fmt::format("{} accumulators (same design, default options)", other.accumulate),
                   Generated{tcFftLaunchPlan(emitTcFft(otherPlan, defaultEmitOptions(other)), d)}, 0, 0});
  }
  // Row-by-row kernels: the other numbers of groups of FFTs per loop iteration (the default moves kShortRowGroups at
  // 32 output points, else 1).
  if (rows)
    for (const int groups : {1, 2, 4, 8}) {
      EmitOptions o = defaultEmitOptions(*plan.spec);
      if (o.rowGroups == groups || (groups > 1 && rowGroupsSharedBytes(*plan.spec, groups) > kMaxStaticSharedBytes))
        continue;  // the slices must fit static shared memory
      o.rowGroups = groups;
      out.push_back({fmt::format("row by row, {} group{} of FFTs per iteration", groups, groups > 1 ? "s" : ""),
                     Generated{tcFftLaunchPlan(emitTcFft(plan, o), d)}, 0, 0});
    }
  // Load once, repeat the steps in registers, store once: the compute rate without DRAM.
  // batch 0: one full wave of resident warps is a device property; the bench chooses it.
  out.push_back({prefix + "in-register (steps repeated on resident data)",
                 Generated{tcFftLaunchPlan(emitTcFft(plan, EmitOptions{true, true, false, false}), d)}, 0,
                 kInRegisterRepeats});
  return out;
}

std::string tcFftInRegisterNote(const Plan& plan, double ms, long long ffts, int repeats, double clockKHz, int sms) {
  if (ffts <= 0 || !std::isfinite(ms))  // the in-register variant was not timed (`bench --variants` left it out)
    return fmt::format("in-register: not timed; model (eq. 30): {} SM-cycles/FFT\n",
                       plan.total.smCycles / (1 << plan.spec->batchBits()));
  const double cycles = ms * 1e-3 * clockKHz * 1e3 * sms / (static_cast<double>(ffts) * repeats);
  return fmt::format(
      "in-register: {:.1f} SM-cycles/FFT at the max clock ({} FFTs x {} repeats, {:.4f} ms); model (eq. 30): {} "
      "SM-cycles/FFT\n",
      cycles, ffts, repeats, ms, plan.total.smCycles / (1 << plan.spec->batchBits()));
}

}  // namespace warpforge
