#pragma once
// Where the two-warp 4096-point kernel (TcFftPairEmitter.h) keeps a pair's input row in shared memory, and how warp
// `part` reads its polyphase part x[2 i + part] from it into the registers of the half-length design's input layout.
//
// De-interleaved (a bench variant): the cp.async copy scatters single words, row word 2 i + p to word i of part p's
// region (halfIn words, from word p halfIn). Each region's 16-byte chunks carry the one-warp staging swizzle of the
// input layout (stageSwizzle) and part 1's bank bit 4 is flipped, so the 32 lanes of one copy (16 words of each part)
// hit distinct banks, and each warp reads its region as a one-warp kernel reads its staging slice: 16-byte vectors
// where n0 n1 lie on registers, conflict-free.
//
// Interleaved ("word reads", the default: measured faster on an H200, where the de-interleaving copy's single-word
// cp.async cost more than the conflict): the row copied as it is, in 16-byte chunks; each warp reads single words at
// 2 i + part (polyphaseSwizzle): word bit 0 (the part) and bit 1 (n0, on a register) are fixed in a phase, a 4-way
// conflict.
#include "generator/layout/Layout.h"
#include "generator/tc_fft/TcFftIo.h"

namespace warpforge {

struct PairInput {
  bool wordReads = false;
  int halfIn = 0;        // row words per part (n_in / 2)
  IoPlan plan;           // the register reads: index i at offset i (de-interleaved) or at element 2 i (+ part)
  StageSwizzle swizzle;  // the chunk arrangement of each region (de-interleaved) or of the whole row (interleaved)
  // The buffer word that warp `part` reads for the plan's element offset `offset` (lane and register bits).
  long long word(int part, long long offset) const;
};

// `in`: the half-length design's input layout; `logIn`: log2 of its input length (halfIn); `swizzled`: false keeps
// every chunk in place (a bench variant's plain buffer).
PairInput pairInput(const Layout& in, int logIn, bool wordReads, bool swizzled = true);

// The most distinct words one bank serves in one phase of the input's shared accesses: each warp's copy of its half of
// the row into the buffer and its register reads (1: conflict-free).
int pairInputBankWays(const Layout& in, const PairInput& p);

}  // namespace warpforge
