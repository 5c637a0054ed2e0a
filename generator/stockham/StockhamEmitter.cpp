#include "generator/stockham/StockhamEmitter.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ast/Ast.h"
#include "ast/Passes.h"
#include "ast/Printer.h"
#include "generator/stockham/AstComplexOps.h"
#include "generator/stockham/Butterfly.h"
#include "generator/stockham/CoopRadix.h"
#include "generator/stockham/Twiddles.h"

namespace warpforge {

using namespace ast;

namespace {

bool isHalf(Storage s) { return s == Storage::C16 || s == Storage::R16; }

class Emitter {
 public:
  Emitter(const KernelDesc& d, int registerTarget, int maxThreadsPerFft, int indexPerGroup) : d_(d), g_(chooseGeometry(d, maxThreadsPerFft)) {
    if (registerTarget > 0) g_.registerTarget = registerTarget;
    if (indexPerGroup >= 0) g_.indexPerGroup = indexPerGroup == 1;
    cT_ = d.f64 ? "double2" : "float2";
    rT_ = d.f64 ? "double" : "float";
    NT_ = g_.threadsPerFft * g_.fftsPerBlock;
    directIn_ = g_.directLoad;
    directOut_ = g_.directStore;
  }

  StockhamKernel run() {
    std::vector<NodePtr> body;
    body.push_back(raw("extern __shared__ __align__(16) unsigned char smem_raw[];"));
    body.push_back(decl(cT_ + "*", "smem_all", cast(cT_ + "*", var("smem_raw"))));
    if (d_.convolve) {
      body.push_back(comment("Bluestein: the convolution kernel FFT(conj chirp)/M comes in the big_lo slot of the parameter list"));
      body.push_back(decl("const " + cT_ + "*", "conv", var("big_lo")));
    }

    std::vector<NodePtr> loop;
    // With indexPerGroup the per-thread indices are derived inside the group loop from an opaque
    // read of threadIdx.x (wf_thread_index); otherwise NVVM hoists every address that depends only
    // on the thread out of the loop and may hold them all in registers (r2c 8192: 168 instead of 64).
    std::vector<NodePtr>& indices = g_.indexPerGroup ? loop : body;
    indices.push_back(decl("const int", "tid", g_.indexPerGroup ? call("wf_thread_index", {}) : member(var("threadIdx"), "x")));
    indices.push_back(decl("const int", "t", bin("%", var("tid"), lit(g_.threadsPerFft))));
    indices.push_back(decl("const int", "fbase", bin("*", bin("/", var("tid"), lit(g_.threadsPerFft)), lit(g_.smemStride))));
    loop.push_back(decl("const long long", "first", bin("*", var("group"), lit(g_.fftsPerBlock))));
    if (directIn_ || directOut_) {
      loop.push_back(comment("this thread's FFT: its digits and where it starts in global memory"));
      loop.push_back(decl("const long long", "g", bin("+", var("first"), bin("/", var("tid"), lit(g_.threadsPerFft)))));
      loop.push_back(decl("const bool", "live", bin("<", var("g"), var("ffts"))));
      digits(loop, "g");
      if (directIn_) loop.push_back(decl("const long long", "ain", fftBase(d_.in)));
      if (directOut_) loop.push_back(decl("const long long", "aout", fftBase(d_.out)));
    }
    if (!directIn_) {
      loop.push_back(comment("load: global -> shared, " + std::string(g_.fftMajorLoad ? "FFT-major (column tile)" : "element-major")));
      for (auto& s : loadStage()) loop.push_back(s);
      loop.push_back(exprStmt(call("__syncthreads", {})));
    }
    for (stage_ = 0; stage_ < (d_.convolve ? 2 : 1); ++stage_) {
      if (d_.convolve)
        loop.push_back(comment(stage_ == 0 ? "Bluestein convolution, forward half: FFT of the chirped, zero-padded input"
                                           : "inverse half: times FFT(conj chirp)/M in the first read, inverse FFT (conjugated twiddles)"));
      long long ns = 1;
      for (std::size_t p = 0; p < d_.factors.size(); ++p) {
        loop.push_back(pass(static_cast<int>(p), ns));
        ns *= d_.factors[p];
      }
    }
    stage_ = 0;
    if (!directOut_) {
      loop.push_back(comment("store: shared -> global, " + std::string(g_.fftMajorStore ? "FFT-major (column tile)" : "element-major")));
      for (auto& s : storeStage()) loop.push_back(s);
      loop.push_back(exprStmt(call("__syncthreads", {})));  // shared memory is reused by the next group
    } else if (!directIn_) {
      // The last pass reads shared memory and stores to global memory; the next group's
      // staged load must not overwrite shared memory before every thread has read it.
      loop.push_back(exprStmt(call("__syncthreads", {})));
    }

    // Cooperative passes read their constants from shared memory: lanes of one warp can need different
    // entries (items of several groups where a pass has fewer than 32 butterflies), which a __constant__
    // read would serialize (c2c 101: 0.34x cuFFT).
    for (const auto& [name, t] : coopTables_) {
      body.push_back(raw(fmt::format("__shared__ {} {}_s[{}];", cT_, name, t.first)));
      body.push_back(raw(fmt::format("for (int i = threadIdx.x; i < {}; i += blockDim.x) {}_s[i] = {}[i];", t.first, name, name)));
    }
    if (!coopTables_.empty()) body.push_back(exprStmt(call("__syncthreads", {})));
    if (!g_.workQueue) {
      body.push_back(forLoop(decl("long long", "group", cast("long long", member(var("blockIdx"), "x"))),
                             bin("<", bin("*", var("group"), lit(g_.fftsPerBlock)), var("ffts")),
                             assign(var("group"), cast("long long", member(var("gridDim"), "x")), "+="), block(loop)));
    } else {
      // Groups after the first come from a counter in global memory (work[0]), so that blocks that
      // run faster take more groups and no SM idles while others finish a fixed share. Thread 0
      // fetches the next group when it starts one; every thread reads it after the group's barriers
      // (two slots by parity, so the next fetch cannot overwrite a value still being read).
      body.push_back(raw("__shared__ unsigned long long wf_ticket[2];"));
      body.push_back(raw("int wf_it = 0;  // group iterations done: the ticket slot's parity"));
      body.push_back(raw("long long wf_next = 0;"));
      loop.insert(loop.begin(), raw("if (threadIdx.x == 0) wf_ticket[wf_it & 1] = atomicAdd(work, 1ull);"));
      if (!bodyHasBarrier()) loop.push_back(exprStmt(call("__syncthreads", {})));
      loop.push_back(raw("wf_next = (long long)wf_ticket[wf_it & 1];"));
      loop.push_back(raw("++wf_it;"));
      body.push_back(forLoop(decl("long long", "group", cast("long long", member(var("blockIdx"), "x"))),
                             bin("<", bin("*", var("group"), lit(g_.fftsPerBlock)), var("ffts")),
                             assign(var("group"), bin("+", cast("long long", member(var("gridDim"), "x")), var("wf_next"))), block(loop)));
      // The last block out resets the counters for the next launch (kernel boundaries order the rest).
      body.push_back(ifStmt(bin("==", member(var("threadIdx"), "x"), lit(0)),
                            block({raw("__threadfence();"), raw("if (atomicAdd(work + 1, 1ull) == gridDim.x - 1ull) {"),
                                   raw("  atomicExch(work, 0ull);"), raw("  atomicExch(work + 1, 0ull);"), raw("}")})));
    }
    std::string inT = storageElementType(d_.in.storage, d_.in.planar), outT = storageElementType(d_.out.storage, d_.out.planar);
    std::vector<NodePtr> params = {decl("const " + inT + "*", "in"),         decl("const " + inT + "*", "in_im"),
                                   decl(outT + "*", "out"),                  decl(outT + "*", "out_im"),
                                   decl("const " + cT_ + "*", "twiddles"), decl("const " + cT_ + "*", "load_table"),
                                   decl("const " + cT_ + "*", "store_table"), decl("const " + cT_ + "*", "big_lo"),
                                   decl("const " + cT_ + "*", "big_hi"), decl("long long", "ffts"),
                                   decl("long long", "in_valid"),                decl("long long", "out_valid"),
                                   decl("unsigned long long*", "work")};
    // Tables are not __restrict__: with it the compiler hoists every pass's twiddle loads
    // above the barriers and holds them all (158 instead of 106 registers at length 1024).
    // Cap registers so that several blocks stay resident and one block's loads overlap
    // another's passes (targets checked spill-free by tests/StockhamTest.cpp).
    const int minBlocks = std::max(1, 65536 / ((NT_ + 31) / 32 * 32 * g_.registerTarget));  // registers are allocated per warp
    NodePtr fn = function(fmt::format("extern \"C\" __global__ void __launch_bounds__({}, {})", NT_, minBlocks), "", d_.kernelName, params, block(body));
    fn = removeDeadCode(foldConstants(fn));
    StockhamKernel k;
    k.desc = d_;
    k.geom = g_;
    std::string pad = g_.padShift
        ? fmt::format("// One pad element per {} so that radix-R strided writes and column tiles spread over the banks.\n"
                      "__device__ __forceinline__ int wf_pad(int x) {{ return x + (x >> {}); }}",
                      1 << g_.padShift, g_.padShift)
        : std::string("// No padding: this length's strides spread over the banks by themselves.\n"
                      "__device__ __forceinline__ int wf_pad(int x) { return x; }");
    const std::string threadIndex =
        "// threadIdx.x through volatile asm: values derived from it are recomputed in each group\n"
        "// iteration rather than hoisted out of the loop and held in registers.\n"
        "__device__ __forceinline__ int wf_thread_index() { int t; asm volatile(\"mov.u32 %0, %%tid.x;\" : \"=r\"(t)); return t; }";
    const std::string unpackers =
        "// Unpacking of 16-byte vector loads: half2 <-> float2, complex int8 and int4 (high nibble real) to float2.\n"
        "__device__ __forceinline__ float2 wf_half2_to_float2(unsigned u) { __half2 h = *reinterpret_cast<__half2*>(&u); return __half22float2(h); }\n"
        "__device__ __forceinline__ unsigned wf_float2_to_half2(float2 v) { __half2 h = __floats2half2_rn(v.x, v.y); return *reinterpret_cast<unsigned*>(&h); }\n"
        "__device__ __forceinline__ float2 wf_i8(unsigned u, int k) {\n"
        "  return make_float2((float)(signed char)(u >> (16 * k)), (float)(signed char)(u >> (16 * k + 8)));\n}\n"
        "__device__ __forceinline__ float2 wf_i4(unsigned u, int k) {\n"
        "  const int b = (int)(signed char)(u >> (8 * k));\n"
        "  return make_float2((float)(b >> 4), (float)((int)(signed char)(b << 4) >> 4));\n}";
    std::vector<NodePtr> file{comment(header()), raw("#include <cuda_fp16.h>"), raw(""), raw(pad)};
    if (g_.indexPerGroup) file.push_back(raw(threadIndex));
    file.push_back(raw(unpackers));
    for (const auto& [name, t] : coopTables_) file.push_back(raw(t.second));
    for (const auto& [name, t] : constTables_) file.push_back(raw(t));
    for (auto& n : {raw(""), fn}) file.push_back(n);
    k.source = print(unit(file));
    return k;
  }

