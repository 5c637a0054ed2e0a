// Plans as data: every spec's plan written as JSON reads back to the same plan (inline, and with large tables and
// CUBINs in files beside it); a damaged or foreign plan file is a PlanError naming the file and the JSON path; a
// plan with a CUBIN for the device's arch runs without NVRTC (GPU part skips without a device).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include <fmt/format.h>

#include "TestUtil.h"
#include "warpforge/compiler.h"
#include "warpforge/executor.h"
#include "warpforge/family.h"
#include "warpforge/plan_json.h"

namespace warpforge {
namespace {

namespace fs = std::filesystem;

fs::path tempDir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / fmt::format("wf_planjson_{}_{}", name, ::getpid());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

LaunchPlan chimePlan() { return loadSpec(test::sourcePath(test::kChimeSpec))->emit({"sm_90", nullptr}).plan; }

TEST(PlanJson, EverySpecsPlanReadsBackTheSame) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(test::sourcePath("specs"))) {
    if (e.path().extension() != ".json") continue;
    const LaunchPlan p = loadSpec(e.path().string())->emit({"sm_90", nullptr}).plan;
    const Json j = planToJson(p, {kPlanFormat, "test", "sm_90"});
    PlanJsonInfo info;
    const LaunchPlan back = planFromJson(Json::parse(j.dump()), "mem.json", ".", &info);
    EXPECT_EQ(planToJson(back, {kPlanFormat, "test", "sm_90"}), j) << e.path();
    EXPECT_EQ(info.madeFor, "sm_90");
    EXPECT_EQ(launchPlanHeader(back), launchPlanHeader(p)) << e.path();  // the header (tables' values included) too
    ++n;
  }
  EXPECT_GE(n, 20);
}

