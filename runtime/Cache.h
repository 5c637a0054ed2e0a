#pragma once
// Compiled-kernel cache: in memory, and on disk under $WARPFORGE_CACHE_DIR,
// $XDG_CACHE_HOME/warpforge, ~/.cache/warpforge or /tmp/warpforge-cache-<uid>.
// Entries are written to a temporary file and renamed into place (atomic on
// POSIX), so concurrent processes never see half an entry; each entry carries
// its length and checksum, and a corrupt one is discarded and rebuilt. The
// checksum is no authentication: the directory is created 0700 and used only
// while it is ours and writable by nobody else (else nothing is cached), and
// entries are opened without following links and read only if regular files.
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace warpforge {

// 128-bit FNV-1a of the parts, as 32 hex digits.
std::string cacheKey(const std::vector<std::string>& parts);

class DiskCache {
 public:
  // `extension`: what the entries are (".cubin" kernels, ".plan" plan files), so that kinds never collide.
  explicit DiskCache(std::string dir = defaultDir(), std::string extension = ".cubin");
  static std::string defaultDir();
  const std::string& dir() const { return dir_; }
  // The directory exists, is not a link, is owned by this user and not writable by group or others.
  // "" (no directory) is never usable.
  bool usable() const;
  std::optional<std::vector<char>> get(const std::string& key) const;
  bool put(const std::string& key,
           const std::vector<char>& data) const;  // false if the disk or the ownership check refused
  void remove(const std::string& key) const;
  std::string pathOf(const std::string& key) const { return dir_ + "/" + key + extension_; }

 private:
  std::string dir_, extension_;
};

class MemoryCache {
 public:
  std::optional<std::vector<char>> get(const std::string& key) const;
  void put(const std::string& key, const std::vector<char>& data);

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::vector<char>> map_;
};

}  // namespace warpforge