 private:
  // Whether a group's body has a __syncthreads of its own (all but a single pass that reads and
  // writes global memory itself).
  bool bodyHasBarrier() const { return !(directIn_ && directOut_ && d_.factors.size() <= 1 && !d_.convolve); }
  // Convolution kernels run the passes twice (stage_ 0: forward, 1: inverse); others once.
  int stageSign() const { return d_.convolve && stage_ == 1 ? +1 : d_.sign; }
  bool firstPass(int p) const { return p == 0 && stage_ == 0; }
  bool lastPass(int p) const { return p + 1 == static_cast<int>(d_.factors.size()) && (stage_ == 1 || !d_.convolve); }

  std::string header() const {
    return fmt::format(
        "Generated by warpforge from spec '{}': {}.\n"
        "Stockham {} C2C of length {} = {} ({}), compute in {}.\n"
        "in: {}{}, element stride {}, batch strides [{}], offset {}; out: {}{}, element stride {}, batch strides [{}], offset {}.\n"
        "Block: {} threads = {} per FFT x {} FFTs; {} bytes of dynamic shared memory ({} elements per FFT); register target {}{}{}{}{}.",
        d_.specName, d_.role, d_.convolve ? "convolution (forward then inverse)" : d_.sign < 0 ? "forward" : "inverse", d_.length, fmt::join(d_.factors, " x "),
        d_.factors.empty() ? "copy" : "radix passes", rT_, storageElementType(d_.in.storage, d_.in.planar), d_.in.planar ? " planar" : "",
        d_.in.elemStride, fmt::join(d_.in.batchStride, ", "), d_.in.offset, storageElementType(d_.out.storage, d_.out.planar),
        d_.out.planar ? " planar" : "", d_.out.elemStride, fmt::join(d_.out.batchStride, ", "), d_.out.offset, NT_, g_.threadsPerFft,
        g_.fftsPerBlock, g_.sharedBytes, g_.smemStride, g_.registerTarget,
        g_.indexPerGroup ? ", thread indices recomputed per group" : "", g_.deriveTwiddles ? ", twiddles W^(k r) for r not a power of two derived" : "",
        g_.workQueue ? "; groups after the first from the work counter" : "", g_.fusedSplit ? "; r2c split fused into the last pass" : "") +
           (d_.axes.size() > 1 ? fmt::format("\nA {} plane as one FFT: loaded digit-reversed (fastest axis first), each axis's passes with its own "
                                             "twiddles, the {}-dimensional DFT left in row-major order.",
                                             fmt::join(d_.axes, " x "), d_.axes.size())
                                 : std::string());
  }

  NodePtr num(double v) const { return d_.f64 ? dlit(v) : flit(v); }
  // Shared memory element at block-flat index x, padded by wf_pad (bank conflicts).
  NodePtr shared(const NodePtr& x) const { return index(var("smem_all"), call("wf_pad", {x})); }
  NodePtr shared(const std::string& base, const NodePtr& i) const { return shared(bin("+", var(base), i)); }
  NodePtr mk(NodePtr re, NodePtr im) const { return call(d_.f64 ? "make_double2" : "make_float2", {std::move(re), std::move(im)}); }
  NodePtr cmul(const NodePtr& a, const NodePtr& b) const {
    return mk(bin("-", bin("*", member(a, "x"), member(b, "x")), bin("*", member(a, "y"), member(b, "y"))),
              bin("+", bin("*", member(a, "x"), member(b, "y")), bin("*", member(a, "y"), member(b, "x"))));
  }

  // Statements computing digits d0.. of FFT index `g` (a long long expression).
  void digits(std::vector<NodePtr>& out, const std::string& g) const {
    const auto& c = d_.batchCount;
    if (c.empty()) {
      out.push_back(decl("const long long", "d0", var(g)));
      return;
    }
    out.push_back(decl("long long", "q", var(g)));
    for (std::size_t k = 0; k < c.size(); ++k) {
      out.push_back(decl("const long long", fmt::format("d{}", k), bin("%", var("q"), lit(c[k]))));
      out.push_back(assign(var("q"), lit(c[k]), "/="));
    }
    out.push_back(decl("const long long", fmt::format("d{}", c.size()), var("q")));
  }
  // Digits of equal pitch collapse: stride_{k+1} = stride_k * count_k for every k.
  bool collapsible(const Access& a) const {
    for (std::size_t k = 0; k + 1 < a.batchStride.size(); ++k)
      if (a.batchStride[k + 1] != a.batchStride[k] * d_.batchCount[k]) return false;
    return true;
  }
  // offset + sum d_k * stride_k: where FFT g starts (in scalars for real arrays).
  NodePtr fftBase(const Access& a) const {
    if (collapsible(a)) return bin("+", lit(a.offset), bin("*", var("g"), lit(a.batchStride[0])));
    NodePtr e = lit(a.offset);
    for (std::size_t k = 0; k < a.batchStride.size(); ++k) e = bin("+", e, bin("*", var(fmt::format("d{}", k)), lit(a.batchStride[k])));
    return e;
  }
  // abase + i * elemStride (times 2 for the complex view of a real array)
  NodePtr address(const Access& a, const NodePtr& i, const std::string& base = "abase") const {
    long long es = isReal(a.storage) ? 2 * a.elemStride : a.elemStride;
    return bin("+", var(base), bin("*", cast("long long", i), lit(es)));
  }
  NodePtr natural(const NodePtr& i, long long elem, long long digit0) const {
    return bin("+", bin("*", cast("long long", i), lit(elem)), bin("*", var("d0"), lit(digit0)));
  }
  // A real array read or written as complex pairs with one vector access.
  bool realVector(const Access& a) const {
    if (!isReal(a.storage) || a.planar || a.elemStride != 1 || a.imOffset() != 1 || a.offset % 2) return false;
    for (long long s : a.batchStride)
      if (s % 2) return false;
    return true;
  }

  NodePtr loadValue(const NodePtr& addr) const {
    const Access& a = d_.in;
    auto widen = [&](NodePtr e) { return isHalf(a.storage) ? call("__half2float", {e}) : cast(rT_, e); };
    NodePtr in = var("in"), inIm = var("in_im");
    switch (a.storage) {
      case Storage::CI8:
        if (a.planar) return mk(cast(rT_, index(in, addr)), cast(rT_, index(inIm, addr)));
        return mk(cast(rT_, member(index(in, addr), "x")), cast(rT_, member(index(in, addr), "y")));
      case Storage::CI4:  // high nibble real, low nibble imaginary, sign-extended by arithmetic shifts
        return mk(cast(rT_, bin(">>", cast("int", index(in, addr)), lit(4))),
                  cast(rT_, bin(">>", cast("int", cast("signed char", bin("<<", cast("int", index(in, addr)), lit(4)))), lit(4))));
      default: break;
    }
    if (a.planar) return mk(widen(index(in, addr)), widen(index(inIm, addr)));
    if (isReal(a.storage)) {
      if (realVector(a)) {
        std::string vt = a.storage == Storage::R16 ? "__half2" : a.storage == Storage::R32 ? "float2" : "double2";
        NodePtr v = index(cast("const " + vt + "*", in), bin("/", addr, lit(2)));
        return a.storage == Storage::R16 ? call("__half22float2", {v}) : v;  // f16 computes in float
      }
      return mk(widen(index(in, addr)), widen(index(in, bin("+", addr, lit(a.imOffset())))));
    }
    if (a.storage == Storage::C16) return call("__half22float2", {index(in, addr)});
    return index(in, addr);
  }

