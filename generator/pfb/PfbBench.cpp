#include "generator/pfb/PfbBench.h"

#include <fmt/format.h>

#include "generator/pfb/PfbData.h"
#include "generator/pfb/PfbEmitter.h"
#include "generator/pfb/PfbFused.h"
#include "generator/pfb/PfbPlan.h"

namespace warpforge {

PfbTraffic pfbTraffic(const PfbSpec& s, long long batch) {
  const PfbGeometry g = pfbGeometry(s);
  PfbTraffic t;
  t.inputBytes = static_cast<double>(s.inputBytesPerBatch()) * batch;
  t.outputBytes = static_cast<double>(s.outputElementsPerBatch()) * s.outputElementBytes() * batch;
  t.scratchBytes = static_cast<double>(s.outputElementsPerBatch()) * s.scratchElementBytes() * batch;
  // Every run after a stream's first reads the T - 1 spectra before it again (its window's warm-up).
  t.rereadBytes = static_cast<double>(s.streams()) * static_cast<double>(g.runs - 1) * (s.taps - 1) *
                  static_cast<double>(s.fftLength()) * s.sampleBits / 8 * batch;
  return t;
}

std::optional<BaselineRequest> pfbBaseline(const PfbSpec& s) {
  BaselineRequest r;
  FirR2cBaseline f;
  f.streams = s.streams();
  f.spectra = s.spectra;
  f.length = s.fftLength();
  f.taps = s.taps;
  f.sampleBits = s.sampleBits;
  f.packed = s.sampleType == PfbSampleType::Packed;
  f.streamBytes = s.streamBytes();
  f.weights.assign(s.weights.values.begin(), s.weights.values.end());
  if (s.perChannelGain) f.gains = "gains";
  if (s.delay) f.delays = "delays";
  f.gain = static_cast<float>(s.gain);
  f.ci8 = s.outputType == PfbOutputType::CI8;
  f.pols = s.polarizations;
  const long long N = s.channels, S = s.spectra, P = s.polarizations, R = s.receivers;
  switch (s.layout) {
    case PfbLayout::Katgpucbf:  // [receiver][channel][spectrum][pol]
      f.receiverStride = N * S * P, f.polStride = 1, f.channelStride = S * P, f.timeBlock = 1, f.blockStride = P,
      f.timeStride = 0;
      break;
    case PfbLayout::Tcc:  // [channel][spectrum / 16][receiver][pol][16]
      f.receiverStride = P * 16, f.polStride = 16, f.channelStride = S * R * P, f.timeBlock = 16,
      f.blockStride = R * P * 16, f.timeStride = 1;
      break;
    case PfbLayout::Spectra:  // [receiver][pol][spectrum][channel]
      f.receiverStride = P * S * N, f.polStride = S * N, f.channelStride = 1, f.timeBlock = 1, f.blockStride = N,
      f.timeStride = 0;
      break;
  }
  f.outputPerBatch = s.outputElementsPerBatch();
  r.library = f;
  r.description = fmt::format("FIR kernel ({} taps, f32 out) + cufftExecR2C {} points x {} + {} kernel", s.taps,
                              s.fftLength(), s.streams() * s.spectra,
                              f.ci8 ? "gain/phase/requantise (ci8)" : "gain/phase (cf32)");
  r.denseInput = [](const TestData& data, long long) { return data.arrays.at("input"); };
  const PfbSpec spec = s;
  r.error = [spec](const std::vector<unsigned char>& out, const TestData& data, long long batch) {
    const Check c = pfbCheck(spec, data, {{"spectra", out}}, batch, false);
    return c.error;
  };
  return r;
}

std::vector<BenchVariant> pfbBenchVariants(const PfbSpec& s, long long spectrumPostChannels) {
  // The default and each variant as emitted for the target (its spectrum post kernel's longest spectrum).
  auto emit = [&](const PfbSpec& spec, PfbVariant v) {
    if (v.spectrumPostChannels == PfbVariant{}.spectrumPostChannels) v.spectrumPostChannels = spectrumPostChannels;
    return emitPfb(spec, v);
  };
  const PfbKernels k = emit(s, {});
  const LaunchPlan full = pfbLaunchPlan(s, k);
  std::vector<BenchVariant> v;
  for (int which = 0; which < 2; ++which) {
    LaunchPlan p = full;
    p.kernels = {full.kernels[static_cast<std::size_t>(which)]};
    v.push_back({which == 0 ? "fir kernel only (FIR + column FFTs)" : "post kernel only (row FFTs, split, post, store)",
                 Generated{p}, 0, 0, true});
  }
  // The other scratch precision (both kernels): f16 halves the bytes between the kernels, within the f16 bound. Timing
  // only: its outputs are right within that bound, not the f32 one the spec's check applies.
  {
    PfbSpec other = s;
    other.halfScratch = !s.halfScratch;
    if (!other.halfScratch || pfbHalfScratchOverflow(s).empty())
      v.push_back({other.halfScratch ? "f16 scratch (both kernels; half the scratch bytes; timing only)"
                                     : "f32 scratch (both kernels; timing only)",
                   Generated{pfbLaunchPlan(other, emit(other, {}))}, 0, 0, true});
  }
  // cf32: the row-pair post kernel (channels n1 apart, 8 bytes of a 32-byte sector per store) beside the spectrum one.
  const PfbKernels rowPair = k.geometry.spectrumPost ? emit(s, {.rowPairPost = true}) : k;
  if (k.geometry.spectrumPost)
    v.push_back({"row-pair post kernel (both kernels; cf32 channels stored n1 apart)",
                 Generated{pfbLaunchPlan(s, rowPair)}, 0, 0});
  if (k.geometry.factoredSplitTwiddle)
    v.push_back({"spectrum post kernel with gathered split twiddles (both kernels; a table load per channel pair)",
                 Generated{pfbLaunchPlan(s, emit(s, {.factoredSplitTwiddle = false}))}, 0, 0});
  // The spectrum post kernel's other block sizes (pfbSpectrumPostThreads picks one by length).
  if (k.geometry.spectrumPost)
    for (int threads : {128, 256, 512, 1024})
      if (threads != k.geometry.threadsB && (threads < 1024 || s.channels >= 4096) &&
          (!k.geometry.spectrumPostInPlace ||
           spectrumPostInPlaceFits(s.channels / k.geometry.spectrumPostParts, k.geometry.rowFft, threads)))
        v.push_back({fmt::format("spectrum post kernel of {} threads (both kernels)", threads),
                     Generated{pfbLaunchPlan(s, emit(s, {.spectrumPostThreads = threads}))}, 0, 0});
  if (s.halfScratch) return v;  // bench's earlier kernels read an f32 scratch
  // Below: the previous kernels, and variants of the row-pair post kernel (its own against the default's row-pair
  // kernel); where the default is the spectrum post kernel they would change two things at once.
  const bool rowPairDefault = !k.geometry.spectrumPost;
  // The previous kernels (both, one call): padded FFT buffers, unrotated ci8 staging, a fir thread per complex point.
  v.push_back({"previous kernels (padded buffers, a fir thread per complex point)",
               Generated{pfbLaunchPlan(s, emit(s, {.previous = true}))}, 0, 0});
  // The per-item post kernel (each split item decodes its combination, channels and slots; a sincospif per item).
  if (rowPairDefault)
    v.push_back({"post kernel per item (both kernels; the post kernel before its thread constants were hoisted)",
                 Generated{pfbLaunchPlan(s, emit(s, {.perItemPost = true}))}, 0, 0});
  // The post kernel with a sincospif per split item instead of the per-chunk phase tables (specs with a delay).
  if (rowPairDefault && s.delay)
    v.push_back({"post kernel with a sincospif per item (both kernels; no phase tables)",
                 Generated{pfbLaunchPlan(s, emit(s, {.phaseTables = false}))}, 0, 0});
  // The post kernel at four blocks per SM (64 registers; measured on sm_90, where it does not spill).
  if (rowPairDefault)
    v.push_back({"post kernel at four blocks per SM (both kernels; 64 registers, pass twiddles per butterfly)",
                 Generated{pfbLaunchPlan(s, emit(s, {.postBlocksPerSm = 4}))}, 0, 0});
  // The post kernel at two or three blocks per SM (128 or 80 registers), whichever the default is not.
  if (rowPairDefault && k.geometry.postBlocksPerSm != 2)
    v.push_back({"post kernel at two blocks per SM (both kernels; 128 registers)",
                 Generated{pfbLaunchPlan(s, emit(s, {.postBlocksPerSm = 2}))}, 0, 0});
  if (rowPairDefault && k.geometry.postBlocksPerSm == 2)
    v.push_back({"post kernel at three blocks per SM (both kernels; 80 registers)",
                 Generated{pfbLaunchPlan(s, emit(s, {.postBlocksPerSm = 3}))}, 0, 0});
  // 17..24 taps: the fir kernel's weights in registers (2T of them with the window: one block of 512 threads per SM).
  if (k.geometry.firSharedWeights)
    v.push_back({"fir weights in registers (both kernels; one fir block per SM)",
                 Generated{pfbLaunchPlan(s, emit(s, {.firSharedWeights = false}))}, 0, 0});
  // The row-pair post kernel's blocks: one per row pair, or looping over them (PfbGeometry::postPairLoop's rule picks).
  if (rowPairDefault)
    v.push_back({k.geometry.postPairLoop ? "post kernel with a block per row pair (both kernels)"
                                         : "post kernel looping over the row pairs (both kernels)",
                 Generated{pfbLaunchPlan(s, emit(s, {.postPairLoop = k.geometry.postPairLoop ? 0 : 1}))}, 0, 0});
  // Fewer than 8 taps: the fir kernel's chunks of T spectra (a barrier and the column passes per T spectra).
  if (s.taps < 8)
    v.push_back(
        {"fir chunks of T spectra (both kernels)", Generated{pfbLaunchPlan(s, emit(s, {.firMinChunk = 1}))}, 0, 0});
  // The fir kernel with pfb_slot per FIR and scratch store (the post kernel as the default's).
  v.push_back({"fir kernel with a slot per store (both kernels; the fir kernel before its constant slots)",
               Generated{pfbLaunchPlan(s, emit(s, {.firConstSlots = false}))}, 0, 0});
  // Both kernels with pfb_slot per FFT buffer element (the kernels before base slots and constant XORs).
  if (rowPairDefault)
    v.push_back({"a slot per element (both kernels, pfb_slot per FFT buffer access)",
                 Generated{pfbLaunchPlan(s, emit(s, {.slotPerElement = true}))}, 0, 0});
  // The fused channeliser: one persistent kernel, the scratch an L2-resident ring (PfbFused.h), at one and two blocks
  // per SM (128 and 64 registers); its tickets decode post units of one row pair each.
  const PfbKernels perPair = emit(s, {.rowPairPost = true, .postPairLoop = 0});
  if (pfbFusable(s, perPair.geometry))
    for (int bps : {1, 2})
      v.push_back({fmt::format("fused persistent kernel, L2 ring scratch, {} block(s) per SM", bps),
                   Generated{pfbFusedLaunchPlan(s, perPair, bps)}, 0, 0});
  return v;
}

std::string pfbBenchNotes(const PfbSpec& s, const std::vector<double>& variantMs,
                          const std::vector<long long>& variantBatch, double clockKHz, int sms) {
  const PfbTraffic t = pfbTraffic(s, 1);
  std::string o = fmt::format(
      "bytes per batch entry: input {:.4g}, output {:.4g} (the user arrays: {:.4g}); scratch {:.4g} written + read, "
      "warm-up re-reads {:.4g}: "
      "{:.4g} in all ({:.2f}x the user arrays)\n",
      t.inputBytes, t.outputBytes, t.own(), t.scratchBytes, t.rereadBytes, t.total(), t.total() / t.own());
  if (variantMs.size() >= 2 && variantBatch.size() >= 2) {
    // Per kernel: the bytes it moves and the FP32 rate its arithmetic needs (FIR: T FMAs per real sample).
    const double firBytes = (t.inputBytes + t.rereadBytes + t.scratchBytes) * static_cast<double>(variantBatch[0]);
    const double postBytes = (t.scratchBytes + t.outputBytes) * static_cast<double>(variantBatch[1]);
    const double samples = static_cast<double>(s.streams()) * s.spectra * s.fftLength() *
                           static_cast<double>(variantBatch[0]);
    const double peakFma = 128.0 * sms * clockKHz * 1e3;  // FP32 lanes x SMs x clock
    o += fmt::format(
        "kernels alone: fir {:.4f} ms ({:.0f} GB/s; FIR {:.1f} T FMA/s = {:.0f}% of the FP32 peak {:.1f} T), post "
        "{:.4f} ms ({:.0f} GB/s)\n",
        variantMs[0], firBytes / (variantMs[0] * 1e-3) / 1e9, samples * s.taps / (variantMs[0] * 1e-3) / 1e12,
        peakFma > 0 ? 100.0 * samples * s.taps / (variantMs[0] * 1e-3) / peakFma : 0.0, peakFma / 1e12, variantMs[1],
        postBytes / (variantMs[1] * 1e-3) / 1e9);
  }
  return o;
}

}  // namespace warpforge
