#pragma once
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

}  // namespace warpforge::test
