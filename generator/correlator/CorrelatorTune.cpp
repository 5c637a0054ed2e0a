#include "generator/correlator/CorrelatorTune.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "generator/core/TuneTrials.h"
#include "generator/correlator/CorrelatorModel.h"
#include "generator/correlator/CorrelatorPlan.h"
#include "generator/correlator/Pipeline.h"
#include "generator/correlator/PipelineDirect.h"

namespace warpforge {

namespace {

// The members that make the spec as given emit what the generator chose for it on `arch`.
Json chosenMembers(const CorrelatorSpec& s, const std::string& arch) {
  const CorrelatorChoice c = chooseCorrelator(s, arch);
  Json j = Json::object();
  if (c.path != CorrelatorPath::Pipeline) {
    j["mma"] = c.path == CorrelatorPath::Wgmma ? "wgmma" : "mma_sync";
    j["receivers_per_block"] = s.tuning.receiversPerBlock;
    return j;
  }
  j["mma"] = "pipeline";
  j["whole_triangle"] = c.wholeTriangle;
  if (!c.wholeTriangle) j["receivers_per_block"] = c.rows / s.polarizations;
  if (c.direct) {  // the operands as stored (asked or by default): what replays that kernel
    j["stages_per_sync"] = s.tuning.stagesPerSyncGiven ? s.tuning.stagesPerSync : 1;
    if (s.tuning.stages) j["stages"] = s.tuning.stages;
    j["transform"] = "none";
    const DirectPipe p = directPipe(s, c.rows);
    j["row_copies"] = p.pairs ? "multicast" : p.bulkA ? "bulk" : "cp.async";
    j["column_copies"] = p.tensorB ? "tensor" : "cp.async";
    if (!p.pairs) j["persistent"] = p.persistent;
    if (p.bulkStore) j["store"] = "bulk";
    return j;
  }
  j["stages_per_sync"] = s.tuning.stagesPerSync;
  if (s.tuning.stages) j["stages"] = s.tuning.stages;
  if (s.tuning.rawStages) j["raw_stages"] = s.tuning.rawStages;
  j["transform"] = s.tuning.transform;
  return j;
}

std::string describe(const Json& m) {
  std::string out;
  for (auto it = m.begin(); it != m.end(); ++it)
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", it.key(), it.value().dump());
  return out;
}

}  // namespace

std::vector<CorrelatorTuneCandidate> correlatorTuneCandidates(const CorrelatorSpec& s, const std::string& arch) {
  std::vector<CorrelatorTuneCandidate> out{{s, chosenMembers(s, arch)}};
  auto add = [&](CorrelatorSpec c, Json members) {
    // A raw ring the spec gives stays in every pipeline candidate (its members must emit what was timed).
    if (s.tuning.rawStages && members["mma"] == "pipeline") members["raw_stages"] = s.tuning.rawStages;
    if (members == out.front().members) return;  // the spec as given, already first
    c.tuning.rowsGiven = members.contains("receivers_per_block");
    if (c.tuning.rowsGiven) c.tuning.receiversPerBlock = members["receivers_per_block"].get<int>();
    out.push_back({std::move(c), std::move(members)});
  };
  const bool sm90 = arch == "sm_90" || arch == "sm_90a";
  if (sm90 && !pipelineBlocker(s)) {
    // Block forms: square tiles of 64 and 128 rows, and the whole triangle where it fits one block.
    std::vector<int> forms{64, 128};
    if (pipeTriangleFits(s)) forms.push_back(0);
    // (stages per wait, operand slots): one stage on the default ring, two on 4 and 6 slots, four on 8.
    const std::pair<int, int> syncs[] = {{1, 0}, {2, 4}, {2, 6}, {4, 8}};
    for (const int rows : forms) {
      if (rows && rows % s.polarizations) continue;
      for (const auto& [perSync, slots] : syncs)
        for (const char* transform : {"shared", "loader", "split"}) {
          CorrelatorSpec c = s;
          c.tuning.mma = "pipeline";
          c.tuning.wholeTriangle = rows ? 0 : 1;
          c.tuning.stagesPerSync = perSync;
          c.tuning.stages = slots;
          c.tuning.transform = transform;
          c.tuning.transformGiven = true;
          // "split" only where one round of the consumers is part of B (else it is the shared transform's kernel).
          if (std::string(transform) == "split" && (!rows || !corrPipe(c, rows, slots, 0, true).bConsumerGroups))
            continue;
          Json m = Json::object();
          m["mma"] = "pipeline";
          m["whole_triangle"] = rows == 0;
          if (rows) m["receivers_per_block"] = rows / s.polarizations;
          m["stages_per_sync"] = perSync;
          if (slots) m["stages"] = slots;
          m["transform"] = transform;
          add(c, m);
        }
    }
  }
  // The operands as stored (transform "none"; ci8 with sample_range symmetric, cf16): square tiles, 4, 6 and 8 slots,
  // the row side by bulk copies (where the layout allows) and by cp.async.
  CorrelatorSpec asStored = s;
  asStored.tuning.transform = "none";
  if (sm90 && !pipelineBlocker(s) && !directBlocker(asStored))
    for (const int rows : {64, 128}) {
      if (rows % s.polarizations) continue;
      for (const int slots : {4, 6, 8})
        for (const int rowCopies : {1, 0}) {
          if (rowCopies == 1 && rowBulkBlocker(s)) continue;
          CorrelatorSpec c = asStored;
          c.tuning.bulkStore = -1;  // the visibilities from registers (a spec's "store" is not tuned)
          c.tuning.rowCopies = rowCopies;
          c.tuning.transformGiven = true;
          c.tuning.stagesPerSyncGiven = true;
          c.tuning.mma = "pipeline";
          c.tuning.wholeTriangle = 0;
          c.tuning.stagesPerSync = 1;
          c.tuning.stages = slots;
          if (!directSharedFits(directPipe(c, rows, slots))) continue;
          Json m = Json::object();
          m["mma"] = "pipeline";
          m["whole_triangle"] = false;
          m["receivers_per_block"] = rows / s.polarizations;
          m["stages_per_sync"] = 1;
          m["stages"] = slots;
          m["transform"] = "none";
          m["row_copies"] = rowCopies ? "bulk" : "cp.async";
          // (the column side by tensor copies wherever they apply: 1.15-1.34x its 16-byte copies at every shape timed)
          m["column_copies"] = directPipe(c, rows, slots).tensorB ? "tensor" : "cp.async";
          m["persistent"] = directPipe(c, rows, slots).persistent;
          add(c, m);
        }
    }
  // The paths before the pipeline, at the spec's tile.
  for (const char* mma : {"wgmma", "mma_sync"}) {
    if (std::string(mma) == "wgmma" && !sm90) continue;
    CorrelatorSpec c = s;
    c.tuning.mma = mma;
    Json m = Json::object();
    m["mma"] = mma;
    m["receivers_per_block"] = s.tuning.receiversPerBlock;
    add(c, m);
  }
  return out;
}

std::optional<TuneOutcome> tuneCorrelator(const CorrelatorSpec& s, TuneTimer& timer,
                                          const std::function<void(const TuneTrialReport&)>& onTrial) {
  const std::string arch = timer.arch();
  const std::vector<CorrelatorTuneCandidate> cands = correlatorTuneCandidates(s, arch);
  std::vector<std::optional<Generated>> plans(cands.size());
  std::vector<TuneTrialReport> reports(cands.size());
  for (std::size_t i = 0; i < cands.size(); ++i) {
    reports[i].stage = i == 0 ? "as given" : "kernel";
    reports[i].geometry = describe(cands[i].members);
    try {
      LaunchPlan plan = correlatorLaunchPlan(cands[i].spec, emitCorrelatorFor(cands[i].spec, arch));
      // Members that change nothing on this shape (e.g. a transform the block form does not use) are not timed twice.
      for (std::size_t j = 0; j < i; ++j)
        if (plans[j] && plans[j]->plan.sources.size() == plan.sources.size() &&
            std::equal(plan.sources.begin(), plan.sources.end(), plans[j]->plan.sources.begin(),
                       [](const KernelSource& a, const KernelSource& b) { return a.text == b.text; }))
          throw std::runtime_error(fmt::format("the same kernels as trial {}", j + 1));
      plans[i] = Generated{std::move(plan)};
    } catch (const std::exception& e) {
      reports[i].error = e.what();
    }
  }
  TuneOutcome o = timeTuneTrials(timer, plans, std::move(reports), s.name, onTrial);
  o.specMembers["tuning"] = cands[o.best].members;
  return o;
}

}  // namespace warpforge
