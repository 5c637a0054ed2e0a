#pragma once
// A spec error names the file, the JSON path (RFC 6901 pointer), what is wrong
// and what was expected. The CLI prints it and exits with status 2. what() passes the file, the
// path and the message through printableText(): user text never reaches a terminal raw.
#include <stdexcept>
#include <string>

namespace warpforge {

// User text made safe for a message: control characters (C0, DEL, C1) and bytes that are not UTF-8
// written as \xNN, so the result is printable UTF-8 (no escape sequence, forged line or NUL reaches a
// terminal); text longer than `max` bytes is cut and its length said.
std::string printableText(const std::string& text, std::size_t max = std::string::npos);

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
