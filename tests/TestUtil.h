#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace warpforge::test {

inline std::string sourcePath(const std::string& rel) { return std::string(WARPFORGE_SOURCE_DIR) + "/" + rel; }

inline std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline const char* kChimeSpec = "specs/chime_fft_256_512.json";

// The JSON path of the SpecError that parse() throws, or "(no error)".
template <class Error, class Parse>
std::string errorPathOf(Parse&& parse) {
  try {
    parse();
  } catch (const Error& e) {
    return e.path();
  }
  return "(no error)";
}

#ifdef WARPFORGE_CLI
struct CliResult {
  int code;
  std::string out;
};
// Runs the CLI as a user would (`env` prefixes the command, e.g. "HOME=/x"), stdout and stderr together.
inline CliResult runCli(const std::string& args, const std::string& env = "") {
  std::string cmd = env + (env.empty() ? "" : " ") + std::string(WARPFORGE_CLI) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}
#endif

}  // namespace warpforge::test
