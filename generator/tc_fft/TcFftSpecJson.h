#pragma once
// A layout program written back as a complete tc_fft spec (what `warpforge synthesize` prints): every array with its
// layout, phase factors and packed form, every step with its description. Parsing the text gives the same program.
#include <string>

#include "generator/verify/Program.h"
#include "warpforge/json.h"

namespace warpforge {

Json tcFftSpecJson(const LayoutProgram& program);
std::string tcFftSpecText(const LayoutProgram& program);

}  // namespace warpforge
