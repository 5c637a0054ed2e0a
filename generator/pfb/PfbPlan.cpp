#include "generator/pfb/PfbPlan.h"

#include <cstring>

#include <fmt/format.h>

namespace warpforge {

namespace {

PlanBuffer table(const std::string& name, const std::string& type, int bytes, const std::string& scalar,
                 const std::vector<float>& values, const std::string& note) {
  PlanBuffer b;
  b.name = name;
  b.role = BufferRole::Table;
  b.elementType = type;
  b.elementBytes = bytes;
  b.fixedElems = static_cast<long long>(values.size()) * 4 / bytes;
  b.scalar = scalar;
  b.contents.resize(values.size() * 4);
  std::memcpy(b.contents.data(), values.data(), b.contents.size());
  b.alignment = 16;
  b.note = note;
  return b;
}

}  // namespace

LaunchPlan pfbLaunchPlan(const PfbSpec& s, const PfbKernels& k) {
  const PfbGeometry& g = k.geometry;
  const bool ci8 = s.outputType == PfbOutputType::CI8;
  LaunchPlan p;
  p.specName = s.name;
  p.family = "pfb";
  p.unitName = "call";
  p.minArch = 80;
  p.sources.push_back({k.firName + ".cu", k.firSource});
  p.sources.push_back({k.postName + ".cu", k.postSource});

  PlanBuffer in;
  in.name = "input";
  in.role = BufferRole::Input;
  in.elementType = "unsigned char";
  in.elementBytes = 1;
  in.perBatchElems = s.inputBytesPerBatch();
  in.alignment = 16;
  in.note = fmt::format(
      "real samples [receiver][pol][sample] ({}-bit{}), {} samples per stream: the call's {} spectra after {} spectra "
      "of history",
      s.sampleBits, s.sampleType == PfbSampleType::Packed ? ", big-endian bit-packed" : "", s.streamSamples(),
      s.spectra, s.taps - 1);
  p.buffers.push_back(in);
  if (s.perChannelGain) {
    PlanBuffer gn;
    gn.name = "gains";
    gn.role = BufferRole::Input;
    gn.elementType = "float2";
    gn.elementBytes = 8;
    gn.fixedElems = static_cast<long long>(s.streams()) * s.channels;
    gn.alignment = 8;
    gn.note = "complex gain per [receiver][pol][channel]";
    p.buffers.push_back(gn);
  }
  if (s.delay) {
    PlanBuffer dl;
    dl.name = "delays";
    dl.role = BufferRole::Input;
    dl.elementType = "float2";
    dl.elementBytes = 8;
    dl.perBatchElems = static_cast<long long>(s.streams()) * s.spectra;
    dl.alignment = 8;
    dl.note =
        "per [receiver][pol][spectrum]: (delay d in samples, phase phi in radians); channel k is multiplied by e^{i "
        "(phi - pi d k / N)}";
    p.buffers.push_back(dl);
  }
  PlanBuffer out;
  out.name = "spectra";
  out.role = BufferRole::Output;
  out.alignment = 16;
  if (ci8) {
    out.elementType = "signed char";
    out.elementBytes = 1;
    out.perBatchElems = s.outputElementsPerBatch() * 2;
    out.note = fmt::format(
        "ci8 (re, im) in the {} layout: the correlator's input for {} channels x {} samples x {} receivers x {} pols",
        pfbLayoutName(s.layout), s.channels, s.spectra, s.receivers, s.polarizations);
  } else {
    out.elementType = "float2";
    out.elementBytes = 8;
    out.perBatchElems = s.outputElementsPerBatch();
    out.note = "cf32 [receiver][pol][spectrum][channel]";
  }
  p.buffers.push_back(out);
  if (ci8) {
    PlanBuffer sat;
    sat.name = "saturated";
    sat.role = BufferRole::Output;
    sat.elementType = "unsigned long long";
    sat.elementBytes = 8;
    sat.fixedElems = s.streams();
    sat.note = "per [receiver][pol]: channel values of this call (all batch entries) with a part rounded beyond +-127";
    p.buffers.push_back(sat);
    PlanBuffer count = sat;
    count.name = "sat_count";
    count.role = BufferRole::Counter;
    count.note = "saturations summed over the post blocks (left zero)";
    p.buffers.push_back(count);
    PlanBuffer done = count;
    done.name = "blocks_done";
    done.elementType = "unsigned int";
    done.elementBytes = 4;
    done.fixedElems = 1;
    done.note = "post blocks finished (left zero)";
    p.buffers.push_back(done);
  }
  PlanBuffer scratch;
  scratch.name = "scratch";
  scratch.role = BufferRole::Scratch;
  scratch.elementType = s.scratchElement();
  scratch.elementBytes = s.scratchElementBytes();
  scratch.perBatchElems = static_cast<long long>(s.streams()) * s.spectra * s.channels;
  scratch.alignment = 16;
  scratch.note = fmt::format("the column FFTs' output Y[stream][spectrum][k1 < {}][m2 < {}], twiddled", g.n1, g.n2);
  p.buffers.push_back(scratch);
  std::vector<float> w(s.weights.values.begin(), s.weights.values.end());
  p.buffers.push_back(
      table("weights", "float", 4, "float", w,
            fmt::format("FIR weights [tap][point] ({} x {}, {})", s.taps, s.fftLength(), s.weights.source)));
  p.buffers.push_back(table("twiddles_a", "float2", 8, "float", pfbTwiddlesA(s, g),
                            "column-FFT pass twiddles, then e^{-2 pi i m2 k1 / N} [k1][m2]"));
  p.buffers.push_back(table("twiddles_b", "float2", 8, "float", pfbTwiddlesB(s, g),
                            "row-FFT pass twiddles, then e^{-i pi k / N} (the real-FFT split)"));

  PlanKernel fir;
  fir.name = k.firName;
  fir.source = 0;
  fir.blockX = g.threadsA;
  fir.sharedBytes = g.sharedA;
  fir.grid = GridRule{g.unitsA(s), 1, false};
  fir.args = {PlanArg::buffer("input", "const unsigned char*", "input"),
              PlanArg::buffer("weights", "const float*", "weights"),
              PlanArg::buffer("twiddles_a", "const float2*", "twiddles"),
              PlanArg::buffer("scratch", fmt::format("{}*", s.scratchElement()), "scratch")};
  fir.note = fmt::format(
      "one block per (batch entry, stream, run of {} spectra, {} columns): FIR + {}-point column FFTs; {} B shared",
      g.runSpectra, g.columns, g.n1, g.sharedA);
  p.kernels.push_back(fir);

  PlanKernel post;
  post.name = k.postName;
  post.source = 1;
  post.blockX = g.threadsB;
  post.sharedBytes = g.sharedB;
  post.grid = GridRule{g.unitsB(s), 1, false};
  post.args = {PlanArg::buffer("scratch", fmt::format("const {}*", s.scratchElement()), "scratch"),
               PlanArg::buffer("twiddles_b", "const float2*", "twiddles")};
  if (s.perChannelGain) post.args.push_back(PlanArg::buffer("gains", "const float2*", "gains"));
  if (s.delay) post.args.push_back(PlanArg::buffer("delays", "const float2*", "delays"));
  if (ci8) {
    post.args.push_back(PlanArg::buffer("spectra", "unsigned char*", "out"));
    post.args.push_back(PlanArg::buffer("saturated", "unsigned long long*", "saturated"));
    post.args.push_back(PlanArg::buffer("sat_count", "unsigned long long*", "sat_count"));
    post.args.push_back(PlanArg::buffer("blocks_done", "unsigned int*", "blocks_done"));
  } else {
    post.args.push_back(PlanArg::buffer("spectra", "float2*", "out"));
  }
  post.note = g.spectrumPost
                  ? fmt::format(
                        "one block per {}(batch entry, receiver, pol, spectrum){}: {}-point row FFTs of all {} "
                        "rows, split, post{}, contiguous store; {} B shared",
                        g.spectrumPostCombos > 1 ? fmt::format("{} consecutive ", g.spectrumPostCombos) : "",
                        g.spectrumPostCombos > 1 ? " combinations" : "", g.n2, g.n1,
                        g.spectrumPostParts > 1 ? fmt::format(" (in place, {} blocks per combination, each holding "
                                                              "{} row pairs)",
                                                              g.spectrumPostParts, g.n1 / 2 / g.spectrumPostParts)
                        : g.spectrumPostInPlace ? " (in place in one buffer)"
                                                : "",
                        g.sharedB)
                  : fmt::format(
                        "one block per (batch entry, receiver, {} spectra x {} pol{}): {}-point row "
                        "FFTs, split, post, store; {} B shared",
                        g.spectraPerUnit, g.polsPerUnit, g.postPairLoop ? "; every row pair in turn" : ", row pair",
                        g.n2, g.sharedB);
  p.kernels.push_back(post);
  p.check();
  return p;
}

}  // namespace warpforge
