#include "generator/gridder/GridderSpec.h"

#include <cmath>

#include "generator/core/JsonReader.h"

namespace warpforge {

const char* gridPhasorName(GridPhasor p) { return p == GridPhasor::Sfu ? "sfu" : "sincos"; }
GridderSpec::MmaShape GridderSpec::mmaShape() const {
  const int tiles = subgridSize * subgridSize / 16;  // S is a multiple of 8: S^2 a multiple of 64
  for (int parts = 1; parts <= tiles; ++parts) {
    if (tiles % parts) continue;
    const int blockTiles = tiles / parts;
    for (int warps = 8; warps >= 1; --warps)
      if (blockTiles % warps == 0 && blockTiles / warps <= tuning.mmaTilesPerWarp)
        return {parts, warps, blockTiles / warps};
  }
  throw std::logic_error("gridder: no tensor-core block shape (unreachable: one tile per warp and pass always fits)");
}

int GridderSpec::mmaPoolFloat4s() const {
  const MmaShape m = mmaShape();
  const int pixels = 16 * m.warps * m.tilesPerWarp;
  return std::max(pixels + mmaStageSteps() * mmaChannels() * 8, pixels * correlations / 2);
}

int GridderSpec::mmaSharedBytes() const {
  const MmaShape m = mmaShape();
  return mmaChannels() * 4 + mmaStageSteps() * 32 + mmaPoolFloat4s() * 16 + m.warps * m.tilesPerWarp * 32 * 16;
}

const char* gridEngineName(GridEngine e) {
  return e == GridEngine::Fma ? "fma" : e == GridEngine::MmaTf32x3 ? "tf32x3" : "tf32";
}

long long GridderSpec::minSubgrids() const {
  long long perBaseline = 0;
  for (long long i = 0; i < atermIntervals(); ++i) {
    const long long steps = aterms ? std::min(atermInterval, timeSteps - i * atermInterval) : timeSteps;
    perBaseline += (steps + timeStepsPerSubgrid - 1) / timeStepsPerSubgrid;
  }
  return baselines() * channelGroups() * perBaseline;
}

double GridderSpec::wOffset(int z) const { return wStep > 0 ? wStep * (z - wPlanes / 2 + 0.5) : 0.0; }

namespace {

// A finite real number in [lo, hi] (JSON integers accepted).
double real(const JsonReader& rd, const Json& j, const std::string& path, double lo, double hi) {
  if (!j.is_number()) rd.fail(path, fmt::format("expected a number, found {}", JsonReader::typeName(j)));
  const double v = j.get<double>();
  if (!std::isfinite(v) || v < lo || v > hi)
    rd.fail(path, fmt::format("value {} is out of range (expected {} .. {})", v, lo, hi));
  return v;
}

int intAt(const JsonReader& rd, const Json& obj, const std::string& path, const char* key, long long lo, long long hi,
          int dflt) {
  if (!obj.contains(key)) return dflt;
  return static_cast<int>(rd.integer(obj[key], JsonReader::child(path, key), lo, hi));
}

void parseTuning(const JsonReader& rd, const Json& root, GridderSpec& s) {
  GridderTuning& t = s.tuning;
  const int S2 = s.subgridSize * s.subgridSize;
  t.stagePixels = std::min(256, S2);
  while (S2 % t.stagePixels) --t.stagePixels;  // a divisor of S^2 (S = 24: 192)
  const bool pixelsGiven = root.contains("tuning") && root["tuning"].is_object() &&
                           root["tuning"].contains("pixels_per_thread");
  if (root.contains("tuning")) {
    const Json& j = root["tuning"];
    rd.needObject(j, "/tuning");
    rd.onlyKeys(j, "/tuning",
                {"pixels_per_thread", "stage_visibilities", "visibilities_per_thread", "stage_pixels",
                 "degridder_threads", "resident_threads", "mma_tiles_per_warp", "mma_visibility_tiles"});
    t.pixelsPerThread = intAt(rd, j, "/tuning", "pixels_per_thread", 1, 16, t.pixelsPerThread);
    t.stageVisibilities = intAt(rd, j, "/tuning", "stage_visibilities", 1, 4096, t.stageVisibilities);
    t.visibilitiesPerThread = intAt(rd, j, "/tuning", "visibilities_per_thread", 1, 8, t.visibilitiesPerThread);
    t.stagePixels = intAt(rd, j, "/tuning", "stage_pixels", 32, 1024, t.stagePixels);
    t.degridThreads = intAt(rd, j, "/tuning", "degridder_threads", 32, 1024, t.degridThreads);
    t.residentThreads = intAt(rd, j, "/tuning", "resident_threads", 32, 2048, t.residentThreads);
    t.mmaTilesPerWarp = intAt(rd, j, "/tuning", "mma_tiles_per_warp", 1, 4,
                              t.mmaTilesPerWarp);  // 8 spills at 128 registers
    t.mmaVisibilityTiles = intAt(rd, j, "/tuning", "mma_visibility_tiles", 1, 8, t.mmaVisibilityTiles);
  }
  // The FMA gridder's pixels per thread where the spec leaves it: 4 where S^2 / 4 threads are whole warps that get the
  // registers their sums need, else the count nearest 4 that does (S = 8: 2, 24: 3, 40: 5, 56: 7, 64: 8). ptxas gives
  // each thread 65536 / max(block, resident_threads) registers (at most 255); the kernel needs about 2 per complex sum
  // (pixels x correlations) plus 48 (S = 64, 4 correlations: 4 pixels in 1024 threads got 64 and spilled 72 B).
  if (!pixelsGiven) {
    int best = 0;
    for (int p = 1; p <= 16; ++p) {
      const int threads = S2 % p ? 0 : S2 / p;
      const int registers = threads ? std::min(255, 65536 / std::max(threads, t.residentThreads)) : 0;
      if (threads && threads % 32 == 0 && threads <= 1024 && p * s.correlations <= 32 &&
          2 * p * s.correlations + 48 <= registers && (!best || std::abs(p - 4) < std::abs(best - 4)))
        best = p;
    }
    if (best) t.pixelsPerThread = best;
  }
  // FMA gridder: S^2 / pixels_per_thread threads, whole warps, at most 1024 (the tensor-core gridder's block:
  // mmaShape()).
  const bool fmaGridder = s.grid() && s.engine == GridEngine::Fma;
  if (fmaGridder && (S2 % t.pixelsPerThread || (S2 / t.pixelsPerThread) % 32 || S2 / t.pixelsPerThread > 1024))
    rd.fail(pixelsGiven ? "/tuning/pixels_per_thread" : "/subgrid_size",
            fmt::format("{} pixels per thread: the gridder's block is S^2 / pixels_per_thread = {} / {} threads, which "
                        "must be a whole number of "
                        "warps (a multiple of 32) and at most 1024",
                        t.pixelsPerThread, S2, t.pixelsPerThread));
  if (fmaGridder && t.pixelsPerThread * s.correlations > 32)
    rd.fail(pixelsGiven ? "/tuning/pixels_per_thread" : "/subgrid_size",
            fmt::format("{} pixels x {} correlations = {} complex accumulators per thread (at most 32: the kernel "
                        "would spill)",
                        t.pixelsPerThread, s.correlations, t.pixelsPerThread * s.correlations));
  if (s.grid() && t.stageVisibilities < s.channelsPerSubgrid)
    rd.fail("/tuning/stage_visibilities",
            fmt::format("{} visibilities per stage hold no whole time step of {} channels", t.stageVisibilities,
                        s.channelsPerSubgrid));
  if (S2 % t.stagePixels)
    rd.fail("/tuning/stage_pixels", fmt::format("{} does not divide the subgrid's {} pixels", t.stagePixels, S2));
  // Static shared memory (48 KiB): the gridder's staged time steps, the degridder's staged pixels.
  const int gridShared = s.channelsPerSubgrid * 4 + s.stageTimeSteps() * 32 +
                         s.stageTimeSteps() * s.channelsPerSubgrid * s.correlations * 8;
  if (fmaGridder && gridShared > 48 * 1024)
    rd.fail("/tuning/stage_visibilities",
            fmt::format("{} staged visibilities take {} B of shared memory with {} correlations (at most 49152)",
                        s.stageTimeSteps() * s.channelsPerSubgrid, gridShared, s.correlations));
  const bool fmaDegridder = !s.grid() && s.engine == GridEngine::Fma,
             mmaDegridder = !s.grid() && s.engine != GridEngine::Fma;
  const int gpt = (s.channelsPerSubgrid + t.visibilitiesPerThread - 1) / t.visibilitiesPerThread;
  const int degridShared = gpt * t.visibilitiesPerThread * 4 + t.stagePixels * (s.correlations * 8 + 16);
  if (fmaDegridder && degridShared > 48 * 1024)
    rd.fail("/tuning/stage_pixels",
            fmt::format("{} staged pixels take {} B of shared memory with {} correlations (at most 49152)",
                        t.stagePixels, degridShared, s.correlations));
  if (mmaDegridder && t.stagePixels % 4)
    rd.fail("/tuning/stage_pixels", fmt::format("engine {}: {} staged pixels are not whole k-steps of 4 pixels",
                                                gridEngineName(s.engine), t.stagePixels));
  if (mmaDegridder && s.mmaDegridSharedBytes() > 48 * 1024)
    rd.fail("/tuning/stage_pixels",
            fmt::format("engine {}: {} staged pixels take {} B of shared memory as tensor-core operands with {} "
                        "correlations "
                        "(at most 49152)",
                        gridEngineName(s.engine), t.stagePixels, s.mmaDegridSharedBytes(), s.correlations));
  if (s.grid() && s.engine != GridEngine::Fma && s.mmaSharedBytes() > 48 * 1024)
    rd.fail("/tuning/stage_visibilities",
            fmt::format("engine {}: {} staged time steps of {} channels take {} B of shared memory with the pixels' "
                        "coordinates (at most 49152)",
                        gridEngineName(s.engine), s.mmaStageSteps(), s.mmaChannels(), s.mmaSharedBytes()));
  if (t.degridThreads % 32)
    rd.fail("/tuning/degridder_threads",
            fmt::format("{} is not a whole number of warps (a multiple of 32)", t.degridThreads));
  if (fmaDegridder && t.visibilitiesPerThread * s.correlations > 32)
    rd.fail("/tuning/visibilities_per_thread",
            fmt::format("{} visibilities x {} correlations = {} complex accumulators per thread (at most 32)",
                        t.visibilitiesPerThread, s.correlations, t.visibilitiesPerThread * s.correlations));
  // __launch_bounds__(threads, resident / threads): a resident count below the block, or not a multiple of it, is not
  // what the kernel gets; said, not silently changed (--strict makes it an error).
  const bool residentGiven = root.contains("tuning") && root["tuning"].contains("resident_threads");
  const int block = s.grid() ? (s.engine == GridEngine::Fma ? s.gridThreads() : 32 * s.mmaShape().warps)
                             : t.degridThreads;
  if (residentGiven && t.residentThreads % block)
    s.warnings.push_back(
        fmt::format("tuning.resident_threads {}: the {}'s block has {} threads, so __launch_bounds__ asks for {} "
                    "resident thread(s) "
                    "per SM ({} block(s) of {})",
                    t.residentThreads, s.grid() ? "gridder" : "degridder", block,
                    std::max(1, t.residentThreads / block) * block, std::max(1, t.residentThreads / block), block));
}

}  // namespace

GridderSpec parseGridderSpec(const Json& root, const std::string& file) {
  JsonReader rd(file);
  rd.needObject(root, "");
  rd.onlyKeys(root, "",
              {"name",
               "family",
               "description",
               "direction",
               "subgrid_size",
               "correlations",
               "grid_size",
               "image_size",
               "cell_size",
               "w_step",
               "w_planes",
               "phase_centre_shift",
               "kernel_support",
               "observation",
               "time_steps_per_subgrid",
               "channels_per_subgrid",
               "max_subgrids",
               "aterms",
               "taper",
               "phasor",
               "adder",
               "engine",
               "tuning"});
  GridderSpec s;
  s.file = file;
  s.name = rd.identifier(rd.need(root, "", "name"), "/name", "name");
  if (s.name.size() > kGridderMaxNameLength)
    rd.fail("/name", fmt::format("name is {} characters long (at most {} for a gridder: its subgrid FFT's kernels are "
                                 "named <name>_sgfft_k<i>)",
                                 s.name.size(), kGridderMaxNameLength));
  if (rd.string(rd.need(root, "", "family"), "/family") != "gridder") rd.fail("/family", "expected \"gridder\"");

  const std::string dir = rd.string(rd.need(root, "", "direction"), "/direction");
  if (dir == "grid") s.direction = GridDirection::Grid;
  else if (dir == "degrid") s.direction = GridDirection::Degrid;
  else
    rd.fail("/direction", fmt::format("unknown direction '{}' (expected grid or degrid)", JsonReader::printable(dir)));

  s.subgridSize = static_cast<int>(rd.integer(rd.need(root, "", "subgrid_size"), "/subgrid_size", 8, 64));
  if (s.subgridSize % 8)
    rd.fail("/subgrid_size", fmt::format("{} is not a multiple of 8 (8, 16, 24, ..., 64)", s.subgridSize));
  s.correlations = static_cast<int>(rd.integer(rd.need(root, "", "correlations"), "/correlations", 1, 4));
  if (s.correlations == 3) rd.fail("/correlations", "3 correlations (expected 1: scalar, 2: XX YY, 4: XX XY YX YY)");
  s.gridSize = static_cast<int>(rd.integer(rd.need(root, "", "grid_size"), "/grid_size", 2LL * s.subgridSize, 32768));
  if (s.gridSize % 2) rd.fail("/grid_size", fmt::format("{} is odd (the grid's centre is pixel G/2)", s.gridSize));

  if (root.contains("image_size") == root.contains("cell_size"))
    rd.fail("/image_size",
            "give exactly one of 'image_size' (radians across the grid) or 'cell_size' (radians per grid pixel)");
  if (root.contains("image_size")) s.imageSize = real(rd, root["image_size"], "/image_size", 1e-6, 1.0);
  else s.imageSize = real(rd, root["cell_size"], "/cell_size", 1e-9, 1.0) * s.gridSize;
  if (root.contains("cell_size") && s.imageSize > 1.0)
    rd.fail("/cell_size",
            fmt::format("cell size x grid size = {} radians (at most 1: |l|, |m| <= 1/2 keep n defined)", s.imageSize));

  if (root.contains("phase_centre_shift")) {
    const Json& sh = root["phase_centre_shift"];
    if (!sh.is_array() || sh.size() != 2) rd.fail("/phase_centre_shift", "expected [shift_l, shift_m] in radians");
    s.shiftL = real(rd, sh[0], "/phase_centre_shift/0", -0.25, 0.25);
    s.shiftM = real(rd, sh[1], "/phase_centre_shift/1", -0.25, 0.25);
  }
  // Every pixel's l'^2 + m'^2 < 1 (n defined): the corner (L/2 + |shift|) in both axes.
  const double lc = s.imageSize / 2 + std::fabs(s.shiftL), mc = s.imageSize / 2 + std::fabs(s.shiftM);
  if (lc * lc + mc * mc >= 0.98)
    rd.fail(root.contains("image_size") ? "/image_size" : "/cell_size",
            fmt::format("the subgrid's corner pixel has l^2 + m^2 = {:.3f} (at most 0.98: n = 1 - sqrt(1 - l^2 - m^2) "
                        "must stay defined)",
                        lc * lc + mc * mc));

  if (root.contains("w_step")) s.wStep = real(rd, root["w_step"], "/w_step", 0.0, 1e6);
  s.wPlanes = intAt(rd, root, "", "w_planes", 1, 1024, 1);
  if (s.wStep == 0 && s.wPlanes != 1) rd.fail("/w_planes", fmt::format("{} w-planes need a w_step > 0", s.wPlanes));

  s.kernelSupport = intAt(rd, root, "", "kernel_support", 0, s.subgridSize - 2, std::min(8, s.subgridSize / 4));

  const std::string op = "/observation";
  const Json& o = rd.need(root, "", "observation");
  rd.needObject(o, op);
  rd.onlyKeys(o, op, {"stations", "time_steps", "channels"});
  s.stations = static_cast<int>(rd.integer(rd.need(o, op, "stations"), op + "/stations", 2, 1024));
  s.timeSteps = rd.integer(rd.need(o, op, "time_steps"), op + "/time_steps", 1, 1 << 20);
  s.channels = static_cast<int>(rd.integer(rd.need(o, op, "channels"), op + "/channels", 1, 65536));

  s.timeStepsPerSubgrid = intAt(rd, root, "", "time_steps_per_subgrid", 1, 4096,
                                static_cast<int>(std::min<long long>(128, s.timeSteps)));
  s.channelsPerSubgrid = intAt(rd, root, "", "channels_per_subgrid", 1, 64, std::min(16, s.channels));
  if (s.channelsPerSubgrid > s.channels)
    rd.fail("/channels_per_subgrid", fmt::format("{} channels per subgrid, but the observation has {} channels",
                                                 s.channelsPerSubgrid, s.channels));

  if (root.contains("aterms")) {
    const Json& a = root["aterms"];
    if (a.is_boolean()) {
      if (a.get<bool>()) rd.fail("/aterms", "A-terms need their update interval: {\"update_interval\": time steps}");
    } else {
      rd.needObject(a, "/aterms");
      rd.onlyKeys(a, "/aterms", {"update_interval"});
      s.aterms = true;
      s.atermInterval = rd.integer(rd.need(a, "/aterms", "update_interval"), "/aterms/update_interval", 1, s.timeSteps);
    }
  }
  if (root.contains("taper")) s.taper = rd.boolean(root["taper"], "/taper");
  if (root.contains("phasor")) {
    const std::string p = rd.string(root["phasor"], "/phasor");
    if (p == "sincos") s.phasor = GridPhasor::Sincos;
    else if (p == "sfu") s.phasor = GridPhasor::Sfu;
    else
      rd.fail("/phasor", fmt::format("unknown phasor '{}' (expected sincos: sincosf, or sfu: __sincosf)",
                                     JsonReader::printable(p)));
  }
  if (root.contains("engine")) {
    const std::string e = rd.string(root["engine"], "/engine");
    if (e == "fma") s.engine = GridEngine::Fma;
    else if (e == "tf32x3") s.engine = GridEngine::MmaTf32x3;
    else if (e == "tf32") s.engine = GridEngine::MmaTf32;
    else
      rd.fail("/engine", fmt::format("unknown engine '{}' (expected fma: CUDA-core FMAs, tf32x3: tensor cores with "
                                     "three tf32 products per term, "
                                     "or tf32: tensor cores, one tf32 product)",
                                     JsonReader::printable(e)));
  }
  if (root.contains("adder")) {
    const std::string a = rd.string(root["adder"], "/adder");
    if (!s.grid()) rd.fail("/adder", "the degridder has a splitter, not an adder");
    if (a == "tiles") s.adder = GridAdder::Tiles;
    else if (a == "atomic") s.adder = GridAdder::Atomic;
    else
      rd.fail("/adder",
              fmt::format("unknown adder '{}' (expected tiles: atomic-free, or atomic)", JsonReader::printable(a)));
  }

  // Sizes: 32-bit element counts per batch entry (the kernels index with 64-bit offsets, the plan with long long).
  const double vis = static_cast<double>(s.baselines()) * s.timeSteps * s.channels * s.correlations;
  if (vis > 0x1p31) rd.fail(op, fmt::format("{:.4g} visibility values per batch entry (at most 2^31)", vis));
  if (static_cast<double>(s.gridElems()) > 0x1p31)
    rd.fail("/grid_size", fmt::format("{} w-planes x {} correlations x {}^2 = {:.4g} grid values (at most 2^31)",
                                      s.wPlanes, s.correlations, s.gridSize, static_cast<double>(s.gridElems())));
  const long long minSub = s.minSubgrids();
  if (root.contains("max_subgrids")) {
    s.maxSubgrids = rd.integer(root["max_subgrids"], "/max_subgrids", 1, 1 << 24);
    // Fewer slots than the planning limits make subgrids: the runs past the last slot are counted, not gridded.
    if (s.maxSubgrids < minSub)
      s.warnings.push_back(
          fmt::format("max_subgrids {}: the planning limits make at least {} subgrids per batch entry; the "
                      "visibilities of the "
                      "runs past slot {} are counted as over capacity and not gridded (the default is {})",
                      s.maxSubgrids, minSub, s.maxSubgrids, minSub + (minSub + 7) / 8));
  } else {
    s.maxSubgrids = minSub + (minSub + 7) / 8;  // room for runs the planner splits
  }
  if (static_cast<double>(s.maxSubgrids) * s.correlations * s.subgridSize * s.subgridSize > 0x1p31)
    rd.fail(root.contains("max_subgrids") ? "/max_subgrids" : op,
            fmt::format("{} subgrids x {} correlations x {}^2 pixels exceed 2^31 values", s.maxSubgrids, s.correlations,
                        s.subgridSize));
  parseTuning(rd, root, s);
  return s;
}

GridderSpec parseGridderSpecText(const std::string& text, const std::string& file) {
  return parseGridderSpec(parseJsonText(text, file), file);
}

}  // namespace warpforge
