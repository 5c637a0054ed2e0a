#include "generator/tc_fft/TcFftSpecJson.h"

#include <fmt/format.h>

namespace warpforge {

namespace {

Json factorJson(const PhaseFactor& f) {
  Json j = Json::object();
  j["q"] = f.q;
  j["n"] = f.n;
  return j;
}

const char* opName(StepOp op) {
  switch (op) {
    case StepOp::Mma: return "mma";
    case StepOp::Cmul: return "cmul";
    case StepOp::Relayout: return "relayout";
  }
  return "?";
}

}  // namespace

Json tcFftSpecJson(const LayoutProgram& p) {
  Json root = Json::object();
  root["name"] = p.name;
  root["family"] = "tc_fft";
  if (!p.description.empty()) root["description"] = p.description;
  root["precision"] = p.precision;
  // The accumulation chosen and why, where it is not the plain default (f16, no accuracy asked).
  if (p.accumulate != "f16" || p.maxError > 0) {
    root["accumulate"] = p.accumulate;
    if (p.maxError > 0) root["max_error"] = p.maxError;
    if (!p.accumulateReason.empty()) root["accumulate_reason"] = p.accumulateReason;
  }
  root["transform"] = {{"n_in", p.nIn}, {"n_out", p.nOut}, {"sign", p.sign}};
  Json arrays = Json::object();
  for (const auto& a : p.arrays) {
    Json j = Json::object();
    if (!a.description.empty()) j["description"] = a.description;
    if (a.isPhase()) {
      if (a.phase.size() == 1) {
        j["phase"] = factorJson(a.phase.front());
      } else {
        j["phase"] = Json::array();
        for (const auto& f : a.phase) j["phase"].push_back(factorJson(f));
      }
      if (!a.constantOver.empty()) j["constant_over"] = a.constantOver;
    }
    j["layout"] = a.layout.str();
    if (a.stored) j["stored"] = a.stored->str();
    arrays[a.name] = j;
  }
  root["arrays"] = arrays;
  Json steps = Json::array();
  for (const auto& s : p.steps) {
    Json j = Json::object();
    j["op"] = opName(s.op);
    if (s.op == StepOp::Mma) j["shape"] = s.shape;
    if (!s.a.empty()) j["a"] = s.a;
    j["b"] = s.b;
    j["c"] = s.c;
    if (s.op == StepOp::Mma) j["sum"] = s.sum;
    if (!s.description.empty()) j["description"] = s.description;
    steps.push_back(j);
  }
  root["steps"] = steps;
  root["io"] = {{"input", p.input}, {"output", p.output}};
  root["launch"] = {{"warps_per_block", p.warpsPerBlock}};
  return root;
}

std::string tcFftSpecText(const LayoutProgram& p) { return tcFftSpecJson(p).dump(2) + "\n"; }

}  // namespace warpforge
