// The pfb family on the CPU: spec errors with JSON paths, katgpucbf's window and 10-bit unpacking, the double
// reference against FFTW, the four-step + real-FFT split algorithm in double, the generated kernels run as C++ through
// tests/CudaOnCpu.h against the reference (ci8 exact outside the f32 bound of a rounding boundary, cf32 within the
// bound, all written, saturation counts), mutated kernels caught, the ci8 output read by the correlator family's
// reference in both its layouts, and NVRTC compiles of specs/pfb_*.json for sm_80 and sm_90 without spills.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <fftw3.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

#include <fmt/format.h>

#include "CudaOnCpu.h"
#include "bench/Facets.h"
#include "bench/FirR2cBaseline.h"
#include "TestUtil.h"
#include "generator/correlator/CorrelatorData.h"
#include "generator/correlator/CorrelatorFamily.h"
#include "generator/correlator/CorrelatorSpec.h"
#include "generator/pfb/PfbBench.h"
#include "generator/pfb/PfbData.h"
#include "generator/pfb/PfbEmitter.h"
#include "generator/pfb/PfbFamily.h"
#include "generator/pfb/PfbGeometry.h"
#include "generator/pfb/PfbPlan.h"
#include "generator/pfb/PfbSpec.h"
#include "generator/pfb/PfbWeights.h"
#include "warpforge/compiler.h"

using namespace warpforge;

namespace {

std::string specText(const std::string& members) {
  return fmt::format(R"({{"name": "pfb_t", "family": "pfb", {}}})", members);
}
PfbSpec spec(const std::string& members) { return parsePfbSpecText(specText(members), "t.json"); }

std::string errorPath(const std::string& members) {
  return test::errorPathOf<SpecError>([&] { parsePfbSpecText(specText(members), "t.json"); });
}

const char* kBase =
    R"("channels": 64, "taps": 4, "spectra_per_call": 32, "input": {"type": "int8"}, "output": {"type": "ci8"})";

}  // namespace

TEST(PfbSpec, ErrorsNameTheJsonPath) {
  EXPECT_EQ(errorPath(kBase), "(no error)");
  // Members (after the name and family) and the JSON path the error names.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("channels": 96, "spectra_per_call": 32, "input": {"type": "int8"}, "output": {"type": "ci8"})", "/channels"},
      {R"("channels": 65536, "spectra_per_call": 32, "input": {"type": "int8"}, "output": {"type": "ci8"})",
       "/channels"},
      {R"("channels": 64, "taps": 0, "spectra_per_call": 32, "input": {"type": "int8"}, "output": {"type": "ci8"})",
       "/taps"},
      {R"("channels": 64, "taps": 33, "spectra_per_call": 32, "input": {"type": "int8"}, "output": {"type": "ci8"})",
       "/taps"},
      {R"("channels": 64, "spectra_per_call": 32, "input": {"type": "int4"}, "output": {"type": "ci8"})",
       "/input/type"},
      {R"("channels": 64, "spectra_per_call": 32, "input": {"type": "packed"}, "output": {"type": "ci8"})",
       "/input/bits"},
      {R"("channels": 64, "spectra_per_call": 32, "input": {"type": "packed", "bits": 17}, "output": {"type": "ci8"})",
       "/input/bits"},
      {R"("channels": 64, "spectra_per_call": 32, "input": {"type": "int8", "bits": 8}, "output": {"type": "ci8"})",
       "/input/bits"},
      {R"("channels": 64, "spectra_per_call": 32, "input": {"type": "int8"}, "output": {"type": "ci4"})",
       "/output/type"},
      {R"("channels": 64, "spectra_per_call": 32, "input": {"type": "int8"}, "output": {"type": "ci8", "layout": "spectra"})",
       "/output/layout"},
      {R"("channels": 64, "spectra_per_call": 32, "input": {"type": "int8"}, "output": {"type": "cf32", "layout": "tcc"})",
       "/output/layout"},
      {R"("channels": 64, "spectra_per_call": 24, "input": {"type": "int8"}, "output": {"type": "ci8", "layout": "tcc"})",
       "/spectra_per_call"},
      {R"("channels": 64, "spectra_per_call": 4, "input": {"type": "int8"}, "output": {"type": "ci8", "layout": "katgpucbf"})",
       "/spectra_per_call"},
  };
  for (const auto& [members, path] : cases) EXPECT_EQ(errorPath(members), path) << members;
  EXPECT_EQ(errorPath(std::string(kBase) + R"(, "weights": {"window": "kaiser"})"), "/weights/window");
  EXPECT_EQ(errorPath(std::string(kBase) + R"(, "weights": {"window": "hann", "values": [1]})"), "/weights");
  EXPECT_EQ(errorPath(std::string(kBase) + R"(, "weights": {"values": [1, 2]})"), "/weights/values");
  EXPECT_EQ(errorPath(std::string(kBase) + R"(, "weights": {"file": "no_such_file.f32"})"), "/weights/file");
  // A directory, and a FIFO (which a plain read would wait on forever): errors, not a hang.
  EXPECT_EQ(errorPath(std::string(kBase) + R"(, "weights": {"file": "/"})"), "/weights/file");
  const std::string fifo = ::testing::TempDir() + "/pfb_weights_fifo_" + std::to_string(::getpid());
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(errorPath(std::string(kBase) + R"(, "weights": {"file": ")" + fifo + R"("})"), "/weights/file");
  std::remove(fifo.c_str());
  EXPECT_EQ(errorPath(std::string(kBase) + R"(, "weights": {"cutoff": 1})"), "/weights");
  EXPECT_EQ(errorPath(std::string(kBase) + R"(, "weights": {"window": "hann", "cutoff": -1})"), "/weights/cutoff");
  EXPECT_EQ(errorPath(std::string(kBase) + R"(, "gain": "per_stream")"), "/gain");
  EXPECT_EQ(errorPath(std::string(kBase) + R"(, "gain": 0)"), "/gain");
  EXPECT_EQ(errorPath(std::string(kBase) + R"(, "gain": 1e-300)"), "/gain");  // 0 in f32
  EXPECT_EQ(errorPath(std::string(kBase) + R"(, "delay": 1)"), "/delay");
  EXPECT_EQ(errorPath(std::string(kBase) + R"(, "polarizations": 3)"), "/polarizations");
  EXPECT_EQ(errorPath(std::string(kBase) + R"(, "unknown": 3)"), "/unknown");
  EXPECT_EQ(errorPath(R"("channels": 64, "input": {"type": "int8"}, "output": {"type": "ci8"})"), "/spectra_per_call");
  // and the family dispatches here
  EXPECT_EQ(loadSpec(test::sourcePath("specs/pfb_meerkat_4k_ci8.json"))->family().name(), "pfb");
}

