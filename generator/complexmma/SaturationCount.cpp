#include "generator/complexmma/SaturationCount.h"

#include <fmt/format.h>

namespace warpforge::cmma {

using namespace ast;

std::vector<PlanBuffer> saturationCountBuffers(const std::string& savedNote, const std::string& countNote, const std::string& doneNote) {
  PlanBuffer sat;
  sat.name = "saturated";
  sat.role = BufferRole::Output;
  sat.elementType = "unsigned long long";
  sat.elementBytes = 8;
  sat.fixedElems = 1;
  sat.note = savedNote;
  PlanBuffer count = sat;
  count.name = "sat_count";
  count.role = BufferRole::Counter;
  count.note = countNote;
  PlanBuffer done = count;
  done.name = "blocks_done";
  done.elementType = "unsigned int";
  done.elementBytes = 4;
  done.note = doneNote;
  return {sat, count, done};
}

std::vector<NodePtr> publishSaturationCount(const std::string& parts, int warps) {
  std::vector<NodePtr> last;
  last.push_back(raw("unsigned long long total = 0;"));
  last.push_back(raw(fmt::format("for (int i = 0; i < {}; ++i) total += {}[i];", warps, parts)));
  last.push_back(raw("if (total) atomicAdd(sat_count, total);"));
  last.push_back(raw("__threadfence();"));
  last.push_back(raw("if (atomicAdd(blocks_done, 1u) == gridDim.x - 1) {"));
  last.push_back(raw("  __threadfence();"));
  last.push_back(raw("  saturated[0] = atomicExch(sat_count, 0ull);"));
  last.push_back(raw("  atomicExch(blocks_done, 0u);"));
  last.push_back(raw("}"));
  return last;
}

}  // namespace warpforge::cmma
