#pragma once
// A launch plan: how a generated kernel chain runs, as data (the rocFFT seed's
// launch struct, taken to its end). The generator decides everything here; the
// runtime's Executor runs any plan and `emit` prints the same plan as a header
// for nvcc users. Nothing in it depends on which family made it.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace warpforge {

// What a buffer is for, which decides who provides it and when it is filled.
enum class BufferRole {
  Input,    // the caller's array, read
  Output,   // the caller's array, written (may be the same memory as an Input for in-place plans: see aliasOf)
  Scratch,  // workspace, `bytesPerBatch` per batch entry; the caller may hand it in (Executor::workspaceBytes)
  Table,    // constant contents computed at plan time (in double, stored in the kernel's type), uploaded once
  Counter,  // `fixedBytes` zeroed once before the first launch; the kernels leave it zeroed
};
const char* roleName(BufferRole r);

struct PlanBuffer {
  std::string name;  // how kernels' arguments and callers refer to it ("input", "output_im", "k0_twiddles")
  BufferRole role = BufferRole::Input;
  std::string elementType;  // C type of one element, for the header ("float2", "__half2", "signed char", ...)
  int elementBytes = 1;
  // Extent in elements for a batch of B entries: perBatch * B + fixed (user arrays: offset + span - distance + distance
  // * B).
  long long perBatchElems = 0, fixedElems = 0;
  std::string
      perBatchParam;    // non-empty: perBatch is the value of this scalar parameter (a distance the caller chooses)
  int alignment = 0;    // bytes the pointer must be aligned to (vector loads); 0: the element's natural alignment
  std::string aliasOf;  // Output of an in-place plan: the Input buffer it shares memory with
  long long maxBatch =
      -1;  // Output: the largest batch whose entries write disjoint elements (-1: any); the executor refuses more
  std::string scalar;  // Table: "float", "double", ... the scalar the contents are made of (for the header)
  std::vector<unsigned char> contents;  // Table: the bytes to upload
  std::string note;

  long long elements(long long batch, long long perBatch) const { return perBatch * batch + fixedElems; }
  bool isUser() const { return role == BufferRole::Input || role == BufferRole::Output; }
};

// A scalar kernel argument the caller may set at run time (a distance, a repeat count).
struct PlanParam {
  std::string name;
  std::string cType = "long long";  // "long long" or "int"
  long long defaultValue = 0, minValue = 0, multipleOf = 1;
  std::string note;
};

// A TMA tensor map over a buffer of bytes (CUtensorMap, 128 bytes, the kernel's `const __grid_constant__` parameter),
// encoded at launch (cuTensorMapEncodeTiled, uint8 elements, no interleave, out-of-bounds elements read as zeros).
struct PlanTensorMap {
  std::vector<long long> dims;     // innermost first (1..5 of them)
  std::vector<long long> strides;  // bytes from one index of dims[i] to the next, i = 1 .. rank - 1
  std::vector<int> box;            // the box a copy moves (each 1..256)
  int swizzle = 0;                 // bytes: 0 (none), 32, 64 or 128
  int batchDim = -1;               // this dimension's extent is multiplied by the batch (-1: none)
};

struct PlanArg {
  enum class Kind {
    Buffer,      // device pointer of the named buffer
    Null,        // a null pointer (an argument this kernel's configuration does not use)
    Literal,     // a constant fixed by the plan
    BatchTimes,  // batch * value
    Param,       // the value of the named PlanParam
    TensorMap,   // a tensor map (`map`) over the named buffer
  };
  Kind kind = Kind::Literal;
  std::string name;  // buffer or parameter name; for Literal/BatchTimes, the kernel's parameter name
  long long value = 0;
  std::string cType = "long long";  // C type of the kernel parameter ("const float2*", "long long", "int", ...)
  std::string param;                // the kernel's parameter name (for the header's declaration)
  PlanTensorMap map;                // TensorMap only

  static PlanArg buffer(std::string buf, std::string cType, std::string param);
  static PlanArg null(std::string cType, std::string param);
  static PlanArg literal(long long v, std::string cType, std::string param);
  static PlanArg batchTimes(long long v, std::string param);
  static PlanArg scalar(std::string paramName, std::string cType);
  static PlanArg tensorMap(std::string buf, PlanTensorMap m, std::string param);
};

