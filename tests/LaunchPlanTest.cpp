// The launch plan as data, its header, and the Executor's checks (the GPU parts skip without a device).
#include <gtest/gtest.h>

#include <cuda.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>

#include <fmt/format.h>

#include "warpforge/executor.h"
#include "warpforge/launch_plan.h"
#include "warpforge/plan_json.h"
#include "generator/core/PlanCompose.h"

namespace warpforge {
namespace {

// y[i] = x[i] * scale + table[i % 4] for `n` floats per batch entry: one kernel, every kind of argument.
LaunchPlan axpyPlan(bool persistent = false) {
  LaunchPlan p;
  p.specName = "axpy_test";
  p.family = "test";
  p.unitName = "row";
  p.minArch = 50;
  p.sources.push_back(
      {"axpy.cu", R"(extern "C" __global__ void axpy(const float* x, float* y, const float* table, float* scratch,
    unsigned long long* counter, long long rows, long long n, int scale) {
  for (long long r = blockIdx.x; r < rows; r += gridDim.x)
    for (long long i = threadIdx.x; i < n; i += blockDim.x) {
      scratch[r * n + i] = x[r * n + i] * scale;
      y[r * n + i] = scratch[r * n + i] + table[i % 4] + (float)counter[0];
    }
})"});
  PlanBuffer x{"x", BufferRole::Input, "float", 4, 0, 0, "n"};
  PlanBuffer y{"y", BufferRole::Output, "float", 4, 0, 0, "n"};
  PlanBuffer table{"table", BufferRole::Table, "float", 4};
  table.scalar = "float";
  float t[4] = {0.5f, 0.25f, -1.0f, 1e-7f};
  table.contents.assign(reinterpret_cast<unsigned char*>(t), reinterpret_cast<unsigned char*>(t) + sizeof t);
  table.fixedElems = 4;
  PlanBuffer scratch{"scratch", BufferRole::Scratch, "float", 4, 100};
  PlanBuffer counter{"counter", BufferRole::Counter, "unsigned long long", 8, 0, 2};
  p.buffers = {x, y, table, scratch, counter};
  p.params = {{"n", "long long", 100, 1, 1, "floats per row"}, {"scale", "int", 2, 0, 1, ""}};
  PlanKernel k;
  k.name = "axpy";
  k.blockX = 64;
  k.grid = {1, 1, persistent};
  k.args = {PlanArg::buffer("x", "const float*", "x"),
            PlanArg::buffer("y", "float*", "y"),
            PlanArg::buffer("table", "const float*", "table"),
            PlanArg::buffer("scratch", "float*", "scratch"),
            PlanArg::buffer("counter", "unsigned long long*", "counter"),
            PlanArg::batchTimes(1, "rows"),
            PlanArg::scalar("n", "long long"),
            PlanArg::scalar("scale", "int")};
  p.kernels = {k};
  return p;
}

TEST(LaunchPlan, GridCoversTheBatchAndCapsPersistentKernels) {
  GridRule g{3, 8, false};
  EXPECT_EQ(g.blocks(1, 100), 1);
  EXPECT_EQ(g.blocks(8, 100), 3);  // 24 units / 8
  EXPECT_EQ(g.blocks(1000, 100), 375);
  g.capAtResident = true;
  EXPECT_EQ(g.blocks(1000, 100), 100);
  EXPECT_EQ(g.blocks(1000, 0), 1);
  EXPECT_EQ(GridRule({1, 1, false}).blocks(0x7fffffffLL, 1), 0x7fffffffLL);
  EXPECT_THROW(GridRule({1, 1, false}).blocks(1LL << 40, 1),
               std::invalid_argument);  // refused, never clamped (work skipped)
  EXPECT_EQ(GridRule({1, 1, false}).maxBatch(), 0x7fffffffLL);
}

TEST(LaunchPlan, CheckRejectsDanglingNames) {
  LaunchPlan p = axpyPlan();
  EXPECT_NO_THROW(p.check());
  p.kernels[0].args[2].name = "tables";
  EXPECT_THROW(p.check(), std::logic_error);
  p = axpyPlan();
  p.kernels[0].args[6].name = "m";
  EXPECT_THROW(p.check(), std::logic_error);
  p = axpyPlan();
  p.buffers.push_back(p.buffers[0]);
  EXPECT_THROW(p.check(), std::logic_error);
}

TEST(LaunchPlan, SizesAndTraffic) {
  LaunchPlan p = axpyPlan();
  EXPECT_EQ(p.scratchBytes(3), (300 * 4 + 255) / 256 * 256);
  EXPECT_EQ(p.userBytes(3), 2 * 3 * 100 * 4);  // x read, y written, at the parameter's default
}

// A tensor-map argument: check() refuses what TMA cannot encode; the header declares the kernel's CUtensorMap
// parameter and encodes the map per call (the batch in its dimension); the plan file keeps it; nvcc compiles the
// header where the toolkit is installed.
TEST(LaunchPlan, TensorMapArgumentsAreCheckedEncodedAndKept) {
  auto withMap = [](PlanTensorMap m, const std::string& buffer = "x") {
    LaunchPlan p = axpyPlan();
    p.kernels[0].args.push_back(PlanArg::tensorMap(buffer, std::move(m), "x_map"));
    return p;
  };
  const PlanTensorMap good{{32, 100, 4}, {32, 3200}, {32, 64, 2}, 32, 2};
  LaunchPlan p = withMap(good);
  EXPECT_NO_THROW(p.check());
  for (const PlanTensorMap& bad : {PlanTensorMap{{32, 100, 4}, {32, 3200}, {32, 64, 2}, 48, 2},    // no such swizzle
                                   PlanTensorMap{{64, 100, 4}, {64, 3200}, {64, 64, 2}, 32, 2},    // box row > swizzle
                                   PlanTensorMap{{32, 100, 4}, {40, 3200}, {32, 64, 2}, 32, 2},    // stride % 16
                                   PlanTensorMap{{32, 100, 4}, {32}, {32, 64, 2}, 32, 2},          // strides missing
                                   PlanTensorMap{{32, 100, 4}, {32, 3200}, {32, 512, 2}, 32, 2}})  // box > 256
    EXPECT_THROW(withMap(bad).check(), std::logic_error);
  EXPECT_THROW(withMap(good, "nowhere").check(), std::logic_error);
  const std::string h = launchPlanHeader(p);
  EXPECT_NE(h.find("#include <cuda.h>"), std::string::npos);
  EXPECT_NE(h.find("const __grid_constant__ CUtensorMap x_map);"), std::string::npos) << h;
  EXPECT_NE(h.find("(cuuint64_t)4LL * batch"), std::string::npos) << h;
  EXPECT_NE(h.find("cuTensorMapEncodeTiled(&x_map_k0, CU_TENSOR_MAP_DATA_TYPE_UINT8, 3, const_cast<void*>(a.x)"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("CU_TENSOR_MAP_SWIZZLE_32B"), std::string::npos);
  const LaunchPlan back = planFromJson(planToJson(p), "plan.json", ".");
  ASSERT_EQ(back.kernels[0].args.size(), p.kernels[0].args.size());
  const PlanArg& a = back.kernels[0].args.back();
  EXPECT_EQ(a.kind, PlanArg::Kind::TensorMap);
  EXPECT_EQ(a.map.dims, good.dims);
  EXPECT_EQ(a.map.strides, good.strides);
  EXPECT_EQ(a.map.box, good.box);
  EXPECT_EQ(a.map.swizzle, 32);
  EXPECT_EQ(a.map.batchDim, 2);
  if (std::system("nvcc --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "no nvcc to compile the header with";
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "wf_tensor_map_header";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "axpy_plan.h") << h;
  std::ofstream(dir / "use.cu") << "#include \"axpy_plan.h\"\n"
                                   "cudaError_t call(const wf_axpy_test::State& s, const wf_axpy_test::Arrays& a) {\n"
                                   "  return wf_axpy_test::run(s, a, 2, nullptr, 0);\n}\n";
  const std::string cmd = fmt::format("cd '{}' && nvcc -std=c++17 -arch=sm_90 -c use.cu -o use.o 2> nvcc.log",
                                      dir.string());
  EXPECT_EQ(std::system(cmd.c_str()), 0) << "nvcc refused the header; see " << (dir / "nvcc.log").string();
}

// The header declares the kernel, holds the table's exact values and a run() that launches with the plan's grid.
TEST(LaunchPlan, HeaderHoldsTablesAndLaunches) {
  std::string h = launchPlanHeader(axpyPlan());
  EXPECT_NE(h.find("extern \"C\" __global__ void axpy(const float* x, float* y, const float* table, float* scratch, "
                   "unsigned long long* counter, "
                   "long long rows, long long n, int scale);"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("static const float table[] = {\n    0.5f, 0.25f, -1.0f, 1e-07f\n  };"), std::string::npos) << h;
  EXPECT_NE(h.find("long long n = 100;"), std::string::npos) << h;
  EXPECT_NE(h.find("axpy<<<"), std::string::npos) << h;
  EXPECT_EQ(std::strtof("1e-07", nullptr), 1e-7f);  // the printed form reads back to the same float
}

// A table too large to inline (it would make a header nvcc cannot compile) goes to a file init() reads,
// byte for byte what the executor uploads; small tables stay inline and init() keeps its one-argument form.
TEST(LaunchPlan, LargeTablesGoToFilesThatInitReads) {
  EXPECT_TRUE(launchPlanTableFiles(axpyPlan()).empty());
  EXPECT_NE(launchPlanHeader(axpyPlan()).find("inline cudaError_t init(State* s) {"), std::string::npos);
  LaunchPlan p = axpyPlan();
  PlanBuffer* t = nullptr;
  for (auto& b : p.buffers)
    if (b.name == "table") t = &b;
  ASSERT_NE(t, nullptr);
  t->contents.assign(kInlineTableBytes + 4, 0);
  for (std::size_t i = 0; i < t->contents.size(); ++i) t->contents[i] = static_cast<unsigned char>(i * 7);
  t->fixedElems = static_cast<long long>(t->contents.size() / 4);
  auto files = launchPlanTableFiles(p);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].fileName, p.specName + "_table.bin");
  EXPECT_EQ(files[0].bytes, std::string(t->contents.begin(), t->contents.end()));
  std::string h = launchPlanHeader(p);
  EXPECT_LT(h.size(), 20000u);
  EXPECT_EQ(h.find("static const float table[]"), std::string::npos);
  EXPECT_NE(h.find("static const char table_file[] = \"" + p.specName + "_table.bin\";"), std::string::npos) << h;
  EXPECT_NE(h.find("inline cudaError_t init(State* s, const char* table_dir = \".\") {"), std::string::npos) << h;
  EXPECT_NE(h.find(fmt::format("load_table(s->table, table_dir, table_file, {})", t->contents.size())),
            std::string::npos)
      << h;
}

bool haveGpu() { return deviceAvailable(); }

// Families compose: a part plan appended under a prefix, user arrays mapped, batches scaled.
TEST(LaunchPlan, AppendPlanMapsUserArraysAndScalesBatches) {
  LaunchPlan into, part;
  into.specName = "a";
  part.specName = "b";
  PlanBuffer s;
  s.name = "work";
  s.role = BufferRole::Scratch;
  s.elementBytes = 8;
  s.perBatchElems = 10;
  into.buffers.push_back(s);
  PlanBuffer in = s, t = s;
  in.name = "input";
  in.role = BufferRole::Input;
  t.name = "tmp";
  part.buffers = {in, t};
  part.sources.push_back({"b.cu", "x"});
  PlanKernel k;
  k.name = "kb";
  k.grid = GridRule{3, 1, false};
  k.args = {PlanArg::buffer("input", "float2*", "in"), PlanArg::buffer("tmp", "float2*", "tmp"),
            PlanArg::batchTimes(3, "n"), PlanArg::tensorMap("tmp", PlanTensorMap{{16, 5}, {16}, {16, 5}, 0, 1}, "m")};
  part.kernels.push_back(k);
  appendPlan(into, part, {{"input", "work"}}, "p_", 7);
  ASSERT_EQ(into.kernels.size(), 1u);
  EXPECT_EQ(into.kernels[0].args[0].name, "work");
  EXPECT_EQ(into.kernels[0].args[1].name, "p_tmp");
  EXPECT_EQ(into.kernels[0].args[2].value, 21);
  EXPECT_EQ(into.kernels[0].args[3].name, "p_tmp");  // a tensor map follows its buffer and spans 7 entries per entry
  EXPECT_EQ(into.kernels[0].args[3].map.dims, (std::vector<long long>{16, 35}));
  EXPECT_EQ(into.kernels[0].grid.unitsPerBatch, 21);
  EXPECT_EQ(into.buffer("p_tmp")->perBatchElems, 70);
  EXPECT_NO_THROW(into.check());
  EXPECT_THROW(appendPlan(into, part, {}, "q_", 1), std::logic_error);  // the user array is not mapped
}

TEST(Executor, WithoutAGpuSaysSoInWords) {
  if (haveGpu()) GTEST_SKIP() << "a GPU is present";
  Compiler c;
  try {
    Executor e(c, axpyPlan());
    FAIL() << "constructed without a GPU";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(std::regex_search(e.what(), std::regex("no CUDA (driver|device)|did not initialise"))) << e.what();
  }
}

struct Gpu : ::testing::Test {
  void SetUp() override {
    if (!haveGpu()) GTEST_SKIP() << deviceUnavailableReason();
  }
};

TEST_F(Gpu, ExecutorRunsThePlanAndLeavesTheCallersContextAlone) {
  CUcontext before = nullptr;
  ASSERT_EQ(cuCtxGetCurrent(&before), CUDA_SUCCESS);
  ASSERT_EQ(before, nullptr) << "test expects no current context at start";
  Compiler c;
  Executor e(c, axpyPlan(true));
  CUcontext after = nullptr;
  cuCtxGetCurrent(&after);
  EXPECT_EQ(after, nullptr) << "the executor made its context current";
  ScopedContext scope(e.context());
  const long long batch = 5, n = 100;
  DeviceBuffer x(batch * n * 4), y(batch * n * 4);
  std::vector<float> hx(batch * n);
  for (std::size_t i = 0; i < hx.size(); ++i) hx[i] = static_cast<float>(i % 17) - 8;
  checkCu(cuMemcpyHtoD(x.p, hx.data(), hx.size() * 4), "upload");
  checkCu(cuMemsetD8(y.p, 0xff, batch * n * 4), "poison");
  e.run({{"x", x.p}, {"y", y.p}}, batch);
  std::vector<float> hy(batch * n);
  checkCu(cuMemcpyDtoH(hy.data(), y.p, hy.size() * 4), "download");
  const float t[4] = {0.5f, 0.25f, -1.0f, 1e-7f};
  for (long long i = 0; i < batch * n; ++i) ASSERT_EQ(hy[i], hx[i] * 2 + t[(i % n) % 4]) << i;
  // Checks in the library, not only the CLI.
  EXPECT_THROW(e.run({{"x", x.p}}, batch), std::invalid_argument);                   // output not bound
  EXPECT_THROW(e.run({{"x", x.p}, {"y", y.p + 2}}, batch), std::invalid_argument);   // misaligned
  EXPECT_THROW(e.run({{"x", x.p}, {"y", x.p + 40}}, batch), std::invalid_argument);  // overlapping arrays
  EXPECT_THROW(e.run({{"x", x.p}, {"y", y.p}}, batch, nullptr, 0, -1, {{"n", 0}}),
               std::invalid_argument);                                                      // below its minimum
  EXPECT_THROW(e.run({{"x", x.p}, {"y", y.p}, {"z", y.p}}, batch), std::invalid_argument);  // no such array
  EXPECT_THROW(e.run({{"x", x.p}, {"y", y.p}}, 0), std::invalid_argument);
  DeviceBuffer ws(e.workspaceBytes(batch));
  EXPECT_THROW(e.run({{"x", x.p}, {"y", y.p}}, batch, nullptr, ws.p, e.workspaceBytes(batch) - 1),
               std::invalid_argument);
  EXPECT_NO_THROW(e.run({{"x", x.p}, {"y", y.p}}, batch, nullptr, ws.p, e.workspaceBytes(batch)));
  // An output whose entries stay apart only up to some batch (interleaved entries): the executor refuses more.
  LaunchPlan limited = axpyPlan(true);
  for (auto& b : limited.buffers)
    if (b.name == "y") b.maxBatch = batch - 1;
  Executor el(c, limited);
  EXPECT_THROW(el.run({{"x", x.p}, {"y", y.p}}, batch), std::invalid_argument);
  EXPECT_NO_THROW(el.run({{"x", x.p}, {"y", y.p}}, batch - 1));
}

}  // namespace
}  // namespace warpforge
