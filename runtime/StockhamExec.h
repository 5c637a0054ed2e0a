#pragma once
// Runs a stockham spec on the GPU: plans it, emits and JIT-compiles every
// kernel of the plan, uploads the tables, owns the scratch buffers and
// launches the chain on a stream.
#include <cuda.h>

#include <memory>
#include <vector>

#include "generator/stockham/StockhamEmitter.h"
#include "generator/stockham/StockhamPlan.h"
#include "runtime/DeviceUtil.h"
#include "runtime/Runtime.h"

namespace warpforge {

// Device pointers of the user's arrays; the *_im pointers only for planar layouts.
struct StockhamBuffers {
  CUdeviceptr in = 0, inIm = 0, out = 0, outIm = 0;
};

// Grid of a persistent kernel that has `groups` groups of FFTs to do and room for `resident`
// blocks at once: the fewest blocks that keep the most groups any block does (ceil(groups/resident)),
// so that every block does the same number of groups, give or take one short round spread thin.
long long persistentGrid(long long groups, long long resident);

// How a persistent kernel's grid is sized: Balanced (persistentGrid) or every resident slot
// filled (the old rule, kept for the A/B test).
enum class GridPolicy { Balanced, FillResident };

class StockhamExecutor {
 public:
  StockhamExecutor(Runtime& rt, const StockhamSpec& spec, GridPolicy grid = GridPolicy::Balanced);
  void run(const StockhamBuffers& buffers, long long batch, CUstream stream = nullptr);
  const StockhamPlan& plan() const { return plan_; }
  const std::vector<StockhamKernel>& kernels() const { return emitted_; }
  int registers(std::size_t k) const { return loaded_[k].lk.registers; }

 private:
  struct Loaded {
    LoadedKernel lk;
    std::unique_ptr<DeviceBuffer> twiddles, loadTable, storeTable, bigLo, bigHi;
  };
  std::unique_ptr<DeviceBuffer> upload(const std::vector<std::complex<double>>& table) const;

  Runtime& rt_;
  StockhamPlan plan_;
  std::vector<StockhamKernel> emitted_;
  std::vector<Loaded> loaded_;
  GridPolicy gridPolicy_;
  std::unique_ptr<DeviceBuffer> tmp_[2];
  long long tmpBatch_ = 0;
};

}  // namespace warpforge