TEST(PlanJson, LargeTablesAndCubinsGoToFilesBesideIt) {
  LaunchPlan p = chimePlan();
  PlanBuffer big;
  big.name = "big";
  big.role = BufferRole::Table;
  big.elementType = "float";
  big.elementBytes = 4;
  big.scalar = "float";
  big.contents.resize(kInlineTableBytes + 8);
  for (std::size_t i = 0; i < big.contents.size(); ++i) big.contents[i] = static_cast<unsigned char>(i * 13);
  big.fixedElems = static_cast<long long>(big.contents.size() / 4);
  p.buffers.push_back(big);
  p.sources[0].cubins["sm_90"] = {'\x7f', 'E', 'L', 'F', 0, 1, 2};
  const fs::path dir = tempDir("files");
  const std::string path = savePlanJson(p, dir.string(), {kPlanFormat, "test", "sm_90"});
  EXPECT_TRUE(fs::exists(dir / (p.specName + "_big.bin")));
  EXPECT_LT(fs::file_size(path), 2 * kInlineTableBytes);  // the big table is not inline
  const LaunchPlan back = loadPlanJson(path);
  EXPECT_EQ(back.buffer("big")->contents, big.contents);
  EXPECT_EQ(back.sources[0].cubins.at("sm_90"), p.sources[0].cubins.at("sm_90"));
  // A damaged table file is refused, naming the member.
  {
    std::fstream f(dir / (p.specName + "_big.bin"), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x55');
  }
  EXPECT_EQ(test::errorPathOf<PlanError>([&] { loadPlanJson(path); }),
            fmt::format("/buffers/{}/contents/checksum", p.buffers.size() - 1));
  fs::remove(dir / (p.specName + "_big.bin"));
  EXPECT_EQ(test::errorPathOf<PlanError>([&] { loadPlanJson(path); }),
            fmt::format("/buffers/{}/contents/file", p.buffers.size() - 1));
  fs::remove_all(dir);
}

// Each damage names its place; none is taken for a plan.
TEST(PlanJson, DamagedPlansAreErrorsWithTheirPath) {
  const Json good = planToJson(chimePlan());
  auto pathOf = [&](const std::function<void(Json&)>& damage) {
    Json j = good;
    damage(j);
    return test::errorPathOf<PlanError>([&] { planFromJson(j, "bad.json", "."); });
  };
  EXPECT_EQ(pathOf([](Json&) {}), "(no error)");
  EXPECT_EQ(pathOf([](Json& j) { j["format"] = "warpforge-plan-0"; }), "/format");
  if (!good["params"].empty())
    EXPECT_EQ(pathOf([](Json& j) { j["params"][0]["default"] = j["params"][0]["min"].get<long long>() - 1; }),
              "/params/0/default");
  // The name becomes the saved file's name and the header's identifiers: no path, no line break.
  for (const char* name : {"../../escaped", "/tmp/abs", "a\nb", "", "9lives"})
    EXPECT_EQ(pathOf([&](Json& j) { j["spec_name"] = name; }), "/spec_name") << name;
  EXPECT_EQ(pathOf([](Json& j) { j.erase("kernels"); }), "/kernels");
  EXPECT_EQ(pathOf([](Json& j) { j["kernels"][0].erase("name"); }), "/kernels/0/name");
  EXPECT_EQ(pathOf([](Json& j) { j["kernels"][0]["source"] = 7; }), "/kernels/0/source");
  EXPECT_EQ(pathOf([](Json& j) { j["kernels"][0]["block"] = Json::array({0, 1}); }), "/kernels/0/block");
  EXPECT_EQ(pathOf([](Json& j) { j["kernels"][0]["args"][0]["kind"] = "pointer"; }), "/kernels/0/args/0/kind");
  EXPECT_EQ(pathOf([](Json& j) { j["buffers"][0]["role"] = "weights"; }), "/buffers/0/role");
  EXPECT_EQ(pathOf([](Json& j) { j["buffers"][0]["element_bytes"] = "4"; }), "/buffers/0/element_bytes");
  // Types go into the header as C: a type's spelling only.
  for (const char* t : {"float; int x", "float2*", "a\nb", "", "9x", "float  2", " float"})
    EXPECT_EQ(pathOf([&](Json& j) { j["buffers"][0]["element_type"] = t; }), "/buffers/0/element_type") << t;
  EXPECT_EQ(pathOf([](Json& j) { j["buffers"][0]["element_type"] = "unsigned long long"; }), "(no error)");
  for (const char* t : {"float2*);", "const float2**", "int /* */"})
    EXPECT_EQ(pathOf([&](Json& j) { j["kernels"][0]["args"][0]["c_type"] = t; }), "/kernels/0/args/0/c_type") << t;
  EXPECT_EQ(pathOf([](Json& j) { j["made_for"] = "sm_90; rm"; }), "/made_for");
  EXPECT_EQ(pathOf([](Json& j) { j["made_for"] = "sm_90a"; }), "(no error)");
  EXPECT_EQ(pathOf([](Json& j) { j["kernels"][0]["grid"]["units_per_batch"] = 0; }), "/kernels/0/grid/units_per_batch");
  EXPECT_EQ(pathOf([](Json& j) {
              j["buffers"][0]["per_batch_elems"] = 0;
              j["buffers"][0]["fixed_elems"] = 0;
              j["buffers"][0].erase("per_batch_param");
            }),
            "/buffers/0/per_batch_elems");
  ASSERT_FALSE(good["helpers"].empty());
  EXPECT_EQ(pathOf([](Json& j) { j["helpers"][0]["text"] = "// another version"; }), "/helpers/0/text");
  EXPECT_EQ(pathOf([](Json& j) { j["kernels"][0]["args"][0]["name"] = "nowhere"; }), "");  // the plan's own check
  for (std::size_t i = 0; i < good["buffers"].size(); ++i) {
    if (good["buffers"][i]["role"] != "table") continue;
    EXPECT_EQ(pathOf([&](Json& j) { j["buffers"][i]["contents"]["base64"] = "AAA"; }),
              fmt::format("/buffers/{}/contents/base64", i));
  }
  EXPECT_EQ(test::errorPathOf<PlanError>([] { loadPlanJson("/nonexistent/plan.json"); }), "");
}

TEST(PlanJson, ACubinForTheDeviceRunsWithoutNvrtc) {
  if (!deviceAvailable()) GTEST_SKIP() << deviceUnavailableReason();
  const std::string arch = deviceInfo(0).arch;
  LaunchPlan p = loadSpec(test::sourcePath("specs/stockham_4096_f32.json"))->emit({arch, nullptr}).plan;
  Compiler compiler(tempDir("cubin").string());
  for (auto& s : p.sources)
    s.cubins[compileTarget(s, arch)] = compiler.compile(s.text, p.specName, compileTarget(s, arch)).cubin;
  for (auto& s : p.sources) s.text = "this is not CUDA: the CUBIN must be used";
  Compiler empty(tempDir("empty").string());
  Executor exec(empty, p);  // would throw a CompileError if it compiled the text
  EXPECT_EQ(exec.kernelStats().size(), p.kernels.size());
}

}  // namespace
}  // namespace warpforge
