#include <gtest/gtest.h>

#include <regex>

#include "generator/spec/Spec.h"
#include "generator/tc_fft/TcFftEmitter.h"
#include "generator/verify/Verifier.h"
#include "TestUtil.h"

using namespace warpforge;

namespace {
int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}
}  // namespace

TEST(Emitter, ChimeKernelHasTheVerifiedInstructionMix) {
  TcFftSpec s = parseSpecFile(test::sourcePath(test::kChimeSpec));
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
  EXPECT_NE(k.header.find("struct chime_fft_256_512_launch"), std::string::npos);
  EXPECT_NE(k.header.find("block_threads = 128"), std::string::npos);
}

TEST(Emitter, UnpackedPhasesHoldMoreRegisters) {
  TcFftSpec s = parseSpecFile(test::sourcePath(test::kChimeSpec));
  Plan p = Verifier().verify(s);
  EmittedKernel k = emitTcFft(p, {false, false});
  // E_X_Z1 unpacked to 8, E_Z1_Z2 4, E_Z2_Z3p operand (c, s, -s, c) 3; the other two phases share those.
  EXPECT_EQ(k.phaseRegisters, 15);
  EXPECT_EQ(count(k.source, "wf_unpack_row"), 0);
}

TEST(Emitter, LaunchGrid) {
  LaunchInfo li;
  li.fftsPerBlock = 4;
  EXPECT_EQ(li.gridFor(1, 132, 8), 1);
  EXPECT_EQ(li.gridFor(7, 132, 8), 2);
  EXPECT_EQ(li.gridFor(1 << 20, 132, 8), 132 * 8);
}
