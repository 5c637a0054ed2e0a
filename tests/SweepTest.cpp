// `bench --sweep`: the stockham family's draw (deterministic per seed, every class present,
// every spec parses or is an unsupported SpecError), the statistics, and the CLI without a GPU. A small
// sweep on the GPU where there is one.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "TestUtil.h"
#include "bench/Benchmark.h"
#include "bench/Sweep.h"
#include "bench/TuneBudget.h"
#include "warpforge/compiler.h"

using namespace warpforge;

namespace {

std::uint64_t freshSeed() {
  std::random_device rd;
  const std::uint64_t s = (static_cast<std::uint64_t>(rd()) << 16) ^ rd();
  std::printf("sweep seed %llu\n", static_cast<unsigned long long>(s));
  return s;
}

const Family& stockham() {
  const Family* f = findFamily("stockham");
  if (!f) throw std::runtime_error("the stockham family is not registered");
  return *f;
}

const SweepFacet& stockhamSweep() {
  const SweepFacet* s = sweepFacet(stockham());
  if (!s) throw std::runtime_error("the stockham family draws no sweep");
  return *s;
}

warpforge::test::CliResult cli(const std::string& args) { return warpforge::test::runCli(args); }

std::vector<long long> lengthsOf(const Json& s) {
  if (s.contains("length")) return {s["length"].get<long long>()};
  return s["lengths"].get<std::vector<long long>>();
}

long long largestPrime(long long n) {
  long long p = 1;
  for (long long d = 2; d * d <= n; ++d)
    while (n % d == 0) p = d, n /= d;
  return n > 1 ? std::max(p, n) : p;
}

}  // namespace

TEST(StockhamSweep, DeterministicPerSeed) {
  const std::uint64_t seed = freshSeed();
  auto a = stockhamSweep().sweepSpecs(seed, 300), b = stockhamSweep().sweepSpecs(seed, 300),
       c = stockhamSweep().sweepSpecs(seed + 1, 300);
  ASSERT_EQ(a.size(), 300u);
  ASSERT_EQ(b.size(), 300u);
  int same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].spec.dump(), b[i].spec.dump()) << i;
    EXPECT_EQ(a[i].group, b[i].group) << i;
    same += a[i].spec.dump() == c[i].spec.dump();
  }
  EXPECT_LT(same, 30) << "another seed draws other cases";
  std::set<std::string> names;
  for (const auto& s : a) names.insert(s.spec["name"].get<std::string>());
  EXPECT_EQ(names.size(), a.size()) << "names are unique";
  EXPECT_EQ(stockhamSweep().sweepSpecs(seed, 7).size(), 7u);
}

