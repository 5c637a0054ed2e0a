#include "generator/correlator/DeviceHelpers.h"

#include "ast/Printer.h"
#include "generator/complexmma/ComplexMma.h"

namespace warpforge {

using namespace ast;


// ldmatrix .x4 (sm_75+), `a` a shared-window address: lane L gives the address of row L % 8 of 8 x 16-byte matrix L / 8; register i of
// lane l receives bytes 4 (l % 4) .. + 3 of row l / 4 of matrix i. volatile with a memory clobber: the
// address is a plain integer, so the compiler must not move the staging stores across it.
NodePtr ldmatrixFn() {
  return raw(
      "static __device__ __forceinline__ void corr_ldsm4(unsigned a, wf_u32& r0, wf_u32& r1, wf_u32& r2, wf_u32& r3) {\n"
      "  asm volatile(\"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\" : \"=r\"(r0), \"=r\"(r1), \"=r\"(r2), \"=r\"(r3)"
      " : \"r\"(a) : \"memory\");\n"
      "}");
}

std::string correlatorDeviceHelpers(SampleType type) {
  std::vector<NodePtr> items;
  items.push_back(cmma::typedefU32());
  items.push_back(ldmatrixFn());
  if (type == SampleType::CF16) {
    items.push_back(cmma::conjPermFn("corr_", true));
    items.push_back(cmma::mmaFn("corr_", true));
  } else {
    items.push_back(cmma::clampFn("corr_", 8));
    items.push_back(cmma::clampFn("corr_", 4));
    if (type == SampleType::CI4) {
      items.push_back(cmma::widen4Fn("corr_", true));
      items.push_back(cmma::widen4Fn("corr_", false));
      items.push_back(cmma::widen1Fn("corr_", true));
      items.push_back(cmma::widen1Fn("corr_", false));
    }
    items.push_back(cmma::conjPermFn("corr_", false));
    items.push_back(cmma::mmaFn("corr_", false));
  }
  return print(unit(items));
}

}  // namespace warpforge
