// The `warpforge` Python module (its compiled part, warpforge._warpforge): specs from files or dicts, verify, emit,
// plans as dicts, and an Executor that runs a plan on arrays of any library that exposes __cuda_array_interface__
// or DLPack (CuPy, PyTorch, Numba, JAX) on the caller's stream. python/warpforge/__init__.py re-exports it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "warpforge/cached_emit.h"
#include "warpforge/compiler.h"
#include "warpforge/device.h"
#include "warpforge/executor.h"
#include "warpforge/family.h"
#include "warpforge/plan_json.h"
#include "warpforge/wisdom.h"

namespace py = pybind11;
using namespace warpforge;

namespace {

// JSON <-> Python objects through the json module: exact for every JSON value, and specs and plans are small.
py::object toPython(const Json& j) { return py::module_::import("json").attr("loads")(j.dump()); }
Json fromPython(const py::handle& o, const std::string& what) {
  std::string text;
  try {
    text = py::module_::import("json").attr("dumps")(o).cast<std::string>();
  } catch (const py::error_already_set& e) {
    throw py::type_error(
        what + ": expected JSON-serialisable data (dict, list, str, int, float, bool, None): " + std::string(e.what()));
  }
  return parseJsonText(text, what);
}

// An arch the caller names must be one the generator targets (as the CLI's --arch); device 0's is taken as it is.
std::string archOf(const std::optional<std::string>& arch) {
  const std::vector<std::string>& archs = targetArchs();
  if (arch && std::find(archs.begin(), archs.end(), *arch) == archs.end())
    throw py::value_error(fmt::format("arch '{}': expected one of {}", *arch, fmt::join(archs, ", ")));
  if (arch) return *arch;
  if (deviceAvailable()) return deviceInfo(0).arch;
  return "sm_90";
}

// A parsed spec with the JSON it came from (for the plan cache's key).
struct PySpec {
  std::shared_ptr<FamilySpec> spec;
  Json json;
  std::string file;
};

PySpec specFrom(const py::object& source, const std::optional<std::string>& file) {
  if (py::isinstance<py::str>(source) && !file) {  // a path
    const std::string path = source.cast<std::string>();
    Json j = parseJsonText(readSpecFileText(path), path);
    return {std::shared_ptr<FamilySpec>(parseSpec(j, path)), j, path};
  }
  if (py::isinstance<py::str>(source)) {  // JSON text with a name for messages
    Json j = parseJsonText(source.cast<std::string>(), *file);
    return {std::shared_ptr<FamilySpec>(parseSpec(j, *file)), j, *file};
  }
  const std::string name = file.value_or("<dict>");
  Json j = fromPython(source, name);
  return {std::shared_ptr<FamilySpec>(parseSpec(j, name)), j, name};
}

py::dict verifyDict(const VerifyReport& r) {
  py::dict d;
  d["text"] = r.text;
  d["counts"] = toPython(r.counts);
  d["warnings"] = r.warnings;
  return d;
}

py::dict checkDict(const Check& c) {
  py::dict d;
  d["ok"] = c.ok();
  d["checked"] = c.checked;
  d["unwritten"] = c.unwritten;
  d["error"] = c.error;
  d["bound"] = c.bound;
  d["exact"] = c.exact;
  d["detail"] = c.detail;
  return d;
}

std::vector<unsigned char> bytesOf(const py::handle& o, const std::string& name) {
  py::buffer_info info;
  try {
    info = py::reinterpret_borrow<py::buffer>(o).request();
  } catch (const std::exception&) {
    throw py::type_error(
        fmt::format("output '{}': expected a host buffer (numpy array, bytes); copy device arrays to the host first",
                    name));
  }
  std::size_t n = static_cast<std::size_t>(info.size) * static_cast<std::size_t>(info.itemsize);
  bool contiguous = true;
  py::ssize_t expect = info.itemsize;
  for (int d = static_cast<int>(info.ndim) - 1; d >= 0; --d) {
    if (info.shape[d] > 1 && info.strides[d] != expect) contiguous = false;
    expect *= info.shape[d];
  }
  if (!contiguous) throw py::value_error(fmt::format("output '{}': expected a C-contiguous buffer", name));
  const auto* p = static_cast<const unsigned char*>(info.ptr);
  return std::vector<unsigned char>(p, p + n);
}

// ---- device arrays: __cuda_array_interface__ (v2/v3) or DLPack ----

// DLPack's ABI (dlpack.h v0.x, stable): the parts read here.
struct DLDevice {
  int device_type, device_id;
};
struct DLDataType {
  std::uint8_t code, bits;
  std::uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;
  std::uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
constexpr int kDLCUDA = 2, kDLCUDAManaged = 13;

struct DeviceArray {
  CUdeviceptr ptr = 0;
  long long bytes = -1;  // -1: unknown (a raw pointer)
  bool readonly = false;
};

long long cStridesBytes(const std::vector<long long>& shape, const std::vector<long long>& strides, long long item,
                        const std::string& name) {
  long long expect = item, total = item;
  for (long long s : shape) total *= s;
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    if (shape[d] > 1 && strides[d] != expect)
      throw py::value_error(
          fmt::format("array '{}': expected a C-contiguous array (strides {} where {} was expected on axis {})", name,
                      strides[d], expect, d));
    expect *= shape[d];
  }
  return total;
}

DeviceArray deviceArray(const py::handle& obj, const std::string& name, std::vector<py::object>& keep) {
  DeviceArray a;
  if (py::isinstance<py::int_>(obj)) {  // a raw device pointer: the caller vouches for its size
    a.ptr = obj.cast<CUdeviceptr>();
    return a;
  }
  if (py::hasattr(obj, "__cuda_array_interface__")) {
    py::dict cai = obj.attr("__cuda_array_interface__");
    py::tuple data = cai["data"];
    a.ptr = data[0].cast<CUdeviceptr>();
    a.readonly = data[1].cast<bool>();
    std::vector<long long> shape = cai["shape"].cast<std::vector<long long>>();
    const std::string typestr = cai["typestr"].cast<std::string>();
    const long long item = typestr.size() > 2 ? std::stoll(typestr.substr(2)) : 1;
    std::vector<long long> strides;
    if (cai.contains("strides") && !cai["strides"].is_none()) strides = cai["strides"].cast<std::vector<long long>>();
    else {
      strides.assign(shape.size(), 0);
      long long s = item;
      for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) strides[d] = s, s *= shape[d];
    }
    a.bytes = cStridesBytes(shape, strides, item, name);
    keep.push_back(py::reinterpret_borrow<py::object>(obj));
    return a;
  }
  if (py::hasattr(obj, "__dlpack__")) {
    py::object cap = obj.attr("__dlpack__")();
    auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap.ptr(), "dltensor"));
    if (!t) throw py::error_already_set();
    const DLTensor& d = t->dl_tensor;
    if (d.device.device_type != kDLCUDA && d.device.device_type != kDLCUDAManaged)
      throw py::value_error(
          fmt::format("array '{}': DLPack device type {} is not CUDA memory", name, d.device.device_type));
    std::vector<long long> shape(d.shape, d.shape + d.ndim), strides;
    const long long item = (d.dtype.bits * d.dtype.lanes + 7) / 8;
    if (d.strides)
      for (int k = 0; k < d.ndim; ++k) strides.push_back(d.strides[k] * item);  // DLPack strides count elements
    else {
      strides.assign(shape.size(), 0);
      long long s = item;
      for (int k = d.ndim - 1; k >= 0; --k) strides[k] = s, s *= shape[k];
    }
    a.bytes = cStridesBytes(shape, strides, item, name);
    a.ptr = reinterpret_cast<CUdeviceptr>(d.data) + d.byte_offset;
    keep.push_back(cap);  // an unconsumed capsule calls the producer's deleter when released, after the run
    return a;
  }
  throw py::type_error(
      fmt::format("array '{}': expected an object with __cuda_array_interface__ or __dlpack__ (CuPy, PyTorch, Numba), "
                  "or a device pointer as int; got {}",
                  name, py::str(py::type::of(obj)).cast<std::string>()));
}

