#pragma once
// Reads a spec's JSON keeping the JSON pointer of every value, so that each
// error names the file, the path, what is wrong and what was expected.
#include <cctype>
#include <initializer_list>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "generator/layout/Layout.h"
#include "warpforge/json.h"
#include "warpforge/spec_error.h"

namespace warpforge {


// Walks the JSON with the current pointer so every error can name its place.
class JsonReader {
 public:
  explicit JsonReader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw SpecError(file_, path, what);
  }

  static std::string child(const std::string& path, const std::string& key) {
    std::string k;
    for (char c : key) k += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    return path + "/" + k;
  }

  static const char* typeName(const Json& j) { return j.type_name(); }

  const Json& need(const Json& obj, const std::string& path, const std::string& key) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(child(path, key), "required field is missing");
    return *it;
  }

  void onlyKeys(const Json& obj, const std::string& path, std::initializer_list<const char*> allowed) const {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      bool ok = false;
      for (const char* a : allowed) ok |= it.key() == a;
      if (!ok) fail(child(path, it.key()), fmt::format("unknown field (expected one of: {})", fmt::join(allowed, ", ")));
    }
  }

  void needObject(const Json& j, const std::string& path) const {
    if (!j.is_object()) fail(path, fmt::format("expected an object, found {}", typeName(j)));
  }

  std::string string(const Json& j, const std::string& path) const {
    if (!j.is_string()) fail(path, fmt::format("expected a string, found {}", typeName(j)));
    return j.get<std::string>();
  }

  long long integer(const Json& j, const std::string& path, long long lo, long long hi) const {
    if (!j.is_number_integer()) fail(path, fmt::format("expected an integer, found {}", typeName(j)));
    long long v = j.get<long long>();
    if (v < lo || v > hi) fail(path, fmt::format("value {} is out of range (expected {}..{})", v, lo, hi));
    return v;
  }

  std::vector<int> intList(const Json& j, const std::string& path, int lo, int hi) const {
    if (!j.is_array()) fail(path, fmt::format("expected an array of integers, found {}", typeName(j)));
    std::vector<int> out;
    std::set<int> seen;
    for (std::size_t i = 0; i < j.size(); ++i) {
      int v = static_cast<int>(integer(j[i], path + "/" + std::to_string(i), lo, hi));
      if (!seen.insert(v).second) fail(path + "/" + std::to_string(i), fmt::format("bit {} is listed twice", v));
      out.push_back(v);
    }
    return out;
  }

  // A non-empty C identifier (names become kernel and variable names).
  static bool isIdentifier(const std::string& v) {
    bool ok = !v.empty() && (std::isalpha(static_cast<unsigned char>(v[0])) || v[0] == '_');
    for (char c : v) ok &= std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    return ok;
  }
  std::string identifier(const Json& j, const std::string& path, const char* what) const {
    std::string v = string(j, path);
    if (!isIdentifier(v)) fail(path, fmt::format("{} '{}' must be a C identifier (letters, digits, '_', not starting with a digit)", what, v));
    return v;
  }

  Layout layout(const Json& j, const std::string& path) const {
    std::string text = string(j, path);
    try {
      return Layout::parse(text);
    } catch (const LayoutError& e) {
      fail(path, e.what());
    }
  }

 private:
  std::string file_;
};



}  // namespace warpforge