// Every class, read off the specs themselves (not only their group labels).
TEST(StockhamSweep, EveryClassInThreeHundredCases) {
  const std::uint64_t seed = freshSeed();
  auto specs = stockhamSweep().sweepSpecs(seed, 300);
  std::map<std::string, int> groups, seen;
  for (const auto& s : specs) {
    ++groups[s.group];
    const Json& j = s.spec;
    const auto n = lengthsOf(j);
    const std::string t = j.value("transform", "c2c"), p = j["precision"];
    const bool dense = !j.contains("input") && !j.contains("output");
    if (n.size() == 1 && t == "c2c" && p == "f32" && n[0] <= 16384) ++seen["c2c f32 <= 16384"];
    if (n.size() == 1 && t == "c2c" && p == "f32" && n[0] <= 64) ++seen["c2c f32 <= 64"];
    if (n.size() == 1 && t == "c2c" && p == "f16" && n[0] <= 16384) ++seen["c2c f16 <= 16384"];
    if (n.size() == 1 && t == "c2c" && p == "f64" && n[0] <= 16384) ++seen["c2c f64 <= 16384"];
    if (n.size() == 1 && t != "c2c" && n[0] % 2 == 0 && n[0] <= 16384) ++seen["r2c/c2r even <= 16384"];
    if (n.size() == 1 && t != "c2c" && n[0] > 8192) ++seen["r2c/c2r even > 8192"];
    if (n.size() == 1 && t != "c2c" && n[0] > (1 << 17)) ++seen["r2c/c2r > 2^17"];
    if (n.size() > 1 && t != "c2c") ++seen["r2c/c2r 2D/3D"];
    if (n.size() == 1 && largestPrime(n[0]) >= 17 && largestPrime(n[0]) <= 127) ++seen["prime factor 17..127"];
    for (long long b : {3, 5, 7}) {
      long long m = n[0], k = 0;
      while (n.size() == 1 && m % b == 0) m /= b, ++k;
      if (n.size() == 1 && m <= 2 && k >= 4) ++seen["power of 3, 5, 7 (>= 4th)"];
    }
    if (n.size() == 1 && n[0] > 16384 && p == "f16") ++seen["1D > 16384 f16"];
    if (n.size() == 1 && n[0] > 16384 && p == "f32") ++seen["1D > 16384 f32"];
    if (n.size() == 1 && n[0] > (1 << 20)) ++seen["1D > 2^20"];
    if (n.size() == 2 && n[0] == n[1]) ++seen["2D square"];
    if (n.size() == 2 && n[0] != n[1]) ++seen["2D not square"];
    if (n.size() == 3 && n[0] == n[1] && n[1] == n[2]) ++seen["3D cube"];
    if (n.size() == 3 && !(n[0] == n[1] && n[1] == n[2])) ++seen["3D not cube"];
    const std::string d = j.dump();
    if (d.find("\"planar\"") != std::string::npos) ++seen["planar"];
    if (d.find("\"stride\"") != std::string::npos || d.find("\"strides\"") != std::string::npos) ++seen["strided"];
    if (d.find("in_place") != std::string::npos) ++seen["in place"];
    if (!dense && d.find("\"distance\"") != std::string::npos) ++seen["distance given"];
  }
  for (const auto& [g, count] : groups) std::printf("  %-42s %3d cases\n", g.c_str(), count);
  EXPECT_EQ(groups.size(), 13u);
  for (const char* k : {"c2c f32 <= 16384",
                        "c2c f32 <= 64",
                        "c2c f16 <= 16384",
                        "c2c f64 <= 16384",
                        "r2c/c2r even <= 16384",
                        "r2c/c2r even > 8192",
                        "r2c/c2r > 2^17",
                        "r2c/c2r 2D/3D",
                        "prime factor 17..127",
                        "power of 3, 5, 7 (>= 4th)",
                        "1D > 16384 f16",
                        "1D > 16384 f32",
                        "1D > 2^20",
                        "2D square",
                        "2D not square",
                        "3D cube",
                        "3D not cube",
                        "planar",
                        "strided",
                        "distance given"})
    EXPECT_GT(seen[k], 0) << k << " missing from seed " << seed;
  // Every class is there even in a short sweep.
  std::set<std::string> few;
  for (const auto& s : stockhamSweep().sweepSpecs(seed, 13)) few.insert(s.group);
  EXPECT_EQ(few.size(), 13u);
}

// Every spec parses or is refused with a SpecError (reported as unsupported, with its reason); none is
// inconsistent or throws anything else. Prints how much of the draw the generator builds today.
TEST(StockhamSweep, EverySpecParsesOrIsUnsupportedWithAReason) {
  const std::uint64_t seed = freshSeed();
  std::vector<SweepCase> cases = sweepCases(stockham(), seed, 300);
  ASSERT_EQ(cases.size(), 300u);
  std::map<std::string, std::pair<int, int>> byGroup;
  int ready = 0;
  for (const auto& c : cases) {
    EXPECT_TRUE(c.status == SweepStatus::Ready || c.status == SweepStatus::Unsupported) << c.name << ": " << c.reason;
    if (c.status == SweepStatus::Unsupported) EXPECT_FALSE(c.reason.empty()) << c.name;
    if (c.status == SweepStatus::Unsupported) EXPECT_EQ(c.reason[0], '/') << "a JSON path first: " << c.reason;
    EXPECT_EQ(c.spec["family"], "stockham");
    auto& g = byGroup[c.group];
    ++g.first;
    if (c.status == SweepStatus::Ready) ++g.second, ++ready;
  }
  for (const auto& [name, g] : byGroup)
    std::printf("  %-42s %3d of %3d parse and verify\n", name.c_str(), g.second, g.first);
  std::printf("seed %llu: %d of %zu sweep specs parse and verify (%.0f%%)\n", static_cast<unsigned long long>(seed),
              ready, cases.size(), 100.0 * ready / cases.size());
  EXPECT_GT(ready, 150) << "most of what users write must build";
}

