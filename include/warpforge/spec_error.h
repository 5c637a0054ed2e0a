#pragma once
// A spec error names the file, the JSON path (RFC 6901 pointer), what is wrong
// and what was expected. The CLI prints it and exits with status 2.
#include <stdexcept>
#include <string>

namespace warpforge {

class SpecError : public std::runtime_error {
 public:
  SpecError(std::string file, std::string path, std::string what);
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  const std::string& detail() const { return detail_; }

 private:
  std::string file_, path_, detail_;
};

}  // namespace warpforge
