#include "runtime/SpillFree.h"

#include <map>
#include <mutex>

namespace warpforge {

SpillFreeKernel emitStockhamSpillFree(const KernelDesc& desc, const std::string& arch) {
  static std::mutex mutex;
  static std::map<std::string, SpillFreeKernel> memo;  // key: first-try source + arch
  StockhamKernel first = emitStockhamKernel(desc);
  const std::string key = arch + "\n" + first.source;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = memo.find(key);
    if (it != memo.end()) return it->second;
  }
  const int threads = first.geom.threadsPerFft * first.geom.fftsPerBlock;
  SpillFreeKernel out{first, nvrtcCompile(first.source, desc.specName, arch)};
  for (int target : {80, 96, 128, 168, 255}) {
    bool spills = out.compiled.spillStoreBytes > 0 || out.compiled.spillLoadBytes > 0;
    if (!spills) break;
    if (target <= out.kernel.geom.registerTarget || threads * out.kernel.geom.registerTarget >= 65536) continue;
    StockhamKernel k = emitStockhamKernel(desc, target);
    out = {k, nvrtcCompile(k.source, desc.specName, arch)};
  }
  std::lock_guard<std::mutex> lock(mutex);
  memo.emplace(key, out);
  return out;
}

}  // namespace warpforge
