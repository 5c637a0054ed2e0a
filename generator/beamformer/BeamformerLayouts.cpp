#include "generator/beamformer/BeamformerLayouts.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "generator/complexmma/ComplexMma.h"
#include "generator/beamformer/BeamformerWgmma.h"
#include "generator/emulate/Half.h"
#include "generator/verify/MmaCheck.h"

namespace warpforge {

BfMma bfMma(BfType type) {
  BfMma m;
  // Hand-written from the PTX ISA's fragment figures (groupID = lane >> 2: row of A and C, column of B;
  // threadID_in_group = lane & 3: the k position); bfConsistency() checks them against FragmentTable.
  // Which receiver sits at which k position is ours to choose (the sum runs over all of them, A and B agree):
  // the lowest receiver bit of a 32-bit word (the word pair) is the register bit (the PTX's k + 8 / k + 16 half),
  // the next two the lane's threadID_in_group. A thread's two words of a fragment row are then adjacent in
  // the receivers' own order (one 8-byte shared-memory load), and the staged rows hold the words in that order:
  // four of them (16 bytes) go from one global load to one shared-memory store.
  if (type == BfType::CF16) {
    m.shape = findMmaShape("m16n8k16", "f16");
    m.a = cmma::layoutText("b0 <-> ReIm_in, t0 t1 t2 t3 t4 <-> rcv1 rcv2 time0 time1 time2, r0 r1 <-> ReIm_out rcv0");
    m.b = cmma::layoutText("b0 <-> ReIm_in, t0 t1 t2 t3 t4 <-> rcv1 rcv2 beam0 beam1 beam2, r0 <-> rcv0");
    m.receiversPerStep = 8;
    m.receiversPerWord = 1;
  } else {
    m.shape = findMmaShape("m16n8k32", "s8");
    m.a = cmma::layoutText(
        "b0 b1 <-> ReIm_in rcv0, t0 t1 t2 t3 t4 <-> rcv2 rcv3 time0 time1 time2, r0 r1 <-> ReIm_out rcv1");
    m.b = cmma::layoutText("b0 b1 <-> ReIm_in rcv0, t0 t1 t2 t3 t4 <-> rcv2 rcv3 beam0 beam1 beam2, r0 <-> rcv1");
    m.receiversPerStep = 16;
    m.receiversPerWord = 2;
  }
  // The f32 / s32 accumulator fragment (the s8 shape's C; the table's f16 shape has an f16 C).
  m.c = cmma::layoutText("t0 t1 t2 t3 t4 <-> beam1 beam2 time0 time1 time2, r0 r1 <-> beam0 ReIm_out");
  return m;
}

namespace {

// The block beams for M: the candidate with the fewest tensor-core columns per useful beam, counting the padding of
// M's last tile and a per-tile overhead of 16 columns (the samples staged again for every beam tile, the fixed
// costs of a block): 96 beams -> one 96-beam tile, 1024 -> 128, 33 -> 48, 1..32 -> 32. With the spec's warp_beams,
// the candidates are its multiples (24: 48, 96, 72, 120).
int chooseBlockBeams(long long M, int warpBeams) {
  std::vector<int> candidates;
  for (int b : {32, 48, 64, 96, 128})
    if (!warpBeams || b % warpBeams == 0) candidates.push_back(b);
  if (warpBeams)
    for (int b = warpBeams; b <= 128; b += warpBeams)
      if (std::find(candidates.begin(), candidates.end(), b) == candidates.end()) candidates.push_back(b);
  int best = candidates.front();
  double bestCost = 1e300;
  for (int b : candidates) {
    const double tiles = static_cast<double>((M + b - 1) / b);
    const double cost = tiles * (b + 16);
    if (cost < bestCost - 1e-9) best = b, bestCost = cost;
  }
  return best;
}

}  // namespace

void bfFillGrid(const BeamformerSpec& s, BfTiling& t) {
  t.warpsT = t.times / t.warpTimes;
  t.warpsM = t.beams / t.warpBeams;
  t.threads = 32 * t.warpsT * t.warpsM;
  t.beamTiles = (s.beams + t.beams - 1) / t.beams;
  if (s.power) {
    // A block integrates whole windows: I >= times: one window over ceil(I / times) tiles; else floor(times / I)
    // windows in one tile.
    if (s.integrate >= t.times) {
      t.range = s.integrate;
      t.windowsPerRange = 1;
      t.tilesPerRange = static_cast<int>((s.integrate + t.times - 1) / t.times);
    } else {
      t.windowsPerRange = static_cast<int>(t.times / s.integrate);
      t.range = t.windowsPerRange * s.integrate;
      t.tilesPerRange = 1;
    }
  } else {
    t.range = t.times;
    t.tilesPerRange = 1;
    t.windowsPerRange = 1;
  }
  t.ranges = (s.samples + t.range - 1) / t.range;
  t.blocksPerBatch = static_cast<long long>(s.channels) * (s.power ? 1 : s.polarizations) * t.ranges * t.beamTiles;
}

// Two stages: with 16-byte loads and staged expansion the double buffer measured faster than one stage for every spec
// in specs/ on the H100 (the next stage's loads are in flight during this stage's MMAs).
int bfDefaultStages(const BeamformerSpec&) { return 2; }

BfTiling bfTiling(const BeamformerSpec& s, const BfMma&) {
  BfTiling t;
  const BfTuning& u = s.tuning;
  t.stages = u.stages ? std::min(u.stages, 2) : bfDefaultStages(s);  // 3..6 are the wgmma ring's depths
  // Automatic expansion: staged for integer samples (their conj / swap cost 3 + 1 instructions a word, made once at
  // staging instead of once per warp column), per MMA step for cf16 (1 + 1 a word: the doubled rows cost more than
  // they save; measured both ways on the H100); "expand" in the spec wins.
  t.expandStaged = u.expand == 1 || (u.expand == 0 && s.integer());
  t.sampleStride = t.expandStaged ? 2 * t.wordsPerStage + 16 : t.rowStride;
  t.beams = u.blockBeams ? u.blockBeams : chooseBlockBeams(s.beams, u.warpBeams);
  t.warpBeams = u.warpBeams ? u.warpBeams : t.beams % 32 == 0 ? 32 : t.beams % 24 == 0 ? 24 : 16;
  if (t.warpBeams > t.beams) t.warpBeams = t.beams;
  // 64 samples per block, in two warp rows of 32 (128 when there is a single 32-beam warp column: four warp rows).
  t.times = u.blockTimes ? u.blockTimes : (t.beams / t.warpBeams == 1 ? 128 : 64);
  t.warpTimes = u.warpTimes ? u.warpTimes : std::min(32, t.times);
  if (t.warpTimes > t.times) t.warpTimes = t.times;
  // Defaults adapt to the spec's warp tile: fewer warp rows where narrow warps make many warp columns (warp_beams 8
  // with 96 beams: 12 columns, one row of 32 samples, 384 threads, not 768).
  if (!u.blockTimes)
    while (t.times > t.warpTimes && t.times % (2 * t.warpTimes) == 0 &&
           32 * (t.times / t.warpTimes) * (t.beams / t.warpBeams) > 512)
      t.times /= 2;
  bfFillGrid(s, t);
  // Automatic expansion: at staging unless the doubled sample rows would not fit the shared memory of a block.
  if (u.expand == 0 && t.sharedBytes(s.power) > kBfMaxShared) t.expandStaged = false, t.sampleStride = t.rowStride;
  return t;
}

std::vector<std::pair<std::string, std::string>> bfTilingProblems(const BeamformerSpec& s, const BfTiling& t) {
  std::vector<std::pair<std::string, std::string>> p;
  if (t.times % t.warpTimes)
    p.push_back(
        {"/tuning/warp_times", fmt::format("block_times {} is not a multiple of warp_times {}", t.times, t.warpTimes)});
  if (t.beams % t.warpBeams)
    p.push_back(
        {"/tuning/warp_beams", fmt::format("block_beams {} is not a multiple of warp_beams {}", t.beams, t.warpBeams)});
  if (t.threads > 512)
    p.push_back({"/tuning", fmt::format("{} warps of {} x {} make {} threads per block (at most 512)",
                                        t.warpsT * t.warpsM, t.warpTimes, t.warpBeams, t.threads)});
  const int acc = (t.warpTimes / 8) * (t.warpBeams / 8) * 4;
  if (acc > 128)
    p.push_back(
        {"/tuning", fmt::format("a warp tile of {} x {} holds {} accumulators per thread (at most 128: registers)",
                                t.warpTimes, t.warpBeams, acc)});
  if (s.power && t.tilesPerRange > 1 && t.threads < t.beams)
    p.push_back({"/tuning", fmt::format("power over {} samples (> block_times {}): one thread per beam keeps the "
                                        "running sum; {} threads for {} beams",
                                        s.integrate, t.times, t.threads, t.beams)});
  if (t.sharedBytes(s.power) > kBfMaxShared)
    p.push_back({"/tuning",
                 fmt::format("{} B of shared memory per block (at most {} B)", t.sharedBytes(s.power), kBfMaxShared)});
  return p;
}

BfConsistency bfConsistency(const BeamformerSpec& s, const BfMma* mma) {
  BfConsistency rep;
  auto issue = [&](const std::string& path, const std::string& msg) { rep.issues.push_back({path, msg}); };
  const BfMma m = mma ? *mma : bfMma(s.in.type);
  const bool f16 = s.in.type == BfType::CF16;
  // 1. The MMA as a layout program: A (the samples doubled into ReIm_out rows), B (the weights) and C (f32 / s32
  //    accumulators) read through the instruction's atom by the common check; registers go to the instruction by
  //    position.
  const MmaShape& atom = mmaAccumulatorShape(*m.shape);
  const MmaCheck mc = checkMmaOperands(atom, {"A", &m.a}, {"B", &m.b}, {"C", &m.c}, {/*fixedRegisters=*/true});
  for (const auto& p : mc.problems) issue("/mma", p);
  // What the beamformer needs of the agreed bits: summed = ReIm_in and the receiver bits of one step, rows = ReIm_out
  // and three time bits, columns = three beam bits.
  std::set<std::string> summed, rows, cols;
  if (const auto A = matrixBits(m.a, atom.a))
    for (const auto& [bit, lg] : A->pairs()) (bit[0] == 'j' ? summed : rows).insert(lg);
  if (const auto B = matrixBits(m.b, atom.b))
    for (const auto& [bit, lg] : B->pairs())
      if (bit[0] == 'k') cols.insert(lg);
  std::set<std::string> wantSummed{"ReIm_in"}, wantRows{"ReIm_out", "time0", "time1", "time2"},
      wantCols{"beam0", "beam1", "beam2"};
  for (int r = 0; (1 << r) < m.receiversPerStep; ++r) wantSummed.insert(fmt::format("rcv{}", r));
  if (summed != wantSummed)
    issue("/mma/A", "the summed bits are not exactly ReIm_in and the receiver bits of one step");
  if (rows != wantRows) issue("/mma/A", "the rows of A are not exactly ReIm_out and time0..2");
  if (cols != wantCols) issue("/mma/B", "the columns of B are not exactly beam0..2");
  // The kernel's shortcut: the two components of a beam in one thread (ReIm_out on a register bit of C).
  auto ph = m.c.physOf("ReIm_out");
  if (!ph || ph->kind != PhysKind::R)
    issue("/mma/C", "ReIm_out must be a register bit of C (re and im of a beam in one thread)");
  rep.proved.push_back(
      fmt::format("{} {}: A, B, C layouts agree with the fragment tables; summed bits = ReIm_in + {} receiver bits; "
                  "rows = ReIm_out + 3 time bits",
                  atom.shape, atom.abType, wantSummed.size() - 1));

  // 2. The complex expansion of A: per word of samples x (two ci8 (re, im) pairs, or one f16 pair) and of weights y,
  //    dot(conj(x), y) = Re(sum s w) and dot(swap(x), y) = Im(sum s w), for every value a staged sample can take.
  long long cases = 0;
  if (!f16) {
    auto sb = [](std::uint32_t v, int i) {
      return static_cast<long long>(static_cast<signed char>((v >> (8 * i)) & 0xff));
    };
    const int lo = s.in.type == BfType::CI4 ? -8 : -127, hi = s.in.type == BfType::CI4 ? 7 : 127;
    bool bad = false;
    for (int im0 = lo; im0 <= hi && !bad; ++im0)
      for (int im1 = lo; im1 <= hi && !bad; im1 += (s.in.type == BfType::CI4 ? 1 : 7))
        for (int re : {lo, -1, 0, 1, hi}) {
          const std::uint32_t x = (re & 0xff) | (im0 & 0xff) << 8 | ((-re) & 0xff) << 16 | (im1 & 0xff) << 24;
          const std::uint32_t y = 0x80 | (0x7f << 8) | (0xff << 16) |
                                  (0x03 << 24);  // weights (-128 + 127i), (-1 + 3i): -128 is used as is
          const std::uint32_t c = cmma::conjModel(x, false), w = cmma::swapModel(x, false);
          long long dRe = 0, dIm = 0;
          for (int i = 0; i < 4; ++i) dRe += sb(c, i) * sb(y, i), dIm += sb(w, i) * sb(y, i);
          const long long s0r = re, s0i = im0, s1r = -re, s1i = im1, w0r = -128, w0i = 127, w1r = -1, w1i = 3;
          const long long wantRe = s0r * w0r - s0i * w0i + s1r * w1r - s1i * w1i,
                          wantIm = s0r * w0i + s0i * w0r + s1r * w1i + s1i * w1r;
          if (dRe != wantRe || dIm != wantIm) {
            issue("/mma/A",
                  fmt::format("samples word {:#010x}: conj / swap give ({}, {}), the complex product ({}, {})", x, dRe,
                              dIm, wantRe, wantIm));
            bad = true;
            break;
          }
          ++cases;
        }
  } else {
    for (std::uint32_t x : {0x3c00bc00u, 0x00000000u, 0x80007bffu, 0xfbff0001u, 0x3555c123u}) {
      const std::uint32_t c = cmma::conjModel(x, true), w = cmma::swapModel(x, true);
      const double re = halfBitsToDouble(x & 0xffff), im = halfBitsToDouble(x >> 16);
      const double wr = 0.75, wi = -1.5;
      const double dRe = halfBitsToDouble(c & 0xffff) * wr + halfBitsToDouble(c >> 16) * wi,
                   dIm = halfBitsToDouble(w & 0xffff) * wr + halfBitsToDouble(w >> 16) * wi;
      if (dRe != re * wr - im * wi || dIm != re * wi + im * wr)
        issue("/mma/A", fmt::format("f16 samples word {:#010x}: conj / swap are not a complex product", x));
      ++cases;
    }
  }
  rep.proved.push_back(
      fmt::format("conj / swap expansion of the samples: {} words give Re and Im of the complex product exactly ({})",
                  cases,
                  f16                        ? "f16"
                  : s.in.type == BfType::CI4 ? "ci4 widened: -8 negates exactly"
                                             : "ci8 clamped to +-127"));

  // 3. The store: blocks, warps, fragments and registers (C layout) with the predicate t < N, m < M write each
  //    (channel, pol, t, m, ReIm) once (power: each (t, m) contributes once per pol). Sizes beyond 2^22 components
  //    are checked with the same tiling on at most three tiles (plus one) per axis.
  //    Both kernels' tilings where the spec has both: mma.sync's (sm_80 targets; not for "mma": "wgmma") and the sm_90
  //    path's (8 warps of 8 samples x N beams; its problems are bfWgmmaBlocker's, reported by verify).
  std::vector<BfTiling> tilings;
  if (s.tuning.mma != "wgmma") {
    tilings.push_back(bfTiling(s, m));
    for (const auto& [path, msg] : bfTilingProblems(s, tilings.back())) issue(path, msg);
  }
  if (!mma && bfUsesWgmma(s, "sm_90")) tilings.push_back(bfWgmmaTiling(s));
  // Where each (lane, register) of the C fragment stores: its sample and beam inside the 8 x 8 fragment, and Re / Im.
  auto bitValue = [&](const std::string& name, int lane, int reg) {
    auto p = m.c.physOf(name);
    if (!p) return 0;
    return p->kind == PhysKind::T ? (lane >> p->index) & 1 : p->kind == PhysKind::R ? (reg >> p->index) & 1 : 0;
  };
  struct FragmentSlot {
    int t, m, reim;
  };
  std::vector<FragmentSlot> slots;
  for (int lane = 0; lane < 32; ++lane)
    for (int reg = 0; reg < 4; ++reg) {
      FragmentSlot f{0, 0, bitValue("ReIm_out", lane, reg)};
      for (int k = 0; k < 3; ++k)
        f.t |= bitValue(fmt::format("time{}", k), lane, reg) << k, f.m |= bitValue(fmt::format("beam{}", k), lane, reg)
                                                                          << k;
      slots.push_back(f);
    }
  for (BfTiling tl : tilings) {
    // A window longer than three tiles (power, integrate up to 2^20) is walked with its middle tiles left out: each is
    // the first tile moved by a whole number of tiles and lies inside the window (tLocal < range), so it writes its
    // block once exactly as the first does; the window's first two tiles and its last (the window's tail) are walked.
    long long dropped = 0;
    if (tl.tilesPerRange > 3) {
      dropped = tl.tilesPerRange - 3;
      tl.range -= dropped * tl.times;
      tl.tilesPerRange = 3;
    }
    const long long fullN = std::min<long long>(s.samples, 3 * (tl.range + dropped * tl.times) + 1);
    const long long N = dropped == 0         ? fullN
                        : fullN == s.samples ? s.samples / (tl.range + dropped * tl.times) * tl.range
                                             : 3 * tl.range + 1;
    const long long M = std::min<long long>(s.beams, 3 * tl.beams + 1);
    std::vector<unsigned char> writes(static_cast<std::size_t>(N * M * 2), 0);
    const long long ranges = (N + tl.range - 1) / tl.range, beamTiles = (M + tl.beams - 1) / tl.beams;
    for (long long rg = 0; rg < ranges; ++rg)
      for (int tile = 0; tile < tl.tilesPerRange; ++tile)
        for (long long bt = 0; bt < beamTiles; ++bt)
          for (int warp = 0; warp < tl.threads / 32; ++warp)
            for (int fi = 0; fi < tl.warpTimes / 8; ++fi)
              for (int fj = 0; fj < tl.warpBeams / 8; ++fj)
                for (const FragmentSlot& f : slots) {
                  const long long tLocal = static_cast<long long>(tile) * tl.times + (warp / tl.warpsM) * tl.warpTimes +
                                           fi * 8 + f.t;
                  const long long t = rg * tl.range + tLocal;
                  const long long mm = bt * tl.beams + (warp % tl.warpsM) * tl.warpBeams + fj * 8 + f.m;
                  if (!(tLocal < tl.range && t < N && mm < M)) continue;  // the kernel's predicate
                  ++writes[static_cast<std::size_t>((t * M + mm) * 2 + f.reim)];
                  ++rep.storesChecked;
                }
    long long missing = 0, twice = 0;
    for (auto w : writes) missing += w == 0, twice += w > 1;
    if (missing || twice)
      issue("/tuning", fmt::format("the store leaves {} output components unwritten and writes {} more than once",
                                   missing, twice));
    const bool smaller = N != s.samples || M != s.beams;
    rep.proved.push_back(
        fmt::format("store: {} x {} block tiles ({} samples per block, {} x {} warps of {} x {}): all {} components of "
                    "{} samples x {} beams written once{}{}",
                    tl.times, tl.beams, tl.range + dropped * tl.times, tl.warpsT, tl.warpsM, tl.warpTimes, tl.warpBeams,
                    writes.size(), N, M, smaller ? " (checked on a smaller problem, same tiling)" : "",
                    dropped ? fmt::format("; the {} middle tiles of each window are translates of the first", dropped)
                            : ""));
  }
  return rep;
}

}  // namespace warpforge
