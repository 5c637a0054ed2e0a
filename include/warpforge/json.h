#pragma once
// The JSON type specs are read as (member order kept, for messages and emit).
#include <nlohmann/json.hpp>

#include <string>

namespace warpforge {
using Json = nlohmann::ordered_json;

// Parses JSON text; a syntax error is a SpecError naming `file` at path "".
Json parseJsonText(const std::string& text, const std::string& file);
// A spec file's text; an unreadable file, a FIFO, a device or one over the size limit is a SpecError
// (opened without blocking, checked to be a regular file before anything is read).
std::string readSpecFileText(const std::string& file);
// What an open descriptor (standard input: 0) holds up to end of file, with the same size limit; errors name `name`.
std::string readSpecStreamText(int fd, const std::string& name);
}  // namespace warpforge
