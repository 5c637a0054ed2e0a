// verify, explain, emulate: everything that needs no CUDA.
#include <fmt/format.h>

#include "cli/Commands.h"
#include "generator/emulate/Emulator.h"
#include "generator/spec/Spec.h"
#include "generator/spec/SpecError.h"
#include "generator/verify/Report.h"
#include "generator/verify/Verifier.h"

namespace warpforge::cli {

int cmdVerify(const Options& o) {
  int failed = 0;
  for (const auto& f : o.specs) {
    try {
      if (isStockham(f)) {
        stockhamVerify(f);
        continue;
      }
      TcFftSpec s = parseSpecFile(f);
      Plan p = Verifier().verify(s);
      fmt::print("{}\n", formatVerifyReport(p));
    } catch (const SpecError& e) {
      fmt::print(stderr, "error: {}\n", e.what());
      failed = std::max(failed, 2);
    } catch (const VerifyError& e) {
      fmt::print(stderr, "error: {}: INCONSISTENT\n{}", f, e.what());
      failed = std::max(failed, 1);
    }
  }
  return failed;
}

int cmdExplain(const Options& o) {
  if (isStockham(o.spec)) return stockhamExplain(o);
  TcFftSpec s = parseSpecFile(o.spec);
  Plan p = Verifier().verify(s);
  fmt::print("{}", formatExplain(p));
  return 0;
}

int cmdEmulate(const Options& o) {
  if (isStockham(o.spec)) {
    fmt::print(stderr, "error: {}: emulate runs tc_fft register layouts on an emulated warp; a stockham spec is checked "
                       "against FFTW on the GPU by `warpforge run`\n", o.spec);
    return 2;
  }
  TcFftSpec s = parseSpecFile(o.spec);
  Plan p = Verifier().verify(s);
  EmuMode mode = o.mode == "f16" ? EmuMode::F16 : EmuMode::Double;
  auto r = emulateAgainstFftw(p, mode, o.seed, o.ffts);
  fmt::print("spec={} mode={} seed={} ffts={} (inputs uniform in [-1,1], reference FFTW double)\n", s.name, o.mode, o.seed, r.ffts);
  fmt::print("max_rel_err={:.3e}\n", r.maxRelErr);
  return 0;
}

}  // namespace warpforge::cli
