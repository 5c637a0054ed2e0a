// The README's examples work as written: every ```json block is a spec that parses and verifies.
#include <gtest/gtest.h>

#include "TestUtil.h"
#include "warpforge/family.h"

namespace warpforge {
namespace {

TEST(Readme, EveryJsonBlockIsASpecThatVerifies) {
  const std::string text = test::readFile(test::sourcePath("README.md"));
  int blocks = 0;
  for (std::size_t at = text.find("```json\n"); at != std::string::npos; at = text.find("```json\n", at + 1)) {
    const std::size_t begin = at + 8, end = text.find("```", begin);
    ASSERT_NE(end, std::string::npos);
    const std::string block = text.substr(begin, end - begin);
    SCOPED_TRACE(block.substr(0, 120));
    auto spec = parseSpecText(block, "README.md block " + std::to_string(++blocks));
    EXPECT_NO_THROW(spec->verify());
  }
  EXPECT_GE(blocks, 3) << "one example per family";
}

TEST(Readme, LinksStayInsideTheRepository) {
  const std::string text = test::readFile(test::sourcePath("README.md"));
  EXPECT_EQ(text.find("../shared"), std::string::npos);
  EXPECT_EQ(text.find("](../"), std::string::npos);
}

}  // namespace
}  // namespace warpforge
