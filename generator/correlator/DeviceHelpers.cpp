#include "generator/correlator/DeviceHelpers.h"

#include "ast/Printer.h"
#include "generator/complexmma/ComplexMma.h"

namespace warpforge {

using namespace ast;


std::string correlatorDeviceHelpers(SampleType type) {
  std::vector<NodePtr> items;
  items.push_back(cmma::typedefU32());
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
