#pragma once
// Turns a verified tc_fft Plan into a CUDA kernel (through the AST) plus its
// launch description (made a LaunchPlan by TcFftLaunch.h).
#include <optional>
#include <string>

#include "ast/Ast.h"
#include "generator/tc_fft/LaunchInfo.h"
#include "generator/verify/Plan.h"

namespace warpforge {

struct EmitOptions {
  bool packedPhases = true;          // keep stored (packed) phases packed, unpack at use
  bool inRegisterBenchmark = false;  // repeat the steps `repeats` times on register-resident data
  bool prefetch = false;      // load the next FFT's input before computing this one (slower on H100: bench/RESULTS.md)
  bool staged = true;         // move global data through a per-warp shared-memory slice (contiguous warp accesses)
  bool streaming = true;      // staged I/O with evict-first cache hints (read once, written once)
  bool asyncCopy = false;     // staged input double-buffered with cp.async (no gain on H100: bench/RESULTS.md)
  bool swizzledStage = true;  // staging slices arranged so register accesses hit distinct banks (TcFftIo.h)
  int rowGroups = 1;  // row-by-row kernels: groups of the warp's FFTs moved per loop iteration (TcFftRowsEmitter.cpp)
};

struct EmittedKernel {
  std::string source;  // <name>.cu, including the helper headers by name
  LaunchInfo launch;
  int phaseRegisters = 0;  // phase registers held per thread (after sharing)
  int phaseRegistersNaive = 0;
};

EmittedKernel emitTcFft(const Plan& plan, const EmitOptions& options = {});

// What `emit` uses: whole-row kernels whose two staging buffers (and phase table) fit kMaxAsyncSharedBytes
// double-buffer their input with cp.async (the next FFT's row is in flight during this one's arithmetic; faster on the
// H200, bench/RESULTS.md); the others copy synchronously. Row-by-row kernels of 32 output points move
// kShortRowGroups groups of FFTs per iteration (a warp's group is only 256 bytes).
constexpr int kShortRowGroups = 4;
EmitOptions defaultEmitOptions(const LayoutProgram& spec);

// What the emitter cannot do with a spec (any EmitOptions), named by the spec's JSON path,
// so that `verify` refuses it instead of `emit` failing after a CONSISTENT report.
struct EmitProblem {
  std::string path, message;
};
std::optional<EmitProblem> emitProblem(const LayoutProgram& spec);

// One FFT per warp, n_in and n_out multiples of 128: global accesses are whole 512-byte warp rows (the n_in input
// values; registers and lanes of zero padding read zeros, not memory), and every EmitOptions variant applies.
// Otherwise the kernel stages through a shared slice row by row (batch bits, short rows) and only packedPhases,
// inRegisterBenchmark and streaming apply.
bool wholeRowIo(const LayoutProgram& spec);

// Shared memory a staged kernel uses per block for its staging buffers: one slice of max(n_in, n_out) words per warp
// (per FFT of the warp in the row-by-row path), two with the cp.async double buffer (the output is staged in the
// buffer whose input the registers already hold). Above 48 KiB (static __shared__ arrays cannot opt in to more) the
// double buffer is dynamic shared memory, up to kMaxAsyncSharedBytes: two such blocks share an sm_90 SM, and an sm_80
// SM (164 KiB) runs one.
long long stagedSharedBytes(const LayoutProgram& spec, bool asyncCopy);
constexpr long long kMaxStaticSharedBytes = 48 * 1024;

// Shared memory per block of a row-by-row kernel moving `groups` > 1 groups of FFTs per iteration (EmitOptions::
// rowGroups): each warp's slice holds the groups' inputs and outputs. Static arrays: at most kMaxStaticSharedBytes.
long long rowGroupsSharedBytes(const LayoutProgram& spec, int groups);
constexpr long long kMaxAsyncSharedBytes = 96 * 1024;

}  // namespace warpforge
