// `warpforge bench --sweep correlator`: specs a radio-telescope engineer might write, drawn at random: receivers
// 1..4096 (log-uniform), one or two polarizations, 4-, 8- and 16-bit samples, TCC's and katgpucbf's input layouts,
// samples per call 128..8192 and channels so that one call is 10 GOPs .. 4 TOPs (TCC's count) and its arrays stay
// within 2 GB. Nothing is filtered by what the generator supports: a spec it cannot build is counted unsupported.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "generator/core/SweepDraw.h"
#include "generator/correlator/CorrelatorFamily.h"

namespace warpforge {

namespace {

using Draw = SweepDraw;

}  // namespace

std::vector<SweepSpec> correlatorSweepSpecs(std::uint64_t seed, int count) {
  Draw d(seed * 0x2545f4914f6cdd1dULL + 38);
  std::vector<SweepSpec> out;
  for (int i = 0; i < count; ++i) {
    const double u = d.unit();
    const std::string type = u < 0.5 ? "ci8" : u < 0.75 ? "ci4" : "cf16";
    const std::string layout = d.unit() < 0.5 ? "tcc" : "katgpucbf";
    const int pols = d.unit() < 0.7 ? 2 : 1;
    const long long R = d.logBetween(1, 4096);
    const long long T = std::max(128LL, d.logBetween(128, 8192) / 128 * 128);
    const double perChannel = 8.0 * R * R / 2 * pols * pols * static_cast<double>(T);
    const double visBytes = static_cast<double>(R) * (R + 1) / 2 * pols * pols *
                            24;  // one accumulator + the output, per channel
    const double inBytes = static_cast<double>(R) * pols * T * (type == "ci4" ? 1 : type == "ci8" ? 2 : 4);
    long long C = d.logBetween(1, 1024);
    C = std::max<long long>(C, static_cast<long long>(std::ceil(1e10 / perChannel)));
    C = std::min<long long>(C, static_cast<long long>(4e12 / perChannel));
    C = std::min<long long>(C, static_cast<long long>(2e9 / (visBytes + inBytes)));
    C = std::clamp<long long>(C, 1, 1 << 16);
    Json j = Json::object();
    j["name"] = fmt::format("corr_{}_{}_r{}p{}c{}t{}", type, layout, R, pols, C, T);
    j["family"] = "correlator";
    j["receivers"] = R;
    j["polarizations"] = pols;
    j["channels"] = C;
    j["samples_per_call"] = T;
    j["sample_type"] = type;
    j["input"] = Json::object({{"layout", layout}});
    out.push_back({fmt::format("{} {}, {} pol{}", type, layout, pols, R >= 512 ? ", R >= 512" : ""), j});
  }
  return out;
}

}  // namespace warpforge
