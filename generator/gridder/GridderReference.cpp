#include "generator/gridder/GridderReference.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "generator/emulate/Reference.h"

namespace warpforge {

namespace {

// The subgrid's offsets: u0, v0 (radians per radian of l, m) and w0 (2 pi x the plane's w).
struct Offsets {
  double u0, v0, w0;
};
Offsets offsets(const GridderSpec& s, const Subgrid& g) {
  const int S = s.subgridSize, G = s.gridSize;
  return {2 * std::numbers::pi * (g.x + S / 2 - G / 2) / s.imageSize,
          2 * std::numbers::pi * (g.y + S / 2 - G / 2) / s.imageSize, 2 * std::numbers::pi * s.wOffset(g.z)};
}

bool finiteUvw(const float* p) { return std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]); }

// The A-term (P complex values: scalar, diagonal or 2 x 2) of station `st` at pixel (x, y) of interval `ai`.
void aterm(const GridderSpec& s, const GridView& v, int ai, int st, int x, int y, cd* a) {
  const int S = s.subgridSize, P = s.correlations;
  const float* p = v.aterms + ((((static_cast<long long>(ai) * s.stations + st) * S + y) * S + x) * P) * 2;
  for (int i = 0; i < P; ++i) a[i] = cd(p[2 * i], p[2 * i + 1]);
}

// Gridding: A1^H P A2 (adjoint = false); degridding: A1 P A2^H (adjoint = true).
void applyAterms(int P, const cd* a1, const cd* a2, cd* px, bool degrid) {
  if (P == 1) {
    px[0] = degrid ? a1[0] * px[0] * std::conj(a2[0]) : std::conj(a1[0]) * px[0] * a2[0];
    return;
  }
  if (P == 2) {
    for (int i = 0; i < 2; ++i) px[i] = degrid ? a1[i] * px[i] * std::conj(a2[i]) : std::conj(a1[i]) * px[i] * a2[i];
    return;
  }
  auto mul = [](const cd* x, const cd* y, cd* r) {  // 2 x 2, row-major (XX XY YX YY)
    r[0] = x[0] * y[0] + x[1] * y[2], r[1] = x[0] * y[1] + x[1] * y[3];
    r[2] = x[2] * y[0] + x[3] * y[2], r[3] = x[2] * y[1] + x[3] * y[3];
  };
  auto herm = [](const cd* x, cd* r) {
    r[0] = std::conj(x[0]), r[1] = std::conj(x[2]), r[2] = std::conj(x[1]), r[3] = std::conj(x[3]);
  };
  cd h[4], q[4];
  if (degrid) {
    mul(a1, px, q);
    herm(a2, h);
    mul(q, h, px);
  } else {
    herm(a1, h);
    mul(h, px, q);
    mul(q, a2, px);
  }
}

// One S x S FFT in place (the double-precision reference, unscaled); sign +1 inverse, -1 forward.
void fft2(int S, cd* data, int sign) {
  std::vector<cd> y = referenceDftNd(std::vector<cd>(data, data + static_cast<std::size_t>(S) * S), {S, S}, sign);
  std::copy(y.begin(), y.end(), data);
}

}  // namespace

GridPixel gridPixelLmn(const GridderSpec& s, int x, int y) {
  const int S = s.subgridSize;
  GridPixel q;
  q.l = (x - S / 2) * s.imageSize / S;
  q.m = (y - S / 2) * s.imageSize / S;
  q.ls = q.l + s.shiftL;
  q.ms = q.m + s.shiftM;
  const double r2 = q.ls * q.ls + q.ms * q.ms;
  q.n = r2 / (1 + std::sqrt(1 - r2));
  return q;
}

std::vector<cd> referenceSubgridImage(const GridderSpec& s, const GridView& v, const Subgrid& g,
                                      GridPhaseStats* stats) {
  const int S = s.subgridSize, P = s.correlations;
  const long long T = s.timeSteps, C = s.channels;
  const Offsets o = offsets(s, g);
  std::vector<cd> img(static_cast<std::size_t>(P) * S * S);
  for (int y = 0; y < S; ++y)
    for (int x = 0; x < S; ++x) {
      const GridPixel q = gridPixelLmn(s, x, y);
      const double off = o.u0 * q.l + o.v0 * q.m + o.w0 * q.n;
      cd px[4] = {};
      for (int t = g.time; t < g.time + g.timeCount; ++t) {
        const float* uvw = v.uvw + (g.baseline * T + t) * 3;
        if (!finiteUvw(uvw)) continue;
        const double idx = uvw[0] * q.ls + uvw[1] * q.ms + uvw[2] * q.n;
        for (int c = g.channel; c < g.channel + g.channelCount; ++c) {
          const long long vi = (g.baseline * T + t) * C + c;
          const double w = v.weights[vi];
          const double psi = v.wavenumbers[c] * idx - off;
          if (stats)
            stats->add(psi - v.wavenumbers[c] * (uvw[0] * s.shiftL +
                                                 uvw[1] * s.shiftM));  // the f32 part (the shift rotates V in double)
          if (w == 0) continue;
          const cd ph(std::cos(psi), -std::sin(psi));
          for (int p = 0; p < P; ++p) px[p] += w * cd(v.vis[(vi * P + p) * 2], v.vis[(vi * P + p) * 2 + 1]) * ph;
        }
      }
      if (v.aterms) {
        cd a1[4], a2[4];
        aterm(s, v, g.aterm, g.station1, x, y, a1);
        aterm(s, v, g.aterm, g.station2, x, y, a2);
        applyAterms(P, a1, a2, px, false);
      }
      const double tp = v.taper ? v.taper[y * S + x] : 1.0;
      for (int p = 0; p < P; ++p) img[(static_cast<std::size_t>(p) * S + y) * S + x] = px[p] * tp;
    }
  return img;
}

