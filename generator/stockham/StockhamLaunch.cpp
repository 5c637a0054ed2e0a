#include "generator/stockham/StockhamLaunch.h"

#include "generator/stockham/LongFftFactors.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "generator/stockham/CoopRadix.h"
#include "generator/stockham/StockhamLayout.h"
#include "warpforge/spec_error.h"

namespace warpforge {

namespace {

int typeBytes(const std::string& t) {
  if (t == "__half2" || t == "float") return 4;
  if (t == "__half" || t == "char2") return 2;
  if (t == "float2" || t == "double") return 8;
  if (t == "double2") return 16;
  if (t == "signed char") return 1;
  throw std::logic_error("stockham: no size for element type " + t);
}

Storage complexStorage(Precision p) {
  return p == Precision::F16 ? Storage::C16 : p == Precision::F32 ? Storage::C32 : Storage::C64;
}
Storage realStorage(Precision p) {
  return p == Precision::F16 ? Storage::R16 : p == Precision::F32 ? Storage::R32 : Storage::R64;
}

// Tables in the compute type, as the old runtime uploaded them: float2 rounds each part of the double value once.
PlanBuffer table(const std::string& name, const std::vector<std::complex<double>>& t, bool f64,
                 const std::string& note) {
  PlanBuffer b;
  b.name = name;
  b.role = BufferRole::Table;
  b.elementType = f64 ? "double2" : "float2";
  b.elementBytes = f64 ? 16 : 8;
  b.scalar = f64 ? "double" : "float";
  b.fixedElems = static_cast<long long>(t.size());
  b.contents.resize(t.size() * b.elementBytes);
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (f64) {
      double v[2] = {t[i].real(), t[i].imag()};
      std::memcpy(b.contents.data() + 16 * i, v, 16);
    } else {
      float v[2] = {static_cast<float>(t[i].real()), static_cast<float>(t[i].imag())};
      std::memcpy(b.contents.data() + 8 * i, v, 8);
    }
  }
  b.note = note;
  return b;
}

}  // namespace

std::string stockhamInputType(const StockhamSpec& s) {
  if (s.transform == Transform::R2C) return storageElementType(realStorage(s.precision), false);
  Storage st = s.input.type == InputType::CI8   ? Storage::CI8
               : s.input.type == InputType::CI4 ? Storage::CI4
                                                : complexStorage(s.precision);
  return storageElementType(st, s.input.planar);
}

std::string stockhamOutputType(const StockhamSpec& s) {
  if (s.transform == Transform::C2R) return storageElementType(realStorage(s.precision), false);
  return storageElementType(complexStorage(s.precision), s.output.planar);
}

long long stockhamSpan(const StockhamIo& io, const std::vector<long long>& shape) {
  long long last = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) last += (shape[d] - 1) * io.strides[d];
  return last + 1;
}