  std::vector<NodePtr> storeValue(const NodePtr& addr, const NodePtr& v) const {
    const Access& a = d_.out;
    NodePtr out = var("out"), outIm = var("out_im");
    auto narrow = [&](NodePtr e) { return isHalf(a.storage) ? call("__float2half_rn", {e}) : e; };
    if (a.planar) return {assign(index(out, addr), narrow(member(v, "x"))), assign(index(outIm, addr), narrow(member(v, "y")))};
    if (isReal(a.storage)) {
      if (realVector(a)) {
        std::string vt = a.storage == Storage::R16 ? "__half2" : a.storage == Storage::R32 ? "float2" : "double2";
        NodePtr dst = index(cast(vt + "*", out), bin("/", addr, lit(2)));
        return {assign(dst, a.storage == Storage::R16 ? call("__floats2half2_rn", {member(v, "x"), member(v, "y")}) : v)};
      }
      return {assign(index(out, addr), narrow(member(v, "x"))), assign(index(out, bin("+", addr, lit(a.imOffset()))), narrow(member(v, "y")))};
    }
    if (a.storage == Storage::C16) return {assign(index(out, addr), call("__floats2half2_rn", {member(v, "x"), member(v, "y")}))};
    return {assign(index(out, addr), v)};
  }

  // Loop over `count` elements of each of the block's F FFTs; body() sees i, g,
  // the digits d0.., abase (where FFT g starts in `a`) and sm (its shared memory).
  // FFT-major (column tiles): thread tid always serves FFT tid % F, elements
  // tid / F + it * T, so its FFT's digits and base are computed once.
  template <class Body>
  std::vector<NodePtr> flatLoop(int count, bool fftMajor, const Access& a, Body bodyFn) const {
    const int F = g_.fftsPerBlock, T = g_.threadsPerFft, total = F * count;
    auto fftPrologue = [&](std::vector<NodePtr>& b) {
      b.push_back(decl("const long long", "g", bin("+", var("first"), var("fl"))));
      digits(b, "g");
      b.push_back(decl("const long long", "abase", fftBase(a)));
      b.push_back(decl("const int", "sbase", bin("*", var("fl"), lit(g_.smemStride))));
    };
    if (fftMajor) {
      std::vector<NodePtr> b{decl("const int", "fl", bin("%", var("tid"), lit(F))), decl("const int", "i0", bin("/", var("tid"), lit(F)))};
      fftPrologue(b);
      for (int it = 0; it * T < count; ++it) {
        std::vector<NodePtr> one{decl("const int", "i", bin("+", var("i0"), lit(it * T)))};
        for (auto& st : bodyFn()) one.push_back(st);
        b.push_back((it + 1) * T <= count ? block(one) : ifStmt(bin("<", bin("+", var("i0"), lit(it * T)), lit(count)), block(one)));
      }
      return {block(b)};
    }
    std::vector<NodePtr> out;
    for (int it = 0; it * NT_ < total; ++it) {
      std::vector<NodePtr> b;
      NodePtr e = bin("+", var("tid"), lit(it * NT_));
      b.push_back(decl("const int", "e", e));
      b.push_back(decl("const int", "fl", bin("/", var("e"), lit(count))));
      b.push_back(decl("const int", "i", bin("%", var("e"), lit(count))));
      fftPrologue(b);
      for (auto& st : bodyFn()) b.push_back(st);
      out.push_back((it + 1) * NT_ <= total ? block(b) : ifStmt(bin("<", e, lit(total)), block(b)));
    }
    return out;
  }

  // The block's FFTs are one contiguous run of memory laid out as in shared memory.
  bool contiguous(const Access& a, int count) const {
    if (isReal(a.storage)) return realVector(a) && collapsible(a) && a.batchStride[0] == 2 * count;
    return a.elemStride == 1 && collapsible(a) && a.batchStride[0] == count;
  }
  // Element e of the block's run (count per FFT) in unpadded shared coordinates; `loaded`: where the load puts it,
  // digit-reversed within each FFT for fused axes (axesReversed).
  NodePtr blockIndex(const NodePtr& e, int count, bool loaded = false) const {
    const bool reversed = loaded && d_.axes.size() > 1;
    if (g_.smemStride == count && !reversed) return e;
    NodePtr within = bin("%", e, lit(count));
    return bin("+", bin("*", bin("/", e, lit(count)), lit(g_.smemStride)), reversed ? axesReversed(within) : within);
  }
  // Fused axes (KernelDesc::axes): element i of the row-major plane goes to the digit-reversed index, the fastest
  // axis as the top digit: sum_d ((i / S_d) % n_d) * W_d, S_d = product of the axes after d, W_d = of those before.
  NodePtr axesReversed(const NodePtr& i) const {
    if (d_.axes.size() < 2) return i;
    NodePtr sum;
    long long after = d_.length, before = 1;
    for (std::size_t d = 0; d < d_.axes.size(); ++d) {
      const int n = d_.axes[d];
      after /= n;
      NodePtr digit = after == 1 ? i : bin("/", i, lit(after));
      if (d > 0) digit = bin("%", digit, lit(n));  // the slowest digit needs no modulo
      NodePtr term = before == 1 ? digit : bin("*", digit, lit(before));
      sum = sum ? bin("+", sum, term) : term;
      before *= n;
    }
    return sum;
  }
  // Contiguous fast path: element e of the block is smem_all[e] and in/out[offset + first * count + e].
  template <class Body>
  std::vector<NodePtr> runLoop(int count, Body bodyFn) const {
    std::vector<NodePtr> out{decl("const long long", "base", bin("*", var("first"), lit(count))),
                             decl("const long long", "limit", bin("*", bin("-", var("ffts"), var("first")), lit(count)))};
    const int total = g_.fftsPerBlock * count;
    for (int it = 0; it * NT_ < total; ++it) {
      std::vector<NodePtr> b{decl("const int", "e", bin("+", var("tid"), lit(it * NT_)))};
      for (auto& st : bodyFn()) b.push_back(st);
      out.push_back((it + 1) * NT_ <= total ? block(b) : ifStmt(bin("<", bin("+", var("tid"), lit(it * NT_)), lit(total)), block(b)));
    }
    return {block(out)};
  }

  // 16-byte vector accesses (8 for ci4) in the contiguous fast path: V complex elements per access.
  struct Vector {
    int V = 0, words = 0;
    std::string type;
  };
  Vector vectorOf(const Access& a, int count, bool tables) const {
    if (d_.f64 || a.planar || tables) return {};
    int V = 0, words = 4;
    switch (a.storage) {
      case Storage::C32: case Storage::R32: V = 2; break;
      case Storage::C16: case Storage::R16: V = 4; break;
      case Storage::CI8: V = 8; break;
      case Storage::CI4: V = 8; words = 2; break;
      default: return {};
    }
    long long offsetElems = isReal(a.storage) ? a.offset / 2 : a.offset;
    if (count % V || offsetElems % V || (isReal(a.storage) && a.offset % 2)) return {};
    return {V, words, words == 4 ? "uint4" : "uint2"};
  }
  // Complex element u of a loaded vector `w` (its 32-bit words w.x, w.y, ...).
  NodePtr unpack(Storage s, const NodePtr& w, int u) const {
    auto word = [&](int i) { return member(w, std::string(1, "xyzw"[i])); };
    switch (s) {
      case Storage::C32: case Storage::R32:
        return mk(call("__uint_as_float", {word(2 * u)}), call("__uint_as_float", {word(2 * u + 1)}));
      case Storage::C16: case Storage::R16: return call("wf_half2_to_float2", {word(u)});
      case Storage::CI8: return call("wf_i8", {word(u / 2), lit(u % 2)});
      default: return call("wf_i4", {word(u / 4), lit(u % 4)});
    }
  }
  std::vector<NodePtr> vectorLoad(int count, const Vector& vec) const {
    const Access& a = d_.in;
    std::vector<NodePtr> out{decl("const long long", "base", bin("*", var("first"), lit(count))),
                             decl("const long long", "limit", bin("*", bin("-", var("ffts"), var("first")), lit(count)))};
    long long off = isReal(a.storage) ? a.offset / 2 : a.offset;  // in complex elements
    // element pointer of the block's run, as vectors
    NodePtr first = isReal(a.storage) ? bin("+", var("in"), bin("*", bin("+", lit(off), var("base")), lit(2)))
                                      : bin("+", var("in"), bin("+", lit(off), var("base")));
    out.push_back(decl("const " + vec.type + "*", "src", cast("const " + vec.type + "*", first)));
    const int total = g_.fftsPerBlock * count / vec.V;
    for (int it = 0; it * NT_ < total; ++it) {
      std::vector<NodePtr> b{decl("const int", "ev", bin("+", var("tid"), lit(it * NT_)))};
      b.push_back(decl(vec.type, "w", call("make_" + vec.type, std::vector<NodePtr>(vec.words, lit(0)))));
      b.push_back(ifStmt(bin("<", bin("*", var("ev"), lit(vec.V)), var("limit")), block({assign(var("w"), index(var("src"), var("ev")))})));
      for (int u = 0; u < vec.V; ++u)
        b.push_back(assign(shared(blockIndex(bin("+", bin("*", var("ev"), lit(vec.V)), lit(u)), count, true)), unpack(a.storage, var("w"), u)));
      out.push_back((it + 1) * NT_ <= total ? block(b) : ifStmt(bin("<", bin("+", var("tid"), lit(it * NT_)), lit(total)), block(b)));
    }
    return {block(out)};
  }
  std::vector<NodePtr> vectorStore(int count, const Vector& vec) const {
    const Access& a = d_.out;
    std::vector<NodePtr> out{decl("const long long", "base", bin("*", var("first"), lit(count))),
                             decl("const long long", "limit", bin("*", bin("-", var("ffts"), var("first")), lit(count)))};
    long long off = isReal(a.storage) ? a.offset / 2 : a.offset;
    NodePtr first = isReal(a.storage) ? bin("+", var("out"), bin("*", bin("+", lit(off), var("base")), lit(2)))
                                      : bin("+", var("out"), bin("+", lit(off), var("base")));
    out.push_back(decl(vec.type + "*", "dst", cast(vec.type + "*", first)));
    const int total = g_.fftsPerBlock * count / vec.V;
    const bool half = a.storage == Storage::C16 || a.storage == Storage::R16;
    for (int it = 0; it * NT_ < total; ++it) {
      std::vector<NodePtr> b{decl("const int", "ev", bin("+", var("tid"), lit(it * NT_)))};
      std::vector<NodePtr> words;
      for (int u = 0; u < vec.V; ++u) {
        b.push_back(decl(cT_, fmt::format("v{}", u), shared(blockIndex(bin("+", bin("*", var("ev"), lit(vec.V)), lit(u)), count))));
        if (half) words.push_back(call("wf_float2_to_half2", {var(fmt::format("v{}", u))}));
        else {
          words.push_back(call("__float_as_uint", {member(var(fmt::format("v{}", u)), "x")}));
          words.push_back(call("__float_as_uint", {member(var(fmt::format("v{}", u)), "y")}));
        }
      }
      b.push_back(ifStmt(bin("<", bin("*", var("ev"), lit(vec.V)), var("limit")),
                         block({assign(index(var("dst"), var("ev")), call("make_" + vec.type, words))})));
      out.push_back((it + 1) * NT_ <= total ? block(b) : ifStmt(bin("<", bin("+", var("tid"), lit(it * NT_)), lit(total)), block(b)));
    }
    return {block(out)};
  }

