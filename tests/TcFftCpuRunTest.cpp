// Emitted tc_fft kernels run on the CPU (tests/CudaOnCpu.h: one thread per CUDA thread, warp instructions as the PTX
// ISA defines them) against FFTW in double, through the family's own check (every output written, padding untouched,
// the f16 bound): synthesized designs of several sizes (batch bits, zero padding, pass-through MMAs, short rows),
// odd batches and padded distances, and CHIME's hand-written spec.
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <tuple>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "CudaOnCpu.h"
#include "generator/core/Facets.h"
#include "generator/tc_fft/TcFftFamily.h"
#include "generator/tc_fft/TcFftParser.h"
#include "generator/tc_fft/TcFftEmitter.h"
#include "generator/tc_fft/TcFftPairBuffer.h"
#include "generator/tc_fft/TcFftPairEmitter.h"
#include "generator/tc_fft/TcFftQuadEmitter.h"
#include "generator/tc_fft/PhasePlan.h"
#include "generator/tc_fft/TcFftLaunch.h"
#include "generator/tc_fft/Synthesizer.h"
#include "generator/tc_fft/TcFftIo.h"
#include "generator/verify/Verifier.h"
#include "templates/Embedded.h"
#include "warpforge/compiler.h"
#include "TestUtil.h"

using namespace warpforge;

namespace {

// Host definitions of what the helpers use from cuda_fp16.h beyond tests/CudaOnCpu.h's shim (which has the streaming
// loads and stores, sincospif and __shfl_sync): __half2 as two IEEE half bit patterns, arithmetic in double rounded
// once to half (products of halves are exact in double), __syncwarp and the unsigned xor shuffle as warp meetings, and
// the f16 mma.sync shapes computed from the PTX ISA's fragment formulas (written here, independent of
// generator/layout/FragmentTable.cpp): sum in double, rounded to half once.
const char* kHostPrelude = R"(
inline double wf_h2d(unsigned short h) { return wf_half(h); }
inline unsigned short wf_d2h(double x) {
  if (x != x) return 0x7e00;
  unsigned short sign = x < 0 ? 0x8000 : 0;
  double a = std::fabs(x);
  if (a == 0) return sign;
  if (a >= 65520.0) return sign | 0x7c00;
  int e;
  std::frexp(a, &e);  // a = m 2^e, m in [0.5, 1)
  int exp = e - 1;    // a = 1.f 2^exp
  if (exp < -14) exp = -14;
  const double q = std::nearbyint(std::ldexp(a, 10 - exp));  // ties to even (default rounding mode)
  const long long n = (long long)q;
  if (exp == -14 && n < 1024) return sign | (unsigned short)n;  // subnormal (or zero)
  long long m = n;
  int ee = exp;
  if (m >= 2048) m >>= 1, ++ee;
  if (ee > 15) return sign | 0x7c00;
  return sign | (unsigned short)((ee + 15) << 10 | (m - 1024));
}
struct __half2 { unsigned short x, y; };
inline __half2 wf_h2(double a, double b) { return {wf_d2h(a), wf_d2h(b)}; }
inline __half2 __floats2half2_rn(float a, float b) { return wf_h2(a, b); }
inline __half2 __hmul2(__half2 a, __half2 b) { return wf_h2(wf_h2d(a.x) * wf_h2d(b.x), wf_h2d(a.y) * wf_h2d(b.y)); }
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
  return wf_h2(wf_h2d(a.x) * wf_h2d(b.x) + wf_h2d(c.x), wf_h2d(a.y) * wf_h2d(b.y) + wf_h2d(c.y));
}
inline float2 __half22float2(__half2 a) { return {(float)wf_h2d(a.x), (float)wf_h2d(a.y)}; }
inline __half2 __hadd2(__half2 a, __half2 b) { return wf_h2(wf_h2d(a.x) + wf_h2d(b.x), wf_h2d(a.y) + wf_h2d(b.y)); }
inline __half2 __hsub2(__half2 a, __half2 b) { return wf_h2(wf_h2d(a.x) - wf_h2d(b.x), wf_h2d(a.y) - wf_h2d(b.y)); }
inline __half2 __hneg2(__half2 a) { return {(unsigned short)(a.x ^ 0x8000), (unsigned short)(a.y ^ 0x8000)}; }
inline void __syncwarp() { wf_warp->arrive_and_wait(); }
inline unsigned __shfl_xor_sync(unsigned, unsigned v, int mask) {
  const unsigned w = threadIdx.x >> 5, l = threadIdx.x & 31;
  wf_posted[w][l][0] = v;
  wf_warp->arrive_and_wait();
  const unsigned r = wf_posted[w][l ^ mask][0];
  wf_warp->arrive_and_wait();
  return r;
}
// mma.sync m16n8kK f16 (K = 8, 16): lane l = 4 g + t. A element i: row g + 8 ((i >> 1) & 1), column 2 t + (i & 1) +
// 8 (i >> 2) (K = 16; K = 8: row g + 8 (i >> 1), column 2 t + (i & 1)); B element i: row 2 t + (i & 1) + 8 (i >> 1),
// column g; C element i: row g + 8 (i >> 1), column 2 t + (i & 1). Element i is half i % 2 of register i / 2.
template <int K>
inline void wf_host_mma_sums(double* out, const unsigned* a, const unsigned* b) {
  const unsigned w = threadIdx.x >> 5, l = threadIdx.x & 31;
  const int na = K / 4, nb = K / 8;
  for (int i = 0; i < na; ++i) wf_posted[w][l][i] = a[i];
  for (int i = 0; i < nb; ++i) wf_posted[w][l][4 + i] = b[i];
  wf_warp->arrive_and_wait();
  double A[16][16] = {}, B[16][8] = {};
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 2 * na; ++i) {
      const int row = K == 16 ? g + 8 * ((i >> 1) & 1) : g + 8 * (i >> 1), col = 2 * t + (i & 1) + (K == 16 ? 8 * (i >> 2) : 0);
      A[row][col] = wf_h2d((unsigned short)(wf_posted[w][lane][i / 2] >> (16 * (i % 2))));
    }
    for (int i = 0; i < 2 * nb; ++i) B[2 * t + (i & 1) + 8 * (i >> 1)][g] = wf_h2d((unsigned short)(wf_posted[w][lane][4 + i / 2] >> (16 * (i % 2))));
  }
  wf_warp->arrive_and_wait();
  const int g = l / 4, t = l % 4;
  for (int i = 0; i < 4; ++i) {
    const int row = g + 8 * (i >> 1), col = 2 * t + (i & 1);
    double s = 0;
    for (int k = 0; k < K; ++k) s += A[row][k] * B[k][col];
    out[i] = s;
  }
}
template <int K>
inline void wf_host_mma(unsigned& d0, unsigned& d1, const unsigned* a, const unsigned* b) {
  double s[4];
  wf_host_mma_sums<K>(s, a, b);
  unsigned out[2] = {0, 0};
  for (int i = 0; i < 4; ++i) out[i / 2] |= (unsigned)wf_d2h(s[i]) << (16 * (i % 2));
  d0 = out[0], d1 = out[1];
}
// f32 C: element i is register i, the sum rounded to f32 once.
template <int K>
inline void wf_host_mma_f32(float& d0, float& d1, float& d2, float& d3, const unsigned* a, const unsigned* b) {
  double s[4];
  wf_host_mma_sums<K>(s, a, b);
  d0 = (float)s[0], d1 = (float)s[1], d2 = (float)s[2], d3 = (float)s[3];
}
)";

