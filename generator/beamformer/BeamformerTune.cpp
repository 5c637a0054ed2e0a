#include "generator/beamformer/BeamformerTune.h"

#include <fmt/format.h>

#include "generator/beamformer/BeamformerEmitter.h"
#include "generator/beamformer/BeamformerFamily.h"
#include "generator/beamformer/BeamformerLayouts.h"
#include "generator/beamformer/BeamformerWgmma.h"
#include "generator/core/TuneTrials.h"

namespace warpforge {

namespace {

std::string geometry(const BfTiling& t, int minBlocks) {
  return fmt::format("{} samples x {} beams, {} x {} warps of {} x {}, {} stage{}, min blocks {}", t.times, t.beams,
                     t.warpsT, t.warpsM, t.warpTimes, t.warpBeams, t.stages, t.stages > 1 ? "s" : "",
                     minBlocks ? std::to_string(minBlocks) : "auto");
}

Json members(const BfTiling& t, int minBlocks) {
  Json j = Json::object();
  j["block_times"] = t.times;
  j["block_beams"] = t.beams;
  j["warp_times"] = t.warpTimes;
  j["warp_beams"] = t.warpBeams;
  j["stages"] = t.stages;
  if (minBlocks) j["min_blocks"] = minBlocks;
  return j;  // "loads" stays the spec's (not tuned: wide where the layout allows)
}

}  // namespace

std::vector<BeamformerSpec> bfTuneCandidates(const BeamformerSpec& s) {
  std::vector<BeamformerSpec> out{s};
  // The sm_90 kernel's tiles and ring depths (taken on sm_90 only; elsewhere they emit the mma.sync kernel as given).
  if (!bfWgmmaBlocker(s))
    for (int beams : {64, 128, 256})
      for (int stages : {3, 4, 6}) {
        BeamformerSpec c = s;
        c.tuning.blockBeams = beams;
        c.tuning.stages = stages;
        c.tuning.mma = "wgmma";
        if (beams >= s.beams + 64 || bfWgmmaBlocker(c) || (beams == bfWgmma(s).n && stages == bfWgmma(s).stages))
          continue;
        out.push_back(c);
      }
  const BfMma m = bfMma(s.in.type);
  const long long mCap = (s.beams + 31) / 32 * 32 + 32;  // no block far wider than M
  // The spec's tile with each register budget (__launch_bounds__ min blocks 1, 2, 3).
  for (int mb : {1, 2, 3})
    if (mb != s.tuning.minBlocks) {
      BeamformerSpec c = s;
      c.tuning.minBlocks = mb;
      out.push_back(c);
    }
  const int defStages =
      bfTiling(s, m).stages;  // every tile at the default depth, the other depth at the default tile only
  for (int stages : {defStages, 3 - defStages})
    for (int B : {32, 48, 64, 96, 128})
      for (int WB : {16, 24, 32})
        for (int T : {32, 64, 128})
          for (int WT : {16, 32, 64}) {
            if (B % WB || T % WT || B > mCap) continue;
            if (stages != defStages && !(B == bfTiling(s, m).beams && T == bfTiling(s, m).times))
              continue;  // the other depth: the default tile, to A/B the pipeline
            const int warps = (B / WB) * (T / WT);
            if (warps < 2 || warps > 16) continue;
            BeamformerSpec c = s;
            c.tuning = BfTuning{T, B, WT, WB, stages, s.tuning.minBlocks, s.tuning.wordLoads, s.tuning.expand};
            const BfTiling t = bfTiling(c, m);
            if (!bfTilingProblems(c, t).empty()) continue;
            if (geometry(t, 0) == geometry(bfTiling(s, m), 0)) continue;  // the spec's own, already first
            out.push_back(c);
          }
  return out;
}

std::optional<TuneOutcome> tuneBeamformer(const BeamformerSpec& s, TuneTimer& timer,
                                          const std::function<void(const TuneTrialReport&)>& onTrial) {
  std::vector<BeamformerSpec> cands;
  for (const auto& c : bfTuneCandidates(s))
    if (c.tuning.mma != "wgmma" || s.tuning.mma == "wgmma" || bfUsesWgmma(c, timer.arch()))
      cands.push_back(c);  // wgmma tiles on sm_90 only
  const BfMma m = bfMma(s.in.type);
  std::vector<std::optional<Generated>> plans(cands.size());
  std::vector<TuneTrialReport> reports(cands.size());
  for (std::size_t i = 0; i < cands.size(); ++i) {
    reports[i].stage = i == 0 ? "as given" : "tile";
    reports[i].geometry = bfUsesWgmma(cands[i], timer.arch())
                              ? fmt::format("wgmma: 64 samples x {} beams, a ring of {} stages, min blocks {}",
                                            bfWgmma(cands[i]).n, bfWgmma(cands[i]).stages,
                                            cands[i].tuning.minBlocks ? std::to_string(cands[i].tuning.minBlocks)
                                                                      : "auto")
                              : geometry(bfTiling(cands[i], m), cands[i].tuning.minBlocks);
    try {
      const BfConsistency c = bfConsistency(cands[i]);
      if (!c.issues.empty()) throw std::runtime_error(c.issues[0].path + ": " + c.issues[0].message);
      plans[i] = Generated{
          beamformerLaunchPlan(cands[i], emitBeamformer(cands[i], EmitTarget{timer.arch(), timer.probe()}))};
    } catch (const std::exception& e) {
      reports[i].error = e.what();
    }
  }
  TuneOutcome o = timeTuneTrials(timer, plans, std::move(reports), s.name, onTrial);
  // Record what was timed: the wgmma kernel's members where the winner took that path on this GPU (its mma.sync
  // tiling members would turn it off), else the mma.sync tiling.
  const BeamformerSpec& win = cands[o.best];
  if (bfUsesWgmma(win, timer.arch())) {
    Json j = Json::object();
    j["mma"] = "wgmma";
    j["block_beams"] = bfWgmma(win).n;
    j["stages"] = bfWgmma(win).stages;
    if (win.tuning.minBlocks) j["min_blocks"] = win.tuning.minBlocks;
    o.specMembers["tuning"] = j;
  } else {
    Json j = members(bfTiling(win, m), win.tuning.minBlocks);
    j["mma"] = "mma_sync";
    o.specMembers["tuning"] = j;
  }
  return o;
}

}  // namespace warpforge