// The most blocks one launch takes (gridDim.x).
inline constexpr long long kMaxGridBlocks = 0x7fffffffLL;

// Grid = min(ceil(batch * unitsPerBatch / unitsPerBlock), resident blocks if capped), at least 1.
// Resident blocks = SMs x blocks per SM from the occupancy calculator at this block and shared size.
// A capped kernel loops over its units; an uncapped one runs one block per unitsPerBlock units, so a
// batch that needs more than kMaxGridBlocks is refused (maxBatch()), never launched with work skipped.
struct GridRule {
  long long unitsPerBatch = 1, unitsPerBlock = 1;
  bool capAtResident = true;  // persistent kernels loop over their units
  // Throws std::invalid_argument where an uncapped grid would exceed kMaxGridBlocks.
  long long blocks(long long batch, long long residentBlocks) const;
  // The largest batch whose grid launches whole (LLONG_MAX for a capped kernel).
  long long maxBatch() const;
};

struct PlanKernel {
  std::string name;  // the __global__ function (extern "C")
  int source = 0;    // index into LaunchPlan::sources
  int blockX = 1, blockY = 1;
  int sharedBytes = 0;  // dynamic shared memory (opt in above 48 KiB)
  GridRule grid;
  std::vector<PlanArg> args;
  std::string note;
};

struct KernelSource {
  std::string fileName;       // "<kernel>.cu"
  std::string text;           // may #include the helper headers listed in LaunchPlan::helpers
  bool archSpecific = false;  // uses instructions of the arch-specific target only (sm_90a: wgmma): compileTarget()
  // Compiled code by NVRTC target ("sm_90", "sm_90a"), where a plan file carries it: the Executor loads the CUBIN for
  // its device's target instead of compiling `text`.
  std::map<std::string, std::vector<char>> cubins;
};

// The NVRTC target a source is compiled for on `arch` ("sm_90"): "sm_90a" where the source is arch-specific.
std::string compileTarget(const KernelSource& source, const std::string& arch);

struct LaunchPlan {
  std::string specName, family;
  std::string unitName = "item";  // what one batch entry is ("FFT", "channel", ...)
  int minArch = 80;               // compute capability x10
  int onlyArch = 0;               // nonzero: an arch-specific source runs on this compute capability only (90: sm_90a)
  std::vector<KernelSource> sources;
  std::vector<std::string> helpers;  // embedded helper headers the sources include
  std::vector<PlanBuffer> buffers;
  std::vector<PlanParam> params;
  std::vector<PlanKernel> kernels;  // in launch order, one stream

  const PlanBuffer* buffer(const std::string& name) const;
  const PlanParam* param(const std::string& name) const;
  // Bytes of workspace (all Scratch buffers, each 256-byte aligned) for `batch` entries.
  long long scratchBytes(long long batch) const;
  // Bytes of the user's arrays read and written for `batch` entries at the parameters' defaults (the traffic floor).
  long long userBytes(long long batch) const;
  // The largest batch every kernel's grid launches whole (LLONG_MAX where none limits it); the Executor
  // refuses more, naming it.
  long long maxBatch() const;
  // Throws std::logic_error when a kernel names a buffer, parameter or source that is not there, and
  // std::invalid_argument when one batch entry already needs more blocks than a launch takes.
  void check() const;
};

// `<name>_plan.h`: the plan in one format for every family, with the tables'
// contents and a host function that runs the chain with the CUDA runtime API.
// Tables above kInlineTableBytes are not inlined (a header of hundreds of megabytes of
// literals does not compile): they are the files launchPlanTableFiles() returns, which
// init(&state, table_dir) reads from table_dir (default ".").
constexpr std::size_t kInlineTableBytes = std::size_t(1) << 20;
std::string launchPlanHeader(const LaunchPlan& plan);

struct PlanFile {
  std::string fileName;  // <spec name>_<table>.bin
  std::string bytes;     // the table's contents, as the device reads them
};
std::vector<PlanFile> launchPlanTableFiles(const LaunchPlan& plan);

}  // namespace warpforge
