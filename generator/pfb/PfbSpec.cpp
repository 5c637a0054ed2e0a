#include "generator/pfb/PfbSpec.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "generator/core/JsonReader.h"
#include "generator/pfb/PfbWeights.h"

namespace warpforge {

const char* pfbLayoutName(PfbLayout l) {
  switch (l) {
    case PfbLayout::Katgpucbf: return "katgpucbf";
    case PfbLayout::Tcc: return "tcc";
    case PfbLayout::Spectra: return "spectra";
  }
  return "?";
}

long long PfbSpec::outputOffset(int q, long long s, long long k) const {
  const long long r = q / polarizations, p = q % polarizations, P = polarizations, R = receivers, S = spectra,
                  N = channels;
  switch (layout) {
    case PfbLayout::Katgpucbf: return ((r * N + k) * S + s) * P + p;  // [receiver][channel][spectrum][pol]
    case PfbLayout::Tcc:
      return ((k * (S / 16) + s / 16) * R + r) * P * 16 + p * 16 + s % 16;  // [channel][spectrum/16][receiver][pol][16]
    case PfbLayout::Spectra: return (static_cast<long long>(q) * S + s) * N + k;  // [receiver][pol][spectrum][channel]
  }
  return 0;
}

namespace {

constexpr long long kMinChannels = 64, kMaxChannels = 32768;
constexpr int kMaxTaps = 32;

void parseInput(const JsonReader& rd, const Json& j, PfbSpec& s) {
  const std::string path = "/input";
  rd.needObject(j, path);
  rd.onlyKeys(j, path, {"type", "bits"});
  const std::string type = rd.string(rd.need(j, path, "type"), path + "/type");
  if (type == "int8") s.sampleType = PfbSampleType::Int8, s.sampleBits = 8;
  else if (type == "int16") s.sampleType = PfbSampleType::Int16, s.sampleBits = 16;
  else if (type == "packed") s.sampleType = PfbSampleType::Packed;
  else
    rd.fail(path + "/type", fmt::format("unknown sample type '{}' (expected int8, int16, or packed: big-endian "
                                        "bit-packed two's complement)",
                                        type));
  if (s.sampleType == PfbSampleType::Packed) {
    s.sampleBits = static_cast<int>(rd.integer(rd.need(j, path, "bits"), path + "/bits", 2, 16));
  } else if (j.contains("bits")) {
    rd.fail(path + "/bits", fmt::format("only for type \"packed\" ({} has {} bits)", type, s.sampleBits));
  }
}

void parseWeights(const JsonReader& rd, const Json& j, PfbSpec& s) {
  const std::string path = "/weights";
  PfbWeights& w = s.weights;
  const long long count = s.taps * s.fftLength();
  if (!j.contains("weights")) {  // katgpucbf's default
    w.source = "window";
    w.window = "hann";
  } else {
    const Json& o = j["weights"];
    rd.needObject(o, path);
    rd.onlyKeys(o, path, {"window", "cutoff", "file", "values"});
    const int given = o.contains("window") + o.contains("file") + o.contains("values");
    if (given != 1)
      rd.fail(path,
              "give exactly one of \"window\" (a named window), \"file\" (raw little-endian f32) or \"values\" (an "
              "array)");
    if (o.contains("cutoff") && !o.contains("window")) rd.fail(path + "/cutoff", "only with \"window\"");
    if (o.contains("window")) {
      w.source = "window";
      w.window = rd.string(o["window"], path + "/window");
      if (w.window != "hann" && w.window != "rect")
        rd.fail(path + "/window",
                fmt::format("unknown window '{}' (expected hann or rect; each times a sinc, normalised to unit energy)",
                            JsonReader::printable(w.window)));
      if (o.contains("cutoff")) {
        const Json& c = o["cutoff"];
        if (!c.is_number()) rd.fail(path + "/cutoff", fmt::format("expected a number, found {}", c.type_name()));
        w.cutoff = c.get<double>();
        if (!(w.cutoff > 0 && w.cutoff <= 16))
          rd.fail(path + "/cutoff", fmt::format("{} (expected a number in (0, 16])", w.cutoff));
      }
    } else if (o.contains("values")) {
      w.source = "values";
      const Json& v = o["values"];
      if (!v.is_array())
        rd.fail(path + "/values", fmt::format("expected an array of numbers, found {}", v.type_name()));
      if (static_cast<long long>(v.size()) != count)
        rd.fail(path + "/values", fmt::format("{} values (expected taps x 2 channels = {} x {} = {}, tap-major)",
                                              v.size(), s.taps, s.fftLength(), count));
      w.values.reserve(v.size());
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_number())
          rd.fail(fmt::format("{}/values/{}", path, i), fmt::format("expected a number, found {}", v[i].type_name()));
        const double x = v[i].get<double>();
        if (!std::isfinite(x) || std::fabs(x) > 3.4e38)
          rd.fail(fmt::format("{}/values/{}", path, i), "not a finite f32 value");
        w.values.push_back(x);
      }
    } else {
      w.source = "file";
      w.file = rd.string(o["file"], path + "/file");
      std::filesystem::path p(w.file);
      if (p.is_relative()) p = std::filesystem::path(s.file).parent_path() / p;
      // Only a regular file: a FIFO or device would block the parse or never end.
      std::error_code ec;
      if (!std::filesystem::is_regular_file(p, ec))
        rd.fail(path + "/file", fmt::format("'{}' is not a regular file (a path relative to the spec's folder)",
                                            JsonReader::printable(p.string())));
      std::ifstream f(p, std::ios::binary);
      if (!f)
        rd.fail(path + "/file", fmt::format("cannot read '{}' (a path relative to the spec's folder)",
                                            JsonReader::printable(p.string())));
      f.seekg(0, std::ios::end);
      const long long bytes = static_cast<long long>(f.tellg());
      if (bytes != count * 4)
        rd.fail(path + "/file", fmt::format("'{}' has {} bytes (expected taps x 2 channels x 4 = {} x {} x 4 = {}: "
                                            "little-endian f32, tap-major)",
                                            JsonReader::printable(w.file), bytes, s.taps, s.fftLength(), count * 4));
      f.seekg(0);
      std::vector<float> raw(static_cast<std::size_t>(count));
      f.read(reinterpret_cast<char*>(raw.data()), bytes);
      for (long long i = 0; i < count; ++i)
        if (!std::isfinite(raw[static_cast<std::size_t>(i)]))
          rd.fail(path + "/file", fmt::format("value {} of '{}' is not finite", i, JsonReader::printable(w.file)));
      w.values.assign(raw.begin(), raw.end());
    }
  }
  if (w.source == "window") w.values = pfbWindowWeights(w.window, w.cutoff, s.taps, s.fftLength());
}

