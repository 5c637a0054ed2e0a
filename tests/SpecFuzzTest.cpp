// Thousands of randomly mutated specs, byte-level and structural, through the
// tc_fft family (parser, verifier and, when accepted, the emulator and the
// emitter), built with ASan/UBSan. Bad input may only ever produce a SpecError
// or InconsistentSpec (or, from emit, an error naming what it cannot load).
#include <gtest/gtest.h>

#include <random>

#include <nlohmann/json.hpp>

#include "generator/core/JsonReader.h"
#include "generator/tc_fft/TcFftFamily.h"
#include "warpforge/spec_error.h"
#include "TestUtil.h"

using namespace warpforge;
using Json = nlohmann::ordered_json;

namespace {
enum class Outcome { SpecError, Inconsistent, Accepted };

int unemittable = 0;  // verified, but the emitter cannot load/store its I/O layouts (b must carry ReIm)

Outcome feed(const std::string& text) {
  std::unique_ptr<FamilySpec> spec;
  try {
    spec = tcFftFamily().parse(parseJsonText(text, "fuzz.json"), "fuzz.json");
    spec->verify();
    spec->emulate("f16", 3, 1);
  } catch (const SpecError&) {
    return Outcome::SpecError;
  } catch (const InconsistentSpec&) {
    return Outcome::Inconsistent;
  }
  try {
    spec->emit({});
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("b0 <-> ReIm"), std::string::npos) << e.what();
    ++unemittable;
  }
  return Outcome::Accepted;
}

Json randomValue(std::mt19937& rng) {
  static const std::vector<Json> pool = {
      nullptr, true, 0, -1, 1, 7, 256, 512, 1 << 30, 3.5, "", "X", "Y", "Z1", "mma", "cmul", "relayout", "m16n8k16", "m16n8k8",
      "b <-> ReIm", "t0 t1 <-> n0", "r <-> q0 q1", "b <-> n5, t0 t1 t2 t3 t4 <-> n4 n3 q0 q1 q2, r <-> n2 n1 n0 ReIm",
      "b <-> ReIm_in, t0 t1 t2 t3 t4 <-> n7 n6 q0 q1 q2, r <-> n0 n1 ReIm_out", "w0 <-> n0", "t9 <-> n1", "<->", ",,,",
      Json::array(), Json::array({1, 2, 3}), Json::array({"n6", "n7"}), Json::object(), Json::object({{"q", Json::array({0})}})};
  return pool[rng() % pool.size()];
}

void mutateTree(Json& j, std::mt19937& rng, int depth = 0) {
  if ((!j.is_object() && !j.is_array()) || j.empty() || (depth > 0 && rng() % 3 == 0)) {
    j = randomValue(rng);
    return;
  }
  std::size_t i = rng() % j.size();
  auto it = j.begin();
  std::advance(it, i);
  if (rng() % 8 == 0) {
    if (j.is_object()) j.erase(it.key());
    else j.erase(i);
    return;
  }
  mutateTree(*it, rng, depth + 1);
}
}  // namespace

TEST(SpecFuzz, MutatedSpecsNeverCrash) {
  const std::string base = test::readFile(test::sourcePath(test::kChimeSpec));
  const Json baseJson = Json::parse(base);
  const unsigned seed = 2026;
  std::mt19937 rng(seed);
  int counts[3] = {0, 0, 0};
  const int kByte = 3000, kTree = 3000, kSwap = 500;
  for (int n = 0; n < kByte; ++n) {  // byte-level: flips, deletions, insertions
    std::string t = base;
    int edits = 1 + rng() % 4;
    for (int e = 0; e < edits; ++e) {
      std::size_t pos = rng() % t.size();
      switch (rng() % 3) {
        case 0: t[pos] = static_cast<char>(rng() % 128); break;
        case 1: t.erase(pos, 1 + rng() % 8); break;
        case 2: t.insert(pos, 1, "{}[],:\"0123456789ntrbq<->"[rng() % 25]); break;
      }
    }
    counts[int(feed(t))]++;
  }
  for (int n = 0; n < kTree; ++n) {  // structural: replace or delete a node
    Json j = baseJson;
    int edits = 1 + rng() % 3;
    for (int e = 0; e < edits; ++e) mutateTree(j, rng);
    counts[int(feed(j.dump()))]++;
  }
  std::vector<std::string> names;
  for (auto& [k, v] : baseJson["arrays"].items()) names.push_back(k);
  for (int n = 0; n < kSwap; ++n) {  // layouts exchanged between arrays
    Json j = baseJson;
    auto& a = j["arrays"][names[rng() % names.size()]]["layout"];
    auto& b = j["arrays"][names[rng() % names.size()]]["layout"];
    std::swap(a, b);
    counts[int(feed(j.dump()))]++;
  }
  std::printf("[fuzz] seed=%u mutants=%d spec_errors=%d inconsistent=%d accepted=%d (unemittable %d)\n", seed, kByte + kTree + kSwap,
              counts[0], counts[1], counts[2], unemittable);
  EXPECT_EQ(counts[0] + counts[1] + counts[2], kByte + kTree + kSwap);
  EXPECT_GT(counts[0], 1000);
  EXPECT_GT(counts[1], 10);
}
