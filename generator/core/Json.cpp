#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <unordered_set>
#include <vector>

#include "generator/core/JsonReader.h"

namespace warpforge {

namespace {

// Builds the document from nlohmann's SAX events, in time linear in its size: members are appended to
// the ordered object as they come (nlohmann's own DOM builder inserts each key through ordered_map's
// linear lookup: a 5 MB object of 300k keys took 91 s). Enforces the depth limit and unique keys, and
// tracks the JSON pointer of the value being read for error messages.
class SpecSax {
 public:
  SpecSax(const std::string& file, Json& root) : file_(file), root_(root) {}

  bool null() { return put(Json(nullptr)); }
  bool boolean(bool v) { return put(Json(v)); }
  bool number_integer(Json::number_integer_t v) { return put(Json(v)); }
  bool number_unsigned(Json::number_unsigned_t v) { return put(Json(v)); }
  bool number_float(Json::number_float_t v, const Json::string_t&) { return put(Json(v)); }
  bool string(Json::string_t& v) { return put(Json(std::move(v))); }
  bool binary(Json::binary_t& v) { return put(Json::binary(std::move(v))); }

  bool start_object(std::size_t) { return open(true); }
  bool start_array(std::size_t) { return open(false); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(Json::string_t& k) {
    Frame& f = frames_.back();
    const auto [at, fresh] = f.keys.insert(std::move(k));
    f.key = &*at;  // set elements do not move
    if (!fresh)
      throw SpecError(file_, pointer(),
                      "duplicate key (each member may appear once; JSON parsers disagree on which one wins)");
    return true;
  }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    if (e.id == 406)  // out_of_range: a number beyond double (1e400)
      throw SpecError(file_, pointer(),
                      fmt::format("number out of range (expected an integer or a finite double): {}", e.what()));
    // The path names the member read last (the syntax error is in it or just after it); nlohmann's text gives the
    // line and column.
    throw SpecError(file_, pointer(), fmt::format("malformed JSON at byte {}: {}", position, e.what()));
  }

  // The pointer of the value being read (the key just read, or the next array element).
  std::string pointer() const {
    std::string p;
    for (const Frame& f : frames_)
      p = f.isObject ? JsonReader::child(p, f.key ? *f.key : std::string()) : p + "/" + std::to_string(f.index);
    return p;
  }

 private:
  struct Frame {
    Json* value;
    bool isObject;
    const std::string* key = nullptr;  // the member being read: an element of `keys`
    long long index = 0;
    std::unordered_set<std::string> keys;
  };

  // Adds a value to the open container (or makes it the root); returns where it lives. A child's address is
  // stable while it is open: its parent receives nothing until it closes.
  Json* place(Json&& v) {
    if (frames_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Frame& f = frames_.back();
    if (!f.isObject) {
      auto& a = f.value->get_ref<Json::array_t&>();
      a.push_back(std::move(v));
      ++f.index;
      return &a.back();
    }
    auto& members = static_cast<Json::object_t::Container&>(f.value->get_ref<Json::object_t&>());
    members.emplace_back(*f.key, std::move(v));  // unique: checked in key()
    return &members.back().second;
  }
  bool put(Json&& v) {
    place(std::move(v));
    return true;
  }
  bool open(bool object) {
    // Deeper documents are refused before they are built: copying, dumping or walking them
    // recursively would overflow the stack.
    if (frames_.size() >= static_cast<std::size_t>(kMaxJsonDepth))
      throw SpecError(file_, pointer(), fmt::format("JSON nested deeper than {} levels", kMaxJsonDepth));
    Json* v = place(object ? Json::object() : Json::array());
    if (!frames_.empty() && !frames_.back().isObject) --frames_.back().index;  // the pointer names the open element
    frames_.push_back(Frame{v, object, nullptr, 0, {}});
    return true;
  }
  bool close() {
    frames_.pop_back();
    if (!frames_.empty() && !frames_.back().isObject) ++frames_.back().index;
    return true;
  }

  const std::string& file_;
  Json& root_;
  std::vector<Frame> frames_;
};

void checkSize(std::size_t bytes, const std::string& file) {
  if (bytes > kMaxSpecBytes)
    throw SpecError(file, "", fmt::format("spec is {} bytes; the limit is {} MiB", bytes, kMaxSpecBytes >> 20));
}

// Reads what `fd` holds up to the size limit (a larger file is refused as soon as it passes it).
std::string readLimited(int fd, const std::string& file) {
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw SpecError(file, "", fmt::format("cannot read file: {}", std::strerror(errno)));
    if (n == 0) return text;
    text.append(buf, static_cast<std::size_t>(n));
    checkSize(text.size(), file);
  }
}

}  // namespace

Json parseJsonText(const std::string& text, const std::string& file) {
  checkSize(text.size(), file);
  Json root;
  SpecSax sax(file, root);
  Json::sax_parse(text, &sax);
  return root;
}

std::string readSpecFileText(const std::string& file) {
  // Opened without blocking (a FIFO with no writer would block open() forever), then checked to be a
  // regular file of at most the size limit before anything is read.
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw SpecError(file, "", fmt::format("cannot open file: {}", std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw SpecError(file, "", fmt::format("cannot read file: {}", std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) throw SpecError(file, "", "is a directory, not a spec file");
  if (!S_ISREG(st.st_mode))
    throw SpecError(file, "",
                    fmt::format("is a {}, not a regular file (give a spec file, or '-' for standard input)",
                                S_ISFIFO(st.st_mode)                         ? "FIFO"
                                : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "device"
                                : S_ISSOCK(st.st_mode)                       ? "socket"
                                                                             : "special file"));
  checkSize(static_cast<std::size_t>(st.st_size), file);
  return readLimited(fd, file);
}

std::string readSpecStreamText(int fd, const std::string& name) { return readLimited(fd, name); }

}  // namespace warpforge