// The helpers' inline-PTX definitions, replaced by host ones (each must be present: a renamed helper fails the test).
const std::vector<std::pair<std::string, std::string>> kHostHelpers = {
    {"wf_mma_m16n8k8_f16",
     "__device__ __forceinline__ void wf_mma_m16n8k8_f16(wf_u32& d0, wf_u32& d1, wf_u32 a0, wf_u32 a1, wf_u32 b0) "
     "{ const unsigned a[2] = {a0, a1}, b[1] = {b0}; wf_host_mma<8>(d0, d1, a, b); }"},
    {"wf_mma_m16n8k16_f16",
     "__device__ __forceinline__ void wf_mma_m16n8k16_f16(wf_u32& d0, wf_u32& d1, wf_u32 a0, wf_u32 a1, wf_u32 a2, "
     "wf_u32 a3, wf_u32 b0, wf_u32 b1) { const unsigned a[4] = {a0, a1, a2, a3}, b[2] = {b0, b1}; wf_host_mma<16>(d0, "
     "d1, a, b); }"},
    {"wf_mma_m16n8k8_f32",
     "__device__ __forceinline__ void wf_mma_m16n8k8_f32(float& d0, float& d1, float& d2, float& d3, wf_u32 a0, wf_u32 "
     "a1, wf_u32 b0) { const unsigned a[2] = {a0, a1}, b[1] = {b0}; wf_host_mma_f32<8>(d0, d1, d2, d3, a, b); }"},
    {"wf_mma_m16n8k16_f32",
     "__device__ __forceinline__ void wf_mma_m16n8k16_f32(float& d0, float& d1, float& d2, float& d3, wf_u32 a0, "
     "wf_u32 a1, wf_u32 a2, wf_u32 a3, wf_u32 b0, wf_u32 b1) { const unsigned a[4] = {a0, a1, a2, a3}, b[2] = {b0, "
     "b1}; wf_host_mma_f32<16>(d0, d1, d2, d3, a, b); }"},
    {"wf_warp_load16_async",
     "template <int kWords> __device__ __forceinline__ void wf_warp_load16_async(wf_u32* stage, const wf_u32* src, int "
     "lane) "
     "{ for (int i = 0; i < kWords / 4; i += 32) wf_cp_async(stage + 4 * (i + lane), src + 4 * (i + lane), 16, true); "
     "}"},
    {"wf_warp_load16_async_swizzled",
     "template <int kWords, class Swizzle, bool kL2Prefetch = false> __device__ __forceinline__ void "
     "wf_warp_load16_async_swizzled(wf_u32* "
     "stage, const wf_u32* src, int lane) "
     "{ for (int i = 0; i < kWords / 4; i += 32) wf_cp_async(stage + 4 * Swizzle::chunk(i + lane), src + 4 * (i + "
     "lane), 16, true); }"},
    {"wf_cp_async4",
     "__device__ __forceinline__ void wf_cp_async4(wf_u32* dst, const wf_u32* src) { wf_cp_async(dst, src, 4, true); "
     "}"},
    {"wf_cp_async_commit", "__device__ __forceinline__ void wf_cp_async_commit() { wf_cp_commit(); }"},
    {"wf_cp_async_wait",
     "template <int kPending> __device__ __forceinline__ void wf_cp_async_wait() { wf_cp_wait(kPending); }"},
    // Last: a one-line replacement starting with `template` must not sit above a helper still to be replaced
    // (replaceHelper takes a `template` line above a definition as the definition's).
    {"wf_named_barrier",
     "template <int kThreads> __device__ __forceinline__ void wf_named_barrier(int id) { wf_bar_sync(id, kThreads); "
     "}"}};

// The definition of device helper `name` in `text` (from its `template` line, if any, to its closing brace), replaced.
bool replaceHelper(std::string& text, const std::string& name, const std::string& with) {
  const std::size_t at = text.find(" " + name + "(");
  if (at == std::string::npos) return false;
  std::size_t start = text.rfind('\n', at) + 1;
  const std::size_t prev = start >= 2 ? text.rfind('\n', start - 2) + 1 : 0;
  if (text.compare(prev, 9, "template ") == 0) start = prev;
  const std::size_t lineEnd = text.find('\n', at);
  std::size_t end = text[lineEnd - 1] == '}' ? lineEnd : text.find("\n}\n", at) + 2;
  text.replace(start, end - start, with);
  return true;
}

