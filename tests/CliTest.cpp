// The CLI's exit codes and messages, run as a user would.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>

#include <sstream>
#include <filesystem>
#include <random>

#include <nlohmann/json.hpp>

#include "TestUtil.h"
#include "warpforge/device.h"

namespace {
warpforge::test::CliResult run(const std::string& args) { return warpforge::test::runCli(args); }
std::string spec() { return warpforge::test::sourcePath(warpforge::test::kChimeSpec); }
}  // namespace

TEST(Cli, VerifyPrintsTheNotesCounts) {
  auto r = run("verify " + spec());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("CONSISTENT"), std::string::npos);
  EXPECT_NE(r.out.find("160 SM-cycles/FFT"), std::string::npos) << r.out;
}

// verify exit 0 also means: the plan emits and every kernel compiles (NVRTC, no GPU needed), registers printed;
// --no-compile stops at the proof; --json lists the kernels with their spills.
TEST(Cli, VerifyCompilesThePlanUnlessAskedNotTo) {
  auto r = run("verify " + spec() + " --arch sm_80");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("for sm_80: every kernel compiles: chime_fft_256_512 ("), std::string::npos) << r.out;
  r = run("verify --no-compile " + spec());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.find("every kernel compiles"), std::string::npos) << r.out;
  r = run("verify --json " + spec());
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
  ASSERT_EQ(j["kernels"].size(), 1u) << r.out;
  EXPECT_EQ(j["kernels"][0]["spill_store_bytes"], 0) << r.out;
  EXPECT_GT(j["kernels"][0]["registers"].get<int>(), 0) << r.out;
}

TEST(Cli, EmulateDouble) {
  auto r = run("emulate " + spec() + " --mode double --seed 7");
  EXPECT_EQ(r.code, 0) << r.out;
  auto pos = r.out.find("max_rel_err=");
  ASSERT_NE(pos, std::string::npos);
  EXPECT_LT(std::stod(r.out.substr(pos + 12)), 1e-12);
}

TEST(Cli, BadSpecExitsTwoWithPath) {
  std::string path = ::testing::TempDir() + "/bad_spec.json";
  std::string text = warpforge::test::readFile(spec());
  auto at = text.find("\"n_in\": 256");
  text.replace(at, 11, "\"n_in\": 255");
  std::ofstream(path) << text;
  auto r = run("verify " + path);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(path + ": /transform/n_in:"), std::string::npos) << r.out;
}

TEST(Cli, InconsistentSpecExitsNonZero) {
  std::string path = ::testing::TempDir() + "/inconsistent_spec.json";
  std::string text = warpforge::test::readFile(spec());
  auto at = text.find("n7 n6 n5 n4 n3, r <-> n2 n1 n0\"");
  text.replace(at, 5, "n6 n7");
  std::ofstream(path) << text;
  auto r = run("verify " + path);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("/steps/0"), std::string::npos) << r.out;
}

TEST(Cli, BadOptionsExitTwo) {
  EXPECT_EQ(run("emulate " + spec() + " --mode quad").code, 2);
  EXPECT_EQ(run("compile " + spec() + " --arch sm_70").code, 2);
  EXPECT_EQ(run("run " + spec() + " --batch 0").code, 2);
  EXPECT_EQ(run("bench " + spec() + " --reps 0").code, 2);
  EXPECT_EQ(run("bench " + spec() + " --tune").code, 2);  // tuning is for stockham specs
  EXPECT_EQ(run("emit " + spec()).code, 2);               // -o is required
  EXPECT_EQ(run("emulate " + spec() + " --ffts 0").code, 2);
  EXPECT_EQ(run("verify /nonexistent.json").code, 2);
  EXPECT_EQ(run("frobnicate").code, 2);
}

