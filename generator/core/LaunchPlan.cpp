#include "warpforge/launch_plan.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

namespace warpforge {

const char* roleName(BufferRole r) {
  switch (r) {
    case BufferRole::Input: return "input";
    case BufferRole::Output: return "output";
    case BufferRole::Scratch: return "scratch";
    case BufferRole::Table: return "table";
    case BufferRole::Counter: return "counter";
  }
  return "?";
}

PlanArg PlanArg::buffer(std::string buf, std::string cType, std::string param) {
  PlanArg a;
  a.kind = Kind::Buffer;
  a.name = std::move(buf);
  a.cType = std::move(cType);
  a.param = std::move(param);
  return a;
}
PlanArg PlanArg::tensorMap(std::string buf, PlanTensorMap m, std::string param) {
  PlanArg a;
  a.kind = Kind::TensorMap;
  a.name = std::move(buf);
  a.cType = "const __grid_constant__ CUtensorMap";
  a.param = std::move(param);
  a.map = std::move(m);
  return a;
}
PlanArg PlanArg::null(std::string cType, std::string param) {
  PlanArg a;
  a.kind = Kind::Null;
  a.cType = std::move(cType);
  a.param = std::move(param);
  return a;
}
PlanArg PlanArg::literal(long long v, std::string cType, std::string param) {
  PlanArg a;
  a.kind = Kind::Literal;
  a.value = v;
  a.cType = std::move(cType);
  a.param = std::move(param);
  return a;
}
PlanArg PlanArg::batchTimes(long long v, std::string param) {
  PlanArg a;
  a.kind = Kind::BatchTimes;
  a.value = v;
  a.param = std::move(param);
  return a;
}
PlanArg PlanArg::scalar(std::string paramName, std::string cType) {
  PlanArg a;
  a.kind = Kind::Param;
  a.name = paramName;
  a.param = std::move(paramName);
  a.cType = std::move(cType);
  return a;
}

long long GridRule::blocks(long long batch, long long residentBlocks) const {
  const __int128 units = static_cast<__int128>(std::max(0LL, batch)) * unitsPerBatch;
  const __int128 need = (units + unitsPerBlock - 1) / std::max(1LL, unitsPerBlock);
  if (capAtResident)
    return std::clamp(static_cast<long long>(std::min<__int128>(need, std::max(1LL, residentBlocks))), 1LL,
                      kMaxGridBlocks);
  if (need > kMaxGridBlocks)
    throw std::invalid_argument(
        fmt::format("batch {} needs {} blocks, more than the {} a launch takes (at most {} entries per call)", batch,
                    static_cast<long double>(need), kMaxGridBlocks, maxBatch()));
  return std::max(1LL, static_cast<long long>(need));
}

long long GridRule::maxBatch() const {
  if (capAtResident || unitsPerBatch <= 0) return LLONG_MAX;
  const __int128 most = static_cast<__int128>(kMaxGridBlocks) * std::max(1LL, unitsPerBlock) / unitsPerBatch;
  return static_cast<long long>(std::min<__int128>(most, LLONG_MAX));
}

long long LaunchPlan::maxBatch() const {
  long long most = LLONG_MAX;
  for (const auto& k : kernels) most = std::min(most, k.grid.maxBatch());
  return most;
}

const PlanBuffer* LaunchPlan::buffer(const std::string& n) const {
  for (const auto& b : buffers)
    if (b.name == n) return &b;
  return nullptr;
}
const PlanParam* LaunchPlan::param(const std::string& n) const {
  for (const auto& p : params)
    if (p.name == n) return &p;
  return nullptr;
}

long long LaunchPlan::scratchBytes(long long batch) const {
  long long total = 0;
  for (const auto& b : buffers)
    if (b.role == BufferRole::Scratch) total += (b.elements(batch, b.perBatchElems) * b.elementBytes + 255) / 256 * 256;
  return total;
}

long long LaunchPlan::userBytes(long long batch) const {
  long long total = 0;
  for (const auto& b : buffers) {
    if (!b.isUser() || !b.aliasOf.empty()) continue;
    long long per = b.perBatchElems;
    if (!b.perBatchParam.empty())
      if (const PlanParam* p = param(b.perBatchParam)) per = p->defaultValue;
    total += b.elements(batch, per) * b.elementBytes;
  }
  return total;
}

void LaunchPlan::check() const {
  std::set<std::string> names;
  for (const auto& b : buffers) {
    if (!names.insert(b.name).second)
      throw std::logic_error(fmt::format("plan {}: buffer '{}' declared twice", specName, b.name));
    if (!b.perBatchParam.empty() && !param(b.perBatchParam))
      throw std::logic_error(
          fmt::format("plan {}: buffer '{}' sized by unknown parameter '{}'", specName, b.name, b.perBatchParam));
    if (!b.aliasOf.empty() && (!buffer(b.aliasOf) || buffer(b.aliasOf)->role != BufferRole::Input))
      throw std::logic_error(
          fmt::format("plan {}: buffer '{}' aliases '{}', which is not an input", specName, b.name, b.aliasOf));
  }
  for (const auto& k : kernels) {
    if (k.source < 0 || k.source >= static_cast<int>(sources.size()))
      throw std::logic_error(fmt::format("plan {}: kernel '{}' has no source {}", specName, k.name, k.source));
    for (const auto& a : k.args) {
      if (a.kind == PlanArg::Kind::TensorMap) {
        const PlanTensorMap& m = a.map;
        const std::size_t rank = m.dims.size();
        std::string why;
        if (!buffer(a.name)) why = fmt::format("names unknown buffer '{}'", a.name);
        else if (rank < 1 || rank > 5) why = fmt::format("has {} dims (TMA takes 1 to 5)", rank);
        else if (m.strides.size() != rank - 1 || m.box.size() != rank)
          why = fmt::format("has {} strides and {} box extents for {} dims (expected {} and {})", m.strides.size(),
                            m.box.size(), rank, rank - 1, rank);
        else if (m.swizzle != 0 && m.swizzle != 32 && m.swizzle != 64 && m.swizzle != 128)
          why = fmt::format("swizzle {} (expected 0, 32, 64 or 128 bytes)", m.swizzle);
        else if (m.batchDim < -1 || m.batchDim >= static_cast<int>(rank))
          why = fmt::format("batch dimension {} of {} dims", m.batchDim, rank);
        else if (m.box[0] % 16 || (m.swizzle && m.box[0] > m.swizzle))
          why = fmt::format("an inner box of {} bytes (a multiple of 16, at most the {}-byte swizzle)", m.box[0],
                            m.swizzle);
        for (std::size_t i = 0; why.empty() && i < rank; ++i)
          if (m.dims[i] < 1 || m.box[i] < 1 || m.box[i] > 256)
            why = fmt::format("dim {}: extent {}, box {} (each at least 1, a box at most 256)", i, m.dims[i], m.box[i]);
        for (std::size_t i = 0; why.empty() && i < m.strides.size(); ++i)
          if (m.strides[i] <= 0 || m.strides[i] % 16)
            why = fmt::format("stride {} of {} bytes (a positive multiple of 16)", i + 1, m.strides[i]);
        if (!why.empty())
          throw std::logic_error(
              fmt::format("plan {}: kernel '{}' tensor-map argument '{}' {}", specName, k.name, a.param, why));
      }
      if (a.kind == PlanArg::Kind::Buffer && !buffer(a.name))
        throw std::logic_error(fmt::format("plan {}: kernel '{}' argument '{}' names unknown buffer '{}'", specName,
                                           k.name, a.param, a.name));
      if (a.kind == PlanArg::Kind::Param && !param(a.name))
        throw std::logic_error(
            fmt::format("plan {}: kernel '{}' argument names unknown parameter '{}'", specName, k.name, a.name));
    }
    if (k.grid.maxBatch() < 1)
      throw std::invalid_argument(fmt::format(
          "plan {}: kernel '{}' needs {} blocks for one batch entry, more than the {} a launch takes: the spec "
          "asks for too much work per call",
          specName, k.name, (k.grid.unitsPerBatch + k.grid.unitsPerBlock - 1) / std::max(1LL, k.grid.unitsPerBlock),
          kMaxGridBlocks));
  }
}

namespace {

// The table's contents as C initialisers; floating values in the shortest form that reads back exactly.
std::string tableValues(const PlanBuffer& b) {
  std::string out;
  auto sep = [&](std::size_t i) { out += i == 0 ? "\n    " : (i % 8 == 0 ? ",\n    " : ", "); };
  auto literal = [](auto v, const char* suffix) {  // float formats as float: shortest exact form
    std::string t = fmt::format("{}", v);
    if (t.find_first_of(".en") == std::string::npos) t += ".0";
    return t + suffix;
  };
  if (b.scalar == "float") {
    for (std::size_t i = 0; i * 4 < b.contents.size(); ++i) {
      float f;
      std::memcpy(&f, b.contents.data() + 4 * i, 4);
      sep(i);
      out += literal(f, "f");
    }
  } else if (b.scalar == "double") {
    for (std::size_t i = 0; i * 8 < b.contents.size(); ++i) {
      double d;
      std::memcpy(&d, b.contents.data() + 8 * i, 8);
      sep(i);
      out += literal(d, "");
    }
  } else {
    for (std::size_t i = 0; i < b.contents.size(); ++i) {
      sep(i);
      out += fmt::format("{}", static_cast<unsigned>(b.contents[i]));
    }
  }
  return out + "\n  ";
}

std::string tableScalarType(const PlanBuffer& b) {
  return b.scalar == "float" || b.scalar == "double" ? b.scalar : "unsigned char";
}

bool inlined(const PlanBuffer& b) { return b.contents.size() <= kInlineTableBytes; }
std::string tableFileName(const LaunchPlan& p, const PlanBuffer& b) { return p.specName + "_" + b.name + ".bin"; }

}  // namespace

std::vector<PlanFile> launchPlanTableFiles(const LaunchPlan& p) {
  std::vector<PlanFile> files;
  for (const auto& b : p.buffers)
    if (b.role == BufferRole::Table && !inlined(b))
      files.push_back({tableFileName(p, b), std::string(b.contents.begin(), b.contents.end())});
  return files;
}

std::string compileTarget(const KernelSource& source, const std::string& arch) {
  if (source.archSpecific && !arch.empty() && arch.back() != 'a') return arch + "a";
  return arch;
}

std::string launchPlanHeader(const LaunchPlan& p) {
  p.check();
  const std::string ns = "wf_" + p.specName;
  std::string o;
  o += fmt::format("// Generated by warpforge: launch plan of spec '{}' (family {}).\n", p.specName, p.family);
  o += fmt::format("// One batch entry is one {}. Compile the kernel sources with nvcc, include this header\n",
                   p.unitName);
  o += "// in a .cu file, and run the chain without the warpforge library:\n";
  o += fmt::format("//   {0}::State s; {0}::init(&s);\n", ns);
  o += fmt::format(
      "//   {0}::run(s, arrays, batch, workspace, stream);   // workspace: {0}::workspace_bytes(batch) bytes, or "
      "nullptr\n",
      ns);
  o += fmt::format("//   {0}::destroy(&s);\n", ns);
  const bool tableFiles = !launchPlanTableFiles(p).empty();
  if (tableFiles)
    o += "// Large tables are read by init() from files written beside this header (see init's table_dir).\n";
  if (p.onlyArch)
    o += fmt::format(
        "// Needs compute capability {}.{} exactly: its kernels use sm_{}a instructions (compile them with "
        "--gpu-architecture=sm_{}a).\n",
        p.onlyArch / 10, p.onlyArch % 10, p.onlyArch, p.onlyArch);
  o += fmt::format(
      "// Needs compute capability {}.{} or newer.\n#pragma once\n#include <cuda_runtime.h>\n#include "
      "<cuda_fp16.h>\n#include <cstddef>\n{}\n",
      p.minArch / 10, p.minArch % 10, tableFiles ? "#include <cstdio>\n#include <string>\n#include <vector>\n" : "");
  bool tensorMaps = false;
  for (const auto& k : p.kernels)
    for (const auto& a : k.args) tensorMaps = tensorMaps || a.kind == PlanArg::Kind::TensorMap;
  if (tensorMaps) o += "#include <cuda.h>  // cuTensorMapEncodeTiled: link with -lcuda\n";
  for (const auto& h : p.helpers) o += fmt::format("#include \"{}\"\n", h);
  if (!p.helpers.empty()) o += "\n";

  std::set<std::string> declared;
  for (const auto& k : p.kernels) {
    if (!declared.insert(k.name).second) continue;
    std::string params;
    for (const auto& a : k.args) params += fmt::format("{}{} {}", params.empty() ? "" : ", ", a.cType, a.param);
    o += fmt::format("extern \"C\" __global__ void {}({});  // in {}\n", k.name, params, p.sources[k.source].fileName);
  }

  o += fmt::format("\nnamespace {} {{\n\n", ns);
  o += "// Buffers (elements for a batch of B entries = per_batch * B + fixed):\n";
  for (const auto& b : p.buffers) {
    std::string per = b.perBatchParam.empty() ? fmt::format("{}", b.perBatchElems) : b.perBatchParam;
    o += fmt::format("//   {:<16} {:<8} {:<14} per_batch {:<16} fixed {}{}{}{}\n", b.name, roleName(b.role),
                     b.elementType, per, b.fixedElems,
                     b.alignment ? fmt::format(", pointer aligned to {} bytes", b.alignment) : "",
                     b.aliasOf.empty() ? "" : fmt::format(", same memory as {}", b.aliasOf),
                     b.note.empty() ? "" : "; " + b.note);
  }
  for (const auto& b : p.buffers) {
    if (b.role != BufferRole::Table) continue;
    if (!inlined(b)) {
      o += fmt::format(
          "\n// {} ({} {} values, {} bytes){}: not inlined; init() reads it from <table_dir>/{}\nstatic const char "
          "{}_file[] = \"{}\";\n",
          b.name, b.contents.size() / std::max(1, b.elementBytes), b.elementType, b.contents.size(),
          b.note.empty() ? "" : ": " + b.note, tableFileName(p, b), b.name, tableFileName(p, b));
      continue;
    }
    o += fmt::format("\n// {} ({} {} values){}\nstatic const {} {}[] = {{{}}};\n", b.name,
                     b.contents.size() / std::max(1, b.elementBytes), b.elementType,
                     b.note.empty() ? "" : ": " + b.note, tableScalarType(b), b.name, tableValues(b));
  }

  o += "\n// The caller's arrays (device pointers).\nstruct Arrays {\n";
  for (const auto& b : p.buffers)
    if (b.isUser() && b.aliasOf.empty())
      o += fmt::format("  {}void* {} = nullptr;\n", b.role == BufferRole::Input ? "const " : "", b.name);
  o += "};\n\n// Scalars the caller may change.\nstruct Params {\n";
  for (const auto& q : p.params)
    o += fmt::format("  {} {} = {};{}\n", q.cType, q.name, q.defaultValue, q.note.empty() ? "" : "  // " + q.note);
  o += "};\n\n";

  int tables = 0, counters = 0, scratch = 0;
  for (const auto& b : p.buffers) {
    tables += b.role == BufferRole::Table;
    counters += b.role == BufferRole::Counter;
    scratch += b.role == BufferRole::Scratch;
  }
  o += fmt::format("constexpr int kernel_count = {};\n", p.kernels.size());
  o += "\n// Device copies of the tables and counters, and each kernel's resident blocks.\nstruct State {\n";
  for (const auto& b : p.buffers)
    if (b.role == BufferRole::Table || b.role == BufferRole::Counter)
      o += fmt::format("  void* {} = nullptr;\n", b.name);
  o += fmt::format("  int resident_blocks[{}] = {{}};\n}};\n\n", std::max<std::size_t>(1, p.kernels.size()));

  o += "inline size_t workspace_bytes(long long batch) {\n  size_t bytes = 0;\n";
  for (const auto& b : p.buffers)
    if (b.role == BufferRole::Scratch)
      o += fmt::format("  bytes += ((size_t)({}LL * batch + {}LL) * {} + 255) / 256 * 256;  // {}\n", b.perBatchElems,
                       b.fixedElems, b.elementBytes, b.name);
  o += "  (void)batch;\n  return bytes;\n}\n\n";

  if (tableFiles)
    o += "// Copies `bytes` bytes of the file dir/file to `device`; the file must have exactly that size.\n"
         "inline cudaError_t load_table(void* device, const char* dir, const char* file, size_t bytes) {\n"
         "  const std::string path = std::string(dir) + \"/\" + file;\n"
         "  std::FILE* f = std::fopen(path.c_str(), \"rb\");\n"
         "  if (!f) return cudaErrorFileNotFound;\n"
         "  std::vector<unsigned char> host(bytes);\n"
         "  const size_t got = std::fread(host.data(), 1, bytes, f);\n"
         "  const bool longer = std::fgetc(f) != EOF;\n"
         "  std::fclose(f);\n"
         "  if (got != bytes || longer) return cudaErrorInvalidValue;\n"
         "  return cudaMemcpy(device, host.data(), bytes, cudaMemcpyHostToDevice);\n}\n\n";
  o += fmt::format("inline cudaError_t init(State* s{}) {{\n  cudaError_t e = cudaSuccess;\n",
                   tableFiles ? ", const char* table_dir = \".\"" : "");
  for (const auto& b : p.buffers) {
    if (b.role == BufferRole::Table && !inlined(b))
      o += fmt::format(
          "  if ((e = cudaMalloc(&s->{0}, {1})) != cudaSuccess) return e;\n"
          "  if ((e = load_table(s->{0}, table_dir, {0}_file, {1})) != cudaSuccess) return e;\n",
          b.name, b.contents.size());
    else if (b.role == BufferRole::Table)
      o += fmt::format(
          "  if ((e = cudaMalloc(&s->{0}, sizeof({0}))) != cudaSuccess) return e;\n"
          "  if ((e = cudaMemcpy(s->{0}, {0}, sizeof({0}), cudaMemcpyHostToDevice)) != cudaSuccess) return e;\n",
          b.name);
    if (b.role == BufferRole::Counter)
      o += fmt::format(
          "  if ((e = cudaMalloc(&s->{0}, {1})) != cudaSuccess) return e;\n  if ((e = cudaMemset(s->{0}, 0, {1})) != "
          "cudaSuccess) return e;\n",
          b.name, b.fixedElems * b.elementBytes);
  }
  o += "  int device = 0, sms = 0;\n  if ((e = cudaGetDevice(&device)) != cudaSuccess) return e;\n";
  o += "  if ((e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess) return e;\n";
  for (std::size_t i = 0; i < p.kernels.size(); ++i) {
    const auto& k = p.kernels[i];
    // Always opted in: the 48 KiB default counts a kernel's static shared memory too.
    if (k.sharedBytes > 0)
      o += fmt::format(
          "  if ((e = cudaFuncSetAttribute({}, cudaFuncAttributeMaxDynamicSharedMemorySize, {})) != cudaSuccess) "
          "return e;\n",
          k.name, k.sharedBytes);
    o += fmt::format(
        "  if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&s->resident_blocks[{0}], {1}, {2}, {3})) != "
        "cudaSuccess) return e;\n"
        "  s->resident_blocks[{0}] *= sms;\n",
        i, k.name, k.blockX * k.blockY, k.sharedBytes);
  }
  o += "  return e;\n}\n\n";

  o += "inline void destroy(State* s) {\n";
  for (const auto& b : p.buffers)
    if (b.role == BufferRole::Table || b.role == BufferRole::Counter)
      o += fmt::format("  cudaFree(s->{0});\n  s->{0} = nullptr;\n", b.name);
  o += "  (void)s;\n}\n\n";

  // An uncapped kernel runs one block per unit: more blocks than a launch takes give grid 0 (the launch fails
  // with cudaErrorInvalidConfiguration) rather than a launch that skips work; max_batch says the limit.
  const long long maxBatch = p.maxBatch();
  if (maxBatch != LLONG_MAX)
    o += fmt::format("// At most {} batch entries per call: beyond, a kernel would need more than 2^31 - 1 blocks.\n",
                     maxBatch);
  o += fmt::format("constexpr long long max_batch = {}LL;\n\n", maxBatch);
  o += "inline long long grid_blocks(long long units, long long per_block, bool cap, long long resident) {\n"
       "  long long g = (units + per_block - 1) / per_block;\n"
       "  if (cap && g > (resident > 0 ? resident : 1)) g = resident > 0 ? resident : 1;\n"
       "  return g < 1 ? 1 : g > 0x7fffffffLL ? 0 : g;\n}\n\n";

  o += "// Runs every kernel in order on `stream`. `workspace`: workspace_bytes(batch) bytes, or nullptr to allocate "
       "here.\n";
  o += "inline cudaError_t run(const State& s, const Arrays& a, long long batch, void* workspace, cudaStream_t stream, "
       "const Params& p = Params()) {\n";
  o += "  (void)a; (void)p;\n  if (batch < 1 || batch > max_batch) return cudaErrorInvalidValue;\n  cudaError_t e = "
       "cudaSuccess;\n  void* owned = nullptr;\n";
  if (scratch) {
    o += "  if (!workspace) {\n    if ((e = cudaMallocAsync(&owned, workspace_bytes(batch), stream)) != cudaSuccess) "
         "return e;\n    workspace = owned;\n  }\n";
    o += "  char* ws = static_cast<char*>(workspace);\n";
    for (const auto& b : p.buffers)
      if (b.role == BufferRole::Scratch)
        o += fmt::format("  void* {0} = ws;\n  ws += ((size_t)({1}LL * batch + {2}LL) * {3} + 255) / 256 * 256;\n",
                         b.name, b.perBatchElems, b.fixedElems, b.elementBytes);
  } else {
    o += "  (void)workspace;\n";
  }
  auto pointerOf = [&](const std::string& buffer) {
    const PlanBuffer* b = p.buffer(buffer);
    std::string name = b->aliasOf.empty() ? b->name : b->aliasOf;
    std::string src = b->isUser() ? "a." + name : (b->role == BufferRole::Scratch ? name : "s." + name);
    return b->role == BufferRole::Input ? fmt::format("const_cast<void*>({})", src) : src;
  };
  for (std::size_t i = 0; i < p.kernels.size(); ++i) {
    const auto& k = p.kernels[i];
    std::string args;
    for (const auto& a : k.args) {
      std::string v;
      switch (a.kind) {
        case PlanArg::Kind::Buffer: v = fmt::format("({})({})", a.cType, pointerOf(a.name)); break;
        case PlanArg::Kind::TensorMap: {
          // Encoded per call: the base address and the batch are the call's.
          const PlanTensorMap& m = a.map;
          const std::size_t rank = m.dims.size();
          std::string dims, strides, box, steps;
          for (std::size_t d = 0; d < rank; ++d) {
            dims += fmt::format("{}(cuuint64_t){}LL{}", d ? ", " : "", m.dims[d],
                                static_cast<int>(d) == m.batchDim ? " * batch" : "");
            box += fmt::format("{}{}u", d ? ", " : "", m.box[d]);
            steps += d ? ", 1u" : "1u";
            if (d) strides += fmt::format("{}(cuuint64_t){}LL", d > 1 ? ", " : "", m.strides[d - 1]);
          }
          v = fmt::format("{}_k{}", a.param, i);
          o += fmt::format(
              "  CUtensorMap {0};\n  {{\n    const cuuint64_t dims[{1}] = {{{2}}}, strides[{3}] = {{{4}}};\n"
              "    const cuuint32_t box[{1}] = {{{5}}}, steps[{1}] = {{{6}}};\n"
              "    if (cuTensorMapEncodeTiled(&{0}, CU_TENSOR_MAP_DATA_TYPE_UINT8, {1}, {7}, dims, strides, box, "
              "steps, "
              "CU_TENSOR_MAP_INTERLEAVE_NONE, {8}, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, "
              "CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)\n      return cudaErrorInvalidValue;\n  }}\n",
              v, rank, dims, std::max<std::size_t>(1, rank - 1), rank > 1 ? strides : "0", box, steps,
              pointerOf(a.name),
              m.swizzle ? fmt::format("CU_TENSOR_MAP_SWIZZLE_{}B", m.swizzle) : "CU_TENSOR_MAP_SWIZZLE_NONE");
          break;
        }
        case PlanArg::Kind::Null: v = fmt::format("({})nullptr", a.cType); break;
        case PlanArg::Kind::Literal: v = fmt::format("({}){}LL", a.cType, a.value); break;
        case PlanArg::Kind::BatchTimes: v = fmt::format("batch * {}LL", a.value); break;
        case PlanArg::Kind::Param: v = fmt::format("({})p.{}", a.cType, a.name); break;
      }
      args += (args.empty() ? "" : ", ") + v;
    }
    o += fmt::format(
        "  {}<<<(unsigned)grid_blocks(batch * {}LL, {}LL, {}, s.resident_blocks[{}]), dim3({}, {}), {}, "
        "stream>>>({});\n",
        k.name, k.grid.unitsPerBatch, k.grid.unitsPerBlock, k.grid.capAtResident ? "true" : "false", i, k.blockX,
        k.blockY, k.sharedBytes, args);
    o += "  if ((e = cudaGetLastError()) != cudaSuccess) return e;\n";
  }
  if (scratch) o += "  if (owned) e = cudaFreeAsync(owned, stream);\n";
  o += "  return e;\n}\n\n";
  o += fmt::format("}}  // namespace {}\n", ns);
  (void)tables;
  (void)counters;
  return o;
}

}  // namespace warpforge