TEST(PfbSpec, WeightsFromAValuesArrayAndAFile) {
  std::string values;
  const int n = 2 * 64 * 2;
  for (int i = 0; i < n; ++i) values += fmt::format("{}{}", i ? ", " : "", 0.01 * (i % 7 - 3));
  PfbSpec a = spec(fmt::format(
      R"("channels": 64, "taps": 2, "spectra_per_call": 32, "input": {{"type": "int8"}}, "output": {{"type": "ci8"}},
                                  "weights": {{"values": [{}]}})",
      values));
  ASSERT_EQ(a.weights.values.size(), static_cast<std::size_t>(n));
  EXPECT_DOUBLE_EQ(a.weights.values[5], 0.01 * (5 % 7 - 3));
  // The same numbers from a raw little-endian f32 file, relative to the spec's folder.
  const std::string dir = ::testing::TempDir() + "/pfb_weights";
  std::filesystem::create_directories(dir);
  std::vector<float> f(a.weights.values.begin(), a.weights.values.end());
  std::ofstream(dir + "/w.f32", std::ios::binary)
      .write(reinterpret_cast<const char*>(f.data()), static_cast<std::streamsize>(f.size() * 4));
  PfbSpec b = parsePfbSpecText(
      specText(
          R"("channels": 64, "taps": 2, "spectra_per_call": 32, "input": {"type": "int8"}, "output": {"type": "ci8"},
                                           "weights": {"file": "w.f32"})"),
      dir + "/spec.json");
  ASSERT_EQ(b.weights.values.size(), f.size());
  for (std::size_t i = 0; i < f.size(); ++i) EXPECT_EQ(b.weights.values[i], f[i]);
}

// katgpucbf's generate_pfb_weights, written out again: hann = sin^2(pi i / (W - 1)), sinc(cutoff ((i + 0.5) / step -
// taps / 2)), unit energy. Checked against a few values computed by hand from numpy's definitions, and its symmetry.
TEST(PfbWeights, HannSincAsKatgpucbf) {
  const int taps = 4;
  const long long step = 128, W = taps * step;
  const std::vector<double> w = pfbWindowWeights("hann", 1.0, taps, step);
  ASSERT_EQ(static_cast<long long>(w.size()), W);
  double energy = 0;
  for (double x : w) energy += x * x;
  EXPECT_NEAR(energy, 1.0, 1e-12);
  for (long long i = 0; i < W; ++i)
    EXPECT_NEAR(w[static_cast<std::size_t>(i)], w[static_cast<std::size_t>(W - 1 - i)], 1e-15) << i;  // symmetric
  // Unnormalised value at i: sin^2(pi i / 511) * sinc((i + 0.5) / 128 - 2); the ratio of two entries is scale-free.
  auto raw = [&](long long i) {
    const double h = std::pow(std::sin(M_PI * i / 511.0), 2), x = (i + 0.5) / 128.0 - 2.0;
    return h * std::sin(M_PI * x) / (M_PI * x);
  };
  EXPECT_NEAR(w[300] / w[255], raw(300) / raw(255), 1e-12);
  EXPECT_NEAR(w[100] / w[255], raw(100) / raw(255), 1e-12);
  EXPECT_EQ(w[0], 0.0);  // hann(0) = 0
  const std::vector<double> r = pfbWindowWeights("rect", 0.5, taps, step);
  EXPECT_NEAR(r[10] / r[255],
              std::sin(M_PI * 0.5 * (10.5 / 128 - 2)) / (M_PI * 0.5 * (10.5 / 128 - 2)) /
                  (std::sin(M_PI * 0.5 * (255.5 / 128 - 2)) / (M_PI * 0.5 * (255.5 / 128 - 2))),
              1e-12);
}

// 10-bit samples as MeerKAT's digitisers pack them, read the way katgpucbf's unpack_10bit does: two bytes from
// byte idx + idx / 4, shifted left by 2 (idx % 4) + 16 and right by 22.
TEST(PfbSamples, TenBitPackingAsKatgpucbf) {
  PfbSpec s = spec(
      R"("channels": 64, "taps": 1, "spectra_per_call": 16, "input": {"type": "packed", "bits": 10}, "output": {"type": "ci8"}, "polarizations": 1)");
  std::vector<unsigned char> in(static_cast<std::size_t>(s.inputBytesPerBatch()), 0);
  // 1, -1, 511, -512: 0000000001 1111111111 0111111111 1000000000
  const long long vals[4] = {1, -1, 511, -512};
  for (int i = 0; i < 4; ++i) pfbPutSample(s, in, 0, 0, i, vals[i]);
  EXPECT_EQ(in[0], 0x00);
  EXPECT_EQ(in[1], 0x7f);
  EXPECT_EQ(in[2], 0xf7);
  EXPECT_EQ(in[3], 0xfe);
  EXPECT_EQ(in[4], 0x00);
  std::mt19937_64 rng(7);
  for (long long i = 0; i < s.streamSamples(); ++i)
    pfbPutSample(s, in, 0, 0, i, static_cast<long long>(rng() % 1024) - 512);
  for (long long i = 0; i < s.streamSamples(); ++i) {
    const long long byte = i + (i >> 2);
    const int raw = (in[static_cast<std::size_t>(byte)] << 8) +
                    in[static_cast<std::size_t>(byte + 1 < static_cast<long long>(in.size()) ? byte + 1 : byte)];
    const int katgpucbf = static_cast<int>(static_cast<unsigned>(raw) << (2 * (i & 3) + 16)) >> 22;
    ASSERT_EQ(pfbSample(s, in, 0, 0, i), katgpucbf) << i;
  }
}

TEST(PfbReference, DoubleFftMatchesFftw) {
  for (int L : {2, 8, 128, 8192}) {
    std::mt19937_64 rng(L);
    std::normal_distribution<double> g;
    std::vector<std::complex<double>> x(static_cast<std::size_t>(L));
    for (auto& v : x) v = {g(rng), g(rng)};
    std::vector<std::complex<double>> y = x, ref(x.size());
    pfbFftDouble(y, -1);
    fftw_plan p = fftw_plan_dft_1d(L, reinterpret_cast<fftw_complex*>(x.data()),
                                   reinterpret_cast<fftw_complex*>(ref.data()), FFTW_FORWARD, FFTW_ESTIMATE);
    fftw_execute(p);
    fftw_destroy_plan(p);
    double e = 0, n = 0;
    for (std::size_t i = 0; i < y.size(); ++i) e += std::norm(y[i] - ref[i]), n += std::norm(ref[i]);
    EXPECT_LT(std::sqrt(e / n), 1e-14) << L;
  }
}

