// LaunchPlan <-> JSON (include/warpforge/plan_json.h). The reader checks every member's type and range and names the
// JSON pointer of the first bad one; then LaunchPlan::check() ties the names together. No generator, no family.
#include "warpforge/plan_json.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "runtime/Cache.h"
#include "templates/Embedded.h"

namespace warpforge {

namespace fs = std::filesystem;

PlanError::PlanError(std::string file, std::string path, std::string what)
    : std::runtime_error(fmt::format("{}: {}: {}", file, path.empty() ? "/" : path, what)),
      file_(std::move(file)),
      path_(std::move(path)),
      detail_(std::move(what)) {}

namespace {

constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

template <class Bytes>
std::string base64(const Bytes& in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = static_cast<unsigned char>(in[i]) << 16 | static_cast<unsigned char>(in[i + 1]) << 8 |
                       static_cast<unsigned char>(in[i + 2]);
    out += {kB64[v >> 18], kB64[v >> 12 & 63], kB64[v >> 6 & 63], kB64[v & 63]};
  }
  if (i + 1 == in.size()) {
    const unsigned v = static_cast<unsigned char>(in[i]) << 16;
    out += {kB64[v >> 18], kB64[v >> 12 & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    const unsigned v = static_cast<unsigned char>(in[i]) << 16 | static_cast<unsigned char>(in[i + 1]) << 8;
    out += {kB64[v >> 18], kB64[v >> 12 & 63], kB64[v >> 6 & 63], '='};
  }
  return out;
}

// Decoded bytes, or false where the text is not base64.
bool unbase64(const std::string& in, std::string& out) {
  if (in.size() % 4) return false;
  out.clear();
  out.reserve(in.size() / 4 * 3);
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  for (std::size_t i = 0; i < in.size(); i += 4) {
    int v[4];
    for (int k = 0; k < 4; ++k) v[k] = in[i + k] == '=' && i + 4 == in.size() && k >= 2 ? -2 : val(in[i + k]);
    if (v[0] < 0 || v[1] < 0 || v[2] == -1 || v[3] == -1 || (v[2] == -2 && v[3] != -2)) return false;
    out += static_cast<char>(v[0] << 2 | v[1] >> 4);
    if (v[2] >= 0) out += static_cast<char>((v[1] & 15) << 4 | v[2] >> 2);
    if (v[3] >= 0) out += static_cast<char>((v[2] & 3) << 6 | v[3]);
  }
  return true;
}

std::string checksum(const std::string& bytes) { return cacheKey({"warpforge-plan-blob", bytes}); }

// {"base64": ...} or {"file": ...} with the size and checksum; files go to *files when there are files.
Json blobJson(const std::string& bytes, const std::string& fileName, std::vector<PlanFile>* files) {
  Json j = Json::object();
  if (files) {
    j["file"] = fileName;
    files->push_back({fileName, bytes});
  } else {
    j["base64"] = base64(bytes);
  }
  j["bytes"] = bytes.size();
  j["checksum"] = checksum(bytes);
  return j;
}

const char* kindName(PlanArg::Kind k) {
  switch (k) {
    case PlanArg::Kind::Buffer: return "buffer";
    case PlanArg::Kind::Null: return "null";
    case PlanArg::Kind::Literal: return "literal";
    case PlanArg::Kind::BatchTimes: return "batch_times";
    case PlanArg::Kind::Param: return "param";
    case PlanArg::Kind::TensorMap: return "tensor_map";
  }
  return "?";
}

// Names and types the header writes as C: an identifier (letters, digits, '_', not starting with a digit), and a
// type's spelling (identifiers between single spaces, a trailing '*' for pointers), never other text.
bool isIdentifier(std::string_view v) {
  return !v.empty() && !std::isdigit(static_cast<unsigned char>(v[0])) && std::all_of(v.begin(), v.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool isCTypeSpelling(std::string_view t, bool pointerAllowed) {
  if (pointerAllowed && !t.empty() && t.back() == '*') t.remove_suffix(1);
  if (t.empty() || t.size() > 64) return false;
  for (std::size_t start = 0;;) {
    const std::size_t end = t.find(' ', start);
    if (!isIdentifier(t.substr(start, end == std::string_view::npos ? end : end - start))) return false;
    if (end == std::string_view::npos) return true;
    start = end + 1;
  }
}

bool isArchName(const std::string& a) {
  if (a.size() < 5 || a.size() > 7 || a.compare(0, 3, "sm_") != 0) return false;
  std::size_t i = 3;
  while (i < a.size() && std::isdigit(static_cast<unsigned char>(a[i]))) ++i;
  return i >= 5 && (i == a.size() || (i + 1 == a.size() && std::islower(static_cast<unsigned char>(a[i]))));
}

// Reads members with their JSON pointers; every error is a PlanError naming the file and the pointer.
class Reader {
 public:
  Reader(std::string file, std::string dir) : file_(std::move(file)), dir_(std::move(dir)) {}
  [[noreturn]] void fail(const std::string& path, const std::string& what) const { throw PlanError(file_, path, what); }

  const Json& need(const Json& obj, const std::string& path, const char* key) const {
    if (!obj.is_object()) fail(path, fmt::format("expected an object, found {}", obj.type_name()));
    auto it = obj.find(key);
    if (it == obj.end()) fail(path + "/" + key, "required member is missing");
    return *it;
  }
  const Json* opt(const Json& obj, const char* key) const {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }
  std::string str(const Json& obj, const std::string& path, const char* key, const char* fallback = nullptr) const {
    const Json* v = fallback ? opt(obj, key) : &need(obj, path, key);
    if (!v) return fallback;
    if (!v->is_string()) fail(path + "/" + key, fmt::format("expected a string, found {}", v->type_name()));
    return v->get<std::string>();
  }
  long long integer(const Json& obj, const std::string& path, const char* key, long long lo, long long hi,
                    const long long* fallback = nullptr) const {
    const Json* v = fallback ? opt(obj, key) : &need(obj, path, key);
    if (!v) return *fallback;
    if (!v->is_number_integer()) fail(path + "/" + key, fmt::format("expected an integer, found {}", v->type_name()));
    const long long x = v->get<long long>();
    if (x < lo || x > hi) fail(path + "/" + key, fmt::format("{} is out of range (expected {} to {})", x, lo, hi));
    return x;
  }
  bool boolean(const Json& obj, const std::string& path, const char* key, bool fallback) const {
    const Json* v = opt(obj, key);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(path + "/" + key, fmt::format("expected true or false, found {}", v->type_name()));
    return v->get<bool>();
  }
  const Json& array(const Json& obj, const std::string& path, const char* key) const {
    const Json& v = need(obj, path, key);
    if (!v.is_array()) fail(path + "/" + key, fmt::format("expected an array, found {}", v.type_name()));
    return v;
  }
  // A blob's bytes: inline base64 or a file beside the plan, checked against its size and checksum.
  std::string blob(const Json& j, const std::string& path) const {
    if (!j.is_object())
      fail(path, fmt::format("expected an object with \"base64\" or \"file\", found {}", j.type_name()));
    const long long bytes = integer(j, path, "bytes", 0, 1LL << 40);
    std::string data;
    if (const Json* b = opt(j, "base64")) {
      if (!b->is_string() || !unbase64(b->get<std::string>(), data)) fail(path + "/base64", "expected base64 text");
    } else if (const Json* f = opt(j, "file")) {
      if (!f->is_string()) fail(path + "/file", "expected a file name");
      const std::string name = f->get<std::string>();
      if (name.empty() || fs::path(name).is_absolute() || name.find("..") != std::string::npos)
        fail(path + "/file", fmt::format("'{}': expected a file name relative to the plan's directory", name));
      const fs::path p = fs::path(dir_) / name;
      std::ifstream in(p, std::ios::binary);
      if (!in) fail(path + "/file", fmt::format("cannot read {}", p.string()));
      data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } else {
      fail(path, "expected \"base64\" or \"file\"");
    }
    if (static_cast<long long>(data.size()) != bytes)
      fail(path, fmt::format("{} bytes where the plan says {}", data.size(), bytes));
    if (str(j, path, "checksum") != checksum(data))
      fail(path + "/checksum", "the contents do not match their checksum (a damaged or edited file)");
    return data;
  }

 private:
  std::string file_, dir_;
};

BufferRole roleFrom(const Reader& rd, const std::string& s, const std::string& path) {
  for (BufferRole r :
       {BufferRole::Input, BufferRole::Output, BufferRole::Scratch, BufferRole::Table, BufferRole::Counter})
    if (s == roleName(r)) return r;
  rd.fail(path, fmt::format("unknown role '{}' (expected input, output, scratch, table or counter)", s));
}

PlanArg::Kind kindFrom(const Reader& rd, const std::string& s, const std::string& path) {
  for (PlanArg::Kind k : {PlanArg::Kind::Buffer, PlanArg::Kind::Null, PlanArg::Kind::Literal, PlanArg::Kind::BatchTimes,
                          PlanArg::Kind::Param, PlanArg::Kind::TensorMap})
    if (s == kindName(k)) return k;
  rd.fail(path,
          fmt::format("unknown argument kind '{}' (expected buffer, null, literal, batch_times, param or tensor_map)",
                      s));
}

std::string stem(const std::string& fileName) {
  const auto dot = fileName.rfind('.');
  return dot == std::string::npos ? fileName : fileName.substr(0, dot);
}

}  // namespace

Json planToJson(const LaunchPlan& plan, const PlanJsonInfo& info, std::vector<PlanFile>* files) {
  Json j = Json::object();
  j["format"] = kPlanFormat;
  j["generator"] = info.generator;
  j["made_for"] = info.madeFor;
  j["spec_name"] = plan.specName;
  j["family"] = plan.family;
  j["unit"] = plan.unitName;
  j["min_arch"] = plan.minArch;
  j["only_arch"] = plan.onlyArch;
  Json helpers = Json::array();
  for (const auto& h : plan.helpers) {
    Json e = {{"name", h}};
    for (const auto& f : embeddedTemplates())
      if (h == f.name) e["text"] = f.text;
    helpers.push_back(e);
  }
  j["helpers"] = helpers;
  Json sources = Json::array();
  for (const auto& s : plan.sources) {
    Json e = {{"file", s.fileName}, {"arch_specific", s.archSpecific}, {"text", s.text}};
    if (!s.cubins.empty()) {
      Json c = Json::object();
      for (const auto& [arch, bytes] : s.cubins)
        c[arch] = blobJson(std::string(bytes.begin(), bytes.end()), fmt::format("{}.{}.cubin", stem(s.fileName), arch),
                           files);
      e["cubins"] = c;
    }
    sources.push_back(e);
  }
  j["sources"] = sources;
  Json buffers = Json::array();
  for (const auto& b : plan.buffers) {
    Json e = {{"name", b.name},
              {"role", roleName(b.role)},
              {"element_type", b.elementType},
              {"element_bytes", b.elementBytes},
              {"per_batch_elems", b.perBatchElems},
              {"fixed_elems", b.fixedElems},
              {"per_batch_param", b.perBatchParam},
              {"alignment", b.alignment},
              {"alias_of", b.aliasOf},
              {"max_batch", b.maxBatch},
              {"scalar", b.scalar}};
    if (b.role == BufferRole::Table) {
      const std::string bytes(b.contents.begin(), b.contents.end());
      const bool external = files && bytes.size() > kInlineTableBytes;
      e["contents"] = blobJson(bytes, fmt::format("{}_{}.bin", plan.specName, b.name), external ? files : nullptr);
    }
    e["note"] = b.note;
    buffers.push_back(e);
  }
  j["buffers"] = buffers;
  Json params = Json::array();
  for (const auto& p : plan.params)
    params.push_back({{"name", p.name},
                      {"c_type", p.cType},
                      {"default", p.defaultValue},
                      {"min", p.minValue},
                      {"multiple_of", p.multipleOf},
                      {"note", p.note}});
  j["params"] = params;
  Json kernels = Json::array();
  for (const auto& k : plan.kernels) {
    Json args = Json::array();
    for (const auto& a : k.args) {
      args.push_back(
          {{"kind", kindName(a.kind)}, {"name", a.name}, {"value", a.value}, {"c_type", a.cType}, {"param", a.param}});
      if (a.kind == PlanArg::Kind::TensorMap)
        args.back()["tensor_map"] = {{"dims", a.map.dims},
                                     {"strides", a.map.strides},
                                     {"box", a.map.box},
                                     {"swizzle", a.map.swizzle},
                                     {"batch_dim", a.map.batchDim}};
    }
    kernels.push_back({{"name", k.name},
                       {"source", k.source},
                       {"block", {k.blockX, k.blockY}},
                       {"shared_bytes", k.sharedBytes},
                       {"grid",
                        {{"units_per_batch", k.grid.unitsPerBatch},
                         {"units_per_block", k.grid.unitsPerBlock},
                         {"cap_at_resident", k.grid.capAtResident}}},
                       {"args", args},
                       {"note", k.note}});
  }
  j["kernels"] = kernels;
  return j;
}

LaunchPlan planFromJson(const Json& j, const std::string& file, const std::string& dir, PlanJsonInfo* info) {
  Reader rd(file, dir);
  if (!j.is_object()) rd.fail("", fmt::format("expected a plan object, found {}", j.type_name()));
  const std::string format = rd.str(j, "", "format");
  if (format != kPlanFormat)
    rd.fail("/format", fmt::format("'{}' is not a plan format this runtime reads (expected {})", format, kPlanFormat));
  const std::string madeFor = rd.str(j, "", "made_for", "");
  if (!madeFor.empty() && !isArchName(madeFor))
    rd.fail("/made_for", fmt::format("'{}' is not an arch name (expected e.g. \"sm_90\")", madeFor));
  if (info) {
    info->format = format;
    info->generator = rd.str(j, "", "generator", "");
    info->madeFor = madeFor;
  }
  constexpr long long kMaxElems = 1LL << 50;
  LaunchPlan p;
  p.specName = rd.str(j, "", "spec_name");
  // The name becomes identifiers of the header and the plan's file name: a C identifier, as a spec's name is.
  if (!isIdentifier(p.specName))
    rd.fail("/spec_name",
            "expected a C identifier (letters, digits, '_', not starting with a digit), as the spec's name");
  p.family = rd.str(j, "", "family", "");
  p.unitName = rd.str(j, "", "unit", "item");
  const long long zero = 0;
  p.minArch = static_cast<int>(rd.integer(j, "", "min_arch", 0, 1000));
  p.onlyArch = static_cast<int>(rd.integer(j, "", "only_arch", 0, 1000, &zero));

  const Json& helpers = rd.array(j, "", "helpers");
  for (std::size_t i = 0; i < helpers.size(); ++i) {
    const std::string path = fmt::format("/helpers/{}", i);
    const std::string name = rd.str(helpers[i], path, "name");
    const EmbeddedFile* mine = nullptr;
    for (const auto& f : embeddedTemplates())
      if (name == f.name) mine = &f;
    if (!mine) rd.fail(path + "/name", fmt::format("helper header '{}' is not one this runtime has", name));
    if (const Json* t = rd.opt(helpers[i], "text"); t && (!t->is_string() || t->get<std::string>() != mine->text))
      rd.fail(path + "/text", fmt::format("the plan's {} differs from this runtime's (made by another warpforge "
                                          "version): emit the plan again with this version",
                                          name));
    p.helpers.push_back(name);
  }

  const Json& sources = rd.array(j, "", "sources");
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const std::string path = fmt::format("/sources/{}", i);
    KernelSource s;
    s.fileName = rd.str(sources[i], path, "file");
    s.text = rd.str(sources[i], path, "text");
    s.archSpecific = rd.boolean(sources[i], path, "arch_specific", false);
    if (const Json* c = rd.opt(sources[i], "cubins")) {
      if (!c->is_object())
        rd.fail(path + "/cubins", fmt::format("expected an object of arch -> CUBIN, found {}", c->type_name()));
      for (auto it = c->begin(); it != c->end(); ++it) {
        const std::string bytes = rd.blob(it.value(), path + "/cubins/" + it.key());
        s.cubins[it.key()] = std::vector<char>(bytes.begin(), bytes.end());
      }
    }
    p.sources.push_back(std::move(s));
  }

  const Json& buffers = rd.array(j, "", "buffers");
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const std::string path = fmt::format("/buffers/{}", i);
    const Json& e = buffers[i];
    PlanBuffer b;
    b.name = rd.str(e, path, "name");
    b.role = roleFrom(rd, rd.str(e, path, "role"), path + "/role");
    b.elementType = rd.str(e, path, "element_type");
    if (!isCTypeSpelling(b.elementType, false))
      rd.fail(path + "/element_type", fmt::format("'{}' is not a C type (expected e.g. \"float2\")", b.elementType));
    b.elementBytes = static_cast<int>(rd.integer(e, path, "element_bytes", 1, 256));
    b.perBatchElems = rd.integer(e, path, "per_batch_elems", 0, kMaxElems);
    b.fixedElems = rd.integer(e, path, "fixed_elems", 0, kMaxElems);
    b.perBatchParam = rd.str(e, path, "per_batch_param", "");
    b.alignment = static_cast<int>(rd.integer(e, path, "alignment", 0, 4096, &zero));
    if (b.alignment & (b.alignment - 1))
      rd.fail(path + "/alignment", fmt::format("{} is not a power of two", b.alignment));
    b.aliasOf = rd.str(e, path, "alias_of", "");
    const long long any = -1;
    b.maxBatch = rd.integer(e, path, "max_batch", -1, kMaxElems, &any);
    b.scalar = rd.str(e, path, "scalar", "");
    b.note = rd.str(e, path, "note", "");
    if (b.role == BufferRole::Table) {
      const std::string bytes = rd.blob(rd.need(e, path, "contents"), path + "/contents");
      b.contents.assign(bytes.begin(), bytes.end());
    }
    if (b.perBatchElems == 0 && b.fixedElems == 0 && b.perBatchParam.empty())
      rd.fail(path + "/per_batch_elems",
              "the buffer has no elements (per_batch_elems, fixed_elems and "
              "per_batch_param all absent or 0)");
    if (b.role == BufferRole::Counter && b.fixedElems * b.elementBytes <= 0)
      rd.fail(path + "/fixed_elems", "a counter needs at least one element");
    p.buffers.push_back(std::move(b));
  }

  const Json& params = rd.array(j, "", "params");
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string path = fmt::format("/params/{}", i);
    PlanParam q;
    q.name = rd.str(params[i], path, "name");
    q.cType = rd.str(params[i], path, "c_type");
    if (q.cType != "long long" && q.cType != "int")
      rd.fail(path + "/c_type", fmt::format("'{}' (expected \"long long\" or \"int\")", q.cType));
    q.defaultValue = rd.integer(params[i], path, "default", LLONG_MIN, LLONG_MAX);
    q.minValue = rd.integer(params[i], path, "min", LLONG_MIN, LLONG_MAX);
    if (q.defaultValue < q.minValue)
      rd.fail(path + "/default", fmt::format("{} is below the parameter's min {}", q.defaultValue, q.minValue));
    q.multipleOf = rd.integer(params[i], path, "multiple_of", 1, LLONG_MAX);
    q.note = rd.str(params[i], path, "note", "");
    p.params.push_back(std::move(q));
  }

