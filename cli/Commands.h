#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace warpforge::cli {

struct Options {
  std::vector<std::string> specs;
  std::string spec;
  std::string mode = "double";
  std::uint64_t seed = 12345;
  int ffts = 16;
  std::string outDir;
  std::string arch = "sm_90";
  std::string cubinOut;
  long long batch = 1 << 16;
  int reps = 50;
  bool tune = false;  // bench: search the stockham launch geometry first
  std::string ab;     // bench: tuning members (JSON object) to time against the spec as given
};

int cmdVerify(const Options&);
int cmdExplain(const Options&);
int cmdEmulate(const Options&);
int cmdEmit(const Options&);
int cmdCompile(const Options&);
int cmdRun(const Options&);
int cmdBench(const Options&);

// False (after saying why on stderr) when no CUDA device is present.
bool requireDevice(const char* command);

// stockham family (cli/StockhamCommands.cpp)
bool isStockham(const std::string& file);
int stockhamVerify(const std::string& file);
int stockhamExplain(const Options&);
int stockhamEmit(const Options&);
int stockhamCompile(const Options&);
int stockhamRun(const Options&, bool bench);

}  // namespace warpforge::cli
