#include "runtime/Cache.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include <fmt/format.h>
#include <unistd.h>

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

DiskCache::DiskCache(std::string dir) : dir_(std::move(dir)) {}

std::string DiskCache::defaultDir() {
  if (const char* d = std::getenv("WARPFORGE_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/warpforge";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/warpforge";
  return "/tmp/warpforge-cache";
}

std::optional<std::vector<char>> DiskCache::get(const std::string& key) const {
  std::ifstream in(pathOf(key), std::ios::binary);
  if (!in) return std::nullopt;
  char magic[8];
  std::uint64_t size = 0, sum = 0;
  in.read(magic, 8);
  in.read(reinterpret_cast<char*>(&size), 8);
  in.read(reinterpret_cast<char*>(&sum), 8);
  bool ok = in && std::memcmp(magic, kMagic, 8) == 0 && size < (1ULL << 30);
  std::vector<char> data;
  if (ok) {
    data.resize(size);
    in.read(data.data(), static_cast<std::streamsize>(size));
    ok = in && in.gcount() == static_cast<std::streamsize>(size) && in.peek() == EOF && fnv64(data.data(), size) == sum;
  }
  if (!ok) {
    std::error_code ec;
    fs::remove(pathOf(key), ec);  // corrupt: drop it, the caller recompiles
    return std::nullopt;
  }
  return data;
}

bool DiskCache::put(const std::string& key, const std::vector<char>& data) const {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  std::random_device rd;
  std::string tmp = fmt::format("{}/.{}.{}.{:x}.tmp", dir_, key, ::getpid(), rd());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    std::uint64_t size = data.size(), sum = fnv64(data.data(), data.size());
    out.write(kMagic, 8);
    out.write(reinterpret_cast<const char*>(&size), 8);
    out.write(reinterpret_cast<const char*>(&sum), 8);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      return false;
    }
  }
  fs::rename(tmp, pathOf(key), ec);  // atomic replace
  if (ec) fs::remove(tmp, ec);
  return !ec;
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