void parseOutput(const JsonReader& rd, const Json& j, PfbSpec& s) {
  const std::string path = "/output";
  rd.needObject(j, path);
  rd.onlyKeys(j, path, {"type", "layout"});
  const std::string type = rd.string(rd.need(j, path, "type"), path + "/type");
  if (type == "ci8") s.outputType = PfbOutputType::CI8;
  else if (type == "cf32") s.outputType = PfbOutputType::CF32;
  else
    rd.fail(path + "/type",
            fmt::format("unknown output type '{}' (expected ci8: requantised, saturation counted; or cf32)",
                        JsonReader::printable(type)));
  const bool ci8 = s.outputType == PfbOutputType::CI8;
  const std::string layout = j.contains("layout") ? rd.string(j["layout"], path + "/layout")
                                                  : (ci8 ? "katgpucbf" : "spectra");
  if (layout == "katgpucbf") s.layout = PfbLayout::Katgpucbf;
  else if (layout == "tcc") s.layout = PfbLayout::Tcc;
  else if (layout == "spectra") s.layout = PfbLayout::Spectra;
  else
    rd.fail(path + "/layout",
            fmt::format("unknown layout '{}' (expected katgpucbf, tcc or spectra)", JsonReader::printable(layout)));
  if (ci8 && s.layout == PfbLayout::Spectra)
    rd.fail(path + "/layout",
            "ci8 output goes to the correlator's layouts: katgpucbf ([receiver][channel][spectrum][pol]) or tcc "
            "([channel][spectrum / 16][receiver][pol][16])");
  if (!ci8 && s.layout != PfbLayout::Spectra)
    rd.fail(path + "/layout",
            "cf32 output is stored as spectra ([receiver][pol][spectrum][channel]); the correlator's layouts take ci8");
  if (s.layout == PfbLayout::Tcc && s.spectra % 16)
    rd.fail("/spectra_per_call",
            fmt::format("{} is not a multiple of 16 (the tcc layout's times per block for ci8)", s.spectra));
  // ci8 output is staged per group of spectra (the katgpucbf layout: 16 / P spectra x P pols = 32 bytes per channel).
  if (s.layout == PfbLayout::Katgpucbf && s.spectra % (16 / s.polarizations))
    rd.fail("/spectra_per_call", fmt::format("{} is not a multiple of {} (the katgpucbf layout is stored in runs of {} "
                                             "spectra x {} pol = 32 bytes per channel)",
                                             s.spectra, 16 / s.polarizations, 16 / s.polarizations, s.polarizations));
}

// `scratch`: "f32" (default) or "f16" (where pfbHalfScratchOverflow allows it).
void parseScratch(JsonReader& rd, const Json& j, PfbSpec& s) {
  const std::string v = rd.string(j, "/scratch");
  if (v == "f32") return;
  if (v != "f16")
    rd.fail("/scratch", fmt::format("'{}' (expected f32, or f16: the values between the two kernels as __half2, half "
                                    "the scratch bytes, each rounded once to f16)",
                                    JsonReader::printable(v)));
  if (const std::string why = pfbHalfScratchOverflow(s); !why.empty()) rd.fail("/scratch", why);
  s.halfScratch = true;
}

}  // namespace

