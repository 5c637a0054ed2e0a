#include "generator/stockham/SpillFree.h"

#include "generator/stockham/StockhamLaunch.h"
#include "generator/stockham/StockhamSpec.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <typeinfo>

namespace warpforge {

namespace {

// Resident blocks per SM of a compiled kernel.
int residentBlocks(const SpillFreeKernel& k, const std::string& arch) {
  const KernelGeometry& g = k.kernel.geom;
  return residentBlocksPerSm(g.threadsPerFft * g.fftsPerBlock, k.compiled.registers, g.sharedBytes, arch);
}

int blockThreadsOf(const SpillFreeKernel& k) { return k.kernel.geom.threadsPerFft * k.kernel.geom.fftsPerBlock; }

// A row kernel's second resident block is worth a few bytes of spill (kTolerableSpillBytes; column tiles stay
// clean); among equally resident variants a clean one is kept.
bool tolerableSpill(const CompileReport& c) {
  return c.spillStoreBytes <= kTolerableSpillBytes && c.spillLoadBytes <= kTolerableSpillBytes;
}

// A kernel that fits one block per SM by its registers idles the SM at every barrier of its passes:
// nothing else is resident to run meanwhile. Where the tuning pins no geometry, spill-free variants
// that fit two or more blocks are compiled (the same threads at the register count of two blocks;
// row kernels: fewer threads per FFT, each radix's butterfly count; column tiles: fewer values per
// thread or 128-thread blocks) and the one with the most resident threads is kept (a Bluestein convolution of
// 2688 went from 448 threads at 128 registers, one block, to 336 threads at 80 registers, two blocks).
SpillFreeKernel moreResident(const KernelDesc& desc, const std::string& arch, CompileProbe* probe,
                             const SpillFreeKernel& chosen, std::optional<bool> index) {
  const KernelTuning& tu = desc.tuning;
  if (chosen.compiled.spills() || chosen.compiled.registers <= 0 || tu.threadsPerFft > 0 || tu.blockThreads > 0 ||
      tu.registerTarget > 0 || tu.columnValues > 0)
    return chosen;
  const KernelGeometry& g = chosen.kernel.geom;
  if (residentBlocks(chosen, arch) != 1) return chosen;
  if (residentBlocksPerSm(g.threadsPerFft * g.fftsPerBlock, 32, g.sharedBytes, arch) < 2)
    return chosen;  // one block by shared memory or threads
  const bool columns = g.columnTile();
  SpillFreeKernel best = chosen;
  long long bestResident = blockThreadsOf(chosen);
  // Column tiles: a row of the tile is fftsPerBlock consecutive values in global memory. A variant must keep rows of
  // a whole 32-byte sector, and for 8- and 16-byte values no shorter than the first choice's up to 64 bytes (shorter
  // rows lose more to part-used sectors than the second block gains; 4-byte f16 values keep 32-byte rows, as an f16
  // tile holds twice its global bytes in shared memory and its occupancy weighs more). Rows of whole sectors stay
  // whole (Geometry.cpp wholeSectorRows).
  const int value = tileRowValueBytes(desc, g), chosenRow = g.fftsPerBlock * value;
  auto rowsKept = [&](const KernelGeometry& v) {
    const int row = v.fftsPerBlock * value;
    return !columns ||
           (row >= 32 && (value < 8 || row >= std::min(64, chosenRow)) && (row % 32 == 0 || chosenRow % 32 != 0));
  };
  auto consider = [&](const KernelDesc& d, int maxThreads, std::optional<bool> indexHere) {
    const KernelGeometry shape = emitStockhamKernel(d, 0, maxThreads, indexHere).geom;
    if (!rowsKept(shape)) return;
    const int threads = shape.threadsPerFft * shape.fftsPerBlock;
    const int target = registerTargetForBlocks(threads, 2);
    if (target < 32) return;
    StockhamKernel k = emitStockhamKernel(d, target, maxThreads, indexHere);
    SpillFreeKernel trial{k, probe->compile(k.source, desc.specName, arch)};
    if ((columns ? trial.compiled.spills() : !tolerableSpill(trial.compiled)) || trial.compiled.registers <= 0) return;
    const int blocks = residentBlocks(trial, arch);
    const long long resident = 1LL * blocks * blockThreadsOf(trial);
    const bool cleaner = best.compiled.spills() && !trial.compiled.spills();
    if (blocks >= 2 && (resident > bestResident ||
                        (resident == bestResident && (cleaner || blockThreadsOf(best) == blockThreadsOf(chosen))))) {
      best = trial;
      bestResident = resident;
    }
  };
  consider(desc, g.threadsPerFft, index);
  if (!columns) {
    // The same threads with fewer live registers: twiddles derived from a few table entries and no work counter
    // (some kernels reach two blocks only so: a Bluestein convolution of 448 threads went from 118 registers to 72).
    KernelDesc lean = desc;
    if (!lean.tuning.deriveTwiddles) lean.tuning.deriveTwiddles = true;
    if (!lean.tuning.workQueue) lean.tuning.workQueue = false;
    if (!(lean.tuning == desc.tuning)) consider(lean, g.threadsPerFft, index);
    std::vector<int> counts;
    for (int r : desc.factors)
      if (desc.length / r < g.threadsPerFft && desc.length / r >= 32) counts.push_back(desc.length / r);
    if (g.threadsPerFft / 2 >= 32) counts.push_back(g.threadsPerFft / 2);
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    // A real half past 4096 with its split or merge fused keeps kMinFusedRealHalfThreads or more (StockhamSpec.h).
    const bool longFusedHalf = (desc.fuse == Fuse::R2CPost || desc.fuse == Fuse::C2RPre) && !desc.mirrored &&
                               !desc.factors.empty() &&
                               desc.length > maxFusedRealHalf(desc.f64 ? Precision::F64 : Precision::F32);
    for (int t : counts)
      if (!longFusedHalf || t >= kMinFusedRealHalfThreads) consider(desc, t, index);
  } else {
    // The same tile with fewer live registers first: twiddles derived from a few table entries and the thread
    // indices recomputed per group (343-point columns of 7^6: 784 threads went from 80 registers, one block, to 40).
    KernelDesc lean = desc;
    if (!lean.tuning.deriveTwiddles) lean.tuning.deriveTwiddles = true;
    const std::optional<bool> leanIndex = index || desc.tuning.indexPerGroup
                                              ? index
                                              : std::optional<bool>(true);  // unless the tuning pins it
    if (!(lean.tuning == desc.tuning) || leanIndex != index) {
      consider(lean, 1024, leanIndex);
      // Half the FFTs side by side where the rows stay 64 bytes or more (rowsKept): 343-point columns of 16 FFTs
      // spill at 40 registers; 8 FFTs (392 threads) compile clean there and keep 3 blocks resident.
      if (g.fftsPerBlock >= 2) {
        KernelDesc half = lean;
        half.tuning.blockThreads = g.threadsPerFft * (g.fftsPerBlock / 2);
        consider(half, 1024, leanIndex);
      }
    }
    for (int cv : {16, 8}) {
      KernelDesc d = desc;
      d.tuning.columnValues = cv;
      consider(d, 1024, index);
    }
    KernelDesc d = desc;
    d.tuning.blockThreads = 128;
    consider(d, 1024, index);
  }
  return best;
}

}  // namespace

SpillFreeKernel emitStockhamSpillFree(const KernelDesc& desc, const std::string& arch, CompileProbe* probe) {
  StockhamKernel first = emitStockhamKernel(desc);
  if (!probe) return {first, {}};
  static std::mutex mutex;
  static std::map<std::string, SpillFreeKernel> memo;
  // Key: the probe's kind (a test's fake probe must not answer for NVRTC), arch, the pinned
  // index and streamed-prime choices (the tuning can pin them) and the first-try source.
  const std::string key = std::string(typeid(*probe).name()) + "\n" + arch + "\n" +
                          std::to_string(desc.tuning.spillBytes) + "\n" +
                          (!desc.tuning.indexPerGroup   ? "-1"
                           : *desc.tuning.indexPerGroup ? "1"
                                                        : "0") +
                          (desc.tuning.streamedPrime ? " streamed pinned" : "") + "\n" + first.source;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = memo.find(key);
    if (it != memo.end()) return it->second;
  }
  SpillFreeKernel out{first, probe->compile(first.source, desc.specName, arch)};
  // tuning.spill_bytes: a kernel spilling at most that much (stores and loads each) is kept as it is.
  const int tolerated = desc.tuning.spillBytes;
  auto spills = [&] { return out.compiled.spillStoreBytes > tolerated || out.compiled.spillLoadBytes > tolerated; };
  // Where every try spills, the one that spills least (then: more threads) is kept rather than the
  // last: halving the threads of a 16384-point Bluestein convolution kernel went from 32 bytes at
  // 1024 threads to 144 bytes at 256 threads with 255 registers.
  SpillFreeKernel least = out;
  auto spillBytes = [](const SpillFreeKernel& k) { return k.compiled.spillStoreBytes + k.compiled.spillLoadBytes; };
  auto threadsOf = [](const SpillFreeKernel& k) { return k.kernel.geom.threadsPerFft * k.kernel.geom.fftsPerBlock; };
  auto consider = [&] {
    if (spillBytes(out) < spillBytes(least) ||
        (spillBytes(out) == spillBytes(least) && threadsOf(out) > threadsOf(least)))
      least = out;
  };
  // First, at the same register target, stop NVVM holding hoisted per-thread addresses across the
  // group loop (most spills are those); then relax the target. Recomputing the indices costs a few
  // instructions per group, which pays only where groups are long (length 1024 and up).
  std::optional<bool> index;  // the tuning's choice, if any
  if (spills() && !desc.tuning.indexPerGroup && desc.length >= 1024) {
    index = true;
    StockhamKernel k = emitStockhamKernel(desc, 0, 1024, index);
    out = {k, probe->compile(k.source, desc.specName, arch)};
    consider();
  }
  // Relax the register target; where a block of this size cannot get more registers,
  // halve the threads per FFT (each then holds more values, but the block can use up to 255).
  for (int maxThreads = std::max(64, first.geom.threadsPerFft); maxThreads >= 64 && spills(); maxThreads /= 2) {
    for (int target : relaxedRegisterTargets(out.kernel.geom.threadsPerFft * out.kernel.geom.fftsPerBlock,
                                             out.kernel.geom.registerTarget)) {
      if (!spills()) break;
      StockhamKernel k = emitStockhamKernel(desc, target, maxThreads, index);
      out = {k, probe->compile(k.source, desc.specName, arch)};
      consider();
    }
    // Fewer threads, but never past the stated kernel-size limit (kStockhamMaxValuesPerThread).
    if (spills() && (desc.length + maxThreads / 2 - 1) / (maxThreads / 2) > kStockhamMaxValuesPerThread) break;
    if (spills()) {
      StockhamKernel k = emitStockhamKernel(desc, 0, maxThreads / 2, index);
      out = {k, probe->compile(k.source, desc.specName, arch)};
      consider();
    }
  }
  // Column-tiled kernels hold up to columnValues values per thread (32 f32): where that still spills (the 160-point
  // rows of a 20480 = 128 x 160 plan, 5 threads per FFT, at any register target), fewer values.
  for (int cv : {16, 8}) {
    if (!spills() || desc.tuning.columnValues > 0) break;
    KernelDesc d = desc;
    d.tuning.columnValues = cv;
    StockhamKernel k = emitStockhamKernel(d, 0, 1024, index);
    SpillFreeKernel trial{k, probe->compile(k.source, desc.specName, arch)};
    if (!trial.compiled.spills()) out = trial;
    for (int target : {96, 128, 168, 255}) {
      if (!out.compiled.spills()) break;
      StockhamKernel kt = emitStockhamKernel(d, target, 1024, index);
      SpillFreeKernel t2{kt, probe->compile(kt.source, desc.specName, arch)};
      if (!t2.compiled.spills()) out = t2;
    }
  }
  // A prime streamed by the geometry's rule (one thread per butterfly, ~R values held) that spills at every target:
  // the cooperative pass holds a few values per thread.
  if (spills() && !desc.tuning.streamedPrime &&
      std::any_of(desc.factors.begin(), desc.factors.end(), [&](int r) { return streamsPass(desc, first.geom, r); })) {
    KernelDesc coop = desc;
    coop.tuning.streamedPrime = false;
    const SpillFreeKernel c = emitStockhamSpillFree(coop, arch, probe);
    if (spillBytes(c) < spillBytes(least)) {
      std::lock_guard<std::mutex> lock(mutex);
      memo.emplace(key, c);
      return c;
    }
  }
  if (spills()) out = least;
  out = moreResident(desc, arch, probe, out, index);
  std::lock_guard<std::mutex> lock(mutex);
  memo.emplace(key, out);
  return out;
}

}  // namespace warpforge
