#include "warpforge/spec_error.h"

#include <fmt/format.h>

namespace warpforge {

namespace {

// Length of the well-formed UTF-8 sequence at s[i] (overlong forms, surrogates and code points past
// U+10FFFF are not), 0 where there is none.
std::size_t utf8Length(const std::string& s, std::size_t i) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = at(i);
  std::size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((at(i + k) & 0xc0) != 0x80) return 0;
  const unsigned char c1 = at(i + 1);
  if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 > 0x9f) || (c == 0xf0 && c1 < 0x90) || (c == 0xf4 && c1 > 0x8f))
    return 0;
  return n;
}

}  // namespace

std::string printableText(const std::string& s, std::size_t max) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size() && out.size() < max) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += s[i++];
      continue;
    }
    const std::size_t n = c < 0x80 ? 0 : utf8Length(s, i);
    const bool c1 = n == 2 && c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0;  // U+0080..U+009F: C1 controls
    if (n == 0 || c1) {
      for (std::size_t k = 0; k < (c1 ? 2 : 1); ++k)
        out += fmt::format("\\x{:02x}", static_cast<unsigned char>(s[i + k]));
      i += c1 ? 2 : 1;
    } else {
      out.append(s, i, n);
      i += n;
    }
  }
  if (i < s.size()) out += fmt::format("... ({} bytes)", s.size());
  return out;
}

SpecError::SpecError(std::string file, std::string path, std::string what)
    : std::runtime_error(fmt::format("{}: {}: {}", printableText(file, 1024),
                                     path.empty() ? "/" : printableText(path, 1024), printableText(what))),
      file_(std::move(file)),
      path_(std::move(path)),
      detail_(printableText(what)) {}

}  // namespace warpforge
