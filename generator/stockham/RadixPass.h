#pragma once
// Radix passes: pass p of a kernel turns sub-transforms of length ns into ones of length ns R (Stockham autosort:
// butterfly j reads x[j + r L / R] and writes slot (j / ns) ns R + j % ns + r ns). A strategy per kind of radix:
//   ButterflyPass.cpp     one thread holds a whole radix-R butterfly (Butterfly.h), any number per thread;
//   CoopPrimePass.cpp     a prime 37..127 computed by several threads per butterfly from shared memory (CoopRadix.h);
//   StreamedPrimePass.cpp such a prime computed whole by one thread, outputs stored pair by pair;
//   RealFusion.cpp        the last pass of an r2c kernel with the split fused (mirrored butterfly pairs).
// The helpers below are what they share: the butterfly's inputs (with the direct first read, the c2r merge, the
// Bluestein kernel and the twiddles) and the addresses of its output slots.
#include <string>
#include <vector>

#include "generator/stockham/AstComplexOps.h"
#include "generator/stockham/KernelContext.h"

namespace warpforge {

class RadixPass {
 public:
  virtual ~RadixPass() = default;
  // The statements of pass p (sub-transforms ns -> ns R), in one block.
  virtual ast::NodePtr emit(KernelContext& k, int p, long long ns) const = 0;
};

const RadixPass& butterflyPass();      // ButterflyPass.cpp
const RadixPass& coopPrimePass();      // CoopPrimePass.cpp
const RadixPass& streamedPrimePass();  // StreamedPrimePass.cpp
const RadixPass& realSplitPass();      // RealFusion.cpp
// The strategy that emits pass p of the kernel.
const RadixPass& radixPassFor(const KernelContext& k, int p);

// The inputs of butterfly `jInit` of pass p (declared as j<sfx>), read from global memory (a direct first pass) or
// shared memory and multiplied by their twiddles: what the radix-R DFT takes.
std::vector<ast::AstComplexOps::C> butterflyInputs(const KernelContext& k, std::vector<ast::NodePtr>& bf, int p,
                                                   long long ns, const std::string& sfx, const ast::NodePtr& jInit);
// A butterfly input held in a named register across the last pass's barrier (KernelGeometry::prefetch): declared in
// `st` as `name`, returned as that variable.
ast::AstComplexOps::C heldInput(const KernelContext& k, std::vector<ast::NodePtr>& st, const ast::AstComplexOps::C& x,
                                const std::string& name);
// The prefetching last pass's middle: the barrier after its reads, then the next group's copy (taken from k, which
// the emitter checks was issued).
void issueNextGroupCopy(KernelContext& k, std::vector<ast::NodePtr>& st);
// The first slot of butterfly j's outputs: (j / ns) ns R + j % ns.
ast::NodePtr butterflyBase(const ast::NodePtr& j, int R, long long ns);

// How a pass addresses its outputs' Stockham slots base(b) + r ns in padded shared memory: from pb = pad(fbase + base)
// by a constant per r where the padding allows it, else through wf_pad per output.
struct SlotForm {
  bool small = false;  // pad(b + r ns) = pad(b) + r ns + r ns / G
  bool large = false;  // pad(b + r ns) = pad(b) + r (ns + ns / G)
  bool needsPb() const { return small || large; }
};
SlotForm slotForm(const KernelContext& k, int R, long long ns);
// Destination of output r of the butterfly whose base (and, where slotForm needs it, pb) the caller declared.
ast::NodePtr outputSlot(const KernelContext& k, int R, long long ns, int r);
// outputSlot for a run-time r.
ast::NodePtr outputSlotAt(const KernelContext& k, int R, long long ns, const ast::NodePtr& r);

}  // namespace warpforge
