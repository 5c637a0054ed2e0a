#pragma once
// A family's CPU reference, as a user drives it: random inputs for a run (FamilySpec::randomInputs) and the
// comparison of that run's outputs with the reference (FamilySpec::check).
#include <any>
#include <map>
#include <string>
#include <vector>

namespace warpforge {

// Inputs for one run: the bytes of every Input buffer of the plan, plus whatever the
// family keeps to compute its reference (logical values before they were stored).
struct TestData {
  std::map<std::string, std::vector<unsigned char>> arrays;
  std::any logical;
  // Where a binding hands the data to a user (Python): the spec (its JSON) and batch they were drawn for, so that a
  // check of another spec or batch is refused instead of reading past the arrays. Empty / -1 otherwise.
  std::string madeFor;
  long long madeForBatch = -1;
};

// The outcome of comparing a run's outputs with the reference.
struct Check {
  long long checked = 0;    // batch entries compared with the reference
  long long unwritten = 0;  // output elements still holding the poison (or non-finite)
  double error = 0;         // max over checked entries of ||out - ref|| / ||ref||; exact paths: mismatching elements
  double bound = 0;         // error must not exceed this
  bool exact = false;       // integer path: error counts mismatches and bound is 0
  std::string detail;       // what was compared, how the bound is justified
  bool ok() const { return unwritten == 0 && error <= bound && error == error; }
};

}  // namespace warpforge
