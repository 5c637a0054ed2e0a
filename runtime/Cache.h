#pragma once
// Compiled-kernel cache: in memory, and on disk under $WARPFORGE_CACHE_DIR or
// ~/.cache/warpforge. Entries are written to a temporary file and renamed into
// place (atomic on POSIX), so concurrent processes never see half an entry;
// each entry carries its length and checksum, and a corrupt one is discarded
// and rebuilt.
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
  explicit DiskCache(std::string dir = defaultDir());
  static std::string defaultDir();
  const std::string& dir() const { return dir_; }
  std::optional<std::vector<char>> get(const std::string& key) const;
  bool put(const std::string& key, const std::vector<char>& data) const;  // false if the disk refused
  std::string pathOf(const std::string& key) const { return dir_ + "/" + key + ".cubin"; }

 private:
  std::string dir_;
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
