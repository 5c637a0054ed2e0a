#include <gtest/gtest.h>

#include "ast/Ast.h"
#include "ast/Passes.h"
#include "ast/Printer.h"

using namespace warpforge::ast;

TEST(AstPrinter, MinimalParentheses) {
  EXPECT_EQ(printExpr(bin("*", bin("+", var("a"), var("b")), var("c"))), "(a + b) * c");
  EXPECT_EQ(printExpr(bin("+", var("a"), bin("*", var("b"), var("c")))), "a + b * c");
  EXPECT_EQ(printExpr(bin("-", var("a"), bin("-", var("b"), var("c")))), "a - (b - c)");
  EXPECT_EQ(printExpr(bin("&", bin(">>", var("lane"), lit(3)), lit(1))), "lane >> 3 & 1");
  EXPECT_EQ(printExpr(index(member(var("v"), "x"), lit(2))), "v.x[2]");
  EXPECT_EQ(printExpr(cast("const uint4*", bin("+", var("p"), lit(4)))), "(const uint4*)(p + 4)");
  EXPECT_EQ(printExpr(flit(0.5)), "0.5f");
  // Below float's range: the float it rounds to (NVRTC refuses 1e-50f); past it: no float literal.
  EXPECT_EQ(printExpr(flit(1e-50)), "0.0f");
  EXPECT_EQ(printExpr(flit(-1e-300)), "-0.0f");
  EXPECT_EQ(printExpr(flit(1e-45)), "1.40129846e-45f");
  EXPECT_THROW(printExpr(flit(1e39)), std::range_error);
  EXPECT_EQ(printExpr(dlit(0.70710678118654757)), "0.70710678118654757");  // full double precision, no suffix
  EXPECT_EQ(printExpr(lit(0xffffffffLL)), "0xffffffff");
}

TEST(AstPrinter, GoldenFunction) {
  NodePtr fn = function("extern \"C\" __global__ void", "", "k", {decl("int*", "out"), decl("int", "n")},
                        block({comment("one element per thread"), decl("const int", "i", member(var("threadIdx"), "x")),
                               ifStmt(bin("<", var("i"), var("n")),
                                      block({assign(index(var("out"), var("i")), bin("*", var("i"), lit(2)))})),
                               forLoop(decl("int", "r", lit(0)), bin("<", var("r"), lit(4)),
                                       assign(var("r"), lit(1), "+="), block({exprStmt(call("__syncwarp", {}))})),
                               inlinePtx("mov.u32 %0, %1;", "=r,r", {var("a"), var("b")})}));
  const char* golden =
      "extern \"C\" __global__ void k(int* out, int n) {\n"
      "  // one element per thread\n"
      "  const int i = threadIdx.x;\n"
      "  if (i < n) {\n"
      "    out[i] = i * 2;\n"
      "  }\n"
      "  for (int r = 0; r < 4; r += 1) {\n"
      "    __syncwarp();\n"
      "  }\n"
      "  asm(\"mov.u32 %0, %1;\" : \"=r\"(a) : \"r\"(b));\n"
      "}\n";
  EXPECT_EQ(print(fn), golden);
}

TEST(AstPasses, ConstantFolding) {
  NodePtr e = bin("+", bin("*", lit(3), lit(4)), bin("<<", bin("&", var("lane"), lit(0)), lit(5)));
  EXPECT_EQ(printExpr(foldConstants(e)), "12");
  EXPECT_EQ(printExpr(foldConstants(bin("+", var("x"), bin("-", lit(2), lit(2))))), "x");
  EXPECT_EQ(printExpr(foldConstants(bin("*", var("x"), lit(1)))), "x");
  EXPECT_EQ(printExpr(foldConstants(ternary(bin("==", lit(1), lit(2)), var("a"), var("b")))), "b");
  EXPECT_EQ(printExpr(foldConstants(bin("/", var("x"), lit(0)))), "x / 0");  // never folds undefined arithmetic
}

TEST(AstPasses, ConstantFoldingIsDepthFirstRewrite) {
  // The rewrite rebuilds parents from folded children.
  NodePtr s = assign(index(var("a"), bin("+", lit(1), lit(2))), bin("|", var("y"), lit(0)));
  NodePtr f = foldConstants(s);
  EXPECT_EQ(printExpr(f->args[0]), "a[3]");
  EXPECT_EQ(printExpr(f->args[1]), "y");
}

