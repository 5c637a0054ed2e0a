// Randomly mutated specs of every registered family (byte-level and structural, from every
// spec in specs/), through the family registry as `warpforge verify` and `emit` take them,
// built with ASan/UBSan. Bad input may only ever produce a SpecError or InconsistentSpec, and
// a spec that verifies must emit (verify exit 0 means emit succeeds).
//
// A new seed every run (printed); WARPFORGE_FUZZ_SEED=<seed> replays one. Each family gets a
// time budget, so the whole test stays well under a minute under ASan on 2 cores.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <typeinfo>

#include <nlohmann/json.hpp>

#include "bench/Facets.h"
#include "generator/core/JsonReader.h"
#include "warpforge/family.h"
#include "warpforge/spec_error.h"
#include "TestUtil.h"

using namespace warpforge;

namespace {
enum class Outcome { SpecError, Inconsistent, Accepted };

// A hostile file name: it must never reach emitted source.
const std::string kFile = "fuzz\r\nstatic int injected = 1;\n.json";

// No control character (C0, DEL) in a message: user text is escaped before it reaches one.
bool printableOnly(const std::string& text) {
  for (unsigned char c : text)
    if (c < 0x20 || c == 0x7f) return false;
  return text.find("\xc2\x9b") == std::string::npos;  // nor the C1 CSI
}

std::uint64_t fuzzSeed() {
  if (const char* s = std::getenv("WARPFORGE_FUZZ_SEED")) return std::strtoull(s, nullptr, 10);
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

// Verify and emit only what the fuzzer can afford: the families bound their own sizes, but a
// valid stockham length of 2^25 takes a minute to plan, so stockham mutants with any integer
// above 4096 (or 2D/3D lengths of more than 2^16 points) are only parsed. Parsing is always exercised.
bool smallIntegers(const Json& j) {
  if (j.is_number_integer())
    return j.is_number_unsigned() ? j.get<unsigned long long>() <= 4096 : j.get<long long>() <= 4096;
  if (j.is_object() || j.is_array())
    for (const auto& v : j)
      if (!smallIntegers(v)) return false;
  return true;
}
bool affordable(const Json& j) {
  if (!j.is_object() || j.value("family", "") != "stockham") return true;
  if (!smallIntegers(j)) return false;
  if (j.contains("lengths") && j["lengths"].is_array()) {
    long long product = 1;
    for (const auto& v : j["lengths"])
      if (v.is_number_integer()) product *= std::max<long long>(1, v.get<long long>());
    if (product > 65536) return false;
  }
  return true;
}

struct Fuzzer {
  std::mt19937_64 rng;
  std::uint64_t seed;
  long long mutant = 0;    // index in this run's sequence, for messages
  bool parseOnly = false;  // set once a family has spent its share of time verifying and emitting
  std::map<std::string, std::array<int, 3>> counts;
  std::map<std::string, int> emitted;

  std::string where(const std::string& text) const {
    return fmt::format("seed {} mutant {} (WARPFORGE_FUZZ_SEED={} replays): {}", seed, mutant, seed,
                       text.substr(0, 600));
  }

  double slowest = 0;  // seconds of the slowest mutant, to keep the budget honest
  Outcome feed(const std::string& family, const std::string& text) {
    auto t0 = std::chrono::steady_clock::now();
    Outcome o = feedTimed(family, text);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (seconds > 2) std::printf("[fuzz] %s: a mutant took %.1f s: %s\n", family.c_str(), seconds, where(text).c_str());
    slowest = std::max(slowest, seconds);
    return o;
  }
  Outcome feedTimed(const std::string& family, const std::string& text) {
    ++mutant;
    std::unique_ptr<FamilySpec> spec;
    try {
      Json j = parseJsonText(text, kFile);
      spec = parseSpec(j, kFile);
      if (!affordable(j) || parseOnly) return Outcome::Accepted;  // parsed; too large (or too slow) to plan here
      spec->verify();
      if (const EmulateFacet* e = emulateFacet(*spec)) e->emulate("f16", 3, 1);
    } catch (const SpecError& e) {
      EXPECT_TRUE(printableOnly(e.what())) << family << ": raw user text in " << e.what() << "\n" << where(text);
      return Outcome::SpecError;
    } catch (const InconsistentSpec&) {
      return Outcome::Inconsistent;
    } catch (const std::exception& e) {
      ADD_FAILURE() << family << ": parse/verify threw " << typeid(e).name() << ": " << e.what() << "\n" << where(text);
      return Outcome::SpecError;
    }
    try {
      Generated g = spec->emit({});
      ++emitted[family];
      for (const auto& k : g.plan.kernels)  // symbols C++ does not reserve, whatever the name
        EXPECT_TRUE(k.name.find("__") == std::string::npos && k.name.front() != '_')
            << family << ": kernel " << k.name << "\n"
            << where(text);
      for (const auto& s : g.plan.sources) {
        EXPECT_EQ(s.text.find("injected"), std::string::npos)
            << family << ": the spec's path reached " << s.fileName << "\n"
            << where(text);
        EXPECT_EQ(s.text.find('\r'), std::string::npos) << family << ": CR in " << s.fileName << "\n" << where(text);
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << family << ": verified, then emit threw " << typeid(e).name() << ": " << e.what() << "\n"
                    << where(text);
    }
    return Outcome::Accepted;
  }

  Json randomValue() {
    static const std::vector<Json> pool = {nullptr,
                                           true,
                                           false,
                                           0,
                                           -1,
                                           1,
                                           2,
                                           3,
                                           7,
                                           64,
                                           256,
                                           512,
                                           1000,
                                           4096,
                                           4097,
                                           1 << 30,
                                           3.5,
                                           1e300,
                                           -0.0,
                                           Json::parse("18446744073709551615"),
                                           Json::parse("9223372036854775807"),
                                           Json::parse("-9223372036854775808"),
                                           "",
                                           "X",
                                           "Y",
                                           "Z1",
                                           "mma",
                                           "cmul",
                                           "relayout",
                                           "m16n8k16",
                                           "m16n8k8",
                                           "f16",
                                           "f32",
                                           "f64",
                                           "ci8",
                                           "ci4",
                                           "c2c",
                                           "r2c",
                                           "c2r",
                                           "forward",
                                           "inverse",
                                           "in_place",
                                           "out_of_place",
                                           "tcc",
                                           "high",
                                           "low",
                                           "int",
                                           "input",
                                           "threadIdx",
                                           "wf_x",
                                           "\r\n//",
                                           "b <-> ReIm",
                                           "t0 t1 <-> n0",
                                           "r <-> q0 q1",
                                           "b <-> n5, t0 t1 t2 t3 t4 <-> n4 n3 q0 q1 q2, r <-> n2 n1 n0 ReIm",
                                           "b <-> ReIm_in, t0 t1 t2 t3 t4 <-> n7 n6 q0 q1 q2, r <-> n0 n1 ReIm_out",
                                           "w0 <-> n0",
                                           "t9 <-> n1",
                                           "<->",
                                           ",,,",
                                           "r <-> n99999999999",
                                           "t0 <-> n01",
                                           Json::array(),
                                           Json::array({1, 2, 3}),
                                           Json::array({8, 8}),
                                           Json::array({2, 3, 5}),
                                           Json::array({"n6", "n7"}),
                                           Json::object(),
                                           Json::object({{"q", Json::array({0})}}),
                                           Json::object({{"stride", 2}, {"distance", 1}}),
                                           Json::object({{"threads_per_fft", 1}}),
                                           Json::object({{"layout", "tcc"}})};
    return pool[rng() % pool.size()];
  }

  // The hostile kinds aimed at where they bite: strides near 2^63 (extents that wrap), names at the reserved edges
  // (leading / trailing '_', "__", helper names, 58..65 characters), control characters in any string.
  void mutateHostile(Json& j) {
    static const std::vector<Json> strides = {Json(1LL << 40), Json((1LL << 40) - 1),
                                              Json(1LL << 62), Json(Json::parse("9223372036854775807")),
                                              Json(1LL << 32), Json(0)};
    static const std::vector<std::string> names = {"_",
                                                   "_x",
                                                   "x_",
                                                   "a__b",
                                                   "u32",
                                                   "pad",
                                                   "i4",
                                                   "cmul",
                                                   "dft",
                                                   std::string(58, 'n'),
                                                   std::string(59, 'n'),
                                                   std::string(64, 'n'),
                                                   std::string(65, 'n')};
    static const std::vector<std::string> controls = {
        "\x1b[31mred", "line\nerror: forged", std::string("nul\0cut", 7), "\u009b2J", "bell\x07", "tab\there"};
    if (!j.is_object()) return;
    switch (rng() % 3) {
      case 0: j["name"] = names[rng() % names.size()]; return;
      case 1: {  // every "strides" object in the tree gets one member near 2^63
        std::function<void(Json&)> walk = [&](Json& v) {
          if (!v.is_object() && !v.is_array()) return;
          for (auto it = v.begin(); it != v.end(); ++it) {
            if (v.is_object() && it.key() == "strides" && it->is_object() && !it->empty()) {
              auto m = it->begin();
              std::advance(m, static_cast<long>(rng() % it->size()));
              *m = strides[rng() % strides.size()];
            }
            walk(*it);
          }
        };
        walk(j);
        return;
      }
      default: {  // a string member (or a new key) with control characters
        const std::string text = controls[rng() % controls.size()];
        std::vector<std::string> keys;
        for (auto it = j.begin(); it != j.end(); ++it)
          if (it->is_string()) keys.push_back(it.key());
        if (keys.empty() || rng() % 4 == 0) j[text] = 1;
        else j[keys[rng() % keys.size()]] = text;
      }
    }
  }

  void mutateTree(Json& j, int depth = 0) {
    if ((!j.is_object() && !j.is_array()) || j.empty() || (depth > 0 && rng() % 3 == 0)) {
      j = randomValue();
      return;
    }
    std::size_t i = rng() % j.size();
    auto it = j.begin();
    std::advance(it, i);
    switch (rng() % 10) {
      case 0:
        if (j.is_object()) j.erase(it.key());
        else j.erase(i);
        return;
      case 1:  // a new member next to the known ones (misspelt or unknown fields)
        if (j.is_object()) j[std::string(1, "abcxyz"[rng() % 6]) + it.key()] = randomValue();
        return;
      default: mutateTree(*it, depth + 1);
    }
  }

  std::string mutateBytes(std::string t) {
    int edits = 1 + rng() % 4;
    for (int e = 0; e < edits && !t.empty(); ++e) {
      std::size_t pos = rng() % t.size();
      switch (rng() % 4) {
        case 0: t[pos] = static_cast<char>(rng() % 128); break;
        case 1: t.erase(pos, 1 + rng() % 8); break;
        case 2: t.insert(pos, 1, "{}[],:\"0123456789ntrbq<->"[rng() % 25]); break;
        case 3: t.insert(pos, std::string(1 + rng() % 3, "9e-."[rng() % 4])); break;  // long or odd numbers
      }
    }
    return t;
  }
};

std::map<std::string, std::vector<std::string>> specsByFamily() {
  std::map<std::string, std::vector<std::string>> out;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(test::sourcePath("specs")))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());  // the same order every run: the seed alone decides the mutants
  for (const auto& f : files) {
    std::string text = test::readFile(f.string());
    out[parseJsonText(text, f.string()).value("family", "")].push_back(text);
  }
  return out;
}
}  // namespace