// explain shows a stockham plan's kernels as built (spill-free for the arch) and their passes;
// emulate, which runs tc_fft layouts on an emulated warp, refuses a stockham spec by name.
TEST(Cli, ExplainStockhamAndEmulateRefusesIt) {
  std::string path = ::testing::TempDir() + "/explain_stockham.json";
  std::ofstream(path)
      << R"({"name": "s", "family": "stockham", "precision": "f32", "transform": "r2c", "length": 8192})";
  auto r = run("explain " + path + " --arch sm_90");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("length 4096 = 16 x 16 x 16; block 256 threads"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("register target 64"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("thread indices recomputed per group"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pass 2: radix 16, sub-transforms 256 -> 4096, 256 butterflies, 1 per thread"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("15 twiddle loads per butterfly"), std::string::npos) << r.out;
  r = run("emulate " + path);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("warpforge run"), std::string::npos) << r.out;
  EXPECT_EQ(run("explain " + path + " --arch sm_70").code, 2);
}

TEST(Cli, BadStockhamSpecExitsTwoWithPath) {
  const std::string path = ::testing::TempDir() + "/bad_stockham.json";
  const std::string emit = "emit " + path + " -o " + ::testing::TempDir();
  struct Case {
    std::string command, spec, expected;  // expected: what the message says after "FILE: "
  };
  const Case cases[] = {
      // prime, convolution above 2^26
      {"verify " + path, R"({"name": "s", "family": "stockham", "precision": "f32", "length": 33554467})",
       "/length: length 33554467"},
      // a multi-D axis past what one kernel holds
      {"verify " + path, R"({"name": "s", "family": "stockham", "precision": "f32", "lengths": [8, 1000000]})",
       "/lengths/1:"},
      {"verify " + path,
       R"({"name": "s", "family": "stockham", "precision": "f32", "length": 64, "tuning": {"block_threads": 4096}})",
       "/tuning/block_threads:"},
      {"verify " + path,
       R"({"name": "s", "family": "stockham", "precision": "f32", "lengths": [20, 20], "tuning": {"fuse_axes": 1}})",
       "/tuning/fuse_axes: expected true or false"},
      {"verify " + path,
       R"({"name": "s", "family": "stockham", "precision": "f16", "length": 16777216, "tuning": {"three_kernels": 3}})",
       "/tuning/three_kernels: expected true or false"},
      {"verify " + path,
       R"({"name": "s", "family": "stockham", "precision": "f32", "transform": "r2c", "length": 65536, "tuning": {"real_split": "yes"}})",
       "/tuning/real_split: \"yes\" (expected \"fused\", \"kernel\" or \"mirrored\")"},
      {"verify " + path,
       R"({"name": "s", "family": "stockham", "precision": "f32", "length": 32768, "tuning": {"split": 1}})",
       "/tuning/split:"},
      {emit,
       R"({"name": "s", "family": "stockham", "precision": "f32", "transform": "r2c", "length": 32768, "tuning": {"spill_bytes": -4}})",
       "/tuning/spill_bytes:"},
      {emit,
       R"({"name": "s", "family": "stockham", "precision": "f32", "transform": "c2r", "length": 1001, "tuning": {"pair_batch": 1}})",
       "/tuning/pair_batch: expected true or false"},
      {emit,
       R"({"name": "s", "family": "stockham", "precision": "f16", "length": 16777216, "tuning": {"half_scratch": "half"}})",
       "/tuning/half_scratch: expected true or false"},
      {emit,
       R"({"name": "s", "family": "stockham", "precision": "f32", "length": 16384, "tuning": {"prefetch": "on"}})",
       "/tuning/prefetch: expected true or false"},
      {emit,
       R"({"name": "s", "family": "stockham", "precision": "f64", "length": 87, "tuning": {"streamed_prime": "yes"}})",
       "/tuning/streamed_prime: expected true or false"},
      {emit,
       R"({"name": "s", "family": "stockham", "precision": "f32", "length": 1399, "tuning": {"bluestein": 2744}})",
       "/tuning/bluestein: a convolution of length 2744 is too short"},
      {"verify " + path,
       R"({"name": "s", "family": "stockham", "precision": "f32", "length": 1399, "tuning": {"bluestein": 4097}})",
       "/tuning/bluestein: 4097 is not a product of radix primes"},
      {emit, R"({"name": "s", "family": "stockham", "precision": "f32", "length": 28672, "factors": [16, 16, 16, 7]})",
       "/factors: explicit factors are for 1D c2c lengths up to 27225"},
      // One kernel on sm_90, two on sm_80 (its shared memory holds up to 19515 points): the factors cannot hold there.
      {emit + " --arch sm_80",
       R"({"name": "s", "family": "stockham", "precision": "f32", "length": 20736, "factors": [16, 16, 9, 9]})",
       "/factors: length 20736 takes more than one kernel on sm_80"},
      {emit, R"({"name": "s", "family": "fft9000", "precision": "f32"})", "/family"},
  };
  for (const Case& c : cases) {
    std::ofstream(path) << c.spec;
    const auto r = run(c.command);
    EXPECT_EQ(r.code, 2) << c.spec << "\n" << r.out;
    EXPECT_NE(r.out.find(path + ": " + c.expected), std::string::npos) << c.spec << "\n" << r.out;
  }
  // The prime's message says why: the Bluestein convolution it would need.
  std::ofstream(path) << cases[0].spec;
  EXPECT_NE(run(cases[0].command).out.find("Bluestein"), std::string::npos);
}

// The gridder's engine and its tensor-core tuning, as a user would get them wrong: exit 2, the JSON path named.
TEST(Cli, BadGridderEngineExitsTwoWithPath) {
  const std::string path = ::testing::TempDir() + "/bad_gridder.json";
  auto write = [&](const std::string& extra, const char* direction = "grid") {
    std::ofstream(path) << R"({"name": "g", "family": "gridder", "direction": ")" << direction
                        << R"(", "subgrid_size": 16, "correlations": 4, "grid_size": 128, "image_size": 0.04,
                              "observation": {"stations": 4, "time_steps": 16, "channels": 4}, "channels_per_subgrid": 4)"
                        << extra << "}";
  };
  write(R"(, "engine": "fp8")");
  auto r = run("verify " + path);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(path + ": /engine:"), std::string::npos) << r.out;
  write(R"(, "engine": "tf32", "tuning": {"mma_visibility_tiles": 0})", "degrid");
  r = run("verify " + path);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(path + ": /tuning/mma_visibility_tiles:"), std::string::npos) << r.out;
  write(R"(, "engine": "tf32x3", "tuning": {"mma_tiles_per_warp": 0})");
  r = run("verify " + path);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(path + ": /tuning/mma_tiles_per_warp:"), std::string::npos) << r.out;
  write(R"(, "engine": "tf32x3")");
  r = run("bench " + path + " --ab '{\"mma_tiles_per_warp\": 8}'");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/tuning/mma_tiles_per_warp"), std::string::npos) << r.out;
  EXPECT_EQ(run("verify " + path + " --no-compile").code, 0);  // the same spec, as it stands, is fine
}

