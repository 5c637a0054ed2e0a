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

// previous: the previous kernels (PfbGeometry::previous), bench's "previous kernels" variant; slotPerElement:
// PfbGeometry::slotPerElement (bench's "a slot per element" variant); perItemPost: PfbGeometry::perItemPost (bench's
// "post kernel per item" variant). The first two imply the third.
PfbKernels emitPfb(const PfbSpec& s, bool previous = false, bool slotPerElement = false, bool perItemPost = false);

// Parts shared by the emitters (PfbFirEmitter.cpp, PfbPostEmitter.cpp).
std::string pfbFirSource(const PfbSpec& s, const PfbGeometry& g, const std::string& name);
std::string pfbPostSource(const PfbSpec& s, const PfbGeometry& g, const std::string& name);
std::string pfbPostItemSource(const PfbSpec& s, const PfbGeometry& g, const std::string& name);

}  // namespace warpforge
