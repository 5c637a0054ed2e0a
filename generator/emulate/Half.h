#pragma once
// IEEE binary16 rounding (round to nearest even, subnormals, overflow to inf),
// used by the emulator wherever the hardware rounds to f16.
#include <cstdint>

namespace warpforge {
double roundToHalf(double x);
// IEEE binary16 bit patterns: x rounded to nearest even, and back.
std::uint16_t floatToHalfBits(double x);
double halfBitsToDouble(std::uint16_t h);
}  // namespace warpforge
