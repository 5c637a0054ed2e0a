#pragma once
// The correlator's tensor-core operands in the register-bit notation
// (../shared/docs/layout-notation.md), with the correlator's logical bits:
//   ReIm                    component of a sample in A (0 real, 1 imaginary)
//   ReIm_in, ReIm_out       of the expanded B: which component of the r2 sample it holds,
//                           which component of the visibility its column produces
//   time0..                 sample index inside one MMA step (the summed bits)
//   pol1, rcv1_0..          row of A and C: polarization and receiver bits of the r1 side
//   pol2, rcv2_0..          column of B and C: polarization and receiver bits of the r2 side
// (pol bits only with 2 polarizations; the row index is pol + P * receiver).
//
// The existing Verifier proves FFT step lists; the correlator's step is one
// complex MMA, so correlatorConsistency() checks it directly with the same
// Layout and FragmentTable objects: operand bits agree with the PTX fragment
// tables, the summed bits are exactly the time bits plus the complex pair, the
// conj_perm expansion of B makes the real MMA a complex s1 * conj(s2), and the
// block/warp/fragment tiling with the store's predicate writes every
// visibility of the triangle exactly once.
#include <string>
#include <vector>

#include "generator/correlator/CorrelatorSpec.h"
#include "generator/layout/FragmentTable.h"
#include "generator/layout/Layout.h"
#include "generator/layout/Wgmma.h"

namespace warpforge {

struct CorrelatorMma {
  const MmaShape* shape = nullptr;  // s8 m16n8k32 (ci4 widened, ci8) or f16 m16n8k16 (cf16)
  Layout a, b, c;                   // one fragment each, correlator bits
  int timesPerStep = 0;             // samples summed by one MMA (2^time bits)
  int timesPerWord = 0;             // samples in one 32-bit register of A (2 for 8-bit, 1 for f16)
  int rowsPerA = 16, colsPerB = 4;  // correlation-matrix rows of one A fragment, columns (inputs) of one B fragment
  // ldmatrix .x4 addressing (the emitter's fragment loads): which logical bit each lane bit of the address
  // selects. Lane L gives the address of row L % 8 of matrix L / 8 (PTX); the kernel's shared memory holds per
  // row (A: an input of the r1 side; B: an (input, ReIm_out) column) the staged words in time order, so a
  // 16-byte matrix row is 4 consecutive words. aAddr: one A fragment per ldmatrix (matrix = register);
  // bAddr: two B fragments (matrix bit 0 = register, bit 1 = the next fragment: column input + colsPerB).
  Layout aAddr, bAddr;
};

// The ldmatrix address layout of an operand: lane bits 0..2 <-> the logical bits of the operand's lane bits
// 2..4 (a matrix row), lane bits 3, 4 <-> those of its register bits 0, 1 (`extraReg` where the operand has one
// register bit only: B, the fragment pair).
Layout ldmatrixAddressLayout(const Layout& operand, const std::string& extraReg);

CorrelatorMma correlatorMma(SampleType type, int polarizations);

// The block geometry the emitter uses (derived from the spec's tuning and the MMA path).
// mma.sync: warpsPerSide^2 warps of 32 x 32 inputs; warps wholly below a diagonal tile's diagonal skip.
// wgmma (sm_90a): rowsPerBlock / 64 warpgroups, each one m64 x (2 rowsPerBlock) wgmma per k-step over the tile's
// columns; warp w owns rows 16 w .. 16 w + 15 and every column (warpRows 16, warpCols rowsPerBlock inputs); no warp
// skips.
struct CorrelatorTiling {
  int rowsPerBlock = 64;  // inputs (receiver x pol) per block side; a square tile
  int warpRows = 32, warpCols = 32;
  int warpsI = 2, warpsJ = 2;  // warps along the rows and along the columns of the tile
  bool wgmma = false;
  int tilesPerSide = 0;  // ceil(inputs / rowsPerBlock)
  long long tiles() const {
    return static_cast<long long>(tilesPerSide) * (tilesPerSide + 1) / 2;
  }  // upper triangle incl. diagonal
  int threads() const { return 32 * warpsI * warpsJ; }
  // Warps that compute: all of an off-diagonal tile; on a diagonal one the mma.sync path skips those wholly below it.
  bool skipsWarp(bool diagonalTile, int wi, int wj) const { return !wgmma && diagonalTile && wi > wj; }
};
CorrelatorTiling correlatorTiling(const CorrelatorSpec& s, bool wgmma = false);

// The wgmma path's shared memory (sm_90a, no swizzle, K-major canonical layout): per stage buffer the A rows (the
// tile's row inputs) then the B rows (column input n, ReIm_out: row 2 n + ReIm_out), each row kBytes of staged
// samples (time order, (re, im) interleaved); row r, byte kb of a region lives at
//     (r / 8) * sbo + (kb / 16) * lbo + (r % 8) * 16 + kb % 16
// i.e. 8 x 16-byte core matrices of 128 contiguous bytes, lbo = 128 apart along k, sbo = kBytes * 8 apart along rows.
struct WgmmaStage {
  int kBytes = 0;  // staged bytes per row and stage
  int lbo = 128, sbo = 0;
  int aBytes = 0, bBytes = 0, bufferBytes = 0;  // per stage buffer (A region first, then B)
  int bytesPerStep = 32;                        // k bytes of one wgmma (s8 k32, f16 k16)
  // PTX's canonical layout as the staging writes it (wgmmaStoreOffset, generator/layout/Wgmma.h).
  long long offset(int row, int kb) const {
    return wgmmaStoreOffset(WgmmaSwizzle::None, row, kb, static_cast<unsigned>(sbo), static_cast<unsigned>(lbo));
  }
  // The descriptors the kernel issues and the check reads, in the buffer at shared-window byte `buffer`: A of
  // warpgroup g (rows 64 g ..) and B (every row) at k-step ks.
  WgmmaDescriptor descA(long long buffer, int g, int ks) const {
    return at(buffer + offset(64 * g, bytesPerStep * ks));
  }
  WgmmaDescriptor descB(long long buffer, int ks) const { return at(buffer + aBytes + offset(0, bytesPerStep * ks)); }

