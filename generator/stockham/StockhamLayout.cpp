#include "generator/stockham/StockhamLayout.h"

#include <algorithm>
#include <functional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "warpforge/spec_error.h"

namespace warpforge {

namespace {

using i128 = __int128;

struct Dim {
  long long n, s;  // count and stride
};

// Dimensions with more than one element (others add no address).
std::vector<Dim> dimsOf(const StockhamIo& io, const std::vector<long long>& shape) {
  std::vector<Dim> d;
  for (std::size_t t = 0; t < shape.size(); ++t)
    if (shape[t] > 1) d.push_back({shape[t], io.strides[t]});
  return d;
}

std::string stridePath(const StockhamIo& io, const std::string& path) {
  return path + "/" + (io.stridesKey.empty() ? "strides" : io.stridesKey);
}

i128 floorDiv(i128 a, i128 b) {  // b > 0
  i128 q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
i128 ceilDiv(i128 a, i128 b) { return -floorDiv(-a, b); }

// d x + s y = g = gcd(d, s), d, s > 0.
i128 extGcd(i128 a, i128 b, i128& x, i128& y) {
  if (b == 0) {
    x = 1;
    y = 0;
    return a;
  }
  i128 x1, y1;
  i128 g = extGcd(b, a % b, x1, y1);
  x = y1;
  y = x1 - (a / b) * y1;
  return g;
}

// Every coefficient vector of `others` (|c_t| <= n_t - 1) as the sum R = sum c_t s_t; false when
// there are more than `budget` of them (the caller cannot decide and says so).
constexpr long long kBudget = 1LL << 24;
bool forEachCombination(const std::vector<Dim>& others, const std::function<void(long long R, bool zero)>& f) {
  i128 count = 1;
  for (const Dim& d : others) count *= 2 * d.n - 1;
  if (count > kBudget) return false;
  std::function<void(std::size_t, long long, bool)> rec = [&](std::size_t t, long long R, bool zero) {
    if (t == others.size()) return f(R, zero);
    for (long long c = -(others[t].n - 1); c <= others[t].n - 1; ++c) rec(t + 1, R + c * others[t].s, zero && c == 0);
  };
  rec(0, 0, true);
  return true;
}

// The dimension solved for in closed form: the one with the most elements.
std::size_t widest(const std::vector<Dim>& d) {
  std::size_t w = 0;
  for (std::size_t t = 1; t < d.size(); ++t)
    if (d[t].n > d[w].n) w = t;
  return w;
}

}  // namespace

long long stockhamCheckedSpan(const StockhamIo& io, const std::vector<long long>& shape, const std::string& file,
                              const std::string& path) {
  long long last = 0;
  for (std::size_t t = 0; t < shape.size(); ++t) {
    long long step = 0;
    if (__builtin_mul_overflow(shape[t] - 1, io.strides[t], &step) || __builtin_add_overflow(last, step, &last) ||
        last >= kStockhamMaxEntryElems)
      throw SpecError(file, stridePath(io, path),
                      fmt::format("one batch entry would span more than 2^52 elements (strides {} over the shape {})",
                                  fmt::join(io.strides, ", "), fmt::join(shape, " x ")));
  }
  if (last + 1 + io.offset > kStockhamMaxEntryElems)
    throw SpecError(file, path + "/offset",
                    fmt::format("offset {} plus the entry's span {} exceeds 2^52 elements", io.offset, last + 1));
  return last + 1;
}

bool stockhamEntryOverlaps(const StockhamIo& io, const std::vector<long long>& shape, const std::string& file,
                           const std::string& path) {
  stockhamCheckedSpan(io, shape, file, path);  // every sum below is then bounded by the span
  std::vector<Dim> d = dimsOf(io, shape);
  // Nested strides (each at least the reach of the smaller ones, as in every dense or padded
  // layout) are distinct by construction.
  std::sort(d.begin(), d.end(), [](const Dim& a, const Dim& b) { return a.s < b.s; });
  long long reach = 0;
  bool nested = true;
  for (const Dim& x : d) {
    nested = nested && x.s > reach;
    reach += (x.n - 1) * x.s;  // bounded by the checked span
  }
  if (nested) return false;
  // Otherwise: a nonzero c with sum c_t s_t = 0; the widest dimension solved for, the others enumerated.
  const std::size_t w = widest(d);
  const Dim L = d[w];
  std::vector<Dim> others = d;
  others.erase(others.begin() + static_cast<long>(w));
  bool hit = false;
  if (!forEachCombination(others, [&](long long R, bool zero) {
        if (hit || zero || R % L.s) return;
        hit = (R < 0 ? -R : R) / L.s <= L.n - 1;
      }))
    throw SpecError(file, stridePath(io, path),
                    "cannot prove the elements of one batch entry distinct within the planner's budget; use strides "
                    "that each exceed the "
                    "reach of the smaller ones");
  return hit;
}

long long stockhamMaxBatch(const StockhamIo& io, const std::vector<long long>& shape, const std::string& file,
                           const std::string& path) {
  const long long span = stockhamCheckedSpan(io, shape, file, path);
  if (io.distance >= span) return -1;
  // Entries b and b + k collide iff k * distance = sum c_t s_t for some |c_t| <= n_t - 1: the
  // smallest such k >= 1 is the largest safe batch. Per combination of the other dimensions
  // (R), k d - c s = R is solved over the integers for the smallest k >= 1 with |c| <= n - 1.
  std::vector<Dim> d = dimsOf(io, shape);
  const std::size_t w = widest(d);
  const Dim L = d[w];
  std::vector<Dim> others = d;
  others.erase(others.begin() + static_cast<long>(w));
  const i128 D = io.distance, S = L.s;
  i128 x = 0, y = 0;
  const i128 g = extGcd(D, S, x, y);
  i128 best = -1;
  if (!forEachCombination(others, [&](long long R, bool) {
        if (R % g) return;
        const i128 m = R / g, k0 = x * m, c0 = -y * m;  // k = k0 + (S/g) t, c = c0 + (D/g) t
        const i128 tLo = std::max(ceilDiv(-(L.n - 1) - c0, D / g), ceilDiv(1 - k0, S / g));
        const i128 tHi = floorDiv((L.n - 1) - c0, D / g);
        if (tLo > tHi) return;
        const i128 k = k0 + (S / g) * tLo;
        if (best < 0 || k < best) best = k;
      }))
    throw SpecError(file, path + "/distance",
                    fmt::format("cannot prove the batch entries disjoint within the planner's budget; use a distance "
                                "of at least {} (the "
                                "span of one entry)",
                                span));
  return static_cast<long long>(best);
}

void checkStockhamLayouts(const StockhamSpec& s) {
  const auto inShape = s.inShape(), outShape = s.outShape();
  stockhamCheckedSpan(s.input, inShape, s.file, "/input");
  const long long span = stockhamCheckedSpan(s.output, outShape, s.file, "/output");
  // Two elements of one entry at one address: the result would depend on the order of writes.
  if (stockhamEntryOverlaps(s.output, outShape, s.file, "/output"))
    throw SpecError(s.file, stridePath(s.output, "/output"),
                    fmt::format("output strides [{}] over the shape {} put two elements of one batch entry at the same "
                                "address",
                                fmt::join(s.output.strides, ", "), fmt::join(outShape, " x ")));
  // Entries 0 and 1 overlapping leaves no batch worth the name: a distance mistake (r2c 1024 needs 513, not 512).
  if (stockhamMaxBatch(s.output, outShape, s.file, "/output") == 1)
    throw SpecError(s.file, "/output/distance",
                    fmt::format("output distance {} makes batch entries 0 and 1 overlap (one entry spans {} elements); "
                                "use a distance of at "
                                "least {}, or strides that interleave the entries",
                                s.output.distance, span, span));
}

}  // namespace warpforge
