#include "generator/correlator/Pipeline.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "generator/correlator/CorrelatorLayouts.h"
#include "generator/layout/FieldPlace.h"

namespace warpforge {

const char* rawKindName(RawKind k) {
  switch (k) {
    case RawKind::TimeBlocks: return "time blocks of all the tile's inputs (TCC layout)";
    case RawKind::RowRuns: return "one run per input";
    case RawKind::PolRuns: return "one run of (time, pol) pairs per receiver";
  }
  return "?";
}

bool pipeSharedFits(const CorrPipe& p) {
  return p.sharedBytes <= kWgmmaMaxShared && p.blocksPerSm * (p.sharedBytes + 1024) <= 228 * 1024;
}

namespace {

int rawBytes(SampleType t) { return t == SampleType::CI4 ? 1 : t == SampleType::CI8 ? 2 : 4; }
int stageSamples(SampleType t) { return t == SampleType::CF16 ? 16 : 32; }  // 64 operand bytes per row

std::optional<RawKind> rawKind(const CorrelatorSpec& s, std::string* why) {
  const CorrelatorInput& in = s.input;
  const long long eb = rawBytes(s.type), T = in.timesPerBlock, ts = stageSamples(s.type);
  auto aligned = [&](long long stride) { return stride * eb % 16 == 0; };
  if (!aligned(in.batch) || !aligned(in.channel)) {
    *why = fmt::format("batch / channel strides of {} / {} B (bulk copies need 16-byte aligned runs)", in.batch * eb,
                       in.channel * eb);
    return std::nullopt;
  }
  const bool split = T > 1;
  if (split && in.time == 1 && T * eb == 32 && in.receiver == s.polarizations * T &&
      (s.polarizations == 1 || in.polarization == T) && ts % T == 0 && aligned(in.timeBlock))
    return RawKind::TimeBlocks;
  const bool timeRuns = split ? (T % ts == 0 && aligned(in.timeBlock)) : true;
  if (s.polarizations == 2 && in.polarization == 1 && (split ? in.time == 2 : in.timeBlock == 2) && timeRuns &&
      aligned(in.receiver))
    return RawKind::PolRuns;
  if ((split ? in.time == 1 : in.timeBlock == 1) && timeRuns && aligned(in.receiver) &&
      (s.polarizations == 1 || aligned(in.polarization)))
    return RawKind::RowRuns;
  *why =
      "an input layout whose stage of samples is neither time blocks of all inputs (TCC), nor one run per input or per "
      "receiver with 16-byte "
      "aligned strides";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> pipelineBlocker(const CorrelatorSpec& s) {
  std::string why;
  if (!rawKind(s, &why)) return why;
  return std::nullopt;
}

long long CorrPipe::rawOffset(int row, int time) const {
  switch (kind) {
    case RawKind::TimeBlocks:
      return static_cast<long long>(time / T) * runPitch + static_cast<long long>(row) * T * eb + (time % T) * eb;
    case RawKind::RowRuns: return static_cast<long long>(row) * runPitch + static_cast<long long>(time) * eb;
    case RawKind::PolRuns: return static_cast<long long>(row / 2) * runPitch + (2LL * time + row % 2) * eb;
  }
  return -1;
}

int CorrPipe::rawGroupBase(int group) const {
  switch (kind) {
    case RawKind::TimeBlocks: return group * 8 * T * eb;
    case RawKind::RowRuns: return group * 8 * runPitch;
    case RawKind::PolRuns: return group * 4 * runPitch;
  }
  return 0;
}

WgmmaDescriptor CorrPipe::descA(unsigned base, int slot, int g, int ks, bool diagonal) const {
  WgmmaDescriptor d;
  d.swizzle = swizzle;
  d.lbo = 16;
  const unsigned slotBase = base + static_cast<unsigned>(slot * opSlotBytes);
  // Off-diagonal: the A region's rows 64 g ..; diagonal: B's sample rows of inputs 64 g .. (every other 8-row group).
  d.start = diagonal ? slotBase + static_cast<unsigned>(aBytes + bOffset(64 * g, 0, 0))
                     : slotBase + static_cast<unsigned>(aOffset(64 * g, 0));
  d.start += static_cast<unsigned>(ks * 32);
  d.sbo = static_cast<unsigned>(diagonal ? kPipeDiagonalSbo : kPipeSbo);
  return d;
}

WgmmaDescriptor CorrPipe::descB(unsigned base, int slot, int ks) const {
  WgmmaDescriptor d;
  d.swizzle = swizzle;
  d.lbo = 16;
  d.start = base + static_cast<unsigned>(slot * opSlotBytes + aBytes + ks * 32);
  d.sbo = static_cast<unsigned>(kPipeSbo);
  return d;
}

WgmmaDescriptor CorrPipe::descBAt(unsigned base, int slot, int ks, int col0) const {
  WgmmaDescriptor d = descB(base, slot, ks);
  d.start += static_cast<unsigned>(bOffset(col0, 0, 0));
  return d;
}

WgmmaDescriptor CorrPipe::descBHalf(unsigned base, int slot, int ks) const {
  WgmmaDescriptor d = descB(base, slot, ks);
  d.start += static_cast<unsigned>(bOffset(rows / 2, 0, 0));
  return d;
}

PipeDescriptors pipeDescriptors(const CorrPipe& p) {
  PipeDescriptors d;
  d.a = p.descA(0, 0, 0, 0, false);
  d.diag = p.descA(0, 0, 0, 0, true);
  d.b = p.descB(0, 0, 0);
  d.aPerGroup = p.descA(0, 0, 1, 0, false).start - d.a.start;
  d.diagPerGroup = p.descA(0, 0, 1, 0, true).start - d.diag.start;
  d.perSlot = (p.descA(0, 1, 0, 0, false).start - d.a.start) >> 4;
  d.halfOfB = (p.descBHalf(0, 0, 0).start - d.b.start) >> 4;
  for (int ks = 0; ks < p.steps; ++ks) d.perStep.push_back((p.descA(0, 0, 0, ks, false).start - d.a.start) >> 4);
  // The kernel adds one slot offset and one k-step offset to every descriptor, and issues A off the diagonal with B's
  // helper (the same swizzle, LBO and SBO).
  bool same = d.a.swizzle == d.b.swizzle && d.a.lbo == d.b.lbo && d.a.sbo == d.b.sbo;
  for (int slot = 0; slot < p.opStages; ++slot)
    for (int ks = 0; ks < p.steps; ++ks) {
      const unsigned add = (slot * d.perSlot + d.perStep[static_cast<std::size_t>(ks)]) << 4;
      for (int g = 0; g < p.consumers; ++g) {
        same &= p.descA(0, slot, g, ks, false).start == d.a.start + g * d.aPerGroup + add;
        same &= p.descA(0, slot, g, ks, true).start == d.diag.start + g * d.diagPerGroup + add;
      }
      same &= p.descB(0, slot, ks).start == d.b.start + add;
      same &= p.descBHalf(0, slot, ks).start == d.b.start + (d.halfOfB << 4) + add;
    }
  if (!same) throw std::logic_error("correlator pipeline: the descriptors are not start + slot + k-step offsets");
  return d;
}

namespace {
// One run of a field's bits on an index variable of `bits` bits, as the kernel prints it: "16 * (warp & 3)",
// "(lane >> 2)".
std::string runText(const std::optional<FieldPlace::Run>& r, const char* v, int bits) {
  if (!r) throw std::logic_error(fmt::format("pipeline accumulator: the field bits on {} are not one run", v));
  const std::string inner = r->shift == 0 ? fmt::format("({} & {})", v, (1 << r->count) - 1)
                            : r->shift + r->count == bits
                                ? fmt::format("({} >> {})", v, r->shift)
                                : fmt::format("(({} >> {}) & {})", v, r->shift, (1 << r->count) - 1);
  return r->field ? fmt::format("{} * {}", 1 << r->field, inner) : inner;
}
}  // namespace

PipeAccumulator pipeAccumulator(const CorrPipe& p) {
  const Layout acc = wgmmaAccumulatorLayout(p.atom().n);
  auto column = [](int col) { return fmt::format("k{}", std::countr_zero(static_cast<unsigned>(col))); };
  std::vector<std::string> inputBits;
  for (int b = 0; (1 << b) < p.rows; ++b) inputBits.push_back(column(p.bRow(1 << b, 0)));
  const FieldPlace row = fieldPlace(acc, matrixIndexBits('i', 64)), input = fieldPlace(acc, inputBits),
                   part = fieldPlace(acc, {column(p.bRow(0, 1))});
  PipeAccumulator a;
  a.rowOfThread = runText(row.run(PhysKind::W), "warp", 2) + " + " + runText(row.run(PhysKind::T), "lane", 5);
  a.inputOfThread = runText(input.run(PhysKind::T), "lane", 5);
  const auto rowRegs = row.of(PhysKind::R), inputRegs = input.of(PhysKind::R);
  if (rowRegs.size() != 1 || inputRegs.size() < 2 || inputRegs[0].second != 0)
    throw std::logic_error("pipeline accumulator: expected one row bit and column-input bit 0 on registers");
  a.rowHalf = 1 << rowRegs[0].second;
  a.regRowHalf = 1 << rowRegs[0].first;
  a.regInput = 1 << inputRegs[0].first;
  a.inputBlock = 1 << inputRegs[1].second;
  a.regBlock = 1 << inputRegs[1].first;
  a.regIm = part.weight(PhysKind::R, 0);
  a.laneRow0 = row.weight(PhysKind::T, 0);
  // The form the kernel prints, register by register: i = regBlock q + regRowHalf h + regInput c + regIm part.
  for (int q = 0; q < p.rows / a.inputBlock; ++q)
    for (int h = 0; h < 2; ++h)
      for (int c = 0; c < 2; ++c)
        for (int im = 0; im < 2; ++im) {
          const int i = a.regBlock * q + a.regRowHalf * h + a.regInput * c + a.regIm * im;
          if (row.part(PhysKind::R, i) != a.rowHalf * h || input.part(PhysKind::R, i) != a.inputBlock * q + c ||
              part.part(PhysKind::R, i) != im)
            throw std::logic_error(
                fmt::format("pipeline accumulator: register {} is not (q {}, h {}, c {}, im {})", i, q, h, c, im));
        }
  return a;
}

namespace {
// Column inputs of the whole triangle's wgmmas (each 64-row strip from its diagonal on) and the warpgroups they need.
int triangleColumns(long long inputs) {
  const int cols = static_cast<int>((inputs + 7) / 8 * 8), strips = static_cast<int>((inputs + 63) / 64);
  int total = 0;
  for (int i = 0; i < strips; ++i) total += cols - 64 * i;
  return total;
}
int triangleConsumers(long long inputs) {
  return (triangleColumns(inputs) + kPipeTriangleMaxColumns - 1) / kPipeTriangleMaxColumns;
}
}  // namespace

std::vector<std::vector<PipePiece>> trianglePieces(long long inputs, int consumers) {
  const int cols = static_cast<int>((inputs + 7) / 8 * 8), strips = static_cast<int>((inputs + 63) / 64);
  const int share = (triangleColumns(inputs) + 8 * consumers - 1) / (8 * consumers) * 8;
  std::vector<std::vector<PipePiece>> out(static_cast<std::size_t>(consumers));
  int strip = 0, col = 0, g = 0, left = share;
  while (strip < strips) {
    const int take = std::min({left, cols - col, 128});
    out[static_cast<std::size_t>(g)].push_back({strip, col, take});
    col += take, left -= take;
    if (col == cols) ++strip, col = 64 * strip;
    if (left == 0 && g + 1 < consumers) ++g, left = share;
  }
  return out;
}

bool pipeTriangleFits(const CorrelatorSpec& s) { return triangleConsumers(s.inputs()) <= kPipeTriangleMaxConsumers; }

CorrPipe corrPipe(const CorrelatorSpec& s, int rowsPerBlock, int opStages, int rawStages, bool sharedTransform,
                  bool wholeTriangle) {
  CorrPipe p;
  std::string why;
  p.type = s.type;
  p.clamp = !s.symmetric;
  p.P = s.polarizations;
  p.N = s.inputs();
  p.samples = s.samples;
  p.rows = wholeTriangle ? static_cast<int>((p.N + 63) / 64 * 64) : rowsPerBlock;
  p.consumers = wholeTriangle ? std::max(1, triangleConsumers(p.N)) : rowsPerBlock / 64;
  p.wholeTriangle = wholeTriangle;
  if (wholeTriangle) p.pieces = trianglePieces(p.N, p.consumers), sharedTransform = false;
  // One loader warpgroup: ptxas allocates the whole kernel within the launch's registers per thread (setmaxnreg does
  // not raise that bound), so 512 threads (two loaders) leave 128, and a consumer's 128 accumulators need more.
  p.loaders = 1;
  p.threads = 128 * (p.loaders + p.consumers);
  p.ts = stageSamples(s.type);
  p.eb = rawBytes(s.type);
  p.spc = s.type == SampleType::CF16 ? 4 : 8;
  p.kind = rawKind(s, &why).value_or(RawKind::RowRuns);
  p.T = s.input.timesPerBlock;
  p.aBytes = wholeTriangle ? 0 : p.rows * p.kBytes;  // the whole triangle reads A from B's sample rows
  p.bBytes = 2 * p.rows * p.kBytes;
  p.opSlotBytes = p.aBytes + p.bBytes;
  switch (p.kind) {
    case RawKind::TimeBlocks:
      p.runBytes = p.rows * p.T * p.eb;
      p.runPitch = p.runBytes;
      p.runsPerSide = p.ts / p.T;
      break;
    case RawKind::RowRuns:
      p.runBytes = p.ts * p.eb;
      p.runPitch = p.runBytes;
      p.runsPerSide = p.rows;
      break;
    case RawKind::PolRuns:
      // 128-byte runs (8-bit, f16) + 16 bytes: chunk j of receiver q in bank group (q + j) mod 8, so two raw chunks of
      // four receivers meet all eight; 64-byte runs (ci4) need no padding (4 q + j).
      p.runBytes = 2 * p.ts * p.eb;
      p.runPitch = p.runBytes + (p.runBytes == 128 ? 16 : 0);
      p.runsPerSide = p.rows / 2;
      break;
  }
  p.rawSideBytes = p.runsPerSide * p.runPitch;
  p.rawSlotBytes = (wholeTriangle ? 1 : 2) * p.rawSideBytes;
  p.stagesPerSync = s.tuning.stagesPerSync;
  p.opStages = opStages ? opStages : std::max(4, 2 * p.stagesPerSync);  // a group in flight and the one being staged
  p.sharedTransform = sharedTransform;
  if (p.consumers == 3) {
    // 512 threads at 128 registers; the loader gives 72 of its own per thread to the three consumer warpgroups.
    p.launchRegs = 128;
    p.loaderRegs = 56;
    p.consumerRegs = 152;
    p.blocksPerSm = 1;
  } else if (p.consumers == 2) {
    // 384 threads at 168 registers; the loader gives 112 of its own per thread to the two consumer warpgroups.
    p.launchRegs = 168;
    p.loaderRegs = 56;
    p.consumerRegs = 224;
    p.blocksPerSm = 1;
  } else {
    p.launchRegs = 128;
    p.blocksPerSm = p.stagesPerSync >= 4 ? 1 : 2;  // four stages per wait: 8 operand slots leave room for one block
  }
  // The raw ring: the spec's depth, else the deepest up to kPipeDefaultRawStages that fits beside the operand ring (the
  // copies of rawStages - 1 stages are in flight while one is transformed). Deeper rings (to kPipeMaxRawStages, the
  // bench variant) measured no faster on an H200: the copies' latency is not what limits a stage.
  p.rawRing = p.opStages * p.opSlotBytes;
  auto layoutRing = [&](int raw) {
    p.rawStages = raw;
    p.barriers = p.rawRing + p.rawStages * p.rawSlotBytes;
    p.sharedBytes = p.barriers + 8 * 2 * (p.opStages + p.rawStages) + 1024;
  };
  const int raw = rawStages ? rawStages : s.tuning.rawStages;
  if (raw) {
    layoutRing(raw);
  } else {
    for (int r = std::max(kPipeDefaultRawStages, p.stagesPerSync); r >= std::max(2, p.stagesPerSync); --r) {
      layoutRing(r);
      if (pipeSharedFits(p)) break;
    }
  }
  transformUnits(p);
  // The split transform: the consumers take one round of B's units (threads / units per group groups) where the
  // loader's rounds cover the groups before them exactly.
  const int n = static_cast<int>(p.units.size()), groups = p.rows / 8;
  const int consumerGroups = n ? 128 * p.consumers / n : 0, loaderGroups = n ? p.loaderThreads() / n : 0;
  if (s.tuning.transform == "split" && p.sharedTransform && !p.wholeTriangle && consumerGroups > 0 &&
      loaderGroups > 0 && consumerGroups < groups && (groups - consumerGroups) % loaderGroups == 0)
    p.bConsumerGroups = consumerGroups;
  return p;
}

std::vector<CorrPipe::Assign> CorrPipe::transformAssign(bool toB) const {
  const int n = static_cast<int>(units.size()), groups = rows / 8;
  if (!toB) return {{aThreads(), aUnits(), 0}};
  if (!bConsumerGroups) return {{loaderThreads(), unitsPerThread, 0}};
  return {{loaderThreads(), (groups - bConsumerGroups) * n / loaderThreads(), 0},
          {128 * consumers, bConsumerGroups * n / (128 * consumers), groups - bConsumerGroups}};
}

std::string transformOwners(const CorrPipe& p, bool splitAsked) {
  if (p.bConsumerGroups)
    return "by the loader (B's first groups) and the consumers (A, B's last groups: the split transform)";
  if (!p.sharedTransform) return "by the loader";
  return std::string("by the loader (B) and the consumers (A)") +
         (splitAsked ? " (split asked for: one round of the consumers is all of B here, so the shared transform)" : "");
}

int pipeDeepestRawStages(const CorrelatorSpec& s, int rowsPerBlock, int opStages, bool sharedTransform,
                         bool wholeTriangle) {
  for (int r = kPipeMaxRawStages; r > 2; --r)
    if (pipeSharedFits(corrPipe(s, rowsPerBlock, opStages, r, sharedTransform, wholeTriangle))) return r;
  return 2;
}

namespace {

// One candidate unit with its variants (read / write orders); the search picks a variant per placed unit.
struct Candidate {
  std::vector<PipeUnit> variants;
};

std::vector<Candidate> candidates(const CorrPipe& p) {
  std::vector<Candidate> out;
  const bool ci4 = p.type == SampleType::CI4;
  if (p.kind == RawKind::PolRuns) {
    // Receiver q (rows 2 q, 2 q + 1) of the group, output chunk c: 8-bit / f16 read two raw chunks (2 c, 2 c + 1),
    // ci4 one (8 times x 2 pols); the two rows written in either order (a byte_perm selector, no extra instruction).
    for (int q = 0; q < 4; ++q)
      for (int c = 0; c < 4; ++c) {
        Candidate k;
        for (int o = 0; o < 2; ++o) {
          PipeUnit u;
          const long long at = p.rawOffset(2 * q, c * p.spc);
          u.reads.push_back(static_cast<int>(at));
          if (!ci4) u.reads.push_back(static_cast<int>(at + 16));
          u.outs = {{2 * q + o, c}, {2 * q + 1 - o, c}};
          u.chunk = c;
          u.swapOut = o == 1;
          k.variants.push_back(u);
        }
        out.push_back(k);
      }
    return out;
  }
  if (ci4) {
    // Row r, 16 samples (16 raw bytes) -> operand chunks 2 g, 2 g + 1.
    for (int r = 0; r < 8; ++r)
      for (int g = 0; g < 2; ++g) {
        PipeUnit u;
        u.reads = {static_cast<int>(p.rawOffset(r, 16 * g))};
        u.outs = {{r, 2 * g}, {r, 2 * g + 1}};
        u.chunk = 2 * g;
        out.push_back({{u}});
      }
    return out;
  }
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 4; ++c) {
      PipeUnit u;
      u.reads = {static_cast<int>(p.rawOffset(r, c * p.spc))};
      u.outs = {{r, c}};
      u.chunk = c;
      out.push_back({{u}});
    }
  return out;
}

// The shared addresses of every access of a unit, in instruction order: its raw reads (relative to the side's raw
// region), then its writes to A (B's sample and conj_perm rows meet the same bank groups: they lie 1024 and 1536 bytes
// further per 8 rows where A's lie 512).
std::vector<unsigned> unitAccesses(const CorrPipe& p, const PipeUnit& u) {
  std::vector<unsigned> a;
  for (int r : u.reads) a.push_back(static_cast<unsigned>(r));
  for (const auto& [row, chunk] : u.outs) a.push_back(static_cast<unsigned>(p.aOffset(row, 16 * chunk)));
  return a;
}

}  // namespace

void transformUnits(CorrPipe& p, int* wavefronts) {
  const std::vector<Candidate> cands = candidates(p);
  const int n = static_cast<int>(cands.size());
  // Bank groups of each candidate variant's accesses.
  std::vector<std::vector<std::vector<int>>> groups(cands.size());
  for (std::size_t c = 0; c < cands.size(); ++c)
    for (const auto& v : cands[c].variants) {
      std::vector<int> g;
      for (unsigned a : unitAccesses(p, v)) g.push_back(static_cast<int>(a / 16 % 8));
      groups[c].push_back(g);
    }
  // Depth-first placement, 8 units per quarter warp: each access of the quarter warp in a bank group of its own.
  std::vector<int> order(static_cast<std::size_t>(n), -1), variant(static_cast<std::size_t>(n), 0);
  std::vector<bool> used(static_cast<std::size_t>(n), false);
  long long nodes = 0;
  std::function<bool(int)> place = [&](int pos) -> bool {
    if (pos == n) return true;
    if (++nodes > 2000000) return false;
    const int phase0 = pos / 8 * 8;
    // Within a quarter warp the order is free: candidates in increasing order.
    for (int c = pos > phase0 ? order[static_cast<std::size_t>(pos - 1)] + 1 : 0; c < n; ++c) {
      if (used[static_cast<std::size_t>(c)]) continue;
      for (std::size_t v = 0; v < groups[static_cast<std::size_t>(c)].size(); ++v) {
        const std::vector<int>& mine = groups[static_cast<std::size_t>(c)][v];
        bool ok = true;
        for (int q = phase0; q < pos && ok; ++q) {
          const std::vector<int>& other = groups[static_cast<std::size_t>(order[static_cast<std::size_t>(q)])]
                                                [static_cast<std::size_t>(variant[static_cast<std::size_t>(q)])];
          for (std::size_t i = 0; i < mine.size(); ++i) ok = ok && mine[i] != other[i];
        }
        if (!ok) continue;
        used[static_cast<std::size_t>(c)] = true;
        order[static_cast<std::size_t>(pos)] = c;
        variant[static_cast<std::size_t>(pos)] = static_cast<int>(v);
        if (place(pos + 1)) return true;
        used[static_cast<std::size_t>(c)] = false;
      }
      // The first free unit opens a quarter warp: any order of the others is equivalent, so try only it there.
      if (pos == phase0) break;
    }
    return false;
  };
  p.units.clear();
  if (place(0)) {
    for (int i = 0; i < n; ++i)
      p.units.push_back(cands[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])]
                            .variants[static_cast<std::size_t>(variant[static_cast<std::size_t>(i)])]);
  } else {
    for (const auto& c : cands) p.units.push_back(c.variants[0]);  // in order: checkPipeline reports the conflicts
  }
  p.unitsPerThread = (p.rows / 8) * n / p.loaderThreads();
  p.aUnitsPerThread = (p.rows / 8) * n / (128 * p.consumers);
  if (wavefronts) {
    int worst = 1;
    for (int ph = 0; ph + 8 <= n; ph += 8)
      for (std::size_t i = 0; i < unitAccesses(p, p.units[static_cast<std::size_t>(ph)]).size(); ++i) {
        unsigned a[8];
        for (int t = 0; t < 8; ++t) a[t] = unitAccesses(p, p.units[static_cast<std::size_t>(ph + t)])[i];
        worst = std::max(worst, sharedWavefronts16(a));
      }
    *wavefronts = worst;
  }
}

}  // namespace warpforge
