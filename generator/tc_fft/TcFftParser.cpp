#include <charconv>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "generator/tc_fft/TcFftParser.h"
#include "generator/core/JsonReader.h"
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

void checkLayoutNames(const Reader& rd, const LayoutProgram& s, const ArraySpec& a, const Layout& lay,
                      const std::string& path, bool stored) {
  for (const auto& e : lay.entries()) {
    const std::string& l = e.logical;
    if (l[0] == 'n' || l[0] == 'q') {
      int idx = 0;  // Layout::parse admits only small decimal indices
      std::from_chars(l.data() + 1, l.data() + l.size(), idx);
      int lim = l[0] == 'n' ? s.logIn : s.logOut;
      if (idx >= lim)
        rd.fail(path, fmt::format("logical bit {} does not exist: {}-bits run {}0..{}{} for n_{} = {}", l, l[0], l[0],
                                  l[0], lim - 1, l[0] == 'n' ? "in" : "out", l[0] == 'n' ? s.nIn : s.nOut));
    } else if ((l == "ReIm_in" || l == "ReIm_out") && (!a.isPhase() || stored)) {
      rd.fail(path, fmt::format("logical bit {} is only allowed in the operand layout of a phase array", l));
    }
    if (e.phys.kind == PhysKind::W) rd.fail(path, "warp bits (w) are not supported by the tc_fft family yet");
  }
  if (lay.count(PhysKind::B) != 1)
    rd.fail(path, fmt::format("an f16 array needs exactly one b bit (two halves per 32-bit register), found {}",
                              lay.count(PhysKind::B)));
  if (lay.count(PhysKind::R) > kMaxRegisterBits)
    rd.fail(path, fmt::format("{} register bits ask for {} registers per thread for one array (at most {}: 2^{})", lay.count(PhysKind::R),
                              1LL << lay.count(PhysKind::R), 1 << kMaxRegisterBits, kMaxRegisterBits));
  if (lay.count(PhysKind::T) != 5)
    rd.fail(path, fmt::format("a warp-held array needs exactly 5 lane bits t0..t4, found {}", lay.count(PhysKind::T)));
  if (a.isPhase()) {
    std::set<std::string> want;
    for (int q : a.phase->q) want.insert(fmt::format("q{}", q));
    for (int n : a.phase->n) want.insert(fmt::format("n{}", n));
    std::set<std::string> have;
    for (const auto& e : lay.entries())
      if (e.logical[0] == 'q' || e.logical[0] == 'n') have.insert(e.logical);
    if (have != want)
      rd.fail(path, fmt::format("phase array E(q{{{}}}, n{{{}}}) must carry exactly the bits {{{}}}, found {{{}}}",
                                fmt::join(a.phase->q, ","), fmt::join(a.phase->n, ","), fmt::join(want, " "),
                                fmt::join(have, " ")));
    bool hasIn = lay.hasLogical("ReIm_in"), hasOut = lay.hasLogical("ReIm_out"), hasRe = lay.hasLogical("ReIm");
    if (stored ? !hasRe : !((hasIn && hasOut && !hasRe) || (hasRe && !hasIn && !hasOut)))
      rd.fail(path, stored ? "a stored phase layout must carry ReIm"
                           : "a phase layout must carry either ReIm (elementwise) or both ReIm_in and ReIm_out (MMA operand)");
  } else if (!lay.hasLogical("ReIm")) {
    rd.fail(path, "a data array must carry the ReIm bit");
  }
}

