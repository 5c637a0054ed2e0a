#pragma once
// Reads a tc_fft spec (specs/chime_fft_256_512.json) into a LayoutProgram,
// checking its form: fields, names, sizes, layout syntax. Consistency between
// steps is the Verifier's job.
#include <optional>
#include <string>

#include "generator/core/JsonReader.h"
#include "generator/tc_fft/Synthesizer.h"
#include "generator/verify/Program.h"

namespace warpforge {

// A spec with arrays and steps is read as written; one with neither gets a synthesized design
// (generator/tc_fft/Synthesizer.h), returned with the search's ranking.
struct TcFftParsed {
  LayoutProgram program;
  std::optional<TcFftSynthesis> synthesis;
};
TcFftParsed parseTcFft(const Json& root, const std::string& file);

LayoutProgram parseTcFftSpec(const Json& root, const std::string& file);
LayoutProgram parseTcFftSpecText(const std::string& text, const std::string& file);
LayoutProgram parseTcFftSpecFile(const std::string& file);

}  // namespace warpforge
