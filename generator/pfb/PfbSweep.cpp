// `warpforge bench --sweep pfb`: F-engine front ends an engineer might write, drawn at random: 64..32768 channels
// (every power of two alike), 2..32 taps (16 the most likely), one or two polarizations of 1..64 receivers, int8,
// int16 or bit-packed samples (MeerKAT's 10 bits the most likely), ci8 in the katgpucbf or tcc layout or cf32
// spectra, a constant or per-channel gain, with or without a delay, a hann or rect window; spectra per call a multiple
// of 16, about 4..64 M samples per call (at least 16 spectra). Nothing is filtered by what the generator supports: a
// spec it cannot build is counted unsupported.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "generator/core/SweepDraw.h"
#include "generator/pfb/PfbFamily.h"

namespace warpforge {

std::vector<SweepSpec> pfbSweepSpecs(std::uint64_t seed, int count) {
  SweepDraw d(seed * 0x2545f4914f6cdd1dULL + 41);
  std::vector<SweepSpec> out;
  for (int i = 0; i < count; ++i) {
    const long long channels = 1LL << d.between(6, 15);
    const int taps = static_cast<int>(d.pick(std::vector<long long>{2, 4, 8, 12, 16, 16, 16, 24, 32}));
    const int pols = d.chance(0.8) ? 2 : 1;
    const int receivers = d.chance(0.6) ? 1 : static_cast<int>(d.logBetween(2, 64));
    Json input = Json::object();
    const double u = d.unit();
    if (u < 0.5) input["type"] = "int8";
    else if (u < 0.7) input["type"] = "int16";
    else input = Json::object({{"type", "packed"}, {"bits", d.pick(std::vector<long long>{10, 10, 10, 12, 4, 6})}});
    const double o = d.unit();
    const std::string output = o < 0.35 ? "ci8 katgpucbf" : o < 0.6 ? "ci8 tcc" : "cf32";
    // 4..64 M samples per call, in whole groups of 16 spectra.
    const long long samples = d.logBetween(1LL << 22, 1LL << 26);
    const long long perSpectrum = 2 * channels * receivers * pols;
    const long long spectra = std::max<long long>(16, samples / perSpectrum / 16 * 16);
    Json j = Json::object();
    j["name"] = fmt::format("pfb_{}c_{}t_r{}p{}_{}_{}", channels, taps, receivers, pols,
                            input["type"].get<std::string>() == "packed"
                                ? fmt::format("{}bit", input["bits"].get<long long>())
                                : input["type"].get<std::string>(),
                            output == "cf32" ? "cf32" : output.substr(4));
    j["family"] = "pfb";
    j["channels"] = channels;
    j["taps"] = taps;
    j["receivers"] = receivers;
    j["polarizations"] = pols;
    j["spectra_per_call"] = spectra;
    j["input"] = input;
    j["weights"] = Json::object({{"window", d.chance(0.9) ? "hann" : "rect"}});
    const double g = d.unit();
    if (g < 0.4) j["gain"] = "per_channel";
    else if (g < 0.7) j["gain"] = 0.5 + d.unit();
    if (d.chance(0.4)) j["delay"] = true;
    j["output"] = output == "cf32" ? Json::object({{"type", "cf32"}})
                                   : Json::object({{"type", "ci8"}, {"layout", output.substr(4)}});
    const char* band = channels <= 1024 ? "64..1k channels" : channels <= 4096 ? "2k..4k channels" : "8k..32k channels";
    out.push_back({fmt::format("{}, {}", output, band), j});
  }
  return out;
}

}  // namespace warpforge
