#include "runtime/StockhamAb.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "runtime/DeviceUtil.h"
#include "runtime/StockhamRun.h"

namespace warpforge {

StockhamAbResult abStockham(Runtime& rt, const StockhamSpec& a, const StockhamSpec& b, long long batch, int reps) {
  StockhamArrayBytes ba = stockhamArrayBytes(a, batch), bb = stockhamArrayBytes(b, batch);
  if (ba.in != bb.in || ba.out != bb.out || ba.inIm != bb.inIm || ba.outIm != bb.outIm || a.inPlace != b.inPlace)
    throw std::invalid_argument(fmt::format("A/B of {} and {}: the two specs must have the same arrays", a.name, b.name));
  StockhamExecutor ea(rt, a), eb(rt, b);
  auto buffer = [](std::size_t bytes) {
    auto d = std::make_unique<DeviceBuffer>(std::max<std::size_t>(bytes, 1));
    checkCu(cuMemsetD8(d->p, 0, std::max<std::size_t>(bytes, 1)), "cuMemsetD8");
    return d;
  };
  auto in = buffer(ba.in), inIm = buffer(ba.inIm);
  std::unique_ptr<DeviceBuffer> out, outIm;
  StockhamBuffers bufs{in->p, inIm->p, in->p, inIm->p};
  if (!a.inPlace) {
    out = buffer(ba.out);
    outIm = buffer(ba.outIm);
    bufs.out = out->p;
    bufs.outIm = outIm->p;
  }
  auto runA = [&] { ea.run(bufs, batch); };
  std::vector<double> ms = interleavedMedians({runA, [&] { eb.run(bufs, batch); }, runA}, 3, reps);  // A B A
  return {ms[0], ms[2], ms[1]};
}

}  // namespace warpforge