// The emitted kernel as host C++: the helper headers inlined (their PTX replaced), CUDA's headers left out.
std::string hostSource(const std::string& kernel) {
  std::string helpers;
  for (const char* h : {"warpforge_complex.cuh", "warpforge_mma.cuh", "warpforge_transpose.cuh", "warpforge_io.cuh"})
    for (const auto& e : embeddedTemplates())
      if (std::string_view(e.name) == h) helpers += std::string(e.text) + "\n";
  for (const auto& [name, with] : kHostHelpers)
    EXPECT_TRUE(replaceHelper(helpers, name, with)) << "no helper " << name << " to replace";
  std::string out;
  std::istringstream in(helpers + kernel);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("#include", 0) != 0 && line.rfind("#pragma once", 0) != 0) out += line + "\n";
  return kHostPrelude + out;
}

std::string sizeSpec(int nIn, int nOut, int sign, const std::string& extra = "") {
  return fmt::format(
      R"({{"name": "cpu_{}_{}", "family": "tc_fft", "precision": "f16", {}"transform": {{"n_in": {}, "n_out": {}, "sign": {}}}}})",
      nIn, nOut, extra, nIn, nOut, sign);
}

Check runOnCpu(const FamilySpec& fs, LaunchPlan plan, long long batch, std::uint64_t seed, const std::string& label,
               const std::map<std::string, long long>& params = {}) {
  for (auto& src : plan.sources) src.text = hostSource(src.text);
  std::map<std::string, long long> all = params;
  for (const auto& p : plan.params)
    if (!all.count(p.name)) all[p.name] = p.defaultValue;
  return test::runPlanOnCpu(fs, plan, batch, seed, "tc_fft-cpu", label, {}, all);
}

bool haveCompiler() { return std::system("c++ --version > /dev/null 2>&1") == 0; }

// The plan of the bench variant named `name` (a failed expectation and an empty plan if there is none).
LaunchPlan variantPlan(const std::vector<BenchVariant>& variants, const std::string& name) {
  for (const auto& v : variants)
    if (v.name == name) return v.generated.plan;
  ADD_FAILURE() << "no bench variant '" << name << "'";
  return {};
}

}  // namespace

// Synthesized kernels of every kind of design on the CPU: several FFTs per warp (16, 32 points), zero padding on
// lanes (64 -> 512), pass-through stages first (128, 256: the phase operand's zeros off the diagonal), in the middle
// and last (128, 2048), m16n8k8 passing a bit (128 -> 256), odd batches that leave a warp's last group partial.
TEST(TcFftCpuRun, SynthesizedKernelsMatchFftw) {
  if (!haveCompiler()) GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  struct Case {
    int nIn, nOut, sign;
    long long batch;
  };
  for (const Case& c :
       {Case{16, 16, 1, 7}, Case{4, 32, -1, 5}, Case{64, 128, 1, 3}, Case{64, 512, 1, 3}, Case{128, 128, -1, 5},
        Case{128, 256, 1, 2}, Case{256, 256, 1, 2}, Case{256, 2048, 1, 2}, Case{2048, 2048, -1, 3}}) {
    auto fs = tcFftFamily().parse(Json::parse(sizeSpec(c.nIn, c.nOut, c.sign)), "cpu.json");
    runOnCpu(*fs, fs->emit({}).plan, c.batch, 4000 + c.nOut,
             fmt::format("{} -> {} sign {:+d}, batch {}", c.nIn, c.nOut, c.sign, c.batch));
  }
}

// Padded distances: the kernel reads n_in of each input row and leaves the gap after each output alone.
TEST(TcFftCpuRun, PaddedDistances) {
  if (!haveCompiler()) GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  auto fs = makeTcFftSpec(parseTcFftSpecText(sizeSpec(32, 64, 1), "cpu.json"), {36, 68});
  runOnCpu(*fs, fs->emit({}).plan, 5, 77, "32 -> 64, distances 36 / 68",
           {{"input_distance", 36}, {"output_distance", 68}});
}

// The note's hand-written design (whole 512-byte rows, packed phases, every relayout primitive).
TEST(TcFftCpuRun, ChimeSpec) {
  if (!haveCompiler()) GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  auto fs = makeTcFftSpec(parseTcFftSpecFile(test::sourcePath(test::kChimeSpec)));
  runOnCpu(*fs, fs->emit({}).plan, 5, 512, "CHIME 256 -> 512");
}

// The CPU run can fail: a wrong register in a kernel gives wrong outputs.
TEST(TcFftCpuRun, CatchesAMutatedKernel) {
  if (!haveCompiler()) GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  auto fs = tcFftFamily().parse(Json::parse(sizeSpec(64, 64, 1)), "cpu.json");
  LaunchPlan plan = fs->emit({}).plan;
  for (auto& src : plan.sources) src.text = hostSource(src.text);
  test::expectMutationsCaught(*fs, plan, {{"every phase's sign flipped", ", 64, 1, c", ", 64, -1, c"}}, 9, "tc_fft-cpu",
                              {}, {{"input_distance", 64}, {"output_distance", 64}});
}

// 4096 points in one warp: 128 data registers leave no room for every phase register, so the phases past the budget go
// to the shared table (PhasePlan.h) and are read at use; the kernel still matches FFTW. CHIME's stay in registers.
TEST(TcFftCpuRun, PhasesOverTheRegisterBudgetComeFromTheSharedTable) {
  if (!haveCompiler()) GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  {
    LayoutProgram chime = parseTcFftSpecFile(test::sourcePath(test::kChimeSpec));
    EXPECT_EQ(PhasePlan(chime, true).registersTabled(), 0);
  }
  // The one-warp kernel (`emit` gives the two-warp one at 4096 points; bench times this one as a variant).
  auto fs = tcFftFamily().parse(Json::parse(sizeSpec(4096, 4096, -1)), "cpu.json");
  const LayoutProgram program = parseTcFftSpecText(sizeSpec(4096, 4096, -1), "cpu.json");
  const Plan oneWarp = Verifier().verify(program);  // refers to program
  LaunchPlan plan = tcFftLaunchPlan(emitTcFft(oneWarp, defaultEmitOptions(program)), {});
  ASSERT_NE(plan.sources.front().text.find("phase_table["), std::string::npos)
      << "4096 points should read phases from the table";
  runOnCpu(*fs, plan, 1, 4096, "4096 -> 4096 sign -1, phases from the shared table");
}