  std::vector<NodePtr> loadStage() {
    const int count = d_.length + (d_.fuse == Fuse::C2RPre ? 1 : 0);
    if (contiguous(d_.in, count) && d_.natInDigit0 == 0) {
      Vector vec = vectorOf(d_.in, count, d_.loadTable || d_.inValid >= 0);
      if (vec.V) {
        g_.vectorBytesIn = vec.words * 4;
        return vectorLoad(count, vec);
      }
    }
    if (contiguous(d_.in, count) && d_.natInDigit0 == 0)
      return runLoop(count, [&] {
        std::vector<NodePtr> b{decl(cT_, "v", mk(num(0), num(0)))};
        NodePtr at = bin("+", var("base"), var("e"));  // complex element of the block's run
        if (isReal(d_.in.storage)) at = bin("*", at, lit(2));
        std::vector<NodePtr> active =
            loadGuarded(bin("+", lit(d_.in.offset), at), "const int", bin("*", bin("%", var("e"), lit(count)), lit(d_.natInElem)));
        b.push_back(ifStmt(bin("<", var("e"), var("limit")), block(active)));
        b.push_back(assign(shared(blockIndex(var("e"), count, true)), var("v")));
        return b;
      });
    return flatLoop(count, g_.fftMajorLoad, d_.in, [&] {
      std::vector<NodePtr> b;
      b.push_back(decl(cT_, "v", mk(num(0), num(0))));
      std::vector<NodePtr> active = loadGuarded(address(d_.in, var("i")), "const long long", natural(var("i"), d_.natInElem, d_.natInDigit0));
      b.push_back(ifStmt(bin("<", var("g"), var("ffts")), block(active)));
      b.push_back(assign(shared("sbase", axesReversed(var("i"))), var("v")));
      return b;
    });
  }

  // The value at shared index `idx` as the first reader sees it (C2R pre-processing fused here).
  NodePtr firstRead(std::vector<NodePtr>& stmts, const std::string& base, const NodePtr& idx, const std::string& name, bool first) const {
    if (!first || d_.fuse != Fuse::C2RPre) {
      stmts.push_back(decl(cT_, name, shared(base, idx)));
      return var(name);
    }
    const int L = d_.length;
    // Z[k] = (X[k] + conj X[L-k]) + i W^-k (X[k] - conj X[L-k]), W^-k from load_table
    stmts.push_back(decl("const int", name + "_k", idx));
    stmts.push_back(decl(cT_, name + "_a", shared(base, var(name + "_k"))));
    stmts.push_back(decl(cT_, name + "_b", shared(base, bin("-", lit(L), var(name + "_k")))));
    stmts.push_back(decl(cT_, name + "_w", index(var("load_table"), var(name + "_k"))));
    stmts.push_back(decl(cT_, name + "_d", mk(bin("-", member(var(name + "_a"), "x"), member(var(name + "_b"), "x")),
                                             bin("+", member(var(name + "_a"), "y"), member(var(name + "_b"), "y")))));
    stmts.push_back(decl(cT_, name + "_o", cmul(var(name + "_w"), var(name + "_d"))));
    stmts.push_back(decl(cT_, name, mk(bin("-", bin("+", member(var(name + "_a"), "x"), member(var(name + "_b"), "x")), member(var(name + "_o"), "y")),
                                      bin("+", bin("-", member(var(name + "_a"), "y"), member(var(name + "_b"), "y")), member(var(name + "_o"), "x")))));
    return var(name);
  }

  // `body` runs where the natural index `nat` is below `bound` (when the kernel has one);
  // `nat` is declared from natExpr when a table or the bound needs it.
  std::vector<NodePtr> guarded(const std::vector<NodePtr>& body, const std::string& natType, const NodePtr& natExpr, bool table,
                               bool bounded, const char* bound) const {
    std::vector<NodePtr> out;
    if (table || bounded) out.push_back(decl(natType, "nat", natExpr));
    if (bounded) out.push_back(ifStmt(bin("<", var("nat"), var(bound)), block(body)));
    else
      out.insert(out.end(), body.begin(), body.end());
    return out;
  }
  // v = the element at addr, times the load table.
  std::vector<NodePtr> loadGuarded(const NodePtr& addr, const std::string& natType, const NodePtr& natExpr) const {
    std::vector<NodePtr> get{assign(var("v"), loadValue(addr))};
    if (d_.loadTable) get.push_back(assign(var("v"), cmul(var("v"), index(var("load_table"), var("nat")))));
    return guarded(get, natType, natExpr, d_.loadTable, d_.inValid >= 0, "in_valid");
  }
  // v times the store table, stored at addr.
  std::vector<NodePtr> storeGuarded(const NodePtr& addr, const std::string& natType, const NodePtr& natExpr) const {
    std::vector<NodePtr> put;
    if (d_.storeTable) put.push_back(assign(var("v"), cmul(var("v"), index(var("store_table"), var("nat")))));
    for (auto& st : storeValue(addr, var("v"))) put.push_back(st);
    return guarded(put, natType, natExpr, d_.storeTable, d_.outValid >= 0, "out_valid");
  }

  // Stores complex `v` (declared by the caller) as element k of this thread's FFT:
  // four-step twiddle, natural-index table and bound, storage conversion.
  std::vector<NodePtr> storeElement(const NodePtr& k, const std::string& base) const {
    std::vector<NodePtr> out;
    if (d_.bigN > 0) {
      out.push_back(decl("const long long", "m", bin("*", cast("long long", k), var("d0"))));
      out.push_back(assign(var("v"), cmul(var("v"), cmul(index(var("big_lo"), bin("%", var("m"), lit(d_.bigSplit))),
                                                        index(var("big_hi"), bin("/", var("m"), lit(d_.bigSplit)))))));
    }
    for (auto& st : storeGuarded(address(d_.out, k, base), "const long long", natural(k, d_.natOutElem, d_.natOutDigit0))) out.push_back(st);
    return out;
  }

