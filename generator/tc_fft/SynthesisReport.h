#pragma once
// The synthesizer's ranking as `explain` prints it: the chosen design and the runners-up's costs.
#include <string>

#include "generator/tc_fft/Synthesizer.h"

namespace warpforge {

std::string formatSynthesis(const TcFftSynthesis& s);

}  // namespace warpforge
