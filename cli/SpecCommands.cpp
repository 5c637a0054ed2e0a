// verify, explain, emulate, emit, compile, families: everything that needs no GPU.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "bench/Facets.h"
#include "cli/Commands.h"
#include "cli/Progress.h"
#include "templates/Embedded.h"
#include "warpforge/compiler.h"
#include "warpforge/family.h"
#include "warpforge/plan_json.h"

namespace warpforge::cli {

namespace fs = std::filesystem;

namespace {

// "a symbolic link to T" or "a dangling symbolic link to T" where `p` is a link, else "".
std::string linkDescription(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(p, ec))) return "";
  const fs::path target = fs::read_symlink(p, ec);
  return fmt::format("a {}symbolic link to {}", fs::exists(p, ec) ? "" : "dangling ",
                     printableText(target.string(), 200));
}

// Writes a whole file or throws (the CLI exits 2 naming it): a full disk or a read-only directory is never "wrote".
// Never through a symbolic link planted where the file goes (it would overwrite the link's target), and never into
// a FIFO or device (opened without blocking, checked to be a regular file before anything is written).
void writeFile(const fs::path& p, const std::string& text) {
  const std::string name = printableText(p.string());
  const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int err = errno;
    if (const std::string link = linkDescription(p); !link.empty())
      throw std::invalid_argument(
          fmt::format("{} is {}: no file is written through a link (remove it, or choose another directory)", name,
                      link));
    struct stat st {};
    if (::lstat(p.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
      throw std::invalid_argument(
          fmt::format("{} exists and is not a regular file (a FIFO, device or socket): not overwritten", name));
    throw std::invalid_argument(fmt::format("cannot open {} for writing: {}", name, std::strerror(err)));
  }
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ::ftruncate(fd, 0) == 0;
  if (!ok) {
    ::close(fd);
    throw std::invalid_argument(
        fmt::format("{} exists and is not a regular file (a FIFO, device or socket): not overwritten", name));
  }
  for (std::size_t done = 0; ok && done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    done += ok ? static_cast<std::size_t>(n) : 0;
  }
  ok = ::close(fd) == 0 && ok;
  if (!ok) throw std::invalid_argument(fmt::format("writing {} failed (disk full or read-only?)", name));
}

// Creates `dir` (and its parents) or throws naming it (exit 2); a dangling link in its place is named as such.
void makeDirectory(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!ec) return;
  const std::string link = linkDescription(dir);
  if (!link.empty() && link.find("dangling") != std::string::npos)
    throw std::invalid_argument(fmt::format("cannot create {}: it is {}", printableText(dir), link));
  throw std::invalid_argument(fmt::format("cannot create {}: {}", printableText(dir), ec.message()));
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

std::vector<KernelBuild> buildKernels(const FamilySpec& spec, const std::string& arch, long long* maxBatch,
                                      bool progress) {
  NvrtcProbe nvrtc;
  Progress p(fmt::format("compiling {} for {}", spec.name(), arch), progress);
  Generated g = spec.emit({arch, p.counting(&nvrtc)});
  *maxBatch = g.plan.maxBatch();
  std::vector<KernelBuild> out;
  std::set<std::string> done;
  for (const auto& k : g.plan.kernels) {
    if (!done.insert(k.name).second) continue;
    CompileResult r = compileWithReport(g.plan.sources[k.source].text, g.plan.specName,
                                        compileTarget(g.plan.sources[k.source], arch));
    out.push_back({k.name, r.registers >= 0 ? r.registers : cubinRegisters(r.cubin, k.name), r.spillStoreBytes,
                   r.spillLoadBytes, r.stackFrameBytes});
  }
  return out;
}

}  // namespace

int exitStatus(const std::exception& e) {
  if (dynamic_cast<const SpecError*>(&e) || dynamic_cast<const std::invalid_argument*>(&e)) return kBadInput;
  if (dynamic_cast<const InconsistentSpec*>(&e)) return kFailed;
  if (dynamic_cast<const fs::filesystem_error*>(&e)) return kBadInput;  // a file or directory the user named
  if (dynamic_cast<const std::runtime_error*>(&e)) return kCudaFailure;
  return kInternal;
}