// The kernels' algorithm in double: complex points z[n] = y[2n] + i y[2n + 1], the four-step FFT with the column and
// row decomposition of the geometry, the real-FFT split over the row pairs and items as the post kernel pairs them
// (pfb_channel), against the reference's X (a 2N-point FFT of y).
TEST(PfbReference, FourStepAndSplitReproduceTheRealFft) {
  for (long long channels : {64LL, 128LL, 256LL, 4096LL}) {
    PfbSpec s = spec(fmt::format(
        R"("channels": {}, "taps": 2, "spectra_per_call": 16, "input": {{"type": "int8"}}, "output": {{"type": "ci8"}})",
        channels));
    const PfbGeometry g = pfbGeometry(s);
    ASSERT_EQ(static_cast<long long>(g.n1) * g.n2, channels);
    const TestData d = pfbInputs(s, 1, 3);
    const PfbReferenceSpectrum r = pfbReference(s, d, 0, 1, 5);
    // y again (the FIR in double), then the decomposition.
    const long long L = s.fftLength(), N = channels;
    std::vector<double> y(static_cast<std::size_t>(L));
    for (long long i = 0; i < L; ++i)
      for (int j = 0; j < s.taps; ++j)
        y[static_cast<std::size_t>(i)] +=
            static_cast<double>(static_cast<float>(s.weights.values[static_cast<std::size_t>(j * L + i)])) *
            static_cast<double>(pfbSample(s, d.arrays.at("input"), 0, 1, (5 + j) * L + i));
    auto W = [](double num, double den) { return std::polar(1.0, -2 * M_PI * num / den); };
    std::vector<std::complex<double>> Y(static_cast<std::size_t>(N)), Z(static_cast<std::size_t>(N));
    for (int k1 = 0; k1 < g.n1; ++k1)
      for (int m2 = 0; m2 < g.n2; ++m2) {
        std::complex<double> acc = 0;
        for (int m1 = 0; m1 < g.n1; ++m1) {
          const long long n = static_cast<long long>(g.n2) * m1 + m2;
          acc += std::complex<double>(y[static_cast<std::size_t>(2 * n)], y[static_cast<std::size_t>(2 * n + 1)]) *
                 W(m1 * k1, g.n1);
        }
        Y[static_cast<std::size_t>(k1 * g.n2 + m2)] = acc * W(static_cast<double>(m2) * k1, static_cast<double>(N));
      }
    for (int k1 = 0; k1 < g.n1; ++k1)
      for (int k2 = 0; k2 < g.n2; ++k2) {
        std::complex<double> acc = 0;
        for (int m2 = 0; m2 < g.n2; ++m2) acc += Y[static_cast<std::size_t>(k1 * g.n2 + m2)] * W(m2 * k2, g.n2);
        Z[static_cast<std::size_t>(k1 + g.n1 * k2)] = acc;
      }
    // The post kernel's pairing: item i of pair p gives channels A and B.
    std::vector<int> seen(static_cast<std::size_t>(N), 0);
    double err = 0, norm = 0;
    for (int pair = 0; pair < g.n1 / 2; ++pair)
      for (int item = 0; item < g.n2; ++item) {
        long long a;
        if (pair != 0) a = pair + g.n1 * item;
        else if (item < g.n2 / 2) a = static_cast<long long>(g.n1) * item;
        else a = g.n1 / 2 + static_cast<long long>(g.n1) * (item - g.n2 / 2);
        const long long b = pair == 0 && item == 0 ? N / 2 : N - a;
        std::complex<double> xa, xb;
        if (pair == 0 && item == 0) {
          xa = Z[0].real() + Z[0].imag();
          xb = std::conj(Z[static_cast<std::size_t>(N / 2)]);
        } else {
          const std::complex<double> za = Z[static_cast<std::size_t>(a)], zb = Z[static_cast<std::size_t>(N - a)];
          const std::complex<double> e = 0.5 * (za + std::conj(zb)), f = 0.5 * (za - std::conj(zb));
          const std::complex<double> gg = std::polar(1.0, -M_PI * static_cast<double>(a) / static_cast<double>(N)) * f;
          xa = e - std::complex<double>(0, 1) * gg;
          xb = std::conj(e + std::complex<double>(0, 1) * gg);
        }
        ++seen[static_cast<std::size_t>(a)], ++seen[static_cast<std::size_t>(b)];
        err += std::norm(xa - r.X[static_cast<std::size_t>(a)]) + std::norm(xb - r.X[static_cast<std::size_t>(b)]);
        norm += std::norm(r.X[static_cast<std::size_t>(a)]) + std::norm(r.X[static_cast<std::size_t>(b)]);
      }
    for (long long k = 0; k < N; ++k) ASSERT_EQ(seen[static_cast<std::size_t>(k)], 1) << "channel " << k << " of " << N;
    EXPECT_LT(std::sqrt(err / norm), 1e-13) << channels;
  }
}

namespace {

// The spec's plan run on the CPU (tests/CudaOnCpu.h) and checked against the double reference.
Check runOnCpu(const std::string& members, std::uint64_t seed, long long batch, const std::string& label) {
  PfbSpec s = spec(members);
  auto fs = makePfbSpec(s);
  fs->verify();
  const Generated gen = fs->emit({"sm_90", nullptr});
  return test::runPlanOnCpu(*fs, gen.plan, batch, seed, "pfb-cpu", label, {});
}

}  // namespace

TEST(PfbKernels, RunOnTheCpuAndMatchTheDoubleReference) {
  struct Case {
    const char* label;
    std::string members;
    long long batch;
  };
  const std::vector<Case> cases = {
      {"int8, 64 channels, 4 taps, gains + delays, ci8 katgpucbf",
       R"("channels": 64, "taps": 4, "spectra_per_call": 32, "input": {"type": "int8"}, "gain": "per_channel", "delay": true, "output": {"type": "ci8", "layout": "katgpucbf"})",
       2},
      {"10-bit packed, 128 channels, 3 taps, 2 receivers, constant gain, ci8 tcc",
       R"("channels": 128, "taps": 3, "receivers": 2, "spectra_per_call": 32, "input": {"type": "packed", "bits": 10}, "gain": 0.05, "output": {"type": "ci8", "layout": "tcc"})",
       1},
      {"int16, 64 channels, 5 taps, 1 pol, 20 spectra, delay, cf32",
       R"("channels": 64, "taps": 5, "polarizations": 1, "spectra_per_call": 20, "input": {"type": "int16"}, "delay": true, "output": {"type": "cf32"})",
       2},
      {"12-bit packed, 256 channels, 2 taps, gains, cf32",
       R"("channels": 256, "taps": 2, "spectra_per_call": 16, "input": {"type": "packed", "bits": 12}, "gain": "per_channel", "output": {"type": "cf32"})",
       1},
      {"int8, 64 channels, 1 tap (no FIR), 1 pol, ci8 katgpucbf",
       R"("channels": 64, "taps": 1, "polarizations": 1, "spectra_per_call": 16, "input": {"type": "int8"}, "gain": 0.1, "output": {"type": "ci8"})",
       1},
  };
  std::uint64_t seed = 4040;
  for (const auto& c : cases) {
    const Check k = runOnCpu(c.members, seed++, c.batch, c.label);
    EXPECT_TRUE(k.ok()) << c.label << ": " << k.detail;
    EXPECT_GT(k.checked, 0) << c.label;
  }
}

