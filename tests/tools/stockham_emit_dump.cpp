// Writes what the stockham family emits for a set of specs: every kernel's source, the plan header (tables
// replaced by a hash of their bytes) and the parse or plan error where there is one, one directory per spec and
// arch. Two builds' dumps compared with `diff -r` show whether a change altered any emitted byte
// (tests/tools/stockham-emit-diff runs the comparison).
//
//   stockham_emit_dump OUT [--arch A]... [--sweep SEED:COUNT]... [--probe none|hash|nvrtc] [--save-sweep DIR]
//   [SPEC.json]...
//
// --save-sweep DIR writes the sweep draws as DIR/<name>.json too: a build whose sweep draws other specs (a class
// added) then dumps the same specs as the base when given those files.
//
// Probes (how the spill-free search of the family sees its compiles):
//   none   the first-try kernels, no compiler consulted;
//   hash   a stand-in compiler whose report is a fixed function of the source: the search walks its variants
//          (relaxed targets, fewer threads, column values, more resident blocks) deterministically and quickly,
//          so every emitter path the search takes is compared without NVRTC;
//   nvrtc  NVRTC's own reports (slow: seconds per kernel), as `warpforge emit` builds the plan.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/Facets.h"
#include "generator/stockham/StockhamFamily.h"
#include "warpforge/compiler.h"
#include "warpforge/family.h"
#include "warpforge/json.h"
#include "warpforge/launch_plan.h"
#include "warpforge/spec_error.h"

using namespace warpforge;
namespace fs = std::filesystem;

namespace {

std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t h = 0xcbf29ce484222325ULL) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

// Registers and spills as a fixed function of the source: a third of the sources spill, registers 32..255.
class HashProbe : public CompileProbe {
 public:
  CompileReport compile(const std::string& source, const std::string&, const std::string& arch) override {
    const std::uint64_t h = fnv1a(arch.data(), arch.size(), fnv1a(source.data(), source.size()));
    CompileReport r;
    r.registers = 32 + static_cast<int>(h % 224);
    const bool spills = (h >> 20) % 3 == 0;
    r.spillStoreBytes = spills ? 8 * static_cast<int>(1 + (h >> 24) % 8) : 0;
    r.spillLoadBytes = r.spillStoreBytes;
    r.stackFrameBytes = r.spillStoreBytes;
    return r;
  }
};

void writeFile(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
}

struct Case {
  std::string key;   // directory name
  Json spec;         // sweep specs
  std::string file;  // spec files
};

void dump(const Case& c, const std::string& arch, CompileProbe* probe, const fs::path& dir) {
  fs::create_directories(dir);
  try {
    const Family& fam = stockhamFamily();
    std::unique_ptr<FamilySpec> spec = c.file.empty()
                                           ? fam.parse(c.spec, c.key + ".json")
                                           : fam.parse(parseJsonText(readSpecFileText(c.file), c.file), c.file);
    Generated g = spec->emit({arch, probe});
    for (const auto& s : g.plan.sources) writeFile(dir / s.fileName, s.text);
    std::string tables;
    for (auto& b : g.plan.buffers) {
      if (b.contents.empty()) continue;
      tables += fmt::format("{} {} bytes fnv1a {:016x}\n", b.name, b.contents.size(),
                            fnv1a(b.contents.data(), b.contents.size()));
      b.contents.clear();
    }
    writeFile(dir / "tables.txt", tables);
    writeFile(dir / (g.plan.specName + "_plan.h"), launchPlanHeader(g.plan));
  } catch (const SpecError& e) {
    writeFile(dir / "error.txt", fmt::format("SpecError {}\n", e.what()));
  } catch (const std::exception& e) {
    writeFile(dir / "error.txt", fmt::format("exception {}\n", e.what()));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s OUT [--arch A]... [--sweep SEED:COUNT]... [--probe none|hash|nvrtc] [--save-sweep DIR] "
                 "[SPEC.json]...\n",
                 argv[0]);
    return 2;
  }
  const fs::path out = argv[1];
  std::vector<std::string> archs;
  std::string probeName = "none";
  std::vector<Case> cases;
  std::string saveSweep;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--arch" && i + 1 < argc) {
      archs.push_back(argv[++i]);
    } else if (a == "--save-sweep" && i + 1 < argc) {
      saveSweep = argv[++i];
    } else if (a == "--probe" && i + 1 < argc) {
      probeName = argv[++i];
    } else if (a == "--sweep" && i + 1 < argc) {
      const std::string v = argv[++i];
      const auto colon = v.find(':');
      const std::uint64_t seed = std::stoull(v.substr(0, colon));
      const int count = colon == std::string::npos ? 300 : std::stoi(v.substr(colon + 1));
      for (auto& s : sweepFacet(stockhamFamily())->sweepSpecs(seed, count))
        cases.push_back({s.spec["name"].get<std::string>(), s.spec, ""});
    } else {
      cases.push_back({fs::path(a).stem().string(), Json(), a});
    }
  }
  if (!saveSweep.empty()) {
    fs::create_directories(saveSweep);
    for (const auto& c : cases)
      if (c.file.empty()) writeFile(fs::path(saveSweep) / (c.key + ".json"), c.spec.dump(2) + "\n");
  }
  if (archs.empty()) archs = {"sm_80", "sm_90"};
  HashProbe hash;
  NvrtcProbe nvrtc;
  CompileProbe* probe = probeName == "hash"    ? static_cast<CompileProbe*>(&hash)
                        : probeName == "nvrtc" ? &nvrtc
                                               : nullptr;
  if (!probe && probeName != "none") {
    std::fprintf(stderr, "unknown probe '%s' (expected none, hash or nvrtc)\n", probeName.c_str());
    return 2;
  }
  for (std::size_t i = 0; i < cases.size(); ++i) {
    for (const auto& arch : archs) dump(cases[i], arch, probe, out / arch / cases[i].key);
    std::fprintf(stderr, "\r[%zu/%zu] %s          ", i + 1, cases.size(), cases[i].key.c_str());
  }
  std::fprintf(stderr, "\n");
  return 0;
}