CUstream streamOf(const py::handle& s) {
  if (s.is_none()) return nullptr;
  if (py::isinstance<py::int_>(s)) return reinterpret_cast<CUstream>(s.cast<std::uintptr_t>());
  if (py::hasattr(s, "__cuda_stream__")) {  // the CUDA stream protocol: (version, pointer)
    py::tuple t = s.attr("__cuda_stream__")();
    return reinterpret_cast<CUstream>(t[1].cast<std::uintptr_t>());
  }
  if (py::hasattr(s, "cuda_stream"))
    return reinterpret_cast<CUstream>(s.attr("cuda_stream").cast<std::uintptr_t>());  // torch.cuda.Stream
  if (py::hasattr(s, "ptr"))
    return reinterpret_cast<CUstream>(s.attr("ptr").cast<std::uintptr_t>());  // cupy.cuda.Stream
  throw py::type_error(
      "stream: expected None, an int (CUstream), or a CuPy / PyTorch stream (or any object with __cuda_stream__)");
}

Compiler& sharedCompiler() {
  static Compiler compiler;
  return compiler;
}

LaunchPlan planFrom(const py::object& plan) {
  if (py::isinstance<LaunchPlan>(plan)) return plan.cast<LaunchPlan>();
  if (py::isinstance<py::str>(plan)) return loadPlanJson(plan.cast<std::string>());
  return planFromJson(fromPython(plan, "<plan dict>"), "<plan dict>", ".");
}

