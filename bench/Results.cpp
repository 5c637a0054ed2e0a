#include "bench/Results.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

namespace warpforge {

using Json = nlohmann::ordered_json;

Json resultToJson(const ResultRecord& r) {
  Json j;
  j["family"] = r.family;
  j["case"] = r.caseName;
  j["device"] = r.device;
  j["date"] = r.date;
  j["command"] = r.command;
  j["figure"] = r.figure;
  if (!r.anchor.empty()) j["anchor"] = r.anchor;
  if (r.ratio) j["ratio"] = *r.ratio;
  if (!r.metrics.empty()) j["metrics"] = r.metrics;
  if (!r.note.empty()) j["note"] = r.note;
  return j;
}

namespace {

std::string text(const Json& j, const char* key, const std::string& where, bool required) {
  if (!j.contains(key)) {
    if (required) throw std::invalid_argument(fmt::format("{}: missing \"{}\" (a string)", where, key));
    return {};
  }
  if (!j[key].is_string())
    throw std::invalid_argument(fmt::format("{}: \"{}\" must be a string, found {}", where, key, j[key].type_name()));
  return j[key].get<std::string>();
}

bool isDate(const std::string& d) {
  if (d.size() != 10 || d[4] != '-' || d[7] != '-') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (d[i] < '0' || d[i] > '9') return false;
  return true;
}

// A table cell: one line, pipes escaped.
std::string cell(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '|') o += "\\|";
    else if (c == '\n') o += ' ';
    else o += c;
  }
  return o;
}

}  // namespace

ResultRecord resultFromJson(const Json& j, const std::string& where) {
  if (!j.is_object())
    throw std::invalid_argument(
        fmt::format("{}: expected a JSON object (one result record), found {}", where, j.type_name()));
  ResultRecord r;
  r.family = text(j, "family", where, true);
  r.caseName = text(j, "case", where, true);
  r.device = text(j, "device", where, true);
  r.date = text(j, "date", where, true);
  r.command = text(j, "command", where, true);
  r.figure = text(j, "figure", where, true);
  r.anchor = text(j, "anchor", where, false);
  r.note = text(j, "note", where, false);
  if (!isDate(r.date)) throw std::invalid_argument(fmt::format("{}: \"date\" {} is not YYYY-MM-DD", where, r.date));
  for (const char* key : {"family", "case", "device", "command", "figure"})
    if (j[key].get<std::string>().empty()) throw std::invalid_argument(fmt::format("{}: \"{}\" is empty", where, key));
  if (j.contains("ratio")) {
    if (!j["ratio"].is_number())
      throw std::invalid_argument(
          fmt::format("{}: \"ratio\" must be a number, found {}", where, j["ratio"].type_name()));
    r.ratio = j["ratio"].get<double>();
  }
  if (j.contains("metrics")) {
    if (!j["metrics"].is_object())
      throw std::invalid_argument(fmt::format("{}: \"metrics\" must be an object of numbers", where));
    for (auto it = j["metrics"].begin(); it != j["metrics"].end(); ++it)
      if (!it.value().is_number())
        throw std::invalid_argument(fmt::format("{}: metrics.{} must be a number", where, it.key()));
    r.metrics = j["metrics"];
  }
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "family" && it.key() != "case" && it.key() != "device" && it.key() != "date" &&
        it.key() != "command" && it.key() != "figure" && it.key() != "anchor" && it.key() != "ratio" &&
        it.key() != "metrics" && it.key() != "note")
      throw std::invalid_argument(fmt::format("{}: unknown member \"{}\"", where, it.key()));
  return r;
}

std::vector<ResultRecord> readResults(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(fmt::format("{}: cannot read", path));
  std::vector<ResultRecord> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = fmt::format("{}:{}", path, n);
    Json j;
    try {
      j = Json::parse(line);
    } catch (const std::exception& e) {
      throw std::invalid_argument(fmt::format("{}: not JSON: {}", where, e.what()));
    }
    out.push_back(resultFromJson(j, where));
  }
  return out;
}

void appendResult(const std::string& path, const ResultRecord& r) {
  resultFromJson(resultToJson(r), "the record to append");  // a record the reader would refuse is never written
  std::ofstream out(path, std::ios::app);
  if (!out) throw std::invalid_argument(fmt::format("--record: cannot write {}", path));
  out << resultToJson(r).dump() << "\n";
  if (!out.flush()) throw std::invalid_argument(fmt::format("--record: cannot write {}", path));
}

std::string todayUtc() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  return fmt::format("{:04}-{:02}-{:02}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

std::string resultsMarkdown(const std::vector<ResultRecord>& records, const std::string& sourceName) {
  // family -> (case, device) keys in first-seen order, and the newest record of each key.
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> keys;
  std::map<std::pair<std::string, std::pair<std::string, std::string>>, const ResultRecord*> newest;
  for (const auto& r : records) {
    const auto key = std::make_pair(r.caseName, r.device);
    auto& k = keys[r.family];
    if (std::find(k.begin(), k.end(), key) == k.end()) k.push_back(key);
    const ResultRecord*& best = newest[{r.family, key}];
    if (!best || r.date >= best->date) best = &r;
  }
  std::string o = fmt::format(
      "# Benchmark results\n\n"
      "The current figures, one table per family. Generated from `{0}` by `warpforge results {0} -o "
      "bench/RESULTS.md`:\n"
      "do not edit by hand. `warpforge bench SPEC --record {0}` appends a measurement; each row is the newest record\n"
      "of its case and device, and older records stay in the file's git history.\n\n"
      "\"anchor\" is what the same run measured beside ours: the library users would otherwise call, or the bound the\n"
      "figure is a share of. \"ratio\" is how many times faster than the anchor ours ran (its time over ours, our rate "
      "over\n"
      "its), for a sweep the geometric mean over the cases, for a bound the share of it.\n",
      sourceName);
  for (const auto& [family, cases] : keys) {
    o += fmt::format(
        "\n## {}\n\n| case | figure | anchor (same run) | ratio | device | date | command |\n| --- | --- | --- | --- | "
        "--- | --- | --- |\n",
        family);
    std::vector<std::string> notes;  // numbered below the table; rows with the same note share its number
    for (const auto& key : cases) {
      const ResultRecord& r = *newest[{family, key}];
      std::string name = cell(r.caseName);
      if (!r.note.empty()) {
        auto at = std::find(notes.begin(), notes.end(), r.note);
        if (at == notes.end()) at = notes.insert(notes.end(), r.note);
        name += fmt::format(" ({})", at - notes.begin() + 1);
      }
      o += fmt::format("| {} | {} | {} | {} | {} | {} | `{}` |\n", name, cell(r.figure),
                       r.anchor.empty() ? "-" : cell(r.anchor), r.ratio ? fmt::format("{:.2f}x", *r.ratio) : "-",
                       cell(r.device), r.date, cell(r.command));
    }
    if (!notes.empty()) o += "\n";
    for (std::size_t i = 0; i < notes.size(); ++i) o += fmt::format("({}) {}\n", i + 1, cell(notes[i]));
  }
  return o;
}

}  // namespace warpforge
