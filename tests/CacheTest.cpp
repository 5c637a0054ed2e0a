#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/Cache.h"
#include "runtime/Nvrtc.h"
#include "warpforge/compiler.h"

using namespace warpforge;
namespace fs = std::filesystem;

namespace {
const char* kSource = "extern \"C\" __global__ void add_one(int* p) { p[threadIdx.x] += 1; }";

std::string freshDir(const std::string& name) {
  std::string d = ::testing::TempDir() + "/wf_cache_" + name + "_" + std::to_string(::getpid());
  fs::remove_all(d);
  return d;
}
}  // namespace

TEST(Cache, KeyDependsOnEveryPart) {
  EXPECT_EQ(cacheKey({"a", "b"}), cacheKey({"a", "b"}));
  EXPECT_NE(cacheKey({"a", "b"}), cacheKey({"ab", ""}));
  EXPECT_NE(cacheKey({"a", "sm_80"}), cacheKey({"a", "sm_90"}));
  EXPECT_EQ(cacheKey({"x"}).size(), 32u);
}

TEST(Cache, MissThenMemoryHitThenDiskHit) {
  std::string dir = freshDir("hits");
  std::vector<char> first;
  {
    Compiler rt(dir);
    CompiledModule a = rt.compile(kSource, "add_one", "sm_90");
    EXPECT_FALSE(a.memoryHit || a.diskHit);
    CompiledModule b = rt.compile(kSource, "add_one", "sm_90");
    EXPECT_TRUE(b.memoryHit);
    EXPECT_EQ(a.cubin, b.cubin);
    CompiledModule c = rt.compile(kSource, "add_one", "sm_80");  // other arch: miss
    EXPECT_FALSE(c.memoryHit || c.diskHit);
    first = a.cubin;
  }
  Compiler rt2(dir);  // new process state: only the disk remembers
  CompiledModule d = rt2.compile(kSource, "add_one", "sm_90");
  EXPECT_TRUE(d.diskHit);
  EXPECT_EQ(d.cubin, first);
}

// The spill probe's compiles (compileWithReport) are kept on disk beside the CUBIN: a later process that emits the
// same kernel reads ptxas's report instead of compiling again; a report it cannot read is a miss.
TEST(Cache, PtxasReportIsKeptOnDiskForTheNextProcess) {
  const std::string dir = freshDir("report");
  auto compileInChild = [&](const std::string& src) {
    const pid_t pid = fork();
    if (pid == 0) {
      Compiler rt(dir);
      rt.compile(src, "add_one", "sm_90");
      _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  };
  auto reportKeys = [&] {
    std::set<std::string> keys;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".report") keys.insert(e.path().stem().string());
    return keys;
  };
  const char* env = std::getenv("WARPFORGE_CACHE_DIR");
  const std::string saved = env ? env : "";
  setenv("WARPFORGE_CACHE_DIR", dir.c_str(), 1);
  // This process never compiled these sources: what it gets comes from the disk or from a compile of its own.
  const std::string src = std::string(kSource) + "\n// report test " + std::to_string(::getpid());
  compileInChild(src);
  const auto keys = reportKeys();
  ASSERT_EQ(keys.size(), 1u) << "one .report entry beside the CUBIN in " << dir;
  const std::string forged = "77 0 0 0\nforged log";
  ASSERT_TRUE(DiskCache(dir, ".report").put(*keys.begin(), {forged.begin(), forged.end()}));
  const CompileResult r = compileWithReport(src, "add_one", "sm_90");
  EXPECT_EQ(r.registers, 77) << "the report came from the disk";
  EXPECT_EQ(r.log, "forged log");
  EXPECT_FALSE(r.cubin.empty());
  const std::string src2 = src + " (unreadable report)";
  compileInChild(src2);
  std::string key2;
  for (const auto& k : reportKeys())
    if (!keys.count(k)) key2 = k;
  ASSERT_FALSE(key2.empty());
  const std::string bad = "seven registers\n";
  ASSERT_TRUE(DiskCache(dir, ".report").put(key2, {bad.begin(), bad.end()}));
  const CompileResult r2 = compileWithReport(src2, "add_one", "sm_90");
  EXPECT_GT(r2.registers, 0) << "an unreadable report is compiled again";
  if (env) setenv("WARPFORGE_CACHE_DIR", saved.c_str(), 1);
  else unsetenv("WARPFORGE_CACHE_DIR");
}

