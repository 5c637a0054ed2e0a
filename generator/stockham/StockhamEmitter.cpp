#include "generator/stockham/StockhamEmitter.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ast/Ast.h"
#include "ast/Passes.h"
#include "ast/Printer.h"

namespace warpforge {

using namespace ast;

namespace {

// A literal coefficient, snapped to 0 / +-1 where the angle is a quarter turn.
double snap(double v) {
  if (std::fabs(v) < 1e-14) return 0;
  if (std::fabs(v - 1) < 1e-14) return 1;
  if (std::fabs(v + 1) < 1e-14) return -1;
  return v;
}

// acc += coef * term, dropping zero terms and multiplications by +-1.
NodePtr addTerm(NodePtr acc, double coef, NodePtr term, bool f64) {
  if (coef == 0) return acc;
  NodePtr t = coef == 1 ? term : coef == -1 ? unary("-", term) : bin("*", f64 ? dlit(coef) : flit(coef), term);
  if (!acc) return t;
  return bin("+", acc, t);
}

}  // namespace

StockhamKernel emitStockham(const StockhamSpec& s) {
  StockhamKernel k;
  const int n = s.length;
  const bool f64 = s.precision == "f64";
  const std::string cT = f64 ? "double2" : "float2", rT = f64 ? "double" : "float";
  const std::string sincospi = f64 ? "sincospi" : "sincospif";
  k.factors = s.factors;
  k.elementBytes = f64 ? 16 : 8;
  k.kernelName = s.name;
  int rmax = 1;
  for (int r : s.factors) rmax = std::max(rmax, r);
  k.threadsPerFft = std::max(1, std::min(256, n / rmax));
  k.fftsPerBlock = std::max(1, 128 / k.threadsPerFft);
  k.sharedBytes = k.fftsPerBlock * n * k.elementBytes;
  const int T = k.threadsPerFft, F = k.fftsPerBlock;

  auto lit2 = [&](double v) { return f64 ? dlit(v) : flit(v); };
  std::vector<NodePtr> body;
  body.push_back(decl("const int", "t", member(var("threadIdx"), "x")));
  body.push_back(decl("const int", "f", member(var("threadIdx"), "y")));
  body.push_back(raw(fmt::format("__shared__ {} smem_all[{}][{}];", cT, F, n)));
  body.push_back(decl(cT + "*", "smem", index(var("smem_all"), var("f"))));

  std::vector<NodePtr> loop;
  loop.push_back(decl("const long long", "fft", bin("+", bin("*", var("group"), lit(F)), var("f"))));
  loop.push_back(decl("const bool", "active", bin("<", var("fft"), var("batch"))));
  // Load: smem[n] = input[offset + fft * distance + n * stride]
  std::vector<NodePtr> load;
  for (int it = 0; it * T < n; ++it) {
    NodePtr idx = bin("+", var("t"), lit(it * T));
    NodePtr g = index(var("input"), bin("+", bin("+", var("in_offset"), bin("*", var("fft"), var("in_dist"))),
                                        bin("*", cast("long long", idx), var("in_stride"))));
    NodePtr st = assign(index(var("smem"), idx), g);
    load.push_back((it + 1) * T <= n ? st : ifStmt(bin("<", idx, lit(n)), block({st})));
  }
  loop.push_back(ifStmt(var("active"), block(load)));
  loop.push_back(exprStmt(call("__syncthreads", {})));

  long long ns = 1;
  for (std::size_t p = 0; p < s.factors.size(); ++p) {
    const int R = s.factors[p];
    const int butterflies = n / R;
    const int iters = (butterflies + T - 1) / T;
    std::vector<NodePtr> pass{comment(fmt::format("pass {}: radix {}, {} butterflies, sub-transform length {} -> {}", p, R, butterflies, ns, ns * R))};
    pass.push_back(declArray(cT, "x", iters * R));
    for (int it = 0; it < iters; ++it) {
      std::vector<NodePtr> bf;
      NodePtr j = var(fmt::format("j{}", it));
      bf.push_back(decl("const int", fmt::format("k{}", it), ns == 1 ? lit(0) : bin("%", j, lit(ns))));
      NodePtr kv = var(fmt::format("k{}", it));
      for (int r = 0; r < R; ++r) {
        NodePtr src = index(var("smem"), bin("+", j, lit(static_cast<long long>(r) * butterflies)));
        NodePtr xr = index(var("x"), lit(it * R + r));
        if (r == 0 || ns == 1) {
          bf.push_back(assign(xr, src));
          continue;
        }
        // twiddle exp(sign 2 pi i r k / (ns R))
        bf.push_back(block({decl(cT, "v", src), decl(rT, "c"), decl(rT, "s"),
                            exprStmt(call(sincospi, {bin("/", bin("*", lit2(2.0 * s.sign * r), cast(rT, kv)), lit2(static_cast<double>(ns * R))),
                                                     unary("&", var("s")), unary("&", var("c"))})),
                            assign(member(xr, "x"), bin("-", bin("*", var("c"), member(var("v"), "x")), bin("*", var("s"), member(var("v"), "y")))),
                            assign(member(xr, "y"), bin("+", bin("*", var("c"), member(var("v"), "y")), bin("*", var("s"), member(var("v"), "x"))))}));
      }
      // DFT of radix R with literal coefficients.
      std::vector<NodePtr> outs;
      for (int o = 0; o < R; ++o) {
        NodePtr re, im;
        for (int r = 0; r < R; ++r) {
          double ang = 2.0 * M_PI * ((static_cast<long long>(r) * o) % R) / R;
          double c = snap(std::cos(ang)), sn = snap(s.sign * std::sin(ang));
          NodePtr xr = index(var("x"), lit(it * R + r));
          re = addTerm(re, c, member(xr, "x"), f64);
          re = addTerm(re, -sn, member(xr, "y"), f64);
          im = addTerm(im, c, member(xr, "y"), f64);
          im = addTerm(im, sn, member(xr, "x"), f64);
        }
        outs.push_back(decl(cT, fmt::format("y{}", o), call(f64 ? "make_double2" : "make_float2", {re, im})));
      }
      for (auto& o : outs) bf.push_back(o);
      for (int o = 0; o < R; ++o) bf.push_back(assign(index(var("x"), lit(it * R + o)), var(fmt::format("y{}", o))));
      NodePtr jdecl = decl("const int", fmt::format("j{}", it), bin("+", var("t"), lit(it * T)));
      pass.push_back(jdecl);
      pass.push_back((it + 1) * T <= butterflies ? block(bf) : ifStmt(bin("<", j, lit(butterflies)), block(bf)));
    }
    pass.push_back(exprStmt(call("__syncthreads", {})));
    for (int it = 0; it < iters; ++it) {
      NodePtr j = var(fmt::format("j{}", it));
      std::vector<NodePtr> st;
      // out index: (j / ns) * ns * R + j % ns + r * ns
      NodePtr base = ns == 1 ? bin("*", j, lit(R)) : bin("+", bin("*", bin("/", j, lit(ns)), lit(ns * R)), bin("%", j, lit(ns)));
      st.push_back(decl("const int", "base", base));
      for (int r = 0; r < R; ++r)
        st.push_back(assign(index(var("smem"), bin("+", var("base"), lit(static_cast<long long>(r) * ns))), index(var("x"), lit(it * R + r))));
      pass.push_back((it + 1) * T <= butterflies ? block(st) : ifStmt(bin("<", j, lit(butterflies)), block(st)));
    }
    pass.push_back(exprStmt(call("__syncthreads", {})));
    loop.push_back(block(pass));
    ns *= R;
  }
  std::vector<NodePtr> store;
  for (int it = 0; it * T < n; ++it) {
    NodePtr idx = bin("+", var("t"), lit(it * T));
    NodePtr g = index(var("output"), bin("+", bin("+", var("out_offset"), bin("*", var("fft"), var("out_dist"))),
                                         bin("*", cast("long long", idx), var("out_stride"))));
    NodePtr st = assign(g, index(var("smem"), idx));
    store.push_back((it + 1) * T <= n ? st : ifStmt(bin("<", idx, lit(n)), block({st})));
  }
  loop.push_back(ifStmt(var("active"), block(store)));
  loop.push_back(exprStmt(call("__syncthreads", {})));  // smem is reused by the next group

  body.push_back(forLoop(decl("long long", "group", cast("long long", member(var("blockIdx"), "x"))),
                         bin("<", bin("*", var("group"), lit(F)), var("batch")), assign(var("group"), cast("long long", member(var("gridDim"), "x")), "+="),
                         block(loop)));
  std::vector<NodePtr> params = {decl("const " + cT + "*", "input"), decl(cT + "*", "output"), decl("long long", "batch"),
                                 decl("long long", "in_offset"), decl("long long", "in_stride"), decl("long long", "in_dist"),
                                 decl("long long", "out_offset"), decl("long long", "out_stride"), decl("long long", "out_dist")};
  NodePtr fn = function(fmt::format("extern \"C\" __global__ void __launch_bounds__({})", T * F), "", k.kernelName, params, block(body));
  fn = removeDeadCode(foldConstants(fn));
  std::string header = fmt::format(
      "Generated by warpforge from spec '{}' ({}): Stockham {} C2C, length {} = {}, {}.\n"
      "Block: {} threads per FFT x {} FFTs; {} bytes of shared memory. Input and output may alias (in-place).",
      s.name, s.file, s.precision, n, fmt::join(s.factors, " x "), s.sign < 0 ? "forward (exp(-2 pi i ...))" : "inverse (exp(+2 pi i ...))",
      T, F, k.sharedBytes);
  k.source = print(unit({comment(header), raw(""), fn}));
  return k;
}

}  // namespace warpforge
