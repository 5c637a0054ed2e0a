#pragma once
// IEEE binary16 rounding (round to nearest even, subnormals, overflow to inf),
// used by the emulator wherever the hardware rounds to f16.
namespace warpforge {
double roundToHalf(double x);
}
