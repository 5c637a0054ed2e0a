#include <atomic>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "generator/core/ParallelFor.h"

namespace warpforge {
namespace {

// Every index runs exactly once, whatever the number of cores; none for an empty range.
TEST(ParallelFor, EachIndexOnce) {
  for (const long long count : {0LL, 1LL, 7LL, 1000LL}) {
    std::vector<std::atomic<int>> runs(static_cast<std::size_t>(count));
    parallelFor(count, [&](long long i) { ++runs[static_cast<std::size_t>(i)]; });
    for (long long i = 0; i < count; ++i)
      EXPECT_EQ(runs[static_cast<std::size_t>(i)].load(), 1) << i << " of " << count;
  }
}

// A call that throws does not stop the others; its exception reaches the caller after the threads have joined.
TEST(ParallelFor, RethrowsAfterEveryIndexRan) {
  std::atomic<int> ran{0};
  EXPECT_THROW(parallelFor(100,
                           [&](long long i) {
                             ++ran;
                             if (i == 37) throw std::runtime_error("index 37");
                           }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 100);
}

}  // namespace
}  // namespace warpforge
