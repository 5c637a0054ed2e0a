#pragma once
// Reads a spec's JSON keeping the JSON pointer of every value, so that each
// error names the file, the path, what is wrong and what was expected.
#include <algorithm>
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
  const std::string& file() const { return file_; }

  [[noreturn]] void fail(const std::string& path, const std::string& what) const { throw SpecError(file_, path, what); }

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
    if (AllowedKeysObserver observe = allowedKeysObserver())
      observe(path, std::vector<std::string>(allowed.begin(), allowed.end()));
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      bool ok = false;
      for (const char* a : allowed) ok |= it.key() == a;
      // "description" is free text wherever a family allows it, and text only (never a number, object or null).
      if (ok && it.key() == "description") string(it.value(), child(path, it.key()));
      if (!ok) {
        const std::string near = closest(it.key(), std::vector<std::string>(allowed.begin(), allowed.end()));
        fail(child(path, it.key()),
             fmt::format("unknown field{} (expected one of: {})",
                         near.empty() ? "" : fmt::format("; did you mean '{}'?", near), fmt::join(allowed, ", ")));
      }
    }
  }

  // The candidate nearest to `word` (optimal string alignment distance: one insertion, deletion,
  // substitution or swap of neighbours each), where it is near enough to be a slip: at most 1 edit for
  // words of up to 4 characters, 2 up to 8, 3 beyond. "" where none is.
  static std::string closest(const std::string& word, const std::vector<std::string>& candidates) {
    if (word.size() > 64) return "";
    const std::size_t limit = word.size() <= 4 ? 1 : word.size() <= 8 ? 2 : 3;
    std::string best;
    std::size_t bestDistance = limit + 1;
    for (const std::string& c : candidates) {
      const std::size_t n = word.size(), m = c.size();
      if ((n > m ? n - m : m - n) > limit) continue;
      std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
      for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
      for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
      for (std::size_t i = 1; i <= n; ++i)
        for (std::size_t j = 1; j <= m; ++j) {
          const bool same = std::tolower(static_cast<unsigned char>(word[i - 1])) ==
                            std::tolower(static_cast<unsigned char>(c[j - 1]));
          d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (same ? 0 : 1)});
          if (i > 1 && j > 1 && word[i - 1] == c[j - 2] && word[i - 2] == c[j - 1])
            d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
      if (d[n][m] < bestDistance) bestDistance = d[n][m], best = c;
    }
    return best;
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
      fail(path, fmt::format("expected an integer in {}..{}, found the non-integer number {} (no fraction, exponent or "
                             "more than 64 bits)",
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
        "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
        "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr",
        "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
        "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
        "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
        "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
        "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch",
        "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "union",
        "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "final", "override",
        "restrict", "main",
        // CUDA built-ins and vector types used by generated code
        "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3", "half", "half2", "nv_bfloat16", "float2",
        "float4", "double2", "uint2", "uint4", "int2", "int4", "char4", "cudaStream_t", "cudaError_t", "CUdeviceptr",
        "CUstream",
        // C library names a kernel translation unit or plan header may see
        "printf", "malloc", "free", "memcpy", "memset", "assert", "abort", "exit", "sin", "cos", "sqrt", "std", "NULL",
        "errno", "stdin", "stdout", "stderr", "size_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
        "uint16_t", "uint32_t", "uint64_t"};
    if (words.count(v)) return true;
    // Generated symbols append "_<suffix>" to a name or prefix it with "<prefix>_": a leading or trailing
    // '_' or a "__" anywhere gives an identifier C++ reserves ("_" -> "__correlate").
    if (v.empty() || v.front() == '_' || v.back() == '_' || v.find("__") != std::string::npos) return true;
    // The plan header's namespace wf_<name> and the helpers' own wf_ symbols share a translation unit; the kernels
    // also name tables wf_dft<R>_<dir>..., wf_pairs<R>_<dir> and wrappers wf_mma_<shape>_<type>.
    if (helperSymbols().count("wf_" + v)) return true;
    auto digitAt = [&](std::size_t i) { return v.size() > i && std::isdigit(static_cast<unsigned char>(v[i])); };
    if ((v.rfind("dft", 0) == 0 && digitAt(3)) || (v.rfind("pairs", 0) == 0 && digitAt(5)) || v.rfind("mma_", 0) == 0)
      return true;
    auto upperAt = [&](std::size_t i) { return v.size() > i && std::isupper(static_cast<unsigned char>(v[i])); };
    // cudaX... (runtime API), cuX... (driver API), nvrtcX...
    if ((v.rfind("cuda", 0) == 0 && upperAt(4)) || (v.rfind("cu", 0) == 0 && upperAt(2)) ||
        (v.rfind("nvrtc", 0) == 0 && upperAt(5)))
      return true;
    return v.rfind("wf_", 0) == 0 || v.rfind("warpforge", 0) == 0;
  }

  // The file-scope wf_ symbols of the helper headers and the generated kernels (tests/HardeningTest.cpp
  // checks the list against every emitted source of specs/ and every helper header).
  static const std::set<std::string>& helperSymbols() {
    static const std::set<std::string> symbols = {"wf_as_h2",
                                                  "wf_as_u32",
                                                  "wf_cmul",
                                                  "wf_cmul_f32",
                                                  "wf_cp_async4",
                                                  "wf_cp_async_commit",
                                                  "wf_cp_async_wait",
                                                  "wf_dft",
                                                  "wf_flags",
                                                  "wf_float2_to_half2",
                                                  "wf_half2_to_float2",
                                                  "wf_i4",
                                                  "wf_i8",
                                                  "wf_it",
                                                  "wf_local_transpose16",
                                                  "wf_mma_m16n8k16_f16",
                                                  "wf_mma_m16n8k16_f32",
                                                  "wf_mma_m16n8k8_f16",
                                                  "wf_mma_m16n8k8_f32",
                                                  "wf_named_barrier",
                                                  "wf_negate",
                                                  "wf_next",
                                                  "wf_pack",
                                                  "wf_pad",
                                                  "wf_pairs",
                                                  "wf_part",
                                                  "wf_phase",
                                                  "wf_radix2",
                                                  "wf_smem",
                                                  "wf_swizzle",
                                                  "wf_tensor_map",
                                                  "wf_thread_index",
                                                  "wf_ticket",
                                                  "wf_u32",
                                                  "wf_unpack_row0",
                                                  "wf_unpack_row1",
                                                  "wf_vec_t",
                                                  "wf_warp_load16",
                                                  "wf_warp_load16_async",
                                                  "wf_warp_load16_async_swizzled",
                                                  "wf_warp_load16_swizzled",
                                                  "wf_warp_load_parts_async",
                                                  "wf_warp_load_rows",
                                                  "wf_warp_store16",
                                                  "wf_warp_store16_swizzled",
                                                  "wf_warp_store_rows",
                                                  "wf_warp_transpose"};
    return symbols;
  }

  static constexpr std::size_t kMaxNameLength = 64;  // names become file names and symbols

  std::string identifier(const Json& j, const std::string& path, const char* what) const {
    std::string v = string(j, path);
    if (!isIdentifier(v))
      fail(path, fmt::format("{} '{}' must be a C identifier (letters, digits, '_', not starting with a digit)", what,
                             printable(v)));
    if (v.size() > kMaxNameLength)
      fail(path, fmt::format("{} is {} characters long (at most {})", what, v.size(), kMaxNameLength));
    if (isReservedName(v))
      fail(path,
           fmt::format("{} '{}' is reserved (a C++/CUDA keyword or built-in, a C library name, a helper's name after "
                       "wf_, "
                       "starts or ends with '_', holds \"__\", or starts with wf_, warpforge, cudaX, cuX, nvrtcX)",
                       what, v));
    return v;
  }

  // User text for a message: printableText() (control characters and non-UTF-8 bytes escaped), shortened.
  static std::string printable(const std::string& s, std::size_t max = 80) { return printableText(s, max); }

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
