#include "runtime/Nvrtc.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>
#include <nvrtc.h>

#include "templates/Embedded.h"

namespace warpforge {

namespace {
void check(nvrtcResult r, const char* what, const std::string& name, const std::string& log = "") {
  if (r != NVRTC_SUCCESS) throw CompileError(fmt::format("{}: {} failed: {}", name, what, nvrtcGetErrorString(r)), log);
}

std::string cudaIncludeDir() {
  for (const char* env : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* d = std::getenv(env); d && std::filesystem::exists(std::string(d) + "/include/cuda_fp16.h"))
      return std::string(d) + "/include";
  for (const char* d : {"/usr/local/cuda/include", "/usr/include"})
    if (std::filesystem::exists(std::string(d) + "/cuda_fp16.h")) return d;
  return "";
}
}  // namespace

std::string nvrtcVersion() {
  int major = 0, minor = 0;
  ::nvrtcVersion(&major, &minor);
  return fmt::format("{}.{}", major, minor);
}

std::vector<std::string> nvrtcOptions(const std::string& arch) {
  std::vector<std::string> o = {"--gpu-architecture=" + arch, "-std=c++17", "-default-device", "-lineinfo"};
  if (arch.rfind("sm_", 0) == 0) o.push_back("--ptxas-options=-v");
  // NVRTC 12.9+ caches compiled programs on machines with a driver; a cache hit runs no ptxas and so prints no
  // register/spill report, and the spill-free search would take a spilling kernel for a clean one. Our own
  // cache (runtime/Cache) keeps the CUBINs.
  int major = 0, minor = 0;
  ::nvrtcVersion(&major, &minor);
  if (major > 12 || (major == 12 && minor >= 9)) o.push_back("--no-cache");
  if (std::string inc = cudaIncludeDir(); !inc.empty()) o.push_back("-I" + inc);
  return o;
}

namespace {
// The number log[begin, end) spells (digits only), or -1.
int numberAt(const std::string& log, std::size_t begin, std::size_t end) {
  if (begin >= end || end > log.size()) return -1;
  for (std::size_t i = begin; i < end; ++i)
    if (!std::isdigit(static_cast<unsigned char>(log[i]))) return -1;
  return std::stoi(log.substr(begin, end - begin));
}
// The number that ends at log[end] (after spaces), or -1.
int numberEndingAt(const std::string& log, std::size_t end) {
  std::size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(log[begin - 1]))) --begin;
  return numberAt(log, begin, end);
}
}  // namespace

// ptxas -v's lines: "Used N registers, ..." and "S bytes stack frame, T bytes spill stores, U bytes spill loads".
void parsePtxasReport(const std::string& log, NvrtcResult& r) {
  const std::string used = "Used ", regs = " registers", frame = " bytes stack frame, ",
                    stores = " bytes spill stores, ", loads = " bytes spill loads";
  if (std::size_t at = log.find(used); at != std::string::npos)
    if (std::size_t end = log.find(regs, at); end != std::string::npos)
      if (int n = numberAt(log, at + used.size(), end); n >= 0) r.registers = n;
  const std::size_t f = log.find(frame);
  const std::size_t s = f == std::string::npos ? f : log.find(stores, f);
  const std::size_t l = s == std::string::npos ? s : log.find(loads, s);
  if (l == std::string::npos) return;
  const int frameBytes = numberEndingAt(log, f), storeBytes = numberAt(log, f + frame.size(), s),
            loadBytes = numberAt(log, s + stores.size(), l);
  if (frameBytes < 0 || storeBytes < 0 || loadBytes < 0) return;
  r.stackFrameBytes = frameBytes;
  r.spillStoreBytes = storeBytes;
  r.spillLoadBytes = loadBytes;
}

NvrtcResult nvrtcCompile(const std::string& source, const std::string& name, const std::string& arch) {
  std::vector<const char*> hdrs, hdrNames;
  for (const auto& f : embeddedTemplates()) {
    hdrs.push_back(f.text);
    hdrNames.push_back(f.name);
  }
  nvrtcProgram prog;
  check(nvrtcCreateProgram(&prog, source.c_str(), (name + ".cu").c_str(), static_cast<int>(hdrs.size()), hdrs.data(),
                           hdrNames.data()),
        "nvrtcCreateProgram", name);
  auto opts = nvrtcOptions(arch);
  std::vector<const char*> copts;
  for (const auto& o : opts) copts.push_back(o.c_str());
  nvrtcResult rc = nvrtcCompileProgram(prog, static_cast<int>(copts.size()), copts.data());
  NvrtcResult out;
  std::size_t logSize = 0;
  nvrtcGetProgramLogSize(prog, &logSize);
  out.log.resize(logSize);
  if (logSize) nvrtcGetProgramLog(prog, out.log.data());
  while (!out.log.empty() && out.log.back() == '\0') out.log.pop_back();
  if (rc != NVRTC_SUCCESS) {
    nvrtcDestroyProgram(&prog);
    throw CompileError(fmt::format("{}: NVRTC compilation for {} failed: {}", name, arch, nvrtcGetErrorString(rc)),
                       out.log);
  }
  std::size_t size = 0;
  if (arch.rfind("compute_", 0) == 0) {
    check(nvrtcGetPTXSize(prog, &size), "nvrtcGetPTXSize", name, out.log);
    out.ptx.resize(size);
    check(nvrtcGetPTX(prog, out.ptx.data()), "nvrtcGetPTX", name, out.log);
    while (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
  } else {
    check(nvrtcGetCUBINSize(prog, &size), "nvrtcGetCUBINSize", name, out.log);
    out.cubin.resize(size);
    check(nvrtcGetCUBIN(prog, out.cubin.data()), "nvrtcGetCUBIN", name, out.log);
  }
  nvrtcDestroyProgram(&prog);
  parsePtxasReport(out.log, out);
  return out;
}

}  // namespace warpforge
