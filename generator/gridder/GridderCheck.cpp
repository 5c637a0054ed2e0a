#include "generator/gridder/GridderCheck.h"

#include <cmath>
#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "generator/gridder/GridderData.h"
#include "generator/gridder/GridderReference.h"

namespace warpforge {

double gridderErrorBound(const GridderSpec& s, double psiRms) {
  const double u = std::ldexp(1.0, -24);
  double b = std::max(1e-5, 16 * u * psiRms);
  if (s.phasor == GridPhasor::Sfu) b += 2 * (std::pow(2.0, -21.41) + psiRms * std::ldexp(1.0, -22));
  // Tensor-core sums, per term relative to |V|: tf32 rounds both operands to nearest (2^-11 each). tf32x3:
  // A's hi part is truncated (its lo part < 2^-10), B's rounded (lo <= 2^-11); the tensor core truncates the
  // lo parts to tf32 (A: 2^-20, B: 2^-21) and lo x lo is dropped (2^-21): 4 x 2^-21 in all.
  if (s.engine == GridEngine::MmaTf32) b += std::ldexp(1.0, -10);
  if (s.engine == GridEngine::MmaTf32x3) b += 4 * std::ldexp(1.0, -21);
  return b;
}

namespace {

struct Complexes {
  const float* f = nullptr;
  long long n = 0;
  cd at(long long i) const { return cd(f[2 * i], f[2 * i + 1]); }
};

Complexes outputOf(const std::map<std::string, std::vector<unsigned char>>& outputs, const std::string& name,
                   long long perBatch, long long batch) {
  auto it = outputs.find(name);
  if (it == outputs.end()) throw std::invalid_argument(fmt::format("gridder check: no output '{}'", name));
  if (static_cast<long long>(it->second.size()) < perBatch * batch * 8)
    throw std::invalid_argument(fmt::format("gridder check: output {} has {} bytes, the spec needs {}", name,
                                            it->second.size(), perBatch * batch * 8));
  return {reinterpret_cast<const float*>(it->second.data()), perBatch * batch};
}

bool written(const float* p) {
  std::uint32_t a, b;
  std::memcpy(&a, p, 4);
  std::memcpy(&b, p + 1, 4);
  return a != 0xffffffffu && b != 0xffffffffu && std::isfinite(p[0]) && std::isfinite(p[1]);
}

// Entries compared: the first and the last.
std::vector<long long> entries(long long batch) {
  return batch > 1 ? std::vector<long long>{0, batch - 1} : std::vector<long long>{0};
}

double work(const GridderSpec& s, const GridPlan& plan) {
  double w = 0;
  for (const Subgrid& g : plan.subgrids)
    w += static_cast<double>(g.visibilities()) * s.subgridSize * s.subgridSize * s.correlations;
  return w;
}

// Up to `k` subgrids picked with a fixed seed.
std::vector<std::size_t> sample(std::size_t n, std::size_t k, std::uint64_t seed) {
  std::vector<std::size_t> all(n);
  for (std::size_t i = 0; i < n; ++i) all[i] = i;
  std::mt19937_64 rng(seed);
  for (std::size_t i = 0; i < std::min(n, k); ++i) std::swap(all[i], all[i + rng() % (n - i)]);
  all.resize(std::min(n, k));
  return all;
}

}  // namespace

Check gridderCheck(const GridderSpec& s, const TestData& data,
                   const std::map<std::string, std::vector<unsigned char>>& outputs, long long batch,
                   double fullReferenceWork) {
  const GridLogical& lg = gridLogical(data);
  const GridPlan& plan = lg.plan;
  const int S = s.subgridSize, P = s.correlations, G = s.gridSize;
  const long long T = s.timeSteps, C = s.channels;
  const bool full = work(s, plan) <= fullReferenceWork;
  Check ck;
  GridPhaseStats stats;
  double errSq = 0, refSq = 0;
  long long compared = 0, nonzero = 0;
  std::size_t sampledSubgrids = 0;
  std::string firstBad;
  if (s.grid()) {
    const Complexes out = outputOf(outputs, "grid", s.gridElems(), batch);
    for (long long i = 0; i < out.n; ++i) ck.unwritten += !written(out.f + 2 * i);
    for (long long b : entries(batch)) {
      const GridView v = gridView(s, data, b);
      const long long base = b * s.gridElems();
      // Coverage: how many subgrids hold each (plane, pixel).
      std::vector<int> cover(static_cast<std::size_t>(s.wPlanes) * G * G, 0);
      for (std::size_t i = 0; i < plan.subgrids.size(); ++i) {
        const Subgrid& g = plan.subgrids[i];
        for (int y = 0; y < S; ++y)
          for (int x = 0; x < S; ++x) {
            const std::size_t q = (static_cast<std::size_t>(g.z) * G + g.y + y) * G + g.x + x;
            ++cover[q];
          }
      }
      for (int z = 0; z < s.wPlanes; ++z)
        for (long long q = 0; q < static_cast<long long>(G) * G; ++q)
          if (!cover[static_cast<std::size_t>(z) * G * G + q])
            for (int p = 0; p < P; ++p) {
              const cd o = out.at(base + (static_cast<long long>(z) * P + p) * G * G + q);
              if (o != cd(0, 0) && written(out.f + 2 * (base + (static_cast<long long>(z) * P + p) * G * G + q))) {
                if (!nonzero++)
                  firstBad = fmt::format("grid value (plane {}, correlation {}, pixel {}) is {} where no subgrid lies",
                                         z, p, q, o.real());
              }
            }
      if (full) {
        const std::vector<cd> ref = referenceGrid(s, v, plan, &stats);
        for (long long i = 0; i < s.gridElems(); ++i) {
          const cd o = out.at(base + i);
          if (!written(out.f + 2 * (base + i))) continue;
          errSq += std::norm(o - ref[i]);
          refSq += std::norm(ref[i]);
        }
        compared += s.gridElems();
      } else {
        // Regions of S x S pixels (each subgrid's own area), those overlapped by the fewest subgrids first
        // (the outskirts), plus one at random; every subgrid touching a region is computed and summed.
        auto overlapping = [&](const Subgrid& r) {
          std::vector<std::size_t> o;
          for (std::size_t j = 0; j < plan.subgrids.size(); ++j) {
            const Subgrid& g = plan.subgrids[j];
            if (g.z == r.z && g.x < r.x + S && r.x < g.x + S && g.y < r.y + S && r.y < g.y + S) o.push_back(j);
          }
          return o;
        };
        std::vector<std::pair<std::size_t, std::size_t>> byCount;  // (overlaps, subgrid) over a sample of candidates
        for (std::size_t i : sample(plan.subgrids.size(), 64, 0x6a1d + b))
          byCount.push_back({overlapping(plan.subgrids[i]).size(), i});
        std::sort(byCount.begin(), byCount.end());
        std::vector<std::size_t> regions;
        for (std::size_t k = 0; k < byCount.size() && regions.size() < 3; ++k) regions.push_back(byCount[k].second);
        // and a typical one, where that stays affordable (the centre of a big plan may hold hundreds)
        if (byCount.size() > 3 && byCount[byCount.size() / 2].first <= 16)
          regions.push_back(byCount[byCount.size() / 2].second);
        std::map<std::size_t, std::vector<cd>> uvs;
        for (std::size_t ri : regions) {
          const Subgrid& r = plan.subgrids[ri];
          std::vector<cd> sum(static_cast<std::size_t>(P) * S * S);
          for (std::size_t j : overlapping(r)) {
            if (!uvs.count(j)) uvs[j] = referenceSubgridUv(s, v, plan.subgrids[j], &stats);
            const Subgrid& g = plan.subgrids[j];
            for (int p = 0; p < P; ++p)
              for (int y = 0; y < S; ++y)
                for (int x = 0; x < S; ++x) {
                  const int gx = r.x + x - g.x, gy = r.y + y - g.y;
                  if (gx < 0 || gx >= S || gy < 0 || gy >= S) continue;
                  sum[(static_cast<std::size_t>(p) * S + y) * S + x] +=
                      uvs[j][(static_cast<std::size_t>(p) * S + gridUvIndex(gy, S)) * S + gridUvIndex(gx, S)];
                }
          }
          for (int p = 0; p < P; ++p)
            for (int y = 0; y < S; ++y)
              for (int x = 0; x < S; ++x) {
                const long long e = base + ((static_cast<long long>(r.z) * P + p) * G + r.y + y) * G + r.x + x;
                if (!written(out.f + 2 * e)) continue;
                const cd ref = sum[(static_cast<std::size_t>(p) * S + y) * S + x];
                errSq += std::norm(out.at(e) - ref);
                refSq += std::norm(ref);
                ++compared;
              }
        }
        sampledSubgrids += uvs.size();
      }
    }
  } else {
    const long long nv = s.baselines() * T * C * P;
    const Complexes out = outputOf(outputs, "visibilities", nv, batch);
    for (long long i = 0; i < out.n; ++i) ck.unwritten += !written(out.f + 2 * i);
    for (long long b : entries(batch)) {
      const GridView v = gridView(s, data, b);
      const long long base = b * nv;
      // Planned and unflagged visibilities; every other one must be exactly 0.
      std::vector<char> live(static_cast<std::size_t>(s.baselines() * T * C), 0);
      for (const Subgrid& g : plan.subgrids)
        for (int t = 0; t < g.timeCount; ++t) {
          const float* uvw = v.uvw + (g.baseline * T + g.time + t) * 3;
          if (!std::isfinite(uvw[0]) || !std::isfinite(uvw[1]) || !std::isfinite(uvw[2])) continue;
          for (int c = 0; c < g.channelCount; ++c) {
            const long long vi = (g.baseline * T + g.time + t) * C + g.channel + c;
            live[vi] = v.weights[vi] != 0;
          }
        }
      for (long long vi = 0; vi < static_cast<long long>(live.size()); ++vi)
        if (!live[vi])
          for (int p = 0; p < P; ++p)
            if (written(out.f + 2 * (base + vi * P + p)) && out.at(base + vi * P + p) != cd(0, 0)) {
              if (!nonzero++)
                firstBad = fmt::format("visibility {} (flagged or in no subgrid) is {}, not 0", vi,
                                       out.at(base + vi * P + p).real());
            }
      std::vector<std::size_t> which;
      if (full) {
        for (std::size_t i = 0; i < plan.subgrids.size(); ++i) which.push_back(i);
      } else {
        which = sample(plan.subgrids.size(), 4, 0xde6 + b);
      }
      for (std::size_t i : which) {
        const Subgrid& g = plan.subgrids[i];
        const std::vector<cd> r = referenceDegridSubgrid(s, v, g, &stats);
        for (int t = 0; t < g.timeCount; ++t)
          for (int c = 0; c < g.channelCount; ++c) {
            const long long vi = (g.baseline * T + g.time + t) * C + g.channel + c;
            if (!live[vi]) continue;
            for (int p = 0; p < P; ++p) {
              const long long e = base + vi * P + p;
              if (!written(out.f + 2 * e)) continue;
              const cd ref = r[(static_cast<std::size_t>(t) * g.channelCount + c) * P + p];
              errSq += std::norm(out.at(e) - ref);
              refSq += std::norm(ref);
              ++compared;
            }
          }
      }
    }
  }
  ck.checked = static_cast<long long>(entries(batch).size());
  ck.error = refSq > 0 ? std::sqrt(errSq / refSq) : (errSq > 0 ? 1.0 : 0.0);
  if (compared == 0 && !plan.subgrids.empty()) {
    ck.error = 1.0;  // nothing compared is not a pass
    if (firstBad.empty()) firstBad = "no value could be compared (all unwritten?)";
  }
  if (nonzero) ck.error = std::max(ck.error, 1.0);
  ck.bound = gridderErrorBound(s, stats.rms());
  ck.detail = fmt::format(
      "{} {} values compared against the double reference ({}); relative RMS error {:.3g} (bound {:.3g}: phasor {}, "
      "engine {}, rms |phase| {:.3g} rad, max "
      "{:.3g}); {} unwritten (poison or non-finite); {} nonzero where 0 is due; plan: {}, {} subgrids{}{}",
      compared, s.grid() ? "grid" : "visibility",
      full       ? std::string("every subgrid")
      : s.grid() ? fmt::format("up to 4 regions of S x S grid pixels, every one of the {} subgrids touching them",
                               sampledSubgrids)
                 : std::string("4 sampled subgrids' visibilities"),
      ck.error, ck.bound, gridPhasorName(s.phasor), gridEngineName(s.engine), stats.rms(), stats.maxAbs, ck.unwritten,
      nonzero, plan.counts.str(), plan.subgrids.size(), firstBad.empty() ? "" : "; ", firstBad);
  return ck;
}

}  // namespace warpforge