// The beamformer's kernel choice (tuning.mma, the wgmma ring's stages), as a user would get it wrong: exit 2, the JSON
// path named.
TEST(Cli, BadBeamformerMmaExitsTwoWithPath) {
  const std::string path = ::testing::TempDir() + "/bad_beamformer.json";
  auto write = [&](const std::string& weightType, const std::string& tuning) {
    std::ofstream(path)
        << R"({"name": "b", "family": "beamformer", "receivers": 64, "beams": 96, "samples_per_call": 256, "sample_type": "ci8",
                              "weight_type": ")"
        << weightType << R"(", "output": {"kind": "beams", "type": "cf32"}, "tuning": )" << tuning << "}";
  };
  write("ci8", R"({"mma": "tensor"})");
  auto r = run("verify " + path);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(path + ": /tuning/mma:"), std::string::npos) << r.out;
  write("ci4", R"({"mma": "wgmma"})");  // ci4 weights cannot go to shared memory as given
  r = run("verify " + path);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/tuning/mma"), std::string::npos) << r.out;
  write("ci8", R"({"mma": "wgmma"})");  // fine for sm_90, an error for another target
  r = run("emit " + path + " --arch sm_80 -o " + ::testing::TempDir() + "/bad_beamformer_out");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/tuning/mma"), std::string::npos) << r.out;
  write("ci8", R"({"stages": 7})");
  r = run("verify " + path);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(path + ": /tuning/stages:"), std::string::npos) << r.out;
  write("ci8", R"({"mma": "wgmma", "stages": 4})");
  EXPECT_EQ(run("verify " + path + " --no-compile").code, 0);  // the same spec with a valid ring is fine
}

