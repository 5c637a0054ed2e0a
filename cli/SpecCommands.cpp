// verify, explain, emulate, emit, compile, families: everything that needs no GPU.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "cli/Commands.h"
#include "cli/Progress.h"
#include "templates/Embedded.h"
#include "warpforge/compiler.h"
#include "warpforge/family.h"
#include "warpforge/plan_json.h"

namespace warpforge::cli {

namespace fs = std::filesystem;

namespace {

// Writes a whole file or throws (the CLI exits 2 naming it): a full disk or a read-only directory is never "wrote".
void writeFile(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  if (!out) throw std::invalid_argument(fmt::format("cannot open {} for writing", p.string()));
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.flush();
  if (!out) throw std::invalid_argument(fmt::format("writing {} failed (disk full or read-only?)", p.string()));
}

// Creates `dir` (and its parents) or throws naming it (exit 2).
void makeDirectory(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::invalid_argument(fmt::format("cannot create {}: {}", dir, ec.message()));
}

// SASS opcode counts via cuobjdump, where the toolkit has it (empty otherwise).
std::map<std::string, int> sassCounts(const std::vector<char>& cubin) {
  std::map<std::string, int> counts;
  std::string tool = fs::exists("/usr/local/cuda/bin/cuobjdump") ? "/usr/local/cuda/bin/cuobjdump" : "cuobjdump";
  char tmpl[] = "/tmp/warpforge_sass_XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) return counts;
  bool ok = write(fd, cubin.data(), cubin.size()) == static_cast<ssize_t>(cubin.size());
  close(fd);
  if (ok)
    if (FILE* p = popen((tool + " -sass " + tmpl + " 2>/dev/null").c_str(), "r")) {
      char line[1024];
      while (fgets(line, sizeof line, p)) {
        std::string s(line);
        auto c = s.find("*/");
        if (s.find("/*") == std::string::npos || c == std::string::npos) continue;
        std::size_t i = s.find_first_not_of(" \t", c + 2);
        if (i == std::string::npos) continue;
        if (s[i] == '@') i = s.find_first_of(" \t", i), i = s.find_first_not_of(" \t", i);
        if (i == std::string::npos || s[i] < 'A' || s[i] > 'Z') continue;
        std::size_t e = s.find_first_of(" .;\t", i);
        counts[s.substr(i, e - i)]++;
      }
      pclose(p);
    }
  fs::remove(tmpl);
  return counts;
}

Json issuesJson(const InconsistentSpec& e) {
  Json a = Json::array();
  for (const auto& i : e.issues()) a.push_back({{"path", i.path}, {"message", i.message}});
  if (a.empty()) a.push_back({{"path", ""}, {"message", e.what()}});
  return a;
}

// The plan's kernels as NVRTC builds them for `arch` (one compile each, memoised with emit's probe):
// what `verify` adds to the proof so that exit 0 also means "emits, compiles, does not spill".
struct KernelBuild {
  std::string name;
  int registers = -1, spillStoreBytes = -1, spillLoadBytes = -1, stackBytes = -1;
};

std::vector<KernelBuild> buildKernels(const FamilySpec& spec, const std::string& arch, bool progress) {
  NvrtcProbe nvrtc;
  Progress p(fmt::format("compiling {} for {}", spec.name(), arch), progress);
  Generated g = spec.emit({arch, p.counting(&nvrtc)});
  std::vector<KernelBuild> out;
  std::set<std::string> done;
  for (const auto& k : g.plan.kernels) {
    if (!done.insert(k.name).second) continue;
    CompileResult r = compileWithReport(g.plan.sources[k.source].text, g.plan.specName, compileTarget(g.plan.sources[k.source], arch));
    out.push_back({k.name, r.registers >= 0 ? r.registers : cubinRegisters(r.cubin, k.name), r.spillStoreBytes,
                   r.spillLoadBytes, r.stackFrameBytes});
  }
  return out;
}

}  // namespace

VerifyReport verified(const FamilySpec& spec, const Options& o) {
  VerifyReport r = spec.verify();
  for (const auto& w : r.warnings) fmt::print(stderr, "warning: {}: {}\n", spec.file(), w);
  if (o.strict && !r.warnings.empty())
    throw SpecError(spec.file(), "", fmt::format("{} warning(s), and --strict makes them errors", r.warnings.size()));
  return r;
}

int cmdVerify(const Options& o) {
  int worst = kOk;
  for (const auto& f : o.specs) {
    Json j = {{"file", f}, {"ok", false}};
    try {
      auto spec = loadSpec(f);
      j["family"] = spec->family().name();
      j["name"] = spec->name();
      VerifyReport r = spec->verify();
      if (!o.noCompile) {
        j["arch"] = o.arch;
        j["kernels"] = Json::array();
        std::string line;
        for (const auto& k : buildKernels(*spec, o.arch, o.progress)) {
          j["kernels"].push_back({{"name", k.name}, {"registers", k.registers}, {"spill_store_bytes", k.spillStoreBytes},
                                  {"spill_load_bytes", k.spillLoadBytes}, {"stack_bytes", k.stackBytes}});
          line += fmt::format(" {} ({} registers{})", k.name, k.registers,
                              k.spillStoreBytes < 0 ? ", spills unknown: NVRTC printed no ptxas report" : "");
          if (k.spillStoreBytes > 0 || k.spillLoadBytes > 0)
            r.warnings.push_back(fmt::format("kernel {} spills on {}: {} B stored, {} B loaded per thread (slow, not wrong)",
                                             k.name, o.arch, k.spillStoreBytes, k.spillLoadBytes));
        }
        r.text += fmt::format("NVRTC {} for {}: every kernel compiles:{}\n", nvrtcVersionString(), o.arch, line);
      }
      j["ok"] = true;
      j["errors"] = Json::array();
      j["counts"] = r.counts;
      j["warnings"] = r.warnings;
      if (!o.json) fmt::print("{}", r.text);
      for (const auto& w : r.warnings) fmt::print(stderr, "warning: {}: {}\n", f, w);
      if (o.strict && !r.warnings.empty()) {
        j["ok"] = false;
        j["exit"] = kBadInput;
        for (const auto& w : r.warnings) j["errors"].push_back({{"path", ""}, {"message", "warning (--strict): " + w}});
        worst = std::max(worst, static_cast<int>(kBadInput));
      }
    } catch (const SpecError& e) {
      j["errors"] = Json::array({{{"path", e.path()}, {"message", e.detail()}}});
      j["exit"] = kBadInput;
      if (!o.json) fmt::print(stderr, "error: {}\n", e.what());
      worst = std::max(worst, static_cast<int>(kBadInput));
    } catch (const InconsistentSpec& e) {
      j["errors"] = issuesJson(e);
      j["exit"] = kFailed;
      if (!o.json) fmt::print(stderr, "error: {}: INCONSISTENT\n{}", f, e.what());
      worst = std::max(worst, static_cast<int>(kFailed));
    } catch (const std::invalid_argument& e) {
      j["errors"] = Json::array({{{"path", ""}, {"message", e.what()}}});
      j["exit"] = kBadInput;
      if (!o.json) fmt::print(stderr, "error: {}: {}\n", f, e.what());
      worst = std::max(worst, static_cast<int>(kBadInput));
    } catch (const std::exception& e) {  // emit or NVRTC failed on a spec the family accepted: our defect, exit 3
      j["errors"] = Json::array({{{"path", ""}, {"message", std::string("emit/compile failed: ") + e.what()}}});
      j["exit"] = kCudaFailure;
      if (!o.json) fmt::print(stderr, "error: {}: emit/compile failed: {}\n", f, e.what());
      worst = std::max(worst, static_cast<int>(kCudaFailure));
    }
    if (o.json) fmt::print("{}\n", j.dump());
  }
  return worst;
}

int cmdExplain(const Options& o) {
  auto spec = loadSpec(o.spec);
  verified(*spec, o);
  NvrtcProbe nvrtc;
  std::string text;
  {
    Progress p(fmt::format("explaining {} for {}", spec->name(), o.arch), o.progress);
    text = spec->explain({o.arch, p.counting(&nvrtc)});
  }
  fmt::print("{}", text);
  return kOk;
}

int cmdEmulate(const Options& o) {
  auto spec = loadSpec(o.spec);
  verified(*spec, o);
  auto text = spec->emulate(o.mode, o.seed, o.count);
  if (!text) {
    fmt::print(stderr, "error: {}: the {} family has no warp emulator; `warpforge run` checks it against its CPU reference on a GPU\n", o.spec,
               spec->family().name());
    return kBadInput;
  }
  fmt::print("{}", *text);
  return kOk;
}

int cmdEmit(const Options& o) {
  auto spec = loadSpec(o.spec);
  verified(*spec, o);
  if (o.cubins && !o.planJson) throw std::invalid_argument("--cubins goes with --plan-json (the plan file references the CUBINs)");
  NvrtcProbe nvrtc;
  Generated g;
  {
    Progress p(fmt::format("emitting {} for {}", spec->name(), o.arch), o.progress);
    g = spec->emit({o.arch, p.counting(&nvrtc)});
    if (o.cubins)
      for (auto& s : g.plan.sources) {
        const std::string target = compileTarget(s, o.arch);
        s.cubins[target] = compileWithReport(s.text, g.plan.specName, target).cubin;
        p.compiled();
      }
  }
  makeDirectory(o.outDir);
  const fs::path dir(o.outDir);
  for (const auto& s : g.plan.sources) writeFile(dir / s.fileName, s.text);
  int helpers = 0;
  for (const auto& f : embeddedTemplates())
    for (const auto& h : g.plan.helpers)
      if (h == f.name) writeFile(dir / f.name, f.text), ++helpers;
  const std::string header = g.plan.specName + "_plan.h";
  writeFile(dir / header, launchPlanHeader(g.plan));
  for (const auto& t : launchPlanTableFiles(g.plan)) {
    writeFile(dir / t.fileName, t.bytes);
    fmt::print("wrote {} ({} bytes of table, read by init())\n", (dir / t.fileName).string(), t.bytes.size());
  }
  for (const auto& s : g.plan.sources) fmt::print("wrote {}\n", (dir / s.fileName).string());
  fmt::print("wrote {} ({} kernel launch(es), for {}){}\n", (dir / header).string(), g.plan.kernels.size(), o.arch,
             helpers ? fmt::format(" and {} helper header(s)", helpers) : "");
  if (o.planJson) {
    std::string path;
    try {
      path = savePlanJson(g.plan, o.outDir, {kPlanFormat, fmt::format("warpforge {} ({})", generatorVersion(), generatorId()), o.arch});
    } catch (const std::runtime_error& e) {
      throw std::invalid_argument(e.what());  // an unwritable output: exit 2, naming the file
    }
    fmt::print("wrote {} (the plan as data: {} buffer(s), {} kernel(s){}; warpforge::runtime loads it with loadPlanJson)\n", path,
               g.plan.buffers.size(), g.plan.kernels.size(), o.cubins ? fmt::format(", CUBINs for {}", o.arch) : "");
  }
  return kOk;
}

int cmdCompile(const Options& o) {
  auto spec = loadSpec(o.spec);
  verified(*spec, o);
  NvrtcProbe nvrtc;
  Generated g;
  std::vector<CompileResult> built;
  {
    Progress p(fmt::format("compiling {} for {}", spec->name(), o.arch), o.progress);
    g = spec->emit({o.arch, p.counting(&nvrtc)});
    std::set<std::string> names;
    for (const auto& k : g.plan.kernels)
      if (names.insert(k.name).second) {
        built.push_back(compileWithReport(g.plan.sources[k.source].text, g.plan.specName, compileTarget(g.plan.sources[k.source], o.arch)));
        p.compiled();
      }
  }
  fmt::print("NVRTC {} for {}\n", nvrtcVersionString(), o.arch);
  if (!o.cubinDir.empty()) makeDirectory(o.cubinDir);
  int rc = kOk;
  std::set<std::string> done;
  std::size_t next = 0;
  for (const auto& k : g.plan.kernels) {
    if (!done.insert(k.name).second) continue;
    const CompileResult& r = built[next++];
    int regs = r.registers >= 0 ? r.registers : cubinRegisters(r.cubin, k.name);
    fmt::print("{} [{}]: CUBIN {} bytes, {} registers, block {}, {} bytes shared, {} bytes stack, spill stores {} B, spill loads {} B\n", k.name, o.arch,
               r.cubin.size(), regs, k.blockX * k.blockY, k.sharedBytes, r.stackFrameBytes, r.spillStoreBytes, r.spillLoadBytes);
    if (r.spillStoreBytes < 0) fmt::print("  (this NVRTC printed no ptxas report; registers read from the CUBIN, spills unknown)\n");
    if (r.spillStoreBytes > 0 || r.spillLoadBytes > 0) rc = kFailed;
    auto c = sassCounts(r.cubin);
    if (!c.empty()) {
      std::string line;
      for (const char* op : {"HMMA", "IMMA", "HGMMA", "IGMMA", "FFMA", "HFMA2", "SHFL", "PRMT", "LDG", "STG", "LDS", "STS", "LDL", "STL"})
        if (c[op]) line += fmt::format(" {} {}", op, c[op]);
      fmt::print("  SASS:{}\n", line.empty() ? " (no counted opcodes)" : line);
    }
    if (!o.cubinDir.empty()) writeFile(fs::path(o.cubinDir) / (k.name + ".cubin"), std::string(r.cubin.begin(), r.cubin.end()));
  }
  return rc;
}

int cmdFamilies() {
  for (const Family* f : families()) fmt::print("{:<12} {}\n", f->name(), f->summary());
  return kOk;
}

}  // namespace warpforge::cli