// Fewer than 8 taps: the fir kernel's chunks are the least multiple of T of at least 8 spectra (its barriers and
// column passes serve 8 spectra or more), and runs are whole loop trips. RunOnTheCpuAndMatchTheDoubleReference runs
// 1..5 taps this way (3 taps: chunks of 9 spectra, 32 spectra per call, a partial trip).
TEST(PfbKernels, FewTapsChunksOfAtLeastEightSpectra) {
  for (int taps = 1; taps <= 17; ++taps) {
    const PfbSpec s = spec(
        fmt::format(R"("channels": 256, "taps": {}, "spectra_per_call": 96, "input": {{"type": "int8"}},
                                          "output": {{"type": "cf32"}})",
                    taps));
    const PfbGeometry g = pfbGeometry(s);
    const int expected = taps < 8 ? taps * ((8 + taps - 1) / taps) : taps;  // (17: prime, the register kernel)
    EXPECT_EQ(g.chunk, expected) << taps << " taps";
    EXPECT_EQ(g.runSpectra % std::max(taps, g.chunk), 0) << taps << " taps";
    EXPECT_EQ(pfbGeometry(s, false, kMaxSpectrumPostChannels, true, 1).chunk, taps) << taps << " taps";
  }
}

// The shared-weights fir kernel (17..24 taps) compiles without spills on sm_80 (one block per SM there) and sm_90
// (two: 64 registers) for every sample type, with a partial loop trip; past 24 taps the 64-register cap spilled (the
// register kernel stays).
TEST(PfbKernels, SharedWeightsFirCompilesWithoutSpills) {
  for (const int taps : {18, 20, 24})
    for (const char* input : {R"({"type": "int8"})", R"({"type": "int16"})", R"({"type": "packed", "bits": 10})"}) {
      const PfbSpec s = spec(fmt::format(R"("channels": 4096, "taps": {}, "spectra_per_call": 88, "input": {},
                                            "gain": "per_channel", "delay": true, "output": {{"type": "ci8"}})",
                                         taps, input));
      const PfbKernels k = emitPfb(s);
      ASSERT_TRUE(k.geometry.firSharedWeights) << taps << " " << input;
      for (const char* arch : {"sm_80", "sm_90"}) {
        const CompileResult r = compileWithReport(k.firSource, k.firName, arch);
        EXPECT_GT(r.registers, 0) << r.log;
        EXPECT_EQ(r.spillStoreBytes + r.spillLoadBytes, 0) << taps << " taps " << input << " " << arch;
        if (std::string(arch) == "sm_90") EXPECT_LE(r.registers, 64) << taps << " " << input;  // two blocks per SM
      }
    }
  EXPECT_FALSE(emitPfb(spec(R"("channels": 4096, "taps": 32, "spectra_per_call": 64, "input": {"type": "int8"},
                                "output": {"type": "ci8"})"))
                   .geometry.firSharedWeights);
}

// Rows of at most 8 points (up to 256 channels): the row-pair post kernel's block loops over its unit's row pairs (a
// block per unit, not per pair); RunOnTheCpuAndMatchTheDoubleReference runs it at 64 and 128 channels in both ci8
// layouts. Longer rows keep a block per pair.
TEST(PfbKernels, ShortRowsLoopOverTheRowPairs) {
  for (const long long channels : {64LL, 256LL, 512LL, 1024LL, 8192LL}) {
    const PfbSpec s = spec(fmt::format(R"("channels": {}, "taps": 4, "receivers": 3, "spectra_per_call": 64,
                                          "input": {{"type": "int8"}}, "output": {{"type": "ci8", "layout": "tcc"}})",
                                       channels));
    const PfbKernels k = emitPfb(s);
    const bool loop = channels <= 256;
    EXPECT_EQ(k.geometry.postPairLoop, loop) << channels;
    EXPECT_EQ(k.postSource.find("for (int pair = 0;") != std::string::npos, loop) << channels;
    const PfbKernels perPair = emitPfb(s, {.postPairLoop = 0});
    EXPECT_FALSE(perPair.geometry.postPairLoop);
    EXPECT_EQ(perPair.geometry.unitsB(s), k.geometry.unitsB(s) * (loop ? k.geometry.pairs() : 1)) << channels;
  }
}

// From 17 to 24 taps the fir kernel reads its weights from shared memory and runs the column FFTs in batches of a
// divisor of T (24: 12, 20: 10; two blocks per SM on sm_90 only); 17 taps (prime) and more than 24 keep the register
// kernel. Partial chunks (56 spectra at 24 taps: the third chunk has 8, its second batch none) and every batch of a
// chunk are checked against the double reference.
TEST(PfbKernels, ManyTapsRunOnTheCpu) {
  struct Case {
    const char* label;
    std::string members;
    int chunk;
  };
  const std::vector<Case> cases = {
      {"int8, 64 channels, 24 taps, 56 spectra (a partial chunk, an empty batch), gains + delays, ci8 katgpucbf",
       R"("channels": 64, "taps": 24, "spectra_per_call": 56, "input": {"type": "int8"}, "gain": "per_channel", "delay": true, "output": {"type": "ci8", "layout": "katgpucbf"})",
       12},
      {"int16, 128 channels, 32 taps (registers), 1 pol, 64 spectra, cf32",
       R"("channels": 128, "taps": 32, "polarizations": 1, "spectra_per_call": 64, "input": {"type": "int16"}, "output": {"type": "cf32"})",
       32},
      {"10-bit packed, 64 channels, 20 taps, 48 spectra, ci8 tcc",
       R"("channels": 64, "taps": 20, "spectra_per_call": 48, "input": {"type": "packed", "bits": 10}, "gain": 0.05, "output": {"type": "ci8", "layout": "tcc"})",
       10},
      {"int8, 64 channels, 17 taps (registers), 1 pol, 34 spectra, cf32",
       R"("channels": 64, "taps": 17, "polarizations": 1, "spectra_per_call": 34, "input": {"type": "int8"}, "output": {"type": "cf32"})",
       17},
  };
  std::uint64_t seed = 4240;
  for (const auto& c : cases) {
    const PfbSpec s = spec(c.members);
    const PfbKernels k = emitPfb(s);
    EXPECT_EQ(k.geometry.chunk, c.chunk) << c.label;
    const bool shared = c.chunk != s.taps;
    EXPECT_EQ(k.geometry.firSharedWeights, shared) << c.label;
    EXPECT_EQ(k.firSource.find("pfb_w[") != std::string::npos, shared) << c.label;
    EXPECT_NE(k.firSource.find(
                  fmt::format("__launch_bounds__({}, {})", k.geometry.threadsA, shared ? "PFB_FIR_MIN_BLOCKS" : "1")),
              std::string::npos)
        << c.label;
    const Check r = runOnCpu(c.members, seed++, 1, c.label);
    EXPECT_TRUE(r.ok()) << c.label << ": " << r.detail;
    EXPECT_GT(r.checked, 0) << c.label;
  }
}