LaunchPlan stockhamLaunchPlan(const StockhamSpec& s, const StockhamPlan& plan,
                              const std::vector<StockhamKernel>& kernels) {
  if (kernels.size() != plan.kernels.size())
    throw std::logic_error("stockhamLaunchPlan: one emitted kernel per plan kernel");
  LaunchPlan lp;
  lp.specName = s.name;
  lp.family = "stockham";
  lp.unitName = "FFT";
  lp.minArch = 70;  // half conversions and 64-bit atomics; tested on sm_80 and sm_90

  // Vector widths of the user arrays: every kernel that touches an array constrains its pointer
  // (in place, the input is the output: one pointer for both).
  int alignIn = 0, alignOut = 0;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const auto& pk = plan.kernels[i];
    const KernelGeometry& g = kernels[i].geom;
    if (pk.src == Buffer::Input) alignIn = std::max(alignIn, g.vectorBytesIn);
    if (pk.src == Buffer::Output) alignOut = std::max(alignOut, g.vectorBytesIn);
    if (pk.dst == Buffer::Output) alignOut = std::max(alignOut, g.vectorBytesOut);
  }
  if (s.inPlace) alignIn = alignOut = std::max(alignIn, alignOut);

  auto user = [&](const std::string& name, BufferRole role, const std::string& type, const StockhamIo& io,
                  const std::vector<long long>& shape, int align, const std::string& alias, const std::string& note) {
    PlanBuffer b;
    b.name = name;
    b.role = role;
    b.elementType = type;
    b.elementBytes = typeBytes(type);
    // extent(B) = offset + (B - 1) distance + span
    b.perBatchElems = io.distance;
    b.fixedElems = io.offset + stockhamSpan(io, shape) - io.distance;
    b.alignment = align;
    b.aliasOf = alias;
    // Interleaved entries (element stride 4, distance 1) stay apart only up to some batch.
    if (role == BufferRole::Output) b.maxBatch = stockhamMaxBatch(io, shape, s.file, "/output");
    b.note = note;
    lp.buffers.push_back(std::move(b));
  };
  const std::string inT = stockhamInputType(s), outT = stockhamOutputType(s);
  const auto inShape = s.inShape(), outShape = s.outShape();
  user("input", BufferRole::Input, inT, s.input, inShape, alignIn, "", s.input.planar ? "real parts" : "");
  if (s.input.planar) user("input_im", BufferRole::Input, inT, s.input, inShape, alignIn, "", "imaginary parts");
  user("output", BufferRole::Output, outT, s.output, outShape, alignOut, s.inPlace ? "input" : "",
       s.output.planar ? "real parts" : "");
  if (s.output.planar)
    user("output_im", BufferRole::Output, outT, s.output, outShape, alignOut, s.inPlace ? "input_im" : "",
         "imaginary parts");

  const std::string cT = plan.f64 ? "double2" : "float2";
  const int cb = plan.f64 ? 16 : 8;
  for (int t = 0; t < 3; ++t) {
    if (!plan.tmpElemsPerBatch[t]) continue;
    PlanBuffer b;
    b.name = t == 0 ? "tmp0" : t == 1 ? "tmp1" : "tmp2";
    b.role = BufferRole::Scratch;
    b.elementType = plan.tmpHalf[t] ? "__half2" : cT;
    b.elementBytes = plan.tmpHalf[t] ? 4 : cb;
    b.perBatchElems = plan.tmpElemsPerBatch[t];
    lp.buffers.push_back(std::move(b));
  }

  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const StockhamPlanKernel& pk = plan.kernels[i];
    const StockhamKernel& k = kernels[i];
    const KernelGeometry& g = k.geom;
    const std::string prefix = fmt::format("k{}_", i);
    auto tableArg = [&](const char* what, const std::vector<std::complex<double>>& t, const char* note) {
      if (t.empty()) return PlanArg::null("const " + cT + "*", what);
      lp.buffers.push_back(table(prefix + what, t, plan.f64, note));
      return PlanArg::buffer(prefix + what, "const " + cT + "*", what);
    };
    auto arrays = [&](Buffer b, bool src) -> std::pair<PlanArg, PlanArg> {
      const Storage st = src ? k.desc.in.storage : k.desc.out.storage;
      const bool planar = src ? k.desc.in.planar : k.desc.out.planar;
      const std::string type = (src ? "const " : "") + storageElementType(st, planar) + "*";
      const char* re = src ? "in" : "out";
      const std::string im = std::string(re) + "_im";
      const std::string name = bufferName(b);
      // Scratch is interleaved in the compute type; planar user arrays pass their second array.
      const bool hasIm = (b == Buffer::Input && s.input.planar) || (b == Buffer::Output && s.output.planar);
      return {PlanArg::buffer(name, type, re),
              hasIm ? PlanArg::buffer(name + "_im", type, im) : PlanArg::null(type, im)};
    };
    PlanKernel lk;
    lk.name = pk.desc.kernelName;
    lk.source = static_cast<int>(lp.sources.size());
    lp.sources.push_back({pk.desc.kernelName + ".cu", k.source});
    lk.blockX = g.threadsPerFft * g.fftsPerBlock;
    lk.sharedBytes = g.sharedBytes;
    // Persistent kernels loop over their groups: every resident slot filled (fewer blocks with an equal share each
    // ran slightly slower).
    // A paired batch runs half as many FFTs as entries x FFTs per entry: half the blocks (the group loop takes the odd
    // count's last pair).
    lk.grid = GridRule{pk.fftsPerBatch, g.fftsPerBlock * (pk.desc.pairedBatch ? 2 : 1), g.persistent};
    lk.note = pk.note;
    auto [in, inIm] = arrays(pk.src, true);
    auto [out, outIm] = arrays(pk.dst, false);
    lk.args = {in, inIm, out, outIm};
    lk.args.push_back(tableArg("twiddles", pk.twiddles, "twiddles W^(r k) of every radix pass after the first"));
    lk.args.push_back(
        tableArg("load_table", pk.loadTable, "multiplied into the load (chirp, or W_N^k of the c2r merge)"));
    lk.args.push_back(
        tableArg("store_table", pk.storeTable, "multiplied into the store (chirp, or W_N^k of the r2c split)"));
    lk.args.push_back(tableArg("big_lo", pk.bigLo,
                               pk.desc.convolve
                                   ? "FFT(conj chirp)/M, multiplied between the halves of the Bluestein convolution"
                                   : "four-step twiddle, low part"));
    lk.args.push_back(tableArg("big_hi", pk.bigHi, "four-step twiddle, high part"));
    lk.args.push_back(PlanArg::batchTimes(pk.fftsPerBatch, pk.desc.pairedBatch ? "entries" : "ffts"));
    lk.args.push_back(PlanArg::literal(pk.desc.inValid, "long long", "in_valid"));
    lk.args.push_back(PlanArg::literal(pk.desc.outValid, "long long", "out_valid"));
    if (g.workQueue) {
      PlanBuffer w;
      w.name = prefix + "work";
      w.role = BufferRole::Counter;
      w.elementType = "unsigned long long";
      w.elementBytes = 8;
      w.fixedElems = 2;
      w.note = "next group, blocks done (the kernel leaves both zero)";
      lp.buffers.push_back(std::move(w));
      lk.args.push_back(PlanArg::buffer(prefix + "work", "unsigned long long*", "work"));
    } else {
      lk.args.push_back(PlanArg::null("unsigned long long*", "work"));
    }
    lp.kernels.push_back(std::move(lk));
  }
  lp.check();
  return lp;
}

}  // namespace warpforge

