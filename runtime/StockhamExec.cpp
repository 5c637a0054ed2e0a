#include "runtime/StockhamExec.h"

#include <cstring>

#include <fmt/format.h>

#include "runtime/SpillFree.h"

namespace warpforge {

StockhamExecutor::StockhamExecutor(Runtime& rt, const StockhamSpec& spec) : rt_(rt), plan_(planStockham(spec)) {
  for (const PlanKernel& pk : plan_.kernels) {
    StockhamKernel k = emitStockhamSpillFree(pk.desc, rt_.deviceArch()).kernel;
    Loaded l;
    l.lk = rt_.loadSource(k.source, spec.name, pk.desc.kernelName, k.geom.threadsPerFft * k.geom.fftsPerBlock, k.geom.sharedBytes);
    l.twiddles = upload(pk.twiddles);
    l.loadTable = upload(pk.loadTable);
    l.storeTable = upload(pk.storeTable);
    l.bigLo = upload(pk.bigLo);
    l.bigHi = upload(pk.bigHi);
    l.work = std::make_unique<DeviceBuffer>(2 * sizeof(unsigned long long));
    checkCu(cuMemsetD8(l.work->p, 0, 2 * sizeof(unsigned long long)), "cuMemsetD8 (work counters)");
    emitted_.push_back(std::move(k));
    loaded_.push_back(std::move(l));
  }
}

std::unique_ptr<DeviceBuffer> StockhamExecutor::upload(const std::vector<std::complex<double>>& table) const {
  if (table.empty()) return nullptr;
  const std::size_t n = table.size();
  std::vector<char> raw(n * (plan_.f64 ? 16 : 8));
  for (std::size_t i = 0; i < n; ++i) {
    if (plan_.f64) {
      double v[2] = {table[i].real(), table[i].imag()};
      std::memcpy(raw.data() + 16 * i, v, 16);
    } else {
      float v[2] = {static_cast<float>(table[i].real()), static_cast<float>(table[i].imag())};
      std::memcpy(raw.data() + 8 * i, v, 8);
    }
  }
  auto buf = std::make_unique<DeviceBuffer>(raw.size());
  checkCu(cuMemcpyHtoD(buf->p, raw.data(), raw.size()), "cuMemcpyHtoD (stockham table)");
  return buf;
}

void StockhamExecutor::run(const StockhamBuffers& b, long long batch, CUstream stream) {
  if (batch < 1) throw std::invalid_argument(fmt::format("{}: batch must be >= 1 (got {})", plan_.specName, batch));
  const int cb = plan_.f64 ? 16 : 8;
  if (batch > tmpBatch_) {
    for (int t = 0; t < 2; ++t)
      tmp_[t] = plan_.tmpElemsPerBatch[t] ? std::make_unique<DeviceBuffer>(static_cast<std::size_t>(plan_.tmpElemsPerBatch[t] * batch * cb)) : nullptr;
    tmpBatch_ = batch;
  }
  auto ptrs = [&](Buffer buf, bool im) -> CUdeviceptr {
    switch (buf) {
      case Buffer::Input: return im ? b.inIm : b.in;
      case Buffer::Output: return im ? b.outIm : b.out;
      case Buffer::Tmp0: return im ? 0 : tmp_[0]->p;
      case Buffer::Tmp1: return im ? 0 : tmp_[1]->p;
    }
    return 0;
  };
  for (std::size_t i = 0; i < loaded_.size(); ++i) {
    const PlanKernel& pk = plan_.kernels[i];
    const KernelGeometry& g = emitted_[i].geom;
    Loaded& l = loaded_[i];
    CUdeviceptr in = ptrs(pk.src, false), inIm = ptrs(pk.src, true), out = ptrs(pk.dst, false), outIm = ptrs(pk.dst, true);
    auto p = [](const std::unique_ptr<DeviceBuffer>& d) { return d ? d->p : CUdeviceptr{0}; };
    CUdeviceptr tw = p(l.twiddles), lt = p(l.loadTable), st = p(l.storeTable), lo = p(l.bigLo), hi = p(l.bigHi);
    auto aligned = [&](CUdeviceptr ptr, int bytes, const char* what) {
      if (bytes && ptr % bytes)
        throw std::invalid_argument(fmt::format("{}: kernel {} reads/writes the {} array in {}-byte vectors; its pointer must be {}-byte aligned",
                                                plan_.specName, pk.desc.kernelName, what, bytes, bytes));
    };
    aligned(in, g.vectorBytesIn, "input");
    aligned(out, g.vectorBytesOut, "output");
    long long ffts = batch * pk.fftsPerBatch;
    long long inValid = pk.desc.inValid, outValid = pk.desc.outValid;
    CUdeviceptr work = l.work->p;
    void* args[] = {&in, &inIm, &out, &outIm, &tw, &lt, &st, &lo, &hi, &ffts, &inValid, &outValid, &work};
    long long blocks = (ffts + g.fftsPerBlock - 1) / g.fftsPerBlock;
    // Persistent: every resident slot filled. Fewer blocks with an equal share each measured
    // 0.3-3% slower on the H100 (bench/RESULTS.md, 2026-11-23 fifth session).
    long long grid = g.persistent ? std::min<long long>(blocks, 1LL * l.lk.smCount * std::max(1, l.lk.blocksPerSm)) : blocks;
    if (grid > 0x7fffffffLL) grid = 0x7fffffffLL;  // the kernels loop over groups, so any grid covers the batch
    rt_.launchRaw(l.lk, static_cast<unsigned>(grid), g.threadsPerFft * g.fftsPerBlock, 1, args, stream);
  }
}

}  // namespace warpforge
