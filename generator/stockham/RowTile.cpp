// Row tiling: consecutive threads walk consecutive elements of the block's FFTs (element-major). Where the block's
// FFTs are one contiguous run of memory laid out as in shared memory, the run is copied as a whole: in 16-byte
// vectors (8 for ci4) where the element type and alignment allow, else one element per thread and step. Otherwise
// an element loop over (FFT, element) pairs addresses each element through its FFT's digits.
#include "generator/stockham/ElementIo.h"
#include "generator/stockham/FusedPlanes.h"
#include "generator/stockham/Tiling.h"

#include <fmt/format.h>

namespace warpforge {

using namespace ast;

namespace {

// 16-byte vector accesses (8 for ci4) in the contiguous path: V complex elements per access.
struct Vector {
  int V = 0, words = 0;
  std::string type;
};

class RowTile : public Tiling {
 public:
  std::string name() const override { return "element-major"; }

  std::vector<NodePtr> load(KernelContext& k) const override {
    const KernelDesc& d = k.d;
    const int count = loadCount(d);
    if (d.fuse != Fuse::PlaneMerge && contiguous(k, d.in, count) && d.natInDigit0 == 0) {
      Vector vec = vectorOf(d, d.in, count, d.loadTable || d.inValid >= 0);
      if (vec.V) {
        k.g.vectorBytesIn = vec.words * 4;
        return vectorLoad(k, count, vec);
      }
      return runLoop(k, count, [&] {
        std::vector<NodePtr> b{decl(k.cT, "v", k.mk(k.num(0), k.num(0)))};
        NodePtr at = bin("+", var("base"), var("e"));  // complex element of the block's run
        if (isReal(d.in.storage) && !d.in.scalarReal) at = bin("*", at, lit(2));
        std::vector<NodePtr> active = loadGuarded(k, bin("+", lit(d.in.offset), at), "const int",
                                                  bin("*", bin("%", var("e"), lit(count)), lit(d.natInElem)));
        b.push_back(ifStmt(bin("<", var("e"), var("limit")), block(active)));
        b.push_back(assign(k.shared(blockIndex(k, var("e"), count, true)), var("v")));
        return b;
      });
    }
    return elementLoop(k, count, d.in, loadElementBody(k));
  }

  std::vector<NodePtr> store(KernelContext& k) const override {
    const KernelDesc& d = k.d;
    const int count = storeCount(d);
    // (A real plane's c2r merge is all in its load: its store is a plain one.)
    if ((d.fuse == Fuse::None || d.fuse == Fuse::PlaneMerge) && d.bigN == 0 && contiguous(k, d.out, count) &&
        d.natOutDigit0 == 0) {
      Vector vec = vectorOf(d, d.out, count, d.storeTable || d.outValid >= 0);
      if (vec.V) {
        k.g.vectorBytesOut = vec.words * 4;
        return vectorStore(k, count, vec);
      }
      return runLoop(k, count, [&] {
        std::vector<NodePtr> b{decl(k.cT, "v", k.shared(blockIndex(k, var("e"), count)))};
        NodePtr at = bin("+", var("base"), var("e"));
        if (isReal(d.out.storage) && !d.out.scalarReal) at = bin("*", at, lit(2));
        std::vector<NodePtr> active = storeGuarded(k, bin("+", lit(d.out.offset), at), "const int",
                                                   bin("*", bin("%", var("e"), lit(count)), lit(d.natOutElem)));
        b.push_back(ifStmt(bin("<", var("e"), var("limit")), block(active)));
        return b;
      });
    }
    return elementLoop(k, count, d.out, storeElementBody(k));
  }

  // rowLoadAsync (Tiling.h): each element one cp.async of the compute type's complex (8 or 16 bytes: the padded shared
  // layout aligns no wider), those past the block's last FFT zero-filled.
  static std::vector<NodePtr> asyncLoad(const KernelContext& k) {
    const KernelDesc& d = k.d;
    const Access& a = d.in;
    const int count = loadCount(d);
    if (d.fuse == Fuse::PlaneMerge || !contiguous(k, a, count) || d.natInDigit0 != 0 || a.planar ||
        (isReal(a.storage) && a.offset % 2))
      return {};
    const int bytes = d.f64 ? 16 : 8;
    std::vector<NodePtr> out = runHead(count);
    const long long off = isReal(a.storage) ? a.offset / 2 : a.offset;  // in complex elements
    NodePtr first = isReal(a.storage) ? bin("+", var("in"), bin("*", bin("+", lit(off), var("base")), lit(2)))
                                      : bin("+", var("in"), bin("+", lit(off), var("base")));
    out.push_back(decl("const " + k.cT + "*", "src", cast("const " + k.cT + "*", first)));
    const int total = k.g.fftsPerBlock * count;
    for (auto& s : k.unrolled(
             total, k.NT,
             [&](int it) {
               NodePtr e = bin("+", var("tid"), lit(it * k.NT));
               return std::vector<NodePtr>{
                   exprStmt(call(fmt::format("wf_copy_async{}", bytes),
                                 {unary(UnaryOp::AddressOf, k.shared(blockIndex(k, e, count, true))),
                                  bin("+", var("src"), e), bin("<", e, var("limit"))}))};
             },
             [&](int it) { return bin("+", var("tid"), lit(it * k.NT)); }))
      out.push_back(s);
    return {block(out)};
  }