// n_out = 4096 as two warps per FFT (TcFftPairEmitter.h): the default before four warps (word reads of the row as
// copied), on the CPU against FFTW at both signs, unpadded and 8x padded, with an odd batch (the last block's second
// pair has no FFT), and the copy that de-interleaves the row by polyphase part (a bench variant); NVRTC compiles them
// for sm_80 and sm_90 without spills; a wrong combine twiddle is caught.
TEST(TcFftCpuRun, TwoWarpsPerFft4096) {
  if (!haveCompiler()) GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  for (const int nIn : {4096, 512})
    for (const int sign : {1, -1}) {
      auto fs = tcFftFamily().parse(Json::parse(sizeSpec(nIn, 4096, sign)), "cpu.json");
      const auto variants = dynamic_cast<const BenchFacet&>(*fs).benchVariants({});
      LaunchPlan plan =
          variantPlan(variants, "two warps per FFT, word reads of the row as copied (the default before four warps)");
      ASSERT_FALSE(plan.sources.empty());
      const std::string& text = plan.sources.front().text;
      ASSERT_NE(text.find("wf_named_barrier<64>(pair_barrier)"), std::string::npos) << "not the two-warp kernel";
      EXPECT_EQ(plan.kernels.front().blockX, 64 * kTcFftPairsPerBlock);
      EXPECT_NE(text.find("wf_warp_load16_async_swizzled<"), std::string::npos) << "the row copied as it is";
      if (nIn == 4096 && sign == 1) {  // the de-interleaving variant, as bench times it
        LaunchPlan words = variantPlan(variants,
                                       "two warps per FFT, the row de-interleaved by part (conflict-free reads)");
        ASSERT_FALSE(words.sources.empty());
        EXPECT_NE(words.sources.front().text.find("wf_warp_load_parts_async<"), std::string::npos);
        for (const char* arch : {"sm_80", "sm_90"}) {
          CompileResult r = compileWithReport(words.sources.front().text, words.specName, arch);
          EXPECT_EQ(r.spillStoreBytes, 0) << "de-interleaved " << arch;
          std::printf("[tc_fft-cpu] 4096 -> 4096 two warps, de-interleaved, %s: %d registers, %d spill bytes\n", arch,
                      r.registers, r.spillStoreBytes);
        }
        runOnCpu(*fs, words, 3, 4097, "4096 -> 4096 sign +1, two warps per FFT, de-interleaved row, batch 3");
      }
      if (sign == 1)
        for (const char* arch : {"sm_80", "sm_90"}) {
          CompileResult r = compileWithReport(text, plan.specName, arch);
          EXPECT_GT(r.cubin.size(), 0u) << nIn << " " << arch;
          EXPECT_EQ(r.spillStoreBytes, 0) << nIn << " " << arch;
          std::printf("[tc_fft-cpu] %d -> 4096 two warps, %s: %d registers, %d spill bytes\n", nIn, arch, r.registers,
                      r.spillStoreBytes);
        }
      runOnCpu(*fs, plan, 3, 4096 + nIn + sign,
               fmt::format("{} -> 4096 sign {:+d}, two warps per FFT, batch 3", nIn, sign));
      if (nIn == 512 && sign == -1) {
        for (auto& src : plan.sources) src.text = hostSource(src.text);
        test::expectMutationsCaught(*fs, plan,
                                    {{"the combine's twiddle sign flipped", "wf_phase(combine_offset, 4096, -1,",
                                      "wf_phase(combine_offset, 4096, 1,"}},
                                    11, "tc_fft-cpu", {}, {{"input_distance", 512}, {"output_distance", 4096}});
        LaunchPlan parts = variantPlan(variants,
                                       "two warps per FFT, the row de-interleaved by part (conflict-free reads)");
        for (auto& src : parts.sources) src.text = hostSource(src.text);
        test::expectMutationsCaught(*fs, parts,
                                    {{"the reads miss part 1's bank flip of the copy", " ^ part << 4);", ");"}}, 12,
                                    "tc_fft-cpu", {}, {{"input_distance", 512}, {"output_distance", 4096}});
      }
    }
}

// The pair kernel's bench variants (tcFftPairBenchOptions): register caps through __launch_bounds__ and one pair per
// block. NVRTC's registers and spills for sm_90 are printed (a cap may spill: bench measures what that costs); one pair
// per block runs on the CPU against FFTW at an odd batch (the last block's pair has no FFT).
TEST(TcFftCpuRun, PairKernelBenchVariants4096) {
  if (!haveCompiler()) GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  auto fs = tcFftFamily().parse(Json::parse(sizeSpec(4096, 4096, 1)), "cpu.json");
  const auto variants = dynamic_cast<const BenchFacet&>(*fs).benchVariants({});
  for (const auto& [name, o] : tcFftPairBenchOptions()) {
    const LaunchPlan plan = variantPlan(variants, name);
    ASSERT_FALSE(plan.kernels.empty()) << name;
    EXPECT_EQ(plan.kernels.front().blockX, 64 * o.pairsPerBlock) << name;
    EXPECT_EQ(plan.kernels.front().sharedBytes, 32768 * o.pairsPerBlock) << name;
    if (o.minBlocksPerSm)
      EXPECT_NE(plan.sources.front().text.find(
                    fmt::format("__launch_bounds__({}, {})", 64 * o.pairsPerBlock, o.minBlocksPerSm)),
                std::string::npos)
          << name;
    CompileResult r = compileWithReport(plan.sources.front().text, plan.specName, "sm_90");
    EXPECT_GT(r.cubin.size(), 0u) << name;
    std::printf("[tc_fft-cpu] 4096 -> 4096 %s, sm_90: %d registers, %d spill bytes\n", name.c_str(), r.registers,
                r.spillStoreBytes);
    if (o.pairsPerBlock == 1 && !o.minBlocksPerSm) runOnCpu(*fs, plan, 3, 4099, "4096 -> 4096 " + name + ", batch 3");
  }
}

