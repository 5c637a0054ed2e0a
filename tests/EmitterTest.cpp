#include <gtest/gtest.h>

#include <sstream>

#include <cstring>
#include <regex>

#include "bench/Facets.h"
#include "generator/emulate/Half.h"
#include "generator/emulate/Reference.h"
#include "generator/tc_fft/TcFftData.h"
#include "generator/tc_fft/TcFftEmitter.h"
#include "generator/tc_fft/TcFftFamily.h"
#include "generator/tc_fft/TcFftParser.h"
#include "generator/verify/Verifier.h"
#include "TestUtil.h"

using namespace warpforge;

namespace {
int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

std::unique_ptr<FamilySpec> chime(TcFftDistances d = {}) {
  return makeTcFftSpec(parseTcFftSpecFile(test::sourcePath(test::kChimeSpec)), d);
}
}  // namespace

TEST(Emitter, ChimeKernelHasTheVerifiedInstructionMix) {
  LayoutProgram s = parseTcFftSpecFile(test::sourcePath(test::kChimeSpec));
  Plan p = Verifier().verify(s);
  EmittedKernel k = emitTcFft(p);
  EXPECT_EQ(count(k.source, "wf_mma_m16n8k8_f16("), 8);
  EXPECT_EQ(count(k.source, "wf_mma_m16n8k16_f16("), 16);
  EXPECT_EQ(count(k.source, "wf_cmul("), 16);               // 4 HFMA2-class each = 64
  EXPECT_EQ(count(k.source, "wf_warp_transpose("), 16);     // one shuffle each
  EXPECT_EQ(count(k.source, "wf_local_transpose16("), 16);  // two byte_perm each = 32
  EXPECT_EQ(k.phaseRegisters, 10);                          // the note's 4 + 4 + 2
  EXPECT_NE(k.source.find("spec 'chime_fft_256_512'"), std::string::npos);
  EXPECT_NE(k.source.find("[Z3] b0 <-> n2"), std::string::npos);  // layouts in the header comment
  EXPECT_EQ(k.launch.blockThreads, 128);
  EXPECT_EQ(k.launch.inputVectorElems, 4);
  EXPECT_EQ(k.launch.outputVectorElems, 4);
}

TEST(Emitter, UnpackedPhasesHoldMoreRegisters) {
  LayoutProgram s = parseTcFftSpecFile(test::sourcePath(test::kChimeSpec));
  Plan p = Verifier().verify(s);
  EmittedKernel k = emitTcFft(p, {false, false});
  // E_X_Z1 unpacked to 8, E_Z1_Z2 4, E_Z2_Z3p operand (c, s, -s, c) 3; the other two phases share those.
  EXPECT_EQ(count(k.source, "wf_unpack_row"), 0);
  EXPECT_EQ(k.phaseRegisters, 15);
}

// The plan the Executor runs and `emit` prints: what the old launch struct and Runtime::launch said.
TEST(Emitter, LaunchPlan) {
  auto spec = chime();
  Generated g = spec->emit({});
  const LaunchPlan& p = g.plan;
  EXPECT_EQ(p.family, "tc_fft");
  EXPECT_EQ(p.unitName, "FFT");
  EXPECT_EQ(p.minArch, 80);
  ASSERT_EQ(p.sources.size(), 1u);
  EXPECT_EQ(p.sources[0].fileName, "chime_fft_256_512.cu");
  EXPECT_EQ(p.helpers, (std::vector<std::string>{"warpforge_mma.cuh", "warpforge_complex.cuh",
                                                 "warpforge_transpose.cuh", "warpforge_io.cuh"}));
  ASSERT_EQ(p.buffers.size(), 2u);
  for (const char* name : {"input", "output"}) {
    const PlanBuffer* b = p.buffer(name);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->elementType, "__half2");
    EXPECT_EQ(b->elementBytes, 4);
    EXPECT_EQ(b->perBatchParam, std::string(name) + "_distance");
    EXPECT_EQ(b->fixedElems, 0);
    EXPECT_EQ(b->alignment, 16);
  }
  EXPECT_EQ(p.buffer("input")->role, BufferRole::Input);
  EXPECT_EQ(p.buffer("output")->role, BufferRole::Output);
  ASSERT_NE(p.param("input_distance"), nullptr);
  EXPECT_EQ(p.param("input_distance")->defaultValue, 256);
  EXPECT_EQ(p.param("input_distance")->minValue, 256);
  EXPECT_EQ(p.param("input_distance")->multipleOf, 4);
  EXPECT_EQ(p.param("output_distance")->defaultValue, 512);
  EXPECT_EQ(p.param("output_distance")->minValue, 512);
  EXPECT_EQ(p.param("output_distance")->multipleOf, 4);
  EXPECT_EQ(p.param("repeats"), nullptr);
  ASSERT_EQ(p.kernels.size(), 1u);
  const PlanKernel& k = p.kernels[0];
  EXPECT_EQ(k.name, "chime_fft_256_512");
  EXPECT_EQ(k.blockX, 128);
  EXPECT_EQ(k.sharedBytes, 0);
  ASSERT_EQ(k.args.size(), 5u);
  EXPECT_EQ(k.args[0].kind, PlanArg::Kind::Buffer);
  EXPECT_EQ(k.args[0].cType, "const __half2*");
  EXPECT_EQ(k.args[2].kind, PlanArg::Kind::BatchTimes);
  EXPECT_EQ(k.args[3].name, "input_distance");
  EXPECT_EQ(k.args[4].name, "output_distance");
  // Grid: one FFT per warp per grid-stride step, capped at the resident blocks.
  EXPECT_EQ(k.grid.blocks(1, 132 * 8), 1);
  EXPECT_EQ(k.grid.blocks(7, 132 * 8), 2);
  EXPECT_EQ(k.grid.blocks(1 << 20, 132 * 8), 132 * 8);
  EXPECT_EQ(p.userBytes(10), 10 * 4 * (256 + 512));
  std::string h = launchPlanHeader(p);
  EXPECT_NE(h.find("long long input_distance = 256;"), std::string::npos) << h;
  EXPECT_NE(h.find("#include \"warpforge_io.cuh\""), std::string::npos);

  // A spec made with padded distances defaults to them; bad ones are refused.
  EXPECT_EQ(chime({260, 524})->emit({}).plan.param("output_distance")->defaultValue, 524);
  EXPECT_THROW(chime({257, 0})->emit({}), std::invalid_argument);
}