  const Json& kernels = rd.array(j, "", "kernels");
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const std::string path = fmt::format("/kernels/{}", i);
    const Json& e = kernels[i];
    PlanKernel k;
    k.name = rd.str(e, path, "name");
    k.source = static_cast<int>(rd.integer(e, path, "source", 0, static_cast<long long>(p.sources.size()) - 1));
    const Json& block = rd.need(e, path, "block");
    if (!block.is_array() || block.size() != 2 || !block[0].is_number_integer() || !block[1].is_number_integer())
      rd.fail(path + "/block", "expected [x, y] threads");
    k.blockX = block[0].get<int>();
    k.blockY = block[1].get<int>();
    if (k.blockX < 1 || k.blockY < 1 || 1LL * k.blockX * k.blockY > 1024)
      rd.fail(path + "/block", "expected 1 to 1024 threads per block");
    k.sharedBytes = static_cast<int>(rd.integer(e, path, "shared_bytes", 0, 1 << 20));
    const Json& g = rd.need(e, path, "grid");
    k.grid.unitsPerBatch = rd.integer(g, path + "/grid", "units_per_batch", 1, kMaxElems);
    k.grid.unitsPerBlock = rd.integer(g, path + "/grid", "units_per_block", 1, kMaxElems);
    k.grid.capAtResident = rd.boolean(g, path + "/grid", "cap_at_resident", true);
    const Json& args = rd.array(e, path, "args");
    for (std::size_t a = 0; a < args.size(); ++a) {
      const std::string ap = fmt::format("{}/args/{}", path, a);
      PlanArg arg;
      arg.kind = kindFrom(rd, rd.str(args[a], ap, "kind"), ap + "/kind");
      arg.name = rd.str(args[a], ap, "name", "");
      arg.value = rd.integer(args[a], ap, "value", LLONG_MIN, LLONG_MAX, &zero);
      arg.cType = rd.str(args[a], ap, "c_type");
      if (!isCTypeSpelling(arg.cType, true))
        rd.fail(ap + "/c_type", fmt::format("'{}' is not a C type (expected e.g. \"const float2*\")", arg.cType));
      arg.param = rd.str(args[a], ap, "param", "");
      if (arg.kind == PlanArg::Kind::TensorMap) {
        const Json& m = rd.need(args[a], ap, "tensor_map");
        const std::string mp = ap + "/tensor_map";
        // Each member at its own path: integers only (TMA's limits are check()'s, below).
        auto ints = [&](const char* key, long long lo, long long hi) {
          std::vector<long long> v;
          const Json& arr = rd.array(m, mp, key);
          for (std::size_t i = 0; i < arr.size(); ++i) {
            if (!arr[i].is_number_integer() || arr[i].get<long long>() < lo || arr[i].get<long long>() > hi)
              rd.fail(fmt::format("{}/{}/{}", mp, key, i), fmt::format("expected an integer in {}..{}", lo, hi));
            v.push_back(arr[i].get<long long>());
          }
          return v;
        };
        arg.map.dims = ints("dims", 1, 1LL << 40);
        arg.map.strides = ints("strides", 1, 1LL << 40);
        for (long long b : ints("box", 1, 256)) arg.map.box.push_back(static_cast<int>(b));
        arg.map.swizzle = static_cast<int>(rd.integer(m, mp, "swizzle", 0, 128));
        arg.map.batchDim = static_cast<int>(rd.integer(m, mp, "batch_dim", -1, 4));
      }
      k.args.push_back(std::move(arg));
    }
    k.note = rd.str(e, path, "note", "");
    p.kernels.push_back(std::move(k));
  }
  try {
    p.check();
  } catch (const std::logic_error& e) {
    rd.fail("", e.what());
  }
  return p;
}

LaunchPlan loadPlanJson(const std::string& path, PlanJsonInfo* info) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw PlanError(path, "", "cannot open the plan file");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Json j = Json::parse(text, nullptr, false);
  if (j.is_discarded()) throw PlanError(path, "", "not JSON (a damaged or truncated plan file?)");
  const fs::path dir = fs::path(path).parent_path();
  return planFromJson(j, path, dir.empty() ? "." : dir.string(), info);
}

std::string savePlanJson(const LaunchPlan& plan, const std::string& dir, const PlanJsonInfo& info) {
  std::vector<PlanFile> files;
  const Json j = planToJson(plan, info, &files);
  auto write = [](const fs::path& p, const std::string& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(fmt::format("cannot open {} for writing", p.string()));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) throw std::runtime_error(fmt::format("writing {} failed (disk full or read-only?)", p.string()));
  };
  for (const auto& f : files) write(fs::path(dir) / f.fileName, f.bytes);
  const fs::path p = fs::path(dir) / (plan.specName + "_plan.json");
  write(p, j.dump(1) + "\n");
  return p.string();
}

}  // namespace warpforge
