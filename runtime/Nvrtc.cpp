#include "runtime/Nvrtc.h"

#include <cstdlib>
#include <filesystem>
#include <regex>

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

void parsePtxasReport(const std::string& log, NvrtcResult& r) {
  std::smatch m;
  if (std::regex_search(log, m, std::regex(R"(Used (\d+) registers)"))) r.registers = std::stoi(m[1]);
  if (std::regex_search(log, m,
                        std::regex(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)"))) {
    r.stackFrameBytes = std::stoi(m[1]);
    r.spillStoreBytes = std::stoi(m[2]);
    r.spillLoadBytes = std::stoi(m[3]);
  }
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