 private:
  // The block's FFTs are one contiguous run of memory laid out as in shared memory (a scalar real array: one scalar
  // per element, so that the run needs no division by the length per element: an odd c2r of 31 on one thread per
  // FFT held 31 hoisted (FFT, element) pairs across its passes and spilled).
  static bool contiguous(const KernelContext& k, const Access& a, int count) {
    if (k.d.mirrored || a.hermitianN || a.pairOffset) return false;
    if (a.scalarReal) return a.elemStride == 1 && k.collapsible(a) && a.batchStride[0] == count;
    if (isReal(a.storage)) return realVector(a) && k.collapsible(a) && a.batchStride[0] == 2 * count;
    return a.elemStride == 1 && k.collapsible(a) && a.batchStride[0] == count;
  }

  // Element e of the block's run (count per FFT) in unpadded shared coordinates; `loaded`: where the load puts it
  // (digit-reversed within each FFT for fused planes).
  static NodePtr blockIndex(const KernelContext& k, const NodePtr& e, int count, bool loaded = false) {
    const FusedPlanes planes(k.d);
    const bool reversed = loaded && planes.active();
    if (k.g.smemStride == count && !reversed) return e;
    NodePtr within = bin("%", e, lit(count));
    return bin("+", bin("*", bin("/", e, lit(count)), lit(k.g.smemStride)),
               reversed ? planes.loadIndex(within) : within);
  }

  // Element (fl, i) of the block per thread and step: e = tid + it * NT, fl = e / count, i = e % count.
  static std::vector<NodePtr> elementLoop(const KernelContext& k, int count, const Access& a,
                                          const std::vector<NodePtr>& body) {
    const int total = k.g.fftsPerBlock * count;
    std::vector<NodePtr> out;
    for (int it = 0; it * k.NT < total; ++it) {
      std::vector<NodePtr> b;
      NodePtr e = bin("+", var("tid"), lit(it * k.NT));
      b.push_back(decl("const int", "e", e));
      b.push_back(decl("const int", "fl", bin("/", var("e"), lit(count))));
      b.push_back(decl("const int", "i", bin("%", var("e"), lit(count))));
      fftPrologue(k, b, a);
      b.insert(b.end(), body.begin(), body.end());
      out.push_back((it + 1) * k.NT <= total ? block(b) : ifStmt(bin("<", e, lit(total)), block(b)));
    }
    return out;
  }

  // Contiguous path: element e of the block is smem_all[e] and in/out[offset + first * count + e].
  template <class Body>
  static std::vector<NodePtr> runLoop(const KernelContext& k, int count, Body bodyFn) {
    std::vector<NodePtr> out = runHead(count);
    const int total = k.g.fftsPerBlock * count;
    for (int it = 0; it * k.NT < total; ++it) {
      std::vector<NodePtr> b{decl("const int", "e", bin("+", var("tid"), lit(it * k.NT)))};
      for (auto& st : bodyFn()) b.push_back(st);
      out.push_back((it + 1) * k.NT <= total
                        ? block(b)
                        : ifStmt(bin("<", bin("+", var("tid"), lit(it * k.NT)), lit(total)), block(b)));
    }
    return {block(out)};
  }

  static Vector vectorOf(const KernelDesc& d, const Access& a, int count, bool tables) {
    if (d.f64 || a.planar || a.scalarReal || tables) return {};
    int V = 0, words = 4;
    switch (a.storage) {
      case Storage::C32:
      case Storage::R32: V = 2; break;
      case Storage::C16:
      case Storage::R16: V = 4; break;
      case Storage::CI8: V = 8; break;
      case Storage::CI4:
        V = 8;
        words = 2;
        break;
      default: return {};
    }
    long long offsetElems = isReal(a.storage) ? a.offset / 2 : a.offset;
    if (count % V || offsetElems % V || (isReal(a.storage) && a.offset % 2)) return {};
    return {V, words, words == 4 ? "uint4" : "uint2"};
  }

