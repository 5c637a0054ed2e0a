#include "generator/core/PlanCompose.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace warpforge {

void appendPlan(LaunchPlan& into, const LaunchPlan& part, const std::map<std::string, std::string>& bufferMap,
                const std::string& prefix, long long unitsPerEntry) {
  if (!part.params.empty())
    throw std::logic_error(
        fmt::format("appendPlan: plan {} has run-time parameters ({}), which a composed plan cannot set yet",
                    part.specName, part.params.front().name));
  auto rename = [&](const std::string& name) -> std::string {
    const PlanBuffer* b = part.buffer(name);
    if (!b) throw std::logic_error(fmt::format("appendPlan: plan {} names unknown buffer {}", part.specName, name));
    if (b->isUser()) {
      auto it = bufferMap.find(name);
      if (it == bufferMap.end())
        throw std::logic_error(fmt::format("appendPlan: user array {} of plan {} is not mapped", name, part.specName));
      if (!into.buffer(it->second))
        throw std::logic_error(fmt::format("appendPlan: {} is mapped to {}, which the plan lacks", name, it->second));
      return it->second;
    }
    return prefix + name;
  };
  for (const PlanBuffer& b : part.buffers) {
    if (b.isUser()) {
      rename(b.name);  // checks the mapping
      continue;
    }
    PlanBuffer c = b;
    c.name = prefix + b.name;
    if (c.role == BufferRole::Scratch) {
      if (!c.perBatchParam.empty())
        throw std::logic_error(
            fmt::format("appendPlan: scratch {} of plan {} is sized by a parameter", b.name, part.specName));
      c.perBatchElems *= unitsPerEntry;
    }
    c.note = fmt::format("{} (from plan {})", b.note, part.specName);
    if (into.buffer(c.name)) throw std::logic_error(fmt::format("appendPlan: buffer {} exists already", c.name));
    into.buffers.push_back(std::move(c));
  }
  const int sourceOffset = static_cast<int>(into.sources.size());
  for (const KernelSource& s : part.sources) into.sources.push_back(s);
  for (const std::string& h : part.helpers)
    if (std::find(into.helpers.begin(), into.helpers.end(), h) == into.helpers.end()) into.helpers.push_back(h);
  for (const PlanKernel& k : part.kernels) {
    PlanKernel c = k;
    c.source += sourceOffset;
    c.grid.unitsPerBatch *= unitsPerEntry;
    for (PlanArg& a : c.args) {
      if (a.kind == PlanArg::Kind::Buffer || a.kind == PlanArg::Kind::TensorMap) a.name = rename(a.name);
      if (a.kind == PlanArg::Kind::BatchTimes) a.value *= unitsPerEntry;
      // A tensor map's batch dimension spans the part's batch entries of each of the outer plan's.
      if (a.kind == PlanArg::Kind::TensorMap && a.map.batchDim >= 0)
        a.map.dims[static_cast<std::size_t>(a.map.batchDim)] *= unitsPerEntry;
    }
    c.note = fmt::format("{} [{} of plan {} per batch entry]", k.note, unitsPerEntry, part.specName);
    into.kernels.push_back(std::move(c));
  }
  into.minArch = std::max(into.minArch, part.minArch);
  if (part.onlyArch) into.onlyArch = part.onlyArch;
}

}  // namespace warpforge
