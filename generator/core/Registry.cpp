#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "generator/core/JsonReader.h"
#include "warpforge/family.h"

namespace warpforge {

// Defined by the build (generated/FamilyTable.cpp): one entry per generator/<family>/family.cmake.
std::vector<const Family*> registeredFamilies();

const std::vector<std::string>& targetArchs() {
  static const std::vector<std::string> archs = {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"};
  return archs;
}

const std::vector<const Family*>& families() {
  static const std::vector<const Family*> table = registeredFamilies();
  return table;
}

const Family* findFamily(const std::string& name) {
  for (const Family* f : families())
    if (f->name() == name) return f;
  return nullptr;
}

std::unique_ptr<FamilySpec> parseSpec(const Json& root, const std::string& file) {
  JsonReader rd(file);
  rd.needObject(root, "");
  std::string name = rd.string(rd.need(root, "", "family"), "/family");
  const Family* f = findFamily(name);
  if (!f) {
    std::vector<std::string> known;
    for (const Family* k : families()) known.push_back(k->name());
    const std::string near = JsonReader::closest(name, known);
    rd.fail("/family",
            fmt::format("unknown family '{}'{} (expected one of: {})", JsonReader::printable(name),
                        near.empty() ? "" : fmt::format("; did you mean '{}'?", near), fmt::join(known, ", ")));
  }
  return f->parse(root, file);
}

std::unique_ptr<FamilySpec> parseSpecText(const std::string& text, const std::string& file) {
  return parseSpec(parseJsonText(text, file), file);
}

std::unique_ptr<FamilySpec> loadSpec(const std::string& file) { return parseSpecText(readSpecFileText(file), file); }

}  // namespace warpforge
