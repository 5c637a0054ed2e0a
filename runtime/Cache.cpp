#include "runtime/Cache.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include <fmt/format.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace warpforge {

namespace fs = std::filesystem;

namespace {
constexpr char kMagic[8] = {'W', 'F', 'C', 'U', 'B', 'I', 'N', '1'};

std::uint64_t fnv64(const void* data, std::size_t n, std::uint64_t h = 1469598103934665603ULL) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ULL;
  }
  return h;
}
}  // namespace

std::string cacheKey(const std::vector<std::string>& parts) {
  std::uint64_t a = 1469598103934665603ULL, b = 0x9e3779b97f4a7c15ULL;
  for (const auto& s : parts) {
    std::uint64_t len = s.size();
    a = fnv64(&len, sizeof len, a);
    a = fnv64(s.data(), s.size(), a);
    b = fnv64(s.data(), s.size(), b ^ len);
  }
  return fmt::format("{:016x}{:016x}", a, b);
}

DiskCache::DiskCache(std::string dir, std::string extension) : dir_(std::move(dir)), extension_(std::move(extension)) {
  while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();  // "a/b/" and "a/b" are one directory
}

std::string DiskCache::defaultDir() {
  if (const char* d = std::getenv("WARPFORGE_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/warpforge";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/warpforge";
  // Per user: a shared /tmp directory would let anyone plant entries (the checksum is no authentication).
  return fmt::format("/tmp/warpforge-cache-{}", ::geteuid());
}

// The directory itself (not a link to one), owned by this user and writable by nobody else:
// anyone who can write into it could plant a CUBIN that we would load and run.
bool DiskCache::usable() const {
  if (dir_.empty()) return false;  // "" would put entries at "/<key>.cubin"
  struct stat st;
  if (::lstat(dir_.c_str(), &st) != 0) return false;
  return S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

std::optional<std::vector<char>> DiskCache::get(const std::string& key) const {
  if (!usable()) return std::nullopt;
  const std::string path = pathOf(key);
  // O_NOFOLLOW: an entry that is a link is not ours; O_NONBLOCK: opening a FIFO must not wait for a writer.
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ELOOP)
      ::unlink(path.c_str());  // a symlink entry: drop it (unlink does not follow), the caller recompiles
    return std::nullopt;
  }
  struct stat st;
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() && st.st_size >= 24 &&
            static_cast<std::uint64_t>(st.st_size) < (1ULL << 30) + 24;
  std::vector<char> raw;
  if (ok) {
    raw.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < raw.size()) {
      ssize_t n = ::read(fd, raw.data() + got, raw.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    ok = got == raw.size();
  }
  ::close(fd);
  std::vector<char> data;
  if (ok) {
    std::uint64_t size = 0, sum = 0;
    std::memcpy(&size, raw.data() + 8, 8);
    std::memcpy(&sum, raw.data() + 16, 8);
    ok = std::memcmp(raw.data(), kMagic, 8) == 0 && size == raw.size() - 24;
    if (ok) {
      data.assign(raw.begin() + 24, raw.end());
      ok = fnv64(data.data(), data.size()) == sum;
    }
  }
  if (!ok) {
    ::unlink(path.c_str());  // corrupt, or not a regular file of ours: drop it, the caller recompiles
    return std::nullopt;
  }
  return data;
}

bool DiskCache::put(const std::string& key, const std::vector<char>& data) const {
  if (dir_.empty()) return false;
  struct stat st;
  if (::lstat(dir_.c_str(), &st) != 0) {
    // Parents as any directory; the cache itself 0700 (a mkdir that races with another process is fine).
    std::error_code ec;
    const fs::path parent = fs::path(dir_).parent_path();
    if (!parent.empty()) fs::create_directories(parent, ec);
    if (::mkdir(dir_.c_str(), 0700) != 0 && errno != EEXIST) return false;
  }
  if (!usable()) return false;  // someone else's, or open to others: no caching rather than a shared cache
  std::random_device rd;
  const std::string tmp = fmt::format("{}/.{}.{}.{:x}.tmp", dir_, key, ::getpid(), rd());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  std::uint64_t size = data.size(), sum = fnv64(data.data(), data.size());
  std::vector<char> raw(24 + data.size());
  std::memcpy(raw.data(), kMagic, 8);
  std::memcpy(raw.data() + 8, &size, 8);
  std::memcpy(raw.data() + 16, &sum, 8);
  std::copy(data.begin(), data.end(), raw.begin() + 24);
  std::size_t put = 0;
  while (put < raw.size()) {
    ssize_t n = ::write(fd, raw.data() + put, raw.size() - put);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    put += static_cast<std::size_t>(n);
  }
  const bool written = ::close(fd) == 0 && put == raw.size();
  if (!written || ::rename(tmp.c_str(), pathOf(key).c_str()) != 0) {  // rename: atomic replace
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

void DiskCache::remove(const std::string& key) const {
  if (usable()) ::unlink(pathOf(key).c_str());
}

std::optional<std::vector<char>> MemoryCache::get(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = map_.find(key);
  if (it == map_.end()) return std::nullopt;
  return it->second;
}

void MemoryCache::put(const std::string& key, const std::vector<char>& data) {
  std::lock_guard<std::mutex> lock(mutex_);
  map_[key] = data;
}

}  // namespace warpforge