namespace {
// The plan with one block taking the whole batch (every FFT through its loop, in turn).
LaunchPlan oneBlock(LaunchPlan plan) {
  plan.kernels.front().grid.unitsPerBlock = 1 << 20;
  plan.kernels.front().grid.capAtResident = false;
  return plan;
}
}  // namespace

// n_out = 4096 as four warps per FFT (TcFftQuadEmitter.h): what `emit` gives (the twiddles folded into each warp's
// phases, each warp its own y'_p: radix 4 at n_in = 4096, radix 2 at 2048, none at 512, an 8x padded quarter design)
// and every bench variant (the f32 and f16x2 passes through shared memory among them), both signs for the folded
// kernels, on the CPU against FFTW with the bound at an odd batch (a block's FFT without data); NVRTC's registers and
// spills for sm_90 are printed for every option (sm_80 too for the default, which must not spill). In the default a
// wrong W4 sign, a lost twist, a twist of the wrong warp, a wrong radix-4 parity and a segment read twice are caught;
// in the f32 pass a wrong W4 sign, a twiddle conjugated and the warps' segments swapped.
TEST(TcFftCpuRun, FourWarpsPerFft4096) {
  if (!haveCompiler()) GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  for (const int nIn : {4096, 2048, 512})
    for (const int sign : {1, -1}) {
      auto fs = tcFftFamily().parse(Json::parse(sizeSpec(nIn, 4096, sign)), "cpu.json");
      const auto options = tcFftQuadBenchOptions(parseTcFftSpecText(sizeSpec(nIn, 4096, sign), "cpu.json"));
      // What `emit` gives (the first option), then the other options as bench times them.
      const auto variants = dynamic_cast<const BenchFacet&>(*fs).benchVariants({});
      std::vector<LaunchPlan> quads = {fs->emit({}).plan};
      for (std::size_t i = 1; i < options.size(); ++i) quads.push_back(variantPlan(variants, options[i].first));
      const TcFftQuadOptions& def = options.front().second;
      EXPECT_TRUE(def.foldedTwiddles && def.fftsPerBlock == 1 && def.minBlocksPerSm == 0 && def.rowsAhead == 1)
          << "the default at n_in " << nIn;
      const int terms = std::max(1, nIn / 1024);
      for (std::size_t i = 0; i < options.size(); ++i) {
        const LaunchPlan& plan = quads[i];
        const TcFftQuadOptions& o = options[i].second;
        ASSERT_FALSE(plan.kernels.empty()) << options[i].first;
        const std::string& text = plan.sources.front().text;
        const std::string own = fmt::format("= wf_own_y{}<{}>(", terms, sign);
        EXPECT_NE(text.find(o.foldedTwiddles ? (terms > 1 ? own : std::string("phases carry W^(p m)"))
                            : o.halfPass     ? std::string("wf_dif4_point_h2<")
                                             : std::string("wf_dif4_point<")),
                  std::string::npos)
            << options[i].first;
        if (o.foldedTwiddles) EXPECT_EQ(text.find("wf_twiddle"), std::string::npos) << options[i].first;
        EXPECT_EQ(plan.kernels.front().blockX, 128 * o.fftsPerBlock);
        if (sign == 1)
          for (const char* arch : {"sm_80", "sm_90"}) {
            if (i && std::string(arch) == "sm_80") continue;
            CompileResult r = compileWithReport(text, plan.specName, arch);
            EXPECT_GT(r.cubin.size(), 0u) << nIn << " " << options[i].first;
            if (i == 0) EXPECT_EQ(r.spillStoreBytes, 0) << nIn << " -> 4096, the default, " << arch;
            std::printf("[tc_fft-cpu] %d -> 4096 %s, %s: %d registers, %d spill bytes\n", nIn, options[i].first.c_str(),
                        arch, r.registers, r.spillStoreBytes);
          }
        // Every option at sign +1, the folded ones at both signs.
        if (sign == 1 || o.foldedTwiddles)
          runOnCpu(*fs, plan, 3, 5000 + nIn + sign,
                   fmt::format("{} -> 4096 sign {:+d}, {}, batch 3", nIn, sign, options[i].first));
        // One block over five rows: the row ring (two or three input buffers) and the output buffer reused.
        if (sign == 1 && o.foldedTwiddles && o.fftsPerBlock == 1 && !o.minBlocksPerSm)
          runOnCpu(*fs, oneBlock(plan), 5, 6000 + nIn,
                   fmt::format("{} -> 4096, {}, one block, batch 5", nIn, options[i].first));
      }
      if (nIn == 4096 && sign == 1) {  // verify and explain say what emit gives
        EXPECT_NE(fs->explain({}).find("Emitted as four warps per FFT"), std::string::npos);
        EXPECT_NE(fs->explain({}).find("twiddle W^(p m) folded into"), std::string::npos);
        EXPECT_EQ(fs->verify().counts["warps_per_fft"], 4);
        LaunchPlan m = quads.front();
        for (auto& src : m.sources) src.text = hostSource(src.text);
        test::expectMutationsCaught(*fs, m,
                                    {{"W4 = -sign i in each warp's sums", "wf_own_y4<1>(", "wf_own_y4<-1>("},
                                     {"the twist of n7 lost where n7 = 1", "+ part * (128 + (", "+ part * (0 + ("},
                                     {"warp p twisted as warp p + 1", ")) + part * (", ")) + (part + 1) * ("},
                                     {"the radix-4 parity from the wrong bit of p", "(p & 1) * 0x80008000u",
                                      "((p >> 1) & 1) * 0x80008000u"},
                                     {"segment 3 read as segment 1", "3072))[0]", "1024))[0]"}},
                                    13, "tc_fft-cpu", {}, {{"input_distance", 4096}, {"output_distance", 4096}});
        // One block over its rows: the barrier before the row's store and the ring's wait are needed.
        LaunchPlan one = oneBlock(quads.front());
        for (auto& src : one.sources) src.text = hostSource(src.text);
        test::expectMutationsCaught(*fs, one,
                                    {{"no barrier between the outputs and the row's store",
                                      "    wf_named_barrier<128>(fft_barrier);\n    // Store", "    // Store"}},
                                    17, "tc_fft-cpu", {}, {{"input_distance", 4096}, {"output_distance", 4096}});
        const std::size_t ahead = 3;  // two rows ahead
        ASSERT_EQ(options[ahead].second.rowsAhead, 2);
        LaunchPlan ring = oneBlock(quads[ahead]);
        for (auto& src : ring.sources) src.text = hostSource(src.text);
        test::expectMutationsCaught(*fs, ring,
                                    {{"the ring's wait leaves this row in flight", "wf_cp_async_wait<1>",
                                      "wf_cp_async_wait<2>"}},
                                    19, "tc_fft-cpu", {}, {{"input_distance", 4096}, {"output_distance", 4096}});
        const std::size_t deferred = 4;  // each row stored during the next: the barrier before the last row's store
        ASSERT_TRUE(options[deferred].second.deferredStore && options[deferred].second.fftsPerBlock == 1);
        LaunchPlan late = oneBlock(quads[deferred]);
        for (auto& src : late.sources) src.text = hostSource(src.text);
        test::expectMutationsCaught(*fs, late,
                                    {{"no barrier before the last row's store",
                                      "  if (last_fft >= 0) {\n    wf_named_barrier<128>(fft_barrier);\n",
                                      "  if (last_fft >= 0) {\n"}},
                                    23, "tc_fft-cpu", {}, {{"input_distance", 4096}, {"output_distance", 4096}});
        const std::size_t pass = 6;  // the f32 pass through shared memory, two FFTs per block
        ASSERT_EQ(options[pass].first, "four warps per FFT, f32 pass in shared memory, two FFTs per block");
        LaunchPlan mp = quads[pass];
        for (auto& src : mp.sources) src.text = hostSource(src.text);
        test::expectMutationsCaught(
            *fs, mp,
            {{"the pass's W4 sign flipped", "wf_dif4_point<4, 1, 1024>", "wf_dif4_point<4, -1, 1024>"},
             {"the pass's twiddles conjugated", "wf_phase(m, 4096, 1,", "wf_phase(m, 4096, -1,"},
             {"warps 1 and 2 read each other's segments", ") + part * 1024;\n  const int out_stage_offset",
              ") + (part == 1 ? 2 : part == 2 ? 1 : part) * 1024;\n  const int out_stage_offset"}},
            13, "tc_fft-cpu", {}, {{"input_distance", 4096}, {"output_distance", 4096}});
      }
    }
}