// Rows of 256 points and more: a thread's split items are t + 256 j (j < n2 / 256), its loads span rows; the pol of a
// split trip is a constant of the trip (n2 256) or of the chunk (n2 1024: one combination per chunk).
TEST(PfbKernels, LongRowsRunOnTheCpu) {
  struct Case {
    const char* label;
    std::string members;
  };
  const std::vector<Case> cases = {
      {"8192 channels (rows of 256), gains + delays, ci8 katgpucbf",
       R"("channels": 8192, "taps": 2, "spectra_per_call": 8, "input": {"type": "int8"}, "gain": "per_channel", "delay": true, "output": {"type": "ci8", "layout": "katgpucbf"})"},
      {"32768 channels (rows of 1024), gains + delays, ci8 katgpucbf",
       R"("channels": 32768, "taps": 1, "spectra_per_call": 8, "input": {"type": "int8"}, "gain": "per_channel", "delay": true, "output": {"type": "ci8", "layout": "katgpucbf"})"},
      {"32768 channels, 1 pol, delay, cf32",
       R"("channels": 32768, "taps": 1, "polarizations": 1, "spectra_per_call": 3, "input": {"type": "int8"}, "delay": true, "output": {"type": "cf32"})"},
  };
  std::uint64_t seed = 4140;
  for (const auto& c : cases) {
    const Check k = runOnCpu(c.members, seed++, 1, c.label);
    EXPECT_TRUE(k.ok()) << c.label << ": " << k.detail;
    EXPECT_GT(k.checked, 0) << c.label;
  }
}

// `scratch` "f16": Y crosses between the kernels as __half2 (half the scratch bytes). The outputs meet the f16 bound
// (the f32 one plus 2^-11), with an error well above the f32 scratch's on the same inputs; a spec whose values could
// pass f16's largest one is a SpecError at /scratch.
TEST(PfbKernels, HalfScratchRunsOnTheCpu) {
  std::uint64_t seed = 4240;
  for (
      const char* members :
      {R"("channels": 64, "taps": 4, "spectra_per_call": 32, "input": {"type": "int8"}, "gain": "per_channel", "delay": true, "output": {"type": "ci8", "layout": "katgpucbf"})",
       R"("channels": 1024, "taps": 3, "spectra_per_call": 8, "input": {"type": "packed", "bits": 10}, "output": {"type": "cf32"})"}) {
    const std::string half = std::string(members) + R"(, "scratch": "f16")";
    PfbSpec s = spec(half);
    ASSERT_TRUE(s.halfScratch);
    auto fs = makePfbSpec(s);
    fs->verify();
    LaunchPlan plan = fs->emit({"sm_90", nullptr}).plan;
    ASSERT_EQ(plan.buffer("scratch")->elementBytes, 4);
    for (auto& src : plan.sources) {
      EXPECT_NE(src.text.find("__half2"), std::string::npos);
      src.text = test::withHostHalf(src.text);
    }
    const Check k = test::runPlanOnCpu(*fs, plan, 2, seed, "pfb-cpu", std::string("f16 scratch, ") + members, {});
    EXPECT_TRUE(k.ok()) << k.detail;
    // An error of 8 f16 roundings in the real part of every stored value fails the check (ci8: the flips it causes
    // need more than the bound allows).
    test::expectMutationsCaught(*fs, plan,
                                {{"f16 stores skewed by 1.004", "__floats2half2_rn(v.x",
                                  "__floats2half2_rn(1.004f * v.x"}},
                                seed, "pfb-cpu", {});
    if (s.outputType == PfbOutputType::CF32) {
      // The f32 scratch on the same inputs: f16's rounding shows in the error, above f32's.
      auto f32Spec = makePfbSpec(spec(members));
      const Check f32 = test::runPlanOnCpu(*f32Spec, f32Spec->emit({"sm_90", nullptr}).plan, 2, seed, "pfb-cpu",
                                           std::string("f32 scratch, ") + members, {});
      EXPECT_TRUE(f32.ok());
      EXPECT_GT(k.error, 20 * f32.error) << "the f16 scratch's outputs should carry its rounding";
    }
    ++seed;
  }
  // Int16 samples through the default window could reach 2^15 x 32 x its largest sum of |w|: beyond f16.
  EXPECT_EQ(
      errorPath(
          R"("channels": 64, "taps": 4, "spectra_per_call": 32, "input": {"type": "int16"}, "output": {"type": "ci8"}, "scratch": "f16")"),
      "/scratch");
  EXPECT_EQ(errorPath(std::string(kBase) + R"(, "scratch": "bf16")"), "/scratch");
  EXPECT_EQ(errorPath(std::string(kBase) + R"(, "scratch": "f32")"), "(no error)");
}

// The previous kernels (bench's "previous kernels" variant) stay correct: one case of each output type.
TEST(PfbKernels, PreviousKernelsRunOnTheCpu) {
  std::uint64_t seed = 5050;
  for (
      const char* members :
      {R"("channels": 64, "taps": 4, "spectra_per_call": 32, "input": {"type": "int8"}, "gain": "per_channel", "delay": true, "output": {"type": "ci8", "layout": "katgpucbf"})",
       R"("channels": 128, "taps": 3, "spectra_per_call": 20, "input": {"type": "packed", "bits": 10}, "output": {"type": "cf32"})"}) {
    PfbSpec s = spec(members);
    auto fs = makePfbSpec(s);
    fs->verify();
    const LaunchPlan plan = pfbLaunchPlan(s, emitPfb(s, {.previous = true}));
    const Check k = test::runPlanOnCpu(*fs, plan, 1, seed++, "pfb-cpu", "previous kernels", {});
    EXPECT_TRUE(k.ok()) << members << ": " << k.detail;
    EXPECT_GT(k.checked, 0) << members;
  }
}