TEST(Cache, CorruptEntryIsDiscardedAndRebuilt) {
  std::string dir = freshDir("corrupt");
  std::string key;
  std::vector<char> good;
  {
    Compiler rt(dir);
    auto m = rt.compile(kSource, "add_one", "sm_90");
    key = m.key;
    good = m.cubin;
  }
  DiskCache disk(dir);
  for (int mode = 0; mode < 3; ++mode) {
    {
      std::fstream f(disk.pathOf(key), std::ios::in | std::ios::out | std::ios::binary);
      ASSERT_TRUE(f.good());
      if (mode == 0) {  // flip a payload byte
        f.seekp(100);
        f.put('\x5a');
      }
    }
    if (mode == 1) fs::resize_file(disk.pathOf(key), 50);         // truncated
    if (mode == 2) std::ofstream(disk.pathOf(key)) << "garbage";  // not ours
    EXPECT_FALSE(disk.get(key).has_value()) << "mode " << mode;
    EXPECT_FALSE(fs::exists(disk.pathOf(key)));
    Compiler rt(dir);
    auto m = rt.compile(kSource, "add_one", "sm_90");
    EXPECT_FALSE(m.diskHit);
    EXPECT_EQ(m.cubin, good);
    EXPECT_TRUE(disk.get(key).has_value());
  }
}

TEST(Cache, TwoProcessesAtOnce) {
  std::string dir = freshDir("procs");
  const int kProcs = 4;
  std::vector<pid_t> kids;
  for (int i = 0; i < kProcs; ++i) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int rc = 0;
      try {
        for (int round = 0; round < 3; ++round) {
          Compiler rt(dir);
          auto m = rt.compile(kSource, "add_one", "sm_90");
          if (m.cubin.size() < 100) rc = 1;
        }
      } catch (...) {
        rc = 2;
      }
      _exit(rc);
    }
    kids.push_back(pid);
  }
  for (pid_t k : kids) {
    int st = 0;
    waitpid(k, &st, 0);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  int entries = 0, reports = 0, temps = 0;  // the CUBIN, ptxas's report beside it, and nothing half-written
  for (const auto& e : fs::directory_iterator(dir))
    (e.path().extension() == ".cubin" ? entries : e.path().extension() == ".report" ? reports : temps)++;
  EXPECT_EQ(entries, 1);
  EXPECT_EQ(reports, 1);
  EXPECT_EQ(temps, 0);
  Compiler rt(dir);
  EXPECT_TRUE(rt.compile(kSource, "add_one", "sm_90").diskHit);
}

TEST(Cache, UnwritableDirectoryStillCompiles) {
  Compiler rt("/proc/warpforge-cannot-write-here");
  EXPECT_GT(rt.compile(kSource, "add_one", "sm_90").cubin.size(), 100u);
}

// The checksum is no authentication, so the directory must be ours alone.
namespace {
// A well-formed entry holding `payload`, written through a cache of our own and moved to `to`.
void forgeEntry(const std::string& to, const std::vector<char>& payload) {
  std::string scratch = freshDir("forge_src");
  DiskCache src(scratch);
  ASSERT_TRUE(src.put("forged", payload));
  fs::copy_file(src.pathOf("forged"), to, fs::copy_options::overwrite_existing);
  fs::remove_all(scratch);
}
}  // namespace

