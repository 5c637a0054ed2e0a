#include "generator/complexmma/SaturationCount.h"

#include <fmt/format.h>

namespace warpforge::cmma {

using namespace ast;

std::vector<PlanBuffer> saturationCountBuffers(const std::string& savedNote, const std::string& countNote,
                                               const std::string& doneNote) {
  PlanBuffer sat;
  sat.name = "saturated";
  sat.role = BufferRole::Output;
  sat.elementType = "unsigned long long";
  sat.elementBytes = 8;
  sat.fixedElems = 1;
  sat.note = savedNote;
  PlanBuffer count = sat;
  count.name = "sat_count";
  count.role = BufferRole::Counter;
  count.note = countNote;
  PlanBuffer done = count;
  done.name = "blocks_done";
  done.elementType = "unsigned int";
  done.elementBytes = 4;
  done.note = doneNote;
  return {sat, count, done};
}

std::vector<NodePtr> publishSaturationCount(const std::string& parts, int warps) {
  std::vector<NodePtr> last;
  last.push_back(decl("unsigned long long", "total", lit(0)));
  last.push_back(forUnbraced(decl("int", "i", lit(0)), bin("<", var("i"), lit(warps)), unary("++", var("i")),
                             assign(var("total"), index(var(parts), var("i")), "+=")));
  last.push_back(ifUnbraced(var("total"), exprStmt(call("atomicAdd", {var("sat_count"), var("total")}))));
  last.push_back(exprStmt(call("__threadfence", {})));
  // The last block to finish moves the total out and leaves both counters zero for the next call.
  last.push_back(ifStmt(bin("==", call("atomicAdd", {var("blocks_done"), ulit(1)}), bin("-", var("gridDim.x"), lit(1))),
                        block({exprStmt(call("__threadfence", {})),
                               assign(index(var("saturated"), lit(0)),
                                      call("atomicExch", {var("sat_count"), lit(0, IntSuffix::ULL)})),
                               exprStmt(call("atomicExch", {var("blocks_done"), ulit(0)}))})));
  return last;
}

}  // namespace warpforge::cmma
