#pragma once
// Proves a layout program consistent (docs/layout-notation.md) and returns
// the resolved Plan. Every problem found is reported, not just the first.
#include <stdexcept>
#include <string>
#include <vector>

#include "generator/verify/Plan.h"

namespace warpforge {

struct VerifyIssue {
  std::string path;     // JSON pointer of the step or array
  std::string message;  // names the step, array, physical bit, expected vs found
};

class VerifyError : public std::runtime_error {
 public:
  VerifyError(std::string file, std::vector<VerifyIssue> issues);
  const std::vector<VerifyIssue>& issues() const { return issues_; }

 private:
  std::vector<VerifyIssue> issues_;
};

class Verifier {
 public:
  explicit Verifier(CostTable costs = {}) : costs_(costs) {}
  // Throws VerifyError listing every inconsistency.
  Plan verify(const LayoutProgram& spec) const;

 private:
  CostTable costs_;
};

}  // namespace warpforge
