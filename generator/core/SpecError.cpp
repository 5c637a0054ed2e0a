#include "warpforge/spec_error.h"

#include <fmt/format.h>

namespace warpforge {

SpecError::SpecError(std::string file, std::string path, std::string what)
    : std::runtime_error(fmt::format("{}: {}: {}", file, path.empty() ? "/" : path, what)),
      file_(std::move(file)), path_(std::move(path)), detail_(std::move(what)) {}

}  // namespace warpforge
