// GPU tests: the generated CHIME kernel, run through the family interface and the
// generic runner, against FFTW in double. Skipped without a device; run on the
// lent H100 (see bench/RESULTS.md).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bench/RunCheck.h"
#include "generator/tc_fft/TcFftData.h"
#include "generator/tc_fft/TcFftFamily.h"
#include "generator/tc_fft/TcFftParser.h"
#include "warpforge/compiler.h"
#include "warpforge/device.h"
#include "warpforge/executor.h"
#include "TestUtil.h"

using namespace warpforge;

namespace {
std::unique_ptr<FamilySpec> load(const std::string& text, TcFftDistances d = {}) {
  return makeTcFftSpec(parseTcFftSpecText(text, "gpu_test.json"), d);
}
std::string chimeText() { return test::readFile(test::sourcePath(test::kChimeSpec)); }

RunOptions options(long long batch, std::uint64_t seed) {
  RunOptions o;
  o.batch = batch;
  o.seed = seed;
  o.baseline = false;
  return o;
}

// The family's check: every output written, the padding between FFTs untouched,
// max_rel_err within the design's f16 bound (tcFftErrorBound, justified in TcFftData.cpp).
void expectGood(const RunReport& r) {
  const Check& c = r.check;
  std::printf("[gpu] batch=%lld seed=%llu checked=%lld unwritten=%lld max_rel_err=%.3e kernel=%.4f ms\n", r.batch,
              (unsigned long long)r.seed, c.checked, c.unwritten, c.error, r.ourMs);
  EXPECT_EQ(c.unwritten, 0) << c.detail;
  EXPECT_LE(c.error, c.bound) << c.detail;
  EXPECT_DOUBLE_EQ(c.bound, tcFftErrorBound(parseTcFftSpecFile(test::sourcePath(test::kChimeSpec))));
  EXPECT_TRUE(c.ok()) << c.detail;
  EXPECT_GT(c.checked, 0);
}
}  // namespace

class Gpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!deviceAvailable()) GTEST_SKIP() << "no CUDA device: " << deviceUnavailableReason();
  }
};

// The default kernel and every emitter variant bench times (not the in-register one: it repeats its work), the f32
// accumulating one among them.
TEST_F(Gpu, ChimeMatchesFftwAtEveryBatchSize) {
  auto spec = load(chimeText());
  Compiler compiler;
  std::vector<BenchVariant> variants{{"default", spec->emit({}), 0, 0}};
  for (auto& v : benchFacet(*spec)->benchVariants({}))
    if (v.repeats == 0) variants.push_back(std::move(v));
  ASSERT_EQ(variants.size(), 10u);
  std::uint64_t seed = 1000;
  for (long long batch : {1LL, 7LL, 1000LL, (1LL << 20) + 3}) {
    for (const auto& v : variants) {
      std::printf("[gpu] variant: %s\n", v.name.c_str());
      expectGood(runGenerated(compiler, *spec, v.generated, options(batch, seed++)));
    }
  }
}

// cuFFT on the zero-padded input, compared with the same FFTW reference.
TEST_F(Gpu, Baseline) {
  auto spec = load(chimeText());
  Compiler compiler;
  RunOptions o = options(1000, 5);
  o.baseline = true;
  RunReport r = runSpec(compiler, *spec, o);
  expectGood(r);
  std::printf("[gpu] %s: max_rel_err=%.3e\n", r.baselineName.c_str(), r.baselineError);
  EXPECT_EQ(r.baselineName, "cuFFT f16 C2C 512 (zero-padded input)");
  EXPECT_GE(r.baselineError, 0);
  EXPECT_LT(r.baselineError, 1e-2);
}

// Distances with gaps: the kernel reads only n_in of each input and leaves the
// gap after each output alone (the check fails on any value written there).
TEST_F(Gpu, PaddedDistances) {
  Compiler compiler;
  expectGood(runSpec(compiler, *load(chimeText(), {256 + 4, 512 + 12}), options(333, 77)));
  // The output distance set at run time: check reads it from the output's size.
  RunOptions o = options(333, 78);
  o.params["output_distance"] = 512 + 8;
  expectGood(runSpec(compiler, *load(chimeText()), o));
}

TEST_F(Gpu, DifferentConsistentOutputLayouts) {
  using Json = nlohmann::ordered_json;
  const Json base = Json::parse(chimeText());
  Compiler compiler;
  // Lane order reversed; a lane bit exchanged with a register bit; ReIm on a
  // higher register with q3 on b... (the last is not loadable: b must be ReIm).
  for (const char* y : {"b <-> ReIm, t0 t1 t2 t3 t4 <-> q8 q7 q6 q5 q4, r <-> q0 q1 q2 q3",
                        "b <-> ReIm, t0 t1 t2 t3 t4 <-> q4 q5 q2 q7 q8, r <-> q0 q1 q6 q3",
                        "b <-> ReIm, t0 t1 t2 t3 t4 <-> q0 q1 q2 q3 q4, r <-> q5 q6 q7 q8"}) {
    Json j = base;
    j["arrays"]["Y"]["layout"] = y;
    auto spec = load(j.dump());
    std::printf("[gpu] Y = %s\n", y);
    expectGood(runSpec(compiler, *spec, options(5000, 31)));
  }
}

// The Executor refuses what the old Runtime::launch refused: distances that are not
// multiples of the vector width or below n_in / n_out, and misaligned arrays.
TEST_F(Gpu, RuntimeRejectsMisalignedDistances) {
  auto spec = load(chimeText());
  Compiler compiler;
  Executor ex(compiler, spec->emit({}).plan);
  const long long batch = 10;
  DeviceBuffer in(static_cast<std::size_t>(ex.arrayBytes("input", batch, {{"input_distance", 264}})) + 64);
  DeviceBuffer out(static_cast<std::size_t>(ex.arrayBytes("output", batch)) + 64);
  const ArrayBindings arrays{{"input", in.p}, {"output", out.p}};
  EXPECT_NO_THROW(ex.run(arrays, batch));
  EXPECT_THROW(ex.run(arrays, batch, nullptr, 0, -1, {{"input_distance", 257}}), std::invalid_argument);
  EXPECT_THROW(ex.run(arrays, batch, nullptr, 0, -1, {{"output_distance", 510}}), std::invalid_argument);
  EXPECT_THROW(ex.run(arrays, batch, nullptr, 0, -1, {{"input_distance", 252}}), std::invalid_argument);
  EXPECT_THROW(ex.run({{"input", in.p + 4}, {"output", out.p}}, batch), std::invalid_argument);
  EXPECT_THROW(ex.run({{"input", in.p}, {"output", out.p + 8}}, batch), std::invalid_argument);
}