TEST(SweepStats, RatiosOfTimedCasesOnly) {
  std::vector<SweepCase> cases(8);
  const double ratios[] = {0.5, 2.0, 1.0, 0.8, 1.25};
  for (int i = 0; i < 5; ++i) {
    cases[i].index = i;
    cases[i].group = i < 2 ? "a" : "b";
    cases[i].status = SweepStatus::Ok;
    cases[i].oursMs = 1.0;
    cases[i].baselineMs = ratios[i];
  }
  cases[5].status = SweepStatus::Failed;  // a fast but wrong case must not count
  cases[5].oursMs = 0.001, cases[5].baselineMs = 1;
  cases[6].status = SweepStatus::Unsupported;
  cases[7].status = SweepStatus::Skipped;
  SweepStats s = sweepStats(cases, 3);
  EXPECT_EQ(s.ok, 5);
  EXPECT_EQ(s.failed, 1);
  EXPECT_EQ(s.unsupported, 1);
  EXPECT_EQ(s.skipped, 1);
  EXPECT_NEAR(s.geomean, std::pow(0.5 * 2.0 * 1.0 * 0.8 * 1.25, 0.2), 1e-12);
  EXPECT_DOUBLE_EQ(s.min, 0.5);
  EXPECT_DOUBLE_EQ(s.max, 2.0);
  ASSERT_EQ(s.deciles.size(), 9u);
  for (std::size_t i = 1; i < s.deciles.size(); ++i) EXPECT_LE(s.deciles[i - 1], s.deciles[i]);
  EXPECT_DOUBLE_EQ(s.deciles[4], 1.0) << "the median";
  EXPECT_EQ(s.below085, 2);
  EXPECT_EQ(s.below070, 1);
  ASSERT_EQ(s.worst.size(), 3u);
  EXPECT_EQ(s.worst[0], 0u);
  EXPECT_EQ(s.worst[1], 3u);
  EXPECT_EQ(s.worst[2], 2u);
  ASSERT_EQ(s.groups.size(), 3u);  // a, b and the untimed cases' ""
  EXPECT_EQ(s.groups[0].group, "a");
  EXPECT_NEAR(s.groups[0].geomean, 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(s.groups[0].worst, 0.5);
  Json j = sweepCaseJson(cases[1]);
  EXPECT_EQ(j["status"], "ok");
  EXPECT_DOUBLE_EQ(j["ratio"].get<double>(), 2.0);
  EXPECT_EQ(sweepCaseJson(cases[5])["status"], "FAILED");
}

TEST(SweepCli, WithoutAGpuExitsThree) {
  if (deviceAvailable()) GTEST_SKIP() << "a GPU is present (SweepGpu runs the sweep)";
  auto r = cli("bench --sweep stockham --cases 5 --seed 1");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("error: `warpforge bench --sweep` needs a GPU"), std::string::npos) << r.out;
}

TEST(SweepCli, BadUse) {
  auto r = cli("bench --sweep fft9000");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("unknown family 'fft9000' (expected one of:"), std::string::npos) << r.out;
  r = cli("bench");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("give a spec file (or --sweep FAMILY)"), std::string::npos) << r.out;
  r = cli("bench " + test::sourcePath(test::kChimeSpec) + " --sweep stockham");
  EXPECT_EQ(r.code, 2) << r.out;
  r = cli("bench --sweep stockham --cases 0");
  EXPECT_EQ(r.code, 2) << r.out;
  r = cli("bench --sweep stockham --sweep-log /nonexistent-dir/x.jsonl --dry-run --cases 3");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("cannot write"), std::string::npos) << r.out;
}

TEST(SweepCli, DryRunListsEveryCaseAndLogsThem) {
  const std::string log = ::testing::TempDir() + "/wf_sweep_dry_" + std::to_string(::getpid()) + ".jsonl";
  auto r = cli("bench --sweep stockham --cases 40 --seed 99 --dry-run --sweep-log " + log);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("[  40/40]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dry run of the stockham sweep, seed 99:"), std::string::npos) << r.out;
  std::ifstream in(log);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    Json j = Json::parse(line);
    EXPECT_TRUE(j["status"] == "ready" || j["status"] == "unsupported") << line;
    EXPECT_EQ(j["spec"]["family"], "stockham");
    ++lines;
  }
  EXPECT_EQ(lines, 40);
  // The same seed, the same cases; without --seed a new one, printed.
  auto again = cli("bench --sweep stockham --cases 40 --seed 99 --dry-run");
  EXPECT_EQ(again.out.substr(0, again.out.find("dry run")), r.out.substr(0, r.out.find("dry run")));
  auto fresh = cli("bench --sweep stockham --cases 3 --dry-run");
  EXPECT_EQ(fresh.code, 0) << fresh.out;
  EXPECT_NE(fresh.out.find("dry run of the stockham sweep, seed "), std::string::npos) << fresh.out;
}