  // The inputs of butterfly `jInit` of pass p (declared as j<sfx>), read from global memory (a direct
  // first pass) or shared memory and multiplied by their twiddles: what the radix-R DFT takes.
  std::vector<AstComplexOps::C> butterflyInputs(std::vector<NodePtr>& bf, int p, long long ns, const std::string& sfx, const NodePtr& jInit) const {
    const int R = d_.factors[p], L = d_.length;
    const int butterflies = L / R;
    const long long twOffset = twiddleOffsets(d_.factors)[p];
    const bool padded = g_.padShift > 0;
    const int G = 1 << g_.padShift;
    const bool readLinear = !padded || butterflies % G == 0;  // pad(fbase + j + r B) = pad(fbase + j) + r (B + B / G)
    auto nm = [&](const std::string& base) { return base + sfx; };
    NodePtr j = var(nm("j"));
    bf.push_back(decl("const int", nm("j"), jInit));
    if (passTwiddled(d_.axes, ns)) {
      bf.push_back(decl("const int", nm("k"), bin("%", j, lit(ns))));
      // One pointer, constant offsets: written as twiddles[k + c], NVVM hoists R - 1 separate 64-bit
      // addresses out of the group loop (30 registers for radix 16) and the kernel spills.
      bf.push_back(decl("const " + cT_ + "*", nm("tw"), bin("+", var("twiddles"), bin("+", var(nm("k")), lit(twOffset)))));
    }
    if (readLinear) bf.push_back(decl("const int", nm("pj"), call("wf_pad", {bin("+", var("fbase"), j)})));
    std::vector<AstComplexOps::C> xs;
    for (int r = 0; r < R; ++r) {
      NodePtr v;
      const std::string a = fmt::format("a{}", r) + sfx, w = fmt::format("w{}", r) + sfx, b = fmt::format("b{}", r) + sfx;
      if (firstPass(p) && directIn_ && d_.inZeroFrom >= 0 && static_cast<long long>(r) * butterflies >= d_.inZeroFrom) {
        xs.push_back(AstComplexOps{bf, d_.f64}.zero());  // zero padding for every j: no load
        continue;
      }
      if (firstPass(p) && directIn_) {
        v = var(a);
        bf.push_back(decl(cT_, a, mk(num(0), num(0))));
        NodePtr i = bin("+", j, lit(static_cast<long long>(r) * butterflies));
        std::vector<NodePtr> get{assign(v, loadValue(address(d_.in, i, "ain")))};
        if (d_.loadTable) get.push_back(assign(v, cmul(v, index(var("load_table"), natural(i, d_.natInElem, d_.natInDigit0)))));
        NodePtr cond = var("live");
        if (d_.inValid >= 0) cond = bin("&&", cond, bin("<", natural(i, d_.natInElem, d_.natInDigit0), var("in_valid")));
        bf.push_back(ifStmt(cond, block(get)));
      } else if (readLinear && !(p == 0 && d_.fuse == Fuse::C2RPre)) {
        bf.push_back(decl(cT_, a, index(var("smem_all"), bin("+", var(nm("pj")), lit(r * (butterflies + (padded ? butterflies / G : 0)))))));
        v = var(a);
      } else {
        v = firstRead(bf, "fbase", bin("+", j, lit(static_cast<long long>(r) * butterflies)), a, p == 0);
      }
      if (d_.convolve && stage_ == 1 && p == 0) {  // the forward half left element k at shared index k
        const std::string c = fmt::format("c{}", r) + sfx;
        bf.push_back(decl(cT_, c, cmul(v, index(var("conv"), bin("+", j, lit(static_cast<long long>(r) * butterflies))))));
        v = var(c);
      }
      if (r > 0 && passTwiddled(d_.axes, ns)) {
        const int hi = derivedSplit(r);
        if (twiddleLoaded(r, g_.deriveTwiddles) && stage_ == 1 && d_.convolve) {  // W^-x = conj W^x
          const std::string t = fmt::format("t{}", r) + sfx;
          bf.push_back(decl(cT_, t, index(var(nm("tw")), lit((r - 1) * ns))));
          bf.push_back(decl(cT_, w, mk(member(var(t), "x"), unary("-", member(var(t), "y")))));
        } else if (twiddleLoaded(r, g_.deriveTwiddles))
          bf.push_back(decl(cT_, w, index(var(nm("tw")), lit((r - 1) * ns))));
        else
          bf.push_back(decl(cT_, w, cmul(var(fmt::format("w{}", hi) + sfx), var(fmt::format("w{}", r - hi) + sfx))));
        bf.push_back(decl(cT_, b, cmul(v, var(w))));
        v = var(b);
      }
      xs.push_back({member(v, "x"), member(v, "y")});
    }
    return xs;
  }

  // X[k] = E + W_N^k O, E = (za + conj zb) / 2, O = -i/2 (za - conj zb), za = Z[k], zb = Z[L - k]: the r2c
  // split of element k (W_N^k = store_table[k]), stored as element k of the output.
  std::vector<NodePtr> splitStore(const AstComplexOps::C& za, const AstComplexOps::C& zb, const NodePtr& k, const std::string& sfx) const {
    std::vector<NodePtr> out;
    const std::string ev = "ev" + sfx, od = "od" + sfx, wo = "wo" + sfx;
    out.push_back(decl(cT_, ev, mk(bin("*", num(0.5), bin("+", za.re, zb.re)), bin("*", num(0.5), bin("-", za.im, zb.im)))));
    out.push_back(decl(cT_, od, mk(bin("*", num(0.5), bin("+", za.im, zb.im)), bin("*", num(-0.5), bin("-", za.re, zb.re)))));
    out.push_back(decl(cT_, wo, cmul(index(var("store_table"), k), var(od))));
    out.push_back(decl(cT_, "v", mk(bin("+", member(var(ev), "x"), member(var(wo), "x")), bin("+", member(var(ev), "y"), member(var(wo), "y")))));
    for (auto& st : storeElement(k, "aout")) out.push_back(st);
    return out;
  }

  // The last pass of an r2c kernel with the split fused (KernelGeometry::fusedSplit): X[k] needs Z[k]
  // and Z[L - k]. Output k = j + o ns of butterfly j mirrors L - k = (ns - j) + (R - 1 - o) ns, an output
  // of butterfly ns - j, so a thread computes butterflies q and ns - q (q = 0..ns/2) and writes both
  // butterflies' outputs from registers: no staged element loop and no barrier after the last pass.
  // q = 0 pairs with itself (mirror of o ns is (R - o) ns) and also writes X[L]; q = ns / 2 pairs
  // with itself by the general rule.
  NodePtr splitPass(int p, long long ns) const {
    const int R = d_.factors[p], T = g_.threadsPerFft;
    const long long pairs = ns / 2 + 1;
    const int iters = static_cast<int>((pairs + T - 1) / T);
    std::vector<NodePtr> st{comment(fmt::format("pass {}: radix {}, {} butterflies as {} mirrored pairs, r2c split fused into the store", p, R, ns, pairs))};
    for (int it = 0; it < iters; ++it) {
      std::vector<NodePtr> bf;
      bf.push_back(decl("const int", "q", bin("+", var("t"), lit(it * T))));
      std::vector<NodePtr> ops;
      AstComplexOps ac{ops, d_.f64};
      std::vector<AstComplexOps::C> x1 = butterflyInputs(bf, p, ns, "", var("q"));
      std::vector<AstComplexOps::C> x2 = butterflyInputs(bf, p, ns, "_m", bin("%", bin("-", lit(ns), var("q")), lit(ns)));
      DftBuilder<AstComplexOps> dft(ac, d_.sign);
      std::vector<AstComplexOps::C> y1 = dft.dft(x1), y2 = dft.dft(x2);
      for (auto& o : ops) bf.push_back(o);
      // Mirrors of butterfly q's outputs: from butterfly ns - q, or (q = 0) from its own outputs.
      std::vector<NodePtr> live;
      for (int o = 0; o < R; ++o) {
        const AstComplexOps::C& m1 = y2[R - 1 - o];
        const AstComplexOps::C& m0 = y1[(R - o) % R];
        const std::string mr = fmt::format("m{}r", o), mi = fmt::format("m{}i", o);
        live.push_back(decl(d_.f64 ? "const double" : "const float", mr, ternary(bin("==", var("q"), lit(0)), m0.re, m1.re)));
        live.push_back(decl(d_.f64 ? "const double" : "const float", mi, ternary(bin("==", var("q"), lit(0)), m0.im, m1.im)));
        live.push_back(block(splitStore(y1[o], {var(mr), var(mi)}, bin("+", var("j"), lit(static_cast<long long>(o) * ns)), "")));
      }
      std::vector<NodePtr> second;
      for (int o = 0; o < R; ++o) second.push_back(block(splitStore(y2[o], y1[R - 1 - o], bin("+", var("j_m"), lit(static_cast<long long>(o) * ns)), "")));
      live.push_back(ifStmt(bin(">", var("q"), lit(0)), block(second)));
      live.push_back(ifStmt(bin("==", var("q"), lit(0)), block(splitStore(y1[0], y1[0], lit(d_.length), ""))));
      bf.push_back(ifStmt(var("live"), block(live)));
      st.push_back((it + 1) * T <= pairs ? block(bf) : ifStmt(bin("<", bin("+", var("t"), lit(it * T)), lit(pairs)), block(bf)));
    }
    return block(st);
  }

  // W_R^m as a table entry of the kernel's precision: {cos 2 pi m / R, sign sin 2 pi m / R}.
  std::string rootEntry(long long m, int R, int sign) const {
    const double a = 2.0 * M_PI * m / R;
    return d_.f64 ? fmt::format("{{{:.17e}, {:.17e}}}", std::cos(a), sign * std::sin(a)) : fmt::format("{{{:.9e}f, {:.9e}f}}", std::cos(a), sign * std::sin(a));
  }

  // The constants of a cooperative radix-R pass: W_R^m, m = 0..R-1.
  std::string coopTableName(int R, int sign) const { return fmt::format("wf_dft{}_{}", R, sign < 0 ? "fwd" : "inv"); }
  std::string coopTable(int R, int sign) const {
    std::string t = fmt::format("__constant__ {} {}[{}] = {{", cT_, coopTableName(R, sign), R);
    for (int m = 0; m < R; ++m) t += (m ? ", " : "") + rootEntry(m, R, sign);
    return t + "};";
  }

  // The coefficients of a streamed prime's output pairs (streamedPass, f64): row k - 1 holds W_R^(jk), j = 1..h.
  std::string pairTableName(int R, int sign) const { return fmt::format("wf_pairs{}_{}", R, sign < 0 ? "fwd" : "inv"); }
  std::string pairTable(int R, int sign) const {
    const int h = (R - 1) / 2;
    std::string t = fmt::format("__constant__ {} {}[{}] = {{", cT_, pairTableName(R, sign), h * h);
    for (int k = 1; k <= h; ++k)
      for (int j = 1; j <= h; ++j) t += (k + j > 2 ? ", " : "") + rootEntry(static_cast<long long>(j) * k % R, R, sign);
    return t + "};";
  }