ArraySpec parseArray(const Reader& rd, const LayoutProgram& s, const std::string& name, const Json& j,
                     const std::string& path) {
  rd.needObject(j, path);
  rd.onlyKeys(j, path, {"layout", "phase", "stored", "description"});
  ArraySpec a;
  a.name = name;
  a.path = path;
  // Array names are emitted with a prefix (a_<name>, ...), so any identifier is safe.
  if (!JsonReader::isIdentifier(name)) rd.fail(path, fmt::format("array name '{}' must be a C identifier", JsonReader::printable(name)));
  if (name.size() > JsonReader::kMaxNameLength)
    rd.fail(path, fmt::format("array name is {} characters long (at most {})", name.size(), JsonReader::kMaxNameLength));
  if (j.contains("phase")) {
    std::string pp = Reader::child(path, "phase");
    const Json& p = j["phase"];
    rd.needObject(p, pp);
    rd.onlyKeys(p, pp, {"q", "n"});
    a.phase = PhaseFactor{rd.intList(rd.need(p, pp, "q"), pp + "/q", 0, s.logOut - 1),
                          rd.intList(rd.need(p, pp, "n"), pp + "/n", 0, s.logIn - 1)};
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
    st.a = ref("a", true);
    st.b = ref("b", false);
    st.c = ref("c", false);
    const Json& sum = rd.need(j, path, "sum");
    if (!sum.is_array()) rd.fail(path + "/sum", fmt::format("expected an array of bit names, found {}", sum.type_name()));
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

}  // namespace

LayoutProgram parseTcFftSpec(const Json& root, const std::string& file) {
  Reader rd(file);
  rd.needObject(root, "");
  // The family first: a misspelt family must not be reported as an unknown field.
  std::string family = rd.string(rd.need(root, "", "family"), "/family");
  if (family != "tc_fft")
    rd.fail("/family", fmt::format("unknown or unsupported family '{}' (expected tc_fft)", family));
  rd.onlyKeys(root, "", {"name", "family", "description", "precision", "transform", "arrays", "steps", "io", "launch"});
  LayoutProgram s;
  s.file = file;
  s.name = rd.identifier(rd.need(root, "", "name"), "/name", "name");
  s.precision = rd.string(rd.need(root, "", "precision"), "/precision");
  if (s.precision != "f16")
    rd.fail("/precision", fmt::format("precision '{}' is not supported by tc_fft (expected f16)", s.precision));

  const Json& tr = rd.need(root, "", "transform");
  rd.needObject(tr, "/transform");
  rd.onlyKeys(tr, "/transform", {"n_in", "n_out", "sign"});
  s.nIn = static_cast<int>(rd.integer(rd.need(tr, "/transform", "n_in"), "/transform/n_in", 2, 1 << 16));
  s.nOut = static_cast<int>(rd.integer(rd.need(tr, "/transform", "n_out"), "/transform/n_out", 2, 1 << 16));
  s.logIn = log2Exact(s.nIn);
  s.logOut = log2Exact(s.nOut);
  if (s.logIn < 0) rd.fail("/transform/n_in", fmt::format("{} is not a power of two", s.nIn));
  if (s.logOut < 0) rd.fail("/transform/n_out", fmt::format("{} is not a power of two", s.nOut));
  if (s.nIn > s.nOut) rd.fail("/transform/n_in", fmt::format("n_in = {} exceeds n_out = {} (expected zero padding, n_in <= n_out)", s.nIn, s.nOut));
  if (tr.contains("sign")) {
    long long sg = rd.integer(tr["sign"], "/transform/sign", -1, 1);
    if (sg == 0) rd.fail("/transform/sign", "sign must be +1 or -1");
    s.sign = static_cast<int>(sg);
  }

  const Json& arrays = rd.need(root, "", "arrays");
  rd.needObject(arrays, "/arrays");
  if (arrays.empty()) rd.fail("/arrays", "no arrays given");
  if (arrays.size() > kMaxArrays) rd.fail("/arrays", fmt::format("{} arrays given (at most {})", arrays.size(), kMaxArrays));
  for (auto it = arrays.begin(); it != arrays.end(); ++it)
    s.arrays.push_back(parseArray(rd, s, it.key(), it.value(), Reader::child("/arrays", it.key())));

  const Json& steps = rd.need(root, "", "steps");
  if (!steps.is_array()) rd.fail("/steps", fmt::format("expected an array, found {}", steps.type_name()));
  if (steps.empty()) rd.fail("/steps", "no steps given");
  if (steps.size() > kMaxSteps) rd.fail("/steps", fmt::format("{} steps given (at most {})", steps.size(), kMaxSteps));
  for (std::size_t i = 0; i < steps.size(); ++i) s.steps.push_back(parseStep(rd, s, steps[i], fmt::format("/steps/{}", i)));

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
  if (root.contains("launch")) {
    const Json& l = root["launch"];
    rd.needObject(l, "/launch");
    rd.onlyKeys(l, "/launch", {"warps_per_block"});
    if (l.contains("warps_per_block"))
      s.warpsPerBlock = static_cast<int>(rd.integer(l["warps_per_block"], "/launch/warps_per_block", 1, 32));
  }
  return s;
}

LayoutProgram parseTcFftSpecText(const std::string& text, const std::string& file) { return parseTcFftSpec(parseJsonText(text, file), file); }
LayoutProgram parseTcFftSpecFile(const std::string& file) { return parseTcFftSpecText(readSpecFileText(file), file); }

}  // namespace warpforge