// The four-warp kernel with its pass in f16x2 (TcFftQuadHalfPass.h; bench variants at n_in >= 2048): radix 4 (4096)
// and radix 2 (2048), each sign at each, two FFTs or one FFT per block, on the CPU against FFTW with the family's bound
// (which includes the f16x2 pass's) at an odd batch; NVRTC's registers, spills and shared bytes per block for sm_90
// are printed for two of them. y_3 multiplied by W^(2m) instead of W^(3m) is caught.
TEST(TcFftCpuRun, FourWarpsPerFftHalfPass) {
  if (!haveCompiler()) GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  for (const int nIn : {4096, 2048})
    for (const int sign : {1, -1}) {
      auto fs = tcFftFamily().parse(Json::parse(sizeSpec(nIn, 4096, sign)), "cpu.json");
      const auto variants = dynamic_cast<const BenchFacet&>(*fs).benchVariants({});
      const int ffts = (nIn == 4096) == (sign == 1) ? 2 : 1;
      const std::string name = fmt::format("four warps per FFT, pass in f16x2, {} per block",
                                           ffts == 2 ? "two FFTs" : "one FFT");
      const LaunchPlan plan = variantPlan(variants, name);
      ASSERT_FALSE(plan.kernels.empty()) << name;
      EXPECT_NE(plan.sources.front().text.find(fmt::format("wf_dif4_point_h2<{}, {}, 1024>", nIn / 1024, sign)),
                std::string::npos)
          << name;
      EXPECT_EQ(plan.kernels.front().blockX, 128 * ffts);
      if (sign == 1) {
        CompileResult r = compileWithReport(plan.sources.front().text, plan.specName, "sm_90");
        EXPECT_GT(r.cubin.size(), 0u) << nIn << " " << name;
        std::printf("[tc_fft-cpu] %d -> 4096 %s, sm_90: %d registers, %d spill bytes, %d shared bytes\n", nIn,
                    name.c_str(), r.registers, r.spillStoreBytes, plan.kernels.front().sharedBytes);
      }
      runOnCpu(*fs, plan, 3, 7000 + nIn + sign, fmt::format("{} -> 4096 sign {:+d}, {}, batch 3", nIn, sign, name));
      if (nIn == 4096 && sign == 1) {
        LaunchPlan m = plan;
        for (auto& src : m.sources) src.text = hostSource(src.text);
        test::expectMutationsCaught(*fs, m, {{"y_3 multiplied by W^(2m)", "tw[2 * kSeg]);", "tw[kSeg]);"}}, 13,
                                    "tc_fft-cpu", {}, {{"input_distance", 4096}, {"output_distance", 4096}});
      }
    }
}

