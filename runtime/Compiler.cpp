#include "warpforge/compiler.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "runtime/Cache.h"
#include "runtime/Nvrtc.h"
#include "templates/Embedded.h"

namespace warpforge {

struct Compiler::Caches {
  explicit Caches(std::string dir) : disk(std::move(dir)) {}
  DiskCache disk;
  MemoryCache memory;
};

Compiler::Compiler() : Compiler(DiskCache::defaultDir()) {}
Compiler::Compiler(std::string cacheDir) : caches_(std::make_unique<Caches>(std::move(cacheDir))) {}
Compiler::~Compiler() = default;
const std::string& Compiler::cacheDir() const { return caches_->disk.dir(); }

namespace {

// What a compile depends on: the source, the target, NVRTC's version and options, and the helper headers.
std::string moduleKey(const std::string& source, const std::string& arch) {
  std::vector<std::string> parts{source, arch, nvrtcVersion()};
  for (const auto& o : nvrtcOptions(arch)) parts.push_back(o);
  for (const auto& f : embeddedTemplates()) parts.push_back(f.text);
  return cacheKey(parts);
}

// ptxas's report kept on disk beside the CUBIN (".report"): "registers spill-stores spill-loads stack\n", then the log.
std::vector<char> reportBytes(const CompileResult& r) {
  const std::string text = fmt::format("{} {} {} {}\n{}", r.registers, r.spillStoreBytes, r.spillLoadBytes,
                                       r.stackFrameBytes, r.log);
  return {text.begin(), text.end()};
}
bool readReport(const std::vector<char>& bytes, CompileResult& r) {
  const std::string text(bytes.begin(), bytes.end());
  const auto eol = text.find('\n');
  if (eol == std::string::npos) return false;
  int n = 0;
  if (std::sscanf(text.c_str(), "%d %d %d %d%n", &r.registers, &r.spillStoreBytes, &r.spillLoadBytes,
                  &r.stackFrameBytes, &n) != 4 ||
      static_cast<std::size_t>(n) != eol)
    return false;
  r.log = text.substr(eol + 1);
  return true;
}

// compileWithReport through the disk cache in `dir` (the CUBIN as Compiler::compile keeps it, and the report): a
// process that emits a spec another process emitted before (the spill probe's compiles) compiles nothing.
// `*stored`: whether this call wrote the CUBIN into `dir` (a memoised result may come from another directory).
CompileResult compileWithReportIn(const std::string& dir, const std::string& source, const std::string& name,
                                  const std::string& arch, bool* stored = nullptr) {
  static std::mutex mutex;
  static std::map<std::string, CompileResult> memo;
  const std::string key = moduleKey(source, arch);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = memo.find(key); it != memo.end()) return it->second;
  }
  const DiskCache cubins(dir), reports(dir, ".report");
  CompileResult r;
  const auto cubin = cubins.get(key);
  const auto report = cubin ? reports.get(key) : std::nullopt;
  if (cubin && report && !cubin->empty() && readReport(*report, r)) {
    r.cubin = *cubin;
  } else {
    NvrtcResult n = nvrtcCompile(source, name, arch);
    r = CompileResult{std::move(n.cubin), std::move(n.log), n.registers,
                      n.spillStoreBytes,  n.spillLoadBytes, n.stackFrameBytes};
    if (!r.cubin.empty() && cubins.put(key, r.cubin)) {  // best effort: a read-only disk only costs recompiles
      reports.put(key, reportBytes(r));
      if (stored) *stored = true;
    }
  }
  std::lock_guard<std::mutex> lock(mutex);
  return memo.emplace(key, std::move(r)).first->second;
}

}  // namespace