// A test that cannot fail is a defect: each mutation of the generated kernels must make the CPU run fail.
TEST(PfbKernels, MutatedKernelsAreCaught) {
  PfbSpec s = spec(
      R"("channels": 64, "taps": 4, "spectra_per_call": 32, "input": {"type": "int8"}, "gain": "per_channel", "delay": true, "output": {"type": "ci8"})");
  auto fs = makePfbSpec(s);
  const LaunchPlan plan = fs->emit({"sm_90", nullptr}).plan;
  test::expectMutationsCaught(*fs, plan,
                              {{{"FIR window slot off by one", "w0_1 * x0_1", "w0_1 * x0_2"}},
                               {{"FIR store slot", "(ps ^ 12) + 64)", "(ps ^ 13) + 64)"}},
                               {{"four-step twiddle dropped", "v.y * step.y", "0.f"}},
                               {{"weights of the other sample", "__ldg(weights + pos)", "__ldg(weights + (pos + 1))"}}},
                              77, "pfb-cpu", {});
  // The post kernel's mutations: its source first.
  LaunchPlan post = plan;
  std::swap(post.sources[0], post.sources[1]);
  post.kernels[0].source = 1, post.kernels[1].source = 0;
  test::expectMutationsCaught(*fs, post,
                              {{{"split twiddle conjugated", "w.y * fx", "-w.y * fx"}},
                               {{"delay slope sign", "-dl.x", "dl.x"}},
                               {{"no saturation count", "sat += clipped", "sat += 0"}},
                               {{"mirror row", "xb = 15 - item", "xb = 14 - item"}},
                               {{"a gain of the other pol", "(p0 + polT)", "(p0 + 1 - polT)"}},
                               {{"staging slot of the mirror", "stB = (8 + item)", "stB = (9 + item)"}},
                               {{"rounding constant", "12582912.0f", "12582913.0f"}},
                               {{"phase table L index", "cl * 8 + il]", "cl * 8 + (il ^ 1)]"}},
                               {{"phase table HB index", "(ih + 2)]", "(ih + 1)]"}}},
                              78, "pfb-cpu", {});
}

// The F-engine's ci8 output is the correlator's input: the same bytes for (batch, channel, time = spectrum, receiver,
// pol) in both layouts, the same array size, and the correlator's reference reads our output as we wrote it.
TEST(PfbFeedsTheCorrelator, LayoutsAgreeAndTheCorrelatorReadsOurOutput) {
  for (const char* layout : {"katgpucbf", "tcc"}) {
    const std::string members =
        fmt::format(R"("channels": 64, "taps": 3, "receivers": 3, "spectra_per_call": 32, "input": {{"type": "int8"}},
                                                "gain": "per_channel", "output": {{"type": "ci8", "layout": "{}"}})",
                    layout);
    PfbSpec s = spec(members);
    CorrelatorSpec c = parseCorrelatorSpecText(
        fmt::format(
            R"({{"name": "x", "family": "correlator", "receivers": {}, "polarizations": {}, "channels": {}, "samples_per_call": {},
                         "sample_type": "ci8", "input": {{"layout": "{}"}}}})",
            s.receivers, s.polarizations, s.channels, s.spectra, layout),
        "x.json");
    // Sizes: the correlator plan's input per batch entry is our output per batch entry.
    const LaunchPlan ours = makePfbSpec(s)->emit({"sm_90", nullptr}).plan;
    const LaunchPlan theirs = makeCorrelatorSpec(c)->emit({"sm_90", nullptr}).plan;
    EXPECT_EQ(ours.buffer("spectra")->perBatchElems * ours.buffer("spectra")->elementBytes,
              theirs.buffer("input")->perBatchElems * theirs.buffer("input")->elementBytes)
        << layout;
    EXPECT_GE(ours.buffer("spectra")->alignment, theirs.buffer("input")->alignment) << layout;
    for (long long b = 0; b < 2; ++b)
      for (int r = 0; r < s.receivers; ++r)
        for (int p = 0; p < s.polarizations; ++p)
          for (long long t = 0; t < s.spectra; ++t)
            for (long long k = 0; k < s.channels; ++k)
              ASSERT_EQ(sampleOffset(c, b, k, t, r, p),
                        b * s.outputElementsPerBatch() + s.outputOffset(r * s.polarizations + p, t, k))
                  << layout << " b " << b << " r " << r << " p " << p << " t " << t << " k " << k;
    // Our kernels' output (run on the CPU) as the correlator's input: its reference visibilities equal the sums over
    // our spectra read through our own layout (one layout: the other's kernels run in PfbKernels.*).
    if (std::string(layout) != "tcc") continue;
    auto fs = makePfbSpec(s);
    const TestData d = fs->randomInputs(1, 909);
    std::map<std::string, std::vector<unsigned char>> mem;
    for (const auto& buf : ours.buffers) {
      if (buf.role == BufferRole::Input) mem[buf.name] = d.arrays.at(buf.name);
      else if (buf.role == BufferRole::Table) mem[buf.name] = buf.contents;
      else
        mem[buf.name].assign(static_cast<std::size_t>(buf.elements(1, buf.perBatchElems) * buf.elementBytes),
                             buf.role == BufferRole::Output ? 0xff : 0);
    }
    for (const auto& k : ours.kernels)
      ASSERT_TRUE(
          test::runKernelOnCpu(ours.sources[static_cast<std::size_t>(k.source)].text, k, mem, 1,
                               ::testing::TempDir() + "/pfb_feed_" + layout + "_" + std::to_string(::getpid())));
    const Check ck = fs->check(d, {{"spectra", mem.at("spectra")}, {"saturated", mem.at("saturated")}}, 1);
    EXPECT_TRUE(ck.ok()) << ck.detail;
    const auto& out = mem.at("spectra");
    const long long P = s.polarizations, B = c.baselines();
    for (long long e = 0; e < c.visibilities() * 2; e += 37) {
      const long long reim = e & 1, qq = (e >> 1) % P, pp = (e >> 1) / P % P, bl = (e >> 1) / (P * P) % B,
                      ch = (e >> 1) / (P * P * B);
      long long r1, r2;
      baselineReceivers(bl, r1, r2);
      long long sum = 0;
      for (long long t = 0; t < s.spectra; ++t) {
        const long long o1 = 2 * s.outputOffset(static_cast<int>(r1 * P + pp), t, ch),
                        o2 = 2 * s.outputOffset(static_cast<int>(r2 * P + qq), t, ch);
        const long long a1 = static_cast<signed char>(out[static_cast<std::size_t>(o1)]),
                        b1 = static_cast<signed char>(out[static_cast<std::size_t>(o1 + 1)]);
        const long long a2 = static_cast<signed char>(out[static_cast<std::size_t>(o2)]),
                        b2 = static_cast<signed char>(out[static_cast<std::size_t>(o2 + 1)]);
        sum += reim == 0 ? a1 * a2 + b1 * b2 : b1 * a2 - a1 * b2;  // s(r1) conj(s(r2)); our values never reach -128
      }
      ASSERT_EQ(referenceProductInt(c, out, 0, e), sum) << layout << " component " << e;
    }
  }
}