TEST(AstPasses, DeadCodeRemoval) {
  NodePtr b = block({decl("int", "unused", bin("+", var("x"), lit(1))),                      // dead
                     decl("int", "chain", lit(2)), decl("int", "uses_chain", var("chain")),  // dead after one round
                     decl("int", "effect", call("atomicAdd", {var("p"), lit(1)})),           // kept: side effect
                     ifStmt(lit(0), block({exprStmt(call("f", {}))})),                       // dead
                     block({}),                                                              // dead
                     decl("int", "used", lit(3)), assign(index(var("out"), lit(0)), var("used"))});
  std::string out = print(removeDeadCode(b));
  EXPECT_EQ(out.find("unused"), std::string::npos) << out;
  EXPECT_EQ(out.find("chain"), std::string::npos) << out;
  EXPECT_NE(out.find("atomicAdd"), std::string::npos) << out;
  EXPECT_EQ(out.find("f()"), std::string::npos) << out;
  EXPECT_NE(out.find("int used = 3;"), std::string::npos) << out;
}

TEST(AstOperators, SpellingsParseToTypedOperatorsAndBack) {
  EXPECT_EQ(binaryOp("<<"), BinaryOp::Shl);
  EXPECT_EQ(spelling(BinaryOp::LogicalAnd), "&&");
  EXPECT_EQ(assignOp(">>="), AssignOp::Shr);
  EXPECT_EQ(unaryOp("~"), UnaryOp::BitNot);
  for (const char* op :
       {"*", "/", "%", "+", "-", "<<", ">>", "<", "<=", ">", ">=", "==", "!=", "&", "^", "|", "&&", "||"})
    EXPECT_EQ(spelling(binaryOp(op)), op);
  EXPECT_THROW(binaryOp("**"), std::logic_error);  // an unknown operator fails where the node is built
  EXPECT_THROW(bin(",", var("a"), var("b")), std::logic_error);
  EXPECT_THROW(assign(var("a"), var("b"), "=="), std::logic_error);
  // The typed and the spelled builders make the same node; a node's operator compares with its spelling.
  EXPECT_EQ(printExpr(bin(BinaryOp::Add, var("a"), var("b"))), printExpr(bin("+", var("a"), var("b"))));
  NodePtr neg = unary(UnaryOp::Negate, var("x"));
  EXPECT_TRUE(neg->op == "-");
  EXPECT_TRUE(neg->op.is(UnaryOp::Negate));
  EXPECT_FALSE(neg->op.is(BinaryOp::Sub));
}

TEST(AstTypes, BuiltAndParsedTypesPrintTheSame) {
  EXPECT_EQ(Type("unsigned char").constant().restrict().str(), "const unsigned char* __restrict__");
  EXPECT_EQ(Type("uint4").constPointer().str(), "uint4* const");
  EXPECT_EQ(Type("int").constant().constPointer().str(), "const int* const");
  EXPECT_EQ(Type("wf_u32").reference().str(), "wf_u32&");
  EXPECT_EQ(Type("float").rowsOf(33).str(), "float (*)[33]");
  EXPECT_EQ(Type("wf_u32").rowsOf(40).constPointer().declare("rows"), "wf_u32 (* const rows)[40]");
  // Spelled types parse into the same structure, so string call sites build typed nodes.
  EXPECT_EQ(Type("const unsigned char* __restrict__"), Type("unsigned char").constant().restrict());
  EXPECT_EQ(Type("unsigned long long*").pointers, 1);
  EXPECT_TRUE(Type("const int").isConst);
  // A spelling outside the typed forms is kept as written (it prints unchanged).
  EXPECT_FALSE(Type("float2 (&)[4]").verbatim.empty());
  EXPECT_EQ(Type("float2 (&)[4]").str(), "float2 (&)[4]");
  EXPECT_EQ(Type("int *").str(), "int *");
  EXPECT_THROW(Type("int").pointer().constant(), std::logic_error);
}

