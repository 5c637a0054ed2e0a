#pragma once
// How a tc_fft kernel moves an FFT's values between memory and the registers of its input and output layouts: the
// element offset of every register (lane bits add a per-lane offset, register bits constants), vector accesses where
// the lowest index bits sit on registers, batch bits f (several FFTs per warp, `fStride` elements apart), and zero
// padding (input index bits from log2 n_in up: registers or lanes where one is set read zeros, never memory).
#include <string>
#include <utility>
#include <vector>

#include "ast/Ast.h"
#include "generator/layout/Layout.h"

namespace warpforge {

struct IoPlan {
  char letter = 'n';           // 'n' (input) or 'q' (output)
  int logReal = 0;             // index bits below this address memory; carried bits above are zero padding
  long long fStride = 0;       // elements between the warp's FFTs (batch bit f_k adds fStride << k)
  int vecBits = 0;             // registers per vector access = 1 << vecBits
  std::vector<int> vecRegBit;  // register bit of index bit 0, 1, ...
  ast::NodePtr laneOffset;     // element offset contributed by lane bits
  int padLaneMask = 0;         // lanes with any of these bits set hold zero padding
  int indexShift = 0;          // index bit k addresses element bit k + indexShift (a polyphase part's elements)
};

// `logReal`: log2 of the elements one FFT has in memory (n_in or n_out). `indexShift` > 0: index i of the layout is
// element i << indexShift (every 2^indexShift-th element: one polyphase part, whose phase the caller adds to the lane
// offset); such accesses are single words.
IoPlan ioPlan(const Layout& l, char letter, int logReal, long long fStride, int indexShift = 0);

// Loads (or stores) every register of `array` from/to `ptr` + `laneVar` + each register's offset; registers of zero
// padding get 0 and lanes of it (`validVar`: a bool per lane) read 0 instead of memory.
std::vector<ast::NodePtr> registerAccess(const Layout& l, const IoPlan& p, const std::string& array,
                                         const std::string& ptr, const std::string& laneVar, bool load,
                                         const std::string& validVar = "");

ast::NodePtr laneBit(int t);

// The element offsets that registerAccess uses, as numbers: register r's (-1 for zero padding) and lane `lane`'s (-1
// for a lane of zero padding; batch bits f add nothing). For counting banks on the CPU.
long long ioRegisterOffset(const Layout& l, const IoPlan& p, int r);
long long ioLaneOffset(const Layout& l, const IoPlan& p, int lane);

// Where a warp's shared staging slice keeps each 16-byte chunk of a row so that the layout-ordered register accesses
// hit distinct banks. A shared-memory wavefront serves 128 bytes: the 8 (16-byte accesses), 16 or 32 lanes of one phase
// must address distinct 4-byte banks. Lanes whose index bits lie above the 128-byte range would all hit the same banks
// (an 8-way conflict for a lane map like t0 t1 t2 <-> n9 n8 n6); chunk c is kept at chunk c ^ S(c) instead, S moving
// those index bits onto the bank-group bits the phase's other lanes leave free. S reads only bits it does not write, so
// it is a bijection, and the row copies (consecutive chunks per phase, high bits fixed) stay conflict-free too.
struct StageSwizzle {
  std::vector<std::pair<int, int>> moves;  // (source chunk bit >= 3, target chunk bit <= 2), at most three
  long long laneMask = 0;                  // the word bits a lane's swizzled offset may have
  bool empty() const { return moves.empty(); }
  long long chunk(long long c) const;           // the physical chunk of logical chunk c
  long long word(long long a) const;            // the physical word of logical word a (4 words per chunk)
  std::string helperType() const;               // "wf_swizzle<s0, d0, s1, d1, s2, d2>" (-1: unused), for the row copies
  ast::NodePtr wordExpr(ast::NodePtr a) const;  // word(a) for a lane-dependent a
};
StageSwizzle stageSwizzle(const Layout& l, const IoPlan& p);

// The most distinct 4-byte words one bank serves in one phase of a warp-wide access, over every register access of
// `l` through the staging slice and the row copies in and out of it (1: conflict-free).
int stageBankWays(const Layout& l, const IoPlan& p, const StageSwizzle& s);

// registerAccess through a swizzled staging slice: register group g at `ptr` + (`laneVar` ^ word(offset of g)), where
// `laneVar` holds the lane's swizzled word offset (S is linear and lane and register bits are disjoint).
std::vector<ast::NodePtr> swizzledRegisterAccess(const Layout& l, const IoPlan& p, const StageSwizzle& s,
                                                 const std::string& array, const std::string& ptr,
                                                 const std::string& laneVar, bool load,
                                                 const std::string& validVar = "");

// A load that combines the same word of several equal segments of a staging buffer: register r gets
// combine(word r of segment 0, of segment 1, ..., args...), the segments `segmentWords` apart (one access each).
struct SegmentSum {
  int segments = 1;
  long long segmentWords = 0;
  std::string combine;             // a device function of the segments' words and `args`
  std::vector<ast::NodePtr> args;  // per-thread constants appended to each call
};
std::vector<ast::NodePtr> swizzledRegisterSum(const Layout& l, const IoPlan& p, const StageSwizzle& s,
                                              const std::string& array, const std::string& ptr,
                                              const std::string& laneVar, const SegmentSum& sum,
                                              const std::string& validVar = "");

}  // namespace warpforge
