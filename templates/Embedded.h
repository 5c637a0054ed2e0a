#pragma once
// The device helper headers, embedded at build time (cmake/EmbedTemplates.cmake).
#include <string>
#include <vector>

namespace warpforge {
struct EmbeddedFile {
  const char* name;
  const char* text;
};
const std::vector<EmbeddedFile>& embeddedTemplates();
}  // namespace warpforge