TEST(Emitter, BenchVariants) {
  const auto spec = chime();
  const BenchFacet* bench = benchFacet(*spec);
  ASSERT_NE(bench, nullptr);
  auto v = bench->benchVariants({});
  ASSERT_EQ(v.size(), 10u);
  EXPECT_EQ(v[0].name, "packed, staged, cp.async double buffer");
  // The same design with f32 accumulators, timed beside the f16 kernel.
  EXPECT_EQ(v[8].name, "f32 accumulators (same design, default options)");
  EXPECT_NE(v[8].generated.plan.sources[0].text.find("wf_mma_m16n8k16_f32("), std::string::npos);
  EXPECT_NE(v[0].generated.plan.sources[0].text.find("wf_cp_async"), std::string::npos);
  for (std::size_t i = 0; i + 1 < v.size(); ++i) EXPECT_EQ(v[i].repeats, 0);
  const BenchVariant& ir = v.back();
  EXPECT_EQ(ir.repeats, 64);
  EXPECT_EQ(ir.generated.plan.kernels[0].name, "chime_fft_256_512_inregister");
  ASSERT_NE(ir.generated.plan.param("repeats"), nullptr);
  EXPECT_EQ(ir.generated.plan.param("repeats")->cType, "int");
  EXPECT_EQ(ir.generated.plan.kernels[0].args.back().cType, "int");
  EXPECT_NE(bench->benchNotes({}, {}, 1980000, 132).find("160"), std::string::npos);
}

namespace {
// Outputs as a correct kernel would write them: FFTW's result rounded to f16, padding poisoned.
std::vector<unsigned char> goodOutputs(const TestData& d, long long batch, long long inDist, long long outDist) {
  std::vector<std::uint16_t> in(d.arrays.at("input").size() / 2), out(2 * outDist * batch, 0xffff);
  std::memcpy(in.data(), d.arrays.at("input").data(), in.size() * 2);
  for (long long b = 0; b < batch; ++b) {
    std::vector<cdouble> x(256);
    for (int n = 0; n < 256; ++n)
      x[n] = {halfBitsToDouble(in[2 * (inDist * b + n)]), halfBitsToDouble(in[2 * (inDist * b + n) + 1])};
    auto y = referenceDft(x, 512, +1);
    for (int q = 0; q < 512; ++q) {
      out[2 * (outDist * b + q)] = floatToHalfBits(y[q].real());
      out[2 * (outDist * b + q) + 1] = floatToHalfBits(y[q].imag());
    }
  }
  std::vector<unsigned char> bytes(out.size() * 2);
  std::memcpy(bytes.data(), out.data(), bytes.size());
  return bytes;
}
}  // namespace

