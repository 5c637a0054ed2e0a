// Every spec in specs/ verifies, emits and NVRTC-compiles for sm_80 and sm_90 with zero spills;
// and no layer outside a family's folder names a family.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "TestUtil.h"
#include "bench/Facets.h"
#include "warpforge/compiler.h"
#include "warpforge/family.h"

namespace warpforge {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> specFiles() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(test::sourcePath("specs")))
    if (e.path().extension() == ".json") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Specs, EveryFamilyHasASpec) {
  std::set<std::string> seen;
  for (const auto& f : specFiles()) seen.insert(loadSpec(f)->family().name());
  for (const Family* f : families()) EXPECT_TRUE(seen.count(f->name())) << "no spec in specs/ for family " << f->name();
}

TEST(Specs, EverySpecCompilesForSm80AndSm90WithoutSpills) {
  NvrtcProbe probe;
  for (const auto& f : specFiles()) {
    auto spec = loadSpec(f);
    ASSERT_NO_THROW(spec->verify()) << f;
    for (const char* arch : {"sm_80", "sm_90"}) {
      Generated g = spec->emit({arch, &probe});
      ASSERT_NO_THROW(g.plan.check()) << f;
      for (const auto& k : g.plan.kernels) {
        CompileResult r = compileWithReport(g.plan.sources[k.source].text, g.plan.specName,
                                            compileTarget(g.plan.sources[k.source], arch));
        EXPECT_GT(r.cubin.size(), 0u) << f << " " << k.name;
        EXPECT_EQ(r.spillStoreBytes, 0) << f << " " << k.name << " " << arch;
        EXPECT_EQ(r.spillLoadBytes, 0) << f << " " << k.name << " " << arch;
        EXPECT_GT(r.registers, 0) << f << " " << k.name;
        EXPECT_EQ(cubinRegisters(r.cubin, k.name), r.registers)
            << f << " " << k.name << ": the CUBIN's register count agrees with ptxas";
      }
      EXPECT_NE(launchPlanHeader(g.plan).find(g.plan.kernels.at(0).name), std::string::npos);
    }
  }
}

// bench's baselines are typed requests read from the spec: a beamformer's GEMM sizes and a correlator's HERK sizes
// are its own members (no longer packed into FFT lengths), the FFT families' lengths are the transform's.
TEST(Specs, BaselinesAreTypedRequestsOfTheSpecsSizes) {
  std::map<std::string, int> seen;
  for (const auto& f : specFiles()) {
    const Json j = Json::parse(test::readFile(f));
    auto spec = loadSpec(f);
    const auto req = baselineOf(*spec);
    if (!req) continue;
    EXPECT_FALSE(req->description.empty()) << f;
    EXPECT_TRUE(req->denseInput) << f;
    const std::string family = spec->family().name();
    if (const auto* g = std::get_if<GemmBaseline>(&req->library)) {
      ++seen["gemm"];
      EXPECT_EQ(family, "beamformer") << f;
      EXPECT_EQ(g->gemms, j.value("channels", 1LL) * j.value("polarizations", 1LL)) << f;  // the spec's defaults: 1
      EXPECT_EQ(g->m, j["beams"].get<long long>()) << f;
      EXPECT_EQ(g->n, j["samples_per_call"].get<long long>()) << f;
      EXPECT_EQ(g->k, j["receivers"].get<long long>()) << f;
      const bool integer = j["sample_type"] != "cf16";
      EXPECT_EQ(g->input, integer ? BaselineInput::CI8 : BaselineInput::CF16) << f;
      EXPECT_EQ(g->library, integer ? GemmBaseline::Library::CgemmI8 : GemmBaseline::Library::CgemmLtF16) << f;
    } else if (const auto* h = std::get_if<HerkBaseline>(&req->library)) {
      ++seen["herk"];
      EXPECT_EQ(family, "correlator") << f;
      EXPECT_EQ(h->batches, j["channels"].get<long long>()) << f;
      EXPECT_EQ(h->n, j["receivers"].get<long long>() * j["polarizations"].get<long long>()) << f;
      EXPECT_EQ(h->k, j["samples_per_call"].get<long long>()) << f;
    } else if (const auto* fft = std::get_if<FftBaseline>(&req->library)) {
      ++seen["fft"];
      EXPECT_FALSE(fft->lengths.empty()) << f;
      if (j.contains("lengths")) EXPECT_EQ(fft->lengths, j["lengths"].get<std::vector<long long>>()) << f;
    } else {
      ++seen["fir_r2c"];
      const auto& fir = std::get<FirR2cBaseline>(req->library);
      EXPECT_EQ(family, "pfb") << f;
      EXPECT_EQ(fir.weights.size(), static_cast<std::size_t>(fir.taps * fir.length)) << f;
    }
  }
  for (const char* kind : {"gemm", "herk", "fft", "fir_r2c"})
    EXPECT_GT(seen[kind], 0) << "no spec in specs/ has a " << kind << " baseline";
}

// architecture.md: nothing outside generator/<family>/ (and specs, tests, docs) names a family.
TEST(Specs, LayersOutsideTheFamiliesNameNoFamily) {
  std::vector<std::string> names;
  for (const Family* f : families()) {
    std::string n = f->name(), camel;
    bool up = true;
    for (char c : n) {
      if (c == '_') {
        up = true;
        continue;
      }
      camel += up ? static_cast<char>(std::toupper(c)) : c;
      up = false;
    }
    names.push_back(n);
    names.push_back(camel);
  }
  ASSERT_FALSE(names.empty());
  std::string alternatives;
  for (const auto& n : names) alternatives += (alternatives.empty() ? "" : "|") + n;
  std::regex any(alternatives, std::regex::icase);
  for (const char* dir :
       {"cli", "runtime", "bench", "ast", "templates", "include", "generator/core", "generator/layout",
        "generator/verify", "generator/emulate", "generator/complexmma", "cmake", "scripts"}) {
    for (const auto& e : fs::recursive_directory_iterator(test::sourcePath(dir))) {
      if (!e.is_regular_file()) continue;
      const std::string ext = e.path().extension().string();
      if (ext == ".md" || ext == ".log" || ext == ".txt" || ext == ".jsonl")
        continue;  // results and logs are documents
      std::ifstream in(e.path());
      std::string line;
      for (int no = 1; std::getline(in, line); ++no)
        EXPECT_FALSE(std::regex_search(line, any)) << e.path().string() << ":" << no << ": " << line;
    }
  }
  std::ifstream top(test::sourcePath("CMakeLists.txt"));
  std::string text((std::istreambuf_iterator<char>(top)), {});
  EXPECT_FALSE(std::regex_search(text, any)) << "CMakeLists.txt names a family";
}

}  // namespace
}  // namespace warpforge
