// Wisdom lives in the runtime, beside the kernel cache: it is keyed by the device (which only the
// runtime knows), stored in the cache's directory under the cache's safety rules, and an installed
// user links warpforge::runtime (bench/ is not installed). It knows specs only as JSON: no family.
#include "warpforge/wisdom.h"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <random>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "runtime/Cache.h"
#include "warpforge/device.h"

namespace warpforge {

namespace {

constexpr const char* kFormat = "warpforge-wisdom-1";
constexpr long long kMaxFileBytes = 64LL << 20;  // a wisdom file is a few KB; anything huge is not ours

// Sorted keys at every level: the same spec written in another member order has the same key.
nlohmann::json canonical(const Json& j) { return nlohmann::json::parse(j.dump()); }

std::string utcNow() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Json deviceJson(const WisdomDevice& d) { return {{"name", d.name}, {"arch", d.arch}, {"driver", d.driverVersion}}; }

// An entry as stored; nullopt where a member is missing or of the wrong type (a hand-edited or foreign file).
std::optional<WisdomEntry> entryFrom(const Json& e) {
  try {
    WisdomEntry w;
    const Json& d = e.at("device");
    w.device = {d.at("name").get<std::string>(), d.at("arch").get<std::string>(), d.at("driver").get<int>()};
    w.specKey = e.at("spec_key").get<std::string>();
    w.specName = e.value("spec_name", std::string());
    w.members = e.at("members");
    if (!w.members.is_object()) return std::nullopt;
    w.date = e.value("date", std::string());
    w.ms = e.value("ms", -1.0);
    w.asGivenMs = e.value("as_given_ms", -1.0);
    return w;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

Json entryJson(const WisdomEntry& w) {
  return {{"device", deviceJson(w.device)}, {"spec_key", w.specKey}, {"spec_name", w.specName},
          {"members", w.members},           {"date", w.date},        {"ms", w.ms},
          {"as_given_ms", w.asGivenMs}};
}

// Whether the spec sets any member the entry would set: then it has a tuning of its own.
bool hasOwn(const Json& spec, const Json& members) {
  for (auto it = members.begin(); it != members.end(); ++it)
    if (spec.is_object() && spec.contains(it.key())) return true;
  return false;
}

// Serialises read-modify-write of the file between processes (a lost update would drop a tuning).
class FileLock {
 public:
  explicit FileLock(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

}  // namespace

WisdomDevice currentWisdomDevice(int ordinal) {
  if (std::string why = deviceUnavailableReason(); !why.empty()) throw std::runtime_error(why);
  CUdevice dev = 0;
  checkCu(cuDeviceGet(&dev, ordinal), "cuDeviceGet");
  DeviceInfo info = deviceInfo(dev);
  int driver = 0;
  checkCu(cuDriverGetVersion(&driver), "cuDriverGetVersion");
  return {info.name, info.arch, driver};
}

Wisdom::Wisdom(std::string dir) : dir_(std::move(dir)) {
  while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
  path_ = dir_ + "/wisdom.json";
}

std::string Wisdom::defaultDir() { return DiskCache::defaultDir(); }

std::string Wisdom::specKey(const Json& spec, const Json& members) {
  Json s = spec;
  if (s.is_object()) {
    s.erase("name");
    s.erase("description");
    for (auto it = members.begin(); it != members.end(); ++it) s.erase(it.key());
  }
  return cacheKey({kFormat, canonical(s).dump()});
}

std::optional<Json> Wisdom::readFile() const {
  if (dir_.empty()) return std::nullopt;
  if (!DiskCache(dir_).usable()) {
    struct stat st;
    if (::lstat(dir_.c_str(), &st) == 0)
      warnings_.push_back(fmt::format("{}: not used (not a directory of ours, or writable by others)", dir_));
    return std::nullopt;
  }
  int fd = ::open(path_.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT)
      warnings_.push_back(
          fmt::format("{}: ignored ({})", path_, errno == ELOOP ? "a symbolic link" : std::strerror(errno)));
    return std::nullopt;
  }
  struct stat st;
  std::string text;
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() && st.st_size <= kMaxFileBytes;
  if (ok) {
    text.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < text.size()) {
      ssize_t n = ::read(fd, text.data() + got, text.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    ok = got == text.size();
  }
  ::close(fd);
  if (!ok) {
    warnings_.push_back(fmt::format("{}: ignored (not a regular file of ours, too large or unreadable)", path_));
    return std::nullopt;
  }
  Json root = Json::parse(text, nullptr, false);
  if (root.is_discarded() || !root.is_object() || root.value("format", std::string()) != kFormat ||
      !root.contains("entries") || !root["entries"].is_array()) {
    warnings_.push_back(
        fmt::format("{}: ignored (corrupt: not a {} file); the next `bench --tune` replaces it", path_, kFormat));
    return std::nullopt;
  }
  return root;
}

std::vector<WisdomEntry> Wisdom::entries() const {
  std::vector<WisdomEntry> out;
  auto root = readFile();
  if (!root) return out;
  std::size_t bad = 0;
  for (const auto& e : (*root)["entries"]) {
    if (auto w = entryFrom(e)) out.push_back(std::move(*w));
    else ++bad;
  }
  if (bad) warnings_.push_back(fmt::format("{}: {} malformed entr{} ignored", path_, bad, bad == 1 ? "y" : "ies"));
  return out;
}

std::optional<WisdomEntry> Wisdom::find(const Json& spec, const WisdomDevice& device) const {
  std::optional<WisdomEntry> best;
  for (auto& e : entries())
    if (e.device == device && e.specKey == specKey(spec, e.members) && (!best || e.date >= best->date))
      best = std::move(e);
  return best;
}

// The directory as the kernel cache makes it: parents as any directory, itself 0700; then used only while safe.
bool Wisdom::ensureDir() const {
  if (dir_.empty()) return false;
  struct stat st;
  if (::lstat(dir_.c_str(), &st) != 0) {
    std::error_code ec;
    const std::filesystem::path parent = std::filesystem::path(dir_).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (::mkdir(dir_.c_str(), 0700) != 0 && errno != EEXIST) {
      warnings_.push_back(fmt::format("{}: cannot create ({})", dir_, std::strerror(errno)));
      return false;
    }
  }
  if (!DiskCache(dir_).usable()) {
    warnings_.push_back(
        fmt::format("{}: not used (not a directory of ours, or writable by others): wisdom not saved", dir_));
    return false;
  }
  return true;
}

bool Wisdom::writeFile(const Json& root) {
  if (!ensureDir()) return false;
  std::random_device rd;
  const std::string tmp = fmt::format("{}/.wisdom.{}.{:x}.tmp", dir_, ::getpid(), rd());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    warnings_.push_back(fmt::format("{}: cannot write ({})", tmp, std::strerror(errno)));
    return false;
  }
  const std::string text = root.dump(2) + "\n";
  std::size_t put = 0;
  while (put < text.size()) {
    ssize_t n = ::write(fd, text.data() + put, text.size() - put);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    put += static_cast<std::size_t>(n);
  }
  const bool written = ::close(fd) == 0 && put == text.size();
  if (!written ||
      ::rename(tmp.c_str(), path_.c_str()) != 0) {  // atomic replace: readers see the old file or the new one
    ::unlink(tmp.c_str());
    warnings_.push_back(fmt::format("{}: cannot write", path_));
    return false;
  }
  return true;
}

bool Wisdom::record(const Json& spec, const WisdomDevice& device, const Json& members, double ms, double asGivenMs) {
  if (!members.is_object()) throw std::invalid_argument("wisdom: the members to record must be a JSON object");
  if (!ensureDir()) return false;
  FileLock lock(dir_ + "/.wisdom.lock");
  WisdomEntry w;
  w.device = device;
  w.specKey = specKey(spec, members);
  w.specName = spec.is_object() ? spec.value("name", std::string()) : std::string();
  w.members = members;
  w.date = utcNow();
  w.ms = ms;
  w.asGivenMs = asGivenMs;
  Json kept = Json::array();
  for (const auto& e : entries())
    if (!(e.device == device && e.specKey == w.specKey)) kept.push_back(entryJson(e));
  kept.push_back(entryJson(w));
  return writeFile({{"format", kFormat}, {"entries", kept}});
}

int Wisdom::clear(const std::optional<WisdomDevice>& device) {
  if (!DiskCache(dir_).usable()) return 0;
  FileLock lock(dir_ + "/.wisdom.lock");
  auto all = entries();
  int removed = 0;
  Json kept = Json::array();
  for (const auto& e : all) {
    if (!device || e.device == *device) ++removed;
    else kept.push_back(entryJson(e));
  }
  if (!device) {  // everything, a corrupt file included (unlink removes a link, never its target)
    if (::unlink(path_.c_str()) != 0 && errno != ENOENT) return -1;
    return removed;
  }
  if (removed == 0) return 0;
  if (!writeFile({{"format", kFormat}, {"entries", kept}})) return -1;
  return removed;
}

Json applyWisdom(const Json& spec, const WisdomDevice& device, std::string* note, const Wisdom& wisdom) {
  if (note) note->clear();
  auto w = wisdom.find(spec, device);
  if (!w) return spec;
  if (hasOwn(spec, w->members)) {
    if (note)
      *note = fmt::format("wisdom from {} not used: the spec gives its own {}", w->date, w->members.begin().key());
    return spec;
  }
  Json out = spec;
  for (auto it = w->members.begin(); it != w->members.end(); ++it) out[it.key()] = it.value();
  if (note)
    *note = fmt::format("using wisdom from {} ({}{}): {}", w->date, w->device.name,
                        w->ms > 0 && w->asGivenMs > 0
                            ? fmt::format(", {:.2f}x the defaults when tuned", w->asGivenMs / w->ms)
                            : "",
                        w->members.dump());
  return out;
}

}  // namespace warpforge