std::string errorText(const std::exception& e) {
  const int code = exitStatus(e);
  if (code == kInternal)
    return fmt::format("internal error (a warpforge defect; please report it with the spec): {}",
                       printableLines(e.what()));
  return printableLines(e.what());
}

std::string printableLines(const std::string& text) {
  std::string out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t nl = text.find('\n', at);
    out += printableText(text.substr(at, nl == std::string::npos ? std::string::npos : nl - at));
    if (nl == std::string::npos) break;
    out += '\n';
    at = nl + 1;
  }
  return out;
}

namespace {
const char* const kStdinName = "<stdin>";
}

std::string specText(const std::string& arg) {
  if (arg != "-") return readSpecFileText(arg);
  static const std::string text = readSpecStreamText(0, kStdinName);  // one read: later loads of "-" see the same text
  return text;
}

std::string specFileName(const std::string& arg) { return arg == "-" ? kStdinName : arg; }

std::unique_ptr<FamilySpec> loadSpecArg(const std::string& arg) {
  if (arg != "-") return loadSpec(arg);
  return parseSpecText(specText(arg), specFileName(arg));
}

VerifyReport verified(const FamilySpec& spec, const Options& o) {
  VerifyReport r = spec.verify();
  for (const auto& w : r.warnings)
    fmt::print(stderr, "warning: {}: {}\n", printableText(spec.file()), printableLines(w));
  if (o.strict && !r.warnings.empty())
    throw SpecError(spec.file(), "", fmt::format("{} warning(s), and --strict makes them errors", r.warnings.size()));
  return r;
}

int cmdVerify(const Options& o) {
  int worst = kOk;
  int stdinArgs = 0;
  for (const auto& f : o.specs) stdinArgs += f == "-";
  if (stdinArgs > 1) throw std::invalid_argument("verify: '-' (standard input) may be given once");
  for (const auto& arg : o.specs) {
    const std::string f = specFileName(arg);
    Json j = {{"file", f}, {"ok", false}};
    auto failed = [&](int code, Json errors, const std::string& text) {
      j["errors"] = std::move(errors);
      j["exit"] = code;
      if (!o.json) fmt::print(stderr, "{}", text);
      worst = std::max(worst, code);
    };
    try {
      auto spec = loadSpecArg(arg);
      j["family"] = spec->family().name();
      j["name"] = spec->name();
      VerifyReport r = spec->verify();
      if (!o.noCompile) {
        j["arch"] = o.arch;
        j["kernels"] = Json::array();
        std::string line;
        long long maxBatch = LLONG_MAX;
        for (const auto& k : buildKernels(*spec, o.arch, &maxBatch, o.progress)) {
          j["kernels"].push_back({{"name", k.name},
                                  {"registers", k.registers},
                                  {"spill_store_bytes", k.spillStoreBytes},
                                  {"spill_load_bytes", k.spillLoadBytes},
                                  {"stack_bytes", k.stackBytes}});
          line += fmt::format(" {} ({} registers{})", k.name, k.registers,
                              k.spillStoreBytes < 0 ? ", spills unknown: NVRTC printed no ptxas report" : "");
          if (k.spillStoreBytes > 0 || k.spillLoadBytes > 0)
            r.warnings.push_back(
                fmt::format("kernel {} spills on {}: {} B stored, {} B loaded per thread (slow, not wrong)", k.name,
                            o.arch, k.spillStoreBytes, k.spillLoadBytes));
        }
        r.text += fmt::format("NVRTC {} for {}: every kernel compiles:{}\n", nvrtcVersionString(), o.arch, line);
        if (maxBatch != LLONG_MAX) {
          j["max_batch"] = maxBatch;
          r.text += fmt::format(
              "at most {} batch entries per call (a kernel runs one block per unit, at most 2^31 - 1 blocks a "
              "launch)\n",
              maxBatch);
        }
      }
      j["ok"] = true;
      j["exit"] = kOk;
      j["errors"] = Json::array();
      j["counts"] = r.counts;
      j["warnings"] = r.warnings;
      if (!o.json) fmt::print("{}", printableLines(r.text));
      for (const auto& w : r.warnings) fmt::print(stderr, "warning: {}: {}\n", printableText(f), printableLines(w));
      if (o.strict && !r.warnings.empty()) {
        j["ok"] = false;
        j["exit"] = kBadInput;
        for (const auto& w : r.warnings) j["errors"].push_back({{"path", ""}, {"message", "warning (--strict): " + w}});
        worst = std::max(worst, static_cast<int>(kBadInput));
      }
    } catch (const SpecError& e) {
      failed(kBadInput, Json::array({{{"path", e.path()}, {"message", e.detail()}}}),
             fmt::format("error: {}\n", e.what()));
    } catch (const InconsistentSpec& e) {
      failed(kFailed, issuesJson(e),
             fmt::format("error: {}: INCONSISTENT\n{}", printableText(f), printableLines(e.what())));
    } catch (const std::exception& e) {  // a bad option or file (2), emit or NVRTC failing on a spec the family
                                         // accepted (3), a defect (4)
      const int code = exitStatus(e);
      const std::string what = code == kInternal ? errorText(e) : printableLines(e.what());
      failed(code,
             Json::array({{{"path", ""}, {"message", code == kBadInput ? what : "emit/compile failed: " + what}}}),
             fmt::format("error: {}: {}{}\n", printableText(f),
                         code == kBadInput ? "" : "emit/compile failed: ", what));
    }
    // Valid JSON whatever the bytes of a file name or message: bytes that are not UTF-8 become U+FFFD.
    if (o.json) fmt::print("{}\n", j.dump(-1, ' ', false, Json::error_handler_t::replace));
    std::fflush(stdout);
  }
  return worst;
}