// On a GPU: a short sweep runs every supported case, checks it and times it against cuFFT.
TEST(SweepGpu, ShortSweepChecksAndTimesEveryCase) {
  if (!deviceAvailable()) GTEST_SKIP() << deviceUnavailableReason();
  SweepOptions o;
  o.cases = 22;
  o.seed = freshSeed();
  o.reps = 5;
  o.bytesPerSide = 64.0 * (1 << 20);
  Compiler compiler;
  int reported = 0;
  SweepReport r = runSweep(compiler, stockham(), o, [&](const SweepCase& c) {
    ++reported;
    std::printf("%s", formatSweepCase(c, o.cases).c_str());
  });
  std::printf("%s", formatSweep(r).c_str());
  EXPECT_EQ(reported, o.cases) << "every case reported once";
  EXPECT_TRUE(r.aborted.empty()) << r.aborted;
  const SweepStats s = sweepStats(r.cases);
  EXPECT_EQ(s.failed, 0);
  EXPECT_EQ(s.errors, 0);
  EXPECT_EQ(s.skipped, 0);
  EXPECT_GT(s.ok, 0);
  for (const auto& c : r.cases) {
    if (c.status != SweepStatus::Ok) continue;
    EXPECT_GT(c.oursMs, 0) << c.name;
    EXPECT_GT(c.baselineMs, 0) << c.name;
    EXPECT_GT(c.copyMs, 0) << c.name;
    EXPECT_GE(c.batch, 1) << c.name;
    EXPECT_LE(c.error, c.bound) << c.name;
    EXPECT_FALSE(c.kernels.empty()) << c.name;
  }
  for (std::size_t i : s.worst) EXPECT_FALSE(r.cases[i].plan.empty()) << r.cases[i].name;
}

TEST(SweepStats, ReportNamesEveryKindOfCase) {
  SweepReport r;
  r.family = "fam";
  r.options.seed = 77;
  r.options.cases = 4;
  r.device.name = "GPU";
  r.cases.resize(4);
  for (int i = 0; i < 4; ++i) r.cases[i].index = i, r.cases[i].group = "g", r.cases[i].name = fmt::format("case{}", i);
  r.cases[0].status = SweepStatus::Ok, r.cases[0].oursMs = 2, r.cases[0].baselineMs = 1, r.cases[0].copyMs = 1;
  r.cases[0].plan = "       kernel k0: radix 4 x 4\n";
  r.cases[1].status = SweepStatus::Failed, r.cases[1].error = 1, r.cases[1].bound = 1e-6;
  r.cases[2].status = SweepStatus::Unsupported, r.cases[2].reason = "/length: 12 is too long (at most 10)";
  r.cases[3].status = SweepStatus::Unsupported, r.cases[3].reason = "/length: 13 is too long (at most 10)";
  const std::string o = formatSweep(r);
  for (const char* want :
       {"seed 77", "--seed 77", "geometric mean 0.500x", "deciles (10% .. 90%): 0.50", "1 worst cases:", "case0",
        "radix 4 x 4", "FAILED the check (excluded from the ratios) (1):", "case1 [g]: error 1.000e+00 > bound 1.0e-06",
        "unsupported, by reason (2 cases):", "2 x /length: # is too long (at most #) (e.g. case2)", "50%"})
    EXPECT_NE(o.find(want), std::string::npos) << want << "\n" << o;
}

