#pragma once
// A LaunchPlan as JSON: what `warpforge emit --plan-json` writes and what the runtime loads and runs without
// the generator (warpforge::runtime alone). The format is "warpforge-plan-1":
//   {"format", "generator", "made_for", "spec_name", "family", "unit", "min_arch", "only_arch", "helpers": [{"name",
//   "text"}],
//    "sources": [{"file", "arch_specific", "text", "cubins": {"sm_90": {"file" | "base64", "bytes", "checksum"}}}],
//    "buffers": [{"name", "role", "element_type", "element_bytes", "per_batch_elems", "fixed_elems", "per_batch_param",
//                 "alignment", "alias_of", "max_batch", "scalar", "contents": {"file" | "base64", "bytes", "checksum"},
//                 "note"}],
//    "params": [{"name", "c_type", "default", "min", "multiple_of", "note"}],
//    "kernels": [{"name", "source", "block": [x, y], "shared_bytes", "grid": {"units_per_batch", "units_per_block",
//                 "cap_at_resident"}, "args": [{"kind", "name", "value", "c_type", "param"}], "note"}]}
// Large tables and CUBINs may live in files beside the JSON (named relative to it, each with its size and checksum).
#include <stdexcept>
#include <string>
#include <vector>

#include "warpforge/json.h"
#include "warpforge/launch_plan.h"

namespace warpforge {

inline constexpr const char* kPlanFormat = "warpforge-plan-1";

// A plan file that cannot be loaded: the file, the JSON pointer (RFC 6901) of the value, what is wrong and what was
// expected. Also thrown for a referenced table or CUBIN file that is missing or does not match its checksum.
class PlanError : public std::runtime_error {
 public:
  PlanError(std::string file, std::string path, std::string what);
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  const std::string& detail() const { return detail_; }

 private:
  std::string file_, path_, detail_;
};

struct PlanJsonInfo {
  std::string format = kPlanFormat;
  std::string generator;  // "warpforge 0.6.0 (<generator id>)": who made the plan
  std::string madeFor;    // the target the generator made it for ("sm_90"); it runs on any arch >= min_arch
};

// The plan as JSON. With `files` null, table contents and CUBINs are inline (base64); otherwise tables of more than
// kInlineTableBytes and every CUBIN are appended to *files (names relative to the JSON file) and referenced by name.
Json planToJson(const LaunchPlan& plan, const PlanJsonInfo& info = {}, std::vector<PlanFile>* files = nullptr);

// Reads a plan back; files it names are read from `dir`. Throws PlanError naming `file` and the JSON path.
LaunchPlan planFromJson(const Json& json, const std::string& file, const std::string& dir,
                        PlanJsonInfo* info = nullptr);

// A plan file (and the files it names, beside it).
LaunchPlan loadPlanJson(const std::string& path, PlanJsonInfo* info = nullptr);

// Writes `<dir>/<spec name>_plan.json` and the files it names; returns the JSON file's path. Throws
// std::runtime_error naming the file that could not be written.
std::string savePlanJson(const LaunchPlan& plan, const std::string& dir, const PlanJsonInfo& info = {});

}  // namespace warpforge