  // A prime radix 37..127 computed by several threads per butterfly (CoopRadix.h): fold, items of G
  // output pairs in a rolled loop over the inputs, then the outputs to their Stockham slots.
  NodePtr coopPass(int p, long long ns) const {
    const int R = d_.factors[p], L = d_.length, T = g_.threadsPerFft;
    const int B = L / R, h = (R - 1) / 2;
    const CoopShape cs = coopShape(R, L, T);
    const int G = cs.pairs;
    coopTables_[coopTableName(R, stageSign())] = {R, coopTable(R, stageSign())};
    auto sm = [&](const NodePtr& i) { return shared("fbase", i); };
    auto rdecl = [&](const std::string& n, NodePtr e) { return decl(rT_, n, std::move(e)); };
    std::vector<NodePtr> st{comment(fmt::format("pass {}: radix {} cooperatively, {} butterflies x {} items of {} output pairs, sub-transforms {} -> {}", p, R, B,
                                                cs.groups, G, ns, ns * R))};
    // 1. fold: a_j = x_j w^(jk) + x_{R-j} w^((R-j)k) in slot j, b_j = the difference in slot R - j
    st.push_back(comment("fold: slot j <- x_j + x_{R-j}, slot R-j <- x_j - x_{R-j} (inputs times their twiddles)"));
    const long long twOffset = twiddleOffsets(d_.factors)[p];
    const int folds = B * h;
    {
      std::vector<NodePtr> b;
      b.push_back(decl("const int", "bf", bin("%", var("e"), lit(B))));
      b.push_back(decl("const int", "jj", bin("+", lit(1), bin("/", var("e"), lit(B)))));
      b.push_back(decl("const int", "lo", bin("+", var("bf"), bin("*", var("jj"), lit(B)))));
      b.push_back(decl("const int", "hi", bin("+", var("bf"), bin("*", bin("-", lit(R), var("jj")), lit(B)))));
      b.push_back(decl(cT_, "xl", sm(var("lo"))));
      b.push_back(decl(cT_, "xh", sm(var("hi"))));
      if (passTwiddled(d_.axes, ns)) {
        if (d_.convolve) throw std::logic_error("cooperative radix in a convolution kernel");
        NodePtr tw = bin("+", var("twiddles"), bin("+", bin("%", var("bf"), lit(ns)), lit(twOffset)));
        b.push_back(assign(var("xl"), cmul(var("xl"), index(tw, bin("*", bin("-", var("jj"), lit(1)), lit(ns))))));
        b.push_back(assign(var("xh"), cmul(var("xh"), index(tw, bin("*", bin("-", bin("-", lit(R), var("jj")), lit(1)), lit(ns))))));
      }
      b.push_back(assign(sm(var("lo")), mk(bin("+", member(var("xl"), "x"), member(var("xh"), "x")), bin("+", member(var("xl"), "y"), member(var("xh"), "y")))));
      b.push_back(assign(sm(var("hi")), mk(bin("-", member(var("xl"), "x"), member(var("xh"), "x")), bin("-", member(var("xl"), "y"), member(var("xh"), "y")))));
      st.push_back(forLoop(decl("int", "e", var("t")), bin("<", var("e"), lit(folds)), assign(var("e"), lit(T), "+="), block(b)));
    }
    st.push_back(exprStmt(call("__syncthreads", {})));
    // 2. items: outputs into registers
    const int per = 2 * G + 1;
    st.push_back(declArray(cT_, "x", cs.iters * per));
    const std::string table = coopTableName(R, stageSign());
    for (int it = 0; it < cs.iters; ++it) {
      std::vector<NodePtr> b{decl("const int", "e", bin("+", var("t"), lit(it * T)))};
      b.push_back(decl("const int", "bf", bin("%", var("e"), lit(B))));
      b.push_back(decl("const int", "grp", bin("/", var("e"), lit(B))));
      b.push_back(decl("const " + cT_, "x0", sm(var("bf"))));
      b.push_back(rdecl("sr", member(var("x0"), "x")));
      b.push_back(rdecl("si", member(var("x0"), "y")));
      for (int q = 0; q < G; ++q) {
        b.push_back(rdecl(fmt::format("ar{}", q), member(var("x0"), "x")));
        b.push_back(rdecl(fmt::format("ai{}", q), member(var("x0"), "y")));
        b.push_back(rdecl(fmt::format("br{}", q), num(0)));
        b.push_back(rdecl(fmt::format("bi{}", q), num(0)));
      }
      b.push_back(decl("const int", "k0", bin("+", bin("*", var("grp"), lit(G)), lit(1))));
      b.push_back(decl("int", "m", lit(0)));
      std::vector<NodePtr> body;
      body.push_back(decl("const " + cT_, "a", sm(bin("+", var("bf"), bin("*", var("jj"), lit(B))))));
      body.push_back(decl("const " + cT_, "d", sm(bin("+", var("bf"), bin("*", bin("-", lit(R), var("jj")), lit(B))))));
      body.push_back(assign(var("sr"), member(var("a"), "x"), "+="));
      body.push_back(assign(var("si"), member(var("a"), "y"), "+="));
      // m = j k0 mod R, then j (k0 + q) mod R for the item's other pairs: one counter, steps below R
      body.push_back(assign(var("m"), var("k0"), "+="));
      body.push_back(ifStmt(bin(">=", var("m"), lit(R)), block({assign(var("m"), lit(R), "-=")})));
      body.push_back(decl("int", "mq", var("m")));
      for (int q = 0; q < G; ++q) {
        const std::string c = fmt::format("c{}", q);
        if (q > 0) {
          body.push_back(assign(var("mq"), var("jj"), "+="));
          body.push_back(ifStmt(bin(">=", var("mq"), lit(R)), block({assign(var("mq"), lit(R), "-=")})));
        }
        body.push_back(decl("const " + cT_, c, index(var(table + "_s"), var("mq"))));
        body.push_back(assign(var(fmt::format("ar{}", q)), bin("*", member(var(c), "x"), member(var("a"), "x")), "+="));
        body.push_back(assign(var(fmt::format("ai{}", q)), bin("*", member(var(c), "x"), member(var("a"), "y")), "+="));
        body.push_back(assign(var(fmt::format("br{}", q)), bin("*", member(var(c), "y"), member(var("d"), "x")), "+="));
        body.push_back(assign(var(fmt::format("bi{}", q)), bin("*", member(var(c), "y"), member(var("d"), "y")), "+="));
      }
      b.push_back(forLoop(decl("int", "jj", lit(1)), bin("<=", var("jj"), lit(h)), assign(var("jj"), lit(1), "+="), block(body)));
      for (int q = 0; q < G; ++q) {  // y_k = A + iB, y_{R-k} = A - iB
        const std::string ar = fmt::format("ar{}", q), ai = fmt::format("ai{}", q), br = fmt::format("br{}", q), bi = fmt::format("bi{}", q);
        b.push_back(assign(index(var("x"), lit(it * per + 2 * q)), mk(bin("-", var(ar), var(bi)), bin("+", var(ai), var(br)))));
        b.push_back(assign(index(var("x"), lit(it * per + 2 * q + 1)), mk(bin("+", var(ar), var(bi)), bin("-", var(ai), var(br)))));
      }
      b.push_back(assign(index(var("x"), lit(it * per + 2 * G)), mk(var("sr"), var("si"))));
      st.push_back((it + 1) * T <= cs.items ? block(b) : ifStmt(bin("<", bin("+", var("t"), lit(it * T)), lit(cs.items)), block(b)));
    }
    st.push_back(exprStmt(call("__syncthreads", {})));
    // 3. outputs to their Stockham slots: base(b) + k ns
    for (int it = 0; it < cs.iters; ++it) {
      std::vector<NodePtr> w{decl("const int", "e", bin("+", var("t"), lit(it * T)))};
      w.push_back(decl("const int", "bf", bin("%", var("e"), lit(B))));
      w.push_back(decl("const int", "grp", bin("/", var("e"), lit(B))));
      NodePtr base = ns == 1 ? bin("*", var("bf"), lit(R)) : bin("+", bin("*", bin("/", var("bf"), lit(ns)), lit(ns * R)), bin("%", var("bf"), lit(ns)));
      w.push_back(decl("const int", "base", base));
      for (int q = 0; q < G; ++q) {
        const std::string k = fmt::format("k{}", q);
        std::vector<NodePtr> put{decl("const int", k, bin("+", bin("*", var("grp"), lit(G)), lit(q + 1)))};
        put.push_back(assign(sm(bin("+", var("base"), bin("*", var(k), lit(ns)))), index(var("x"), lit(it * per + 2 * q))));
        put.push_back(assign(sm(bin("+", var("base"), bin("*", bin("-", lit(R), var(k)), lit(ns)))), index(var("x"), lit(it * per + 2 * q + 1))));
        const bool always = (q + 1) + (cs.groups - 1) * G <= h;  // every group has this pair
        w.push_back(always ? block(put) : ifStmt(bin("<=", bin("+", bin("*", var("grp"), lit(G)), lit(q + 1)), lit(h)), block(put)));
      }
      w.push_back(ifStmt(bin("==", var("grp"), lit(0)), block({assign(sm(var("base")), index(var("x"), lit(it * per + 2 * G)))})));
      st.push_back((it + 1) * T <= cs.items ? block(w) : ifStmt(bin("<", bin("+", var("t"), lit(it * T)), lit(cs.items)), block(w)));
    }
    st.push_back(exprStmt(call("__syncthreads", {})));
    return block(st);
  }

