#pragma once
// warpforge: specialised CUDA kernels from JSON specs.
//   auto spec = warpforge::loadSpec("specs/chime_fft_256_512.json");   // SpecError names file + JSON path
//   spec->verify();                                                      // InconsistentSpec if it does not compute
//   what it says warpforge::Generated g = spec->emit({"sm_90"});                      // kernel sources + LaunchPlan
//   (no CUDA needed) warpforge::Compiler compiler;                                        // NVRTC, cached
//   warpforge::Executor exec(compiler, g.plan);                          // on a GPU: load, upload tables, launch
//   exec.run({{"input", d_in}, {"output", d_out}}, batch, stream);
#include "warpforge/cached_emit.h"
#include "warpforge/compiler.h"
#include "warpforge/device.h"
#include "warpforge/executor.h"
#include "warpforge/family.h"
#include "warpforge/json.h"
#include "warpforge/launch_plan.h"
#include "warpforge/plan_cache.h"
#include "warpforge/plan_json.h"
#include "warpforge/reference_check.h"
#include "warpforge/spec_error.h"
#include "warpforge/wisdom.h"
