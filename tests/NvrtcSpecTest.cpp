// Every spec in specs/ compiles with NVRTC for sm_80 and sm_90 with no spills,
// and its PTX holds exactly the instructions the verifier counted.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "generator/core/JsonReader.h"
#include "generator/tc_fft/TcFftParser.h"
#include "generator/tc_fft/TcFftEmitter.h"
#include "generator/tc_fft/TcFftFamily.h"
#include "generator/verify/Verifier.h"
#include "runtime/Nvrtc.h"
#include "TestUtil.h"

using namespace warpforge;

namespace {
std::vector<std::string> allSpecs() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(test::sourcePath("specs")))
    if (e.path().extension() == ".json" &&
        parseJsonText(readSpecFileText(e.path().string()), e.path().string()).value("family", "") == "tc_fft")
      out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}
int countRe(const std::string& s, const std::string& re) {
  std::regex r(re);
  return static_cast<int>(std::distance(std::sregex_iterator(s.begin(), s.end(), r), std::sregex_iterator()));
}
}  // namespace

TEST(NvrtcSpecs, EverySpecCompilesWithoutSpills) {
  auto specs = allSpecs();
  ASSERT_FALSE(specs.empty());
  for (const auto& f : specs) {
    LayoutProgram s = parseTcFftSpecFile(f);
    Plan p = Verifier().verify(s);
    for (bool packed : {true, false}) {
      EmittedKernel k = emitTcFft(p, {packed, false});
      for (const char* arch : {"sm_80", "sm_90"}) {
        NvrtcResult r;
        ASSERT_NO_THROW(r = nvrtcCompile(k.source, s.name, arch)) << f << " " << arch;
        std::printf("[nvrtc] %s %s phases=%s: %d registers, spill stores %d B, spill loads %d B, stack %d B\n",
                    s.name.c_str(), arch, packed ? "packed" : "unpacked", r.registers, r.spillStoreBytes,
                    r.spillLoadBytes, r.stackFrameBytes);
        EXPECT_GT(r.cubin.size(), 1000u);
        EXPECT_GT(r.registers, 0) << r.log;
        EXPECT_EQ(r.spillStoreBytes, 0) << r.log;
        EXPECT_EQ(r.spillLoadBytes, 0) << r.log;
        EXPECT_EQ(r.stackFrameBytes, 0) << r.log;
      }
    }
  }
}

TEST(NvrtcSpecs, PtxHasTheVerifiedInstructions) {
  for (const auto& f : allSpecs()) {
    LayoutProgram s = parseTcFftSpecFile(f);
    Plan p = Verifier().verify(s);
    // The family's emitted plan (what the Executor compiles), not just the emitter's default.
    NvrtcResult r = nvrtcCompile(makeTcFftSpec(s)->emit({"sm_90"}).plan.sources[0].text, s.name, "compute_90");
    for (const auto& [shape, n] : p.total.mma)
      EXPECT_EQ(countRe(r.ptx, "mma\\.sync\\.aligned\\." + shape + "\\."), n) << f << " " << shape;
    EXPECT_EQ(countRe(r.ptx, "shfl\\.sync\\.bfly"), p.total.shuffles - 0) << f;
    EXPECT_GE(countRe(r.ptx, "\\bprmt\\.b32"), p.total.byteperms) << f;
    EXPECT_EQ(countRe(r.ptx, "fma\\.rn\\.f16x2") + countRe(r.ptx, "mul(\\.rn)?\\.f16x2"), p.total.hfma2) << f;
    EXPECT_EQ(countRe(r.ptx, "\\bld\\.local|\\bst\\.local"), 0) << f;
    EXPECT_GE(countRe(r.ptx, "ld\\.global(\\.[a-z]+)*\\.v4|cp\\.async\\.cg\\.shared\\.global.*16;"), 1)
        << f;                                                           // 16-byte loads
    EXPECT_GE(countRe(r.ptx, "st\\.global(\\.[a-z]+)*\\.v4"), 1) << f;  // 16-byte stores
  }
}

TEST(NvrtcSpecs, CompileErrorCarriesTheLog) {
  try {
    nvrtcCompile("extern \"C\" __global__ void k() { this_is_not_cuda; }", "broken", "sm_90");
    FAIL();
  } catch (const CompileError& e) {
    EXPECT_NE(e.log().find("this_is_not_cuda"), std::string::npos) << e.log();
    EXPECT_NE(std::string(e.what()).find("broken"), std::string::npos);
  }
}
