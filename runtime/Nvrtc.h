#pragma once
// NVRTC: CUDA source -> CUBIN for one architecture, with the embedded helper
// headers and the compiler's resource report. Needs no GPU.
#include <stdexcept>
#include <string>
#include <vector>

#include "warpforge/compiler.h"  // CompileError

namespace warpforge {

struct NvrtcResult {
  std::vector<char> cubin;  // CUBIN for sm_XX targets
  std::string ptx;          // PTX for compute_XX targets
  std::string log;          // full NVRTC + ptxas log
  int registers = -1;       // per thread, from ptxas
  int spillStoreBytes = -1;
  int spillLoadBytes = -1;
  int stackFrameBytes = -1;
};

// `arch` is "sm_80", "sm_90", ... (CUBIN) or "compute_90" (PTX); `name` names the program in messages.
NvrtcResult nvrtcCompile(const std::string& source, const std::string& name, const std::string& arch);
std::string nvrtcVersion();
std::vector<std::string> nvrtcOptions(const std::string& arch);
// Parses ptxas -v output into the result's resource fields.
void parsePtxasReport(const std::string& log, NvrtcResult& r);

}  // namespace warpforge
