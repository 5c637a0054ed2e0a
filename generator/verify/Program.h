#pragma once
// A layout program: register-layout arrays and the steps between them (mma, cmul, relayout),
// as a tensor-core family spec describes them (e.g. specs/chime_fft_256_512.json). The verifier
// proves it consistent; the emulator runs it.
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
  std::string path;         // JSON pointer, for messages
  std::string description;  // free text (kept for `synthesize`'s output)
  Layout layout;            // operand layout
  // Phase arrays: the product of the factors E(q_J, n_K) (one or more rectangles of bit pairs). Empty: a data array.
  std::vector<PhaseFactor> phase;
  std::vector<std::string> constantOver;  // data bits a phase array carries without depending on them
  std::optional<Layout> stored;           // packed form kept in registers (eqs. 26, 28, 29)
  bool isPhase() const { return !phase.empty(); }
};

enum class StepOp { Mma, Cmul, Relayout };

struct StepSpec {
  StepOp op;
  std::string path;              // "/steps/2"
  std::string shape;             // mma only
  std::string a, b, c;           // a = phase operand, b = data in, c = data out
  std::vector<std::string> sum;  // mma only: logical n-bits summed
  std::string description;       // free text (kept for `synthesize`'s output)
};

struct LayoutProgram {
  std::string file;
  std::string name;
  std::string precision;  // "f16"
  // MMA accumulators: "f16" (f16 C), or "f32" (f32 C from zero, kept in f32 through a complex multiply that follows
  // directly, rounded to __half2 once before the next relayout or MMA); the reason is the spec's choice or `auto`'s
  // comparison of the error bounds against max_error (0: no accuracy asked).
  std::string accumulate = "f16";
  std::string accumulateReason;
  double maxError = 0;
  int nIn = 0, nOut = 0;
  int sign = +1;  // E(q, n) = exp(sign * 2 pi i q n / nOut)
  int logIn = 0, logOut = 0;
  std::vector<ArraySpec> arrays;  // in file order
  std::vector<StepSpec> steps;
  std::string input, output;
  // Optional launch tuning for the emitter.
  int warpsPerBlock = 4;
  std::string description;  // the spec's description (kept for `synthesize`'s output)

  // FFTs one warp holds: 2^(batch bits f0, f1, ... of the input array).
  int batchBits() const {
    const ArraySpec* in = array(input);
    int f = 0;
    if (in)
      for (const auto& l : in->layout.logicalBits()) f += l[0] == 'f';
    return f;
  }

  // With f32 accumulation: does MMA step i hand its f32 results straight to step i + 1, a complex multiply that is the
  // only reader of its output (which is not the program's output)? That multiply then runs in f32 and rounds to
  // __half2 once; every other MMA rounds its own results (relayouts move 32-bit words).
  bool f32Handoff(std::size_t i) const {
    if (accumulate != "f32" || i + 1 >= steps.size()) return false;
    const StepSpec &m = steps[i], &c = steps[i + 1];
    if (m.op != StepOp::Mma || c.op != StepOp::Cmul || c.b != m.c || m.c == output) return false;
    for (std::size_t j = 0; j < steps.size(); ++j)
      if (j != i + 1 && (steps[j].b == m.c || steps[j].a == m.c)) return false;
    return true;
  }

  // Inline: the verifier and emulator (warpforge_layout) use them, and no family may own them.
  const ArraySpec* array(const std::string& n) const {
    for (const auto& a : arrays)
      if (a.name == n) return &a;
    return nullptr;
  }
  ArraySpec* array(const std::string& n) {
    for (auto& a : arrays)
      if (a.name == n) return &a;
    return nullptr;
  }
};

}  // namespace warpforge
