#pragma once
// Parts shared by the post kernels (PfbPostEmitter.cpp, the row-pair kernel; PfbPostSpectrumEmitter.cpp, the cf32
// spectrum kernel; PfbPostItemEmitter.cpp, bench's per-item one).
#include <string>

#include "ast/Ast.h"
#include "generator/pfb/PfbGeometry.h"
#include "generator/pfb/PfbSpec.h"

namespace warpforge::pfb {

// pfb_channel(pair, item, which): the channel of staging slot (item, which) of a row pair (which 0: channel A, 1: its
// mirror N - A; pair 0 item 0: channels 0 and N / 2).
std::string channelHelper(const PfbGeometry& g, long long N);
// The post kernel's header comment.
std::string postHeader(const PfbSpec& s, const PfbGeometry& g, const std::string& name);
// v * w (complex, f32), real and imaginary parts.
ast::NodePtr cmulX(const std::string& v, const std::string& w);
ast::NodePtr cmulY(const std::string& v, const std::string& w);
// The real-FFT split of one item from za = Z[A] and zb = Z[N - A] (the post kernels' `za`, `zb`): the halves
// E = (Z[A] + conj Z[N - A]) / 2 and F (ex, ey, fx, fy), then X[A] = E - i W F into `xa` and X[N - A] = conj(E + i W F)
// into `xb` with W the float2 `w` (gx, gy). Pair 0's item 0 instead: splitEdge (channel 0 real, N / 2 = conj Z[N / 2]).
std::vector<ast::NodePtr> splitHalves();
std::vector<ast::NodePtr> splitCombine(const std::string& w, const std::string& xa, const std::string& xb);
std::vector<ast::NodePtr> splitEdge(const std::string& xa, const std::string& xb);
// The delay phase of a channel pair from u = (cs, sn) = e^{-i pi d A / N}: rotA = u a for channel A, rotB = conj(u) b
// for N - A (not const: pair 0's item 0 replaces it), where a = (ax, ay) = e^{i phi} and b = (bx, by) = e^{i (phi - pi
// d)}.
std::vector<ast::NodePtr> delayRotations(const std::string& ax, const std::string& ay, const std::string& bx,
                                         const std::string& by);
// The saturation counts' tail (ci8): warp sums of sat0 (and sat1 with two pols per unit), one atomic per pol and
// block, the last block publishing the call's counts and re-zeroing them.
void appendSaturationTail(const PfbSpec& s, const PfbGeometry& g, std::vector<ast::NodePtr>& body);
// The kernel's parameters.
std::vector<ast::NodePtr> postParams(const PfbSpec& s);
// blockIdx.x -> the block's batch entry b, receiver r, first spectrum s0, first pol p0 and row pair (rowA, rowB; with
// PfbGeometry::postPairLoop the pair is the kernel's loop variable, and appendRowPair declares the rows in it).
void appendBlockDecode(const PfbSpec& s, const PfbGeometry& g, std::vector<ast::NodePtr>& body);
// rowA = pair, rowB = n1 - pair (n1 / 2 for pair 0): the rows the split pairs (appendBlockDecode's, or the pair
// loop's).
void appendRowPair(const PfbGeometry& g, std::vector<ast::NodePtr>& body);

}  // namespace warpforge::pfb
