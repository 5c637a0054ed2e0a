#pragma once
// One complex element between a user array (or scratch) and the kernel's registers: the storage's conversions (half,
// complex int8 / int4, real pairs, planar), the natural-index tables and bounds, the four-step twiddle of a column
// kernel's store. The tilings and the passes that touch global memory themselves all read and write through these.
#include <string>
#include <vector>

#include "generator/stockham/KernelContext.h"

namespace warpforge {

// A real array read or written as complex pairs with one vector access.
bool realVector(const Access& a);

// The element of the kernel's input at scalar address addr, widened to the compute type.
ast::NodePtr loadValue(const KernelContext& k, const ast::NodePtr& addr);
// Statements storing complex v at scalar address addr of the kernel's output.
std::vector<ast::NodePtr> storeValue(const KernelContext& k, const ast::NodePtr& addr, const ast::NodePtr& v);

// Statements setting complex v to the input element at scalar address addr whose natural index is nat (a
// Hermitian input reads the conjugate mirror above N/2).
std::vector<ast::NodePtr> loadInto(const KernelContext& k, const ast::NodePtr& v, const ast::NodePtr& addr,
                                   const ast::NodePtr& nat);
// v = the element at addr, times the load table; under the in_valid bound where the kernel has one (`nat`, the
// natural index, declared from natExpr where the table or the bound needs it).
std::vector<ast::NodePtr> loadGuarded(const KernelContext& k, const ast::NodePtr& addr, const std::string& natType,
                                      const ast::NodePtr& natExpr);
// v times the store table, stored at addr, under the out_valid bound.
std::vector<ast::NodePtr> storeGuarded(const KernelContext& k, const ast::NodePtr& addr, const std::string& natType,
                                       const ast::NodePtr& natExpr);
// Stores complex `v` (declared by the caller) as element k of this thread's FFT, its start in the variable `base`:
// four-step twiddle, natural-index table and bound, storage conversion.
std::vector<ast::NodePtr> storeElement(const KernelContext& k, const ast::NodePtr& i, const std::string& base);
// v times the four-step twiddle W^(i d0) = big_lo[m % split] big_hi[m / split], m = i d0.
void fourStepTwiddle(const KernelContext& k, std::vector<ast::NodePtr>& out, const ast::NodePtr& i);

}  // namespace warpforge