CompiledModule Compiler::compile(const std::string& source, const std::string& name, const std::string& arch) {
  CompiledModule m;
  m.key = moduleKey(source, arch);
  if (auto hit = caches_->memory.get(m.key)) {
    m.cubin = std::move(*hit);
    m.memoryHit = true;
    return m;
  }
  if (auto hit = caches_->disk.get(m.key)) {
    m.cubin = std::move(*hit);
    m.diskHit = true;
    caches_->memory.put(m.key, m.cubin);
    return m;
  }
  CompileResult r;
  bool stored = false;
  try {
    // shared with the probe: a kernel checked for spills is compiled once
    r = compileWithReportIn(caches_->disk.dir(), source, name, arch, &stored);
  } catch (const CompileError& e) {
    throw CompileError(fmt::format("spec '{}': {}", name, e.what()), e.log());
  }
  // A result memoised from another directory (or a disk that refused it) is stored here with its report, as a
  // compile in this directory stores it: best effort.
  if (!stored && caches_->disk.put(m.key, r.cubin))
    DiskCache(caches_->disk.dir(), ".report").put(m.key, reportBytes(r));
  m.cubin = std::move(r.cubin);
  m.log = std::move(r.log);
  caches_->memory.put(m.key, m.cubin);
  return m;
}

CompileResult compileWithReport(const std::string& source, const std::string& name, const std::string& arch) {
  return compileWithReportIn(DiskCache::defaultDir(), source, name, arch);
}

std::string nvrtcVersionString() { return nvrtcVersion(); }

int cubinRegisters(const std::vector<char>& cubin, const std::string& kernel) {
  auto u16 = [&](std::size_t o) {
    std::uint16_t v = 0;
    if (o + 2 <= cubin.size()) std::memcpy(&v, cubin.data() + o, 2);
    return v;
  };
  auto u32 = [&](std::size_t o) {
    std::uint32_t v = 0;
    if (o + 4 <= cubin.size()) std::memcpy(&v, cubin.data() + o, 4);
    return v;
  };
  auto u64 = [&](std::size_t o) {
    std::uint64_t v = 0;
    if (o + 8 <= cubin.size()) std::memcpy(&v, cubin.data() + o, 8);
    return v;
  };
  if (cubin.size() < 64 ||
      std::memcmp(cubin.data(),
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      cubin[4] != 2)
    return -1;  // ELF64 only
  const std::uint64_t shoff = u64(0x28);
  const std::size_t shentsize = u16(0x3a), shnum = u16(0x3c), shstrndx = u16(0x3e);
  if (shstrndx >= shnum) return -1;
  const std::uint64_t strtab = u64(shoff + shstrndx * shentsize + 0x18);
  auto sectionNamed = [&](const std::string& want) -> std::size_t {
    for (std::size_t k = 0; k < shnum; ++k) {
      const std::size_t nameAt = strtab + u32(shoff + k * shentsize);
      if (nameAt < cubin.size() &&
          want == std::string(cubin.data() + nameAt, strnlen(cubin.data() + nameAt, cubin.size() - nameAt)))
        return k;
    }
    return shnum;
  };
  // The .text section's sh_info holds the kernel's symbol in its low 24 bits and, up to sm_8x, the register
  // count in its top byte; .nv.info holds EIATTR_REGCOUNT (0x2f) records {format 0x04, attribute, u16 size 8,
  // u32 symbol, u32 registers} (the only place sm_90 CUBINs give it).
  const std::size_t text = sectionNamed(".text." + kernel), info = sectionNamed(".nv.info");
  if (text == shnum) return -1;
  const std::uint32_t textInfo = u32(shoff + text * shentsize + 0x2c), symbol = textInfo & 0xffffff;
  if (textInfo >> 24) return static_cast<int>(textInfo >> 24);
  if (info == shnum) return -1;
  const std::uint64_t at = u64(shoff + info * shentsize + 0x18), size = u64(shoff + info * shentsize + 0x20);
  for (std::uint64_t o = at; o + 4 <= at + size && o + 4 <= cubin.size();) {
    const unsigned format = static_cast<unsigned char>(cubin[o]), attribute = static_cast<unsigned char>(cubin[o + 1]);
    const std::uint64_t length = format == 0x04 ? u16(o + 2) : 0;
    if (format == 0x04 && attribute == 0x2f && length == 8 && u32(o + 4) == symbol) return static_cast<int>(u32(o + 8));
    o += 4 + length;
  }
  return -1;
}

CompileReport NvrtcProbe::compile(const std::string& source, const std::string& name, const std::string& arch) {
  CompileResult r = compileWithReport(source, name, arch);
  return {r.registers, r.spillStoreBytes, r.spillLoadBytes, r.stackFrameBytes};
}

}  // namespace warpforge
