#pragma once
// Benchmark results as data: bench/results.jsonl holds one JSON record per measurement (family, case, device,
// date, command, figure, the anchor timed in the same run and the ratio to it); `warpforge bench --record FILE`
// appends one, and `warpforge results FILE` writes bench/RESULTS.md from it: per family the newest record of
// each case and device (older records stay in the file and in git history).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace warpforge {

struct ResultRecord {
  std::string family;           // the family's registered name
  std::string caseName;         // "c2c f32 4096", "random sweep, 300 cases"
  std::string device;           // "NVIDIA H100 80GB HBM3"
  std::string date;             // YYYY-MM-DD
  std::string command;          // the command line that measured it
  std::string figure;           // what was measured, as printed: "0.1932 ms, 2875 GB/s (97% of the copy)"
  std::string anchor;           // what the same run timed beside it: "cuFFT 0.1921 ms"; empty where nothing was
  std::optional<double> ratio;  // anchor time / ours (above 1: faster than the anchor); sweeps: the geometric mean
  nlohmann::ordered_json metrics = nlohmann::ordered_json::object();  // the figures as numbers ("ms", "geomean", ...)
  std::string note;  // anything a reader must know to compare it (seed, op count, what the anchor leaves out)
};

nlohmann::ordered_json resultToJson(const ResultRecord& r);
// Throws std::invalid_argument naming `where` (file:line) and the member that is missing or of the wrong type.
ResultRecord resultFromJson(const nlohmann::ordered_json& j, const std::string& where);

// Reads every record of a results file (blank lines skipped); errors name the file and line.
std::vector<ResultRecord> readResults(const std::string& path);
// Appends one record as one line; std::invalid_argument if the file cannot be written.
void appendResult(const std::string& path, const ResultRecord& r);

// Today's date (UTC) as YYYY-MM-DD: the date of a record made now.
std::string todayUtc();

// The markdown of bench/RESULTS.md: one table per family (families in name order, cases in the order the file
// first names them), each row the newest record of its case and device (the later line wins on the same date).
std::string resultsMarkdown(const std::vector<ResultRecord>& records, const std::string& sourceName);

}  // namespace warpforge