class PyExecutor {
 public:
  PyExecutor(const py::object& plan, std::optional<int> device) {
    LaunchPlan p = planFrom(plan);
    ExecutorOptions o;
    if (device) {  // that device's primary context (the one CuPy and PyTorch use), whatever is current
      o.device = *device;
      o.useCurrentContext = false;
    }
    py::gil_scoped_release release;
    exec_ = std::make_unique<Executor>(sharedCompiler(), std::move(p), o);
  }

  void run(const py::dict& arrays, long long batch, const py::object& stream, const py::object& workspace,
           const std::map<std::string, long long>& params) {
    ArrayBindings bind;
    std::vector<py::object> keep;
    for (auto [k, v] : arrays) {
      const std::string name = k.cast<std::string>();
      const PlanBuffer* b = exec_->plan().buffer(name);
      if (!b || !b->isUser() || !b->aliasOf.empty()) continue;  // Executor::run names the unknown array
      DeviceArray a = deviceArray(v, name, keep);
      const long long need = exec_->arrayBytes(name, batch, params);
      if (a.bytes >= 0 && a.bytes < need)
        throw py::value_error(fmt::format("array '{}' holds {} bytes; batch {} needs {}", name, a.bytes, batch, need));
      if (a.readonly && b->role == BufferRole::Output)
        throw py::value_error(fmt::format("array '{}' is read-only but the plan writes it", name));
      checkDevice(a.ptr, name);
      bind[name] = a.ptr;
    }
    for (auto [k, v] : arrays)  // names the plan does not have: Executor::run's error names them
      if (!bind.count(k.cast<std::string>())) bind[k.cast<std::string>()] = 0;
    CUdeviceptr ws = 0;
    long long wsBytes = -1;
    if (!workspace.is_none()) {
      DeviceArray w = deviceArray(workspace, "workspace", keep);
      ws = w.ptr;
      wsBytes = w.bytes;
    }
    const CUstream s = streamOf(stream);
    py::gil_scoped_release release;
    exec_->run(bind, batch, s, ws, wsBytes, params);
  }

  const Executor& exec() const { return *exec_; }

 private:
  // An array on another device would be read through the wrong context: refused with its name.
  void checkDevice(CUdeviceptr p, const std::string& name) const {
    int ordinal = -1;
    if (pointerDevice(p, &ordinal) && ordinal >= 0 && ordinal != static_cast<int>(exec_->device().device))
      throw py::value_error(
          fmt::format("array '{}' is on device {}, the executor on device {}: one executor per device", name, ordinal,
                      static_cast<int>(exec_->device().device)));
  }
  std::unique_ptr<Executor> exec_;
};

}  // namespace