TEST(AstPrinter, TypedStatementsPrintAsCudaWritesThem) {
  EXPECT_EQ(printExpr(hexLit(0x0f0f0f0f, 8, IntSuffix::U)), "0x0f0f0f0fu");
  EXPECT_EQ(printExpr(hexLit(0x1100, 4)), "0x1100");
  EXPECT_EQ(printExpr(ulit(30)), "30u");
  EXPECT_EQ(printExpr(ulit(0xffffffffLL)), "0xffffffffu");
  EXPECT_EQ(printExpr(lit(0, IntSuffix::ULL)), "0ull");
  EXPECT_EQ(printExpr(bin("&", paren(bin(">>", var("t"), lit(4))), var("m"))), "(t >> 4) & m");
  EXPECT_EQ(printExpr(reinterpretCast(Type("float2").pointer(), var("pool"))), "reinterpret_cast<float2*>(pool)");
  NodePtr body = block({
      externSharedArray("wf_u32", "smem", 16),
      sharedArray("float2", "svis", 64, 16),
      withNote(sharedArray("float", "sdk", 8), "k_c / k0 - 1"),
      decl(Type("float").rowsOf(9).constPointer(), "ps", reinterpretCast(Type("float").rowsOf(9), var("smem"))),
      declGroup(Type("wf_u32").constant(), {{"h", lit(1)}, {"l", lit(2)}}),
      forUnbraced(decl("int", "o", lit(16)), bin(">", var("o"), lit(0)), assign(var("o"), lit(1), ">>="),
                  assign(var("n"), call("__shfl_down_sync", {ulit(0xffffffffLL), var("n"), var("o")}), "+=")),
      ifUnbraced(bin("==", var("lane"), lit(0)), assign(index(var("part"), var("warp")), var("n"))),
      ifStmt(bin(">=", var("b"), var("batch")), withNote(ret(), "past the batch")),
      asmVolatile("st.shared.u32 [%0], %1;", "r,r", {var("a"), var("v")}),
      asmVolatile("fence.proxy.async;", "", {}),
      ret(var("v")),
  });
  const char* golden =
      "{\n"
      "  extern __shared__ __align__(16) wf_u32 smem[];\n"
      "  __shared__ __align__(16) float2 svis[64];\n"
      "  __shared__ float sdk[8];  // k_c / k0 - 1\n"
      "  float (* const ps)[9] = reinterpret_cast<float (*)[9]>(smem);\n"
      "  const wf_u32 h = 1, l = 2;\n"
      "  for (int o = 16; o > 0; o >>= 1) n += __shfl_down_sync(0xffffffffu, n, o);\n"
      "  if (lane == 0) part[warp] = n;\n"
      "  if (b >= batch) {\n"
      "    return;  // past the batch\n"
      "  }\n"
      "  asm volatile(\"st.shared.u32 [%0], %1;\" :: \"r\"(a), \"r\"(v) : \"memory\");\n"
      "  asm volatile(\"fence.proxy.async;\" ::: \"memory\");\n"
      "  return v;\n"
      "}\n";
  EXPECT_EQ(print(body), golden);
}

TEST(AstPasses, FoldingKeepsExplicitSpellings) {
  // Parentheses written on purpose and literals with a suffix or a fixed hex width are text the emitter chose.
  EXPECT_EQ(printExpr(foldConstants(bin("*", paren(lit(0)), lit(40)))), "(0) * 40");
  EXPECT_EQ(printExpr(foldConstants(bin("+", ulit(1), ulit(2)))), "1u + 2u");
  EXPECT_EQ(printExpr(foldConstants(bin("|", hexLit(0x1100, 4), lit(0)))),
            "0x1100");  // x | 0 is x whatever x's spelling
  EXPECT_EQ(printExpr(foldConstants(unary("-", lit(3)))), "-3");
}

TEST(AstPasses, KeptLiteralsSurviveFolding) {
  // keptLit: an identity the folder would drop (`+ 0`, `* 1`) stays as the kernel has always spelled it.
  EXPECT_EQ(printExpr(foldConstants(bin("+", var("wf_smem"), keptLit(0)))), "wf_smem + 0");
  EXPECT_EQ(printExpr(foldConstants(bin("+", bin("*", var("r"), keptLit(1)), var("p0")))), "r * 1 + p0");
  EXPECT_EQ(printExpr(foldConstants(bin("+", var("wf_smem"), lit(0)))), "wf_smem");
  EXPECT_EQ(printExpr(bin("<", var("re"), decimal(-2147483647, IntSuffix::UpperLL))), "re < -2147483647LL");
}