TEST(Cache, CreatesItsDirectoryPrivate) {
  std::string dir = freshDir("private") + "/nested/cache";
  DiskCache disk(dir);
  ASSERT_TRUE(disk.put("k", {'a', 'b'}));
  EXPECT_EQ(fs::status(dir).permissions() & fs::perms::all, fs::perms::owner_all);
  EXPECT_EQ(fs::status(disk.pathOf("k")).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(disk.get("k"), (std::vector<char>{'a', 'b'}));
}

TEST(Cache, WorldWritableDirectoryWithForgedEntryIsNotAHit) {
  std::string dir = freshDir("shared");
  fs::create_directories(dir);
  std::string key;
  {
    Compiler probe(freshDir("shared_key"));
    key = probe.compile(kSource, "add_one", "sm_90").key;
  }
  forgeEntry(DiskCache(dir).pathOf(key), std::vector<char>(200, 'X'));
  fs::permissions(dir, fs::perms::all);  // as a pre-created /tmp/warpforge-cache would be
  DiskCache disk(dir);
  EXPECT_FALSE(disk.usable());
  EXPECT_FALSE(disk.get(key).has_value());
  EXPECT_FALSE(disk.put("other", {'a'}));
  Compiler rt(dir);
  CompiledModule m = rt.compile(kSource, "add_one", "sm_90");
  EXPECT_FALSE(m.diskHit);
  EXPECT_NE(m.cubin, std::vector<char>(200, 'X'));
  fs::permissions(dir, fs::perms::owner_all);
  fs::permissions(dir, fs::perms::group_write, fs::perm_options::add);  // group-writable: refused as well
  EXPECT_FALSE(DiskCache(dir).usable());
}

TEST(Cache, DirectoryOfAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a directory away";
  std::string dir = freshDir("theirs");
  fs::create_directories(dir);
  forgeEntry(dir + "/k.cubin", {'x'});
  ASSERT_EQ(::chown(dir.c_str(), 65534, 65534), 0);
  fs::permissions(dir, fs::perms::owner_all);
  DiskCache disk(dir);
  EXPECT_FALSE(disk.usable());
  EXPECT_FALSE(disk.get("k").has_value());
  EXPECT_FALSE(disk.put("k2", {'y'}));
  EXPECT_FALSE(fs::exists(dir + "/k2.cubin"));
}

TEST(Cache, SymlinkDirectoryIsRefused) {
  std::string real = freshDir("real"), link = freshDir("link");
  DiskCache(real).put("k", {'x'});
  fs::create_directory_symlink(real, link);
  EXPECT_FALSE(DiskCache(link).usable());
  EXPECT_FALSE(DiskCache(link).get("k").has_value());
}

TEST(Cache, FifoEntryDoesNotHang) {
  std::string dir = freshDir("fifo");
  DiskCache disk(dir);
  ASSERT_TRUE(disk.put("warm", {'x'}));  // creates the directory
  ASSERT_EQ(::mkfifo(disk.pathOf("k").c_str(), 0600), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(10);  // a hang kills the child: the parent sees a signal, not exit 0
    _exit(disk.get("k").has_value() ? 1 : 0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "status " << st;
  EXPECT_FALSE(fs::exists(fs::symlink_status(disk.pathOf("k"))));  // dropped like a corrupt entry
  EXPECT_TRUE(disk.put("k", {'y'}));
  EXPECT_EQ(disk.get("k"), std::vector<char>{'y'});
}

TEST(Cache, SymlinkEntryIsNotFollowed) {
  std::string dir = freshDir("symentry");
  DiskCache disk(dir);
  ASSERT_TRUE(disk.put("warm", {'x'}));
  std::string elsewhere = freshDir("symentry_target");
  fs::create_directories(elsewhere);
  forgeEntry(elsewhere + "/e.cubin", {'F', 'O', 'R', 'G', 'E', 'D'});
  fs::create_symlink(elsewhere + "/e.cubin", disk.pathOf("k"));
  EXPECT_FALSE(disk.get("k").has_value());
  EXPECT_TRUE(fs::exists(elsewhere + "/e.cubin"));  // the target is left alone
  // A put replaces the link itself, never writes through it.
  fs::create_symlink(elsewhere + "/e.cubin", disk.pathOf("k2"));
  ASSERT_TRUE(disk.put("k2", {'n'}));
  EXPECT_FALSE(fs::is_symlink(disk.pathOf("k2")));
  EXPECT_EQ(DiskCache(elsewhere).get("e"), (std::vector<char>{'F', 'O', 'R', 'G', 'E', 'D'}));
}

TEST(Cache, EmptyPathCachesNothing) {
  DiskCache disk("");
  const std::string key = cacheKey({"warpforge-empty-path-test", std::to_string(::getpid())});
  EXPECT_FALSE(disk.usable());
  EXPECT_FALSE(disk.put(key, {'x'}));
  EXPECT_FALSE(disk.get(key).has_value());
  EXPECT_FALSE(fs::exists("/" + key + ".cubin"));
  Compiler rt("");
  EXPECT_GT(rt.compile(kSource, "add_one", "sm_90").cubin.size(), 100u);
  EXPECT_FALSE(rt.compile(kSource, "add_one", "sm_90").diskHit);
}

TEST(Cache, WithoutHomeTheFallbackIsPerUser) {
  std::map<std::string, std::optional<std::string>> saved;
  for (const char* v : {"WARPFORGE_CACHE_DIR", "XDG_CACHE_HOME", "HOME"}) {
    const char* x = std::getenv(v);
    saved[v] = x ? std::optional<std::string>(x) : std::nullopt;
    ::unsetenv(v);
  }
  const std::string dir = DiskCache::defaultDir();
  for (auto& [k, v] : saved)
    if (v) ::setenv(k.c_str(), v->c_str(), 1);
  EXPECT_EQ(dir, "/tmp/warpforge-cache-" + std::to_string(::geteuid()));
}

// ptxas -v's resource lines, as NVRTC 12 and 13 print them; anything else leaves the fields unset.
TEST(PtxasReport, ReadsRegistersAndSpills) {
  NvrtcResult r;
  parsePtxasReport(
      "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
      "ptxas info    : Function properties for k\n"
      "    24 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 168 registers, used 1 barriers, 24 bytes cumulative stack size\n",
      r);
  EXPECT_EQ(r.registers, 168);
  EXPECT_EQ(r.stackFrameBytes, 24);
  EXPECT_EQ(r.spillStoreBytes, 8);
  EXPECT_EQ(r.spillLoadBytes, 12);
  NvrtcResult none;
  parsePtxasReport("ptxas info    : Used many registers\n    x bytes stack frame, 0 bytes spill stores\n", none);
  EXPECT_EQ(none.registers, -1);
  EXPECT_EQ(none.stackFrameBytes, -1);
  EXPECT_EQ(none.spillStoreBytes, -1);
}
