#pragma once
// Reads a tc_fft spec (specs/chime_fft_256_512.json) into a LayoutProgram,
// checking its form: fields, names, sizes, layout syntax. Consistency between
// steps is the Verifier's job.
#include <string>

#include "generator/core/JsonReader.h"
#include "generator/verify/Program.h"

namespace warpforge {

LayoutProgram parseTcFftSpec(const Json& root, const std::string& file);
LayoutProgram parseTcFftSpecText(const std::string& text, const std::string& file);
LayoutProgram parseTcFftSpecFile(const std::string& file);

}  // namespace warpforge
