#include "generator/stockham/RealPlanes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "generator/stockham/ElementIo.h"
#include "generator/stockham/StockhamSpec.h"

namespace warpforge {

using namespace ast;

int fusedRealAxes(const StockhamSpec& s, int maxPlane) {
  const int D = static_cast<int>(s.lengths.size());
  const int N = s.length();
  if (D < 2 || !s.real() || N < 3 || s.tuning.fuseAxes == false || !s.factors.empty() || s.inPlace ||
      s.input.type != InputType::Native || (s.tuning.realSplit && *s.tuning.realSplit != RealSplit::Fused))
    return 0;
  // Odd N only where fuse_axes asks for it: the rows as (x, 0) double the plane's FFT and c2r reads each row's
  // mirror, and the per-axis plans ran faster at five of seven odd shapes on an H200 (4 x 13 c2r 0.77x cuFFT against
  // 0.70x, 32 x 31 r2c 0.96x against 0.85x, 104 x 55 1.00-1.01x against 0.83-0.89x, 3 x 5 x 7 c2r 0.88x against
  // 0.76x; the plane won at 4 x 13 r2c, 1.20x against 0.83x, and 32 x 31 c2r, 0.47x against 0.31x). Even N: the
  // plane ran 1.11x against 0.90x (6 x 10 r2c) and 1.06-2.56x cuFFT on a fresh sweep of the class.
  if (N % 2 && s.tuning.fuseAxes != true) return 0;
  const int maxPrime = maxPrimeRadix(s.precision);
  const long long M = N % 2 ? N : N / 2;
  const std::vector<long long> complexShape = s.transform == Transform::R2C ? s.outShape() : s.inShape();
  const StockhamIo& realIo = s.transform == Transform::R2C ? s.input : s.output;
  const StockhamIo& complexIo = s.transform == Transform::R2C ? s.output : s.input;
  // Axes lo..D-1 dense with unit innermost stride, and the next batch stride not that of a column tile (consecutive
  // planes one element apart).
  auto dense = [&](const StockhamIo& io, const std::vector<long long>& shape, int lo, bool realSide) {
    if (io.strides[D - 1] != 1) return false;
    for (int a = lo; a < D - 1; ++a)
      if (io.strides[a] != io.strides[a + 1] * shape[a + 1]) return false;
    const long long next = lo > 0 ? io.strides[lo - 1] : io.distance;
    return next != 1 && !(realSide && next == 2);
  };
  std::vector<long long> realShape(s.lengths.begin(), s.lengths.end());
  if (!isSmooth(M, maxPrime)) return 0;
  for (int m = D; m >= 2; --m) {
    const int lo = D - m;
    long long plane = M;
    bool smooth = true;
    for (int a = lo; a < D - 1; ++a) {
      plane *= s.lengths[a];
      smooth = smooth && s.lengths[a] > 1 && isSmooth(s.lengths[a], maxPrime);
    }
    if (smooth && plane <= maxSingleKernelLength(s.precision) && (maxPlane <= 0 || plane <= maxPlane) &&
        dense(realIo, realShape, lo, true) && dense(complexIo, complexShape, lo, false))
      return m;
  }
  return 0;
}

int planeRows(const KernelDesc& d) { return d.length / d.axes.back(); }
int planeHalfRow(const KernelDesc& d) { return d.fuseN / 2 + 1; }

namespace {

// The mirror of row `r` (every outer index negated mod its axis), rows row-major over axes 0..D-2.
NodePtr mirrorRow(const KernelDesc& d, const NodePtr& r) {
  const int outer = static_cast<int>(d.axes.size()) - 1;
  NodePtr sum;
  long long after = planeRows(d);
  for (int a = 0; a < outer; ++a) {
    const int n = d.axes[a];
    after /= n;
    NodePtr digit = after == 1 ? r : bin("/", r, lit(after));
    if (a > 0) digit = bin("%", digit, lit(n));  // the slowest digit needs no modulo
    NodePtr term = bin("%", bin("-", lit(n), digit), lit(n));
    if (after > 1) term = bin("*", term, lit(after));
    sum = sum ? bin("+", sum, term) : term;
  }
  return sum;
}

NodePtr reOf(const std::string& v) { return member(var(v), "x"); }
NodePtr imOf(const std::string& v) { return member(var(v), "y"); }

}  // namespace

void planeMergeLoad(const KernelContext& k, std::vector<NodePtr>& out) {
  const KernelDesc& d = k.d;
  const int M = d.axes.back(), H = planeHalfRow(d), N = d.fuseN;
  out.push_back(decl("const int", "pr", bin("/", var("i"), lit(M))));
  out.push_back(decl("const int", "pc", bin("%", var("i"), lit(M))));
  out.push_back(decl("const int", "pm", mirrorRow(d, var("pr"))));
  auto at = [&](const NodePtr& row, const NodePtr& col) {
    return k.address(d.in, bin("+", bin("*", row, lit(H)), col), "abase");
  };
  if (N % 2) {
    // X[r, k] for k <= N/2, else conj X[-r, N - k].
    out.push_back(decl("const bool", "up", bin(">", var("pc"), lit(N / 2))));
    out.push_back(assign(var("v"), loadValue(k, ternary(var("up"), at(var("pm"), bin("-", lit(N), var("pc"))),
                                                        at(var("pr"), var("pc"))))));
    out.push_back(ifStmt(var("up"), block({assign(member(var("v"), "y"), unary("-", member(var("v"), "y")))})));
    return;
  }
  // Z[r, k] = (X[r, k] + conj X[-r, L-k]) + i W_N^-k (X[r, k] - conj X[-r, L-k]), W_N^-k = load_table[k].
  out.push_back(decl(k.cT, "xa", loadValue(k, at(var("pr"), var("pc")))));
  out.push_back(decl(k.cT, "xb", loadValue(k, at(var("pm"), bin("-", lit(M), var("pc"))))));
  out.push_back(decl(k.cT, "xd", k.mk(bin("-", reOf("xa"), reOf("xb")), bin("+", imOf("xa"), imOf("xb")))));
  out.push_back(decl(k.cT, "xo", k.cmul(index(var("load_table"), var("pc")), var("xd"))));
  out.push_back(assign(var("v"), k.mk(bin("-", bin("+", reOf("xa"), reOf("xb")), imOf("xo")),
                                      bin("+", bin("-", imOf("xa"), imOf("xb")), reOf("xo")))));
}

void planeSplitStore(const KernelContext& k, std::vector<NodePtr>& out) {
  const KernelDesc& d = k.d;
  const int M = d.axes.back(), H = planeHalfRow(d);
  out.push_back(decl("const int", "pr", bin("/", var("i"), lit(H))));
  out.push_back(decl("const int", "pc", bin("%", var("i"), lit(H))));
  if (d.fuseN % 2) {
    out.push_back(decl(k.cT, "v", k.shared("sbase", bin("+", bin("*", var("pr"), lit(M)), var("pc")))));
    return;
  }
  // X[r, k] = E + W_N^k O: E = (Z[r, k] + conj Z[-r, L-k]) / 2, O = -i/2 (Z[r, k] - conj Z[-r, L-k]); k = L reads
  // Z[r, 0] (k mod L).
  out.push_back(decl("const int", "pm", mirrorRow(d, var("pr"))));
  out.push_back(
      decl(k.cT, "za", k.shared("sbase", bin("+", bin("*", var("pr"), lit(M)), bin("%", var("pc"), lit(M))))));
  out.push_back(
      decl(k.cT, "zb",
           k.shared("sbase", bin("+", bin("*", var("pm"), lit(M)), bin("%", bin("-", lit(M), var("pc")), lit(M))))));
  const NodePtr half = k.num(0.5);
  out.push_back(
      decl(k.cT, "ev",
           k.mk(bin("*", half, bin("+", reOf("za"), reOf("zb"))), bin("*", half, bin("-", imOf("za"), imOf("zb"))))));
  out.push_back(decl(k.cT, "od",
                     k.mk(bin("*", half, bin("+", imOf("za"), imOf("zb"))),
                          bin("*", k.num(-0.5), bin("-", reOf("za"), reOf("zb"))))));
  out.push_back(decl(k.cT, "wo", k.cmul(index(var("store_table"), var("pc")), var("od"))));
  out.push_back(decl(k.cT, "v", k.mk(bin("+", reOf("ev"), reOf("wo")), bin("+", imOf("ev"), imOf("wo")))));
}

std::string realPlaneNote(const KernelDesc& d) {
  if (d.fuse != Fuse::PlaneSplit && d.fuse != Fuse::PlaneMerge) return "";
  const bool odd = d.fuseN % 2;
  return fmt::format(
      "\nReal plane: {} of rows of {} as this plane's complex FFT ({}); the complex side in rows of {}, {}.",
      d.fuse == Fuse::PlaneSplit ? "r2c" : "c2r", d.fuseN, odd ? "the real rows as (x, 0)" : "the real rows as pairs",
      planeHalfRow(d),
      d.fuse == Fuse::PlaneSplit
          ? (odd ? "outputs k <= N/2 stored" : "the split with each row's mirror at the store")
          : (odd ? "elements above N/2 read as the conjugate mirror" : "the merge with each row's mirror at the load"));
}

}  // namespace warpforge