int cmdExplain(const Options& o) {
  auto spec = loadSpecArg(o.spec);
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

// JSON as a person reads a spec: one member per line, arrays of numbers or strings on one line.
std::string readableJson(const Json& j, int indent = 0) {
  const std::string pad(indent, ' '), inner(indent + 2, ' ');
  if (j.is_object()) {
    if (j.empty()) return "{}";
    std::string s = "{\n";
    std::size_t i = 0;
    for (auto it = j.begin(); it != j.end(); ++it, ++i)
      s += inner + Json(it.key()).dump() + ": " + readableJson(it.value(), indent + 2) +
           (i + 1 < j.size() ? ",\n" : "\n");
    return s + pad + "}";
  }
  if (j.is_array()) {
    bool flat = true;
    for (const auto& e : j) flat &= !e.is_structured();
    if (flat) return j.dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace);
    std::string s = "[\n";
    for (std::size_t i = 0; i < j.size(); ++i)
      s += inner + readableJson(j[i], indent + 2) + (i + 1 < j.size() ? ",\n" : "\n");
    return s + pad + "]";
  }
  return j.dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace);
}

int cmdSynthesize(const Options& o) {
  const std::string name = specFileName(o.spec);
  const Json root = parseJsonText(specText(o.spec), name);
  if (!root.is_object() || !root.contains("family") || !root["family"].is_string()) {
    loadSpecArg(o.spec);  // the family's own error (a SpecError at /family)
    return kBadInput;
  }
  const Family* fam = findFamily(root["family"].get<std::string>());
  if (!fam) {
    loadSpecArg(o.spec);
    return kBadInput;
  }
  std::optional<Json> full = fam->complete(root, name);
  if (!full) {
    fmt::print(stderr, "error: {}: the {} family has nothing to synthesize: its specs are complete as written\n", name,
               fam->name());
    return kBadInput;
  }
  const std::string text = readableJson(*full) + "\n";
  // The complete spec is proved before it is written: what synthesize writes, verify accepts.
  auto spec = parseSpecText(text, o.outFile.empty() ? name : o.outFile);
  VerifyReport r = verified(*spec, o);
  if (o.outFile.empty()) {
    fmt::print("{}", text);
    return kOk;
  }
  writeFile(o.outFile, text);
  fmt::print("{}wrote {} (`warpforge explain {}` shows the search's ranking)\n", r.text, o.outFile, o.spec);
  return kOk;
}

