#pragma once
// Memory safety of the user's arrays: the extent of every array in checked
// 64-bit arithmetic, outputs whose elements collide within one batch entry
// rejected, and the largest batch whose entries write disjoint elements (an
// interleaved layout such as element stride 4, distance 1 keeps 4 entries apart).
#include <string>
#include <vector>

#include "generator/stockham/StockhamSpec.h"

namespace warpforge {

// Largest elements one batch entry may span (offset included): addresses and bytes
// (x 16 for double2) stay far inside 64 bits for any batch the executor accepts.
constexpr long long kStockhamMaxEntryElems = 1LL << 52;

// Elements one entry spans (last address + 1), checked: a SpecError at `path` + "/strides"
// (or "/stride", "/offset") when it overflows or exceeds kStockhamMaxEntryElems.
long long stockhamCheckedSpan(const StockhamIo& io, const std::vector<long long>& shape, const std::string& file,
                              const std::string& path);

// Whether two distinct elements of one entry share an address. Throws SpecError at
// path + "/strides" where the search would exceed its budget (pathological 3D strides).
bool stockhamEntryOverlaps(const StockhamIo& io, const std::vector<long long>& shape, const std::string& file,
                           const std::string& path);

// The largest batch whose entries are pairwise disjoint (-1: any batch), for a layout
// without overlap within an entry.
long long stockhamMaxBatch(const StockhamIo& io, const std::vector<long long>& shape, const std::string& file,
                           const std::string& path);

// All of the above for a parsed spec: SpecErrors for extents that overflow, outputs that
// overlap within an entry, and outputs whose first two entries already overlap.
void checkStockhamLayouts(const StockhamSpec& spec);

}  // namespace warpforge
