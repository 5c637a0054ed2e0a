#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "CudaOnCpu.h"
#include "bench/Facets.h"
#include "generator/emulate/Emulator.h"
#include "generator/emulate/Half.h"
#include "generator/tc_fft/TcFftFamily.h"
#include "generator/tc_fft/TcFftParser.h"
#include "generator/verify/Verifier.h"
#include "TestUtil.h"

using namespace warpforge;

TEST(Half, RoundsLikeBinary16) {
  EXPECT_EQ(roundToHalf(1.0), 1.0);
  EXPECT_EQ(roundToHalf(1.0 + std::ldexp(1, -11)), 1.0);                          // tie -> even
  EXPECT_EQ(roundToHalf(1.0 + 3 * std::ldexp(1, -11)), 1.0 + std::ldexp(1, -9));  // tie -> even (up)
  EXPECT_EQ(roundToHalf(65504.0), 65504.0);
  EXPECT_TRUE(std::isinf(roundToHalf(65520.0)));
  EXPECT_EQ(roundToHalf(std::ldexp(1, -24)), std::ldexp(1, -24));  // smallest subnormal
  EXPECT_EQ(roundToHalf(std::ldexp(1, -26)), 0.0);
  EXPECT_EQ(roundToHalf(-0.1), -0.0999755859375);
}