// Every spec in specs/ of this family compiles with NVRTC for sm_80 and sm_90 with no spills.
TEST(PfbKernels, SpecsCompileWithoutSpills) {
  int specs = 0;
  for (const auto& e : std::filesystem::directory_iterator(test::sourcePath("specs"))) {
    const std::string f = e.path().filename().string();
    if (f.rfind("pfb_", 0) != 0 || e.path().extension() != ".json") continue;
    ++specs;
    auto fs = loadSpec(e.path().string());
    const Generated g = fs->emit({"sm_90", nullptr});
    for (const auto& src : g.plan.sources)
      for (const char* arch : {"sm_80", "sm_90"}) {
        const CompileResult r = compileWithReport(src.text, fs->name(), arch);
        std::printf("[nvrtc] %s %s %s: %d registers, spill stores %d B, loads %d B, stack %d B\n", fs->name().c_str(),
                    src.fileName.c_str(), arch, r.registers, r.spillStoreBytes, r.spillLoadBytes, r.stackFrameBytes);
        EXPECT_GT(r.registers, 0) << r.log;
        EXPECT_EQ(r.spillStoreBytes, 0) << f << " " << src.fileName << " " << arch;
        EXPECT_EQ(r.spillLoadBytes, 0) << f << " " << src.fileName << " " << arch;
      }
  }
  EXPECT_GE(specs, 3);
}

// Rows of 512 points and more (16k and 32k channels): the row-pair post kernel at two blocks per SM, whose 128
// registers hold it without spills on sm_80 and sm_90 (at three blocks, 80 registers, it spilled 8-84 bytes), for cf32
// spectra and both ci8 layouts, with gains and a delay (the most registers).
TEST(PfbKernels, LongRowPostKernelsCompileWithoutSpills) {
  for (const char* output :
       {R"({"type": "cf32"})", R"({"type": "ci8", "layout": "katgpucbf"})", R"({"type": "ci8", "layout": "tcc"})"})
    for (const long long channels : {16384LL, 32768LL}) {
      if (channels == 32768 && std::string(output).find("ci8") != std::string::npos) continue;  // shared-limited to 2
      const PfbSpec s = spec(
          fmt::format(R"("channels": {}, "taps": 16, "spectra_per_call": 64, "input": {{"type": "int8"}},
                                            "gain": "per_channel", "delay": true, "output": {})",
                      channels, output));
      // (cf32 takes the in-place spectrum post kernel by default: the row-pair kernel is bench's variant there)
      const bool cf32 = std::string(output).find("cf32") != std::string::npos;
      const PfbKernels k = emitPfb(s, {.rowPairPost = cf32});
      ASSERT_FALSE(k.geometry.spectrumPost) << channels;
      if (cf32) EXPECT_TRUE(emitPfb(s).geometry.spectrumPostInPlace) << channels;
      EXPECT_EQ(k.geometry.postBlocksPerSm, 2) << channels << " " << output;
      EXPECT_NE(k.postSource.find("__launch_bounds__(256, 2)"), std::string::npos) << channels << " " << output;
      for (const char* arch : {"sm_80", "sm_90"}) {
        const CompileResult r = compileWithReport(k.postSource, k.postName, arch);
        std::printf("[nvrtc] %lld channels %s post %s: %d registers, spill stores %d B\n", channels, output, arch,
                    r.registers, r.spillStoreBytes);
        EXPECT_GT(r.registers, 0) << r.log;
        EXPECT_EQ(r.spillStoreBytes + r.spillLoadBytes, 0) << channels << " " << output << " " << arch;
      }
    }
  // Rows of 256 points (8k channels, ci8) keep three blocks per SM.
  EXPECT_EQ(emitPfb(spec(R"("channels": 8192, "taps": 16, "spectra_per_call": 64, "input": {"type": "int8"},
                              "output": {"type": "ci8", "layout": "tcc"})"))
                .geometry.postBlocksPerSm,
            3);
}

// Every bench variant of the MeerKAT specs compiles for sm_90 (bench times them all in one run).
TEST(PfbKernels, BenchVariantsCompile) {
  for (const char* f : {"specs/pfb_meerkat_4k_ci8.json", "specs/pfb_meerkat_32k_ci8.json"}) {
    auto fs = loadSpec(test::sourcePath(f));
    const PfbSpec s = parsePfbSpecText(test::readFile(test::sourcePath(f)), f);
    for (const auto& v : pfbBenchVariants(s))
      for (const auto& src : v.generated.plan.sources) {
        const CompileResult r = compileWithReport(src.text, fs->name(), "sm_90");
        EXPECT_GT(r.registers, 0) << f << " " << v.name << " " << src.fileName << ": " << r.log;
        std::printf("[nvrtc] %s, %s: %s %d registers, spills %d B\n", f, v.name.c_str(), src.fileName.c_str(),
                    r.registers, r.spillStoreBytes);
      }
  }
}