TEST(SpecFuzz, MutatedSpecsOfEveryFamilyNeverCrash) {
  Fuzzer fz;
  fz.seed = fuzzSeed();
  fz.rng.seed(fz.seed);
  std::printf("[fuzz] seed=%llu (set WARPFORGE_FUZZ_SEED=%llu to replay)\n", static_cast<unsigned long long>(fz.seed),
              static_cast<unsigned long long>(fz.seed));
  auto bases = specsByFamily();
  for (const Family* f : families())
    EXPECT_TRUE(bases.count(f->name())) << "no spec in specs/ for family " << f->name();

  // 36 s in all (ASan, 2 cores); a family whose verify and emit are slow (the correlator's
  // take ~0.2 s a spec under ASan) spends half its share on them and the rest parsing. Past its
  // share a family still parses up to minMutants: one slow mutant (a beamformer spec took 5.6 s
  // alone, 8 s on a loaded machine, under ASan) must not leave the rest of the family untried.
  const double budgetSeconds = 36.0 / std::max<std::size_t>(1, bases.size());
  const int maxMutants = 3000, minMutants = 200;
  for (const auto& [family, texts] : bases) {
    auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    auto& c = fz.counts[family];
    int n = 0;
    fz.parseOnly = false;
    for (; n < maxMutants && (elapsed() < budgetSeconds || n < minMutants); ++n) {
      fz.parseOnly = elapsed() > budgetSeconds / 2;
      const std::string& base = texts[fz.rng() % texts.size()];
      std::string text;
      switch (fz.rng() % 4) {
        case 0: text = fz.mutateBytes(base); break;
        case 1: {
          Json j = Json::parse(base);
          fz.mutateHostile(j);
          text = j.dump();
          break;
        }
        default: {
          Json j = Json::parse(base);
          int edits = 1 + fz.rng() % 3;
          for (int e = 0; e < edits; ++e) fz.mutateTree(j);
          text = j.dump();
        }
      }
      c[static_cast<int>(fz.feed(family, text))]++;
    }
    // The unmutated specs verify and emit (where affordable).
    fz.parseOnly = false;
    for (const auto& t : texts) EXPECT_EQ(fz.feed(family, t), Outcome::Accepted) << family;
    std::printf(
        "[fuzz] %s: %d mutants in %.1f s (slowest %.2f s): spec_errors=%d inconsistent=%d accepted=%d emitted=%d\n",
        family.c_str(), n, elapsed(), fz.slowest, c[0], c[1], c[2], fz.emitted[family]);
    fz.slowest = 0;
    EXPECT_GT(n, 100) << family;
    EXPECT_GT(c[0], n / 10) << family;  // most mutants are malformed
    EXPECT_GT(fz.emitted[family], 0) << family;
  }
}

// The tc_fft layouts exchanged between arrays: most are inconsistent, each verified one emits.
TEST(SpecFuzz, SwappedTcFftLayouts) {
  Fuzzer fz;
  fz.seed = fuzzSeed();
  fz.rng.seed(fz.seed ^ 0x5eed);
  const Json base = Json::parse(test::readFile(test::sourcePath(test::kChimeSpec)));
  std::vector<std::string> names;
  for (auto& [k, v] : base["arrays"].items()) names.push_back(k);
  int counts[3] = {0, 0, 0};
  for (int n = 0; n < 300; ++n) {
    Json j = base;
    auto& a = j["arrays"][names[fz.rng() % names.size()]]["layout"];
    auto& b = j["arrays"][names[fz.rng() % names.size()]]["layout"];
    std::swap(a, b);
    counts[static_cast<int>(fz.feed("tc_fft", j.dump()))]++;
  }
  std::printf("[fuzz] swapped layouts: spec_errors=%d inconsistent=%d accepted=%d\n", counts[0], counts[1], counts[2]);
  EXPECT_GT(counts[1], 10);
}
