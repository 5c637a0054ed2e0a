#include "generator/stockham/LongFftFactors.h"

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <typeinfo>
#include <tuple>

#include "generator/stockham/FactorizationModel.h"
#include "generator/stockham/StockhamEmitter.h"
#include "generator/stockham/StockhamLaunch.h"
#include "generator/stockham/Twiddles.h"

namespace warpforge {

namespace {

// Radices of the search: powers of 2, 3, 5 and their products (6, 10, 12, 15, 18, 20, 24, 30), 7 alone or with 2
// (14, 28), 11, 13 alone and 49. Radices mixing 7 with 3 (21) ran slower than the passes they merge.
bool searchRadix(int r) {
  if (r == 7 || r == 14 || r == 28 || r == 11 || r == 13 || r == 49) return true;
  for (int p : {2, 3, 5})
    while (r % p == 0) r /= p;
  return r == 1;
}

// Peak values a thread holds in a middle pass (first and last passes read or write global memory and hold none).
int middleHeld(const std::vector<int>& f, int length, int threads) {
  int held = 0;
  for (std::size_t p = 1; p + 1 < f.size(); ++p) held = std::max(held, passValues(length, f[p], threads));
  return held;
}

// One butterfly of the largest radix per thread, unless a middle pass would then hold more than 1.5x its values (the
// first and last passes hold none): 10 x 10 x 10 x 8 on 800 threads, 72 registers, clean (on 1000, the thread count
// that runs radix 8 in one round, it spilled 456 B); 9 x 8 x 8 x 8 on 576 (on 512 slower: two rounds of radix 9).
int candidateThreads(const std::vector<int>& f, int length, bool f64) {
  const int rmax = *std::max_element(f.begin(), f.end());
  const int one = length / rmax;
  return 2 * middleHeld(f, length, one) > 3 * rmax ? balancedThreadsPerFft(f, length, f64, 1024) : one;
}

}  // namespace

bool isLongFftKernel(const KernelDesc& d, bool factorsPinned) {
  const KernelTuning& tu = d.tuning;
  if (factorsPinned || tu.threadsPerFft > 0 || tu.blockThreads > 0 || tu.registerTarget > 0 || tu.columnValues > 0)
    return false;
  if (d.convolve || d.fuse != Fuse::None || d.axes.size() > 1 || d.factors.size() < 2) return false;
  if (isColumnTiled(d.in) || isColumnTiled(d.out)) return false;
  if (static_cast<long long>(d.length) * complexBytes(d.f64) < 64 * 1024) return false;
  return chooseGeometry(d).fftsPerBlock == 1;
}

std::vector<std::vector<int>> longFftFactorizations(int length, bool f64) {
  std::vector<int> radices;
  for (int r = f64 ? 16 : 32; r >= 2; --r)
    if (searchRadix(r)) radices.push_back(r);
  if (!f64) radices.insert(radices.begin(), 49);
  struct Candidate {
    int passes, threads, held;
    std::vector<int> f;
  };
  std::vector<Candidate> out;
  forEachFactorization(length, radices, 6, [&](const std::vector<int>& cur) {
    if (length / cur.front() > 1024) return;  // the largest radix would loop too
    const int threads = candidateThreads(cur, length, f64);
    if (threads < kLongFftMinThreads || threads > 1024) return;
    int held = 0;
    for (int r : cur) held = std::max(held, passValues(length, r, threads));
    if (held > kStockhamMaxValuesPerThread) return;
    out.push_back({static_cast<int>(cur.size()), threads, middleHeld(cur, length, threads), cur});
  });
  std::stable_sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.passes, b.threads, a.held) < std::tie(b.passes, a.threads, b.held);
  });
  std::vector<std::vector<int>> f;
  for (const auto& c : out) f.push_back(c.f);
  return f;
}

