#pragma once
// The extent of a strided array, checked: every family with user strides computes the span of one
// batch entry here, so that no product or sum wraps past 2^63 (a wrapped span once passed the overlap
// check and gave a plan of 0 bytes per entry while the kernel read t * 2^40). An extent past the limit
// is a SpecError at the JSON path of the stride whose term is largest, saying what the span would be.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "warpforge/spec_error.h"

namespace warpforge {

// Elements one batch entry of any strided array may span (2^52: offsets stay exact in double and far
// below 2^63 after multiplying by an element's bytes and a batch).
inline constexpr long long kMaxExtentElems = 1LL << 52;

// One axis: indices 0..count-1, `stride` elements apart; `path` names the stride in the spec (or the
// member that sets it, for layouts the family derives).
struct ExtentAxis {
  long long count = 1, stride = 0;
  std::string path;
};

// 1 + sum of (count - 1) * stride over the axes (counts >= 1, strides >= 0), at most `limit`.
inline long long checkedExtent(const std::string& file, const std::vector<ExtentAxis>& axes, const std::string& what,
                               long long limit = kMaxExtentElems) {
  long long last = 0;
  bool over = false;
  long double exact = 1;
  std::size_t largest = 0;
  long double largestTerm = -1;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const ExtentAxis& a = axes[i];
    const long double term = static_cast<long double>(a.count - 1) * static_cast<long double>(a.stride);
    exact += term;
    if (term > largestTerm) largestTerm = term, largest = i;
    long long t = 0;
    over = over || a.count < 1 || a.stride < 0 || __builtin_mul_overflow(a.count - 1, a.stride, &t) ||
           __builtin_add_overflow(last, t, &last) || last >= limit;
  }
  if (over) {
    std::string terms;
    for (const ExtentAxis& a : axes)
      terms += fmt::format("{}{} x {}", terms.empty() ? "" : " + ", a.count - 1, a.stride);
    throw SpecError(file, axes.empty() ? "" : axes[largest].path,
                    fmt::format("the {} of one batch entry would span {:.4g} elements (1 + {}), more than the {:.4g} "
                                "(2^{}) a strided array may span; "
                                "check this stride",
                                what, static_cast<double>(exact), terms, static_cast<double>(limit),
                                63 - __builtin_clzll(static_cast<unsigned long long>(limit))));
  }
  return last + 1;
}

}  // namespace warpforge
