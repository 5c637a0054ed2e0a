#include "generator/gridder/GridderData.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

namespace warpforge {

namespace {

constexpr double kLight = 299792458.0;
constexpr double kEarthRate = 7.2921150e-5;  // radians per second

template <class T>
void put(TestData& d, const std::string& name, const std::vector<T>& v) {
  auto& a = d.arrays[name];
  a.resize(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(a.data(), v.data(), a.size());
}

template <class T>
const T* at(const TestData& d, const std::string& name, long long offset) {
  auto it = d.arrays.find(name);
  if (it == d.arrays.end()) return nullptr;
  return reinterpret_cast<const T*>(it->second.data()) + offset;
}

}  // namespace

GridGeometry gridGeometry(const GridderSpec& s, const GridObsOptions& o) {
  GridGeometry g;
  const int C = s.channels;
  g.wavenumbers.resize(C);
  for (int c = 0; c < C; ++c)
    g.wavenumbers[c] = static_cast<float>(2 * std::numbers::pi * (o.startFrequency + c * o.channelWidth) / kLight);
  const double fMax = o.startFrequency + (C - 1) * o.channelWidth;
  // Longest regular baseline: extent x (G/2 - S/2) pixels at the top channel; pixels = metres / lambda x L.
  const double bMax = o.extent * (s.gridSize / 2.0 - s.subgridSize / 2.0) * (kLight / fMax) / s.imageSize;
  const double rMax = bMax / 2;
  std::mt19937_64 rng(o.geometrySeed * 0x9e3779b97f4a7c15ULL + 12345);
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  const int N = s.stations;
  const int regular = o.outlier && N > 2 ? N - 1 : N;
  std::vector<double> east(N), north(N);
  for (int i = 0; i < N; ++i) {
    double r, th;
    if (i >= regular) {
      r = 2.0 * rMax, th = 2 * std::numbers::pi * uni(rng);
    } else if (o.spiral) {
      r = rMax * std::sqrt((i + 0.5) / regular), th = i * 2.399963229728653;  // golden angle
    } else {
      r = rMax * std::sqrt(uni(rng)), th = 2 * std::numbers::pi * uni(rng);
    }
    east[i] = r * std::cos(th), north[i] = r * std::sin(th);
  }
  const long long B = s.baselines(), T = s.timeSteps;
  g.uvw.resize(static_cast<std::size_t>(B * T * 3));
  const double sl = std::sin(o.latitude), cl = std::cos(o.latitude), sd = std::sin(o.declination),
               cd = std::cos(o.declination);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (long long bl = 0; bl < B; ++bl) {
    const auto [a, b] = gridBaselineStations(N, bl);
    const double dE = east[b] - east[a], dN = north[b] - north[a];
    const double X = -sl * dN, Y = dE, Z = cl * dN;  // local horizon (no height) -> equatorial
    for (long long t = 0; t < T; ++t) {
      float* p = &g.uvw[(bl * T + t) * 3];
      if (uni(rng) < o.flaggedTimeFraction) {
        p[0] = p[1] = p[2] = nan;
        continue;
      }
      const double H = kEarthRate * o.integration * (t - T / 2.0);
      const double sh = std::sin(H), ch = std::cos(H);
      p[0] = static_cast<float>(sh * X + ch * Y);
      p[1] = static_cast<float>(-sd * ch * X + sd * sh * Y + cd * Z);
      p[2] = static_cast<float>(cd * ch * X - cd * sh * Y + sd * Z);
    }
  }
  return g;
}

TestData gridderInputs(const GridderSpec& s, long long batch, std::uint64_t seed, const GridObsOptions& o) {
  if (batch < 1) throw std::invalid_argument("gridder inputs: batch must be at least 1");
  const GridGeometry geo = gridGeometry(s, o);
  auto logical = std::make_shared<GridLogical>();
  logical->plan = planGridder(s, geo.uvw.data(), geo.wavenumbers.data());
  logical->options = o;
  const GridPlan& plan = logical->plan;

  const int S = s.subgridSize, P = s.correlations;
  const long long B = s.baselines(), T = s.timeSteps, C = s.channels;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> sym(-1.0f, 1.0f), uni(0.0f, 1.0f);
  const float nan = std::numeric_limits<float>::quiet_NaN();

  TestData d;
  std::vector<float> uvw, wn, vis, weights, aterms, grid;
  std::vector<std::int32_t> meta, tOff, tSub;
  const std::vector<std::int32_t> meta1 = plan.metadata(s.maxSubgrids);
  const long long tileSlots = 4 * s.maxSubgrids;
  for (long long b = 0; b < batch; ++b) {
    uvw.insert(uvw.end(), geo.uvw.begin(), geo.uvw.end());
    wn.insert(wn.end(), geo.wavenumbers.begin(), geo.wavenumbers.end());
    meta.insert(meta.end(), meta1.begin(), meta1.end());
    std::vector<float> w(static_cast<std::size_t>(B * T * C));
    for (auto& x : w) x = uni(rng) < o.zeroWeightFraction ? 0.0f : 0.5f + uni(rng);
    if (s.grid()) {
      std::vector<float> v(static_cast<std::size_t>(B * T * C * P * 2));
      for (auto& x : v) x = sym(rng);
      if (o.nanForZeroWeight)
        for (std::size_t i = 0; i < w.size(); ++i)
          if (w[i] == 0)
            for (int k = 0; k < 2 * P; ++k) v[i * 2 * P + k] = nan;
      vis.insert(vis.end(), v.begin(), v.end());
      if (s.adder == GridAdder::Tiles) {
        tOff.insert(tOff.end(), plan.tileOffsets.begin(), plan.tileOffsets.end());
        std::vector<std::int32_t> ts(static_cast<std::size_t>(tileSlots), 0);
        std::copy(plan.tileSubgrids.begin(), plan.tileSubgrids.end(), ts.begin());
        tSub.insert(tSub.end(), ts.begin(), ts.end());
      }
    } else {
      std::vector<float> gr(static_cast<std::size_t>(s.gridElems() * 2));
      for (auto& x : gr) x = sym(rng);
      grid.insert(grid.end(), gr.begin(), gr.end());
    }
    weights.insert(weights.end(), w.begin(), w.end());
    if (s.aterms) {
      const long long pixels = static_cast<long long>(s.atermIntervals()) * s.stations * S * S;
      for (long long q = 0; q < pixels; ++q)
        for (int p = 0; p < P; ++p) {
          const bool diag = P < 4 || p == 0 || p == 3;
          aterms.push_back((diag ? 1.0f : 0.0f) + (diag ? 0.3f : 0.2f) * sym(rng));
          aterms.push_back((diag ? 0.3f : 0.2f) * sym(rng));
        }
    }
  }
  put(d, "uvw", uvw);
  put(d, "wavenumbers", wn);
  put(d, "weights", weights);
  put(d, "metadata", meta);
  if (s.grid()) {
    put(d, "visibilities", vis);
    if (s.adder == GridAdder::Tiles) {
      put(d, "tile_offsets", tOff);
      put(d, "tile_subgrids", tSub);
    }
  } else {
    put(d, "grid", grid);
  }
  if (s.aterms) put(d, "aterms", aterms);
  if (s.taper) {
    // Separable and smooth (the role of IDG's prolate spheroidal), positive everywhere.
    std::vector<float> taper(static_cast<std::size_t>(S * S));
    for (int y = 0; y < S; ++y)
      for (int x = 0; x < S; ++x) {
        const double ex = (x - S / 2.0) / (0.45 * S), ey = (y - S / 2.0) / (0.45 * S);
        taper[y * S + x] = static_cast<float>(std::exp(-ex * ex) * std::exp(-ey * ey));
      }
    put(d, "taper", taper);
  }
  d.logical = std::shared_ptr<const GridLogical>(logical);
  return d;
}

const GridLogical& gridLogical(const TestData& d) {
  const auto* p = std::any_cast<std::shared_ptr<const GridLogical>>(&d.logical);
  if (!p || !*p) throw std::invalid_argument("gridder check: the test data were not made by gridderInputs");
  return **p;
}

GridView gridView(const GridderSpec& s, const TestData& d, long long b) {
  const int S = s.subgridSize, P = s.correlations;
  const long long B = s.baselines(), T = s.timeSteps, C = s.channels;
  GridView v;
  v.uvw = at<float>(d, "uvw", b * B * T * 3);
  v.wavenumbers = at<float>(d, "wavenumbers", b * C);
  v.weights = at<float>(d, "weights", b * B * T * C);
  if (s.grid()) v.vis = at<float>(d, "visibilities", b * B * T * C * P * 2);
  else v.grid = at<float>(d, "grid", b * s.gridElems() * 2);
  if (s.aterms) v.aterms = at<float>(d, "aterms", b * s.atermIntervals() * s.stations * S * S * P * 2);
  if (s.taper) v.taper = at<float>(d, "taper", 0);
  return v;
}

}  // namespace warpforge