namespace {

// One candidate at its own thread count (candidateThreads), thread indices recomputed per group, all of one block's
// registers. Memoised per (arch, source) as emitStockhamSpillFree is.
SpillFreeKernel compileCandidate(const KernelDesc& desc, const std::string& arch, CompileProbe* probe) {
  const int threads = candidateThreads(desc.factors, desc.length, desc.f64);
  KernelDesc d = desc;
  if (threads != balancedThreadsPerFft(d.factors, d.length, d.f64, 1024))
    d.tuning.threadsPerFft = threads;  // pins length / largest radix
  StockhamKernel k = emitStockhamKernel(d, registerTargetForBlocks(threads, 1), 1024, 1);
  static std::mutex mutex;
  // Keyed by a hash of the source, not the source: a long kernel's source runs to ~1 MB and a sweep compiles hundreds.
  static std::map<std::tuple<std::string, std::string, std::size_t, std::size_t>, CompileReport> memo;
  const auto key = std::make_tuple(std::string(typeid(*probe).name()), arch, k.source.size(),
                                   std::hash<std::string>{}(k.source));
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = memo.find(key);
    if (it != memo.end()) return {k, it->second};
  }
  const CompileReport r = probe->compile(k.source, d.specName, arch);
  std::lock_guard<std::mutex> lock(mutex);
  memo.emplace(key, r);
  return {k, r};
}

}  // namespace

SpillFreeKernel emitLongFftKernel(StockhamPlanKernel& k, const std::string& arch, CompileProbe* probe) {
  SpillFreeKernel standard = emitStockhamSpillFree(k.desc, arch, probe);
  if (!probe) return standard;
  struct Tried {
    KernelDesc desc;
    SpillFreeKernel kernel;
  };
  auto spillsAtMost = [](const SpillFreeKernel& sf, int bytes) {
    return sf.compiled.spillStoreBytes <= bytes && sf.compiled.spillLoadBytes <= bytes;
  };
  std::vector<std::vector<int>> largestFirst = longFftFactorizations(k.desc.length, k.desc.f64);
  if (largestFirst.size() > kLongFftCandidates) largestFirst.resize(kLongFftCandidates);
  std::vector<Tried> tried;  // largest radix first, then (below) smallest first
  auto compileAll = [&](const std::vector<std::vector<int>>& orders) {
    for (const auto& f : orders) {
      KernelDesc d = k.desc;
      d.factors = f;
      SpillFreeKernel sf = compileCandidate(d, arch, probe);
      if (sf.compiled.registers > 0) tried.push_back({d, sf});
    }
  };
  const int standardThreads = standard.kernel.geom.threadsPerFft;
  // The first candidate (in order) that spills at most `bytes`, among tried[from..], with more threads than `threads`.
  auto first = [&](std::size_t from, int bytes, int threads) -> int {
    for (std::size_t i = from; i < tried.size(); ++i)
      if (spillsAtMost(tried[i].kernel, bytes) && tried[i].kernel.kernel.geom.threadsPerFft > threads)
        return static_cast<int>(i);
    return -1;
  };
  compileAll(largestFirst);
  const bool standardClean = spillsAtMost(standard, kTolerableSpillBytes);
  int pick = first(0, kTolerableSpillBytes, 0);
  if (pick < 0 && !standardClean) pick = first(0, kLongFftTolerableSpill, 0);
  if (pick < 0 && !standardClean) {
    // Where every candidate spills largest radix first, the same with the smallest radix first: its pass reads
    // global memory and holds nothing between its butterflies, and ptxas spilled less so (7776 = 6 x 12 x 12 x 9
    // clean, 12 x 12 x 9 x 6 200 B). Only for more threads than the plan's own kernel: at as many, the clean kernel
    // with the smallest radix first ran slower than the plan's kernel spilling 96-192 B (15795 = 3 x 27 x 15 x 13,
    // 20625 = 3 x 25 x 25 x 11) and than largest first (3 x 18^3, 5 x 10^3).
    const std::size_t from = tried.size();
    std::vector<std::vector<int>> rotated;
    for (auto f : largestFirst) {
      std::rotate(f.begin(), f.end() - 1, f.end());
      rotated.push_back(f);
    }
    compileAll(rotated);
    pick = first(from, kTolerableSpillBytes, standardThreads);
    if (pick < 0) pick = first(from, kLongFftTolerableSpill, standardThreads);
  }
  // A candidate replaces the plan's own kernel only with fewer passes or more threads.
  if (pick < 0) return standard;
  const Tried& t = tried[pick];
  if (t.desc.factors.size() >= k.desc.factors.size() && t.kernel.kernel.geom.threadsPerFft <= standardThreads)
    return standard;
  k.desc = t.desc;
  k.twiddles = twiddleTable(k.desc.factors, k.desc.sign, k.desc.axes);
  return t.kernel;
}

}  // namespace warpforge
