#include <fstream>
#include <sstream>

#include "generator/core/JsonReader.h"

namespace warpforge {

Json parseJsonText(const std::string& text, const std::string& file) {
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw SpecError(file, "", fmt::format("malformed JSON at byte {}: {}", e.byte, e.what()));
  }
}

std::string readSpecFileText(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw SpecError(file, "", "cannot open file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace warpforge
