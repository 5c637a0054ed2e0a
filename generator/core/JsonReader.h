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

// Limits on what parseJsonText / readSpecFileText accept (the largest spec in specs/ is a few KiB).
inline constexpr int kMaxJsonDepth = 64;
inline constexpr std::size_t kMaxSpecBytes = std::size_t{16} << 20;

// Observer of every object's allowed keys as a parser states them (onlyKeys), with the object's
// JSON pointer: the spec-reference test checks that the documentation names each one.
using AllowedKeysObserver = void (*)(const std::string& path, const std::vector<std::string>& allowed);
inline AllowedKeysObserver& allowedKeysObserver() {
  static AllowedKeysObserver observer = nullptr;
  return observer;
}

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
    if (AllowedKeysObserver observe = allowedKeysObserver()) observe(path, std::vector<std::string>(allowed.begin(), allowed.end()));
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

  // nlohmann stores integers above LLONG_MAX as unsigned (get<long long> would wrap them to
  // negatives) and integers beyond 64 bits, or written with a fraction or exponent, as doubles.
  long long integer(const Json& j, const std::string& path, long long lo, long long hi) const {
    if (j.is_number_float())
      fail(path, fmt::format("expected an integer in {}..{}, found the non-integer number {} (no fraction, exponent or more than 64 bits)",
                             lo, hi, j.get<double>()));
    if (!j.is_number_integer()) fail(path, fmt::format("expected an integer, found {}", typeName(j)));
    if (j.is_number_unsigned() && j.get<unsigned long long>() > static_cast<unsigned long long>(hi))
      fail(path, fmt::format("value {} is out of range (expected {}..{})", j.get<unsigned long long>(), lo, hi));
    long long v = j.get<long long>();
    if (v < lo || v > hi) fail(path, fmt::format("value {} is out of range (expected {}..{})", v, lo, hi));
    return v;
  }

  bool boolean(const Json& j, const std::string& path) const {
    if (!j.is_boolean()) fail(path, fmt::format("expected true or false, found {}", typeName(j)));
    return j.get<bool>();
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
  // Names that would clash with the language, CUDA's built-ins, the C library or generated code
  // when used as a kernel or file-level symbol: C++/CUDA keywords, reserved forms ("__x", "_X"),
  // and the prefixes of warpforge's own helpers (wf_, warpforge).
  static bool isReservedName(const std::string& v) {
    static const std::set<std::string> words = {
        // C++20 keywords and alternative tokens
        "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch", "char", "char8_t",
        "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr", "constinit", "const_cast", "continue",
        "co_await", "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast", "else", "enum", "explicit",
        "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new",
        "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
        "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
        "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned",
        "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "final", "override", "restrict", "main",
        // CUDA built-ins and vector types used by generated code
        "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3", "half", "half2", "nv_bfloat16", "float2", "float4",
        "double2", "uint2", "uint4", "int2", "int4", "char4", "cudaStream_t", "cudaError_t", "CUdeviceptr", "CUstream",
        // C library names a kernel translation unit or plan header may see
        "printf", "malloc", "free", "memcpy", "memset", "assert", "abort", "exit", "sin", "cos", "sqrt", "std", "NULL", "errno",
        "stdin", "stdout", "stderr", "size_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
        "uint64_t"};
    if (words.count(v)) return true;
    if (v.rfind("__", 0) == 0 || (v.size() > 1 && v[0] == '_' && std::isupper(static_cast<unsigned char>(v[1])))) return true;
    auto upperAt = [&](std::size_t i) { return v.size() > i && std::isupper(static_cast<unsigned char>(v[i])); };
    // cudaX... (runtime API), cuX... (driver API), nvrtcX...
    if ((v.rfind("cuda", 0) == 0 && upperAt(4)) || (v.rfind("cu", 0) == 0 && upperAt(2)) || (v.rfind("nvrtc", 0) == 0 && upperAt(5))) return true;
    return v.rfind("wf_", 0) == 0 || v.rfind("warpforge", 0) == 0;
  }

  static constexpr std::size_t kMaxNameLength = 64;  // names become file names and symbols

  std::string identifier(const Json& j, const std::string& path, const char* what) const {
    std::string v = string(j, path);
    if (!isIdentifier(v)) fail(path, fmt::format("{} '{}' must be a C identifier (letters, digits, '_', not starting with a digit)", what, printable(v)));
    if (v.size() > kMaxNameLength) fail(path, fmt::format("{} is {} characters long (at most {})", what, v.size(), kMaxNameLength));
    if (isReservedName(v))
      fail(path, fmt::format("{} '{}' is reserved (a C++/CUDA keyword or built-in, a C library name, or starts with __, _X, wf_, warpforge, cudaX, cuX)", what, v));
    return v;
  }

  // User text for a message: control characters escaped, long text shortened.
  static std::string printable(const std::string& s, std::size_t max = 80) {
    std::string out;
    for (std::size_t i = 0; i < s.size() && out.size() < max; ++i) {
      unsigned char c = static_cast<unsigned char>(s[i]);
      if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
      else out += s[i];
    }
    if (out.size() >= max && s.size() > max) out += fmt::format("... ({} bytes)", s.size());
    return out;
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
