#pragma once
// What the correlate kernel's emitter parts share: the emission context (spec, MMA, tiling, load path, staging
// geometry) and the fill of a shared-memory stage (CorrelatorFill.cpp). Internal to the correlator family.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "ast/Ast.h"
#include "generator/complexmma/ComplexMma.h"
#include "generator/correlator/CorrelatorEmitter.h"

namespace warpforge::corr_emit {

using namespace ast;

inline long long elemBytes(SampleType t) { return t == SampleType::CI4 ? 1 : t == SampleType::CI8 ? 2 : 4; }

// --- operand addressing derived from the layouts -------------------------------------------------

using cmma::laneField;
using cmma::regField;
inline std::vector<std::string> names(const std::string& prefix, int from, int count) {
  return cmma::bitNames(prefix, from, count);
}

inline std::vector<std::string> sideNames(int side, int P, int count) {
  std::vector<std::string> out;
  if (P == 2) out.push_back(fmt::format("pol{}", side));
  for (int i = 0; static_cast<int>(out.size()) < count; ++i) out.push_back(fmt::format("rcv{}_{}", side, i));
  return out;
}

struct Ctx {
  const CorrelatorSpec& s;
  CorrelatorMma m;
  CorrelatorTiling t;
  LoadPath path;
  int vt = 1;           // times per vector unit
  int ts = 0;           // times per stage
  int wordsPerRow = 0;  // staged words per row per stage (+ pad)
  int rowStride = 0;    // words between rows in shared memory
  int P = 2;
  long long N = 0;
  bool wg = false;  // wgmma path (sm_90a): core-matrix shared layout, see WgmmaStage
  WgmmaStage ws;
  bool async = false;  // global -> shared with cp.async into a per-thread raw ring (wgmma path, vector load paths)
};

// One stage's fill, split so that the next stage's global loads are in flight during this stage's MMAs:
// `loads` read every (side, row, 4-word group) unit of the block tile that this thread owns into registers
// (for the stage starting at `sl`), `stages` clamp / widen / split them and store them (and the column
// side's conj_perm copy) to shared memory. `decls` declare the registers.
struct Fill {
  std::vector<NodePtr> decls, loads, stages;
  int rawStageBytes = 0;  // async: bytes of one raw ring slot (16 bytes per part and thread)
};

// Declarations, loads into registers and staging stores of one stage (see Fill).
Fill emitFill(const Ctx& x);

}  // namespace warpforge::corr_emit