// The host half of a sweep with real NVRTC (no GPU needed): several threads emitting and compiling at once
// through one Compiler and one disk cache. Every case ends Ready (compiled), or Unsupported with a reason.
TEST(SweepHost, PreparesCasesOnSeveralThreads) {
  const std::string dir = ::testing::TempDir() + "/wf_sweep_host_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  Compiler compiler(dir);
  const std::uint64_t seed = freshSeed();
  std::vector<SweepCase> cases = prepareSweep(compiler, stockham(), seed, 11, "sm_90", 3);
  ASSERT_EQ(cases.size(), 11u);
  int ready = 0;
  double cpu = 0;
  for (const auto& c : cases) {
    std::printf("  %-11s %-36s %5.1f s  %s\n", sweepStatusName(c.status), c.name.c_str(), c.prepareSeconds,
                c.reason.substr(0, 120).c_str());
    EXPECT_TRUE(c.status == SweepStatus::Ready || c.status == SweepStatus::Unsupported) << c.name << ": " << c.reason;
    ready += c.status == SweepStatus::Ready;
    cpu += c.prepareSeconds;
  }
  std::printf("%d of %zu prepared, %.1f s of host time\n", ready, cases.size(), cpu);
  EXPECT_GT(ready, 0);
  // Every compiled kernel is now in the disk cache: a second Compiler finds them without NVRTC.
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) entries += e.path().extension() == ".cubin";
  EXPECT_GE(entries, ready);
}

// --sweep-group keeps the drawn cases of matching groups, --sweep-with patches every case's spec: the same seed then
// gives an A/B of one member over the same cases (e.g. the stockham `bluestein` tuning).
TEST(SweepCli, GroupFilterAndMemberPatch) {
  SweepSelection sel;
  sel.group = "prime";
  sel.with = Json::parse(R"({"tuning": {"bluestein": "smooth"}})");
  const auto all = sweepCases(stockham(), 7, 120), some = sweepCases(stockham(), 7, 120, sel);
  ASSERT_FALSE(some.empty());
  EXPECT_LT(some.size(), all.size());
  std::size_t matching = 0;
  for (const auto& c : all) matching += c.group.find("prime") != std::string::npos;
  EXPECT_EQ(some.size(), matching);
  for (const auto& c : some) {
    EXPECT_NE(c.group.find("prime"), std::string::npos) << c.group;
    EXPECT_EQ(c.spec["tuning"]["bluestein"], "smooth") << c.spec.dump();
    EXPECT_NE(c.status, SweepStatus::Error) << c.name << ": " << c.reason;
  }
  auto r = cli(
      "bench --sweep stockham --cases 60 --seed 7 --dry-run --sweep-group prime --sweep-with '{\"tuning\": "
      "{\"bluestein\": \"smooth\"}}'");
  EXPECT_EQ(r.code, 0) << r.out;
  auto bad = cli("bench --sweep stockham --cases 3 --dry-run --sweep-with '[1]'");
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("--sweep-with"), std::string::npos) << bad.out;
}

// --sweep-cases FILE times listed specs instead of a draw: a spec per line, or a --sweep-log line whose "spec" and
// "group" are taken (its summary line skipped), so a sweep's worst cases can be run again; bad files name the line.
TEST(SweepCli, ListedCases) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "wf_sweep_cases";
  std::filesystem::create_directories(dir);
  const std::string good = (dir / "good.jsonl").string();
  {
    std::ofstream f(good);
    f << R"({"name": "a1399", "family": "stockham", "precision": "f32", "length": 1399})"
      << "\n\n";
    f << R"({"index": 3, "group": "2D", "spec": {"name": "b16", "family": "stockham", "precision": "f32", "lengths": [16, 16]}})"
      << "\n";
    f << R"({"summary": true, "geomean": 1.0})"
      << "\n";
  }
  auto r = cli("bench --sweep stockham --dry-run --sweep-cases " + good);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("a1399"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[listed]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[2D]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 of 2 cases"), std::string::npos) << r.out;
  const std::string bad = (dir / "bad.jsonl").string();
  {
    std::ofstream f(bad);
    f << R"({"name": "a", "family": "stockham", "precision": "f32", "length": 64})"
      << "\n"
      << "[1, 2]\n";
  }
  auto b = cli("bench --sweep stockham --dry-run --sweep-cases " + bad);
  EXPECT_EQ(b.code, 2) << b.out;
  EXPECT_NE(b.out.find(bad + ":2: expected a JSON object"), std::string::npos) << b.out;
  auto missing = cli("bench --sweep stockham --dry-run --sweep-cases " + (dir / "none.jsonl").string());
  EXPECT_EQ(missing.code, 2) << missing.out;
  EXPECT_NE(missing.out.find("cannot open"), std::string::npos) << missing.out;
  std::filesystem::remove_all(dir);
}

