#pragma once
// The JSON type specs are read as (member order kept, for messages and emit).
#include <nlohmann/json.hpp>

#include <string>

namespace warpforge {
using Json = nlohmann::ordered_json;

// Parses JSON text; a syntax error is a SpecError naming `file` at path "".
Json parseJsonText(const std::string& text, const std::string& file);
// A spec file's text; an unreadable file is a SpecError.
std::string readSpecFileText(const std::string& file);
}  // namespace warpforge
