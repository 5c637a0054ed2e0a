#pragma once
// A/B timing of two builds of one transform (same layout, different tuning) in one process: the same zero-filled buffers, both warmed up, then timed
// rep by rep as A, B, A again, so that the A-vs-A spread says how much of the A-vs-B
// difference is noise. Correctness is checked elsewhere (runStockham).
#include "generator/stockham/StockhamSpec.h"
#include "runtime/Runtime.h"
#include "runtime/StockhamExec.h"

namespace warpforge {

struct StockhamAbResult {
  double aMs = 0, aAgainMs = 0, bMs = 0;  // medians
};

StockhamAbResult abStockham(Runtime& rt, const StockhamSpec& a, const StockhamSpec& b, long long batch, int reps);

}  // namespace warpforge
