#pragma once
// The pfb family's two kernels (PfbGeometry.h describes the split), built as ASTs and printed:
//   <name>_fir   FIR (each sample read once: a sliding window of T spectra per thread) + the column FFTs,
//                twiddled, to the scratch
//   <name>_post  the row FFTs, the r2c split, gain and delay phase, cf32 store or ci8 requantisation (saturations
//                counted per stream) into the correlator's layout
#include <string>

#include "generator/pfb/PfbGeometry.h"
#include "generator/pfb/PfbSpec.h"

namespace warpforge {

struct PfbKernels {
  std::string firName, postName;
  std::string firSource, postSource;
  PfbGeometry geometry;
};

// Which kernels emitPfb writes: the default, or one of bench's variants (each member the PfbGeometry flag of that
// name). previous and slotPerElement imply perItemPost.
struct PfbVariant {
  bool previous = false;        // the previous kernels (padded buffers, a fir thread per complex point)
  bool slotPerElement = false;  // pfb_slot per FFT buffer element
  bool perItemPost = false;     // the per-item post kernel
  bool phaseTables = true;      // the post kernel's delay phase from per-chunk tables
  bool firConstSlots = true;    // the fir kernel's slots as thread constants plus offsets
  int postBlocksPerSm = 0;      // the post kernel's launch bounds (0: PfbGeometry's rule)
  bool rowPairPost = false;     // cf32: the row-pair post kernel where the spectrum post kernel applies
  long long spectrumPostChannels = kMaxSpectrumPostChannels;  // cf32: the spectrum post kernel up to this length
  bool factoredSplitTwiddle = true;                           // the spectrum post kernel's split twiddle as two factors
  int spectrumPostThreads = 0;   // the spectrum post kernel's block (0: pfbSpectrumPostThreads)
  bool firSharedWeights = true;  // 17..24 taps: the fir kernel's weights in shared memory
  int firMinChunk = 8;           // the fir kernel's chunks: at least this many spectra (a multiple of T)
  int postPairLoop = -1;         // the row-pair post kernel's block loops over the row pairs: -1 PfbGeometry's rule
};
PfbKernels emitPfb(const PfbSpec& s, const PfbVariant& v = {});

// Parts shared by the emitters (PfbFirEmitter.cpp, PfbPostEmitter.cpp).
std::string pfbFirSource(const PfbSpec& s, const PfbGeometry& g, const std::string& name);
std::string pfbPostSource(const PfbSpec& s, const PfbGeometry& g, const std::string& name);
std::string pfbPostSpectrumSource(const PfbSpec& s, const PfbGeometry& g, const std::string& name);
std::string pfbPostItemSource(const PfbSpec& s, const PfbGeometry& g, const std::string& name);

}  // namespace warpforge