std::vector<cd> referenceSubgridUv(const GridderSpec& s, const GridView& v, const Subgrid& g, GridPhaseStats* stats) {
  const int S = s.subgridSize, P = s.correlations;
  const std::vector<cd> img = referenceSubgridImage(s, v, g, stats);
  std::vector<cd> uv(img.size());
  for (int p = 0; p < P; ++p) {
    cd* f = &uv[static_cast<std::size_t>(p) * S * S];
    for (int y = 0; y < S; ++y)
      for (int x = 0; x < S; ++x)
        f[gridUvIndex(y, S) * S + gridUvIndex(x, S)] = img[(static_cast<std::size_t>(p) * S + y) * S + x];
    fft2(S, f, +1);
  }
  return uv;
}

std::vector<cd> referenceGrid(const GridderSpec& s, const GridView& v, const GridPlan& plan, GridPhaseStats* stats) {
  const int S = s.subgridSize, P = s.correlations, G = s.gridSize;
  std::vector<cd> grid(static_cast<std::size_t>(s.gridElems()));
  for (const Subgrid& g : plan.subgrids) {
    const std::vector<cd> uv = referenceSubgridUv(s, v, g, stats);
    for (int p = 0; p < P; ++p)
      for (int oy = 0; oy < S; ++oy)
        for (int ox = 0; ox < S; ++ox)
          grid[((static_cast<std::size_t>(g.z) * P + p) * G + g.y + oy) * G + g.x + ox] +=
              uv[(static_cast<std::size_t>(p) * S + gridUvIndex(oy, S)) * S + gridUvIndex(ox, S)];
  }
  return grid;
}

std::vector<cd> referenceDegridSubgrid(const GridderSpec& s, const GridView& v, const Subgrid& g,
                                       GridPhaseStats* stats) {
  const int S = s.subgridSize, P = s.correlations, G = s.gridSize;
  const long long T = s.timeSteps, C = s.channels;
  // Splitter, forward FFT, unshift, taper, A-terms: the corrected image [y][x][p].
  std::vector<cd> f(static_cast<std::size_t>(S) * S), img(static_cast<std::size_t>(P) * S * S);
  for (int p = 0; p < P; ++p) {
    for (int oy = 0; oy < S; ++oy)
      for (int ox = 0; ox < S; ++ox) {
        const float* gp = v.grid + (((static_cast<long long>(g.z) * P + p) * G + g.y + oy) * G + g.x + ox) * 2;
        f[gridUvIndex(oy, S) * S + gridUvIndex(ox, S)] = cd(gp[0], gp[1]);
      }
    fft2(S, f.data(), -1);
    for (int y = 0; y < S; ++y)
      for (int x = 0; x < S; ++x)
        img[(static_cast<std::size_t>(y) * S + x) * P + p] = f[gridUvIndex(y, S) * S + gridUvIndex(x, S)];
  }
  for (int y = 0; y < S; ++y)
    for (int x = 0; x < S; ++x) {
      cd* px = &img[(static_cast<std::size_t>(y) * S + x) * P];
      const double tp = v.taper ? v.taper[y * S + x] : 1.0;
      for (int p = 0; p < P; ++p) px[p] *= tp;
      if (v.aterms) {
        cd a1[4], a2[4];
        aterm(s, v, g.aterm, g.station1, x, y, a1);
        aterm(s, v, g.aterm, g.station2, x, y, a2);
        applyAterms(P, a1, a2, px, true);
      }
    }
  const Offsets o = offsets(s, g);
  std::vector<cd> out(static_cast<std::size_t>(g.timeCount) * g.channelCount * P);
  std::vector<GridPixel> lmn;
  for (int y = 0; y < S; ++y)
    for (int x = 0; x < S; ++x) lmn.push_back(gridPixelLmn(s, x, y));
  for (int t = 0; t < g.timeCount; ++t) {
    const float* uvw = v.uvw + (g.baseline * T + g.time + t) * 3;
    if (!finiteUvw(uvw)) continue;
    for (int c = 0; c < g.channelCount; ++c) {
      const long long vi = (g.baseline * T + g.time + t) * C + g.channel + c;
      if (v.weights[vi] == 0) continue;
      const double k = v.wavenumbers[g.channel + c];
      cd sum[4] = {};
      for (int i = 0; i < S * S; ++i) {
        const GridPixel& q = lmn[i];
        const double psi = k * (uvw[0] * q.ls + uvw[1] * q.ms + uvw[2] * q.n) - (o.u0 * q.l + o.v0 * q.m + o.w0 * q.n);
        if (stats) stats->add(psi - k * (uvw[0] * s.shiftL + uvw[1] * s.shiftM));
        const cd ph(std::cos(psi), std::sin(psi));
        for (int p = 0; p < P; ++p) sum[p] += img[static_cast<std::size_t>(i) * P + p] * ph;
      }
      for (int p = 0; p < P; ++p)
        out[(static_cast<std::size_t>(t) * g.channelCount + c) * P + p] = sum[p] / static_cast<double>(S * S);
    }
  }
  return out;
}

