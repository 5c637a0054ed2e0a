// emit, compile, run, bench: the commands that produce or execute CUDA.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include <fmt/format.h>

#include "cli/Commands.h"
#include "generator/spec/Spec.h"
#include "generator/tc_fft/TcFftEmitter.h"
#include "generator/verify/Verifier.h"
#include "runtime/GpuRun.h"
#include "runtime/Nvrtc.h"
#include "runtime/Runtime.h"
#include "templates/Embedded.h"

namespace warpforge::cli {

namespace fs = std::filesystem;

namespace {
struct Loaded {
  TcFftSpec spec;
  Plan plan;
};
// The plan points into the spec, so both live together on the heap.
std::unique_ptr<Loaded> loadVerified(const std::string& file) {
  auto l = std::make_unique<Loaded>();
  l->spec = parseSpecFile(file);
  l->plan = Verifier().verify(l->spec);
  return l;
}

void writeFile(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  if (!out) throw std::runtime_error("cannot write " + p.string());
  out << text;
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

// SASS opcode counts via cuobjdump, when the toolkit has it.
std::map<std::string, int> sassCounts(const std::vector<char>& cubin) {
  std::map<std::string, int> counts;
  fs::path tmp = fs::temp_directory_path() / fmt::format("warpforge_{}.cubin", ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(cubin.data(), static_cast<std::streamsize>(cubin.size()));
  }
  std::string tool = fs::exists("/usr/local/cuda/bin/cuobjdump") ? "/usr/local/cuda/bin/cuobjdump" : "cuobjdump";
  FILE* p = popen((tool + " -sass " + tmp.string() + " 2>/dev/null").c_str(), "r");
  if (!p) return counts;
  char line[1024];
  std::regex op(R"(/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)(\.[A-Z0-9_.]+)?)");
  while (fgets(line, sizeof line, p)) {
    std::cmatch m;
    if (std::regex_search(line, m, op)) counts[m[2]]++;
  }
  pclose(p);
  fs::remove(tmp);
  return counts;
}
}  // namespace

int cmdEmit(const Options& o) {
  if (isStockham(o.spec)) return stockhamEmit(o);
  auto l = loadVerified(o.spec);
  EmittedKernel k = emitTcFft(l->plan);
  fs::create_directories(o.outDir);
  writeFile(fs::path(o.outDir) / (l->spec.name + ".cu"), k.source);
  writeFile(fs::path(o.outDir) / (l->spec.name + ".h"), k.header);
  for (const auto& f : embeddedTemplates()) writeFile(fs::path(o.outDir) / f.name, f.text);
  fmt::print("wrote {0}/{1}.cu, {0}/{1}.h and {2} helper headers (nvcc -arch=sm_90 -c {0}/{1}.cu)\n", o.outDir, l->spec.name,
             embeddedTemplates().size());
  return 0;
}

int cmdCompile(const Options& o) {
  if (isStockham(o.spec)) return stockhamCompile(o);
  auto l = loadVerified(o.spec);
  int rc = 0;
  fmt::print("NVRTC {}\n", nvrtcVersion());
  for (bool packed : {true, false}) {
    EmittedKernel k = emitTcFft(l->plan, {packed, false});
    NvrtcResult r = nvrtcCompile(k.source, l->spec.name, o.arch);
    fmt::print("{} [{}] phases {}: CUBIN {} bytes, {} registers, {} bytes stack, spill stores {} B, spill loads {} B\n", l->spec.name, o.arch,
               packed ? "packed  " : "unpacked", r.cubin.size(), r.registers, r.stackFrameBytes, r.spillStoreBytes, r.spillLoadBytes);
    if (r.spillStoreBytes > 0 || r.spillLoadBytes > 0) rc = 1;  // -1: this NVRTC printed no ptxas report
    if (packed) {
      auto c = sassCounts(r.cubin);
      if (!c.empty()) {
        fmt::print("  SASS (whole kernel incl. prologue and grid-stride loop): HMMA {} HFMA2 {} HMUL2 {} SHFL {} PRMT {} LDG {} STG {} LDL {} STL {}\n",
                   c["HMMA"], c["HFMA2"], c["HMUL2"], c["SHFL"], c["PRMT"], c["LDG"], c["STG"], c["LDL"], c["STL"]);
        const auto& t = l->plan.total;
        int mmas = 0;
        for (const auto& [s, n] : t.mma) mmas += n;
        fmt::print("  verifier per FFT: MMA {} HFMA2/HMUL2 {} SHFL {} byte_perm {}\n", mmas, t.hfma2, t.shuffles, t.byteperms);
      }
      if (!o.cubinOut.empty()) writeFile(o.cubinOut, std::string(r.cubin.begin(), r.cubin.end()));
    }
  }
  return rc;
}

bool requireDevice(const char* command) {
  if (Runtime::deviceAvailable()) return true;
  fmt::print(stderr, "error: no CUDA device available: `{}` needs a GPU (verify, emulate, emit and compile do not)\n", command);
  return false;
}

int cmdRun(const Options& o) {
  if (isStockham(o.spec)) return stockhamRun(o, false);
  auto l = loadVerified(o.spec);
  if (!requireDevice("run")) return 3;
  Runtime rt;
  RunCheck c = runAgainstFftw(rt, l->plan, {}, o.batch, o.seed, false);
  fmt::print("device={} spec={} batch={} seed={} checked_ffts={} unwritten={} non_finite={}\n", rt.deviceName(), l->spec.name, c.batch,
             c.seed, c.checkedFfts, c.unwrittenValues, c.nonFinite);
  fmt::print("max_rel_err={:.3e}\n", c.maxRelErr);
  fmt::print("kernel {:.4f} ms, {:.4g} FFT/s\n", c.kernelMs, c.batch / (c.kernelMs * 1e-3));
  bool ok = c.unwrittenValues == 0 && c.nonFinite == 0 && c.maxRelErr <= 3e-3;
  if (!ok) fmt::print(stderr, "error: check failed (bound: max_rel_err <= 3e-3, every output written)\n");
  return ok ? 0 : 1;
}

int cmdBench(const Options& o) {
  if (isStockham(o.spec)) {
    if (o.tune && !o.ab.empty()) {
      fmt::print(stderr, "{}: --tune and --ab both choose what to time; give one\n", o.spec);
      return 2;
    }
    return stockhamRun(o, true);
  }
  if (o.tune || !o.ab.empty()) {
    fmt::print(stderr, "{}: --tune and --ab vary stockham launch geometry; tc_fft specs fix theirs in the spec's layouts\n", o.spec);
    return 2;
  }
  auto l = loadVerified(o.spec);
  if (!requireDevice("bench")) return 3;
  Runtime rt;
  BenchReport r = benchmarkTcFft(rt, l->plan, o.batch, o.reps);
  fmt::print("{}", formatBench(r, l->spec.name));
  return 0;
}

}  // namespace warpforge::cli