// The correlator's tuning.transform "none" (the operands as stored) where the spec cannot have it: exit 2, the file
// and the JSON path named; the same spec with sample_range symmetric verifies.
TEST(Cli, CorrelatorOperandsAsStoredRefusedWithPath) {
  const std::string path = ::testing::TempDir() + "/bad_corr_none.json";
  auto write = [&](const std::string& more) {
    std::ofstream(path) << R"({"name": "c", "family": "correlator", "receivers": 64, "polarizations": 2, "channels": 4,
                              "samples_per_call": 256, "sample_type": "ci8", "input": {"layout": "tcc"})"
                        << more << "}";
  };
  write(R"(, "tuning": {"transform": "none"})");  // -128 would need the clamp
  auto r = run("verify " + path + " --no-compile");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(path + ": /tuning/transform:"), std::string::npos) << r.out;
  write(R"(, "sample_range": "symmetric", "tuning": {"transform": "none", "raw_stages": 4})");
  r = run("verify " + path + " --no-compile");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/tuning/raw_stages"), std::string::npos) << r.out;
  write(R"(, "sample_range": "symmetric", "tuning": {"transform": "none"})");
  EXPECT_EQ(run("verify " + path + " --no-compile").code, 0);
  // The members of the operands as stored: a wrong value, and one where the samples are not used as stored.
  for (const auto& [more, at] : std::vector<std::pair<std::string, std::string>>{
           {R"(, "sample_range": "symmetric", "tuning": {"row_copies": "tma"})", "/tuning/row_copies"},
           {R"(, "tuning": {"row_copies": "bulk"})", "/tuning/row_copies"},
           {R"(, "sample_range": "symmetric", "tuning": {"persistent": 1})", "/tuning/persistent"},
           {R"(, "tuning": {"persistent": true})", "/tuning/persistent"},
           {R"(, "sample_range": "symmetric", "tuning": {"column_copies": "bulk"})", "/tuning/column_copies"},
           {R"(, "tuning": {"column_copies": "tensor"})", "/tuning/column_copies"},
           {R"(, "sample_range": "symmetric", "tuning": {"column_copies": "tensor", "row_copies": "multicast"})",
            "/tuning/column_copies"},
           {R"(, "sample_range": "symmetric", "output": "visibilities", "tuning": {"store": "sideways"})",
            "/tuning/store"},
           {R"(, "output": "visibilities", "tuning": {"store": "bulk"})", "/tuning/store"},
           {R"(, "sample_range": "symmetric", "tuning": {"store": "bulk"})", "/tuning/store"}}) {
    write(more);
    r = run("verify " + path + " --no-compile");
    EXPECT_EQ(r.code, 2) << more << ": " << r.out;
    EXPECT_NE(r.out.find(path + ": " + at + ":"), std::string::npos) << more << ": " << r.out;
  }
}