TEST(AstPrinter, SharedArraysOfSeveralExtents) {
  NodePtr body = block({
      sharedArray("wf_u32", "stage_in_all", {lit(4), bin("*", lit(2), lit(256))}, 16),
      sharedArray("unsigned", "pfb_sat", {lit(8), lit(2)}),
      sharedArray("wf_u32", "phase_table", {bin("*", lit(3), lit(32))}),
      externSharedArray("wf_u32", "stage_dynamic", 16),
      withNote(sharedArray("float2", "pfb_dl", 16), "(d, phi / pi)", 6),
  });
  const char* golden =
      "{\n"
      "  __shared__ __align__(16) wf_u32 stage_in_all[4][2 * 256];\n"
      "  __shared__ unsigned pfb_sat[8][2];\n"
      "  __shared__ wf_u32 phase_table[3 * 32];\n"
      "  extern __shared__ __align__(16) wf_u32 stage_dynamic[];\n"
      "  __shared__ float2 pfb_dl[16];      // (d, phi / pi)\n"
      "}\n";
  EXPECT_EQ(print(body), golden);
  // The extents are not operands: folding leaves `2 * 256` as written.
  EXPECT_EQ(print(foldConstants(body)), golden);
}

TEST(AstPrinter, PointersToBlocksOfRows) {
  const Type sb = Type("wf_u32").blocksOf(2, 36);
  EXPECT_EQ(sb.str(), "wf_u32 (*)[2][36]");
  EXPECT_EQ(print(decl(sb, "sb", cast(sb, bin("+", bin("+", var("wf_smem"), keptLit(0)), decimal(2304))))),
            "wf_u32 (*sb)[2][36] = (wf_u32 (*)[2][36])(wf_smem + 0 + 2304);\n");
  EXPECT_EQ(print(decl(Type("wf_u32").rowsOf(36), "sa", cast(Type("wf_u32").rowsOf(36), var("wf_smem")))),
            "wf_u32 (*sa)[36] = (wf_u32 (*)[36])wf_smem;\n");
  EXPECT_FALSE(Type("wf_u32").blocksOf(2, 36) == Type("wf_u32").rowsOf(36));
}

TEST(AstPrinter, WhileLoopsAndOneLineIfs) {
  NodePtr body = block({
      whileUnbraced(bin(">", bin("/", bin("*", var("tj"), bin("+", var("tj"), lit(1))), lit(2)), var("tile")),
                    exprStmt(unary("--", var("tj")))),
      whileLoop(bin("<", var("i"), lit(4)), block({assign(var("i"), lit(1), "+=")})),
      ifUnbraced(bin("%", var("combo"), lit(2)), assign(var("sat1"), var("c"), "+="),
                 assign(var("sat0"), var("c"), "+=")),
      ifUnbraced(var("p"), block({assign(var("a"), lit(1)), assign(var("b"), lit(2))})),
      forUnbraced(decl("int", "w", lit(0)), bin("<", var("w"), lit(4)), exprStmt(unary("++", var("w"))),
                  block({assign(var("n0"), index(var("s"), var("w")), "+=")})),
      ifChain({{bin("!=", var("pair"), lit(0)), block({assign(var("za"), var("x"))})},
               {bin("<", var("item"), lit(8)), block({assign(var("za"), var("y"))})}},
              block({assign(var("za"), var("z"))})),
  });
  const char* golden =
      "{\n"
      "  while (tj * (tj + 1) / 2 > tile) --tj;\n"
      "  while (i < 4) {\n"
      "    i += 1;\n"
      "  }\n"
      "  if (combo % 2) sat1 += c; else sat0 += c;\n"
      "  if (p) { a = 1; b = 2; }\n"
      "  for (int w = 0; w < 4; ++w) { n0 += s[w]; }\n"
      "  if (pair != 0) { za = x; }\n"
      "  else if (item < 8) { za = y; }\n"
      "  else { za = z; }\n"
      "}\n";
  EXPECT_EQ(print(body), golden);
}
