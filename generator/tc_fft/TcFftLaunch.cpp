#include "generator/tc_fft/TcFftLaunch.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "templates/Embedded.h"

namespace warpforge {

namespace {
// The names of `#include "name"` lines in `text`, in order.
std::vector<std::string> quotedIncludes(const std::string& text) {
  std::vector<std::string> names;
  const std::string directive = "#include";
  for (std::size_t at = text.find(directive); at != std::string::npos; at = text.find(directive, at + 1)) {
    std::size_t q = at + directive.size();
    if (q >= text.size() || (text[q] != ' ' && text[q] != '\t')) continue;
    while (q < text.size() && (text[q] == ' ' || text[q] == '\t')) ++q;
    if (q >= text.size() || text[q] != '"') continue;
    const std::size_t end = text.find_first_of("\"\n", q + 1);
    if (end != std::string::npos && text[end] == '"') names.push_back(text.substr(q + 1, end - q - 1));
  }
  return names;
}

void addIncludes(const std::string& text, std::vector<std::string>& out) {
  for (const std::string& name : quotedIncludes(text)) {
    if (std::find(out.begin(), out.end(), name) != out.end()) continue;
    for (const auto& e : embeddedTemplates())
      if (name == e.name) {
        out.push_back(name);
        addIncludes(e.text, out);
      }
  }
}
}  // namespace

std::vector<std::string> includedHelpers(const std::string& source) {
  std::vector<std::string> out;
  addIncludes(source, out);
  return out;
}

LaunchPlan tcFftLaunchPlan(const EmittedKernel& k, TcFftDistances d) {
  const LaunchInfo& li = k.launch;
  const long long inDist = d.input ? d.input : li.nIn, outDist = d.output ? d.output : li.nOut;
  if (inDist < li.nIn || inDist % li.inputVectorElems || outDist < li.nOut || outDist % li.outputVectorElems)
    throw std::invalid_argument(
        fmt::format("{}: distances ({}, {}) must be at least ({}, {}) and multiples of ({}, {})", li.specName, inDist,
                    outDist, li.nIn, li.nOut, li.inputVectorElems, li.outputVectorElems));
  LaunchPlan p;
  p.specName = li.specName;
  p.family = "tc_fft";
  p.unitName = "FFT";
  p.minArch = li.minArch;
  p.sources.push_back({li.kernelName + ".cu", k.source});
  p.helpers = includedHelpers(k.source);

  const std::string elems = "interleaved complex f16, real part in the low half";
  PlanBuffer in;
  in.name = "input";
  in.role = BufferRole::Input;
  in.elementType = li.elementType;
  in.elementBytes = 4;
  in.perBatchElems = inDist;
  in.perBatchParam = "input_distance";
  in.alignment = 4 * li.inputVectorElems;  // 16-byte vector loads
  in.note = fmt::format("FFT b reads input[b * input_distance + n], 0 <= n < {}; {}", li.nIn, elems);
  PlanBuffer out = in;
  out.name = "output";
  out.role = BufferRole::Output;
  out.perBatchElems = outDist;
  out.perBatchParam = "output_distance";
  out.alignment = 4 * li.outputVectorElems;
  out.note = fmt::format(
      "FFT b writes output[b * output_distance + q], 0 <= q < {}; {}; the padding between FFTs is left untouched",
      li.nOut, elems);
  p.buffers = {in, out};

  PlanParam pin{"input_distance", "long long",         inDist,
                li.nIn,           li.inputVectorElems, "complex elements from one FFT's input to the next"};
  PlanParam pout{"output_distance", "long long",          outDist,
                 li.nOut,           li.outputVectorElems, "complex elements from one FFT's output to the next"};
  p.params = {pin, pout};

  PlanKernel kern;
  kern.name = li.kernelName;
  kern.source = 0;
  kern.blockX = li.blockThreads;
  kern.sharedBytes = li.dynamicSharedBytes;
  kern.grid = GridRule{1, li.fftsPerBlock, true};  // grid-stride over FFTs, one per warp per step
  kern.args = {PlanArg::buffer("input", "const __half2*", "input"), PlanArg::buffer("output", "__half2*", "output"),
               PlanArg::batchTimes(1, "batch"), PlanArg::scalar("input_distance", "long long"),
               PlanArg::scalar("output_distance", "long long")};
  if (li.inRegisterBenchmark) {
    p.params.push_back(
        PlanParam{"repeats", "int", 1, 1, 1, "times the steps repeat on register-resident data per load"});
    kern.args.push_back(PlanArg::scalar("repeats", "int"));
    kern.note = "in-register benchmark: loads once, repeats the steps, stores once";
  }
  p.kernels.push_back(kern);
  p.check();
  return p;
}

}  // namespace warpforge
