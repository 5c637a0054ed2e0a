#include "generator/correlator/ReduceEmitter.h"

#include <fmt/format.h>

#include "generator/complexmma/SaturationCount.h"
#include "ast/Passes.h"
#include "ast/Printer.h"

namespace warpforge {

using namespace ast;

// The kernel before the previous one (a bench variant beside emitReduce's): a streaming kernel over the complex
// visibilities v of one accumulator (V of them, the same index in the batch's accumulators b * V + v and in the
// output):
//   - consecutive threads on consecutive visibilities: one 16-byte load (longlong2; f32: float2, 8 bytes) per
//     visibility and accumulator, coalesced; U visibilities per thread and sweep (independent loads
//     in flight), grid-stride over sweeps (the grid is capped at the resident blocks by the plan);
//   - 32-bit element indices when V allows (no 64-bit division anywhere); the baseline of v is
//     (v / P^2) % baselines (a shift and a division by a constant: a multiply-high), decoded to (r1, r2)
//     with a float square root and an exact integer correction, and only when some receiver is missing
//     (block-uniform flag from the receivers' flags staged in shared memory);
//   - the saturated count per thread in 32 bits, summed by __reduce_add_sync per warp, one 64-bit atomic
//     per block; the last block (threadfence reduction) writes `saturated` and re-zeroes both counters.
// Bytes moved (batch B, int64): V (B (16 + 16) + 8); f32: V (B (8 + 8) + 8).
std::string emitReducePrevious(const CorrelatorSpec& s, const std::string& name, int threads, int unroll,
                               bool decodeFirst) {
  const bool f = !s.integer();
  const long long V = s.visibilities();
  const long long PP = static_cast<long long>(s.polarizations) * s.polarizations;
  const long long B = s.baselines();
  const int U = unroll;
  const std::string accT = f ? "float2" : "longlong2";
  const std::string sumT = f ? "float" : "long long";
  const std::string outT = f ? "float2" : "int2";
  // 32-bit indices when no index of a sweep (v < V + threads * U) can wrap.
  const bool narrow = V + static_cast<long long>(threads) * U < (1LL << 32);
  const std::string idxT = narrow ? "unsigned" : "unsigned long long";
  // Receiver arithmetic in 32 bits while (r2 + 1)(r2 + 2) fits.
  const std::string rT = s.receivers <= 46000 ? "unsigned" : "unsigned long long";
  const bool sharedFlags = s.receivers <= 16384;
  const std::string flags = sharedFlags ? "wf_flags" : "missing";

  std::vector<NodePtr> body;
  body.push_back(ifUnbraced(unary("!", var("dump")), ret()));
  if (sharedFlags) body.push_back(sharedArray("unsigned char", "wf_flags", (s.receivers + 15) / 16 * 16));
  body.push_back(sharedArray("unsigned int", "wf_part", threads / 32));
  // The grid is one block per sweep of the first accumulator and scales with the batch (the batch loop is inside):
  // blocks past the visibilities only count themselves for the last-block publication, and leave.
  body.push_back(ifStmt(
      bin(">=", bin("*", cast("unsigned long long", var("blockIdx.x")), lit(static_cast<long long>(threads) * U)),
          lit(V)),
      block(
          {ifStmt(bin("==", var("threadIdx.x"), lit(0)), block(cmma::publishSaturationCount("wf_part", 0))), ret()})));
  // The receivers' flags: staged once per block; anyMissing is uniform over the block.
  body.push_back(decl("int", "any", lit(0)));
  {
    std::vector<NodePtr> st;
    st.push_back(decl("const unsigned char", "m", call("__ldg", {bin("+", var("missing"), var("r"))})));
    if (sharedFlags) st.push_back(assign(index(var("wf_flags"), var("r")), var("m")));
    st.push_back(assign(var("any"), var("m"), "|="));
    body.push_back(forLoop(decl("int", "r", var("threadIdx.x")), bin("<", var("r"), lit(s.receivers)),
                           assign(var("r"), lit(threads), "+="), block(st)));
  }
  body.push_back(decl("const int", "anyMissing", call("__syncthreads_or", {var("any")})));
  body.push_back(decl("unsigned int", "count", lit(0)));

  // baseline of visibility v -> (r1, r2) -> `target` = one of them is missing: r2 = floor((sqrt(8 bl + 1) - 1) / 2)
  // from MUFU.RSQ, made exact by the two loops. Only where a receiver of the block's flags is missing.
  auto decode = [&](const std::string& v, const std::string& target) {
    std::vector<NodePtr> dec;
    NodePtr u = PP == 4 ? bin(">>", var(v), lit(2)) : var(v);
    dec.push_back(decl(fmt::format("const {}", rT), "bl", cast(rT, bin("%", u, cast(idxT, lit(B))))));
    dec.push_back(decl("const float", "xq", bin("+", bin("*", flit(8.0), cast("float", var("bl"))), flit(1.0))));
    dec.push_back(
        decl(rT, "r2",
             cast(rT, bin("*", bin("-", bin("*", var("xq"), call("rsqrtf", {var("xq")})), flit(1.0)), flit(0.5)))));
    dec.push_back(whileUnbraced(bin(">", bin("/", bin("*", var("r2"), bin("+", var("r2"), lit(1))), lit(2)), var("bl")),
                                exprStmt(unary("--", var("r2")))));
    dec.push_back(
        whileUnbraced(bin("<=", bin("/", bin("*", bin("+", var("r2"), lit(1)), bin("+", var("r2"), lit(2))), lit(2)),
                          var("bl")),
                      exprStmt(unary("++", var("r2")))));
    dec.push_back(decl(fmt::format("const {}", rT), "r1",
                       bin("-", var("bl"), bin("/", bin("*", var("r2"), bin("+", var("r2"), lit(1))), lit(2)))));
    dec.push_back(assign(var(target), bin("||", bin("!=", index(var(flags), var("r1")), lit(0)),
                                          bin("!=", index(var(flags), var("r2")), lit(0)))));
    return ifStmt(var("anyMissing"), block(dec));
  };
  std::vector<NodePtr> sweep;
  for (int k = 0; k < U; ++k) {
    sweep.push_back(
        decl(fmt::format("const {}", idxT), fmt::format("v{}", k),
             k == 0 ? cast(idxT, var("base")) : bin("+", var("v0"), lit(static_cast<long long>(k) * threads))));
    sweep.push_back(decl(sumT, fmt::format("re{}", k), f ? flit(0) : lit(0)));
    sweep.push_back(decl(sumT, fmt::format("im{}", k), f ? flit(0) : lit(0)));
  }
  {
    // Per accumulator: the U loads (streaming, evict-first: no reuse), then the U resets. Batch entry 0 outside the
    // loop: with the common batch of 1 the U loads of a sweep are issued back to back.
    auto entry = [&](bool first) {
      std::vector<NodePtr> bl;
      bl.push_back(decl(accT + "*", "a",
                        first ? cast(accT + "*", var("acc"))
                              : bin("+", cast(accT + "*", var("acc")), bin("*", var("b"), lit(V)))));
      for (int k = 0; k < U; ++k) {
        const std::string v = fmt::format("v{}", k);
        NodePtr x = call("__ldcs", {bin("+", var("a"), var(v))});
        std::vector<NodePtr> ld{decl("const " + accT, "x", x),
                                assign(var(fmt::format("re{}", k)), member(var("x"), "x"), "+="),
                                assign(var(fmt::format("im{}", k)), member(var("x"), "y"), "+=")};
        bl.push_back(k == 0 ? block(ld) : ifStmt(bin("<", var(v), lit(V)), block(ld)));
      }
      for (int k = 0; k < U; ++k) {
        const std::string v = fmt::format("v{}", k);
        NodePtr z = exprStmt(
            call("__stcs", {bin("+", var("a"), var(v)),
                            call(f ? "make_float2" : "make_longlong2", {f ? flit(0) : lit(0), f ? flit(0) : lit(0)})}));
        bl.push_back(k == 0 ? z : ifStmt(bin("<", var(v), lit(V)), z));
      }
      return bl;
    };
    sweep.push_back(block(entry(true)));
    // decodeFirst: the U decodes depend on the indices alone; here they run while the first entry's loads are in
    // flight.
    if (decodeFirst)
      for (int k = 0; k < U; ++k) {
        sweep.push_back(decl("bool", fmt::format("absent{}", k), var("false")));
        sweep.push_back(decode(fmt::format("v{}", k), fmt::format("absent{}", k)));
      }
    // Not unrolled: unrolling over the batch only raised the registers (92 on sm_90) and so lowered the resident
    // threads.
    sweep.push_back(raw("#pragma unroll 1"));
    sweep.push_back(forLoop(decl("long long", "b", lit(1)), bin("<", var("b"), var("batch")),
                            assign(var("b"), lit(1), "+="), block(entry(false))));
  }
  for (int k = 0; k < U; ++k) {
    const std::string v = fmt::format("v{}", k), re = fmt::format("re{}", k), im = fmt::format("im{}", k);
    std::vector<NodePtr> one;
    one.push_back(decl("bool", "absent", decodeFirst ? var(fmt::format("absent{}", k)) : var("false")));
    if (!decodeFirst) one.push_back(decode(v, "absent"));
    std::vector<NodePtr> present;
    if (f) {
      present.push_back(assign(var("o"), call("make_float2", {var(re), var(im)})));
      present.push_back(
          assign(var("count"),
                 ternary(paren(bin("||", call("isinf", {var(re)}), call("isinf", {var(im)}))), ulit(1), ulit(0)),
                 "+="));
    } else {
      // +-(2^31 - 1), spelled 2147483647LL.
      auto top = [] { return decimal(2147483647, IntSuffix::UpperLL); };
      auto bottom = [] { return decimal(-2147483647, IntSuffix::UpperLL); };
      NodePtr clamped = bin("||", bin(">", var(re), top()), bin("<", var(re), bottom()));
      clamped = bin("||", bin("||", clamped, bin(">", var(im), top())), bin("<", var(im), bottom()));
      present.push_back(decl("const bool", "clamped", clamped));
      auto clamp = [&](const std::string& x) {
        return cast("int", call("max", {bottom(), call("min", {top(), var(x)})}));
      };
      present.push_back(assign(var("o"), call("make_int2", {clamp(re), clamp(im)})));
      present.push_back(assign(var("count"), ternary(var("clamped"), ulit(1), ulit(0)), "+="));
    }
    one.push_back(decl(outT, "o"));
    NodePtr marker = f ? call("make_float2",
                              {call("__int_as_float", {lit(0x7fc00000)}), call("__int_as_float", {lit(0x7fc00000)})})
                       : call("make_int2", {cast("int", var("0x80000000u")), cast("int", var("0x80000000u"))});
    one.push_back(ifStmt(var("absent"), block({assign(var("o"), marker)}), block(present)));
    one.push_back(exprStmt(call("__stcs", {bin("+", cast(outT + "*", var("vis")), var(v)), var("o")})));
    sweep.push_back(k == 0 ? block(one) : ifStmt(bin("<", var(v), lit(V)), block(one)));
  }
  body.push_back(forLoop(
      decl("unsigned long long", "base",
           bin("+", bin("*", cast("unsigned long long", var("blockIdx.x")), lit(static_cast<long long>(threads) * U)),
               var("threadIdx.x"))),
      bin("<", var("base"), lit(V)),
      assign(var("base"),
             bin("*", cast("unsigned long long", var("gridDim.x")), lit(static_cast<long long>(threads) * U)), "+="),
      block(sweep)));
  // Saturated count: warp sums, one atomic per block; the last block publishes and re-zeroes.
  body.push_back(assign(var("count"), call("__reduce_add_sync", {var("0xffffffffu"), var("count")})));
  body.push_back(ifUnbraced(bin("==", bin("&", var("threadIdx.x"), lit(31)), lit(0)),
                            assign(index(var("wf_part"), bin(">>", var("threadIdx.x"), lit(5))), var("count"))));
  body.push_back(exprStmt(call("__syncthreads", {})));
  body.push_back(
      ifStmt(bin("==", var("threadIdx.x"), lit(0)), block(cmma::publishSaturationCount("wf_part", threads / 32))));

  // (threads, 4): at most 64 registers, >= 1024 resident threads per SM with U independent 16-byte loads each
  // (>= 64 KiB per SM in flight).
  NodePtr fn = function(fmt::format("extern \"C\" __global__ void __launch_bounds__({}, 4)", threads), "", name,
                        reduceParameters(f), block(body));
  return fmt::format(
             "// {}: sums the batch's {} accumulators of {} visibilities, saturates to {}, resets them; generated by "
             "warpforge\n"
             "// streaming: {} visibilities per thread and sweep, {}-bit indices, missing flags {}{}\n",
             name, f ? "f32" : "int64", V, f ? "f32" : "int32 (+-(2^31 - 1); -2^31 marks missing receivers)", U,
             narrow ? 32 : 64, sharedFlags ? "in shared memory" : "from global memory",
             decodeFirst ? ", decoded while the loads are in flight" : "") +
         print(foldConstants(fn));
}

// The previous reduce kernel (a bench variant beside emitReduce's): a streaming kernel over the complex visibilities v
// of one accumulator (V of them, the same index in the batch's accumulators b * V + v and in the output), one block per
// sweep of threads x U visibilities:
//   - each thread issues its U 16-byte loads (longlong2; f32: float2, 8 bytes) and their resets first, consecutive
//     threads on consecutive visibilities (coalesced), so U loads per thread are in flight before any use; the
//     receivers' flags are staged into shared memory while they fly (the previous kernel read them before its loads);
//   - the missing-receiver test decodes each baseline once: with two polarizations the 4 products of a baseline lie on
//     4 consecutive lanes, so lane q of such a group decodes the baseline of its visibility k = q (the group's baseline
//     there) and a shuffle hands the flag to the other lanes; the decode (float reciprocal square root, one exact
//     correction step each way) and the two flag lookups run only when a receiver of the dump is missing;
//   - branch-free saturation on the 32-bit halves of each int64 sum (in range: the high word is the sign of the low
//     word and the low word is not -2^31);
//   - the saturated count per thread in 32 bits, summed by __reduce_add_sync per warp, one 64-bit atomic per block;
//     the last block (threadfence reduction) writes `saturated` and re-zeroes both counters.
// Bytes moved (batch B, int64): V (B (16 + 16) + 8); f32: V (B (8 + 8) + 8).
std::string emitReduceOneBlockPerSweep(const CorrelatorSpec& s, const std::string& name, int threads, int unroll) {
  const bool f = !s.integer();
  const long long V = s.visibilities();
  const int PP = s.polarizations * s.polarizations;
  const long long B = s.baselines();
  const int U = unroll;
  const long long TU = static_cast<long long>(threads) * U;
  // Lanes of one baseline that share its decode (G consecutive lanes; U a multiple of G: each lane decodes U / G).
  const int G = PP > 1 && U % PP == 0 && 32 % PP == 0 ? PP : 1;
  const std::string accT = f ? "float2" : "longlong2";
  const std::string sumT = f ? "float" : "long long";
  const std::string outT = f ? "float2" : "int2";
  // 32-bit indices when no index of a sweep (v < V + threads * U) can wrap.
  const bool narrow = V + TU < (1LL << 32);
  const std::string idxT = narrow ? "unsigned" : "unsigned long long";
  // Receiver arithmetic in 32 bits while (r2 + 1)(r2 + 2) fits.
  const std::string rT = s.receivers <= 46000 ? "unsigned" : "unsigned long long";
  const bool sharedFlags = s.receivers <= 16384;
  const std::string flags = sharedFlags ? "wf_flags" : "missing";
  auto vk = [](int k) { return fmt::format("v{}", k); };
  auto zero = [&] { return call(f ? "make_float2" : "make_longlong2", {f ? flit(0) : lit(0), f ? flit(0) : lit(0)}); };

  std::vector<NodePtr> body;
  body.push_back(ifStmt(unary("!", var("dump")), block({ret()})));
  if (sharedFlags)
    body.push_back(sharedArray("unsigned char", "wf_flags", static_cast<int>((s.receivers + 15) / 16 * 16)));
  body.push_back(sharedArray("unsigned int", "wf_part", threads / 32));
  // The grid is one block per sweep of the first accumulator and scales with the batch (the batch loop is inside):
  // blocks past the visibilities only count themselves for the last-block publication, and leave.
  body.push_back(
      ifStmt(bin(">=", bin("*", cast("unsigned long long", var("blockIdx.x")), lit(TU)), lit(V)),
             block({ifStmt(bin("==", var("threadIdx.x"), lit(0)), block(cmma::publishSaturationCount("wf_part", 0))),
                    ret()})));
  body.push_back(decl("unsigned int", "count", lit(0)));
  // -1 until the first sweep has staged the flags; then whether any receiver is missing (uniform over the block).
  body.push_back(decl("int", "anyMissing", lit(-1)));

  std::vector<NodePtr> sweep;
  for (int k = 0; k < U; ++k)
    sweep.push_back(decl("const " + idxT, vk(k),
                         k == 0 ? bin("+", cast(idxT, var("sweep")), var("threadIdx.x"))
                                : bin("+", var("v0"), lit(static_cast<long long>(k) * threads))));
  // One accumulator's U loads (streaming, evict-first: no reuse), then its U resets, then the sums: started from entry
  // 0 (x0.. through a0, in the sweep's scope), added to from the later entries (y0.. through a, in the batch loop).
  auto entry = [&](NodePtr ptr, bool first) {
    const std::string a = first ? "a0" : "a", x = first ? "x" : "y";
    std::vector<NodePtr> st;
    st.push_back(decl(accT + "*", a, std::move(ptr)));
    for (int k = 0; k < U; ++k) {
      st.push_back(decl(accT, x + std::to_string(k), zero()));
      st.push_back(ifStmt(bin("<", var(vk(k)), lit(V)),
                          block({assign(var(x + std::to_string(k)), call("__ldcs", {bin("+", var(a), var(vk(k)))}))})));
    }
    for (int k = 0; k < U; ++k)
      st.push_back(ifStmt(bin("<", var(vk(k)), lit(V)),
                          block({exprStmt(call("__stcs", {bin("+", var(a), var(vk(k))), zero()}))})));
    for (int k = 0; k < U; ++k)
      for (const char* c : {"x", "y"}) {
        const std::string sum = fmt::format("{}{}", *c == 'x' ? "re" : "im", k);
        NodePtr e = member(var(x + std::to_string(k)), c);
        st.push_back(first ? decl(sumT, sum, std::move(e)) : assign(var(sum), std::move(e), "+="));
      }
    return st;
  };
  // Entry 0 in the sweep's scope (its sums live on); the flags staged while its loads are in flight.
  for (NodePtr& n : entry(cast(accT + "*", var("acc")), true)) sweep.push_back(std::move(n));
  {
    std::vector<NodePtr> st;
    st.push_back(decl("const unsigned char", "m", call("__ldg", {bin("+", var("missing"), var("r"))})));
    if (sharedFlags) st.push_back(assign(index(var("wf_flags"), var("r")), var("m")));
    st.push_back(assign(var("any"), var("m"), "|="));
    sweep.push_back(ifStmt(bin("<", var("anyMissing"), lit(0)),
                           block({decl("int", "any", lit(0)),
                                  forLoop(decl("int", "r", var("threadIdx.x")), bin("<", var("r"), lit(s.receivers)),
                                          assign(var("r"), lit(threads), "+="), block(st)),
                                  assign(var("anyMissing"), call("__syncthreads_or", {var("any")}))})));
  }
  // Later batch entries: not unrolled (unrolling over the batch only raised the registers, so fewer resident threads).
  sweep.push_back(raw("#pragma unroll 1"));
  sweep.push_back(forLoop(decl("long long", "b", lit(1)), bin("<", var("b"), var("batch")),
                          assign(var("b"), lit(1), "+="),
                          block(entry(bin("+", cast(accT + "*", var("acc")), bin("*", var("b"), lit(V))), false))));

  // The missing test: absent_k = a receiver of v_k's baseline is flagged.
  for (int k = 0; k < U; ++k) sweep.push_back(decl("int", fmt::format("absent{}", k), lit(0)));
  {
    std::vector<NodePtr> dec;
    if (G > 1) dec.push_back(decl("const unsigned", "q", bin("&", var("threadIdx.x"), lit(G - 1))));
    for (int j = 0; j < U / G; ++j) {
      // This lane's visibility k = q + j G: the baseline of v_{q + jG} of every lane of the group.
      NodePtr w = G > 1 ? bin("+", var("v0"), bin("*", bin("+", var("q"), lit(j * G)), lit(threads))) : var(vk(j));
      const std::string J = std::to_string(j);
      NodePtr u = PP == 1 ? std::move(w) : bin(PP == 4 ? ">>" : "/", std::move(w), lit(PP == 4 ? 2 : PP));
      NodePtr m = reduceBaselineDecode(dec, J, std::move(u), rT, idxT, B, flags);
      if (G == 1) dec.push_back(assign(var(fmt::format("absent{}", j)), cast("int", std::move(m))));
      else dec.push_back(decl("const int", "m" + J, cast("int", std::move(m))));
    }
    // Lane (group base + k mod G) decoded v_k's baseline.
    if (G > 1)
      for (int k = 0; k < U; ++k)
        dec.push_back(assign(var(fmt::format("absent{}", k)),
                             call("__shfl_sync",
                                  {var("0xffffffffu"), var(fmt::format("m{}", k / G)),
                                   cast("int", bin("|", bin("&", var("threadIdx.x"), lit(32 - G)), lit(k % G)))})));
    sweep.push_back(ifStmt(var("anyMissing"), block(dec)));
  }
  // Saturate, mark, count and store.
  for (int k = 0; k < U; ++k) {
    const std::string re = fmt::format("re{}", k), im = fmt::format("im{}", k), ab = fmt::format("absent{}", k);
    std::vector<NodePtr> one;
    NodePtr o;
    NodePtr over;
    if (f) {
      o = ternary(var(ab),
                  call("make_float2",
                       {call("__int_as_float", {lit(0x7fc00000)}), call("__int_as_float", {lit(0x7fc00000)})}),
                  call("make_float2", {var(re), var(im)}));
      over = bin("||", call("isinf", {var(re)}), call("isinf", {var(im)}));
    } else {
      std::vector<NodePtr> fit;
      for (const std::string& c : {re, im}) {
        one.push_back(decl("const int", c + "Lo", cast("int", var(c))));
        one.push_back(decl("const int", c + "Hi", cast("int", bin(">>", var(c), lit(32)))));
        one.push_back(decl("const bool", c + "In",
                           bin("&&", bin("==", var(c + "Hi"), bin(">>", var(c + "Lo"), lit(31))),
                               bin("!=", var(c + "Lo"), cast("int", var("0x80000000u"))))));
        fit.push_back(ternary(var(c + "In"), var(c + "Lo"),
                              ternary(bin("<", var(c + "Hi"), lit(0)), lit(-2147483647), lit(2147483647))));
      }
      o = ternary(var(ab), call("make_int2", {cast("int", var("0x80000000u")), cast("int", var("0x80000000u"))}),
                  call("make_int2", {std::move(fit[0]), std::move(fit[1])}));
      over = unary("!", bin("&&", var(re + "In"), var(im + "In")));
    }
    one.push_back(
        assign(var("count"), ternary(bin("&&", unary("!", var(ab)), std::move(over)), ulit(1), ulit(0)), "+="));
    one.push_back(exprStmt(call("__stcs", {bin("+", cast(outT + "*", var("vis")), var(vk(k))), std::move(o)})));
    sweep.push_back(ifStmt(bin("<", var(vk(k)), lit(V)), block(one)));
  }
  // Sweeps are block-uniform (the flag staging's barrier and the shuffles need every thread of the block).
  body.push_back(
      forLoop(decl("unsigned long long", "sweep", bin("*", cast("unsigned long long", var("blockIdx.x")), lit(TU))),
              bin("<", var("sweep"), lit(V)),
              assign(var("sweep"), bin("*", cast("unsigned long long", var("gridDim.x")), lit(TU)), "+="),
              block(sweep)));
  // Saturated count: warp sums, one atomic per block; the last block publishes and re-zeroes.
  body.push_back(assign(var("count"), call("__reduce_add_sync", {var("0xffffffffu"), var("count")})));
  body.push_back(ifStmt(bin("==", bin("&", var("threadIdx.x"), lit(31)), lit(0)),
                        block({assign(index(var("wf_part"), bin(">>", var("threadIdx.x"), lit(5))), var("count"))})));
  body.push_back(exprStmt(call("__syncthreads", {})));
  body.push_back(
      ifStmt(bin("==", var("threadIdx.x"), lit(0)), block(cmma::publishSaturationCount("wf_part", threads / 32))));

  // (threads, 4) at U = 4: at most 64 registers, 1024 resident threads per SM with 4 independent 16-byte loads each
  // (64 KiB per SM in flight); more visibilities per thread: proportionally fewer blocks (the same loads in flight).
  NodePtr fn = function(fmt::format("extern \"C\" __global__ void __launch_bounds__({}, {})", threads,
                                    std::max(1, kReduceMinBlocks * kReduceUnroll / U)),
                        "", name, reduceParameters(f), block(body));
  return fmt::format(
             "// {}: sums the batch's {} accumulators of {} visibilities, saturates to {}, resets them; generated by "
             "warpforge\n"
             "// streaming: {} visibilities per thread and sweep, their loads issued first; {}-bit indices; missing "
             "flags {}, one baseline decode per {} visibilities\n",
             name, f ? "f32" : "int64", V, f ? "f32" : "int32 (+-(2^31 - 1); -2^31 marks missing receivers)", U,
             narrow ? 32 : 64, sharedFlags ? "in shared memory" : "from global memory", G) +
         print(foldConstants(fn));
}

}  // namespace warpforge
