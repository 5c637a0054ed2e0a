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
  EXPECT_EQ(printExpr(dlit(0.70710678118654757)), "0.70710678118654757");  // full double precision, no suffix
  EXPECT_EQ(printExpr(lit(0xffffffffLL)), "0xffffffff");
}

TEST(AstPrinter, GoldenFunction) {
  NodePtr fn = function("extern \"C\" __global__ void", "", "k", {decl("int*", "out"), decl("int", "n")},
                        block({comment("one element per thread"), decl("const int", "i", member(var("threadIdx"), "x")),
                               ifStmt(bin("<", var("i"), var("n")), block({assign(index(var("out"), var("i")), bin("*", var("i"), lit(2)))})),
                               forLoop(decl("int", "r", lit(0)), bin("<", var("r"), lit(4)), assign(var("r"), lit(1), "+="),
                                       block({exprStmt(call("__syncwarp", {}))})),
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
  NodePtr b = block({decl("int", "unused", bin("+", var("x"), lit(1))),          // dead
                     decl("int", "chain", lit(2)), decl("int", "uses_chain", var("chain")),  // dead after one round
                     decl("int", "effect", call("atomicAdd", {var("p"), lit(1)})),  // kept: side effect
                     ifStmt(lit(0), block({exprStmt(call("f", {}))})),               // dead
                     block({}),                                                      // dead
                     decl("int", "used", lit(3)), assign(index(var("out"), lit(0)), var("used"))});
  std::string out = print(removeDeadCode(b));
  EXPECT_EQ(out.find("unused"), std::string::npos) << out;
  EXPECT_EQ(out.find("chain"), std::string::npos) << out;
  EXPECT_NE(out.find("atomicAdd"), std::string::npos) << out;
  EXPECT_EQ(out.find("f()"), std::string::npos) << out;
  EXPECT_NE(out.find("int used = 3;"), std::string::npos) << out;
}
