// GPU tests: the generated CHIME kernel against FFTW in double. Skipped
// without a device; run on the lent H100 (see bench/RESULTS.md).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "generator/spec/Spec.h"
#include "generator/verify/Verifier.h"
#include "runtime/GpuRun.h"
#include "TestUtil.h"

using namespace warpforge;

namespace {
// f16 inputs in [-1, 1], ~7 roundings of u = 2^-11 along the way with
// |Y| ~ sqrt(256): the emulator's f16 mode gives ~6e-4, so 3e-3 leaves room
// for the hardware's accumulation order while catching any layout error
// (a wrong bit gives O(1) error).
constexpr double kBound = 3e-3;

struct Fixture {
  TcFftSpec spec;
  Plan plan;
};
std::unique_ptr<Fixture> load(const std::string& text) {
  auto f = std::make_unique<Fixture>();
  f->spec = parseSpecText(text, "gpu_test.json");
  f->plan = Verifier().verify(f->spec);
  return f;
}

void expectGood(const RunCheck& c) {
  std::printf("[gpu] batch=%lld seed=%llu checked=%lld unwritten=%lld nonfinite=%lld max_rel_err=%.3e kernel=%.4f ms\n", c.batch,
              (unsigned long long)c.seed, c.checkedFfts, c.unwrittenValues, c.nonFinite, c.maxRelErr, c.kernelMs);
  EXPECT_EQ(c.unwrittenValues, 0);
  EXPECT_EQ(c.nonFinite, 0);
  EXPECT_LE(c.maxRelErr, kBound);
  EXPECT_GT(c.checkedFfts, 0);
}
}  // namespace

class Gpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Runtime::deviceAvailable()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_F(Gpu, ChimeMatchesFftwAtEveryBatchSize) {
  auto f = load(test::readFile(test::sourcePath(test::kChimeSpec)));
  Runtime rt;
  std::printf("[gpu] device %s (%s)\n", rt.deviceName().c_str(), rt.deviceArch().c_str());
  std::uint64_t seed = 1000;
  for (long long batch : {1LL, 7LL, 1000LL, (1LL << 20) + 3}) {
    for (EmitOptions o : {EmitOptions{}, EmitOptions{false, false, false, true, true, true}, EmitOptions{true, false, false, true, true, true},
                          EmitOptions{true, false, false, false}, EmitOptions{true, false, true, false}}) {
      std::printf("[gpu] variant: phases %s, prefetch %s, %s I/O%s\n", o.packedPhases ? "packed" : "unpacked", o.prefetch ? "on" : "off",
                  o.staged ? "staged" : "direct", o.staged && o.asyncCopy ? " (cp.async)" : "");
      expectGood(runAgainstFftw(rt, f->plan, o, batch, seed++, batch <= 1000));
    }
  }
}

TEST_F(Gpu, PaddedDistances) {
  auto f = load(test::readFile(test::sourcePath(test::kChimeSpec)));
  Runtime rt;
  expectGood(runAgainstFftw(rt, f->plan, {}, 333, 77, true, 4, 12));
}

TEST_F(Gpu, DifferentConsistentOutputLayouts) {
  using Json = nlohmann::ordered_json;
  const Json base = Json::parse(test::readFile(test::sourcePath(test::kChimeSpec)));
  Runtime rt;
  // Lane order reversed; a lane bit exchanged with a register bit; ReIm on a
  // higher register with q3 on b... (the last is not loadable: b must be ReIm).
  for (const char* y : {"b <-> ReIm, t0 t1 t2 t3 t4 <-> q8 q7 q6 q5 q4, r <-> q0 q1 q2 q3",
                        "b <-> ReIm, t0 t1 t2 t3 t4 <-> q4 q5 q2 q7 q8, r <-> q0 q1 q6 q3",
                        "b <-> ReIm, t0 t1 t2 t3 t4 <-> q0 q1 q2 q3 q4, r <-> q5 q6 q7 q8"}) {
    Json j = base;
    j["arrays"]["Y"]["layout"] = y;
    auto f = load(j.dump());
    std::printf("[gpu] Y = %s: relayout %zu ops\n", y, f->plan.steps.back().relayout.ops.size());
    expectGood(runAgainstFftw(rt, f->plan, {}, 5000, 31, true));
  }
}

TEST_F(Gpu, RuntimeRejectsMisalignedDistances) {
  auto f = load(test::readFile(test::sourcePath(test::kChimeSpec)));
  Runtime rt;
  EXPECT_THROW(runAgainstFftw(rt, f->plan, {}, 10, 1, true, 1, 0), std::invalid_argument);
}