// bench --ab: the tuning members are checked before any GPU work, errors name --ab and the
// JSON path, and it does not combine with --tune; a family whose spec has no tuning member refuses it at /tuning.
TEST(Cli, BenchAbRejectsBadTuning) {
  std::string path = ::testing::TempDir() + "/ab_stockham.json";
  std::ofstream(path) << R"({"name": "s", "family": "stockham", "precision": "f32", "length": 1024})";
  auto r = run("bench " + path + " --ab '[1]'");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--ab"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("expected a JSON object"), std::string::npos) << r.out;
  r = run("bench " + path + " --ab '{\"work_queue\": 3}'");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/tuning/work_queue: expected true or false"), std::string::npos) << r.out;
  r = run("bench " + path + " --ab '{\"warp_drive\": true}'");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/tuning"), std::string::npos) << r.out;
  r = run("bench " + path + " --ab '{not json'");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_EQ(run("bench " + path + " --tune --ab '{}'").code, 2);
  EXPECT_EQ(run("bench " + spec() + " --ab '{}'").code, 2);  // tc_fft
}

// bench --check-variants is a flag for a spec's bench: with --sweep (which times no variants) or given a value it is
// bad input (exit 2, as is a value it cannot read), refused before any GPU work, and the error names the option.
TEST(Cli, BenchCheckVariantsRefusesWhatItCannotCheck) {
  auto r = run("bench --sweep stockham --dry-run --cases 1 --seed 1 --check-variants");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--check-variants"), std::string::npos) << r.out;
  r = run("bench " + spec() + " --check-variants=maybe");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("check-variants"), std::string::npos) << r.out;
}

// --budget (a --sweep's or a --tune's seconds) and run's --seed refuse what they cannot read: exit 2, naming the
// option, before any GPU work.
TEST(Cli, BudgetAndSeedRefuseBadValues) {
  for (const std::string& args : {" --tune --budget 0", " --tune --budget soon"}) {
    auto r = run("bench " + spec() + args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find("--budget"), std::string::npos) << args << ": " << r.out;
  }
  auto r = run("run " + spec() + " --seed -3");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--seed"), std::string::npos) << r.out;
}

TEST(Cli, VersionAndFamilies) {
  auto r = run("--version");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("warpforge "), std::string::npos) << r.out;
  r = run("families");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("tc_fft"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("stockham"), std::string::npos) << r.out;
}

// verify --json: one object per file, each file checked and reported; the exit status is the worst.
TEST(Cli, VerifyJsonReportsEveryFile) {
  std::string bad = ::testing::TempDir() + "/json_bad.json", incons = ::testing::TempDir() + "/json_incons.json";
  std::string text = warpforge::test::readFile(spec());
  std::string b = text;
  b.replace(b.find("\"n_in\": 256"), 11, "\"n_in\": 255");
  std::ofstream(bad) << b;
  std::string c = text;
  c.replace(c.find("n7 n6 n5 n4 n3, r <-> n2 n1 n0\""), 5, "n6 n7");
  std::ofstream(incons) << c;
  std::string cmd = std::string(WARPFORGE_CLI) + " verify --json " + spec() + " " + bad + " " + incons + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  int st = pclose(p);
  EXPECT_EQ(WEXITSTATUS(st), 2) << out;
  std::vector<nlohmann::json> objs;
  std::stringstream ss(out);
  for (std::string line; std::getline(ss, line);) objs.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(objs.size(), 3u) << out;
  EXPECT_EQ(objs[0]["ok"], true);
  EXPECT_EQ(objs[0]["family"], "tc_fft");
  EXPECT_EQ(objs[0]["counts"]["sm_cycles"], 160) << objs[0].dump();
  EXPECT_EQ(objs[1]["ok"], false);
  EXPECT_EQ(objs[1]["errors"][0]["path"], "/transform/n_in") << objs[1].dump();
  EXPECT_EQ(objs[2]["ok"], false);
  EXPECT_EQ(objs[2]["exit"], 1);
  EXPECT_EQ(objs[2]["errors"][0]["path"].get<std::string>().rfind("/steps/0", 0), 0u) << objs[2].dump();
}

