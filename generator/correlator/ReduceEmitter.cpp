#include "generator/correlator/ReduceEmitter.h"

#include <fmt/format.h>

#include "ast/Passes.h"
#include "ast/Printer.h"

namespace warpforge {

using namespace ast;

// One thread per visibility (grid-stride): the batch's accumulators summed (and reset to zero),
// the receivers' missing flags, saturation to +-(2^31 - 1) (-2^31 is the missing marker), a count of
// saturated visibilities: per block in shared memory, per grid in the counter; the last block to
// finish writes it to `saturated` and re-zeroes both counters (threadfence reduction).
std::string emitReduce(const CorrelatorSpec& s, const std::string& name, int threads) {
  const bool f = !s.integer();
  const long long V = s.visibilities();
  const long long PP = static_cast<long long>(s.polarizations) * s.polarizations;
  const std::string accT = f ? "float2" : "longlong2";
  // One thread per (channel, baseline): the receivers are decoded once for its P^2 visibilities.
  std::vector<NodePtr> loop;
  loop.push_back(decl("const long long", "bl", bin("%", var("u"), lit(s.baselines()))));
  // r2 from an approximate square root (MUFU.RSQ: no call, no stack), then made exact by the two loops.
  loop.push_back(decl("const float", "xq", bin("+", bin("*", flit(8.0), cast("float", var("bl"))), flit(1.0))));
  loop.push_back(decl("long long", "r2", cast("long long", bin("*", bin("-", bin("*", var("xq"), call("rsqrtf", {var("xq")})), flit(1.0)), flit(0.5)))));
  loop.push_back(raw("while (r2 * (r2 + 1) / 2 > bl) --r2;"));
  loop.push_back(raw("while ((r2 + 1) * (r2 + 2) / 2 <= bl) ++r2;"));
  loop.push_back(decl("const long long", "r1", bin("-", var("bl"), bin("/", bin("*", var("r2"), bin("+", var("r2"), lit(1))), lit(2)))));
  loop.push_back(decl("const bool", "absent", bin("||", bin("!=", index(var("missing"), var("r1")), lit(0)), bin("!=", index(var("missing"), var("r2")), lit(0)))));
  const std::string outT = f ? "float2" : "int2";
  for (long long pq = 0; pq < PP; ++pq) {
    std::vector<NodePtr> one;
    one.push_back(decl("const long long", "v", bin("+", bin("*", var("u"), lit(PP)), lit(pq))));
    one.push_back(decl(f ? "float" : "long long", "re", f ? flit(0) : lit(0)));
    one.push_back(decl(f ? "float" : "long long", "im", f ? flit(0) : lit(0)));
    one.push_back(forLoop(decl("long long", "b", lit(0)), bin("<", var("b"), var("batch")), assign(var("b"), lit(1), "+="),
                          block({decl(accT + "*", "a", bin("+", bin("+", cast(accT + "*", var("acc")), bin("*", var("b"), lit(V))), var("v"))),
                                 decl("const " + accT, "x", index(var("a"), lit(0))),
                                 assign(var("re"), member(var("x"), "x"), "+="),
                                 assign(var("im"), member(var("x"), "y"), "+="),
                                 assign(index(var("a"), lit(0)), call(f ? "make_float2" : "make_longlong2", {f ? flit(0) : lit(0), f ? flit(0) : lit(0)}))})));
    std::vector<NodePtr> present;
    if (f) {
      present.push_back(assign(var("o"), call("make_float2", {var("re"), var("im")})));
      present.push_back(raw("count += (isinf(re) || isinf(im)) ? 1ull : 0ull;"));
    } else {
      present.push_back(raw("const bool clamped = re > 2147483647LL || re < -2147483647LL || im > 2147483647LL || im < -2147483647LL;"));
      present.push_back(raw("o = make_int2((int)max(-2147483647LL, min(2147483647LL, re)), (int)max(-2147483647LL, min(2147483647LL, im)));"));
      present.push_back(raw("count += clamped ? 1ull : 0ull;"));
    }
    one.push_back(decl(outT, "o"));
    NodePtr marker = f ? call("make_float2", {call("__int_as_float", {lit(0x7fc00000)}), call("__int_as_float", {lit(0x7fc00000)})})
                       : call("make_int2", {cast("int", var("0x80000000u")), cast("int", var("0x80000000u"))});
    one.push_back(ifStmt(var("absent"), block({assign(var("o"), marker)}), block(present)));
    one.push_back(assign(index(cast(outT + "*", var("vis")), var("v")), var("o")));
    loop.push_back(block(one));
  }

  std::vector<NodePtr> body;
  body.push_back(raw("if (!dump) return;"));
  body.push_back(decl("unsigned long long", "count", lit(0)));
  body.push_back(forLoop(decl("long long", "u", bin("+", bin("*", cast("long long", var("blockIdx.x")), var("blockDim.x")), var("threadIdx.x"))),
                         bin("<", var("u"), lit(V / PP)), assign(var("u"), bin("*", cast("long long", var("gridDim.x")), var("blockDim.x")), "+="), block(loop)));
  body.push_back(raw("#pragma unroll"));
  body.push_back(raw("for (int o = 16; o > 0; o >>= 1) count += __shfl_down_sync(0xffffffffu, count, o);"));
  body.push_back(raw(fmt::format("__shared__ unsigned long long part[{}];", threads / 32)));
  body.push_back(raw("if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = count;"));
  body.push_back(raw("__syncthreads();"));
  std::vector<NodePtr> last;
  last.push_back(raw("unsigned long long total = 0;"));
  last.push_back(raw(fmt::format("for (int i = 0; i < {}; ++i) total += part[i];", threads / 32)));
  last.push_back(raw("if (total) atomicAdd(sat_count, total);"));
  last.push_back(raw("__threadfence();"));
  last.push_back(raw("if (atomicAdd(blocks_done, 1u) == gridDim.x - 1) {"));
  last.push_back(raw("  __threadfence();"));
  last.push_back(raw("  saturated[0] = atomicExch(sat_count, 0ull);"));
  last.push_back(raw("  atomicExch(blocks_done, 0u);"));
  last.push_back(raw("}"));
  body.push_back(ifStmt(bin("==", var("threadIdx.x"), lit(0)), block(last)));

  const std::string accP = f ? "float* __restrict__" : "long long* __restrict__";
  // (threads, 2): with (threads) alone ptxas 13.0 picked 32 registers and spilled 8 bytes for some sizes.
  NodePtr fn = function(fmt::format("extern \"C\" __global__ void __launch_bounds__({}, 2)", threads), "", name,
                        {decl(accP, "acc"), decl(f ? "float* __restrict__" : "int* __restrict__", "vis"), decl("const unsigned char* __restrict__", "missing"),
                         decl("unsigned long long* __restrict__", "saturated"), decl("unsigned long long*", "sat_count"),
                         decl("unsigned int*", "blocks_done"), decl("long long", "batch"), decl("int", "dump")},
                        block(body));
  return fmt::format("// {}: sums the batch's {} accumulators of {} visibilities, saturates to {}, resets them; generated by warpforge\n", name,
                     f ? "f32" : "int64", V, f ? "f32" : "int32 (+-(2^31 - 1); -2^31 marks missing receivers)") +
         print(foldConstants(fn));
}

}  // namespace warpforge