// Row-by-row kernels moving several groups of FFTs per loop iteration (EmitOptions::rowGroups; `emit` uses 4 at 32
// output points) and one group (the bench variant), on the CPU against FFTW: batches that end in a partial iteration
// and a partial group, zero padding, other sizes of the row path; NVRTC compiles them without spills.
TEST(TcFftCpuRun, RowGroupsPerIteration) {
  if (!haveCompiler()) GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  {
    auto fs = tcFftFamily().parse(Json::parse(sizeSpec(32, 32, 1)), "cpu.json");
    EXPECT_NE(fs->emit({}).plan.sources.front().text.find("(4 groups)"), std::string::npos) << "emit moves 4 groups";
    // 32 warps per block: 4 groups' slices would pass the 48 KiB of static shared memory, 2 fit.
    auto wide = tcFftFamily().parse(Json::parse(sizeSpec(32, 32, 1, R"("launch": {"warps_per_block": 32}, )")),
                                    "w.json");
    EXPECT_NE(wide->emit({}).plan.sources.front().text.find("(2 groups)"), std::string::npos) << "2 groups fit";
  }
  struct Case {
    int nIn, nOut, sign, groups;
    long long batch;
  };
  for (const Case& c : {Case{32, 32, 1, 4, 19}, Case{32, 32, -1, 1, 7}, Case{32, 32, 1, 8, 21}, Case{8, 32, 1, 4, 11},
                        Case{16, 16, -1, 4, 37}, Case{64, 64, 1, 2, 5}}) {
    const std::string what = fmt::format("{} -> {} sign {:+d}, {} groups per iteration, batch {}", c.nIn, c.nOut,
                                         c.sign, c.groups, c.batch);
    auto fs = tcFftFamily().parse(Json::parse(sizeSpec(c.nIn, c.nOut, c.sign)), "cpu.json");
    const LayoutProgram program = parseTcFftSpecText(sizeSpec(c.nIn, c.nOut, c.sign), "cpu.json");
    ASSERT_FALSE(wholeRowIo(program)) << what;
    const Plan plan = Verifier().verify(program);  // refers to program
    EmitOptions o = defaultEmitOptions(program);
    o.rowGroups = c.groups;
    LaunchPlan lp = tcFftLaunchPlan(emitTcFft(plan, o), {});
    for (const char* arch : {"sm_80", "sm_90"}) {
      CompileResult r = compileWithReport(lp.sources.front().text, lp.specName, arch);
      EXPECT_GT(r.cubin.size(), 0u) << what << " " << arch;
      EXPECT_EQ(r.spillStoreBytes, 0) << what << " " << arch;
    }
    runOnCpu(*fs, lp, c.batch, 3200 + c.nIn + c.groups, what);
  }
}

// Every staged I/O scheme of a whole-row kernel on the CPU: swizzled and plain slices, synchronous copies, the cp.async
// double buffer and the prefetch into registers.
TEST(TcFftCpuRun, StagedIoVariants) {
  if (!haveCompiler()) GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  auto fs = tcFftFamily().parse(Json::parse(sizeSpec(1024, 1024, 1)), "cpu.json");
  TcFftRequest request;
  request.nIn = request.nOut = 1024;
  TcFftSynthesis design = synthesizeTcFft(request);
  design.program.name = "cpu_1024_1024";
  const Plan plan = Verifier().verify(design.program);  // refers to design.program
  struct Variant {
    const char* name;
    EmitOptions o;
  };
  EmitOptions swzSync, plainSync, swzAsync, swzPrefetch;
  plainSync.swizzledStage = false;
  swzAsync.asyncCopy = true;
  swzPrefetch.prefetch = true;
  for (const Variant& v :
       {Variant{"swizzled, synchronous", swzSync}, Variant{"plain, synchronous", plainSync},
        Variant{"swizzled, cp.async double buffer", swzAsync}, Variant{"swizzled, prefetch", swzPrefetch}}) {
    LaunchPlan lp = tcFftLaunchPlan(emitTcFft(plan, v.o), {});
    EXPECT_EQ(v.o.swizzledStage, lp.sources.front().text.find("wf_swizzle<") != std::string::npos) << v.name;
    for (const char* arch : {"sm_80", "sm_90"}) {  // and NVRTC takes it as the GPU will
      CompileResult r = compileWithReport(lp.sources.front().text, lp.specName, arch);
      EXPECT_GT(r.cubin.size(), 0u) << v.name << " " << arch;
      EXPECT_EQ(r.spillStoreBytes, 0) << v.name << " " << arch;
    }
    runOnCpu(*fs, lp, 3, 1024, fmt::format("1024 -> 1024, {}, batch 3", v.name));
  }
}

// The f32-accumulating kernels (f32-C MMAs, complex multiplies in f32, one rounding to __half2 per stage) on the CPU
// against FFTW within their bound, at sizes with several FFTs per warp, zero padding and whole rows, both signs; NVRTC
// compiles them for sm_80 and sm_90 without spilling up to 2048 points (4096 is reported: 128 data registers, and its
// f16 kernel already spills).
TEST(TcFftCpuRun, F32AccumulatingKernelsMatchFftw) {
  if (!haveCompiler()) GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  struct Case {
    int nIn, nOut, sign;
    long long batch;
  };
  for (const Case& c : {Case{16, 16, -1, 5}, Case{64, 512, 1, 3}, Case{256, 512, -1, 2}, Case{1024, 1024, 1, 2},
                        Case{2048, 2048, -1, 1}, Case{4096, 4096, 1, 1}}) {
    const std::string what = fmt::format("{} -> {} sign {:+d}, f32 accumulators", c.nIn, c.nOut, c.sign);
    auto fs = tcFftFamily().parse(Json::parse(sizeSpec(c.nIn, c.nOut, c.sign, R"("accumulate": "f32", )")), "cpu.json");
    LaunchPlan plan = fs->emit({}).plan;
    ASSERT_NE(plan.sources.front().text.find("_f32("), std::string::npos) << what;
    for (const char* arch : {"sm_80", "sm_90"}) {
      CompileResult r = compileWithReport(plan.sources.front().text, plan.specName, arch);
      EXPECT_GT(r.cubin.size(), 0u) << what << " " << arch;
      if (c.nOut < 4096) EXPECT_EQ(r.spillStoreBytes, 0) << what << " " << arch;
      std::printf("[f32] %s, %s: %d registers, %d bytes spilled\n", what.c_str(), arch, r.registers, r.spillStoreBytes);
    }
    const Check ck = runOnCpu(*fs, plan, c.batch, 5000 + c.nOut, what);
    std::printf("[f32] %s: CPU run error %.3e (bound %.2e)\n", what.c_str(), ck.error, ck.bound);
  }
}

