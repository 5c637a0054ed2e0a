#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "generator/core/JsonReader.h"

namespace warpforge {

namespace {

// Tracks where the parser is (for the JSON pointer of an error) and enforces the
// depth limit and unique keys while nlohmann builds the document. Callback
// depths: *_start and key/value events get the number of open containers,
// *_end events that number minus one (nlohmann's json_sax_dom_callback_parser).
class ParseGuard {
 public:
  explicit ParseGuard(const std::string& file) : file_(file) {}

  bool operator()(int depth, nlohmann::json::parse_event_t event, Json& parsed) {
    using E = nlohmann::json::parse_event_t;
    switch (event) {
      case E::object_start:
      case E::array_start:
        // Deeper documents are refused before they are built: copying, dumping
        // or walking them recursively would overflow the stack.
        if (depth >= kMaxJsonDepth)
          throw SpecError(file_, pointer(), fmt::format("JSON nested deeper than {} levels", kMaxJsonDepth));
        frames_.push_back({event == E::object_start, {}, 0, {}});
        break;
      case E::key: {
        Frame& f = frames_.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second)
          throw SpecError(file_, pointer(), "duplicate key (each member may appear once; JSON parsers disagree on which one wins)");
        break;
      }
      case E::object_end:
      case E::array_end:
        frames_.pop_back();
        advance();
        break;
      case E::value:
        advance();
        break;
    }
    return true;
  }

  // The pointer of the value being read (the key just read, or the next array element).
  std::string pointer() const {
    std::string p;
    for (const Frame& f : frames_) p = f.isObject ? JsonReader::child(p, f.key) : p + "/" + std::to_string(f.index);
    return p;
  }

 private:
  struct Frame {
    bool isObject;
    std::string key;
    long long index;
    std::set<std::string> keys;
  };
  void advance() {
    if (!frames_.empty() && !frames_.back().isObject) ++frames_.back().index;
  }
  const std::string& file_;
  std::vector<Frame> frames_;
};

void checkSize(std::size_t bytes, const std::string& file) {
  if (bytes > kMaxSpecBytes)
    throw SpecError(file, "", fmt::format("spec is {} bytes; the limit is {} MiB", bytes, kMaxSpecBytes >> 20));
}

}  // namespace

Json parseJsonText(const std::string& text, const std::string& file) {
  checkSize(text.size(), file);
  ParseGuard guard(file);
  try {
    return Json::parse(text, std::ref(guard));
  } catch (const nlohmann::json::parse_error& e) {
    throw SpecError(file, "", fmt::format("malformed JSON at byte {}: {}", e.byte, e.what()));
  } catch (const nlohmann::json::out_of_range& e) {  // 406: a number beyond double (1e400)
    throw SpecError(file, guard.pointer(), fmt::format("number out of range (expected an integer or a finite double): {}", e.what()));
  } catch (const nlohmann::json::exception& e) {
    throw SpecError(file, guard.pointer(), fmt::format("malformed JSON: {}", e.what()));
  }
}

std::string readSpecFileText(const std::string& file) {
  // The size is checked before anything is read; a non-regular file (FIFO, device)
  // is read only up to the limit.
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) throw SpecError(file, "", fmt::format("cannot open file: {}", std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) throw SpecError(file, "", "is a directory, not a spec file");
  if (S_ISREG(st.st_mode)) checkSize(static_cast<std::size_t>(st.st_size), file);
  std::ifstream in(file, std::ios::binary);
  if (!in) throw SpecError(file, "", "cannot open file");
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(in.gcount()));
    checkSize(text.size(), file);
  }
  if (in.bad()) throw SpecError(file, "", "cannot read file");
  return text;
}

}  // namespace warpforge
