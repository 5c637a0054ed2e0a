#include "generator/correlator/PipelineDirect.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "generator/correlator/CorrelatorData.h"
#include "generator/correlator/PipelineEmitter.h"
#include "generator/correlator/ReduceEmitter.h"
#include "warpforge/spec_error.h"

namespace warpforge {

namespace {

// Whether (input strides, time layout) give 16-byte aligned runs of `spc` samples per input.
std::optional<std::string> layoutBlocker(const CorrelatorSpec& s, int eb, int spc) {
  const CorrelatorInput& in = s.input;
  auto aligned = [&](long long stride) { return stride * eb % 16 == 0; };
  if (!aligned(in.batch) || !aligned(in.channel) || !aligned(in.receiver) ||
      (s.polarizations == 2 && !aligned(in.polarization)))
    return fmt::format(
        "input strides (batch {}, channel {}, receiver {}, polarization {} samples) that are not "
        "multiples of 16 bytes",
        in.batch, in.channel, in.receiver, in.polarization);
  const int T = in.timesPerBlock;
  const bool runs = T > 1 ? in.time == 1 && T % spc == 0 && aligned(in.timeBlock) : in.timeBlock == 1;
  if (!runs)
    return fmt::format(
        "an input layout where {} consecutive samples of one input are not contiguous (the 16-byte "
        "copies; katgpucbf's interleaves the polarizations)",
        spc);
  return std::nullopt;
}

}  // namespace

CorrelatorSpec asStoredSpec(const CorrelatorSpec& s, int stagesPerSync) {
  CorrelatorSpec none = s;
  none.tuning.transform = "none";
  none.tuning.transformGiven = true;
  none.tuning.stagesPerSync = stagesPerSync;
  none.tuning.stagesPerSyncGiven = true;
  none.tuning.rawStages = 0;
  if (none.tuning.stages && none.tuning.stages < 2 * stagesPerSync + 1) none.tuning.stages = 0;
  return none;
}

int directChunkOffset(int n, int c) { return (n >> 3) * kPipeSbo + (n & 7) * 64 + ((c ^ ((n & 7) >> 1)) << 4); }

int columnChunkOffset(const DirectPipe& p, int n, int c) {
  return p.tensorB ? (c >> 1) * p.rows * 32 + n * 32 + (((c & 1) ^ ((n >> 2) & 1)) << 4) : directChunkOffset(n, c);
}

std::optional<std::string> directBlocker(const CorrelatorSpec& s) {
  if (s.type == SampleType::CI4) return std::string("ci4 samples (they are widened to 8 bits by the transform)");
  if (s.type == SampleType::CI8 && !s.symmetric)
    return std::string(
        "ci8 samples with sample_range \"full\" (-128 must be clamped in both operands, which only the transform does; "
        "declare sample_range \"symmetric\" where the data hold no -128)");
  const int eb = s.type == SampleType::CF16 ? 4 : 2;
  return layoutBlocker(s, eb, 16 / eb);
}

std::optional<std::string> rowBulkBlocker(const CorrelatorSpec& s) {
  const CorrelatorInput& in = s.input;
  const int eb = s.type == SampleType::CF16 ? 4 : 2, ts = s.type == SampleType::CF16 ? 16 : 32;
  const long long run = in.timesPerBlock;
  // Input n = P r + p at n x run samples within a time block: the tile's row inputs are one run of bytes.
  const bool oneRun = in.time == 1 && run > 1 && in.polarization == run && in.receiver == s.polarizations * run;
  if (!oneRun || 64 % (run * eb) != 0 || run * eb < 16)
    return fmt::format(
        "a layout where one time block's inputs are not consecutive runs of 16, 32 or 64 bytes (TCC's layout is; "
        "this one has {} samples per block, receiver stride {}, polarization stride {})",
        run, in.receiver, in.polarization);
  // A partial last stage copies its whole time blocks only: the rest of A's slot keeps older bytes, which meet B's
  // zero-filled samples. Products with 0 are 0 for integers, not for an f16 Inf or NaN left there.
  if (s.samples % run)
    return fmt::format("{} samples per call: bulk copies take whole time blocks of {} samples", s.samples, run);
  if (s.type == SampleType::CF16 && s.samples % ts)
    return fmt::format(
        "{} cf16 samples per call: bulk copies take whole stages of {} samples (stale f16 bytes of a "
        "partial stage could be Inf or NaN)",
        s.samples, ts);
  return std::nullopt;
}

std::optional<std::string> columnTensorBlocker(const CorrelatorSpec& s, const DirectPipe& p) {
  if (auto why = rowBulkBlocker(s)) return why;
  const CorrelatorInput& in = s.input;
  const int eb = s.type == SampleType::CF16 ? 4 : 2;
  if (in.timesPerBlock * eb != 32)
    return fmt::format("time blocks of {} bytes per input (a tensor copy's 32-byte swizzle takes 32)",
                       in.timesPerBlock * eb);
  if (in.batch != s.channels * in.channel || (in.timeBlock * eb) % 16 || (in.channel * eb) % 16)
    return std::string(
        "a layout whose batch entries are not whole channels apart, or strides not multiples of 16 bytes");
  if (p.pairs) return std::string("cluster pairs (row_copies \"multicast\")");
  if (!p.bulkA && p.N > p.rows) return std::string("a row side by cp.async on tiles off the diagonal");
  return std::nullopt;
}

std::optional<std::string> bulkStoreBlocker(const CorrelatorSpec& s, const DirectPipe& p) {
  if (!s.writesVisibilities())
    return std::string("output \"accumulators\" (the accumulators are read, added to and written back)");
  if (s.polarizations != 2)
    return std::string("one polarization (a column receiver's run of 8-byte visibilities may start off 16 bytes)");
  if (p.pairs) return std::string("cluster pairs (row_copies \"multicast\")");
  return std::nullopt;
}

long long directPairs(int tps) {
  long long n = 0;
  for (int ti = 0; ti < tps; ++ti) n += (tps - ti + 1) / 2;
  return n;
}

void directPairTile(int tps, long long pair, int& ti, int& tj0) {
  long long first = 0;
  ti = 0;
  while (first + (tps - ti + 1) / 2 <= pair) first += (tps - ti + 1) / 2, ++ti;
  tj0 = ti + 2 * static_cast<int>(pair - first);
}

DirectPipe directPipe(const CorrelatorSpec& s, int rows, int stages) {
  DirectPipe p;
  p.type = s.type;
  p.P = s.polarizations;
  p.N = s.inputs();
  p.samples = s.samples;
  p.rows = rows == 64 ? 64 : 128;
  p.consumers = p.rows / 64;
  p.threads = 128 * (1 + p.consumers);
  const bool f16 = s.type == SampleType::CF16;
  p.ts = f16 ? 16 : 32;
  p.eb = f16 ? 4 : 2;
  p.spc = 16 / p.eb;
  p.stages = stages ? stages : s.tuning.stages ? s.tuning.stages : kDirectDefaultStages;
  p.group = s.tuning.stagesPerSyncGiven ? s.tuning.stagesPerSync : 1;
  p.inFlight = p.stages -
               2 * p.group;  // below 1: a ring that would deadlock (checkDirect, emitCorrelatorDirect refuse it)
  // Bulk by default where it applies and some tile is off the diagonal (a diagonal tile copies its column side only,
  // so a triangle of one tile per channel gains nothing: TCC's R = 64 ran 0.95x with it).
  const bool offDiagonal = s.inputs() > p.rows;
  p.bulkA = !rowBulkBlocker(s) && (s.tuning.rowCopies >= 1 || (s.tuning.rowCopies == -1 && offDiagonal));
  p.pairs = p.bulkA && s.tuning.rowCopies == 2;
  // Persistent blocks by default where a tile holds at most kPersistentTileStages stages: there each tile's fill and
  // store weigh, and blocks that carry the ring on from tile to tile ran 1.00-1.22x one block per tile (8-bit, 8 to 64
  // stages, ten shapes on H200s, none slower); at 80 to 320 stages 0.95-1.04x (seven shapes, five slower).
  const long long tileStages = (s.samples + p.ts - 1) / p.ts;
  p.persistent = !p.pairs &&
                 (s.tuning.persistent == 1 || (s.tuning.persistent == -1 && tileStages <= kPersistentTileStages));
  p.narrowEdge = p.N % p.rows != 0 && p.N % p.rows <= p.rows / 2;
  p.runBytes = p.bulkA ? s.input.timesPerBlock * p.eb : 0;
  p.tensorB = s.tuning.columnCopies != 0 && !columnTensorBlocker(s, p);
  if (p.tensorB) {
    // uint8 elements: a time block's bytes of one input, the inputs, the time blocks, the batch entries' channels.
    const CorrelatorInput& in = s.input;
    const long long run = in.timesPerBlock;
    p.columnMap.dims = {run * p.eb, p.N, (s.samples + run - 1) / run, s.channels};
    p.columnMap.strides = {run * p.eb, in.timeBlock * p.eb, in.channel * p.eb};
    p.columnMap.box = {static_cast<int>(run * p.eb), p.rows, static_cast<int>(p.ts / run), 1};
    p.columnMap.swizzle = 32;
    p.columnMap.batchDim = 3;
  }
  p.sideBytes = p.rows * 64;
  p.slotBytes = 2 * p.sideBytes;
  if (s.tuning.bulkStore == 1 && !bulkStoreBlocker(s, p)) {
    p.bulkStore = true;
    p.stageRuns = p.rows / 2;
    p.stageRunBytes = 32 * 32;
    p.stageRunStride = p.stageRunBytes + 32;
    // The staging takes the room of slots: the default ring keeps what fits beside it.
    if (!stages && !s.tuning.stages)
      while (p.stages > 2 * p.group + 1 &&
             p.stages * p.slotBytes + p.stagingBytes() + 16 * p.stages + 1024 > kWgmmaMaxShared)
        --p.stages;
    p.inFlight = p.stages - 2 * p.group;
  }
  p.staging = p.stages * p.slotBytes;
  p.barriers = p.staging + p.stagingBytes();
  p.sharedBytes = p.barriers + 16 * p.stages + 1024;
  p.unitsPerThread = 2 * p.rows * 4 / 128;
  if (p.rows == 128) {
    // Consumers: 2 x 64 accumulators, 2 x 16 A registers (two stages), addresses; the producer needs few.
    // setmaxnreg.inc waits for registers the block's own decrements released: 128 (168 - 56) = 256 (224 - 168).
    p.launchRegs = 168, p.producerRegs = 56, p.consumerRegs = 224, p.blocksPerSm = 1;
  } else {
    p.launchRegs = 128, p.blocksPerSm = 2;
    while (p.blocksPerSm > 1 && p.blocksPerSm * (p.sharedBytes + 1024) > 228 * 1024) --p.blocksPerSm;
  }
  return p;
}

int directLagStages(const DirectPipe& p, long long tileStages) {
  if (p.consumers < 2 || p.group != 1 || tileStages < p.stages) return 0;
  const long long lag = std::min<long long>(tileStages / 2, p.stages - 2 * p.group - 1) / 2 * 2;
  const long long loop = tileStages / 2 * 2;  // the consumers' main loop: pairs of groups of one stage
  return lag >= 2 && lag < loop ? static_cast<int>(lag) : 0;
}

bool directSharedFits(const DirectPipe& p) {
  return p.sharedBytes <= kWgmmaMaxShared && p.blocksPerSm * (p.sharedBytes + 1024) <= 228 * 1024;
}

WgmmaDescriptor DirectPipe::descB(unsigned base, int slot, int ks, int col0) const {
  WgmmaDescriptor d;
  d.swizzle = tensorB ? WgmmaSwizzle::B32 : swizzle;
  d.lbo = 16;
  d.sbo = tensorB ? 256u : static_cast<unsigned>(sbo);
  d.start = base + static_cast<unsigned>(slot * slotBytes + sideBytes +
                                         (tensorB ? bOffset(col0, 32 * ks) : offset(col0, 0) + 32 * ks));
  return d;
}

void checkDirect(const CorrelatorSpec& s, const DirectPipe& p, std::vector<PipeIssue>& issues,
                 std::vector<std::string>& proved) {
  auto fail = [&](const std::string& m) { issues.push_back({"/tuning/transform", m}); };
  if (auto why = directBlocker(s)) return fail("\"none\" cannot take " + *why);
  const std::size_t before = issues.size();
  // 1t. The column side by tensor copies: the box (time-block byte x0, input x1, time block x2, batch x channel x3)
  // lands at bOffset(x1 - col0, 32 (x2 - 2 k) + x0) (the copy's layout: innermost first, 32-byte swizzle, which is
  // bOffset's), and the map's element is the byte of (input x1, sample run x2 + x0 / eb) the reference reads; the
  // dims end at the inputs and samples, where the copy reads zeros.
  if (p.tensorB) {
    const PlanTensorMap& m = p.columnMap;
    const long long run = s.input.timesPerBlock, nb = (s.samples + run - 1) / run;
    // The box is a stage of the tile's column inputs (their 64 bytes each: the slot's side), the dims end at the
    // inputs and the call's last time block (zeros past them), one plane per (batch entry, channel).
    if (m.dims.size() != 4 || m.box.size() != 4 || m.swizzle != 32 || m.batchDim != 3 || m.dims[0] != run * p.eb ||
        m.box[0] != run * p.eb || m.dims[1] != p.N || m.box[1] != p.rows || m.dims[3] != s.channels || m.box[3] != 1 ||
        m.dims[2] * run < s.samples || (m.dims[2] - 1) * run >= s.samples ||
        static_cast<long long>(m.box[0]) * m.box[1] * m.box[2] != p.sideBytes)
      return fail("the column side's tensor map does not cover a stage of the tile's inputs, or reaches past the call");
    // Stage k's copy starts at time block tensorTimeBlock(k): its k byte kb is sample k ts + kb / eb of the input.
    for (int k = 0; k < 3; ++k)
      for (int kb = 0; kb < 64; ++kb)
        if ((p.tensorTimeBlock(k) + kb / m.box[0]) * run + kb % m.box[0] / p.eb !=
            static_cast<long long>(k) * p.ts + kb / p.eb)
          return fail(fmt::format("stage {}'s tensor copy holds another sample at k byte {}", k, kb));
    for (int n = 0; n < p.rows; ++n)
      for (int kb = 0; kb < 64; ++kb) {
        const int x0 = kb % 32, x2 = kb / 32;
        const long long box = (static_cast<long long>(x2) * p.rows + n) * 32 + x0;
        if ((box ^ ((box >> 7 & 1) << 4)) != p.bOffset(n, kb))
          return fail(fmt::format("the tensor copy puts input {}'s k byte {} at {}, wgmma's layout at {}", n, kb,
                                  box ^ ((box >> 7 & 1) << 4), p.bOffset(n, kb)));
      }
    for (const long long b : {0LL, 1LL})
      for (const long long ch : {0LL, static_cast<long long>(s.channels) - 1})
        for (const long long tb : {0LL, nb / 2, nb - 1})
          for (long long n = 0; n < p.N; ++n)
            for (int x0 = 0; x0 < run * p.eb; ++x0) {
              const long long at = x0 + n * m.strides[0] + tb * m.strides[1] + (b * s.channels + ch) * m.strides[2];
              const long long want = sampleOffset(s, b, ch, tb * run + x0 / p.eb, n / p.P, n % p.P) * p.eb + x0 % p.eb;
              if (at != want)
                return fail(
                    fmt::format("the tensor map's byte {} of input {} (time block {}, channel {}, batch entry "
                                "{}) is input byte {}, the sample's is {}",
                                x0, n, tb, ch, b, at, want));
            }
    proved.push_back(fmt::format(
        "transform none, column side by tensor copies: the box of {} x {} x {} bytes lands in wgmma's 32-byte-swizzled "
        "layout, one time block per k-step; the map's elements are the samples' bytes (every input, time blocks 0, "
        "{} and {}, the first and last channel, two batch entries), zeros past {} inputs and {} time blocks",
        m.box[0], m.box[1], m.box[2], nb / 2, nb - 1, p.N, nb));
  }
  // 1. The copies of one stage (the producer's units, as the kernel computes them): each operand chunk of each side
  // exactly once, from (input, samples) of the chunk, the destinations of 8 consecutive threads in 8 bank groups.
  std::map<int, int> written;
  const int sideUnits = 4 * p.rows;
  for (int j = p.bulkA ? p.unitsPerThread / 2 : 0; j < (p.tensorB ? 0 : p.unitsPerThread); ++j) {
    unsigned quarter[8];
    for (int tid = 0; tid < 128; ++tid) {
      const int u = tid + 128 * j, side = u / sideUnits, n = (u / 4) % p.rows, c = u % 4;
      const int dst = side * p.sideBytes + directChunkOffset(n, c);
      if (directChunkOffset(n, c) != p.offset(n, 16 * c))
        return fail(fmt::format("the kernel's swizzle puts input {}, chunk {} at {}, wgmma's layout at {}", n, c,
                                directChunkOffset(n, c), p.offset(n, 16 * c)));
      if (++written[dst] > 1) return fail(fmt::format("two copies land on operand byte {}", dst));
      // The chunk holds samples spc c .. spc c + spc - 1 of input n; the kernel's source offset must be theirs.
      const long long first = sampleOffset(s, 0, 0, p.spc * c, n / p.P, n % p.P);
      for (int e = 1; e < p.spc; ++e)
        if (sampleOffset(s, 0, 0, p.spc * c + e, n / p.P, n % p.P) != first + e)
          return fail(fmt::format("input {}'s samples {} .. {} are not one run", n, p.spc * c, p.spc * c + p.spc - 1));
      if (first * p.eb % 16) return fail(fmt::format("input {}'s chunk {} is not 16-byte aligned", n, c));
      quarter[tid % 8] = static_cast<unsigned>(dst);
      if (tid % 8 == 7 && sharedWavefronts16(quarter) > 1)
        return fail(fmt::format("the copies of threads {} .. {} meet a bank group twice", tid - 7, tid));
    }
  }
  const int copiedSides = p.tensorB ? 0 : p.bulkA ? 1 : 2;
  if (static_cast<int>(written.size()) != copiedSides * sideUnits)
    return fail(fmt::format("the copies write {} of the slot's {} chunks", written.size(), copiedSides * sideUnits));
  for (int side = 2 - copiedSides; side < 2; ++side)
    for (int n = 0; n < p.rows; ++n)
      for (int c = 0; c < 4; ++c)
        if (!written.count(side * p.sideBytes + p.offset(n, 16 * c)))
          return fail(fmt::format("no copy writes side {}'s input {}, chunk {}", side, n, c));
  if (copiedSides)
    proved.push_back(
        fmt::format("transform none: the {} cp.async copies of a stage write each of the {} 16-byte chunks of {} once, "
                    "each from one 16-byte aligned run of {} samples of its input, 8 bank groups per quarter warp",
                    copiedSides * sideUnits, copiedSides * sideUnits, p.bulkA ? "the column side" : "the slot", p.spc));
  // 1b. The row side by bulk copies: time block b of a stage is one copy of rows x runBytes bytes from the tile's first
  // row input; byte e of input n's run in it must be sample b (runBytes / eb) + e / eb of input n, and A's chunk c of
  // input n (aOffset) the samples 8 c / (eb / 2) .. of that input.
  if (p.bulkA) {
    const int runS = p.runBytes / p.eb, blocks = 64 / p.runBytes;
    for (int b = 0; b < blocks; ++b) {
      const long long base = sampleOffset(s, 0, 0, b * runS, 0, 0);
      if (base * p.eb % 16) return fail(fmt::format("the bulk copy of time block {} starts off 16 bytes", b));
      for (int n = 0; n < p.rows; ++n)
        for (int e = 0; e < runS; ++e)
          if (sampleOffset(s, 0, 0, b * runS + e, n / p.P, n % p.P) != base + static_cast<long long>(n) * runS + e)
            return fail(fmt::format("time block {} of a stage is not one run: input {}'s sample {} lies elsewhere", b,
                                    n, b * runS + e));
    }
    for (int n = 0; n < p.rows; ++n)
      for (int c = 0; c < 4; ++c) {
        const int at = p.aOffset(n, c), b = at / (p.rows * p.runBytes), in = at % (p.rows * p.runBytes);
        if (in / p.runBytes != n || b * p.runBytes + in % p.runBytes != 16 * c)
          return fail(
              fmt::format("A's chunk {} of input {} is read at {}, where the bulk copies put another", c, n, at));
      }
    proved.push_back(
        fmt::format("transform none, row side by bulk copies: {} copies of {} x {} B per stage, each time block's row "
                    "inputs one "
                    "run; A's ldmatrix chunks are the samples they claim",
                    blocks, p.rows, p.runBytes));
  }
  // 2. B through the descriptors the kernel computes (every slot, k-step; the half form from rows / 2): the copied
  // bytes of column input n, k byte 32 ks + kb.
  for (int slot = 0; slot < p.stages; ++slot)
    for (int ks = 0; ks < 2; ++ks)
      for (const int col0 : {0, p.rows / 2}) {  // (the half width from column 0: the full width's first half)
        if (col0 && p.consumers < 2) continue;
        WgmmaDescriptor d = p.descB(0, slot, 0, col0);  // the kernel's: k-step 0's, advanced per k-step
        d.start += static_cast<unsigned>(ks * p.kStepBytes());
        if (!d.fieldProblem().empty()) return fail("B's descriptor: " + d.fieldProblem());
        for (int n = 0; n + col0 < p.rows; ++n)
          for (int kb = 0; kb < 32; kb += 4) {
            const unsigned want = static_cast<unsigned>(slot * p.slotBytes + p.sideBytes +
                                                        p.bOffset(col0 + n, 32 * ks + kb));
            if (wgmmaOperandAddress(d, n, kb) != want)
              return fail(
                  fmt::format("B's descriptor (slot {}, k-step {}, from input {}) reads byte {} of row {}, k {} "
                              "where the copy put it at {}",
                              slot, ks, col0, wgmmaOperandAddress(d, n, kb), n, 32 * ks + kb, want));
          }
      }
  proved.push_back(
      fmt::format("transform none: B read through its descriptors ({}, SBO {}) is the copied column "
                  "side, every slot and k-step",
                  wgmmaSwizzleName(p.tensorB ? WgmmaSwizzle::B32 : p.swizzle), p.tensorB ? 256 : p.sbo));
  // 3. A: ldmatrix lane L of warp w reads row input 64 g + 32 mi + 8 w + L % 8, chunk L / 8 (registers r0..r3 of lane
  // (gq, q): k bytes 16 i + 4 q of input 8 w + gq, i.e. a0 / a2 of k-step i / 2); 8 lanes of a phase in 8 bank groups.
  int ldsmWavefronts = 0;
  for (int g = 0; g < p.consumers; ++g)
    for (int mi = 0; mi < 2; ++mi)
      for (int w = 0; w < 4; ++w)
        for (int m = 0; m < 4; ++m) {
          unsigned phase[8];
          for (int r = 0; r < 8; ++r) {
            const int lane = 8 * m + r, input = 64 * g + 32 * mi + 8 * w + r;
            phase[r] = static_cast<unsigned>(p.aLdsmOffset(g, mi, w, lane));
            // (the bulk layout: step 1b proved the bytes at aOffset are the samples they claim)
            if (!p.bulkA && !p.tensorB && static_cast<int>(phase[r]) != p.offset(input, 16 * m))
              return fail(fmt::format("A's ldmatrix row of lane {} (warpgroup {}, half {}, warp {}) is not input {}",
                                      lane, g, mi, w, input));
            // A diagonal tile outside cluster pairs reads A from the column side as copied (columnChunkOffset).
            if ((p.bulkA || p.tensorB) && !p.pairs && columnChunkOffset(p, input, m) != p.bOffset(input, 16 * m))
              return fail(fmt::format("a diagonal tile's A row of lane {} is not input {}", lane, input));
          }
          // The bulk layout keeps each input's run whole: runs of 32 B put two rows of a phase in one bank group.
          ldsmWavefronts = std::max(ldsmWavefronts, sharedWavefronts16(phase));
          if (!p.bulkA && sharedWavefronts16(phase) > 1)
            return fail(fmt::format("A's ldmatrix phase {} (warp {}) meets a bank group twice", m, w));
        }
  // 4. The accumulators the store reads: by the wgmma accumulator atom, register 4 j + e of thread t is row
  // 16 w + g (A's sample row of input 8 w + g: Re) and register 4 j + 2 + e row 16 w + 8 + g (its (im, -re) row: Im),
  // both column 8 j + 2 q + e (column input).
  for (int t = 0; t < 128; ++t)
    for (int j = 0; j < p.rows / 8; ++j)
      for (int e = 0; e < 2; ++e) {
        const int w = t / 32, gq = (t % 32) / 4, q = t % 4;
        int row = 0, col = 0, rowIm = 0, colIm = 0;
        wgmmaAccumulatorCoord(t, 4 * j + e, row, col);
        wgmmaAccumulatorCoord(t, 4 * j + 2 + e, rowIm, colIm);
        if (row != 16 * w + gq || rowIm != row + 8 || col != 8 * j + 2 * q + e || colIm != col)
          return fail(
              fmt::format("thread {}'s registers {} / {} are (row {}, column {}) / ({}, {}), not the Re / Im "
                          "of row input {} and column input {} the store writes",
                          t, 4 * j + e, 4 * j + 2 + e, row, col, rowIm, colIm, 8 * w + gq, 8 * j + 2 * q + e));
      }
  proved.push_back(fmt::format(
      "transform none: A's ldmatrix rows are the row inputs of the accumulator rows (16 w + g: Re, + 8: Im, by the "
      "wgmma accumulator atom), {} wavefront(s) per 8-row phase; the store reads Re and Im of each visibility from the "
      "registers the atom gives them",
      ldsmWavefronts));
  // 4b. Cluster pairs: every tile of the triangle belongs to exactly one (pair, rank); both ranks share the row side.
  if (p.pairs) {
    const int tps = static_cast<int>((p.N + p.rows - 1) / p.rows);
    std::map<std::pair<int, int>, int> owner;
    for (long long q = 0; q < directPairs(tps); ++q)
      for (int rank = 0; rank < 2; ++rank) {
        int ti = 0, tj0 = 0;
        directPairTile(tps, q, ti, tj0);
        if (tj0 >= tps) return fail(fmt::format("pair {} starts past the triangle (row {}, column {})", q, ti, tj0));
        if (tj0 + rank < tps && ++owner[{ti, tj0 + rank}] > 1)
          return fail(fmt::format("tile ({}, {}) belongs to two blocks", ti, tj0 + rank));
      }
    if (static_cast<long long>(owner.size()) != static_cast<long long>(tps) * (tps + 1) / 2)
      return fail(fmt::format("the pairs cover {} of the {} tiles", owner.size(), tps * (tps + 1) / 2));
    proved.push_back(
        fmt::format("transform none, cluster pairs: {} pairs ({} blocks) per channel cover the {} tiles "
                    "once, both blocks of a pair on one row side",
                    directPairs(tps), 2 * directPairs(tps), tps * (tps + 1) / 2));
  }
  if (p.bulkStore) checkBulkStore(s, p, issues, proved);
  // 5. Budgets and the ring: the consumers hold two groups (one in flight, one waited for), the producer inFlight
  // stages beyond them.
  if (p.group != 1 && p.group != 2) return fail(fmt::format("{} stages per wait (expected 1 or 2)", p.group));
  if (p.inFlight < 1 || p.inFlight + 2 * p.group > p.stages)
    return fail(
        fmt::format("{} slots hold neither two groups of {} stages and one stage of copies", p.stages, p.group));
  if (!directSharedFits(p))
    return fail(fmt::format("{} B of shared memory per block ({} slots of {} B{}; {} blocks per SM) do not fit",
                            p.sharedBytes, p.stages, p.slotBytes,
                            p.bulkStore ? fmt::format(", {} B of staging", p.stagingBytes()) : "", p.blocksPerSm));
  const int acc = 2 * p.atom().accRegs(), aRegs = 2 * 16 * p.group;
  const int consumerBudget = p.consumerRegs ? p.consumerRegs : p.launchRegs;
  if (acc + aRegs + 24 > consumerBudget)
    return fail(fmt::format("{} accumulators and {} A registers exceed the consumers' {} registers ({}-input tiles{})",
                            acc, aRegs, consumerBudget, p.rows, p.group > 1 ? ", two stages per wait" : ""));
  // setmaxnreg.inc blocks until the block's own setmaxnreg.dec released enough registers (a shortfall hangs the
  // kernel: the CPU emulation does not model the pool, so this proof must).
  if (p.producerRegs && 128 * (p.launchRegs - p.producerRegs) < 128 * p.consumers * (p.consumerRegs - p.launchRegs))
    return fail(
        fmt::format("setmaxnreg: the producer releases {} registers, the consumers ask for {}: they would wait "
                    "forever",
                    128 * (p.launchRegs - p.producerRegs), 128 * p.consumers * (p.consumerRegs - p.launchRegs)));
  if (p.launchRegs * p.threads > 65536) return fail("the launch registers exceed the SM's 64K");
  if (issues.size() == before)
    proved.push_back(
        fmt::format("transform none: {} slots of {} B ({} B with barriers), {} block(s) per SM; {} "
                    "accumulators + {} A registers per consumer thread",
                    p.stages, p.slotBytes, p.sharedBytes, p.blocksPerSm, acc, aRegs));
}

CorrelatorKernels emitCorrelatorDirect(const CorrelatorSpec& s, int rows, int stages, DirectVariant v) {
  DirectPipe p = directPipe(s, rows, stages);
  p.narrowEdge = p.narrowEdge && v.halfWidthEdge;
  p.staggerNs = p.persistent ? v.staggerNs : 0;
  p.noStore = v.noStore;
  if (v.lagStages) p.lagStages = std::min(v.lagStages, directLagStages(p, (s.samples + p.ts - 1) / p.ts));
  if (p.inFlight < 1)  // the producer would wait for a slot the consumers release only after it publishes
    throw SpecError(s.file, "/tuning/stages",
                    fmt::format("{} slots with the operands as stored and {} stage(s) per wait: at least {} needed",
                                p.stages, p.group, 2 * p.group + 1));
  CorrelatorKernels k;
  k.correlateName = s.name + "_correlate";
  k.reduceName = s.name + "_reduce";
  k.correlateSource = emitDirectCorrelate(s, p, k.correlateName);
  k.tiling.rowsPerBlock = p.rows;
  k.tiling.wgmma = true;
  k.tiling.warpRows = 16;
  k.tiling.warpCols = p.rows;
  k.tiling.warpsI = p.threads / 32;
  k.tiling.warpsJ = 1;
  k.tiling.tilesPerSide = static_cast<int>((s.inputs() + p.rows - 1) / p.rows);
  k.loadPath = LoadPath::Time;
  k.sharedBytes = p.sharedBytes;
  k.dynamicShared = true;
  // m16n8 equivalents per block and stage: per consumer, 2 halves x m64 (4 m16) x rows / 8 columns x 2 k-steps.
  k.mmasPerStage = static_cast<long long>(p.consumers) * 2 * 4 * (p.rows / 8) * 2;
  k.wgmma = true;
  k.pipeline = true;
  k.opStages = p.stages;
  k.rawStages = 0;
  k.direct = true;
  k.persistent = p.persistent;
  if (p.tensorB) k.columnMap = p.columnMap;
  if (p.pairs) {
    k.clusterBlocks = 2;
    k.blocksPerChannel = 2 * directPairs(k.tiling.tilesPerSide);
  }
  k.visibilities = s.writesVisibilities();
  if (!k.visibilities) k.reduceSource = emitReduce(s, k.reduceName, k.reduceThreads, k.reduceUnroll);
  return k;
}

}  // namespace warpforge