  // Complex element u of a loaded vector `w` (its 32-bit words w.x, w.y, ...).
  static NodePtr unpack(const KernelContext& k, Storage s, const NodePtr& w, int u) {
    auto word = [&](int i) { return member(w, std::string(1, "xyzw"[i])); };
    switch (s) {
      case Storage::C32:
      case Storage::R32:
        return k.mk(call("__uint_as_float", {word(2 * u)}), call("__uint_as_float", {word(2 * u + 1)}));
      case Storage::C16:
      case Storage::R16: return call("wf_half2_to_float2", {word(u)});
      case Storage::CI8: return call("wf_i8", {word(u / 2), lit(u % 2)});
      default: return call("wf_i4", {word(u / 4), lit(u % 4)});
    }
  }

  // The block's run: its first element (base) and the elements that belong to live FFTs (limit).
  static std::vector<NodePtr> runHead(int count) {
    return {decl("const long long", "base", bin("*", var("first"), lit(count))),
            decl("const long long", "limit", bin("*", bin("-", var("ffts"), var("first")), lit(count)))};
  }

  static std::vector<NodePtr> vectorLoad(const KernelContext& k, int count, const Vector& vec) {
    const Access& a = k.d.in;
    std::vector<NodePtr> out = runHead(count);
    long long off = isReal(a.storage) ? a.offset / 2 : a.offset;  // in complex elements
    NodePtr first = isReal(a.storage) ? bin("+", var("in"), bin("*", bin("+", lit(off), var("base")), lit(2)))
                                      : bin("+", var("in"), bin("+", lit(off), var("base")));
    out.push_back(decl("const " + vec.type + "*", "src", cast("const " + vec.type + "*", first)));
    const int total = k.g.fftsPerBlock * count / vec.V;
    for (int it = 0; it * k.NT < total; ++it) {
      std::vector<NodePtr> b{decl("const int", "ev", bin("+", var("tid"), lit(it * k.NT)))};
      b.push_back(decl(vec.type, "w", call("make_" + vec.type, std::vector<NodePtr>(vec.words, lit(0)))));
      b.push_back(ifStmt(bin("<", bin("*", var("ev"), lit(vec.V)), var("limit")),
                         block({assign(var("w"), index(var("src"), var("ev")))})));
      for (int u = 0; u < vec.V; ++u)
        b.push_back(assign(k.shared(blockIndex(k, bin("+", bin("*", var("ev"), lit(vec.V)), lit(u)), count, true)),
                           unpack(k, a.storage, var("w"), u)));
      out.push_back((it + 1) * k.NT <= total
                        ? block(b)
                        : ifStmt(bin("<", bin("+", var("tid"), lit(it * k.NT)), lit(total)), block(b)));
    }
    return {block(out)};
  }

  static std::vector<NodePtr> vectorStore(const KernelContext& k, int count, const Vector& vec) {
    const Access& a = k.d.out;
    std::vector<NodePtr> out = runHead(count);
    long long off = isReal(a.storage) ? a.offset / 2 : a.offset;
    NodePtr first = isReal(a.storage) ? bin("+", var("out"), bin("*", bin("+", lit(off), var("base")), lit(2)))
                                      : bin("+", var("out"), bin("+", lit(off), var("base")));
    out.push_back(decl(vec.type + "*", "dst", cast(vec.type + "*", first)));
    const int total = k.g.fftsPerBlock * count / vec.V;
    const bool half = isHalf(a.storage);
    for (int it = 0; it * k.NT < total; ++it) {
      std::vector<NodePtr> b{decl("const int", "ev", bin("+", var("tid"), lit(it * k.NT)))};
      std::vector<NodePtr> words;
      for (int u = 0; u < vec.V; ++u) {
        const std::string v = fmt::format("v{}", u);
        b.push_back(decl(k.cT, v, k.shared(blockIndex(k, bin("+", bin("*", var("ev"), lit(vec.V)), lit(u)), count))));
        if (half) {
          words.push_back(call("wf_float2_to_half2", {var(v)}));
        } else {
          words.push_back(call("__float_as_uint", {member(var(v), "x")}));
          words.push_back(call("__float_as_uint", {member(var(v), "y")}));
        }
      }
      b.push_back(ifStmt(bin("<", bin("*", var("ev"), lit(vec.V)), var("limit")),
                         block({assign(index(var("dst"), var("ev")), call("make_" + vec.type, words))})));
      out.push_back((it + 1) * k.NT <= total
                        ? block(b)
                        : ifStmt(bin("<", bin("+", var("tid"), lit(it * k.NT)), lit(total)), block(b)));
    }
    return {block(out)};
  }
};

}  // namespace

const Tiling& rowTiling() {
  static const RowTile t;
  return t;
}

std::vector<NodePtr> rowLoadAsync(const KernelContext& k) { return RowTile::asyncLoad(k); }

}  // namespace warpforge
