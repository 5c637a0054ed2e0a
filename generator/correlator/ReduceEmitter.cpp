#include "generator/correlator/ReduceEmitter.h"

#include <fmt/format.h>

#include <algorithm>

#include "generator/complexmma/SaturationCount.h"
#include "ast/Passes.h"
#include "ast/Printer.h"

namespace warpforge {

using namespace ast;

std::vector<NodePtr> reduceParameters(bool f32) {
  return {decl(f32 ? "float* __restrict__" : "long long* __restrict__", "acc"),
          decl(f32 ? "float* __restrict__" : "int* __restrict__", "vis"),
          decl("const unsigned char* __restrict__", "missing"),
          decl("unsigned long long* __restrict__", "saturated"),
          decl("unsigned long long*", "sat_count"),
          decl("unsigned int*", "blocks_done"),
          decl("long long", "batch"),
          decl("int", "dump")};
}

namespace {

// Visibilities per unit: one 16-byte accumulator load (int64: 1; f32: 2 where V is even, so that every batch entry's
// accumulator starts 16-byte aligned, else 1 with 8-byte loads).
int unitVisibilities(const CorrelatorSpec& s) { return !s.integer() && s.visibilities() % 2 == 0 ? 2 : 1; }

}  // namespace

long long reduceSweepVisibilities(const CorrelatorSpec& s, int threads, int unroll) {
  return static_cast<long long>(threads) * unroll * unitVisibilities(s);
}

std::string emitReduce(const CorrelatorSpec& s, const std::string& name, int threads, int unroll) {
  ReduceOptions o;
  o.unroll = unroll;
  return emitReduce(s, name, threads, o);
}

// The reduce kernel: a persistent streaming kernel over units u (1 or 2 complex visibilities: one 16-byte accumulator
// load, except f32 with an odd count) of one accumulator (N of them, the same index in the batch's accumulators b N + u
// and in the output); each block loops over sweeps of threads x U units, consecutive threads on consecutive units:
//   - software-pipelined: each thread issues the next sweep's U 16-byte loads (of the first batch entry) before it
//     decodes, saturates and stores this sweep's, so U loads per thread are in flight while it computes; the grid is
//     the resident blocks (a full wave), so the block's fixed work (the receivers' flags staged once, overlapping the
//     first loads; the saturation count's atomics at the end) is paid once per block, not once per sweep;
//   - the accumulators' resets are stored once their data is in (options: right after the loads);
//   - the missing-receiver test decodes each baseline once: the G = P^2 / W units of a baseline lie on G consecutive
//     lanes, so lane q of such a group decodes the baseline of its unit k = q (+ jG) and a shuffle hands the flag to
//     the others; the decode (float reciprocal square root, one exact correction step each way) and the two flag
//     lookups run only when a receiver of the dump is missing;
//   - branch-free saturation on the 32-bit halves of each int64 sum (in range: the high word is the sign of the low
//     word and the low word is not -2^31);
//   - the saturated count per thread in 32 bits, summed by __reduce_add_sync per warp, one 64-bit atomic per block;
//     the last block (threadfence reduction) writes `saturated` and re-zeroes both counters.
// Bytes moved (batch B, int64): V (B (16 + 16) + 8); f32: V (B (8 + 8) + 8).
std::string emitReduce(const CorrelatorSpec& s, const std::string& name, int threads, const ReduceOptions& opt) {
  const bool f = !s.integer();
  const long long V = s.visibilities();
  const int W = unitVisibilities(s);
  const long long N = V / W;
  const int PP = s.polarizations * s.polarizations;
  const long long B = s.baselines();
  const int U = opt.unroll;
  const long long TU = static_cast<long long>(threads) * U;
  // Units per baseline (PP % W == 0: a unit lies in one baseline), the lanes that share its decode (U a multiple of
  // G: each lane decodes U / G), and the flags per unit (2 where a unit spans two baselines: one polarization, f32).
  const int perBaseline = PP % W == 0 ? PP / W : 0;
  const int G = perBaseline > 1 && U % perBaseline == 0 && 32 % perBaseline == 0 ? perBaseline : 1;
  const int A = perBaseline ? 1 : W;
  const std::string accT = f ? (W == 2 ? "float4" : "float2") : "longlong2";
  const std::string sumT = f ? "float" : "long long";
  const std::string outT = f ? accT : "int2";
  const std::vector<std::string> comps = W == 2 ? std::vector<std::string>{"x", "y", "z", "w"}
                                                : std::vector<std::string>{"x", "y"};
  // 32-bit indices when no visibility index of a sweep (v < V + W threads U) can wrap; the sweep counter in 32 bits
  // when the next sweep's start (below N + sweeps x TU < 2 (N + TU): the stride counts at most the sweeps) cannot.
  const bool narrow = V + W * TU < (1LL << 32);
  const std::string idxT = narrow ? "unsigned" : "unsigned long long";
  const long long sweeps = (N + TU - 1) / TU;
  const std::string sweepT = 2 * (V + W * TU) < (1LL << 32) ? "unsigned" : "unsigned long long";
  // Receiver arithmetic in 32 bits while (r2 + 1)(r2 + 2) fits.
  const std::string rT = s.receivers <= 46000 ? "unsigned" : "unsigned long long";
  const bool sharedFlags = s.receivers <= 16384;
  const std::string flags = sharedFlags ? "wf_flags" : "missing";
  auto uk = [](int k) { return fmt::format("u{}", k); };
  auto zero = [&] {
    std::vector<NodePtr> z;
    for (std::size_t c = 0; c < comps.size(); ++c) z.push_back(f ? flit(0) : lit(0));
    return call("make_" + accT, std::move(z));
  };
  // Unit k of a thread through its pointer `p` at unit 0 (p + k threads: one base register, immediate offsets).
  auto at = [&](const std::string& p, int k) {
    return k == 0 ? var(p) : bin("+", var(p), lit(static_cast<long long>(k) * threads));
  };
  auto inRange = [&](const std::string& u) { return bin("<", var(u), lit(N)); };
  // The U loads of one entry into `x`0.., through `p` (zero where unit `u`k is past the end).
  auto loads = [&](std::vector<NodePtr>& st, const std::string& p, const std::string& x, const std::string& u) {
    for (int k = 0; k < U; ++k) {
      const std::string xk = x + std::to_string(k), u_k = u + std::to_string(k);
      st.push_back(assign(var(xk), zero()));
      st.push_back(ifStmt(inRange(u_k), block({assign(var(xk), call("__ldcs", {at(p, k)}))})));
    }
  };
  auto resets = [&](std::vector<NodePtr>& st, const std::string& p, const std::string& u) {
    for (int k = 0; k < U; ++k)
      st.push_back(ifStmt(inRange(u + std::to_string(k)), block({exprStmt(call("__stcs", {at(p, k), zero()}))})));
  };
  // Entry 0's pointer at unit `u`0.
  auto entry0 = [&](const std::string& p, const std::string& u) {
    return decl(accT + "*", p, bin("+", cast(accT + "*", var("acc")), var(u + "0")));
  };
  // The units of the sweep starting at `start` (64-bit, below N): `u`k = start + threadIdx.x + k threads.
  auto units = [&](std::vector<NodePtr>& st, const std::string& u, NodePtr start) {
    for (int k = 0; k < U; ++k)
      st.push_back(decl("const " + idxT, u + std::to_string(k),
                        k == 0 ? bin("+", cast(idxT, std::move(start)), var("threadIdx.x"))
                               : bin("+", var(u + "0"), lit(static_cast<long long>(k) * threads))));
  };

  std::vector<NodePtr> body;
  body.push_back(ifStmt(unary("!", var("dump")), block({ret()})));
  if (sharedFlags)
    body.push_back(sharedArray("unsigned char", "wf_flags", static_cast<int>((s.receivers + 15) / 16 * 16)));
  body.push_back(sharedArray("unsigned int", "wf_part", threads / 32));
  // Blocks past the first accumulator's sweeps (a grid larger than them: the batch's share) only count themselves for
  // the last-block publication, and leave.
  body.push_back(
      ifStmt(bin(">=", bin("*", cast("unsigned long long", var("blockIdx.x")), lit(TU)), lit(N)),
             block({ifStmt(bin("==", var("threadIdx.x"), lit(0)), block(cmma::publishSaturationCount("wf_part", 0))),
                    ret()})));
  body.push_back(decl("unsigned int", "count", lit(0)));
  // The stride: the blocks that have a sweep (a larger grid: the batch's share leaves at once).
  body.push_back(
      decl("const " + sweepT, "step", bin("*", cast(sweepT, call("min", {var("gridDim.x"), ulit(sweeps)})), lit(TU))));
  body.push_back(decl("const " + sweepT, "first", bin("*", cast(sweepT, var("blockIdx.x")), lit(TU))));
  // The first sweep's loads (entry 0), then the receivers' flags staged while they fly.
  for (int k = 0; k < U; ++k) body.push_back(decl(accT, fmt::format("x{}", k)));
  {
    std::vector<NodePtr> st;
    units(st, "n", var("first"));
    st.push_back(entry0("pn", "n"));
    loads(st, "pn", "x", "n");
    if (opt.resetWithLoads) resets(st, "pn", "n");
    body.push_back(block(st));
  }
  {
    std::vector<NodePtr> st;
    st.push_back(decl("const unsigned char", "m", call("__ldg", {bin("+", var("missing"), var("r"))})));
    if (sharedFlags) st.push_back(assign(index(var("wf_flags"), var("r")), var("m")));
    st.push_back(assign(var("any"), var("m"), "|="));
    body.push_back(decl("int", "any", lit(0)));
    body.push_back(forLoop(decl("int", "r", var("threadIdx.x")), bin("<", var("r"), lit(s.receivers)),
                           assign(var("r"), lit(threads), "+="), block(st)));
    body.push_back(decl("const int", "anyMissing", call("__syncthreads_or", {var("any")})));
  }

  std::vector<NodePtr> sweep;
  units(sweep, "u", var("sweep"));
  sweep.push_back(entry0("p", "u"));
  // The sums start from entry 0 (the loads issued one sweep earlier).
  auto sum = [&](int k, std::size_t c) { return fmt::format("s{}{}", k, comps[c]); };
  for (int k = 0; k < U; ++k)
    for (std::size_t c = 0; c < comps.size(); ++c)
      sweep.push_back(decl(sumT, sum(k, c), member(var(fmt::format("x{}", k)), comps[c])));
  {
    // Later batch entries: not unrolled (unrolling over the batch only raised the registers, so fewer resident
    // threads).
    std::vector<NodePtr> st;
    st.push_back(decl(accT + "*", "a", bin("+", var("p"), bin("*", var("b"), lit(N)))));
    for (int k = 0; k < U; ++k) st.push_back(decl(accT, fmt::format("y{}", k)));
    loads(st, "a", "y", "u");
    if (opt.resetWithLoads) resets(st, "a", "u");
    for (int k = 0; k < U; ++k)
      for (std::size_t c = 0; c < comps.size(); ++c)
        st.push_back(assign(var(sum(k, c)), member(var(fmt::format("y{}", k)), comps[c]), "+="));
    if (!opt.resetWithLoads) resets(st, "a", "u");
    sweep.push_back(raw("#pragma unroll 1"));
    sweep.push_back(forLoop(decl("long long", "b", lit(1)), bin("<", var("b"), var("batch")),
                            assign(var("b"), lit(1), "+="), block(st)));
  }
  // The next sweep's loads of entry 0 (block-uniform condition).
  std::vector<NodePtr> next;
  {
    std::vector<NodePtr> st;
    units(st, "n", var("nextSweep"));
    st.push_back(entry0("pn", "n"));
    loads(st, "pn", "x", "n");
    if (opt.resetWithLoads) resets(st, "pn", "n");
    next.push_back(decl("const " + sweepT, "nextSweep", bin("+", var("sweep"), var("step"))));
    next.push_back(ifStmt(bin("<", var("nextSweep"), lit(N)), block(st)));
  }
  if (opt.prefetch)
    for (NodePtr& n : next) sweep.push_back(n);
  if (!opt.resetWithLoads) resets(sweep, "p", "u");

  // The missing test: absent_k(_w) = a receiver of the baseline of unit k (its visibility w) is flagged.
  auto absent = [&](int k, int w) { return A == 1 ? fmt::format("absent{}", k) : fmt::format("absent{}_{}", k, w); };
  for (int k = 0; k < U; ++k)
    for (int w = 0; w < A; ++w) sweep.push_back(decl("int", absent(k, w), lit(0)));
  {
    std::vector<NodePtr> dec;
    // One decode: the baseline of `unitsExpr` (a visibility index divided by P^2, as units), flag into `target`.
    int site = 0;
    auto decode = [&](NodePtr baselineNumerator) {
      const std::string J = std::to_string(site++);
      return cast("int", reduceBaselineDecode(dec, J, std::move(baselineNumerator), rT, idxT, B, flags));
    };
    // A unit's baseline numerator: units per baseline divide it (a shift for powers of two).
    auto perUnit = [&](NodePtr u) {
      return perBaseline == 1
                 ? std::move(u)
                 : bin((perBaseline & (perBaseline - 1)) == 0 ? ">>" : "/", std::move(u),
                       lit((perBaseline & (perBaseline - 1)) == 0 ? __builtin_ctz(perBaseline) : perBaseline));
    };
    if (G > 1) {
      dec.push_back(decl("const unsigned", "q", bin("&", var("threadIdx.x"), lit(G - 1))));
      for (int j = 0; j < U / G; ++j) {
        // This lane's unit k = q + j G: the baseline of unit k of every lane of the group.
        NodePtr m = decode(perUnit(bin("+", var("u0"), bin("*", bin("+", var("q"), lit(j * G)), lit(threads)))));
        dec.push_back(decl("const int", fmt::format("m{}", j), std::move(m)));
      }
      // Lane (group base + k mod G) decoded unit k's baseline.
      for (int k = 0; k < U; ++k)
        dec.push_back(assign(var(absent(k, 0)),
                             call("__shfl_sync",
                                  {var("0xffffffffu"), var(fmt::format("m{}", k / G)),
                                   cast("int", bin("|", bin("&", var("threadIdx.x"), lit(32 - G)), lit(k % G)))})));
    } else {
      for (int k = 0; k < U; ++k)
        for (int w = 0; w < A; ++w) {
          NodePtr v = A == 1 ? perUnit(var(uk(k))) : bin("+", bin("*", var(uk(k)), lit(W)), lit(w));
          dec.push_back(assign(var(absent(k, w)), decode(std::move(v))));
        }
    }
    sweep.push_back(ifStmt(var("anyMissing"), block(dec)));
  }
  // Saturate, mark, count and store.
  sweep.push_back(decl(outT + "*", "out", bin("+", cast(outT + "*", var("vis")), var("u0"))));
  for (int k = 0; k < U; ++k) {
    std::vector<NodePtr> one, out;
    for (int w = 0; w < W; ++w) {
      const std::string re = sum(k, 2 * w), im = sum(k, 2 * w + 1), ab = absent(k, A == 1 ? 0 : w);
      NodePtr over;
      if (f) {
        NodePtr nan = call("__int_as_float", {lit(0x7fc00000)});
        out.push_back(ternary(var(ab), nan, var(re)));
        out.push_back(ternary(var(ab), call("__int_as_float", {lit(0x7fc00000)}), var(im)));
        over = bin("||", call("isinf", {var(re)}), call("isinf", {var(im)}));
      } else {
        for (const std::string& c : {re, im}) {
          one.push_back(decl("const int", c + "Lo", cast("int", var(c))));
          one.push_back(decl("const int", c + "Hi", cast("int", bin(">>", var(c), lit(32)))));
          one.push_back(decl("const bool", c + "In",
                             bin("&&", bin("==", var(c + "Hi"), bin(">>", var(c + "Lo"), lit(31))),
                                 bin("!=", var(c + "Lo"), cast("int", var("0x80000000u"))))));
          out.push_back(ternary(var(ab), cast("int", var("0x80000000u")),
                                ternary(var(c + "In"), var(c + "Lo"),
                                        ternary(bin("<", var(c + "Hi"), lit(0)), lit(-2147483647), lit(2147483647)))));
        }
        over = unary("!", bin("&&", var(re + "In"), var(im + "In")));
      }
      one.push_back(
          assign(var("count"), ternary(bin("&&", unary("!", var(ab)), std::move(over)), ulit(1), ulit(0)), "+="));
    }
    one.push_back(exprStmt(call("__stcs", {at("out", k), call("make_" + outT, std::move(out))})));
    sweep.push_back(ifStmt(inRange(uk(k)), block(one)));
  }
  if (!opt.prefetch)
    for (NodePtr& n : next) sweep.push_back(n);
  // Sweeps are block-uniform (the shuffles need every lane of the warp).
  body.push_back(forLoop(decl(sweepT, "sweep", var("first")), bin("<", var("sweep"), lit(N)),
                         assign(var("sweep"), var("step"), "+="), block(sweep)));
  // Saturated count: warp sums, one atomic per block; the last block publishes and re-zeroes.
  body.push_back(assign(var("count"), call("__reduce_add_sync", {var("0xffffffffu"), var("count")})));
  body.push_back(ifStmt(bin("==", bin("&", var("threadIdx.x"), lit(31)), lit(0)),
                        block({assign(index(var("wf_part"), bin(">>", var("threadIdx.x"), lit(5))), var("count"))})));
  body.push_back(exprStmt(call("__syncthreads", {})));
  body.push_back(
      ifStmt(bin("==", var("threadIdx.x"), lit(0)), block(cmma::publishSaturationCount("wf_part", threads / 32))));

  // (threads, 4) at U = 4: at most 64 registers (two sets of U 16-byte values: the sums and the next loads), 1024
  // resident threads per SM with 4 independent 16-byte loads each (64 KiB per SM in flight); more units per thread:
  // proportionally fewer blocks (the same loads in flight); fewer: the same blocks (at 32 registers they spill).
  NodePtr fn = function(fmt::format("extern \"C\" __global__ void __launch_bounds__({}, {})", threads,
                                    std::clamp(kReduceMinBlocks * kReduceUnroll / U, 1, kReduceMinBlocks)),
                        "", name, reduceParameters(f), block(body));
  return fmt::format(
             "// {}: sums the batch's {} accumulators of {} visibilities, saturates to {}, resets them; generated by "
             "warpforge\n"
             "// persistent streaming: {} units of {} visibilities per thread and sweep, the next sweep's loads issued "
             "{}; resets {}; {}-bit indices; missing flags {}, one baseline decode per {} units\n",
             name, f ? "f32" : "int64", V, f ? "f32" : "int32 (+-(2^31 - 1); -2^31 marks missing receivers)", U, W,
             opt.prefetch ? "before this sweep's stores" : "after this sweep's stores",
             opt.resetWithLoads ? "with the loads" : "once the data is in", narrow ? 32 : 64,
             sharedFlags ? "in shared memory" : "from global memory", G) +
         print(foldConstants(fn));
}

long long reduceBytes(const CorrelatorSpec& s, long long batch) {
  return s.visibilities() * (s.integer() ? batch * 32 + 8 : batch * 16 + 8);
}

NodePtr reduceBaselineDecode(std::vector<NodePtr>& out, const std::string& J, NodePtr numerator, const std::string& rT,
                             const std::string& idxT, long long B, const std::string& flags) {
  out.push_back(decl("const " + rT, "bl" + J, cast(rT, bin("%", std::move(numerator), cast(idxT, lit(B))))));
  // The float estimate (MUFU.RSQ's relative error ~2^-22.9, sqrt(8 bl + 1) below 2^15 for R <= 16384) is within one
  // of r2, so one correction step each way makes it exact (ReduceBaselineDecodeIsExactUnderTheRsqrtError).
  out.push_back(decl("const float", "xq" + J, bin("+", bin("*", flit(8.0), cast("float", var("bl" + J))), flit(1.0))));
  out.push_back(decl(rT, "r2" + J,
                     cast(rT, bin("*", bin("-", bin("*", var("xq" + J), call("rsqrtf", {var("xq" + J)})), flit(1.0)),
                                  flit(0.5)))));
  NodePtr tri = bin("/", bin("*", var("r2" + J), bin("+", var("r2" + J), lit(1))), lit(2));
  out.push_back(assign(var("r2" + J), cast(rT, bin(">", tri, var("bl" + J))), "-="));
  NodePtr nextRow = bin("/", bin("*", bin("+", var("r2" + J), lit(1)), bin("+", var("r2" + J), lit(2))), lit(2));
  out.push_back(assign(var("r2" + J), cast(rT, bin("<=", nextRow, var("bl" + J))), "+="));
  out.push_back(
      decl("const " + rT, "r1" + J,
           bin("-", var("bl" + J), bin("/", bin("*", var("r2" + J), bin("+", var("r2" + J), lit(1))), lit(2)))));
  return bin("!=", bin("|", index(var(flags), var("r1" + J)), index(var(flags), var("r2" + J))), lit(0));
}

}  // namespace warpforge