PfbSpec parsePfbSpec(const Json& root, const std::string& file) {
  JsonReader rd(file);
  rd.needObject(root, "");
  rd.onlyKeys(root, "",
              {"name", "family", "description", "channels", "taps", "receivers", "polarizations", "spectra_per_call",
               "input", "weights", "gain", "delay", "output", "scratch"});
  PfbSpec s;
  s.file = file;
  s.name = rd.identifier(rd.need(root, "", "name"), "/name", "name");
  if (rd.string(rd.need(root, "", "family"), "/family") != "pfb") rd.fail("/family", "expected \"pfb\"");
  if (root.contains("description")) rd.string(root["description"], "/description");
  s.channels = rd.integer(rd.need(root, "", "channels"), "/channels", kMinChannels, kMaxChannels);
  if (s.channels & (s.channels - 1))
    rd.fail("/channels", fmt::format("{} is not a power of two (expected {}..{}: a real FFT of 2 x channels points)",
                                     s.channels, kMinChannels, kMaxChannels));
  s.taps = root.contains("taps") ? static_cast<int>(rd.integer(root["taps"], "/taps", 1, kMaxTaps)) : 16;
  s.receivers = root.contains("receivers") ? static_cast<int>(rd.integer(root["receivers"], "/receivers", 1, 4096)) : 1;
  s.polarizations = root.contains("polarizations")
                        ? static_cast<int>(rd.integer(root["polarizations"], "/polarizations", 1, 2))
                        : 2;
  s.spectra = rd.integer(rd.need(root, "", "spectra_per_call"), "/spectra_per_call", 1, 1 << 20);
  parseInput(rd, rd.need(root, "", "input"), s);
  // Every index of one batch entry in 64 bits with room; f32 offsets of the scratch within 2^40 elements.
  const double elements = static_cast<double>(s.streams()) * static_cast<double>(s.spectra + s.taps) *
                          static_cast<double>(s.fftLength());
  if (elements > 0x1p40)
    rd.fail("/spectra_per_call",
            fmt::format("{} streams x {} spectra x {} samples = {:.3g} samples per batch entry (at most 2^40)",
                        s.streams(), s.spectra, s.fftLength(), elements));
  parseWeights(rd, root, s);
  if (root.contains("gain")) {
    const Json& g = root["gain"];
    if (g.is_string()) {
      if (g.get<std::string>() != "per_channel")
        rd.fail("/gain", fmt::format("'{}' (expected a number, or \"per_channel\": the Input array gains "
                                     "[receiver][pol][channel] of complex f32)",
                                     JsonReader::printable(g.get<std::string>())));
      s.perChannelGain = true;
    } else if (g.is_number()) {
      s.gain = g.get<double>();
      if (!std::isfinite(s.gain) || std::fabs(s.gain) < std::numeric_limits<float>::min() || std::fabs(s.gain) > 1e30)
        rd.fail("/gain", fmt::format("{} (expected a nonzero number of magnitude 1.2e-38 .. 1e30: the gain is applied "
                                     "in f32)",
                                     s.gain));
    } else {
      rd.fail("/gain", fmt::format("expected a number or \"per_channel\", found {}", g.type_name()));
    }
  }
  if (root.contains("delay")) s.delay = rd.boolean(root["delay"], "/delay");
  parseOutput(rd, rd.need(root, "", "output"), s);
  if (root.contains("scratch")) parseScratch(rd, root["scratch"], s);
  return s;
}

std::string pfbHalfScratchOverflow(const PfbSpec& s) {
  const long long L = s.fftLength();
  double peak = 0;
  for (long long i = 0; i < L; ++i) {
    double sum = 0;
    for (int t = 0; t < s.taps; ++t) sum += std::fabs(s.weights.values[static_cast<std::size_t>(t * L + i)]);
    peak = std::max(peak, sum);
  }
  // A complex point pairs two real samples (|z| <= sqrt2 M), the column FFT sums up to 32 of them and the four-step
  // twiddle may turn the sum onto one part: sqrt2 x 32 x M, M = 2^(bits - 1) x the largest sum of |w|.
  const double most = std::sqrt(2.0) * 32.0 * peak * std::ldexp(1.0, s.sampleBits - 1);
  if (most <= 65000) return "";
  return fmt::format(
      "f16 could overflow: a value between the kernels may reach {:.4g} (sqrt2 x a 32-point column FFT of "
      "{}-bit samples through weights whose largest sum of |w| over the taps is {:.4g}), beyond f16's "
      "65504 (expected f32 here)",
      most, s.sampleBits, peak);
}

PfbSpec parsePfbSpecText(const std::string& text, const std::string& file) {
  return parsePfbSpec(parseJsonText(text, file), file);
}

}  // namespace warpforge