// A mutated f32 kernel is caught: the two halves of one rounded f32 pair exchanged, one f32 result dropped.
TEST(TcFftCpuRun, CatchesAMutatedF32Kernel) {
  if (!haveCompiler()) GTEST_SKIP() << "no host C++ compiler (c++) to build the generated kernels with";
  auto fs = tcFftFamily().parse(Json::parse(sizeSpec(256, 512, 1, R"("accumulate": "f32", )")), "cpu.json");
  LaunchPlan plan = fs->emit({}).plan;
  for (auto& src : plan.sources) src.text = hostSource(src.text);
  test::expectMutationsCaught(*fs, plan,
                              {{"an f32 pair rounded in the wrong order", "wf_pack(f_Z2[0], f_Z2[1])",
                                "wf_pack(f_Z2[1], f_Z2[0])"},
                               {"an f32 multiply reading the wrong accumulator",
                                "f_Z1[4], f_Z1[5], f_Z1[6], f_Z1[7], p_", "f_Z1[4], f_Z1[4], f_Z1[6], f_Z1[7], p_"}},
                              9, "tc_fft-cpu", {}, {{"input_distance", 256}, {"output_distance", 512}});
}

// The staging slices of every whole-row design are bank-conflict-free with their swizzle: each phase of every register
// access and row copy hits each bank with one word. Without it, lane bits above the 128-byte range conflict (the test
// of the count itself: the plain slice of 1024 points is 8-way). One design keeps a 2-way conflict: the input of
// 128 -> 256 puts n0 on a lane, so its register accesses are single words, 32 lanes a phase over index bits
// {0, 3, 4, 5, 6}; a swizzle of 16-byte chunks (the row copies move chunks) has one free bank bit (word bit 2) for
// the two high bits n5, n6.
TEST(TcFftStaging, SwizzledSlicesAreBankConflictFree) {
  for (int logN = 7; logN <= 12; ++logN)
    for (int logIn = logN; logIn >= std::max(7, logN - 3); --logIn) {  // and zero-padded rows of 128 points or more
      TcFftRequest request;
      request.nOut = 1 << logN;
      request.nIn = 1 << logIn;
      const LayoutProgram program = synthesizeTcFft(request).program;
      for (const auto& [name, letter, logReal] :
           {std::tuple{program.input, 'n', program.logIn}, std::tuple{program.output, 'q', program.logOut}}) {
        const Layout& l = program.array(name)->layout;
        const IoPlan p = ioPlan(l, letter, logReal, 0);
        const StageSwizzle swz = stageSwizzle(l, p);
        const int expected = logIn == 7 && logN == 8 && letter == 'n' ? 2 : 1;
        EXPECT_EQ(stageBankWays(l, p, swz), expected)
            << (1 << logIn) << " -> " << (1 << logN) << " points, " << name << " [" << l.str() << "]";
        if (logN == 10 && logIn == 10 && letter == 'n') EXPECT_EQ(stageBankWays(l, p, StageSwizzle{}), 8) << l.str();
        std::set<long long> chunks;  // a bijection on the slice's chunks
        for (long long c = 0; c < (1LL << logReal) / 4; ++c) chunks.insert(swz.chunk(c));
        EXPECT_EQ(static_cast<long long>(chunks.size()), (1LL << logReal) / 4);
        EXPECT_EQ(*chunks.rbegin(), (1LL << logReal) / 4 - 1);
      }
    }
  const LayoutProgram chime = parseTcFftSpecFile(test::sourcePath(test::kChimeSpec));
  for (const auto& [name, letter, logReal] :
       {std::tuple{chime.input, 'n', chime.logIn}, std::tuple{chime.output, 'q', chime.logOut}}) {
    const Layout& l = chime.array(name)->layout;
    const IoPlan p = ioPlan(l, letter, logReal, 0);
    EXPECT_EQ(stageBankWays(l, p, stageSwizzle(l, p)), 1) << "CHIME " << name << " [" << l.str() << "]";
  }
}

// The two-warp kernel's shared accesses, counted the same way: each warp's copy of its half of the row into the pair's
// buffer and its register reads of its polyphase part are conflict-free where the copy de-interleaves the row
// (TcFftPairBuffer.h), at every n_in; the word reads of the row as copied (the previous scheme, a bench variant) are
// 4-way at 4096 -> 4096 (the test of the count). The outputs' register stores and row copies (the one-warp staging
// swizzle of the 2048-point output) are conflict-free too. The de-interleaved regions are a bijection onto the
// n_in words.
TEST(TcFftStaging, PairBufferIsBankConflictFree) {
  for (const int nIn : {4096, 2048, 1024, 512}) {
    const LayoutProgram program = parseTcFftSpecText(sizeSpec(nIn, 4096, 1), "cpu.json");
    ASSERT_TRUE(tcFftPairApplies(program));
    const auto design = tcFftPairDesign(program);
    const LayoutProgram& sub = design->sub;
    const Layout& in = sub.array(sub.input)->layout;
    const PairInput parts = pairInput(in, sub.logIn, false);
    EXPECT_EQ(pairInputBankWays(in, parts), 1) << nIn << " -> 4096, de-interleaved, input [" << in.str() << "]";
    const int words = pairInputBankWays(in, pairInput(in, sub.logIn, true));
    std::printf("[tc_fft-banks] %d -> 4096: de-interleaved 1-way, word reads %d-way\n", nIn, words);
    if (nIn == 4096) EXPECT_EQ(words, 4) << "input [" << in.str() << "]";
    std::set<long long> at;
    for (int part = 0; part < 2; ++part)
      for (long long i = 0; i < nIn / 2; ++i) at.insert(parts.word(part, i));
    EXPECT_EQ(static_cast<long long>(at.size()), nIn);
    EXPECT_EQ(*at.rbegin(), nIn - 1);
    const Layout& out = sub.array(sub.output)->layout;
    const IoPlan outP = ioPlan(out, 'q', sub.logOut, 0);
    EXPECT_EQ(stageBankWays(out, outP, stageSwizzle(out, outP)), 1) << "output [" << out.str() << "]";
  }
}
