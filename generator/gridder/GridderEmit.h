#pragma once
// Pieces the gridder family's kernels share (GridderKernels.cpp: the FMA gridder and degridder, the
// adder and splitter; GridderMmaKernel.cpp: the tensor-core gridder): AST shorthands, the subgrid's
// metadata, pixel coordinates, staged phases and visibilities, and the pixel store.
#include <string>
#include <vector>

#include "ast/Ast.h"
#include "generator/gridder/GridderSpec.h"

namespace warpforge::gridemit {

using ast::NodePtr;

inline constexpr double kPi = 3.14159265358979323846;
inline constexpr const char* kQual = "static __device__ __forceinline__";

// AST shorthands.
NodePtr fma3(NodePtr a, NodePtr b, NodePtr c);
NodePtr add(NodePtr a, NodePtr b);
NodePtr sub(NodePtr a, NodePtr b);
NodePtr mul(NodePtr a, NodePtr b);
NodePtr cdecl(const std::string& type, const std::string& name, NodePtr init);  // const type name = init;
NodePtr sync();
NodePtr ll(NodePtr e);  // (long long)e
NodePtr loop(const std::string& i, NodePtr from, NodePtr to, NodePtr step, std::vector<NodePtr> body);
NodePtr mx(NodePtr e, const char* f);  // e.f
NodePtr f2(NodePtr re, NodePtr im);    // make_float2
std::string nm(const char* base, int i);
std::string nm(const char* base, int i, int p);

// The complex helpers and A-term products (gridder: A1^H P A2; degridder: A1 P A2^H), printed.
std::string helpers(const GridderSpec& s, bool grid);
// The kernel's header comment: which spec produced it and what it does.
std::string header(const GridderSpec& s, const std::string& kernel, const std::string& what);
// The subgrid slot's metadata fields (nt, bl, t0, c0, nc, x0, y0, z, ai, st1, st2, b) and, with
// `offsets`, its phase offsets u0, v0, w0 (double).
std::vector<NodePtr> readMeta(const GridderSpec& s, bool offsets);
// l, m, n of pixel `pix` into l<suffix>, m<suffix>, n<suffix> (ls, ms: shifted).
std::vector<NodePtr> pixelLmn(const GridderSpec& s, const NodePtr& pix, const std::string& suffix);
// The time step's phase coefficients (U, V, W) -> `cc`, (Ku, Kv, Kw) -> `kk` (both declared by the caller, zero).
std::vector<NodePtr> stagePhases(const GridderSpec& s, const NodePtr& uvwPtr, const std::string& cc,
                                 const std::string& kk);
bool shifted(const GridderSpec& s);
// phi = k_c (u shift_l + v shift_m) in double: sp, cp = sin, cos phi (needs wn and p3 in scope).
std::vector<NodePtr> shiftRotation(const GridderSpec& s, const NodePtr& chan);
// __sincosf or sincosf as the spec's phasor says.
NodePtr sincos(const GridderSpec& s, NodePtr arg, const std::string& sn, const std::string& cs);
// extern "C" __global__ with __launch_bounds__(threads, resident / threads).
NodePtr kernelFn(const std::string& name, int threads, std::vector<NodePtr> params, std::vector<NodePtr> body,
                 int resident = 512);
// P correlations of a float2 array at element `base` into <dst>0..: float4 pairs where P >= 2.
std::vector<NodePtr> loadCorr(int P, const std::string& array, const NodePtr& base, const std::string& dst);
// The visibility `v` (uvw at `p3`, channel `c0 + c`, all in scope) weighted and, where the spec shifts
// the phase centre, rotated: <dst>0..<dst>P-1 (float2), zero where its uvw is not finite or its weight
// is 0. Every load is issued before any is used (one memory latency, not three in a chain).
std::vector<NodePtr> weightedVisibility(const GridderSpec& s, const std::string& dst);
// row (the subgrid's baseline at time 0), uvw0 (its first time step's uvw), vis0 (its first visibility).
std::vector<NodePtr> subgridRows(const GridderSpec& s);
// The round's time steps ts + j (j < steps) into scoord / skk, zero beyond nt: a loop over the block's threads.
NodePtr stageTimeSteps(const GridderSpec& s, int steps, int threads);
// The staged visibility of time step ts + j, channel c of the subgrid: its v and p3, then weightedVisibility into
// <dst>0..
std::vector<NodePtr> stagedVisibility(const GridderSpec& s, const std::string& dst);
// The degridder's input pixel: subgrid pixel `pix` of the slot at sub0 (read through the fftshift), taper,
// then A1 P A2^H: into px[0..P-1] (float2, declared here).
std::vector<NodePtr> correctedPixel(const GridderSpec& s, const std::string& pix);
// The degridder's output slot for the visibility of time step `timeStep` (of the subgrid), channel `channel`
// (from c0): statements declaring v (its index), p3 (its uvw) and ok (weight != 0 and uvw finite), and the
// factor sr + i si it is scaled by: 1 / S^2, times e^{+i phi} where the spec shifts the phase centre.
struct DegridTarget {
  std::vector<NodePtr> stmts;
  NodePtr sr, si;  // si null where unshifted
};
DegridTarget degridTarget(const GridderSpec& s, const NodePtr& timeStep, const NodePtr& channel);
// (sr + i si) (re + i im), as a float2.
NodePtr degridValue(const DegridTarget& d, const NodePtr& re, const NodePtr& im);
// The kernels' parameter lists: the gridder's and the degridder's.
std::vector<NodePtr> gridderParams();
std::vector<NodePtr> degridderParams();
// A-terms, taper and the fftshift store of px[0..P-1], subgrid pixel `pix`, into subgrids + sub0.
std::vector<NodePtr> storePixel(const GridderSpec& s, const std::string& pix);

}  // namespace warpforge::gridemit
