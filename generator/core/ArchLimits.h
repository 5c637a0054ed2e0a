#pragma once
// Hardware limits of the architectures the families emit for, where a plan's shape depends on them.
#include <string>

namespace warpforge {

// Dynamic shared memory one block of `arch` may opt in to (bytes): 99 KiB on sm_86, sm_89 and sm_12x, 163 KiB on
// sm_80 and sm_87, 227 KiB on sm_90 and sm_100.
inline long long maxSharedPerBlock(const std::string& arch) {
  if (arch == "sm_86" || arch == "sm_89" || arch == "sm_120" || arch == "sm_121") return 99 * 1024;
  if (arch == "sm_80" || arch == "sm_87") return 163 * 1024;
  return 227 * 1024;
}

}  // namespace warpforge