 private:
  WgmmaDescriptor at(long long start) const {
    return {static_cast<unsigned>(start), static_cast<unsigned>(lbo), static_cast<unsigned>(sbo), 0,
            WgmmaSwizzle::None};
  }
};
WgmmaStage wgmmaStage(const CorrelatorSpec& s, int rowsPerBlock);
constexpr int kWgmmaMaxShared = 227 * 1024;  // sm_90's dynamic shared memory per block
// Whether emission for `arch` takes the wgmma path: sm_90 / sm_90a, tuning.mma "auto" with 8-bit / f16 samples and 128
// rows per block or "wgmma" with 64 or 128, and the two stage buffers within 227 KiB.
bool correlatorUsesWgmma(const CorrelatorSpec& s, const std::string& arch);

// (ti, tj), ti <= tj, of triangle tile `tile` (column-major over the upper triangle: tj(tj+1)/2 + ti), as the kernel
// decodes it.
void tileCoords(long long tile, int& ti, int& tj);

struct ConsistencyIssue {
  std::string path, message;
};
struct ConsistencyReport {
  std::vector<ConsistencyIssue> issues;
  std::vector<std::string> proved;  // one line per property checked
  long long storesChecked = 0;
};
// ldmatrix .x4 as PTX defines it, read through an address layout: does every (lane, register) receive the word
// that `operand` says it holds? Word bits inside a 16-byte row are `words`[0..1] (time order in shared memory),
// the logical bits of a row are the address layout's; `extraReg` is register bit 1's name where `operand` has
// only one register bit. Appends issues under `path`.
void checkLdmatrix(const Layout& operand, const Layout& addr, const std::vector<std::string>& words,
                   const std::string& extraReg, const std::string& path, std::vector<ConsistencyIssue>& issues);

// `mma`: layouts to check instead of correlatorMma()'s (tests hand in mutated ones). Checks both MMA paths'
// tilings (mma.sync, and wgmma where the tile allows it) and the wgmma path's shared-memory descriptors.
ConsistencyReport correlatorConsistency(const CorrelatorSpec& s, const CorrelatorMma* mma = nullptr);

// The wgmma path's descriptor check: every (row, k byte) the staging stores is where PTX's canonical no-swizzle
// K-major layout, read through the emitter's descriptors (start, lbo, sbo per warpgroup and k-step), finds it;
// staged bytes are disjoint and inside the buffer; descriptor fields fit. Appends issues under `path`.
void checkWgmmaDescriptors(const CorrelatorSpec& s, int rowsPerBlock, std::vector<ConsistencyIssue>& issues,
                           std::vector<std::string>& proved);

// The byte-level conj_perm of one 32-bit word of samples (as the kernel's code computes it):
// 8-bit: (re0, im0, re1, im1) -> (-im0, re0, -im1, re1); f16: (re, im) -> (-im, re).
std::uint32_t conjPermModel(std::uint32_t w, SampleType type);

}  // namespace warpforge