// A bench variant repeats the default's time only where it is the default's plan byte for byte at the bench's batch.
TEST(Bench, VariantRepeatsTheDefaultOnlyWhenItIsTheDefault) {
  auto emitted = [](const std::string& extra) {
    return parseSpecText(fmt::format(R"({{"name": "v", "family": "stockham", "precision": "f32", "length": 4096{}}})",
                                     extra),
                         "v.json")
        ->emit(EmitTarget{"sm_90", nullptr});
  };
  const Generated main = emitted("");
  const BenchVariant same{"same", emitted(""), 0, 0};
  EXPECT_TRUE(variantRepeatsDefault(same, main.plan, 1000, 1000));
  EXPECT_FALSE(variantRepeatsDefault(same, main.plan, 500, 1000)) << "timed at another batch";
  EXPECT_FALSE(variantRepeatsDefault(BenchVariant{"repeats", emitted(""), 0, 64}, main.plan, 1000, 1000))
      << "a register-resident repeat times other work";
  EXPECT_FALSE(variantRepeatsDefault(BenchVariant{"other", emitted(R"(, "tuning": {"register_target": 48})"), 0, 0},
                                     main.plan, 1000, 1000))
      << "another geometry";
  EXPECT_FALSE(variantRepeatsDefault(BenchVariant{"inverse", emitted(R"(, "direction": "inverse")"), 0, 0}, main.plan,
                                     1000, 1000))
      << "another transform";
}

// `bench --variants`: the variants whose name contains one of the filter's '|'-separated parts, in the family's
// order; "none" keeps none, an empty filter all.
TEST(BenchVariants, FilterKeepsTheNamedOnesInOrder) {
  std::vector<BenchVariant> v;
  for (const char* name : {"correlate kernel only", "the other tile", "operands as stored, 1 <-> 2", "reduce kernel"})
    v.push_back(BenchVariant{name, Generated{}, 0, 0});
  EXPECT_EQ(keptVariants(v, ""), (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_EQ(keptVariants(v, "none"), (std::vector<std::size_t>{}));
  EXPECT_EQ(keptVariants(v, "as stored|kernel only"), (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(keptVariants(v, "reduce"), (std::vector<std::size_t>{3}));
  EXPECT_EQ(keptVariants(v, "nothing like it"), (std::vector<std::size_t>{}));
  EXPECT_EQ(keptVariants(v, "reduce|"), (std::vector<std::size_t>{3}));  // an empty part matches nothing
}

// `bench --tune --budget`: the first call (the spec as given) is timed whatever the clock says; later calls are timed
// until the budget has passed, then come back untimed (negative, with a message) without reaching the inner timer.
TEST(TuneBudget, StopsTimingOnceTheBudgetIsSpent) {
  struct CountingTimer : TuneTimer {
    int calls = 0, timed = 0;
    std::vector<double> time(const std::vector<Generated>& c, std::vector<std::string>* errors) override {
      ++calls;
      timed += static_cast<int>(c.size());
      if (errors) errors->assign(c.size(), "");
      return std::vector<double>(c.size(), 1.5);
    }
    std::string arch() override { return "sm_90"; }
    CompileProbe* probe() override { return nullptr; }
  } inner;
  double now = 100;
  BudgetTuneTimer timer(inner, 10, [&] { return now; });
  EXPECT_EQ(timer.arch(), "sm_90");
  const std::vector<Generated> two(2), three(3);
  now = 150;  // past the budget already: the first call still runs (the baseline every search needs)
  std::vector<std::string> errors;
  EXPECT_EQ(timer.time(two, &errors), std::vector<double>(2, 1.5));
  EXPECT_EQ(inner.calls, 1);
  const std::vector<double> after = timer.time(three, &errors);
  EXPECT_EQ(after, std::vector<double>(3, -1.0));
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_NE(errors[0].find("--budget of 10 s"), std::string::npos) << errors[0];
  EXPECT_EQ(inner.calls, 1);
  EXPECT_EQ(timer.untimed(), 3);

  CountingTimer inner2;
  double clock = 0;
  BudgetTuneTimer within(inner2, 10, [&] { return clock; });
  within.time(two, nullptr);
  clock = 9.5;
  EXPECT_EQ(within.time(three, nullptr), std::vector<double>(3, 1.5)) << "within the budget: timed";
  clock = 10.5;
  EXPECT_EQ(within.time(two, nullptr), std::vector<double>(2, -1.0));
  EXPECT_EQ(inner2.calls, 2);
  EXPECT_EQ(inner2.timed, 5);
  EXPECT_EQ(within.untimed(), 2);
}
