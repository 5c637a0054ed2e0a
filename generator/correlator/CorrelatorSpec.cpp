#include "generator/correlator/CorrelatorSpec.h"

#include <algorithm>
#include <cmath>

#include "generator/core/Extent.h"
#include "generator/core/JsonReader.h"

namespace warpforge {

const char* sampleTypeName(SampleType t) {
  switch (t) {
    case SampleType::CI4: return "ci4";
    case SampleType::CI8: return "ci8";
    case SampleType::CF16: return "cf16";
  }
  return "?";
}

void baselineReceivers(long long bl, long long& r1, long long& r2) {
  long long r = static_cast<long long>((std::sqrt(8.0 * static_cast<double>(bl) + 1.0) - 1.0) / 2.0);
  while (r * (r + 1) / 2 > bl) --r;
  while ((r + 1) * (r + 2) / 2 <= bl) ++r;
  r2 = r;
  r1 = bl - r * (r + 1) / 2;
}

int correlatorRowStride(int timesPerStage, SampleType type) {
  const int words = type == SampleType::CF16 ? timesPerStage : timesPerStage / 2;
  int stride = words;
  while (stride % 8 != 4)
    ++stride;  // 16-byte rows, (stride / 4) odd: 8 rows of an ldmatrix hit 8 distinct 16-byte bank groups
  return stride;
}
int correlatorSharedBytes(int rowsPerBlock, int timesPerStage, SampleType type) {
  return 3 * rowsPerBlock * correlatorRowStride(timesPerStage, type) * 4;
}

namespace {

// Samples per 32-bit word of the staged (widened) data: how many times one MMA k-step covers.
int timesPerMmaStep(SampleType t) { return t == SampleType::CF16 ? 8 : 16; }

void parseInput(const JsonReader& rd, const Json& j, CorrelatorSpec& s) {
  const std::string path = "/input";
  rd.needObject(j, path);
  CorrelatorInput& in = s.input;
  in.layout = rd.string(rd.need(j, path, "layout"), path + "/layout");
  const long long R = s.receivers, P = s.polarizations, C = s.channels, S = s.samples;
  if (in.layout == "tcc") {
    // [channel][time / T][receiver][pol][T]; TCC's T is 128 / bits per sample (a 16-byte vector per receiver and pol).
    rd.onlyKeys(j, path, {"layout", "times_per_block"});
    const int defT = s.type == SampleType::CI4 ? 32 : s.type == SampleType::CI8 ? 16 : 8;
    in.timesPerBlock = j.contains("times_per_block")
                           ? static_cast<int>(rd.integer(j["times_per_block"], path + "/times_per_block", 1, 1 << 16))
                           : defT;
    if (S % in.timesPerBlock)
      rd.fail(j.contains("times_per_block") ? path + "/times_per_block" : "/samples_per_call",
              fmt::format("samples_per_call {} must be a multiple of the layout's times per block {}", S,
                          in.timesPerBlock));
    in.time = 1;
    in.polarization = in.timesPerBlock;
    in.receiver = P * in.timesPerBlock;
    in.timeBlock = R * P * in.timesPerBlock;
    in.channel = S * R * P;
    in.batch = C * S * R * P;
  } else if (in.layout == "katgpucbf") {
    // [antenna][channel][time][pol] (one batch of heaps; batches follow one another).
    rd.onlyKeys(j, path, {"layout"});
    in.timesPerBlock = 1;
    in.polarization = 1;
    in.time = in.timeBlock = P;
    in.channel = S * P;
    in.receiver = C * S * P;
    in.batch = R * C * S * P;
  } else if (in.layout == "strides") {
    rd.onlyKeys(j, path, {"layout", "strides", "times_per_block"});
    const std::string sp = path + "/strides";
    const Json& st = rd.need(j, path, "strides");
    rd.needObject(st, sp);
    rd.onlyKeys(st, sp, {"batch", "channel", "receiver", "polarization", "time", "time_block"});
    auto stride = [&](const char* key) {
      return rd.integer(rd.need(st, sp, key), JsonReader::child(sp, key), 0, 1LL << 40);
    };
    in.timesPerBlock = j.contains("times_per_block")
                           ? static_cast<int>(rd.integer(j["times_per_block"], path + "/times_per_block", 1, 1 << 16))
                           : 1;
    in.batch = stride("batch");
    in.channel = stride("channel");
    in.receiver = stride("receiver");
    in.polarization = stride("polarization");
    in.time = stride("time");
    if (in.timesPerBlock > 1) {
      in.timeBlock = stride("time_block");
      if (S % in.timesPerBlock)
        rd.fail(path + "/times_per_block",
                fmt::format("samples_per_call {} must be a multiple of times_per_block {}", S, in.timesPerBlock));
    } else {
      if (st.contains("time_block"))
        rd.fail(sp + "/time_block", "time_block needs times_per_block > 1 (the time axis is not split)");
      in.timeBlock = in.time;
    }
  } else {
    rd.fail(path + "/layout", fmt::format("unknown input layout '{}' (expected one of: tcc, katgpucbf, strides)",
                                          JsonReader::printable(in.layout)));
  }
  // The highest offset + 1 of one batch entry, every product and sum checked (strides up to 2^40 over up to 2^30
  // samples).
  const long long T = in.timesPerBlock;
  const bool strided = in.layout == "strides";
  auto at = [&](const char* key) { return strided ? JsonReader::child(path + "/strides", key) : path + "/layout"; };
  std::vector<ExtentAxis> axes = {{C, in.channel, at("channel")},
                                  {R, in.receiver, at("receiver")},
                                  {P, in.polarization, at("polarization")},
                                  {S / T, in.timeBlock, at(T > 1 ? "time_block" : "time")}};
  if (T > 1) axes.push_back({T, in.time, at("time")});
  in.span = checkedExtent(rd.file(), axes, "samples");
  if (in.layout == "strides" && in.batch < in.span)
    rd.fail(path + "/strides/batch",
            fmt::format("batch stride {} is smaller than one batch entry's extent {} samples: entries would overlap",
                        in.batch, in.span));
  if (in.layout != "strides") in.span = in.batch;
}

}  // namespace

CorrelatorSpec parseCorrelatorSpec(const Json& root, const std::string& file) {
  JsonReader rd(file);
  rd.needObject(root, "");
  rd.onlyKeys(root, "",
              {"name", "family", "description", "receivers", "polarizations", "channels", "samples_per_call",
               "sample_type", "ci4_real_nibble", "sample_range", "input", "conjugate", "polarization_order", "output",
               "tuning"});
  CorrelatorSpec s;
  s.file = file;
  s.name = rd.identifier(rd.need(root, "", "name"), "/name", "name");
  if (rd.string(rd.need(root, "", "family"), "/family") != "correlator") rd.fail("/family", "expected \"correlator\"");
  s.receivers = static_cast<int>(rd.integer(rd.need(root, "", "receivers"), "/receivers", 1, 16384));
  s.polarizations = root.contains("polarizations")
                        ? static_cast<int>(rd.integer(root["polarizations"], "/polarizations", 1, 2))
                        : 2;
  s.channels = static_cast<int>(rd.integer(rd.need(root, "", "channels"), "/channels", 1, 1 << 20));
  const std::string ty = rd.string(rd.need(root, "", "sample_type"), "/sample_type");
  if (ty == "ci4") s.type = SampleType::CI4;
  else if (ty == "ci8") s.type = SampleType::CI8;
  else if (ty == "cf16") s.type = SampleType::CF16;
  else
    rd.fail("/sample_type",
            fmt::format("unknown sample type '{}' (expected one of: ci4, ci8, cf16)", JsonReader::printable(ty)));
  if (root.contains("ci4_real_nibble")) {
    if (s.type != SampleType::CI4) rd.fail("/ci4_real_nibble", "only for sample_type ci4");
    const std::string n = rd.string(root["ci4_real_nibble"], "/ci4_real_nibble");
    if (n != "high" && n != "low")
      rd.fail("/ci4_real_nibble", fmt::format("'{}' (expected high or low)", JsonReader::printable(n)));
    s.ci4RealHigh = n == "high";
  }
  if (root.contains("sample_range")) {
    const std::string r = rd.string(root["sample_range"], "/sample_range");
    if (r != "full" && r != "symmetric")
      rd.fail("/sample_range",
              fmt::format("'{}' (expected full: any value, -128 / -8 clamped to -127 / -7 when staged; or symmetric: "
                          "no -128 / -8 in the data, nothing clamped)",
                          JsonReader::printable(r)));
    if (r == "symmetric" && s.type == SampleType::CF16)
      rd.fail("/sample_range", "symmetric is for integer samples (ci8, ci4): cf16 has no minimum to clamp");
    s.symmetric = r == "symmetric";
  }
  s.samples = rd.integer(rd.need(root, "", "samples_per_call"), "/samples_per_call", 1, 1LL << 30);
  const int step = timesPerMmaStep(s.type);
  if (s.samples % step)
    rd.fail("/samples_per_call", fmt::format("{} is not a multiple of {} (the samples one {} tensor-core step sums)",
                                             s.samples, step, sampleTypeName(s.type)));
  if (s.integer() && s.samples > s.maxExactSamples())
    rd.fail("/samples_per_call", fmt::format("{} samples could overflow the tensor cores' int32 sums ({} x 2 x {}^2 > "
                                             "2^31 - 1); at most {} per call",
                                             s.samples, s.samples, s.maxComponent(), s.maxExactSamples()));
  if (root.contains("conjugate")) {
    s.conjugate = rd.string(root["conjugate"], "/conjugate");
    if (s.conjugate != "r1" && s.conjugate != "r2")
      rd.fail("/conjugate", fmt::format("'{}' (expected r1 or r2: the conjugated receiver of bl(r1, r2), r1 <= r2)",
                                        JsonReader::printable(s.conjugate)));
  }
  if (root.contains("polarization_order")) {
    s.polOrder = rd.string(root["polarization_order"], "/polarization_order");
    if (s.polOrder != "r1_r2" && s.polOrder != "r2_r1")
      rd.fail("/polarization_order", fmt::format("'{}' (expected r1_r2: V[..][pol of r1][pol of r2], or r2_r1)",
                                                 JsonReader::printable(s.polOrder)));
  }
  if (root.contains("output")) {
    s.output = rd.string(root["output"], "/output");
    if (s.output != "accumulators" && s.output != "visibilities")
      rd.fail("/output", fmt::format("'{}' (expected accumulators: int64 accumulators over calls and a reduce kernel, "
                                     "or visibilities: each call's int32 visibilities written once)",
                                     JsonReader::printable(s.output)));
  }
  // Sizes that keep every index in 64 bits with room (and the CPU-side checks finite).
  const double samplesPerEntry = static_cast<double>(s.receivers) * s.polarizations * s.channels *
                                 static_cast<double>(s.samples);
  if (samplesPerEntry > 0x1p40)
    rd.fail("/channels",
            fmt::format("{} channels x {} samples x {} inputs = {:.3g} samples per batch entry (at most 2^40)",
                        s.channels, s.samples, s.inputs(), samplesPerEntry));
  if (static_cast<double>(s.visibilities()) > 0x1p36)
    rd.fail("/channels", fmt::format("{} visibilities per batch entry (at most 2^36)", s.visibilities()));
  parseInput(rd, rd.need(root, "", "input"), s);

  // Tuning: square tiles of receivers_per_block receivers (x polarizations rows), a multiple of the 32-row warp tile.
  const int P = s.polarizations;
  if (root.contains("tuning")) {
    const Json& t = root["tuning"];
    rd.needObject(t, "/tuning");
    rd.onlyKeys(t, "/tuning",
                {"receivers_per_block", "times_per_stage", "mma", "stages", "raw_stages", "transform", "whole_triangle",
                 "stages_per_sync", "row_copies", "column_copies", "persistent", "store"});
    if (t.contains("stages")) s.tuning.stages = static_cast<int>(rd.integer(t["stages"], "/tuning/stages", 2, 8));
    if (t.contains("raw_stages"))
      s.tuning.rawStages = static_cast<int>(rd.integer(t["raw_stages"], "/tuning/raw_stages", 2, 8));
    if (t.contains("transform")) {
      s.tuning.transform = rd.string(t["transform"], "/tuning/transform");
      s.tuning.transformGiven = true;
      if (s.tuning.transform != "loader" && s.tuning.transform != "shared" && s.tuning.transform != "split" &&
          s.tuning.transform != "none")
        rd.fail("/tuning/transform",
                fmt::format("\"{}\" (expected \"loader\", \"shared\" or \"split\": who transforms the pipeline's "
                            "operands: the loader alone, the consumers A, or the consumers A and part of B; or "
                            "\"none\": the operands as stored)",
                            JsonReader::printable(s.tuning.transform)));
      if (s.tuning.transform == "none" && s.type == SampleType::CI4)
        rd.fail("/tuning/transform",
                "\"none\" uses the samples as stored: ci4 samples must be widened to 8 bits by "
                "a transform (use \"shared\")");
      if (s.tuning.transform == "none" && s.type == SampleType::CI8 && !s.symmetric)
        rd.fail("/tuning/transform",
                "\"none\" negates only A, in registers, and uses B as stored: ci8 needs sample_range \"symmetric\" "
                "(a -128 can be neither negated nor clamped there); with sample_range \"full\" use \"shared\"");
      if (s.tuning.transform == "none" && t.contains("stages_per_sync") && t["stages_per_sync"] != 1 &&
          t["stages_per_sync"] != 2)
        rd.fail("/tuning/stages_per_sync",
                "\"none\" (tuning.transform) waits once per stage or per two: expected 1, 2 or nothing");
      if (s.tuning.transform == "none" && t.contains("stages_per_sync") && t["stages_per_sync"] == 2 &&
          s.tuning.stages && s.tuning.stages < 5)
        rd.fail("/tuning/stages_per_sync",
                "2 with tuning.transform \"none\" needs 5 or more stages (two groups "
                "held by the consumers and one stage of copies)");
      if (s.tuning.transform != "loader" && s.tuning.stages == 2)
        rd.fail("/tuning/transform",
                fmt::format("\"{}\" needs 3 or more stages (tuning.stages is 2)", s.tuning.transform));
    }
    if (!t.contains("transform") && s.tuning.stages == 2) s.tuning.transform = "loader";
    if (t.contains("whole_triangle"))
      s.tuning.wholeTriangle = rd.boolean(t["whole_triangle"], "/tuning/whole_triangle") ? 1 : 0;
    if (t.contains("stages_per_sync")) {
      s.tuning.stagesPerSyncGiven = true;
      s.tuning.stagesPerSync = static_cast<int>(rd.integer(t["stages_per_sync"], "/tuning/stages_per_sync", 1, 4));
      if (s.tuning.stagesPerSync == 3) rd.fail("/tuning/stages_per_sync", "3 (expected 1, 2 or 4)");
      if (!ringHoldsStagesPerSync(s.tuning.stagesPerSync, s.tuning.stages))
        rd.fail("/tuning/stages_per_sync",
                fmt::format("{} needs {} or more operand slots (tuning.stages is {})", s.tuning.stagesPerSync,
                            2 * s.tuning.stagesPerSync, s.tuning.stages));
    }
    // How the operands as stored are copied: a named choice, only with transform "none" (or none given).
    auto copies = [&](const char* key, const std::vector<std::string>& allowed, const std::string& expected) {
      const std::string at = std::string("/tuning/") + key;
      const std::string v = rd.string(t[key], at);
      if (std::find(allowed.begin(), allowed.end(), v) == allowed.end())
        rd.fail(at, fmt::format("\"{}\" (expected {})", JsonReader::printable(v), expected));
      if (s.tuning.transformGiven && s.tuning.transform != "none")
        rd.fail(at, fmt::format("given with tuning.transform \"{}\" (it chooses how the operands as stored, transform "
                                "\"none\", are copied)",
                                s.tuning.transform));
      return v;
    };
    if (t.contains("row_copies")) {
      const std::string v = copies("row_copies", {"bulk", "cp.async", "multicast"},
                                   "\"bulk\": the row side by cp.async.bulk, one copy per time block; \"multicast\": "
                                   "as "
                                   "bulk, shared by the two blocks of a cluster that have the same row side; or "
                                   "\"cp.async\": 16-byte copies into the swizzled layout");
      s.tuning.rowCopies = v == "multicast" ? 2 : v == "bulk" ? 1 : 0;
    }
    if (t.contains("column_copies"))
      s.tuning.columnCopies = copies("column_copies", {"tensor", "cp.async"},
                                     "\"tensor\": the column side by one TMA tensor copy per stage; or \"cp.async\": "
                                     "16-byte copies by the producer warpgroup") == "tensor"
                                  ? 1
                                  : 0;
    if (t.contains("store"))
      s.tuning.bulkStore = copies("store", {"bulk", "registers"},
                                  "\"bulk\": the visibilities staged in shared memory and copied out by "
                                  "cp.async.bulk stores; or \"registers\": 16-byte stores from the accumulators") ==
                                   "bulk"
                               ? 1
                               : 0;
    if (t.contains("persistent")) s.tuning.persistent = rd.boolean(t["persistent"], "/tuning/persistent") ? 1 : 0;
    if (t.contains("mma")) {
      s.tuning.mma = rd.string(t["mma"], "/tuning/mma");
      if (s.tuning.mma != "auto" && s.tuning.mma != "mma_sync" && s.tuning.mma != "wgmma" && s.tuning.mma != "pipeline")
        rd.fail("/tuning/mma", fmt::format("\"{}\" (expected \"auto\": the sm_90 pipeline where the layout allows it, "
                                           "\"pipeline\": that warp-specialized "
                                           "wgmma pipeline (sm_90 targets only), \"wgmma\": the register-staged wgmma "
                                           "kernel on 64- or 128-row tiles (sm_90 "
                                           "targets only), or \"mma_sync\")",
                                           JsonReader::printable(s.tuning.mma)));
    }
    if (t.contains("receivers_per_block")) {
      s.tuning.receiversPerBlock = static_cast<int>(
          rd.integer(t["receivers_per_block"], "/tuning/receivers_per_block", 1, 1024));
      s.tuning.rowsGiven = true;
      const int rows = s.tuning.receiversPerBlock * P;
      if (rows != 32 && rows != 64 && rows != 128)
        rd.fail("/tuning/receivers_per_block",
                fmt::format("{} receivers x {} polarizations = {} rows (expected 32, 64 or 128 rows per block side)",
                            s.tuning.receiversPerBlock, P, rows));
    }
    if (t.contains("times_per_stage")) {
      s.tuning.timesPerStage = static_cast<int>(rd.integer(t["times_per_stage"], "/tuning/times_per_stage", step, 256));
      if (s.tuning.timesPerStage % step || (s.tuning.timesPerStage & (s.tuning.timesPerStage - 1)))
        rd.fail("/tuning/times_per_stage",
                fmt::format("{} (expected a power of two, a multiple of {})", s.tuning.timesPerStage, step));
      if (s.samples % s.tuning.timesPerStage)
        rd.fail("/tuning/times_per_stage",
                fmt::format("{} does not divide samples_per_call {}", s.tuning.timesPerStage, s.samples));
    }
  }
  // Default tiles (H100, TCC's configurations, correlate kernel alone): 128 rows (the
  // fill per MMA halves) for 768..2047 inputs (R = 576: 128-row wgmma 433 TOPS, 64 rows 415-418); 64 rows (more blocks
  // per SM) below and above (R = 64 / 80: 128-row tiles 255-265 / 174-181 TOPS, 64-row 289-302 / 249-267; R = 2048:
  // 128-row 365-373, 64-row 423-446).
  if (!s.tuning.receiversPerBlock) {
    const long long n = s.inputs();
    s.tuning.receiversPerBlock = (n >= 768 && n < 2048 ? 128 : 64) / P;
  }
  if (s.tuning.mma == "wgmma" && s.tuning.receiversPerBlock * P != 64 && s.tuning.receiversPerBlock * P != 128)
    rd.fail("/tuning/mma", fmt::format("wgmma needs tiles of 64 or 128 rows (this spec: {} receivers x {} "
                                       "polarizations per block side)",
                                       s.tuning.receiversPerBlock, P));
  if (!s.tuning.timesPerStage) {
    // The most samples per stage (up to 64) that divide the call and fit 99 KiB of shared memory (dynamic above
    // 48 KiB; every sm_80+ part has 99 KiB per block). On the H100, R = 576 with 128-row tiles: 64 samples
    // per stage ran 1.01x (8-bit) and 1.09x (4-bit) of 32 per stage.
    // 64-row tiles take 32 (H100: R = 64 / 80 / 576 / 2048 1.12x / 1.09x / 1.13x / 1.15x over 64: 4 blocks per SM, not
    // 3).
    const int most = s.tuning.receiversPerBlock * P == 64 ? 32 : 64;
    for (int ts = most; ts >= step; ts /= 2)
      if (s.samples % ts == 0 &&
          (correlatorSharedBytes(s.tuning.receiversPerBlock * P, ts, s.type) <= 99 * 1024 || ts == step)) {
        s.tuning.timesPerStage = ts;
        break;
      }
  }
  if (!s.tuning.stagesPerSyncGiven)
    s.tuning.stagesPerSync = s.type != SampleType::CI4 && ringHoldsStagesPerSync(2, s.tuning.stages) ? 2 : 1;
  return s;
}

CorrelatorSpec parseCorrelatorSpecText(const std::string& text, const std::string& file) {
  return parseCorrelatorSpec(parseJsonText(text, file), file);
}

}  // namespace warpforge