// check() on the CPU: right outputs pass; a poisoned value, an overwritten gap or a wrong value fail.
TEST(TcFftData, CheckCatchesUnwrittenPaddingAndWrongValues) {
  const long long batch = 5;
  auto spec = chime({260, 0});
  TestData d = spec->randomInputs(batch, 7);
  ASSERT_EQ(d.arrays.at("input").size(), 4u * 260 * batch);
  std::map<std::string, std::vector<unsigned char>> outs{{"output", goodOutputs(d, batch, 260, 520)}};
  Check c = spec->check(d, outs, batch);  // output distance 520: read from the output's size
  EXPECT_TRUE(c.ok()) << c.detail;
  EXPECT_EQ(c.checked, batch);
  EXPECT_LT(c.error, 1e-3);
  EXPECT_DOUBLE_EQ(c.bound, tcFftErrorBound(parseTcFftSpecFile(test::sourcePath(test::kChimeSpec))));
  EXPECT_NEAR(c.bound, 9.7e-3, 1e-4);  // 3 MMAs and 2 complex multiplies (TcFftData.cpp)

  auto poisoned = outs;
  poisoned["output"][4 * (520 * 2 + 17)] = 0xff, poisoned["output"][4 * (520 * 2 + 17) + 1] = 0xff;
  EXPECT_EQ(spec->check(d, poisoned, batch).unwritten, 1);
  auto gap = outs;
  gap["output"][4 * (520 * 3 + 515)] = 0;  // in the padding after FFT 3
  EXPECT_EQ(spec->check(d, gap, batch).unwritten, 1);
  auto wrong = outs;
  wrong["output"][4 * (520 * 4 + 3) + 1] ^= 0x40;  // exponent bit of one real part
  Check w = spec->check(d, wrong, batch);
  EXPECT_GT(w.error, c.bound);
  EXPECT_FALSE(w.ok());

  // The baseline sees the input zero-padded to 512 and its own dense output.
  auto base = baselineOf(*spec);
  ASSERT_TRUE(base.has_value());
  EXPECT_EQ(base->description, "cuFFT f16 C2C 512 (zero-padded input)");
  ASSERT_TRUE(std::holds_alternative<FftBaseline>(base->library));
  EXPECT_EQ(std::get<FftBaseline>(base->library).lengths, std::vector<long long>{512});
  auto dense = base->denseInput(d, batch);
  ASSERT_EQ(dense.size(), 4u * 512 * batch);
  EXPECT_EQ(std::memcmp(dense.data() + 4 * 512, d.arrays.at("input").data() + 4 * 260, 4 * 256), 0);
  EXPECT_EQ(dense[4 * 512 + 4 * 300], 0);
  EXPECT_LT(base->error(goodOutputs(d, batch, 260, 512), d, batch), 1e-3);
}

TEST(TcFftData, LargeBatchesAreSampled) {
  auto spec = chime();
  const long long batch = 5000;
  TestData d = spec->randomInputs(batch, 3);
  std::map<std::string, std::vector<unsigned char>> outs{{"output", goodOutputs(d, batch, 256, 512)}};
  Check c = spec->check(d, outs, batch);
  EXPECT_EQ(c.checked, 4098);
  EXPECT_TRUE(c.ok()) << c.detail;
}

// The hand-written CHIME spec emits the kernel it always has, byte for byte, but for the staging slices' bank-conflict-
// free arrangement (tests/golden was emitted before the synthesizer, pass-through MMAs, batch bits, zero padding and
// swizzled slices joined): with plain slices it is the golden; by default only the slice accesses differ.
TEST(Emitter, ChimeKernelIsByteIdenticalToTheGolden) {
  LayoutProgram s = parseTcFftSpecFile(test::sourcePath(test::kChimeSpec));
  Plan p = Verifier().verify(s);
  EmitOptions plain;
  plain.swizzledStage = false;
  const std::string golden = test::readFile(test::sourcePath("tests/golden/chime_fft_256_512.cu"));
  EXPECT_EQ(emitTcFft(p, plain).source, golden);
  // Default: the same kernel once the staging-slice lines (accesses, swizzled offsets, their note) are set aside.
  auto withoutStaging = [](const std::string& text) {
    std::istringstream in(text);
    std::string kept;
    int set = 0;
    for (std::string line; std::getline(in, line);) {
      const bool staging = line.find("stage") != std::string::npos || line.find("wf_swizzle") != std::string::npos ||
                           line.find("distinct banks") != std::string::npos ||
                           line.find("staging slices, whose") != std::string::npos;
      if (staging) ++set;
      else kept += line + "\n";
    }
    return std::pair{kept, set};
  };
  const std::string swizzled = emitTcFft(p).source;
  EXPECT_NE(swizzled, golden);
  EXPECT_EQ(withoutStaging(swizzled).first, withoutStaging(golden).first);
  EXPECT_GE(withoutStaging(golden).second, 8);  // the golden has staging lines: the filter sets aside no more
}