TEST(Cli, EmitWritesThePlanAndFailsLoudly) {
  std::string dir = ::testing::TempDir() + "/emit_out";
  auto r = run("emit " + spec() + " -o " + dir + " --arch sm_80");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(warpforge::test::readFile(dir + "/chime_fft_256_512_plan.h").find("wf_chime_fft_256_512::run"),
            std::string::npos);
  EXPECT_FALSE(warpforge::test::readFile(dir + "/chime_fft_256_512.cu").empty());
  r = run("emit " + spec() + " -o /proc/warpforge-cannot-write");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_EQ(r.out.find("wrote"), std::string::npos) << r.out;
  EXPECT_EQ(run("emit " + spec() + " -o " + dir + " --arch sm_70").code, 2);
}

TEST(Cli, CompileWritesOneCubinPerKernel) {
  std::string dir = ::testing::TempDir() + "/cubins";
  auto r = run("compile " + spec() + " --arch sm_90 --cubin " + dir);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find(" registers"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("-1 registers"), std::string::npos) << r.out;
  EXPECT_GT(warpforge::test::readFile(dir + "/chime_fft_256_512.cubin").size(), 1000u);
}

TEST(Cli, RunWithoutAGpuSaysWhy) {
  if (warpforge::deviceAvailable()) GTEST_SKIP() << "a GPU is present";
  auto r = run("run " + spec());
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("needs a GPU"), std::string::npos) << r.out;
}

// The CLI under mutated specs of every family: any exit but 0, 1 or 2 (a signal, a CUDA/NVRTC failure
// from a spec that verified, a crash) fails. New seed per run (printed); WARPFORGE_FUZZ_SEED replays one.
TEST(Cli, FuzzedSpecsExitCleanly) {
  std::uint64_t seed = std::random_device{}();
  if (const char* s = std::getenv("WARPFORGE_FUZZ_SEED")) seed = std::strtoull(s, nullptr, 10);
  std::printf("[cli-fuzz] seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  std::vector<std::string> texts;
  for (const auto& e : std::filesystem::directory_iterator(warpforge::test::sourcePath("specs")))
    if (e.path().extension() == ".json") texts.push_back(warpforge::test::readFile(e.path().string()));
  const std::string path = ::testing::TempDir() + "/cli_fuzz.json", out = ::testing::TempDir() + "/cli_fuzz_out";
  const char* junk[] = {"-1",      "0",     "1e400", "18446744073709551615", "\"\"", "null", "[]", "{}", "true",
                        "\"n99\"", "65536", "3.5",   "\"\\u0000\""};
  int counts[3] = {0, 0, 0};
  for (int i = 0; i < 60; ++i) {
    std::string t = texts[rng() % texts.size()];
    for (int m = 0, n = 1 + static_cast<int>(rng() % 3); m < n; ++m) {
      // Replace a number or a string value with junk, or flip a byte.
      std::size_t at = rng() % t.size();
      if (rng() % 3 == 0) {
        t[at] = static_cast<char>(rng() % 256);
      } else {
        std::size_t colon = t.find(':', at);
        if (colon == std::string::npos) continue;
        std::size_t end = t.find_first_of(",}\n", colon);
        if (end == std::string::npos) continue;
        t.replace(colon + 1, end - colon - 1, std::string(" ") + junk[rng() % std::size(junk)]);
      }
    }
    std::ofstream(path, std::ios::trunc) << t;
    auto r = run((i % 4 == 3 ? "emit " + path + " -o " + out : "verify " + path));
    ASSERT_TRUE(r.code >= 0 && r.code <= 2) << "seed " << seed << " mutant " << i << " exit " << r.code << "\n"
                                            << r.out << "\n"
                                            << t;
    ++counts[r.code];
  }
  std::printf("[cli-fuzz] 60 mutants: %d accepted, %d inconsistent, %d bad input\n", counts[0], counts[1], counts[2]);
}

// '-' reads the spec from standard input (shown as <stdin>, read once even where a command loads the spec twice).
TEST(Cli, DashReadsTheSpecFromStandardInput) {
  auto r = run("verify --no-compile - < " + spec());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("CONSISTENT"), std::string::npos) << r.out;
  const std::string bad = ::testing::TempDir() + "/stdin_bad.json";
  std::ofstream(bad) << R"({"name": "s", "family": "stockham", "precision": "f32", "lenght": 64})";
  r = run("explain - < " + bad);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("<stdin>: /lenght: unknown field; did you mean 'length'?"), std::string::npos) << r.out;
  EXPECT_EQ(run("verify - - < " + spec()).code, 2);  // standard input once
}

