#pragma once
// The pieces of a tc_fft kernel that the one-warp emitter (TcFftEmitter.cpp) and the two-warp composition
// (TcFftPairEmitter.cpp) share: the user-name mapping of data arrays, comments, the steps of a verified Plan, and the
// translation unit around a kernel body.
#include <string>
#include <vector>

#include "ast/Ast.h"
#include "generator/tc_fft/PhasePlan.h"
#include "generator/tc_fft/TcFftEmitter.h"
#include "generator/tc_fft/TcFftIo.h"
#include "generator/verify/Plan.h"

namespace warpforge::tcfft_detail {

// Points of the rows that the two- and four-warp kernels transform (TcFftPairEmitter, TcFftQuadEmitter).
inline constexpr int kRowPoints = 4096;

// Data array X is the local `a_X` (user names live in their own namespace).
std::string dataVar(const std::string& array);
ast::NodePtr dataReg(const std::string& array, int r);

// A comment of arbitrary text, made safe for `//` lines.
ast::NodePtr note(const std::string& text);

// Every step of `plan` as one block each (MMAs, complex multiplies, relayouts); with opt.inRegisterBenchmark, the
// steps in a loop of `repeats` that feeds the output back as the input.
std::vector<ast::NodePtr> stepsOrRepeats(const Plan& plan, const PhasePlan& phases, const EmitOptions& opt);

// The kernel function (parameters input, output, batch, input_distance, output_distance[, repeats]) around
// `bodyBlock`, with the helper includes and a header comment: `headline` (default: the spec's sizes and sign), the
// register layouts of the plan's arrays and its operation counts.
ast::NodePtr kernelUnit(const Plan& plan, const EmitOptions& opt, const LaunchInfo& li, ast::NodePtr bodyBlock,
                        const std::string& headline = "");

// The kernel's first statements: lane, first_warp, warp_stride and the phase registers' prologue.
std::vector<ast::NodePtr> kernelPrologue(const EmittedKernel& k, const PhasePlan& phases, const EmitOptions& opt);

// Declares `in_lane_valid` (false on lanes that hold the input's zero padding) where the input layout puts padding
// on lanes; returns its name, or "" where no lane holds padding.
std::string declarePaddingLanes(std::vector<ast::NodePtr>& body, const IoPlan& in, int nIn);

// The kernel for programs without whole-row I/O (TcFftRowsEmitter.cpp): every access through a per-warp slice, row by
// row.
EmittedKernel emitRowByRow(const Plan& plan, const EmitOptions& opt);

}  // namespace warpforge::tcfft_detail
