#pragma once
// The in-memory form of a `tc_fft` spec (see specs/chime_fft_256_512.json).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "generator/layout/Layout.h"

namespace warpforge {

// E(q_J, n_K) for the bit sets J (q) and K (n): eq. (6) of the CHIME note.
struct PhaseFactor {
  std::vector<int> q, n;
};

struct ArraySpec {
  std::string name;
  std::string path;                // JSON pointer, for messages
  Layout layout;                   // operand layout
  std::optional<PhaseFactor> phase;
  std::optional<Layout> stored;    // packed form kept in registers (eqs. 26, 28, 29)
  bool isPhase() const { return phase.has_value(); }
};

enum class StepOp { Mma, Cmul, Relayout };

struct StepSpec {
  StepOp op;
  std::string path;                // "/steps/2"
  std::string shape;               // mma only
  std::string a, b, c;             // a = phase operand, b = data in, c = data out
  std::vector<std::string> sum;    // mma only: logical n-bits summed
};

struct TcFftSpec {
  std::string file;
  std::string name;
  std::string precision;           // "f16"
  int nIn = 0, nOut = 0;
  int sign = +1;                   // E(q, n) = exp(sign * 2 pi i q n / nOut)
  int logIn = 0, logOut = 0;
  std::vector<ArraySpec> arrays;   // in file order
  std::vector<StepSpec> steps;
  std::string input, output;
  // Optional launch tuning for the emitter.
  int warpsPerBlock = 4;

  const ArraySpec* array(const std::string& name) const;
  ArraySpec* array(const std::string& name);
};

// Parses and checks the form of a spec (fields, names, sizes, layout syntax).
// Consistency between steps is the Verifier's job.
TcFftSpec parseSpecFile(const std::string& file);
TcFftSpec parseSpecText(const std::string& text, const std::string& file);

}  // namespace warpforge
