#pragma once
// NVRTC compilation of generated sources, cached in memory and on disk (keyed
// by source, options, NVRTC version, arch and the helper headers). Needs no GPU.
#include <cuda.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "warpforge/family.h"

namespace warpforge {

// NVRTC refused a source (a generator defect, or a toolkit too old for the target): the message names the spec and
// the arch; log() is NVRTC's log.
class CompileError : public std::runtime_error {
 public:
  CompileError(const std::string& what, std::string log)
      : std::runtime_error(what + "\n--- NVRTC log ---\n" + log), log_(std::move(log)) {}
  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

struct CompiledModule {
  std::vector<char> cubin;
  std::string log;  // NVRTC log (empty on a cache hit)
  std::string key;
  bool memoryHit = false, diskHit = false;
};

class Compiler {
 public:
  // Cache directory: $WARPFORGE_CACHE_DIR, else $XDG_CACHE_HOME/warpforge, else ~/.cache/warpforge.
  Compiler();
  explicit Compiler(std::string cacheDir);
  ~Compiler();
  Compiler(const Compiler&) = delete;
  Compiler& operator=(const Compiler&) = delete;
  // `name` (the spec's) goes into errors, which carry the NVRTC log.
  CompiledModule compile(const std::string& source, const std::string& name, const std::string& arch);
  const std::string& cacheDir() const;

 private:
  struct Caches;
  std::unique_ptr<Caches> caches_;
};

// ptxas's report for one compile (-1 where it printed none).
struct CompileResult {
  std::vector<char> cubin;
  std::string log;
  int registers = -1, spillStoreBytes = -1, spillLoadBytes = -1, stackFrameBytes = -1;
};

// NVRTC with the full ptxas report, memoised per (arch, source) for this process and kept in the default disk cache
// beside the CUBIN: what a family's emit consults and what `compile` prints agree and cost one compile, once per
// machine.
CompileResult compileWithReport(const std::string& source, const std::string& name, const std::string& arch);

std::string nvrtcVersionString();
// Registers per thread of `kernel` read from the CUBIN (its .nv.info EIATTR_REGCOUNT record; -1 if not found);
// for NVRTC builds whose log carries no ptxas report.
int cubinRegisters(const std::vector<char>& cubin, const std::string& kernel);

// The CompileProbe a family may consult while emitting.
class NvrtcProbe : public CompileProbe {
 public:
  CompileReport compile(const std::string& source, const std::string& name, const std::string& arch) override;
};

}  // namespace warpforge