  // How a pass addresses its outputs' Stockham slots base(b) + r ns in padded shared memory: from pb = pad(fbase + base)
  // by a constant per r where the padding allows it, else through wf_pad per output.
  struct SlotForm {
    bool small = false;  // pad(b + r ns) = pad(b) + r ns + r ns / G
    bool large = false;  // pad(b + r ns) = pad(b) + r (ns + ns / G)
    bool needsPb() const { return small || large; }
  };
  SlotForm slotForm(int R, long long ns) const {
    const int G = 1 << g_.padShift;
    const bool padded = g_.padShift > 0;
    return {!padded || (G % ns == 0 && ((ns * R) % G == 0 || G % (ns * R) == 0)), padded && ns % G == 0};
  }
  // Destination of output r of the butterfly whose base (and, where slotForm needs it, pb) the caller declared.
  NodePtr outputSlot(int R, long long ns, int r) const {
    const SlotForm f = slotForm(R, ns);
    const int G = 1 << g_.padShift;
    const bool padded = g_.padShift > 0;
    return f.small   ? index(var("smem_all"), bin("+", var("pb"), lit(r * ns + (padded ? (r * ns) / G : 0))))
           : f.large ? index(var("smem_all"), bin("+", var("pb"), lit(r * (ns + ns / G))))
                     : shared("fbase", bin("+", var("base"), lit(static_cast<long long>(r) * ns)));
  }
  // outputSlot for a run-time r.
  NodePtr outputSlotAt(int R, long long ns, const NodePtr& r) const {
    const SlotForm f = slotForm(R, ns);
    const int G = 1 << g_.padShift;
    NodePtr rns = bin("*", r, lit(ns));
    return f.small   ? index(var("smem_all"), bin("+", var("pb"), g_.padShift > 0 ? bin("+", rns, bin("/", rns, lit(G))) : rns))
           : f.large ? index(var("smem_all"), bin("+", var("pb"), bin("*", r, lit(ns + ns / G))))
                     : shared("fbase", bin("+", var("base"), rns));
  }

  // A cooperative prime computed whole by one thread per butterfly (CoopRadix.h streamedPrimeLimit): the inputs, times
  // their twiddles, folded into a_j = x_j + x_{R-j}, b_j = x_j - x_{R-j} (Butterfly.h's symmetric form) and held across
  // the pass's barrier; then each output pair y_k, y_{R-k} from constant coefficients, stored as soon as it is computed.
  NodePtr streamedPass(int p, long long ns) const {
    const int R = d_.factors[p], L = d_.length, T = g_.threadsPerFft;
    const int butterflies = L / R, h = (R - 1) / 2;
    if (butterflies > T) throw std::logic_error("streamed prime pass with more butterflies than threads");
    const bool lastDirect = directOut_ && lastPass(p);
    std::vector<NodePtr> st{comment(fmt::format("pass {}: radix {}, one butterfly per thread, outputs stored pair by pair, {} butterflies, sub-transforms {} -> {}",
                                                p, R, butterflies, ns, ns * R))};
    const bool guard = T > butterflies;
    auto guarded = [&](std::vector<NodePtr> b) { return guard ? ifStmt(bin("<", var("t"), lit(butterflies)), block(std::move(b))) : block(std::move(b)); };
    // fold
    std::vector<NodePtr> in;
    std::vector<NodePtr> ops;
    AstComplexOps ac{ops, d_.f64};
    std::vector<AstComplexOps::C> xs = butterflyInputs(in, p, ns, "", var("t"));
    std::vector<AstComplexOps::C> a, b;
    AstComplexOps::C sum = xs[0];
    for (int j = 1; j <= h; ++j) {
      a.push_back(ac.add(xs[j], xs[R - j]));
      b.push_back(ac.sub(xs[j], xs[R - j]));
      sum = ac.add(sum, a.back());
    }
    for (auto& o : ops) in.push_back(o);
    ops.clear();
    // Held across the barrier in registers: x0, the sum y0, a_j, b_j (constant indices only).
    auto held = [&](const std::string& n, int i) { return index(var(n), lit(i)); };
    auto heldC = [&](const std::string& n, int i) { return AstComplexOps::C{member(held(n, i), "x"), member(held(n, i), "y")}; };
    std::vector<NodePtr> out;
    if (!lastDirect) {
      st.push_back(declArray(cT_, "fa", h + 1));  // fa[0] = x0, fa[j] = a_j
      st.push_back(declArray(cT_, "fb", h + 1));  // fb[0] = y0, fb[j] = b_j
      in.push_back(assign(held("fa", 0), mk(xs[0].re, xs[0].im)));
      in.push_back(assign(held("fb", 0), mk(sum.re, sum.im)));
      for (int j = 1; j <= h; ++j) {
        in.push_back(assign(held("fa", j), mk(a[j - 1].re, a[j - 1].im)));
        in.push_back(assign(held("fb", j), mk(b[j - 1].re, b[j - 1].im)));
      }
      st.push_back(guarded(std::move(in)));
      st.push_back(exprStmt(call("__syncthreads", {})));
      xs[0] = heldC("fa", 0);
      sum = heldC("fb", 0);
      for (int j = 1; j <= h; ++j) {
        a[j - 1] = heldC("fa", j);
        b[j - 1] = heldC("fb", j);
      }
      out.push_back(decl("const int", "j", var("t")));
      NodePtr base = ns == 1 ? bin("*", var("j"), lit(R)) : bin("+", bin("*", bin("/", var("j"), lit(ns)), lit(ns * R)), bin("%", var("j"), lit(ns)));
      out.push_back(decl("const int", "base", base));
      if (slotForm(R, ns).needsPb()) out.push_back(decl("const int", "pb", call("wf_pad", {bin("+", var("fbase"), var("base"))})));
    } else {
      out = std::move(in);
    }
    // y stored as output r (a literal, or the pair loop's k where rIndex is given): to its Stockham slot, or (a direct
    // last pass) to element j + r ns of the FFT.
    auto put = [&](std::vector<NodePtr>& to, int r, const NodePtr& rIndex, NodePtr re, NodePtr im) {
      if (!lastDirect) {
        to.push_back(assign(rIndex ? outputSlotAt(R, ns, rIndex) : outputSlot(R, ns, r), mk(std::move(re), std::move(im))));
        return;
      }
      if (!rIndex && d_.outDropFrom >= 0 && static_cast<long long>(r) * ns >= d_.outDropFrom) return;
      NodePtr at = bin("+", var("j"), rIndex ? bin("*", rIndex, lit(ns)) : lit(static_cast<long long>(r) * ns));
      std::vector<NodePtr> v{decl(cT_, "v", mk(std::move(re), std::move(im)))};
      for (auto& s : storeElement(at, "aout")) v.push_back(s);
      NodePtr cond = var("live");
      if (rIndex && d_.outDropFrom >= 0) cond = bin("&&", cond, bin("<", at, lit(d_.outDropFrom)));
      to.push_back(ifStmt(cond, block(v)));
    };
    put(out, 0, nullptr, sum.re, sum.im);
    if (d_.f64) {
      // f64: a rolled loop over the pairs (the unrolled form, every pair's coefficients literals, took 255 registers and
      // spilled from 31 on), the coefficients W^(jk) of pair k read from a __constant__ table row: k is the same in every
      // lane, so each read is one broadcast.
      const std::string table = pairTableName(R, stageSign());
      constTables_[table] = pairTable(R, stageSign());
      std::vector<NodePtr> loop{decl("const " + cT_ + "*", "cw", bin("+", var(table), bin("*", bin("-", var("k"), lit(1)), lit(h))))};
      loop.push_back(decl(rT_, "ar", xs[0].re));
      loop.push_back(decl(rT_, "ai", xs[0].im));
      loop.push_back(decl(rT_, "br", ac.num(0)));
      loop.push_back(decl(rT_, "bi", ac.num(0)));
      for (int j = 1; j <= h; ++j) {
        const std::string c = fmt::format("c{}", j);
        loop.push_back(decl("const " + cT_, c, index(var("cw"), lit(j - 1))));
        loop.push_back(assign(var("ar"), bin("*", member(var(c), "x"), a[j - 1].re), "+="));
        loop.push_back(assign(var("ai"), bin("*", member(var(c), "x"), a[j - 1].im), "+="));
        loop.push_back(assign(var("br"), bin("*", member(var(c), "y"), b[j - 1].re), "+="));
        loop.push_back(assign(var("bi"), bin("*", member(var(c), "y"), b[j - 1].im), "+="));
      }
      put(loop, 0, var("k"), bin("-", var("ar"), var("bi")), bin("+", var("ai"), var("br")));
      put(loop, 0, bin("-", lit(R), var("k")), bin("+", var("ar"), var("bi")), bin("-", var("ai"), var("br")));
      out.push_back(raw("#pragma unroll 1"));
      out.push_back(forLoop(decl("int", "k", lit(1)), bin("<=", var("k"), lit(h)), assign(var("k"), lit(1), "+="), block(loop)));
    } else {
      // f32: every pair unrolled, its coefficients literals.
      for (int k = 1; k <= h; ++k) {
        AstComplexOps::C A = xs[0], B{};
        bool haveB = false;
        for (int j = 1; j <= h; ++j) {
          const double ang = 2.0 * M_PI * ((static_cast<long long>(j) * k) % R) / R;
          A = ac.add(A, ac.scale(a[j - 1], std::cos(ang)));
          AstComplexOps::C t = ac.scale(b[j - 1], stageSign() * std::sin(ang));
          B = haveB ? ac.add(B, t) : t;
          haveB = true;
        }
        const AstComplexOps::C iB = ac.mulI(B);
        const AstComplexOps::C yk = ac.add(A, iB), ym = ac.sub(A, iB);
        for (auto& o : ops) out.push_back(o);
        ops.clear();
        put(out, k, nullptr, yk.re, yk.im);
        put(out, R - k, nullptr, ym.re, ym.im);
      }
    }
    st.push_back(guarded(std::move(out)));
    if (!lastDirect) st.push_back(exprStmt(call("__syncthreads", {})));
    return block(st);
  }

