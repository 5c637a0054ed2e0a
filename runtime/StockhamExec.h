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

class StockhamExecutor {
 public:
  StockhamExecutor(Runtime& rt, const StockhamSpec& spec);
  // One run at a time per executor: the scratch buffers and the work counters are its own.
  void run(const StockhamBuffers& buffers, long long batch, CUstream stream = nullptr);
  const StockhamPlan& plan() const { return plan_; }
  const std::vector<StockhamKernel>& kernels() const { return emitted_; }
  int registers(std::size_t k) const { return loaded_[k].lk.registers; }

 private:
  struct Loaded {
    LoadedKernel lk;
    std::unique_ptr<DeviceBuffer> twiddles, loadTable, storeTable, bigLo, bigHi;
    std::unique_ptr<DeviceBuffer> work;  // the kernel's group counters (KernelGeometry::workQueue), zero between launches
  };
  std::unique_ptr<DeviceBuffer> upload(const std::vector<std::complex<double>>& table) const;

  Runtime& rt_;
  StockhamPlan plan_;
  std::vector<StockhamKernel> emitted_;
  std::vector<Loaded> loaded_;
  std::unique_ptr<DeviceBuffer> tmp_[2];
  long long tmpBatch_ = 0;
};

}  // namespace warpforge
