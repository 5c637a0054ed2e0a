#include <charconv>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "generator/tc_fft/TcFftParser.h"
#include "generator/core/JsonReader.h"
#include "generator/layout/FragmentTable.h"
#include "generator/verify/PhaseValue.h"
#include "generator/tc_fft/Synthesizer.h"
#include "generator/tc_fft/TcFftData.h"
#include "warpforge/spec_error.h"

namespace warpforge {

namespace {

using Reader = JsonReader;

// What one spec may ask for: a thread has 255 registers, so an array of more than
// 2^7 registers per thread cannot be held, and the emitted kernel grows with the
// number of steps (each is unrolled over every register).
constexpr int kMaxRegisterBits = 7;
constexpr std::size_t kMaxArrays = 64;
constexpr std::size_t kMaxSteps = 64;

int log2Exact(int v) {
  int l = 0;
  while ((1 << l) < v) ++l;
  return (1 << l) == v ? l : -1;
}

// Batch bits f0, f1, ...: at most 2^kMaxBatchBits FFTs per warp.
constexpr int kMaxBatchBits = 5;

void checkLayoutNames(const Reader& rd, const LayoutProgram& s, const ArraySpec& a, const Layout& lay,
                      const std::string& path, bool stored) {
  std::set<std::string> halves;
  for (const auto& e : lay.entries()) {
    const std::string l = passBase(e.logical);
    if (l[0] == 'n' || l[0] == 'q' || l[0] == 'f') {
      int idx = 0;  // Layout::parse admits only small decimal indices
      std::from_chars(l.data() + 1, l.data() + l.size(), idx);
      // n bits run to log2 n_out: the input may carry zero-padding bits (n >= n_in, never read).
      int lim = l[0] == 'f' ? kMaxBatchBits : s.logOut;
      if (idx >= lim)
        rd.fail(path,
                l[0] == 'f'
                    ? fmt::format("batch bit {} does not exist: batch bits run f0..f{} (at most {} FFTs per warp)", l,
                                  kMaxBatchBits - 1, 1 << kMaxBatchBits)
                    : fmt::format("logical bit {} does not exist: {}-bits run {}0..{}{} for n_out = {}{}", l, l[0],
                                  l[0], l[0], lim - 1, s.nOut,
                                  l[0] == 'n' ? " (n bits from log2 n_in up are zero padding)" : ""));
    }
    if (e.logical != l) {
      if (!a.isPhase() || (stored && l == "ReIm"))
        rd.fail(path, fmt::format("logical bit {} is only allowed in the operand layout of a phase array (a "
                                  "pass-through pair of an MMA operand)",
                                  e.logical));
      halves.insert(e.logical);
    }
    if (e.phys.kind == PhysKind::W) rd.fail(path, "warp bits (w) are not supported by the tc_fft family yet");
  }
  for (const auto& h : halves) {
    const std::string other = passBase(h) + (isPassIn(h) ? "_out" : "_in");
    if (!halves.count(other))
      rd.fail(path,
              fmt::format("{} needs its other half {} (a pass-through pair: {} on a j bit of the MMA, {} on an i bit)",
                          h, other, passBase(h) + "_in", passBase(h) + "_out"));
  }
  if (lay.count(PhysKind::B) != 1)
    rd.fail(path, fmt::format("an f16 array needs exactly one b bit (two halves per 32-bit register), found {}",
                              lay.count(PhysKind::B)));
  if (lay.count(PhysKind::R) > kMaxRegisterBits)
    rd.fail(path, fmt::format("{} register bits ask for {} registers per thread for one array (at most {}: 2^{})",
                              lay.count(PhysKind::R), 1LL << lay.count(PhysKind::R), 1 << kMaxRegisterBits,
                              kMaxRegisterBits));
  if (lay.count(PhysKind::T) != 5)
    rd.fail(path, fmt::format("a warp-held array needs exactly 5 lane bits t0..t4, found {}", lay.count(PhysKind::T)));
  if (a.isPhase()) {
    std::set<std::string> factorBits, want;
    for (const auto& f : a.phase) {
      for (int q : f.q) factorBits.insert(fmt::format("q{}", q));
      for (int n : f.n) factorBits.insert(fmt::format("n{}", n));
    }
    want = factorBits;
    want.insert(a.constantOver.begin(), a.constantOver.end());
    std::set<std::string> have;
    for (const auto& e : lay.entries())
      if (passBase(e.logical) != "ReIm") have.insert(passBase(e.logical));
    if (have != want) {
      std::string factors;
      for (const auto& f : a.phase)
        factors += fmt::format("{}E(q{{{}}}, n{{{}}})", factors.empty() ? "" : " ", fmt::join(f.q, ","),
                               fmt::join(f.n, ","));
      rd.fail(path, fmt::format("phase array {} must carry exactly the bits {{{}}}{}, found {{{}}}", factors,
                                fmt::join(want, " "), a.constantOver.empty() ? "" : " (factor bits and constant_over)",
                                fmt::join(have, " ")));
    }
    bool hasIn = lay.hasLogical("ReIm_in"), hasOut = lay.hasLogical("ReIm_out"), hasRe = lay.hasLogical("ReIm");
    if (stored ? !hasRe : !((hasIn && hasOut && !hasRe) || (hasRe && !hasIn && !hasOut)))
      rd.fail(path,
              stored
                  ? "a stored phase layout must carry ReIm"
                  : "a phase layout must carry either ReIm (elementwise) or both ReIm_in and ReIm_out (MMA operand)");
    if (!stored && hasRe && halves.size())
      rd.fail(path, fmt::format("{}: pass-through pairs belong to MMA operands (ReIm_in, ReIm_out), not to an "
                                "elementwise phase",
                                *halves.begin()));
  } else if (!lay.hasLogical("ReIm")) {
    rd.fail(path, "a data array must carry the ReIm bit");
  }
}

std::vector<PhaseFactor> parsePhase(const Reader& rd, const LayoutProgram& s, const Json& p, const std::string& pp) {
  auto one = [&](const Json& f, const std::string& fp) {
    rd.needObject(f, fp);
    rd.onlyKeys(f, fp, {"q", "n"});
    return PhaseFactor{rd.intList(rd.need(f, fp, "q"), fp + "/q", 0, s.logOut - 1),
                       rd.intList(rd.need(f, fp, "n"), fp + "/n", 0, s.logOut - 1)};
  };
  if (!p.is_array()) return {one(p, pp)};
  if (p.empty()) rd.fail(pp, "expected one or more factors {\"q\": [...], \"n\": [...]}, found an empty list");
  std::vector<PhaseFactor> out;
  for (std::size_t i = 0; i < p.size(); ++i) out.push_back(one(p[i], fmt::format("{}/{}", pp, i)));
  return out;
}

ArraySpec parseArray(const Reader& rd, const LayoutProgram& s, const std::string& name, const Json& j,
                     const std::string& path) {
  rd.needObject(j, path);
  rd.onlyKeys(j, path, {"layout", "phase", "stored", "constant_over", "description"});
  ArraySpec a;
  a.name = name;
  a.path = path;
  if (j.contains("description")) a.description = rd.string(j["description"], path + "/description");
  // Array names are emitted with a prefix (a_<name>, ...), so any identifier is safe.
  if (!JsonReader::isIdentifier(name))
    rd.fail(path, fmt::format("array name '{}' must be a C identifier", JsonReader::printable(name)));
  if (name.size() > JsonReader::kMaxNameLength)
    rd.fail(path,
            fmt::format("array name is {} characters long (at most {})", name.size(), JsonReader::kMaxNameLength));
  if (j.contains("phase")) a.phase = parsePhase(rd, s, j["phase"], Reader::child(path, "phase"));
  if (j.contains("constant_over")) {
    const std::string cp = path + "/constant_over";
    if (!a.isPhase()) rd.fail(cp, "only phase arrays may list constant_over bits");
    const Json& c = j["constant_over"];
    if (!c.is_array()) rd.fail(cp, fmt::format("expected an array of bit names, found {}", c.type_name()));
    for (std::size_t i = 0; i < c.size(); ++i) a.constantOver.push_back(rd.string(c[i], fmt::format("{}/{}", cp, i)));
  }
  a.layout = rd.layout(rd.need(j, path, "layout"), path + "/layout");
  checkLayoutNames(rd, s, a, a.layout, path + "/layout", false);
  if (j.contains("stored")) {
    if (!a.isPhase()) rd.fail(path + "/stored", "only phase arrays may give a stored layout");
    a.stored = rd.layout(j["stored"], path + "/stored");
    checkLayoutNames(rd, s, a, *a.stored, path + "/stored", true);
  }
  return a;
}

StepSpec parseStep(const Reader& rd, const LayoutProgram& s, const Json& j, const std::string& path) {
  rd.needObject(j, path);
  StepSpec st;
  st.path = path;
  if (j.is_object() && j.contains("description")) st.description = rd.string(j["description"], path + "/description");
  std::string op = rd.string(rd.need(j, path, "op"), path + "/op");
  auto ref = [&](const char* key, bool wantPhase) {
    std::string p = Reader::child(path, key);
    std::string n = rd.string(rd.need(j, path, key), p);
    const ArraySpec* a = s.array(n);
    if (!a) rd.fail(p, fmt::format("no array named '{}' in /arrays", n));
    if (a->isPhase() != wantPhase)
      rd.fail(p, fmt::format("array '{}' is {} a phase array, but this operand must {}be one", n,
                             a->isPhase() ? "" : "not", wantPhase ? "" : "not "));
    return n;
  };
  if (op == "mma") {
    st.op = StepOp::Mma;
    rd.onlyKeys(j, path, {"op", "shape", "a", "b", "c", "sum", "description"});
    st.shape = rd.string(rd.need(j, path, "shape"), path + "/shape");
    // A name the fragment tables do not know is malformed input, whatever the accumulators (the verifier then checks
    // the shape against the accumulation the spec settles on).
    if (!findMmaShape(st.shape, s.precision) && !findMmaShape(st.shape, s.precision, "f32"))
      rd.fail(path + "/shape", fmt::format("unknown MMA shape '{}' for precision {} (expected one of: {})", st.shape,
                                           s.precision, knownShapesFor(s.precision)));
    st.a = ref("a", true);
    st.b = ref("b", false);
    st.c = ref("c", false);
    const Json& sum = rd.need(j, path, "sum");
    if (!sum.is_array())
      rd.fail(path + "/sum", fmt::format("expected an array of bit names, found {}", sum.type_name()));
    for (std::size_t i = 0; i < sum.size(); ++i) st.sum.push_back(rd.string(sum[i], fmt::format("{}/sum/{}", path, i)));
  } else if (op == "cmul") {
    st.op = StepOp::Cmul;
    rd.onlyKeys(j, path, {"op", "a", "b", "c", "description"});
    st.a = ref("a", true);
    st.b = ref("b", false);
    st.c = ref("c", false);
  } else if (op == "relayout") {
    st.op = StepOp::Relayout;
    rd.onlyKeys(j, path, {"op", "b", "c", "description"});
    st.b = ref("b", false);
    st.c = ref("c", false);
  } else {
    rd.fail(path + "/op", fmt::format("unknown op '{}' (expected mma, cmul or relayout)", op));
  }
  return st;
}

// What the spec asks of the MMA accumulators: "accumulate" (f16, f32 or auto; auto where max_error is given and
// accumulate is not, else f16) and "max_error" (the largest ||y - ref|| / ||ref|| bound accepted).
struct Accumulation {
  std::string asked = "f16";
  bool explicitAsk = false;
  double maxError = 0;
};

Accumulation parseAccumulation(const Reader& rd, const Json& root) {
  Accumulation a;
  if (root.contains("max_error")) {
    const Json& m = root["max_error"];
    if (!m.is_number())
      rd.fail("/max_error", fmt::format("expected a number (the largest ||y - ref|| / ||ref|| error bound accepted, "
                                        "e.g. 0.012), found {}",
                                        m.type_name()));
    a.maxError = m.get<double>();
    if (!(a.maxError > 0 && a.maxError < 1))
      rd.fail("/max_error", fmt::format("expected a relative error bound in (0, 1), found {}", a.maxError));
    a.asked = "auto";
  }
  if (root.contains("accumulate")) {
    a.asked = rd.string(root["accumulate"], "/accumulate");
    a.explicitAsk = true;
    if (a.asked != "f16" && a.asked != "f32" && a.asked != "auto")
      rd.fail("/accumulate", fmt::format("unknown accumulation '{}' (expected f16: f16 MMA accumulators; f32: f32 "
                                         "accumulators, rounded to __half2 once per stage; or auto: f32 where the f16 "
                                         "error bound misses max_error)",
                                         JsonReader::printable(a.asked)));
  }
  // Written by `synthesize` beside the choice; the reason is derived again from the bounds.
  if (root.contains("accumulate_reason")) rd.string(root["accumulate_reason"], "/accumulate_reason");
  return a;
}

// Picks the accumulation of a complete program (the bounds depend on its steps) and says why; a max_error that the
// asked (or, for auto, either) accumulation cannot meet is a SpecError naming the achievable bounds.
void chooseAccumulation(const Reader& rd, LayoutProgram& p, const Accumulation& a) {
  const double b16 = tcFftErrorBound(p, "f16"), b32 = tcFftErrorBound(p, "f32");
  const std::string bounds = fmt::format(
      "error bound {:.2e} with f16 accumulators, {:.2e} with f32 ({} complex "
      "multipl{} in f32)",
      b16, b32, f32ComplexMultiplies(p), f32ComplexMultiplies(p) == 1 ? "y" : "ies");
  p.maxError = a.maxError;
  if (a.asked != "auto") {
    p.accumulate = a.asked;
    const double b = a.asked == "f32" ? b32 : b16;
    if (a.maxError > 0 && b > a.maxError)
      rd.fail("/max_error",
              fmt::format("max_error {:.2e} is not met with {} accumulators: {}{}", a.maxError, a.asked, bounds,
                          a.asked == "f16" && b32 <= a.maxError ? " (\"accumulate\": \"f32\" or \"auto\" meets it)"
                                                                : ""));
    p.accumulateReason = fmt::format("{}{}: {}", a.explicitAsk ? "asked for (/accumulate)" : "the default",
                                     a.maxError > 0 ? fmt::format(", meets max_error {:.2e}", a.maxError) : "", bounds);
    return;
  }
  if (a.maxError == 0) {
    p.accumulate = "f16";
    p.accumulateReason = fmt::format("auto without max_error: f16; {}", bounds);
  } else if (b16 <= a.maxError) {
    p.accumulate = "f16";
    p.accumulateReason = fmt::format("auto: the f16 bound meets max_error {:.2e}; {}", a.maxError, bounds);
  } else if (b32 <= a.maxError) {
    p.accumulate = "f32";
    p.accumulateReason = fmt::format("auto: the f16 bound misses max_error {:.2e}, the f32 bound meets it; {}",
                                     a.maxError, bounds);
  } else {
    rd.fail("/max_error", fmt::format("max_error {:.2e} is met by neither accumulation: {}; ask for at least {:.2e}, "
                                      "or a smaller transform (fewer stages)",
                                      a.maxError, bounds, b32));
  }
}

}  // namespace

TcFftParsed parseTcFft(const Json& root, const std::string& file) {
  Reader rd(file);
  rd.needObject(root, "");
  // The family first: a misspelt family must not be reported as an unknown field.
  std::string family = rd.string(rd.need(root, "", "family"), "/family");
  if (family != "tc_fft")
    rd.fail("/family", fmt::format("unknown or unsupported family '{}' (expected tc_fft)", family));
  rd.onlyKeys(root, "",
              {"name", "family", "description", "precision", "accumulate", "accumulate_reason", "max_error",
               "transform", "arrays", "steps", "io", "launch"});
  LayoutProgram s;
  s.file = file;
  s.name = rd.identifier(rd.need(root, "", "name"), "/name", "name");
  if (root.contains("description")) s.description = rd.string(root["description"], "/description");
  s.precision = rd.string(rd.need(root, "", "precision"), "/precision");
  if (s.precision != "f16")
    rd.fail("/precision",
            fmt::format("precision '{}' is not supported by tc_fft (expected f16: __half2 data and phases; f32 MMA "
                        "accumulators are \"accumulate\": \"f32\"; for f32 data use the stockham family)",
                        s.precision));
  const Accumulation acc = parseAccumulation(rd, root);

  const Json& tr = rd.need(root, "", "transform");
  rd.needObject(tr, "/transform");
  rd.onlyKeys(tr, "/transform", {"n_in", "n_out", "sign"});
  s.nIn = static_cast<int>(rd.integer(rd.need(tr, "/transform", "n_in"), "/transform/n_in", 2, 1 << 16));
  s.nOut = static_cast<int>(rd.integer(rd.need(tr, "/transform", "n_out"), "/transform/n_out", 2, 1 << 16));
  s.logIn = log2Exact(s.nIn);
  s.logOut = log2Exact(s.nOut);
  if (s.logIn < 0) rd.fail("/transform/n_in", fmt::format("{} is not a power of two", s.nIn));
  if (s.logOut < 0) rd.fail("/transform/n_out", fmt::format("{} is not a power of two", s.nOut));
  if (s.nIn > s.nOut)
    rd.fail("/transform/n_in",
            fmt::format("n_in = {} exceeds n_out = {} (expected zero padding, n_in <= n_out)", s.nIn, s.nOut));
  if (tr.contains("sign")) {
    long long sg = rd.integer(tr["sign"], "/transform/sign", -1, 1);
    if (sg == 0) rd.fail("/transform/sign", "sign must be +1 or -1");
    s.sign = static_cast<int>(sg);
  }
  if (root.contains("launch")) {
    const Json& l = root["launch"];
    rd.needObject(l, "/launch");
    rd.onlyKeys(l, "/launch", {"warps_per_block"});
    if (l.contains("warps_per_block"))
      s.warpsPerBlock = static_cast<int>(rd.integer(l["warps_per_block"], "/launch/warps_per_block", 1, 32));
  }

  // No arrays and no steps: the design is synthesized from the transform (and the I/O layouts, where given).
  if (!root.contains("arrays") && !root.contains("steps")) {
    TcFftRequest r;
    r.file = file;
    r.name = s.name;
    r.description = s.description;
    r.precision = s.precision;
    r.nIn = s.nIn, r.nOut = s.nOut, r.sign = s.sign;
    r.warpsPerBlock = root.contains("launch") && root["launch"].contains("warps_per_block") ? s.warpsPerBlock : 0;
    if (root.contains("io")) {
      const Json& io = root["io"];
      rd.needObject(io, "/io");
      rd.onlyKeys(io, "/io", {"input_layout", "output_layout"});
      for (const char* k : {"input_layout", "output_layout"}) {
        if (!io.contains(k)) continue;
        const std::string path = std::string("/io/") + k;
        Layout l = rd.layout(io[k], path);
        const bool in = std::string(k) == "input_layout";
        std::set<std::string> want{"ReIm"}, have;
        for (int b = 0; b < (in ? s.logIn : s.logOut); ++b) want.insert(fmt::format("{}{}", in ? 'n' : 'q', b));
        for (const auto& e : l.entries()) have.insert(e.logical);
        if (have != want)
          rd.fail(path, fmt::format("the {} layout must carry exactly {{{}}}, found {{{}}}", in ? "input" : "output",
                                    fmt::join(want, " "), fmt::join(have, " ")));
        if (l.logicalAt({PhysKind::B, 0}) != std::optional<std::string>("ReIm") || l.count(PhysKind::B) != 1 ||
            l.count(PhysKind::T) != 5)
          rd.fail(path,
                  "an I/O layout needs b <-> ReIm (complex values move as 32-bit words) and five lane bits t0..t4");
        (in ? r.inputLayout : r.outputLayout) = l;
      }
    }
    TcFftParsed out;
    out.synthesis = synthesizeTcFft(r);
    chooseAccumulation(rd, out.synthesis->program, acc);
    out.program = out.synthesis->program;
    return out;
  }

  const Json& arrays = rd.need(root, "", "arrays");
  rd.needObject(arrays, "/arrays");
  if (arrays.empty()) rd.fail("/arrays", "no arrays given");
  if (arrays.size() > kMaxArrays)
    rd.fail("/arrays", fmt::format("{} arrays given (at most {})", arrays.size(), kMaxArrays));
  for (auto it = arrays.begin(); it != arrays.end(); ++it)
    s.arrays.push_back(parseArray(rd, s, it.key(), it.value(), Reader::child("/arrays", it.key())));

  const Json& steps = rd.need(root, "", "steps");
  if (!steps.is_array()) rd.fail("/steps", fmt::format("expected an array, found {}", steps.type_name()));
  if (steps.empty()) rd.fail("/steps", "no steps given");
  if (steps.size() > kMaxSteps) rd.fail("/steps", fmt::format("{} steps given (at most {})", steps.size(), kMaxSteps));
  for (std::size_t i = 0; i < steps.size(); ++i)
    s.steps.push_back(parseStep(rd, s, steps[i], fmt::format("/steps/{}", i)));

  const Json& io = rd.need(root, "", "io");
  rd.needObject(io, "/io");
  rd.onlyKeys(io, "/io", {"input", "output"});
  for (const char* k : {"input", "output"}) {
    std::string n = rd.string(rd.need(io, "/io", k), std::string("/io/") + k);
    const ArraySpec* a = s.array(n);
    if (!a) rd.fail(std::string("/io/") + k, fmt::format("no array named '{}' in /arrays", n));
    if (a->isPhase()) rd.fail(std::string("/io/") + k, fmt::format("'{}' is a phase array, not data", n));
    (std::string(k) == "input" ? s.input : s.output) = n;
  }
  chooseAccumulation(rd, s, acc);
  TcFftParsed out;
  out.program = std::move(s);
  return out;
}

LayoutProgram parseTcFftSpec(const Json& root, const std::string& file) { return parseTcFft(root, file).program; }
LayoutProgram parseTcFftSpecText(const std::string& text, const std::string& file) {
  return parseTcFftSpec(parseJsonText(text, file), file);
}
LayoutProgram parseTcFftSpecFile(const std::string& file) { return parseTcFftSpecText(readSpecFileText(file), file); }

}  // namespace warpforge