  NodePtr pass(int p, long long ns) const {
    if (isCoopRadix(d_.factors[p], threadPrimeLimit(d_.f64)))
      return streamsPass(d_, g_, d_.factors[p]) ? streamedPass(p, ns) : coopPass(p, ns);
    const int R = d_.factors[p], L = d_.length, T = g_.threadsPerFft;
    const int butterflies = L / R, iters = (butterflies + T - 1) / T;
    const bool lastDirect = directOut_ && lastPass(p);
    if (lastDirect && d_.fuse == Fuse::R2CPost) return splitPass(p, ns);
    std::vector<NodePtr> st{comment(fmt::format("pass {}{}: radix {}, {} butterflies, sub-transforms {} -> {}", p, d_.convolve ? (stage_ ? " (inverse)" : " (forward)") : "", R,
                                                butterflies, ns, ns * R))};
    st.push_back(declArray(cT_, "x", iters * R));
    for (int it = 0; it < iters; ++it) {
      std::vector<NodePtr> bf;
      NodePtr j = var("j");
      std::vector<NodePtr> ops;
      AstComplexOps ac{ops, d_.f64};
      std::vector<AstComplexOps::C> xs = butterflyInputs(bf, p, ns, "", bin("+", var("t"), lit(it * T)));
      DftBuilder<AstComplexOps> dft(ac, stageSign());
      std::vector<AstComplexOps::C> ys = dft.dft(xs);
      for (auto& o : ops) bf.push_back(o);
      if (lastDirect) {
        // last pass: output k = j + o ns is element k of the FFT (ns = L / R, j < ns)
        for (int o = 0; o < R; ++o) {
          if (d_.outDropFrom >= 0 && o * ns >= d_.outDropFrom) continue;  // never stored, for any j
          std::vector<NodePtr> put{decl(cT_, "v", mk(ys[o].re, ys[o].im))};
          NodePtr k = bin("+", j, lit(static_cast<long long>(o) * ns));
          for (auto& st : storeElement(k, "aout")) put.push_back(st);
          bf.push_back(ifStmt(var("live"), block(put)));
        }
      } else {
        for (int o = 0; o < R; ++o) bf.push_back(assign(index(var("x"), lit(it * R + o)), mk(ys[o].re, ys[o].im)));
      }
      st.push_back((it + 1) * T <= butterflies ? block(bf) : ifStmt(bin("<", bin("+", var("t"), lit(it * T)), lit(butterflies)), block(bf)));
    }
    if (lastDirect) return block(st);
    st.push_back(exprStmt(call("__syncthreads", {})));
    for (int it = 0; it < iters; ++it) {
      std::vector<NodePtr> w;
      w.push_back(decl("const int", "j", bin("+", var("t"), lit(it * T))));
      NodePtr j = var("j");
      NodePtr base = ns == 1 ? bin("*", j, lit(R)) : bin("+", bin("*", bin("/", j, lit(ns)), lit(ns * R)), bin("%", j, lit(ns)));
      w.push_back(decl("const int", "base", base));
      if (slotForm(R, ns).needsPb()) w.push_back(decl("const int", "pb", call("wf_pad", {bin("+", var("fbase"), var("base"))})));
      for (int r = 0; r < R; ++r) w.push_back(assign(outputSlot(R, ns, r), index(var("x"), lit(it * R + r))));
      st.push_back((it + 1) * T <= butterflies ? block(w) : ifStmt(bin("<", bin("+", var("t"), lit(it * T)), lit(butterflies)), block(w)));
    }
    st.push_back(exprStmt(call("__syncthreads", {})));
    return block(st);
  }

  std::vector<NodePtr> storeStage() {
    const int L = d_.length;
    const int count = L + (d_.fuse == Fuse::R2CPost ? 1 : 0);
    if (d_.fuse == Fuse::None && d_.bigN == 0 && contiguous(d_.out, count) && d_.natOutDigit0 == 0) {
      Vector vec = vectorOf(d_.out, count, d_.storeTable || d_.outValid >= 0);
      if (vec.V) {
        g_.vectorBytesOut = vec.words * 4;
        return vectorStore(count, vec);
      }
    }
    if (d_.fuse == Fuse::None && d_.bigN == 0 && contiguous(d_.out, count) && d_.natOutDigit0 == 0)
      return runLoop(count, [&] {
        std::vector<NodePtr> b{decl(cT_, "v", shared(blockIndex(var("e"), count)))};
        NodePtr at = bin("+", var("base"), var("e"));
        if (isReal(d_.out.storage)) at = bin("*", at, lit(2));
        std::vector<NodePtr> active =
            storeGuarded(bin("+", lit(d_.out.offset), at), "const int", bin("*", bin("%", var("e"), lit(count)), lit(d_.natOutElem)));
        b.push_back(ifStmt(bin("<", var("e"), var("limit")), block(active)));
        return b;
      });
    return flatLoop(count, g_.fftMajorStore, d_.out, [&] {
      std::vector<NodePtr> b;
      std::vector<NodePtr> active;
      if (d_.fuse == Fuse::R2CPost) {
        // X[k] = E + W^k O with E = (Z[k] + conj Z[L-k]) / 2, O = -i/2 (Z[k] - conj Z[L-k])
        active.push_back(decl(cT_, "za", shared("sbase", bin("%", var("i"), lit(L)))));
        active.push_back(decl(cT_, "zb", shared("sbase", bin("%", bin("-", lit(L), var("i")), lit(L)))));
        active.push_back(decl(cT_, "ev", mk(bin("*", num(0.5), bin("+", member(var("za"), "x"), member(var("zb"), "x"))),
                                            bin("*", num(0.5), bin("-", member(var("za"), "y"), member(var("zb"), "y"))))));
        active.push_back(decl(cT_, "od", mk(bin("*", num(0.5), bin("+", member(var("za"), "y"), member(var("zb"), "y"))),
                                            bin("*", num(-0.5), bin("-", member(var("za"), "x"), member(var("zb"), "x"))))));
        active.push_back(decl(cT_, "wo", cmul(index(var("store_table"), var("i")), var("od"))));
        active.push_back(decl(cT_, "v", mk(bin("+", member(var("ev"), "x"), member(var("wo"), "x")), bin("+", member(var("ev"), "y"), member(var("wo"), "y")))));
      } else if (d_.factors.empty() && d_.fuse == Fuse::C2RPre) {
        NodePtr z = firstRead(active, "sbase", var("i"), "z", true);
        active.push_back(decl(cT_, "v", z));
      } else {
        active.push_back(decl(cT_, "v", shared("sbase", var("i"))));
      }
      if (d_.bigN > 0) {
        active.push_back(decl("const long long", "m", bin("*", cast("long long", var("i")), var("d0"))));
        active.push_back(assign(var("v"), cmul(var("v"), cmul(index(var("big_lo"), bin("%", var("m"), lit(d_.bigSplit))),
                                                                 index(var("big_hi"), bin("/", var("m"), lit(d_.bigSplit)))))));
      }
      for (auto& st : storeGuarded(address(d_.out, var("i")), "const long long", natural(var("i"), d_.natOutElem, d_.natOutDigit0)))
        active.push_back(st);
      b.push_back(ifStmt(bin("<", var("g"), var("ffts")), block(active)));
      return b;
    });
  }

  const KernelDesc& d_;
  KernelGeometry g_;
  // Which half of a convolution kernel (KernelDesc::convolve) the passes being emitted belong to.
  int stage_ = 0;
  bool directIn_ = false, directOut_ = false;
  std::string cT_, rT_;
  int NT_ = 1;
  // The cooperative passes' constants: name -> (radix, __constant__ definition).
  mutable std::map<std::string, std::pair<int, std::string>> coopTables_;
  // Tables read in place from __constant__ memory (every lane the same entry): name -> definition.
  mutable std::map<std::string, std::string> constTables_;
};

}  // namespace

std::string storageElementType(Storage s, bool planar) {
  switch (s) {
    case Storage::C16: return planar ? "__half" : "__half2";
    case Storage::C32: return planar ? "float" : "float2";
    case Storage::C64: return planar ? "double" : "double2";
    case Storage::CI8: return planar ? "signed char" : "char2";
    case Storage::CI4: return "signed char";
    case Storage::R16: return "__half";
    case Storage::R32: return "float";
    case Storage::R64: return "double";
  }
  return "?";
}

StockhamKernel emitStockhamKernel(const KernelDesc& d, int registerTarget, int maxThreadsPerFft, int indexPerGroup) {
  long long prod = 1;
  for (int r : d.factors) prod *= r;
  // No factors: a copy kernel (its fusions only: the r2c split, the c2r merge).
  if (!d.factors.empty() && prod != d.length)
    throw std::invalid_argument(fmt::format("kernel {}: factors multiply to {}, not {}", d.kernelName, prod, d.length));
  return Emitter(d, registerTarget, maxThreadsPerFft, indexPerGroup).run();
}

}  // namespace warpforge