// Exit status as documented: 0 ok, 1 inconsistent, 2 spec / usage / file errors, 3 CUDA, 4 internal errors.
TEST(Cli, ExitCodesAreDocumentedInTheHelp) {
  auto r = run("--help");
  EXPECT_EQ(r.code, 0) << r.out;
  for (const char* s : {"0 success", "1 inconsistent spec", "2 bad input", "3 CUDA/NVRTC failure", "4 internal error"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  // A file that is not a regular file is bad input, refused at once.
  const std::string fifo = ::testing::TempDir() + "/cli_fifo.json";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  r = run("verify " + fifo);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("FIFO"), std::string::npos) << r.out;
  std::filesystem::remove(fifo);
}

// The newer members and options: each wrong value is exit 2 with the JSON path (or the option) in the message.
TEST(Cli, NewerMembersAndOptionsRefuseBadValues) {
  const std::string dir = ::testing::TempDir();
  const std::string corr = dir + "/bad_correlator.json";
  auto writeCorrelator = [&](const std::string& tuning) {
    std::ofstream(corr) << R"({"name": "x", "family": "correlator", "receivers": 64, "polarizations": 2, "channels": 4,
                              "samples_per_call": 256, "sample_type": "ci8", "input": {"layout": "tcc"}, "tuning": )"
                        << tuning << "}";
  };
  writeCorrelator(R"({"transform": "both"})");
  auto r = run("verify --no-compile " + corr);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(corr + ": /tuning/transform:"), std::string::npos) << r.out;
  writeCorrelator(R"({"transform": "shared", "stages": 2})");
  r = run("verify --no-compile " + corr);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/tuning/transform"), std::string::npos) << r.out;
  writeCorrelator(R"({"stages": 9})");
  r = run("verify --no-compile " + corr);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(corr + ": /tuning/stages:"), std::string::npos) << r.out;

  // A tc_fft size past the synthesizer's coverage: the rule and the nearest size that works.
  const std::string fft = dir + "/too_long_fft.json";
  std::ofstream(fft)
      << R"({"name": "f", "family": "tc_fft", "precision": "f16", "transform": {"n_in": 8192, "n_out": 8192, "sign": 1}})";
  r = run("synthesize " + fft);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/transform"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("4096"), std::string::npos) << r.out;

  // The pfb's scratch precision: an unknown type, and f16 where its values could overflow.
  const std::string pfb = dir + "/bad_pfb.json";
  for (const char* input : {R"({"type": "int8"}, "scratch": "f8")", R"({"type": "int16"}, "scratch": "f16")"}) {
    std::ofstream(pfb) << R"({"name": "p", "family": "pfb", "channels": 64, "taps": 4, "spectra_per_call": 32,
                            "output": {"type": "ci8"}, "input": )"
                       << input << "}";
    r = run("verify --no-compile " + pfb);
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find(pfb + ": /scratch:"), std::string::npos) << r.out;
  }

  // --cubins without --plan-json has nothing to put them in.
  r = run("emit " + spec() + " --cubins -o " + dir + "/cubins_without_plan");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--plan-json"), std::string::npos) << r.out;
}