// Bit patterns against the IEEE binary16 table, and every finite pattern round-trips.
TEST(Half, BitPatterns) {
  EXPECT_EQ(floatToHalfBits(1.0), 0x3c00);
  EXPECT_EQ(floatToHalfBits(-2.0), 0xc000);
  EXPECT_EQ(floatToHalfBits(65504.0), 0x7bff);
  EXPECT_EQ(floatToHalfBits(1e6), 0x7c00);                 // overflow -> inf
  EXPECT_EQ(floatToHalfBits(std::ldexp(1, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(floatToHalfBits(-0.0), 0x8000);
  for (unsigned h = 0; h < 0x10000; ++h)
    if (((h >> 10) & 31) != 31)
      EXPECT_EQ(floatToHalfBits(halfBitsToDouble(static_cast<std::uint16_t>(h))), h) << std::hex << h;
  EXPECT_TRUE(std::isnan(halfBitsToDouble(0x7e00)));
}

// The bit-manipulating conversion against rounding by arithmetic (the quantum of x's binade, nearbyint): random
// values over every binade from below the subnormals to past the largest half, and each midpoint between
// neighbouring halves (the ties, to even), both signs.
TEST(Half, MatchesArithmeticRounding) {
  auto byArithmetic = [](double x) {
    if (x == 0) return x;
    int e;
    std::frexp(std::fabs(x), &e);
    const double quantum = e - 1 >= -14 ? std::ldexp(1.0, e - 1 - 10) : std::ldexp(1.0, -24);
    const double r = std::nearbyint(std::fabs(x) / quantum) * quantum;
    return std::copysign(r > 65504.0 ? INFINITY : r, x);
  };
  std::mt19937_64 rng(20261124);
  std::uniform_real_distribution<double> u(0.5, 1.0);
  for (int i = 0; i < 200000; ++i) {
    const double x = std::ldexp(u(rng), static_cast<int>(rng() % 46) - 28) * (i % 2 ? -1 : 1);
    ASSERT_EQ(roundToHalf(x), byArithmetic(x)) << x;
    ASSERT_EQ(halfBitsToDouble(floatToHalfBits(x)), byArithmetic(x)) << x;
  }
  for (unsigned h = 0; h < 0x7bff; ++h) {
    const double lo = halfBitsToDouble(static_cast<std::uint16_t>(h)),
                 hi = halfBitsToDouble(static_cast<std::uint16_t>(h + 1));
    const double mid = (lo + hi) / 2;  // exact in double
    ASSERT_EQ(roundToHalf(mid), byArithmetic(mid)) << std::hex << h;
    ASSERT_EQ(roundToHalf(-mid), byArithmetic(-mid)) << std::hex << h;
    ASSERT_EQ(floatToHalfBits(mid), (h & 1) ? h + 1 : h) << std::hex << h;
  }
  EXPECT_TRUE(std::isinf(roundToHalf(65520.0)) && roundToHalf(65519.99) == 65504.0);
  EXPECT_TRUE(std::isnan(roundToHalf(NAN)));
  EXPECT_EQ(floatToHalfBits(INFINITY), 0x7c00);
  EXPECT_EQ(floatToHalfBits(-INFINITY), 0xfc00);
}

TEST(Emulator, ChimeDoubleMatchesFftw) {
  LayoutProgram s = parseTcFftSpecFile(test::sourcePath(test::kChimeSpec));
  Plan p = Verifier().verify(s);
  const std::uint64_t seed = 20261122;
  auto r = emulateAgainstFftw(p, EmuMode::Double, seed, 8);
  std::printf("[emulator] double seed=%llu max_rel_err=%.3e\n", (unsigned long long)seed, r.maxRelErr);
  EXPECT_LT(r.maxRelErr, 1e-12);
}

TEST(Emulator, ChimeF16WithinHalfPrecisionBound) {
  LayoutProgram s = parseTcFftSpecFile(test::sourcePath(test::kChimeSpec));
  Plan p = Verifier().verify(s);
  auto r = emulateAgainstFftw(p, EmuMode::F16, 4242, 8);
  std::printf("[emulator] f16 seed=4242 max_rel_err=%.3e\n", r.maxRelErr);
  // ~7 roundings of unit roundoff 2^-11 = 4.9e-4 on the way, each of relative
  // size ~u/sqrt(3) in rms: expect a few 1e-4; 3e-3 is the bound the GPU run is held to.
  EXPECT_LT(r.maxRelErr, 3e-3);
  EXPECT_GT(r.maxRelErr, 1e-5);  // f16 mode must actually round
}

TEST(Emulator, WrongPhaseGivesWrongAnswer) {
  // The emulator must be able to fail: flip the sign of the transform in the
  // plan but not in the reference.
  LayoutProgram s = parseTcFftSpecFile(test::sourcePath(test::kChimeSpec));
  Plan p = Verifier().verify(s);
  auto x = randomComplex(s.nIn, 1);
  auto y = emulateFft(p, EmuMode::Double, x);
  auto wrong = referenceDft(x, s.nOut, -s.sign);
  EXPECT_GT(relativeError(y, wrong), 0.5);
}

// `warpforge emulate` prints what the family's emulate returns.
TEST(Emulator, FamilyEmulateText) {
  auto spec = makeTcFftSpec(parseTcFftSpecFile(test::sourcePath(test::kChimeSpec)));
  const EmulateFacet* emulator = emulateFacet(*spec);
  ASSERT_NE(emulator, nullptr);
  EXPECT_EQ(emulator->emulate("f16", 1, 4),
            "spec=chime_fft_256_512 mode=f16 seed=1 ffts=4 (inputs uniform in [-1,1], reference double "
            "FFT)\nmax_rel_err=5.447e-04\n");
  EXPECT_THROW(emulator->emulate("f32", 1, 1), std::invalid_argument);
}

// Thread-block clusters on the CPU (tests/CudaOnCpu.h): kernels of 2-CTA clusters through the shim's cluster
// operations, two clusters per grid, against what the PTX ISA says they do.
namespace {

constexpr int kChunk = 512;  // bytes multicast per cluster
constexpr int kOutPerBlock = kChunk + 16;

// Each CTA's thread 0 initialises its mbarrier and tags its shared memory with its rank; the cluster meets; each CTA
// expects the chunk's bytes on its own barrier and CTA 0 multicasts chunk `blockIdx.x / 2` of `in` into both CTAs
// (`mask`); the cluster meets again (the copies are issued), each CTA waits for its phase (unless its rank is
// `skipWait`) and writes its shared bytes (16-byte shared loads, or plain ones with `plainReads`), then its rank,
// the cluster size and its tag to its slice of `out`.
std::string multicastKernel(bool cluster, unsigned mask, int skipWait = -1, bool plainReads = false) {
  std::string text = R"(
extern "C" __global__ void @DIMS@__launch_bounds__(64) cluster_multicast(const unsigned char* in, unsigned char* out) {
  __shared__ __align__(16) unsigned char buf[@CHUNK@];
  __shared__ __align__(16) unsigned char tag[16];
  __shared__ __align__(8) unsigned long long bar;
  const unsigned b = (unsigned)__cvta_generic_to_shared(&bar), d = (unsigned)__cvta_generic_to_shared(buf);
  const unsigned rank = wf_cluster_rank();
  if (threadIdx.x == 0) wf_mbar_init(b, 1), tag[0] = (unsigned char)(0x40 + rank);
  wf_cluster_sync();
  if (threadIdx.x == 0) wf_mbar_arrive_tx(b, @CHUNK@);
  if (rank == 0 && threadIdx.x == 0) wf_bulk_g2s_multicast(d, in + (blockIdx.x / wf_cluster_size()) * @CHUNK@, @CHUNK@, b, @MASK@u);
  wf_cluster_sync();
  if ((int)rank != @SKIP@)
    while (!wf_mbar_try_wait(b, 0)) {}
  unsigned char* o = out + blockIdx.x * (@CHUNK@ + 16);
  for (unsigned i = threadIdx.x; i < @CHUNK@ / 16; i += blockDim.x) {
    @READ@
  }
  if (threadIdx.x == 0) o[@CHUNK@] = (unsigned char)rank, o[@CHUNK@ + 1] = (unsigned char)wf_cluster_size(), o[@CHUNK@ + 2] = tag[0];
  wf_cluster_sync();
}
)";
  const std::vector<std::pair<std::string, std::string>> values = {
      {"@DIMS@", cluster ? "__cluster_dims__(2, 1, 1) " : ""},
      {"@CHUNK@", std::to_string(kChunk)},
      {"@MASK@", std::to_string(mask)},
      {"@SKIP@", std::to_string(skipWait)},
      {"@READ@", plainReads ? "std::memcpy(o + 16 * i, buf + 16 * i, 16);"
                            : "const uint4 v = wf_lds128(d + 16 * i);\n    std::memcpy(o + 16 * i, &v, 16);"}};
  for (const auto& [key, value] : values)
    for (std::size_t at; (at = text.find(key)) != std::string::npos;) text.replace(at, key.size(), value);
  return text;
}

PlanKernel testKernel(const std::string& name, long long blocks, int threads) {
  PlanKernel k;
  k.name = name;
  k.blockX = threads;
  k.grid.unitsPerBatch = blocks;
  k.grid.capAtResident = false;
  k.args = {PlanArg::buffer("in", "const unsigned char*", "in"), PlanArg::buffer("out", "unsigned char*", "out")};
  return k;
}

std::map<std::string, std::vector<unsigned char>> multicastMemory(long long blocks) {
  std::map<std::string, std::vector<unsigned char>> mem;
  mem["in"].resize(static_cast<std::size_t>(blocks / 2 * kChunk));
  std::mt19937 rng(20260611);
  for (auto& x : mem["in"]) x = static_cast<unsigned char>(rng());
  mem["out"].assign(static_cast<std::size_t>(blocks * kOutPerBlock), 0xff);
  return mem;
}

std::string tempDir(const std::string& tag) {
  return ::testing::TempDir() + "/emulator_" + tag + "_" + std::to_string(::getpid());
}

// Runs `source`'s kernel `name` over two clusters of two 64-thread CTAs with `outWordsPerCluster` zeroed words of
// output per cluster; the output's words, or nothing where the run failed.
std::vector<unsigned> runTwoClusters(const std::string& source, const std::string& name, int outWordsPerCluster) {
  std::map<std::string, std::vector<unsigned char>> mem{{"in", std::vector<unsigned char>(16)}};
  mem["out"].assign(static_cast<std::size_t>(2 * outWordsPerCluster * 4), 0);
  if (!test::runKernelOnCpu(source, testKernel(name, 4, 64), mem, 1, tempDir(name))) return {};
  std::vector<unsigned> words(mem["out"].size() / 4);
  std::memcpy(words.data(), mem["out"].data(), mem["out"].size());
  return words;
}

}  // namespace

// (a) CTA 0 multicasts a chunk into both CTAs' shared memory, each completing on the CTA's own mbarrier: both CTAs
// hold the input; each has its own shared memory (its tag), its rank and the cluster size.
TEST(EmulatorCluster, MulticastReachesEveryCtaOfTheCluster) {
  const long long blocks = 4;  // two clusters, one after the other
  auto mem = multicastMemory(blocks);
  ASSERT_TRUE(test::runKernelOnCpu(multicastKernel(true, 3), testKernel("cluster_multicast", blocks, 64), mem, 1,
                                   tempDir("multicast")));
  for (long long bx = 0; bx < blocks; ++bx) {
    const unsigned char* o = mem["out"].data() + bx * kOutPerBlock;
    EXPECT_EQ(std::memcmp(o, mem["in"].data() + bx / 2 * kChunk, kChunk), 0) << "block " << bx;
    EXPECT_EQ(o[kChunk], bx % 2) << "block " << bx << "'s rank";
    EXPECT_EQ(o[kChunk + 1], 2) << "block " << bx << "'s cluster size";
    EXPECT_EQ(o[kChunk + 2], 0x40 + bx % 2) << "block " << bx << " reads its own shared memory";
  }
}

// The same kernel without __cluster_dims__: clusters of one (rank 0, size 1, the multicast to rank 0 only is a bulk
// copy, the cluster barrier the block's), blocks one after another as before.
TEST(EmulatorCluster, WithoutClusterDimsEveryBlockIsAClusterOfOne) {
  const long long blocks = 4;
  auto mem = multicastMemory(blocks);
  mem["in"].resize(static_cast<std::size_t>(blocks * kChunk));  // block bx reads chunk bx / 1
  ASSERT_TRUE(test::runKernelOnCpu(multicastKernel(false, 1), testKernel("cluster_multicast", blocks, 64), mem, 1,
                                   tempDir("single")));
  for (long long bx = 0; bx < blocks; ++bx) {
    const unsigned char* o = mem["out"].data() + bx * kOutPerBlock;
    EXPECT_EQ(std::memcmp(o, mem["in"].data() + bx * kChunk, kChunk), 0) << "block " << bx;
    EXPECT_EQ(o[kChunk], 0) << "block " << bx;
    EXPECT_EQ(o[kChunk + 1], 1) << "block " << bx;
    EXPECT_EQ(o[kChunk + 2], 0x40) << "block " << bx;
  }
}

// (b) Remote arrivals: CTA 1's 64 threads each store a word to global memory and arrive on CTA 0's mbarrier, CTA 0's
// thread 0 arrives on it through its own rank; CTA 0 waits for that phase and reads the words; then CTA 0's threads
// arrive on CTA 1's mbarrier the same way and CTA 1 waits and reads theirs.
TEST(EmulatorCluster, RemoteArrivesCompleteAPeersPhase) {
  const std::string source = R"(
extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_arrive(const unsigned char* in, unsigned char* out) {
  __shared__ __align__(8) unsigned long long bar;
  const unsigned b = (unsigned)__cvta_generic_to_shared(&bar), rank = wf_cluster_rank(), peer = rank ^ 1;
  unsigned* words = (unsigned*)out + (blockIdx.x / 2) * 256;  // [0, 64): CTA 1's, [64, 128): CTA 0's, then what each read
  if (threadIdx.x == 0) wf_mbar_init(b, rank == 0 ? 65 : 64);
  wf_cluster_sync();
  if (rank == 1) {
    words[threadIdx.x] = 1000 * blockIdx.x + threadIdx.x;
    wf_mbar_arrive_remote(b, 0);
  } else {
    if (threadIdx.x == 0) wf_mbar_arrive_remote(b, 0);  // this CTA's own rank
    while (!wf_mbar_try_wait(b, 0)) {}
    words[128 + threadIdx.x] = words[threadIdx.x];
    words[64 + threadIdx.x] = 7000 + 1000 * blockIdx.x + threadIdx.x;
    wf_mbar_arrive_remote(b, peer);
  }
  if (rank == 1) {
    while (!wf_mbar_try_wait(b, 0)) {}
    words[192 + threadIdx.x] = words[64 + threadIdx.x];
  }
}
)";
  const std::vector<unsigned> out = runTwoClusters(source, "cluster_arrive", 256);
  ASSERT_FALSE(out.empty());
  for (long long c = 0; c < 2; ++c)
    for (unsigned t = 0; t < 64; ++t) {
      EXPECT_EQ(out[c * 256 + 128 + t], 1000 * (2 * c + 1) + t)
          << "cluster " << c << ", what CTA 0's thread " << t << " read";
      EXPECT_EQ(out[c * 256 + 192 + t], 7000 + 1000 * (2 * c) + t)
          << "cluster " << c << ", what CTA 1's thread " << t << " read";
    }
}

// (c) Mutations the emulation must catch: CTA 1 reading the multicast data without waiting for its mbarrier phase
// (a 16-byte shared load of a bulk copy's data before the wait: a hazard; plain loads see the poison the copy left
// at issue, and the kernel returns with the copy pending); a multicast onto a peer's mbarrier that was never
// initialised (checked in the peer's state); a grid that is not a whole number of clusters.
TEST(EmulatorCluster, MutationsAreCaught) {
  const long long blocks = 4;
  auto failuresOf = [&](const std::string& source, std::map<std::string, std::vector<unsigned char>>& mem,
                        long long grid, const std::string& tag) {
    ::testing::TestPartResultArray failures;
    {
      ::testing::ScopedFakeTestPartResultReporter intercept(
          ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
      EXPECT_FALSE(test::runKernelOnCpu(source, testKernel("cluster_multicast", grid, 64), mem, 1, tempDir(tag)));
    }
    std::string all;
    for (int f = 0; f < failures.size(); ++f) all += std::string(failures.GetTestPartResult(f).message()) + "\n";
    std::printf("[emulator-cluster] %s: %s", tag.c_str(), all.c_str());
    return all;
  };
  {
    auto mem = multicastMemory(blocks);
    const std::string all = failuresOf(multicastKernel(true, 3, 1), mem, blocks, "no_wait");
    EXPECT_NE(all.find("hazard(s) in the emulation; the first: thread"), std::string::npos) << all;
    EXPECT_NE(all.find("of block 1: 16-byte shared load of a bulk copy's data before this thread waited"),
              std::string::npos)
        << all;
  }
  {
    auto mem = multicastMemory(blocks);
    const std::string all = failuresOf(multicastKernel(true, 3, 1, true), mem, blocks, "no_wait_plain");
    EXPECT_NE(all.find("kernel returned with bulk copies not completed"), std::string::npos) << all;
    for (long long bx = 1; bx < blocks; bx += 2)
      for (int i = 0; i < kChunk; ++i)
        ASSERT_EQ(mem["out"][static_cast<std::size_t>(bx * kOutPerBlock + i)], 0xa5) << "block " << bx << " byte " << i;
  }
  {
    auto mem = multicastMemory(blocks);
    std::string source = multicastKernel(true, 3, 1);  // CTA 1 neither initialises nor uses its mbarrier
    for (const std::string op : {"wf_mbar_init(b,", "wf_mbar_arrive_tx(b,"}) {
      const std::string from = "if (threadIdx.x == 0) " + op;
      ASSERT_NE(source.find(from), std::string::npos) << from;
      source.replace(source.find(from), from.size(), "if (threadIdx.x == 0 && rank == 0) " + op);
    }
    const std::string all = failuresOf(source, mem, blocks, "peer_uninitialised");
    EXPECT_NE(all.find("thread 0 of block 0: bulk copy completing on an mbarrier that was never initialised"),
              std::string::npos)
        << all;
  }
  {
    auto mem = multicastMemory(blocks);
    const std::string all = failuresOf(multicastKernel(true, 3), mem, 3, "odd_grid");
    EXPECT_NE(all.find("not a whole number of clusters of 2"), std::string::npos) << all;
  }
}

// barrier.cluster waits for the threads of the cluster that have not returned: CTA 1 and half of CTA 0 return at
// once, the rest of CTA 0 meets twice through split arrive / wait and once through wf_cluster_sync; what each thread
// of CTA 0 stored before the first arrive, its peers read after the first wait.
TEST(EmulatorCluster, ClusterBarrierCountsThreadsThatHaveNotReturned) {
  const std::string source = R"(
extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_exit(const unsigned char* in, unsigned char* out) {
  unsigned* words = (unsigned*)out + (blockIdx.x / 2) * 64;
  if (wf_cluster_rank() == 1 || threadIdx.x >= 32) return;
  words[threadIdx.x] = 100 + threadIdx.x;
  wf_cluster_arrive();
  wf_cluster_wait();
  words[32 + threadIdx.x] = words[threadIdx.x ^ 1];
  wf_cluster_arrive();
  wf_cluster_wait();
  wf_cluster_sync();
}
)";
  const std::vector<unsigned> out = runTwoClusters(source, "cluster_exit", 64);
  ASSERT_FALSE(out.empty());
  for (long long c = 0; c < 2; ++c)
    for (unsigned t = 0; t < 32; ++t)
      EXPECT_EQ(out[c * 64 + 32 + t], 100 + (t ^ 1)) << "cluster " << c << ", thread " << t;
}

// The cluster size the runner reads from a kernel's declaration.
TEST(EmulatorCluster, ClusterDimsFromTheKernelsDeclaration) {
  std::string why;
  EXPECT_EQ(test::clusterDimsOf("extern \"C\" __global__ void k(int* p) {}", "k", why), 1);
  EXPECT_EQ(why, "");
  EXPECT_EQ(test::clusterDimsOf("extern \"C\" __global__ void __cluster_dims__(4) k(int* p) {}", "k", why), 4);
  EXPECT_EQ(test::clusterDimsOf("extern \"C\" __global__ void __cluster_dims__( 2 , 1, 1 )\n"
                                "__launch_bounds__(384, 1) k (int* p) {}",
                                "k", why),
            2);
  EXPECT_EQ(why, "");
  // In a comment, on another kernel, or on a kernel whose name only ends like this one's: not this kernel's.
  EXPECT_EQ(test::clusterDimsOf("// __cluster_dims__(2, 1, 1)\nextern \"C\" __global__ void k(int* p) {}", "k", why),
            1);
  EXPECT_EQ(test::clusterDimsOf("/* __cluster_dims__(2, 1, 1) */\nextern \"C\" __global__ void k(int* p) {}", "k", why),
            1);
  EXPECT_EQ(test::clusterDimsOf("extern \"C\" __global__ void __cluster_dims__(2, 1, 1) other(int* p) {}\n"
                                "extern \"C\" __global__ void k(int* p) {}",
                                "k", why),
            1);
  EXPECT_EQ(test::clusterDimsOf("extern \"C\" __global__ void __cluster_dims__(2, 1, 1) my_k(int* p) {}", "k", why), 1);
  EXPECT_EQ(why, "");
  // What the runner does not emulate.
  test::clusterDimsOf("extern \"C\" __global__ void __cluster_dims__(2, 2, 1) k(int* p) {}", "k", why);
  EXPECT_NE(why.find("clusters of 1..16 CTAs along x"), std::string::npos) << why;
  test::clusterDimsOf("extern \"C\" __global__ void __cluster_dims__(kCluster, 1, 1) k(int* p) {}", "k", why);
  EXPECT_NE(why.find("not of integer literals"), std::string::npos) << why;
}
