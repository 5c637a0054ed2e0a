#pragma once
// Finding a family's optional facets (generator/core/Facets.h): nullptr where the family has none.
#include "generator/core/Facets.h"

namespace warpforge {

inline const BenchFacet* benchFacet(const FamilySpec& spec) { return dynamic_cast<const BenchFacet*>(&spec); }
inline const TuneFacet* tuneFacet(const FamilySpec& spec) { return dynamic_cast<const TuneFacet*>(&spec); }
inline const EmulateFacet* emulateFacet(const FamilySpec& spec) { return dynamic_cast<const EmulateFacet*>(&spec); }
inline const SweepFacet* sweepFacet(const Family& family) { return dynamic_cast<const SweepFacet*>(&family); }

// The spec's baseline request; nullopt where it has none.
inline std::optional<BaselineRequest> baselineOf(const FamilySpec& spec) {
  const BenchFacet* b = benchFacet(spec);
  return b ? b->baseline() : std::nullopt;
}

}  // namespace warpforge