namespace warpforge {

std::vector<StockhamKernel> StockhamBuild::emitted() const {
  std::vector<StockhamKernel> out;
  for (const auto& k : kernels) out.push_back(k.kernel);
  return out;
}

LaunchPlan StockhamBuild::launchPlan(const StockhamSpec& spec) const {
  return stockhamLaunchPlan(spec, plan, emitted());
}

void checkStockhamKernelSize(const StockhamSpec& spec, const KernelDesc& d) {
  const KernelGeometry g = chooseGeometry(d);
  const int values = (d.length + g.threadsPerFft - 1) / g.threadsPerFft;
  if (values <= kStockhamMaxValuesPerThread) return;
  // Only a small threads_per_fft gets here: the generator's own choice holds at most one radix-49 butterfly.
  throw SpecError(spec.file, spec.tuning.threadsPerFft > 0 ? "/tuning/threads_per_fft" : "/factors",
                  fmt::format("kernel {} (length {}) would hold {} values per thread with {} threads per FFT; the "
                              "limit is {} (the "
                              "unrolled kernel grows with it: 4096 values made an 8 MB source that NVRTC compiled for "
                              "minutes); use at "
                              "least {} threads per FFT",
                              d.kernelName, d.length, values, g.threadsPerFft, kStockhamMaxValuesPerThread,
                              (d.length + kStockhamMaxValuesPerThread - 1) / kStockhamMaxValuesPerThread));
}

StockhamBuild buildStockham(const StockhamSpec& spec, const std::string& arch, CompileProbe* probe, bool tables) {
  StockhamBuild b{planStockham(spec, arch, tables), {}};
  for (const auto& k : b.plan.kernels) checkStockhamKernelSize(spec, k.desc);
  for (auto& k : b.plan.kernels)
    b.kernels.push_back(isLongFftKernel(k.desc, !spec.factors.empty()) ? emitLongFftKernel(k, arch, probe)
                                                                       : emitStockhamSpillFree(k.desc, arch, probe));
  return b;
}

std::vector<std::string> stockhamWarnings(const StockhamSpec& s, const StockhamBuild& b, const std::string& arch) {
  std::vector<std::string> w;
  const long long maxBatch = stockhamMaxBatch(s.output, s.outShape(), s.file, "/output");
  if (maxBatch >= 0)
    w.push_back(
        fmt::format("/output: batch entries interleave (distance {}, span {}) and stay disjoint only up to batch {}; "
                    "the executor "
                    "refuses a larger batch",
                    s.output.distance, stockhamSpan(s.output, s.outShape()), maxBatch));
  const KernelTuning& tu = s.tuning;
  if (tu.realSplit && !s.real())
    w.push_back("/tuning/real_split: a c2c transform has no split (real_split is for r2c and c2r)");
  if (tu.realSplit && s.real() && s.length() > 2) {  // N = 2: one point, no kernel shows where a split would be
    // The form the plan took: the split in an FFT kernel of the half (mirrored pairs or not), or in a kernel of its
    // own.
    auto took = [&](RealSplit r) {
      return std::any_of(b.kernels.begin(), b.kernels.end(), [&](const SpillFreeKernel& sf) {
        const KernelDesc& d = sf.kernel.desc;
        if (d.fuse == Fuse::None || d.fuse == Fuse::PairSplit) return false;
        // (An odd real plane has no split: it stores outputs k <= N/2, or reads the mirror.)
        if ((d.fuse == Fuse::PlaneSplit || d.fuse == Fuse::PlaneMerge) && d.fuseN % 2) return false;
        return r == RealSplit::Kernel ? d.factors.empty()
                                      : !d.factors.empty() && d.mirrored == (r == RealSplit::Mirrored);
      });
    };
    if (!took(*tu.realSplit))
      w.push_back(fmt::format("/tuning/real_split: \"{}\" is not a plan for this length ({})",
                              realSplitName(*tu.realSplit),
                              s.length() % 2 ? "an odd length runs as the complex FFT of N, with no split"
                              : *tu.realSplit == RealSplit::Fused
                                  ? "the half is not radix-smooth or longer than one kernel holds (f32 / f16 16384, "
                                    "f64 8192, less where the arch's shared memory holds less)"
                              : *tu.realSplit == RealSplit::Mirrored
                                  ? "the half has no two-kernel plan that holds two mirrored FFTs per block"
                                  : "the plan has no split kernel"));
  }
  if (tu.fuseAxes == true && s.lengths.size() > 1 &&
      std::none_of(b.kernels.begin(), b.kernels.end(),
                   [](const SpillFreeKernel& sf) { return sf.kernel.desc.axes.size() > 1; }))
    w.push_back(
        "/tuning/fuse_axes: true, but no plane of this spec fits one kernel (each inner axis smooth, the plane within "
        "one kernel's length, both sides dense with unit innermost stride, out of place; r2c / c2r: N >= 3, native "
        "input, real_split \"fused\"): one kernel per axis");
  if (tu.fuseAxes == true && s.lengths.size() == 1)
    w.push_back("/tuning/fuse_axes: a 1D transform has no axes to fuse");
  if (tu.halfScratch && s.precision != Precision::F16)
    w.push_back("/tuning/half_scratch: only f16 storage has a choice of scratch precision");
  if (tu.threeKernels == true && std::none_of(b.kernels.begin(), b.kernels.end(),
                                              [](const SpillFreeKernel& sf) { return sf.kernel.desc.longStep; }))
    w.push_back("/tuning/three_kernels: true, but the plan has no FFT past one kernel to split in three");
  if (tu.workQueue == true && tu.persistent == false)
    w.push_back("/tuning/work_queue: true takes persistent blocks; with persistent false each group has a block");
  const auto prefetching = std::find_if(b.kernels.begin(), b.kernels.end(),
                                        [](const SpillFreeKernel& sf) { return sf.kernel.geom.prefetch; });
  if (tu.prefetch == true && prefetching == b.kernels.end())
    w.push_back(
        "/tuning/prefetch: true, but no kernel of this plan can copy its next group ahead (that needs a c2c f32 / f64 "
        "or fused r2c split kernel whose load is a contiguous run of the compute type and whose last pass stores to "
        "global memory, or a long FFT's column step whose column tiles read the compute type's complex): each group "
        "is loaded when its block reaches it");
  if (prefetching != b.kernels.end() && (tu.persistent == false || tu.workQueue == true || tu.directLoad == true))
    w.push_back(
        fmt::format("/tuning/prefetch: kernel {} copies its next group ahead, which takes "
                    "persistent blocks in a fixed order and a staged load (persistent, work_queue and "
                    "direct_load as given do not apply to it)",
                    prefetching->kernel.desc.kernelName));
  if (tu.streamedPrime) {
    // Each kernel's largest cooperative prime (the only one that streams), and whether it runs as the tuning asks.
    bool anyCoop = false;
    for (const SpillFreeKernel& sf : b.kernels) {
      const KernelDesc& d = sf.kernel.desc;
      int largest = 0;
      for (int r : d.factors)
        if (isCoopRadix(r, threadPrimeLimit(d.f64))) largest = std::max(largest, r);
      if (!largest) continue;
      anyCoop = true;
      if (streamsPass(d, sf.kernel.geom, largest) != *tu.streamedPrime)
        w.push_back(fmt::format(
            "/tuning/streamed_prime: {}, but kernel {} computes its radix {} {} (one thread per butterfly needs the "
            "kernel's largest prime, up to {}, a kernel that is no column tile, and a thread for each butterfly)",
            *tu.streamedPrime, d.kernelName, largest, *tu.streamedPrime ? "cooperatively" : "one thread per butterfly",
            streamedPrimeLimit(d.f64)));
    }
    if (!anyCoop)
      w.push_back(
          "/tuning/streamed_prime: no kernel of this plan has a cooperative prime (37..127; f64 29..127): nothing to "
          "switch");
  }
  if (tu.pairBatch && (!s.real() || s.length() % 2 == 0 || s.lengths.size() > 1))
    w.push_back("/tuning/pair_batch: only a 1D r2c / c2r of odd length pairs its batch entries");
  if (tu.split > 0 && std::none_of(b.kernels.begin(), b.kernels.end(), [&](const SpillFreeKernel& sf) {
        return sf.kernel.desc.bigN > 0 && sf.kernel.desc.length == tu.split;
      }))
    w.push_back(
        fmt::format("/tuning/split: the plan has no two-kernel split with columns of {} (it must divide the "
                    "length split in two kernels, and both sides fit one kernel)",
                    tu.split));
  for (const SpillFreeKernel& sf : b.kernels) {
    const KernelDesc& d = sf.kernel.desc;
    const KernelGeometry& g = sf.kernel.geom;
    const KernelGeometry first = chooseGeometry(d);  // what the tuning asked for, before SpillFree relaxed anything
    int rmax = 1;
    for (int r : d.factors) rmax = std::max(rmax, r);
    if (tu.threadsPerFft > 0 && first.threadsPerFft != tu.threadsPerFft)
      w.push_back(
          fmt::format("/tuning/threads_per_fft: {} asked, kernel {} (length {}, largest radix {}) uses {} (a thread "
                      "holds at least "
                      "one butterfly{})",
                      tu.threadsPerFft, d.kernelName, d.length, rmax, first.threadsPerFft,
                      first.columnTile() ? "; column tiles hold at most 32 (f64: 8) values per thread" : ""));
    const int firstThreads = first.threadsPerFft * first.fftsPerBlock;
    if (tu.blockThreads > 0 && firstThreads != tu.blockThreads) {
      const int cb = d.f64 ? 16 : 8;
      const bool smem = first.fftsPerBlock < std::max(1, tu.blockThreads / first.threadsPerFft) &&
                        (first.fftsPerBlock + 1) * first.smemStride * cb > 72 * 1024;
      w.push_back(fmt::format("/tuning/block_threads: {} asked, kernel {} runs {} = {} FFTs x {} threads{}",
                              tu.blockThreads, d.kernelName, firstThreads, first.fftsPerBlock, first.threadsPerFft,
                              smem                                    ? " (shared memory per block is capped)"
                              : tu.blockThreads < first.threadsPerFft ? " (one FFT needs more threads)"
                                                                      : " (a whole number of FFTs per block)"));
    }
    const int warpThreads = (firstThreads + 31) / 32 * 32;
    if (tu.registerTarget > 0 && static_cast<long long>(warpThreads) * tu.registerTarget > 65536)
      w.push_back(
          fmt::format("/tuning/register_target: {} registers x {} threads exceed the 65536 of an SM; kernel {} gets at "
                      "most {}",
                      tu.registerTarget, warpThreads, d.kernelName, 65536 / warpThreads));
    if (tu.directLoad == true && !first.directLoad)
      w.push_back(
          fmt::format("/tuning/direct_load: kernel {} stages its load (column tile or c2r merge)", d.kernelName));
    if (tu.directStore == true && !first.directStore)
      w.push_back(
          fmt::format("/tuning/direct_store: kernel {} stages its store (column tile or r2c split)", d.kernelName));
    // With a compiler consulted: what SpillFree changed, and spills it could not remove.
    // (Relaxing the generator's own choice is its job; relaxing the user's is a change to report.)
    if ((tu.registerTarget > 0 && g.registerTarget != first.registerTarget) ||
        (tu.threadsPerFft > 0 && g.threadsPerFft != first.threadsPerFft))
      w.push_back(fmt::format(
          "/tuning: kernel {} relaxed to avoid spills on {}: register target {} -> {}, threads per FFT {} -> {}",
          d.kernelName, arch, first.registerTarget, g.registerTarget, first.threadsPerFft, g.threadsPerFft));
    if (sf.compiled.spills())
      w.push_back(fmt::format("kernel {} spills on {}: {} bytes stored, {} loaded ({} registers, {} bytes of stack)",
                              d.kernelName, arch, sf.compiled.spillStoreBytes, sf.compiled.spillLoadBytes,
                              sf.compiled.registers, sf.compiled.stackFrameBytes));
  }
  return w;
}

}  // namespace warpforge