std::vector<cd> referenceDegrid(const GridderSpec& s, const GridView& v, const GridPlan& plan, GridPhaseStats* stats) {
  const int P = s.correlations;
  const long long T = s.timeSteps, C = s.channels;
  std::vector<cd> vis(static_cast<std::size_t>(s.baselines() * T * C * P));
  for (const Subgrid& g : plan.subgrids) {
    const std::vector<cd> r = referenceDegridSubgrid(s, v, g, stats);
    for (int t = 0; t < g.timeCount; ++t)
      for (int c = 0; c < g.channelCount; ++c)
        for (int p = 0; p < P; ++p)
          vis[(((g.baseline * T + g.time + t) * C + g.channel + c) * P) + p] =
              r[(static_cast<std::size_t>(t) * g.channelCount + c) * P + p];
  }
  return vis;
}

std::vector<cd> directImage(const GridderSpec& s, const GridView& v, const GridPlan& plan, int jx, int jy) {
  const int S = s.subgridSize, P = s.correlations;
  const long long T = s.timeSteps, C = s.channels;
  const int x = jx + S / 2, y = jy + S / 2;
  const GridPixel q = gridPixelLmn(s, x, y);
  std::vector<cd> out(P);
  for (const Subgrid& g : plan.subgrids) {
    cd px[4] = {};
    for (int t = g.time; t < g.time + g.timeCount; ++t) {
      const float* uvw = v.uvw + (g.baseline * T + t) * 3;
      if (!finiteUvw(uvw)) continue;
      for (int c = g.channel; c < g.channel + g.channelCount; ++c) {
        const long long vi = (g.baseline * T + t) * C + c;
        if (v.weights[vi] == 0) continue;
        const double phase = v.wavenumbers[c] * (uvw[0] * q.ls + uvw[1] * q.ms + uvw[2] * q.n);
        const cd ph(std::cos(phase), -std::sin(phase));
        for (int p = 0; p < P; ++p)
          px[p] += static_cast<double>(v.weights[vi]) * cd(v.vis[(vi * P + p) * 2], v.vis[(vi * P + p) * 2 + 1]) * ph;
      }
    }
    if (v.aterms) {
      cd a1[4], a2[4];
      aterm(s, v, g.aterm, g.station1, x, y, a1);
      aterm(s, v, g.aterm, g.station2, x, y, a2);
      applyAterms(P, a1, a2, px, false);
    }
    for (int p = 0; p < P; ++p) out[p] += px[p];
  }
  return out;
}

std::vector<cd> gridImage(const GridderSpec& s, const GridView& v, const std::vector<cd>& grid, int jx, int jy) {
  const int S = s.subgridSize, P = s.correlations, G = s.gridSize;
  const GridPixel q = gridPixelLmn(s, jx + S / 2, jy + S / 2);
  const double tp = v.taper ? v.taper[(jy + S / 2) * S + jx + S / 2] : 1.0;
  std::vector<cd> out(P);
  for (int z = 0; z < s.wPlanes; ++z) {
    const cd wz = std::polar(1.0, -2 * std::numbers::pi * s.wOffset(z) * q.n);
    for (int p = 0; p < P; ++p) {
      cd sum = 0;
      for (int gy = 0; gy < G; ++gy)
        for (int gx = 0; gx < G; ++gx) {
          const long long e = static_cast<long long>(gx - G / 2) * jx + static_cast<long long>(gy - G / 2) * jy;
          const double ang = -2 * std::numbers::pi * static_cast<double>(((e % S) + S) % S) / S;
          sum += grid[((static_cast<std::size_t>(z) * P + p) * G + gy) * G + gx] * cd(std::cos(ang), std::sin(ang));
        }
      out[p] += wz * sum / (static_cast<double>(S) * S * tp);
    }
  }
  return out;
}

}  // namespace warpforge
