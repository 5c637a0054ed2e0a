// The stockham family's emit / compile / run / bench / verify.
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/Commands.h"
#include "generator/spec/JsonReader.h"
#include "generator/stockham/StockhamEmitter.h"
#include "runtime/Nvrtc.h"
#include "runtime/StockhamRun.h"

namespace warpforge::cli {

bool isStockham(const std::string& file) { return specFamily(file) == "stockham"; }

int stockhamVerify(const std::string& file) {
  StockhamSpec s = parseStockhamSpecFile(file);
  StockhamKernel k = emitStockham(s);
  fmt::print("{}: {} (stockham {} C2C, length {}, {}): OK\n  factors: {}\n  block: {} threads per FFT x {} FFTs, {} bytes shared\n", file,
             s.name, s.precision, s.length, s.sign < 0 ? "forward" : "inverse", fmt::join(s.factors, " x "), k.threadsPerFft,
             k.fftsPerBlock, k.sharedBytes);
  return 0;
}

int stockhamEmit(const Options& o) {
  StockhamSpec s = parseStockhamSpecFile(o.spec);
  StockhamKernel k = emitStockham(s);
  std::filesystem::create_directories(o.outDir);
  std::ofstream(std::filesystem::path(o.outDir) / (s.name + ".cu")) << k.source;
  fmt::print("wrote {}/{}.cu (block {} x {}, {} bytes shared)\n", o.outDir, s.name, k.threadsPerFft, k.fftsPerBlock, k.sharedBytes);
  return 0;
}

int stockhamCompile(const Options& o) {
  StockhamSpec s = parseStockhamSpecFile(o.spec);
  NvrtcResult r = nvrtcCompile(emitStockham(s).source, s.name, o.arch);
  fmt::print("{} [{}]: CUBIN {} bytes, {} registers, {} bytes stack, spill stores {} B, spill loads {} B\n", s.name, o.arch, r.cubin.size(),
             r.registers, r.stackFrameBytes, r.spillStoreBytes, r.spillLoadBytes);
  return r.spillStoreBytes > 0 || r.spillLoadBytes > 0 ? 1 : 0;
}

int stockhamRun(const Options& o, bool bench) {
  StockhamSpec s = parseStockhamSpecFile(o.spec);
  if (!requireDevice(bench ? "bench" : "run")) return 3;
  Runtime rt;
  StockhamCheck c = runStockham(rt, s, o.batch, o.seed, bench ? o.reps : 1);
  fmt::print("spec={} length={} batch={} seed={} checked={} unwritten={}\nmax_rel_err={:.3e} (cuFFT on the same input: {:.3e})\n", s.name,
             s.length, c.batch, o.seed, c.checked, c.unwritten, c.maxRelErr, c.cufftMaxRelErr);
  fmt::print("warpforge {:.4f} ms, cuFFT {:.4f} ms ({}): ratio {:.2f}x\n", c.ourMs, c.cufftMs, bench ? "medians" : "one run",
             c.cufftMs / c.ourMs);
  return c.unwritten == 0 && c.maxRelErr <= std::max(2 * c.cufftMaxRelErr, s.precision == "f64" ? 1e-14 : 1e-6) ? 0 : 1;
}

}  // namespace warpforge::cli