// The cuFFT user's pair that bench times (bench/FirR2cBaseline.cpp), on the CPU: its FIR kernel, the R2C in double
// rounded to f32 (cuFFT's place), its post kernel; then the same check as ours (saturation counts aside: it has none).
TEST(PfbBaseline, KernelsRunOnTheCpuAndMatchTheReference) {
  for (const char* layout :
       {"katgpucbf", "spectra"}) {  // the transposed store (tcc's differs in strides only) and the direct one
    const bool cf32 = std::string(layout) == "spectra";
    PfbSpec s = spec(fmt::format(R"("channels": 64, "taps": 3, "receivers": 2, "spectra_per_call": 32, "input": {},
                                    "gain": "per_channel", "delay": true, "output": {{"type": "{}", "layout": "{}"}})",
                                 cf32 ? R"({"type": "packed", "bits": 10})" : R"({"type": "int8"})",
                                 cf32 ? "cf32" : "ci8", layout));
    auto fs = makePfbSpec(s);
    const auto req = baselineOf(*fs);
    ASSERT_TRUE(req && std::holds_alternative<FirR2cBaseline>(req->library));
    const FirR2cPlans plans = firR2cBaselinePlans(std::get<FirR2cBaseline>(req->library));
    const TestData d = fs->randomInputs(1, 515);
    std::map<std::string, std::vector<unsigned char>> fir{{"input", d.arrays.at("input")},
                                                          {"weights", plans.fir.buffer("weights")->contents}};
    fir["real"].assign(static_cast<std::size_t>(
                           plans.fir.buffer("real")->elements(1, plans.fir.buffer("real")->perBatchElems) * 4),
                       0);
    const std::string dir = ::testing::TempDir() + "/pfb_baseline_" + layout + "_" + std::to_string(::getpid());
    ASSERT_TRUE(test::runKernelOnCpu(plans.fir.sources[0].text, plans.fir.kernels[0], fir, 1, dir));
    const long long L = s.fftLength(), N = s.channels, count = static_cast<long long>(s.streams()) * s.spectra;
    std::vector<float> spectra(static_cast<std::size_t>(count * (N + 1) * 2));
    for (long long i = 0; i < count; ++i) {
      std::vector<std::complex<double>> x(static_cast<std::size_t>(L));
      for (long long n = 0; n < L; ++n) {
        float v;
        std::memcpy(&v, fir["real"].data() + 4 * (i * L + n), 4);
        x[static_cast<std::size_t>(n)] = v;
      }
      pfbFftDouble(x, -1);
      for (long long k = 0; k <= N; ++k) {
        spectra[static_cast<std::size_t>(2 * (i * (N + 1) + k))] = static_cast<float>(
            x[static_cast<std::size_t>(k)].real());
        spectra[static_cast<std::size_t>(2 * (i * (N + 1) + k) + 1)] = static_cast<float>(
            x[static_cast<std::size_t>(k)].imag());
      }
    }
    std::map<std::string, std::vector<unsigned char>> post{{"gains", d.arrays.at("gains")},
                                                           {"delays", d.arrays.at("delays")}};
    post["spectra"].resize(spectra.size() * 4);
    std::memcpy(post["spectra"].data(), spectra.data(), post["spectra"].size());
    post["out"].assign(static_cast<std::size_t>(s.outputElementsPerBatch() * s.outputElementBytes()), 0xff);
    ASSERT_TRUE(test::runKernelOnCpu(plans.post.sources[0].text, plans.post.kernels[0], post, 1, dir));
    const Check c = pfbCheck(s, d, {{"spectra", post["out"]}}, 1, false);
    std::printf("[pfb-baseline-cpu] %s: %s\n", layout, c.detail.c_str());
    EXPECT_TRUE(c.ok()) << layout << ": " << c.detail;
  }
}

// The same kernels compile with NVRTC, without spills, for each spec's layout and input type.
TEST(PfbBaseline, KernelsCompileForEverySpec) {
  for (const char* f :
       {"specs/pfb_meerkat_4k_ci8.json", "specs/pfb_meerkat_32k_ci8.json", "specs/pfb_meerkat_4k_10bit_cf32.json"}) {
    auto fs = loadSpec(test::sourcePath(f));
    const auto req = baselineOf(*fs);
    ASSERT_TRUE(req && std::holds_alternative<FirR2cBaseline>(req->library)) << f;
    const FirR2cPlans plans = firR2cBaselinePlans(std::get<FirR2cBaseline>(req->library));
    for (const LaunchPlan* p : {&plans.fir, &plans.post}) {
      const CompileResult r = compileWithReport(p->sources[0].text, p->specName, "sm_90");
      EXPECT_GT(r.registers, 0) << f << r.log;
      EXPECT_EQ(r.spillStoreBytes, 0) << f;
    }
  }
}

// Mutated specs (a value replaced with junk, or a byte flipped) either emit or fail with a SpecError / InconsistentSpec
// naming a JSON path: never another exception, never a crash. Seed printed; WARPFORGE_FUZZ_SEED replays one.
TEST(PfbSpec, MutatedSpecsFailCleanly) {
  std::uint64_t seed = std::random_device{}();
  if (const char* e = std::getenv("WARPFORGE_FUZZ_SEED")) seed = std::strtoull(e, nullptr, 10);
  std::printf("[pfb-fuzz] seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  std::vector<std::string> texts;
  for (const char* f : {"specs/pfb_meerkat_4k_ci8.json", "specs/pfb_meerkat_4k_10bit_cf32.json"})
    texts.push_back(test::readFile(test::sourcePath(f)));
  texts.push_back(specText(
      R"("channels": 64, "taps": 4, "receivers": 3, "spectra_per_call": 32, "input": {"type": "packed", "bits": 10}, "gain": "per_channel",
                              "delay": true, "output": {"type": "ci8", "layout": "tcc"})"));
  const char* junk[] = {"-1",   "0",        "1",          "2",       "1e400",       "18446744073709551615",
                        "\"\"", "null",     "[]",         "{}",      "true",        "65536",
                        "3.5",  "\"rect\"", "\"packed\"", "\"tcc\"", "\"spectra\"", "\"cf32\"",
                        "33",   "16"};
  int counts[3] = {0, 0, 0};
  for (int i = 0; i < 400; ++i) {
    std::string t = texts[rng() % texts.size()];
    for (int m = 0, n = 1 + static_cast<int>(rng() % 3); m < n; ++m) {
      const std::size_t at = rng() % t.size();
      if (rng() % 4 == 0) {
        t[at] = static_cast<char>(rng() % 256);
      } else {
        const std::size_t colon = t.find(':', at);
        if (colon == std::string::npos) continue;
        const std::size_t end = t.find_first_of(",}\n", colon);
        if (end == std::string::npos) continue;
        t.replace(colon + 1, end - colon - 1, std::string(" ") + junk[rng() % std::size(junk)]);
      }
    }
    try {
      auto fs = parseSpecText(t, "fuzz.json");
      fs->emit({"sm_90", nullptr});
      ++counts[0];
    } catch (const InconsistentSpec&) {
      ++counts[1];
    } catch (const SpecError& e) {
      ++counts[2];
      EXPECT_FALSE(e.path().empty() && std::string(e.what()).find("fuzz.json") == std::string::npos) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "seed " << seed << " mutant " << i << ": " << typeid(e).name() << ": " << e.what() << "\n" << t;
    }
  }
  std::printf("[pfb-fuzz] 400 mutants: %d emitted, %d inconsistent, %d spec errors\n", counts[0], counts[1], counts[2]);
}
