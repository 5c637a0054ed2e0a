#include "generator/beamformer/BeamformerSpec.h"

#include "generator/beamformer/BeamformerWgmma.h"

#include "generator/core/Extent.h"
#include "generator/core/JsonReader.h"
#include "warpforge/launch_plan.h"

namespace warpforge {

const char* bfTypeName(BfType t) {
  switch (t) {
    case BfType::CI4: return "ci4";
    case BfType::CI8: return "ci8";
    case BfType::CF16: return "cf16";
  }
  return "?";
}
const char* bfOutTypeName(BfOutType t) {
  switch (t) {
    case BfOutType::CF32: return "cf32";
    case BfOutType::CF16: return "cf16";
    case BfOutType::CI8: return "ci8";
    case BfOutType::CI4: return "ci4";
  }
  return "?";
}

namespace {

BfType parseType(const JsonReader& rd, const Json& j, const std::string& path) {
  const std::string t = rd.string(j, path);
  if (t == "ci4") return BfType::CI4;
  if (t == "ci8") return BfType::CI8;
  if (t == "cf16") return BfType::CF16;
  if (t == "cf32")
    rd.fail(path,
            "cf32 is not computed yet: it would go through tf32 (10-bit mantissas, relative error ~2^-11 per product) "
            "or split f16 "
            "(three MMAs per product, ~2^-22); convert to cf16, or use cuBLAS cgemm");
  rd.fail(path, fmt::format("unknown type '{}' (expected one of: ci4, ci8, cf16)", JsonReader::printable(t)));
}

// The operand object: {"format": "interleaved" | "planar", "layout": "default" | "strides", "strides": {...},
// "ci4_real_nibble": ...}.
void parseOperand(const JsonReader& rd, const Json& root, const char* key, const char* outerName, BfOperand& op,
                  const BeamformerSpec& s) {
  const std::string path = std::string("/") + key;
  const long long K = s.receivers, C = s.channels, P = s.polarizations,
                  O = std::string(outerName) == "time" ? s.samples : s.beams;
  // Defaults: [batch][channel][pol][outer][receiver], receivers fastest (the batch stride is the checked extent,
  // below).
  op.receiver = 1;
  op.outer = K;
  op.polarization = O * K;
  op.channel = P * O * K;
  if (root.contains(key)) {
    const Json& j = root[key];
    rd.needObject(j, path);
    rd.onlyKeys(j, path, {"format", "layout", "strides", "ci4_real_nibble"});
    if (j.contains("format")) {
      const std::string f = rd.string(j["format"], path + "/format");
      if (f == "planar") op.planar = true;
      else if (f != "interleaved")
        rd.fail(path + "/format", fmt::format("'{}' (expected interleaved or planar)", JsonReader::printable(f)));
      if (op.planar && op.type == BfType::CI4)
        rd.fail(path + "/format",
                "ci4 is one byte per complex value (two nibbles): planar ci4 is not a format; use interleaved");
    }
    if (j.contains("ci4_real_nibble")) {
      if (op.type != BfType::CI4) rd.fail(path + "/ci4_real_nibble", "only for ci4");
      const std::string n = rd.string(j["ci4_real_nibble"], path + "/ci4_real_nibble");
      if (n != "high" && n != "low")
        rd.fail(path + "/ci4_real_nibble", fmt::format("'{}' (expected high or low)", JsonReader::printable(n)));
      op.ci4RealHigh = n == "high";
    }
    if (j.contains("layout")) {
      op.layout = rd.string(j["layout"], path + "/layout");
      if (op.layout != "default" && op.layout != "strides")
        rd.fail(path + "/layout",
                fmt::format("'{}' (expected default: [batch][channel][pol][{}][receiver], or strides)",
                            JsonReader::printable(op.layout), outerName));
    }
    if (op.layout == "strides") {
      const std::string sp = path + "/strides";
      const Json& st = rd.need(j, path, "strides");
      rd.needObject(st, sp);
      rd.onlyKeys(st, sp, {"batch", "channel", "polarization", outerName, "receiver"});
      auto stride = [&](const char* k) {
        return rd.integer(rd.need(st, sp, k), JsonReader::child(sp, k), 0, 1LL << 40);
      };
      op.batch = stride("batch");
      op.channel = stride("channel");
      op.polarization = stride("polarization");
      op.outer = stride(outerName);
      op.receiver = stride("receiver");
    } else if (j.contains("strides")) {
      rd.fail(path + "/strides", "strides need \"layout\": \"strides\"");
    }
  }
  // The highest offset + 1 of one batch entry, every product and sum checked (strides up to 2^40 over up to 2^28
  // samples).
  const bool strided = op.layout == "strides";
  auto at = [&](const char* k) { return strided ? JsonReader::child(path + "/strides", k) : path; };
  op.span = checkedExtent(rd.file(),
                          {{C, op.channel, at("channel")},
                           {P, op.polarization, at("polarization")},
                           {O, op.outer, at(outerName)},
                           {K, op.receiver, at("receiver")}},
                          key);
  if (!strided) op.batch = op.span;  // dense: C * P * O * K
  if (op.layout == "strides" && op.batch != 0 && op.batch < op.span)
    rd.fail(path + "/strides/batch",
            fmt::format("batch stride {} is smaller than one batch entry's extent {} elements: entries would overlap",
                        op.batch, op.span));
  if (op.layout == "strides" && op.batch == 0 && std::string(key) == "samples")
    rd.fail(path + "/strides/batch",
            "samples need a nonzero batch stride (only weights may be shared by every batch entry)");
}

}  // namespace

BeamformerSpec parseBeamformerSpec(const Json& root, const std::string& file) {
  JsonReader rd(file);
  rd.needObject(root, "");
  rd.onlyKeys(root, "",
              {"name", "family", "description", "receivers", "beams", "samples_per_call", "channels", "polarizations",
               "sample_type", "weight_type", "samples", "weights", "output", "tuning", "baseline"});
  BeamformerSpec s;
  s.file = file;
  s.name = rd.identifier(rd.need(root, "", "name"), "/name", "name");
  if (rd.string(rd.need(root, "", "family"), "/family") != "beamformer") rd.fail("/family", "expected \"beamformer\"");
  s.receivers = rd.integer(rd.need(root, "", "receivers"), "/receivers", 1, 1 << 16);
  s.beams = rd.integer(rd.need(root, "", "beams"), "/beams", 1, 1 << 16);
  s.samples = rd.integer(rd.need(root, "", "samples_per_call"), "/samples_per_call", 1, 1LL << 28);
  s.channels = root.contains("channels") ? static_cast<int>(rd.integer(root["channels"], "/channels", 1, 1 << 20)) : 1;
  s.polarizations = root.contains("polarizations")
                        ? static_cast<int>(rd.integer(root["polarizations"], "/polarizations", 1, 2))
                        : 1;
  s.in.type = parseType(rd, rd.need(root, "", "sample_type"), "/sample_type");
  s.w.type = parseType(rd, rd.need(root, "", "weight_type"), "/weight_type");
  if ((s.in.type == BfType::CF16) != (s.w.type == BfType::CF16))
    rd.fail("/weight_type",
            fmt::format("{} samples need {} weights (the integer path is s8 tensor cores, the f16 path f16 ones)",
                        bfTypeName(s.in.type), s.in.type == BfType::CF16 ? "cf16" : "ci4 or ci8"));
  // int32 tensor-core sums exact: per receiver |Re|, |Im| <= 2 maxSample maxWeight.
  if (s.integer()) {
    const long long per = 2 * s.maxSample() * s.maxWeight();
    if (s.receivers * per > 2147483647LL)
      rd.fail("/receivers", fmt::format("{} receivers x 2 x {} x {} could overflow the tensor cores' int32 sums (at "
                                        "most {} receivers)",
                                        s.receivers, s.maxSample(), s.maxWeight(), 2147483647LL / per));
  }
  const double elems = static_cast<double>(s.channels) * s.polarizations * static_cast<double>(s.samples) *
                       static_cast<double>(s.receivers);
  if (elems > 0x1p40) rd.fail("/samples_per_call", fmt::format("{:.3g} samples per batch entry (at most 2^40)", elems));
  parseOperand(rd, root, "samples", "time", s.in, s);
  parseOperand(rd, root, "weights", "beam", s.w, s);

  const std::string op = "/output";
  const Json& o = rd.need(root, "", "output");
  rd.needObject(o, op);
  const std::string kind = rd.string(rd.need(o, op, "kind"), op + "/kind");
  if (kind == "beams") {
    rd.onlyKeys(o, op, {"kind", "type", "ci4_real_nibble", "format"});
    const std::string t = rd.string(rd.need(o, op, "type"), op + "/type");
    if (t == "cf32") s.outType = BfOutType::CF32;
    else if (t == "cf16") s.outType = BfOutType::CF16;
    else if (t == "ci8") s.outType = BfOutType::CI8;
    else if (t == "ci4") s.outType = BfOutType::CI4;
    else
      rd.fail(op + "/type", fmt::format("unknown output type '{}' (expected one of: cf32, cf16, ci8, ci4)",
                                        JsonReader::printable(t)));
    if (s.intOut() && !s.integer())
      rd.fail(op + "/type",
              "integer beams (shift and saturate) need integer samples and weights; cf16 inputs give cf32 or cf16 "
              "beams");
    if (o.contains("ci4_real_nibble")) {
      if (s.outType != BfOutType::CI4) rd.fail(op + "/ci4_real_nibble", "only for type ci4");
      const std::string n = rd.string(o["ci4_real_nibble"], op + "/ci4_real_nibble");
      if (n != "high" && n != "low")
        rd.fail(op + "/ci4_real_nibble", fmt::format("'{}' (expected high or low)", JsonReader::printable(n)));
      s.outCi4RealHigh = n == "high";
    }
    if (o.contains("format")) {
      const std::string f = rd.string(o["format"], op + "/format");
      if (f == "planar") s.outPlanar = true;
      else if (f != "interleaved")
        rd.fail(op + "/format", fmt::format("'{}' (expected interleaved or planar)", JsonReader::printable(f)));
      if (s.outPlanar && s.outType == BfOutType::CI4)
        rd.fail(op + "/format",
                "ci4 beams are one byte per complex value (two nibbles): planar ci4 is not a format; use interleaved "
                "or ci8");
    }
  } else if (kind == "power") {
    rd.onlyKeys(o, op, {"kind", "integrate"});
    s.power = true;
    s.integrate = o.contains("integrate") ? rd.integer(o["integrate"], op + "/integrate", 1, 1 << 20) : 1;
    if (s.samples % s.integrate)
      rd.fail(op + "/integrate", fmt::format("samples_per_call {} is not a multiple of the integration length {}",
                                             s.samples, s.integrate));
  } else {
    rd.fail(op + "/kind",
            fmt::format("unknown output kind '{}' (expected beams or power)", JsonReader::printable(kind)));
  }
  if (root.contains("baseline")) {
    s.baseline = rd.string(root["baseline"], "/baseline");
    if (s.baseline != "cgemm" && s.baseline != "cgemm_i8" && s.baseline != "cgemm_lt_f16" && s.baseline != "none")
      rd.fail("/baseline",
              fmt::format("'{}' (expected cgemm, cgemm_i8, cgemm_lt_f16 or none)", JsonReader::printable(s.baseline)));
    if ((s.baseline == "cgemm_i8" && !s.integer()) || (s.baseline == "cgemm_lt_f16" && s.integer()))
      rd.fail("/baseline",
              fmt::format("{} needs {} inputs", s.baseline, s.baseline == "cgemm_i8" ? "integer" : "cf16"));
  }
  if (root.contains("tuning")) {
    const Json& t = root["tuning"];
    rd.needObject(t, "/tuning");
    rd.onlyKeys(t, "/tuning",
                {"block_times", "block_beams", "warp_times", "warp_beams", "stages", "min_blocks", "loads", "expand",
                 "mma"});
    if (t.contains("mma")) {
      s.tuning.mma = rd.string(t["mma"], "/tuning/mma");
      if (s.tuning.mma != "auto" && s.tuning.mma != "mma_sync" && s.tuning.mma != "wgmma")
        rd.fail("/tuning/mma",
                fmt::format("'{}' (expected auto: wgmma on sm_90 where the spec allows it, mma_sync, or wgmma)",
                            JsonReader::printable(s.tuning.mma)));
    }
    if (t.contains("expand")) {
      const std::string e = rd.string(t["expand"], "/tuning/expand");
      if (e != "staged" && e != "registers")
        rd.fail("/tuning/expand", fmt::format("'{}' (expected staged: conj / swap of the samples once at staging, or "
                                              "registers: per MMA step)",
                                              JsonReader::printable(e)));
      s.tuning.expand = e == "registers" ? 2 : 1;
    }
    if (t.contains("loads")) {
      const std::string l = rd.string(t["loads"], "/tuning/loads");
      if (l != "wide" && l != "words")
        rd.fail("/tuning/loads", fmt::format("'{}' (expected wide: 16-byte loads where the layout allows, or words)",
                                             JsonReader::printable(l)));
      s.tuning.wordLoads = l == "words";
    }
    // Multiples of 8 (one MMA fragment is 8 samples x 8 beams); the block a whole number of warps (checked by verify
    // too).
    auto mult8 = [&](const char* k, int lo, int hi) {
      if (!t.contains(k)) return 0;
      const long long v = rd.integer(t[k], JsonReader::child("/tuning", k), lo, hi);
      if (v % 8)
        rd.fail(JsonReader::child("/tuning", k),
                fmt::format("{} is not a multiple of 8 (one MMA fragment is 8 samples x 8 beams)", v));
      return static_cast<int>(v);
    };
    s.tuning.blockTimes = mult8("block_times", 8, 512);
    s.tuning.blockBeams = mult8("block_beams", 8, 512);
    s.tuning.warpTimes = mult8("warp_times", 8, 64);
    s.tuning.warpBeams = mult8("warp_beams", 8, 64);
    if (t.contains("stages")) s.tuning.stages = static_cast<int>(rd.integer(t["stages"], "/tuning/stages", 1, 6));
    if (t.contains("min_blocks"))
      s.tuning.minBlocks = static_cast<int>(rd.integer(t["min_blocks"], "/tuning/min_blocks", 1, 4));
    if (s.tuning.blockTimes && s.tuning.warpTimes && s.tuning.blockTimes % s.tuning.warpTimes)
      rd.fail("/tuning/warp_times", fmt::format("block_times {} is not a multiple of warp_times {}",
                                                s.tuning.blockTimes, s.tuning.warpTimes));
    if (s.tuning.blockBeams && s.tuning.warpBeams && s.tuning.blockBeams % s.tuning.warpBeams)
      rd.fail("/tuning/warp_beams", fmt::format("block_beams {} is not a multiple of warp_beams {}",
                                                s.tuning.blockBeams, s.tuning.warpBeams));
  }
  // "mma": "wgmma" is a request the sm_90 kernel must be able to honour (the spec's operands, strides, tuning).
  if (s.tuning.mma == "wgmma")
    if (const auto why = bfWgmmaBlocker(s))
      rd.fail("/tuning/mma", fmt::format("\"wgmma\" cannot take this spec: {}", *why));
  // One block per tile: one batch entry must fit one launch's grid.
  const bool mmaSync = s.tuning.mma != "wgmma";
  const long long blocks = mmaSync ? bfTiling(s, bfMma(s.in.type)).blocksPerBatch : bfWgmmaTiling(s).blocksPerBatch;
  if (blocks > kMaxGridBlocks)
    rd.fail("/samples_per_call", fmt::format("{} channels x {} samples x {} beams take {} blocks per batch entry, more "
                                             "than the {} a launch takes "
                                             "(fewer samples or channels per call)",
                                             s.channels, s.samples, s.beams, blocks, kMaxGridBlocks));
  // Tuning the kernel that runs would not honour, said (--strict makes it an error): the mma.sync kernel keeps at most
  // two stages (3..6 are depths of the sm_90 wgmma ring).
  if (s.tuning.stages > 2 && (s.tuning.mma == "mma_sync" || (s.tuning.mma == "auto" && bfWgmmaBlocker(s))))
    s.warnings.push_back(fmt::format(
        "tuning.stages {} is a depth of the sm_90 wgmma ring; the mma.sync kernel this spec runs ({}) keeps 2 stages",
        s.tuning.stages,
        s.tuning.mma == "mma_sync" ? "\"mma\": \"mma_sync\"" : "wgmma cannot take it: " + *bfWgmmaBlocker(s)));
  return s;
}

BeamformerSpec parseBeamformerSpecText(const std::string& text, const std::string& file) {
  return parseBeamformerSpec(parseJsonText(text, file), file);
}

}  // namespace warpforge
