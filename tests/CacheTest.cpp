#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/Cache.h"
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
    if (mode == 1) fs::resize_file(disk.pathOf(key), 50);    // truncated
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
  int entries = 0, temps = 0;
  for (const auto& e : fs::directory_iterator(dir)) (e.path().extension() == ".cubin" ? entries : temps)++;
  EXPECT_EQ(entries, 1);
  EXPECT_EQ(temps, 0);
  Compiler rt(dir);
  EXPECT_TRUE(rt.compile(kSource, "add_one", "sm_90").diskHit);
}

TEST(Cache, UnwritableDirectoryStillCompiles) {
  Compiler rt("/proc/warpforge-cannot-write-here");
  EXPECT_GT(rt.compile(kSource, "add_one", "sm_90").cubin.size(), 100u);
}
