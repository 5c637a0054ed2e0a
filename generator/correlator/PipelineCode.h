#pragma once
// Lines of CUDA at an indentation: how the pipeline's emitters (PipelineEmitter.cpp, PipelineTriangle.cpp) print.
#include <string>

namespace warpforge::corr_emit {

struct Code {
  std::string text;
  int depth = 0;
  void operator()(const std::string& line) {
    text += std::string(static_cast<std::size_t>(2 * depth), ' ') + line + "\n";
  }
  void open(const std::string& line) { (*this)(line + " {"), ++depth; }
  void close(const std::string& tail = "") { --depth, (*this)("}" + tail); }
  // Printed AST statements (one or more lines) at the current indentation.
  void lines(const std::string& text) {
    for (std::size_t from = 0; from < text.size();) {
      const std::size_t end = text.find('\n', from);
      (*this)(text.substr(from, end == std::string::npos ? std::string::npos : end - from));
      if (end == std::string::npos) break;
      from = end + 1;
    }
  }
};

}  // namespace warpforge::corr_emit