int cmdEmulate(const Options& o) {
  auto spec = loadSpecArg(o.spec);
  verified(*spec, o);
  const EmulateFacet* emulator = emulateFacet(*spec);
  if (!emulator) {
    fmt::print(stderr,
               "error: {}: the {} family has no warp emulator; `warpforge run` checks it against its CPU reference on "
               "a GPU\n",
               printableText(specFileName(o.spec)), spec->family().name());
    return kBadInput;
  }
  fmt::print("{}", emulator->emulate(o.mode, o.seed, o.count));
  return kOk;
}

int cmdEmit(const Options& o) {
  auto spec = loadSpecArg(o.spec);
  verified(*spec, o);
  if (o.cubins && !o.planJson)
    throw std::invalid_argument("--cubins goes with --plan-json (the plan file references the CUBINs)");
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
    fmt::print("wrote {} ({} bytes of table, read by init())\n", printableText((dir / t.fileName).string()),
               t.bytes.size());
  }
  for (const auto& s : g.plan.sources) fmt::print("wrote {}\n", printableText((dir / s.fileName).string()));
  fmt::print("wrote {} ({} kernel launch(es), for {}){}\n", printableText((dir / header).string()),
             g.plan.kernels.size(), o.arch, helpers ? fmt::format(" and {} helper header(s)", helpers) : "");
  if (o.planJson) {
    std::string path;
    try {
      path = savePlanJson(g.plan, o.outDir,
                          {kPlanFormat, fmt::format("warpforge {} ({})", generatorVersion(), generatorId()), o.arch});
    } catch (const std::runtime_error& e) {
      throw std::invalid_argument(e.what());  // an unwritable output: exit 2, naming the file
    }
    fmt::print(
        "wrote {} (the plan as data: {} buffer(s), {} kernel(s){}; warpforge::runtime loads it with loadPlanJson)\n",
        path, g.plan.buffers.size(), g.plan.kernels.size(), o.cubins ? fmt::format(", CUBINs for {}", o.arch) : "");
  }
  return kOk;
}

int cmdCompile(const Options& o) {
  auto spec = loadSpecArg(o.spec);
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
        built.push_back(compileWithReport(g.plan.sources[k.source].text, g.plan.specName,
                                          compileTarget(g.plan.sources[k.source], o.arch)));
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
    fmt::print(
        "{} [{}]: CUBIN {} bytes, {} registers, block {}, {} bytes shared, {} bytes stack, spill stores {} B, spill "
        "loads {} B\n",
        k.name, o.arch, r.cubin.size(), regs, k.blockX * k.blockY, k.sharedBytes, r.stackFrameBytes, r.spillStoreBytes,
        r.spillLoadBytes);
    if (r.spillStoreBytes < 0)
      fmt::print("  (this NVRTC printed no ptxas report; registers read from the CUBIN, spills unknown)\n");
    if (r.spillStoreBytes > 0 || r.spillLoadBytes > 0) rc = kFailed;
    auto c = sassCounts(r.cubin);
    if (!c.empty()) {
      std::string line;
      for (const char* op : {"HMMA", "IMMA", "HGMMA", "IGMMA", "FFMA", "HFMA2", "SHFL", "PRMT", "LDG", "STG", "LDS",
                             "STS", "LDL", "STL"})
        if (c[op]) line += fmt::format(" {} {}", op, c[op]);
      fmt::print("  SASS:{}\n", line.empty() ? " (no counted opcodes)" : line);
    }
    if (!o.cubinDir.empty())
      writeFile(fs::path(o.cubinDir) / (k.name + ".cubin"), std::string(r.cubin.begin(), r.cubin.end()));
  }
  return rc;
}

int cmdFamilies() {
  for (const Family* f : families()) fmt::print("{:<12} {}\n", f->name(), f->summary());
  return kOk;
}

}  // namespace warpforge::cli