PYBIND11_MODULE(_warpforge, m) {
  m.doc() = "warpforge: specialised CUDA kernels (FFTs, correlators, beamformers, gridders) from JSON specs";

  // Exceptions carry what the C++ ones carry: file and JSON path (SpecError, PlanError), the issues
  // (InconsistentSpec), the NVRTC log (CompileError).
  static py::exception<SpecError> specError(m, "SpecError", PyExc_ValueError);
  static py::exception<InconsistentSpec> inconsistent(m, "InconsistentSpec", PyExc_ValueError);
  static py::exception<PlanError> planError(m, "PlanError", PyExc_ValueError);
  static py::exception<CompileError> compileError(m, "CompileError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    auto raise = [](const py::handle& type, const char* what,
                    const std::vector<std::pair<const char*, py::object>>& attrs) {
      py::object e = py::reinterpret_borrow<py::object>(type)(what);
      for (const auto& [k, v] : attrs) e.attr(k) = v;
      PyErr_SetObject(type.ptr(), e.ptr());
    };
    try {
      if (p) std::rethrow_exception(p);
    } catch (const SpecError& e) {
      raise(specError, e.what(),
            {{"file", py::str(e.file())}, {"path", py::str(e.path())}, {"detail", py::str(e.detail())}});
    } catch (const InconsistentSpec& e) {
      py::list issues;
      for (const auto& i : e.issues()) issues.append(py::make_tuple(i.path, i.message));
      raise(inconsistent, e.what(),
            {{"issues", issues}, {"path", py::str(e.issues().empty() ? "" : e.issues()[0].path)}});
    } catch (const PlanError& e) {
      raise(planError, e.what(),
            {{"file", py::str(e.file())}, {"path", py::str(e.path())}, {"detail", py::str(e.detail())}});
    } catch (const CompileError& e) {
      raise(compileError, e.what(), {{"log", py::str(e.log())}});
    }
  });

  py::class_<LaunchPlan>(m, "Plan", "A launch plan: buffers, tables, kernels and their grid rules, as data")
      .def_static(
          "load", [](const std::string& path) { return loadPlanJson(path); }, py::arg("path"),
          "a plan file written by `warpforge emit --plan-json`")
      .def_static(
          "from_dict",
          [](const py::object& d) { return planFromJson(fromPython(d, "<plan dict>"), "<plan dict>", "."); },
          py::arg("plan"))
      .def(
          "to_dict", [](const LaunchPlan& p) { return toPython(planToJson(p)); },
          "the plan as plan JSON (tables inline)")
      .def(
          "save", [](const LaunchPlan& p, const std::string& dir) { return savePlanJson(p, dir); }, py::arg("dir"),
          "writes <dir>/<spec name>_plan.json (and large tables beside it); returns its path")
      .def_property_readonly("spec_name", [](const LaunchPlan& p) { return p.specName; })
      .def_property_readonly("family", [](const LaunchPlan& p) { return p.family; })
      .def_property_readonly("kernels",
                             [](const LaunchPlan& p) {
                               std::vector<std::string> k;
                               for (const auto& x : p.kernels) k.push_back(x.name);
                               return k;
                             })
      .def_property_readonly(
          "arrays",
          [](const LaunchPlan& p) {
            py::dict d;
            for (const auto& b : p.buffers)
              if (b.isUser() && b.aliasOf.empty()) d[py::str(b.name)] = roleName(b.role);
            return d;
          },
          "the caller's arrays: name -> 'input' or 'output' (an in-place output shares its input's array: see buffers)")
      .def_property_readonly(
          "buffers",
          [](const LaunchPlan& p) {
            py::list l;
            for (const auto& b : p.buffers) {
              py::dict d;
              d["name"] = b.name;
              d["role"] = roleName(b.role);
              d["element_type"] = b.elementType;
              d["alias_of"] = b.aliasOf;
              d["note"] = b.note;
              l.append(d);
            }
            return l;
          },
          "every buffer: name, role (input, output, scratch, table, counter), element_type, alias_of, note")
      .def(
          "header", [](const LaunchPlan& p) { return launchPlanHeader(p); }, "<name>_plan.h for nvcc users")
      .def("__repr__", [](const LaunchPlan& p) {
        return fmt::format("<warpforge.Plan {} ({} kernel(s))>", p.specName, p.kernels.size());
      });

  py::class_<TestData>(m, "Inputs",
                       "random inputs of a spec (Spec.random_inputs): the bytes of each input array, and what the "
                       "reference needs")
      .def_property_readonly(
          "arrays",
          [](const TestData& t) {
            py::dict d;
            for (const auto& [k, v] : t.arrays)
              d[py::str(k)] = py::bytes(reinterpret_cast<const char*>(v.data()), v.size());
            return d;
          },
          "name -> bytes (numpy.frombuffer(b, numpy.uint8) views them)");

  py::class_<PySpec>(m, "Spec", "a parsed spec: Spec(path), Spec(dict) or Spec(json_text, file=name)")
      .def(py::init([](const py::object& source, std::optional<std::string> file) { return specFrom(source, file); }),
           py::arg("source"), py::arg("file") = py::none())
      .def_property_readonly("name", [](const PySpec& s) { return s.spec->name(); })
      .def_property_readonly("family", [](const PySpec& s) { return s.spec->family().name(); })
      .def_property_readonly("file", [](const PySpec& s) { return s.file; })
      .def("to_dict", [](const PySpec& s) { return toPython(s.json); })
      .def(
          "verify", [](const PySpec& s) { return verifyDict(s.spec->verify()); },
          "proves the spec consistent; returns {'text', 'counts', 'warnings'}; raises InconsistentSpec")
      .def(
          "explain",
          [](const PySpec& s, std::optional<std::string> arch) {
            NvrtcProbe probe;
            return s.spec->explain({archOf(arch), &probe});
          },
          py::arg("arch") = py::none())
      .def(
          "emit",
          [](const PySpec& s, std::optional<std::string> arch, bool probe) {
            NvrtcProbe p;
            const std::string a = archOf(arch);
            Generated g = [&] {
              py::gil_scoped_release release;
              return s.spec->emit({a, probe ? &p : nullptr});
            }();
            py::dict d;
            py::list sources;
            for (const auto& src : g.plan.sources) {
              py::dict e;
              e["file"] = src.fileName;
              e["text"] = src.text;
              e["arch_specific"] = src.archSpecific;
              sources.append(e);
            }
            d["arch"] = a;
            d["sources"] = sources;
            d["plan"] = toPython(planToJson(g.plan, {kPlanFormat, "warpforge " + generatorVersion(), a}));
            d["header"] = launchPlanHeader(g.plan);
            return d;
          },
          py::arg("arch") = py::none(), py::arg("probe") = true,
          "kernel sources and the plan (as a dict) for `arch` (default: device 0's, else sm_90); probe: consult NVRTC "
          "for spill-free register targets")
      .def(
          "plan",
          [](const PySpec& s, std::optional<std::string> arch, bool cache) {
            const std::string a = archOf(arch);
            py::gil_scoped_release release;
            if (cache) return emitCached(s.json, s.file, a).plan;
            NvrtcProbe p;
            return s.spec->emit({a, &p}).plan;
          },
          py::arg("arch") = py::none(), py::arg("cache") = true,
          "the Plan for `arch`, through the on-disk plan cache (a restarted process gets the same plan in "
          "milliseconds)")
      .def("default_batch", [](const PySpec& s) { return s.spec->defaultBatch(); })
      .def(
          "random_inputs",
          [](const PySpec& s, long long batch, std::uint64_t seed) {
            if (batch < 0) throw py::value_error(fmt::format("batch {}: expected 0 or more", batch));
            TestData d;
            auto outOfMemory = [&]() -> py::error_already_set {
              PyErr_SetString(
                  PyExc_MemoryError,
                  fmt::format("random_inputs: batch {} of {} does not fit host memory", batch, s.spec->name()).c_str());
              return py::error_already_set();
            };
            try {
              d = s.spec->randomInputs(batch, seed);
            } catch (const std::bad_alloc&) {
              throw outOfMemory();
            } catch (const std::length_error&) {  // a size past what a vector holds
              throw outOfMemory();
            }
            d.madeFor = s.json.dump();
            d.madeForBatch = batch;
            return d;
          },
          py::arg("batch"), py::arg("seed"))
      .def(
          "check",
          [](const PySpec& s, const TestData& data, const py::dict& outputs, long long batch) {
            // The family's check reads the inputs as drawn for its spec and batch: other data would be read past
            // their end.
            if (data.madeFor != s.json.dump())
              throw py::value_error(fmt::format("inputs: not drawn by this spec's random_inputs ({})", s.spec->name()));
            if (data.madeForBatch != batch)
              throw py::value_error(
                  fmt::format("inputs: drawn for batch {}, checked at batch {}", data.madeForBatch, batch));
            std::map<std::string, std::vector<unsigned char>> out;
            for (auto [k, v] : outputs) out[k.cast<std::string>()] = bytesOf(v, k.cast<std::string>());
            try {
              return checkDict(s.spec->check(data, out, batch));
            } catch (const std::out_of_range&) {  // a family's check that looks an output up by name
              std::vector<std::string> given, wanted;
              for (const auto& [name, bytes] : out) given.push_back(name);
              for (const auto& b : emitCached(s.json, s.file, archOf(std::nullopt)).plan.buffers)
                if (b.role == BufferRole::Output) wanted.push_back(b.name);
              throw py::key_error(fmt::format("outputs: the check needs every output of the plan ({}); given: {}",
                                              fmt::join(wanted, ", "),
                                              given.empty() ? "none" : fmt::format("{}", fmt::join(given, ", "))));
            }
          },
          py::arg("inputs"), py::arg("outputs"), py::arg("batch"),
          "compares a run's outputs (host buffers by name, poisoned with 0xff before the run) with the family's CPU "
          "reference")
      .def("__repr__", [](const PySpec& s) {
        return fmt::format("<warpforge.Spec {} ({})>", s.spec->name(), s.spec->family().name());
      });

  py::class_<PyExecutor>(m, "Executor", "runs a Plan on one device; one executor per device, one run at a time")
      .def(py::init<const py::object&, std::optional<int>>(), py::arg("plan"), py::arg("device") = py::none(),
           "plan: a Plan, a plan dict or a plan file; device: that device's primary context (default: the current "
           "context, else device 0)")
      .def("run", &PyExecutor::run, py::arg("arrays"), py::arg("batch"), py::arg("stream") = py::none(),
           py::arg("workspace") = py::none(), py::arg("params") = std::map<std::string, long long>{},
           "enqueues the plan on `stream` (None: the legacy default stream); arrays: name -> device array (CuPy, "
           "PyTorch, DLPack, int pointer)")
      .def(
          "array_bytes",
          [](const PyExecutor& e, const std::string& name, long long batch,
             const std::map<std::string, long long>& params) { return e.exec().arrayBytes(name, batch, params); },
          py::arg("name"), py::arg("batch"), py::arg("params") = std::map<std::string, long long>{})
      .def(
          "workspace_bytes", [](const PyExecutor& e, long long batch) { return e.exec().workspaceBytes(batch); },
          py::arg("batch"))
      .def_property_readonly("plan", [](const PyExecutor& e) { return e.exec().plan(); })
      .def_property_readonly("device", [](const PyExecutor& e) {
        const DeviceInfo& d = e.exec().device();
        py::dict r;
        r["ordinal"] = static_cast<int>(d.device);
        r["name"] = d.name;
        r["arch"] = d.arch;
        r["sms"] = d.smCount;
        return r;
      });

  m.def(
      "families",
      [] {
        py::dict d;
        for (const Family* f : families()) d[py::str(f->name())] = f->summary();
        return d;
      },
      "the kernel families this build knows: name -> summary");
  m.def(
      "load_plan", [](const std::string& path) { return loadPlanJson(path); }, py::arg("path"));
  m.def(
      "device_count", [] { return deviceCount(); }, "CUDA devices visible (0 without a driver)");
  m.def(
      "device_unavailable_reason", [] { return deviceUnavailableReason(); },
      "'' where a CUDA device can be used, else why not");
  m.attr("__version__") = generatorVersion();
}
