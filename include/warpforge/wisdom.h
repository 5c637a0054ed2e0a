#pragma once
// Wisdom, as FFTW's: the tuning `warpforge bench --tune` found best for a spec on a device, kept in
// the cache directory (<cache>/wisdom.json) and applied to later plans of the same spec on the same
// device (name, architecture, driver version) when the spec gives no tuning of its own.
//
// Family-free: an entry holds the spec members the tuner printed (e.g. {"tuning": {...}}), merged into
// the spec's root before it is parsed. The spec is matched by a hash of its canonical JSON without
// "name", "description" and those members, so renaming a spec keeps its wisdom.
//
// The file is handled as the kernel cache is (runtime/Cache): the directory is created 0700 and used
// only while it is ours and writable by nobody else; the file is opened without following links,
// read only if a regular file of ours, replaced by an atomic rename; a corrupt file is ignored with
// a warning (and replaced by the next record()).
//
//   auto spec = warpforge::loadSpecWithWisdom("my_fft.json", &note);   // note: "using wisdom from ..."
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "warpforge/family.h"
#include "warpforge/json.h"

namespace warpforge {

struct WisdomDevice {
  std::string name, arch;
  int driverVersion = 0;  // cuDriverGetVersion: 13000 for CUDA 13.0
  bool operator==(const WisdomDevice& o) const {
    return name == o.name && arch == o.arch && driverVersion == o.driverVersion;
  }
  bool operator!=(const WisdomDevice& o) const { return !(*this == o); }
};
// Device `ordinal`'s identity (needs the driver; throws std::runtime_error without one).
WisdomDevice currentWisdomDevice(int ordinal = 0);

struct WisdomEntry {
  WisdomDevice device;
  std::string specKey;             // hash of the canonical spec without name, description and `members`' keys
  std::string specName;            // for `wisdom list`
  Json members = Json::object();   // merged into the spec's root object
  std::string date;                // UTC, ISO 8601
  double ms = -1, asGivenMs = -1;  // the tuned and the untuned time when it was recorded (-1: unknown)
};

class Wisdom {
 public:
  // The file `<dir>/wisdom.json`; dir defaults to the kernel cache's directory.
  explicit Wisdom(std::string dir = defaultDir());
  static std::string defaultDir();
  const std::string& path() const { return path_; }

  std::vector<WisdomEntry> entries() const;  // every device's; a corrupt or unsafe file reads as none (see warnings())
  // The entry for this spec on this device, if any.
  std::optional<WisdomEntry> find(const Json& spec, const WisdomDevice& device) const;
  // Records (or replaces) the entry for this spec and device; false (and a warning) where the directory or file
  // refused.
  bool record(const Json& spec, const WisdomDevice& device, const Json& members, double ms = -1, double asGivenMs = -1);
  // Removes every entry (or, with a device, that device's); the number removed, -1 where the file could not be
  // rewritten.
  int clear(const std::optional<WisdomDevice>& device = std::nullopt);
  // Why a file was ignored or not written (corrupt, a link, not ours, ...), since construction.
  const std::vector<std::string>& warnings() const { return warnings_; }

  static std::string specKey(const Json& spec, const Json& members);

 private:
  std::optional<Json> readFile() const;
  bool ensureDir() const;
  bool writeFile(const Json& root);
  std::string dir_, path_;
  mutable std::vector<std::string> warnings_;
};

// `spec` with the wisdom for `device` merged in, where there is some and the spec has none of the members it
// sets; otherwise `spec` unchanged. *note (if given) says what happened: "using wisdom from <date> ...", or
// why wisdom was not used, or "" where there is none for this spec.
Json applyWisdom(const Json& spec, const WisdomDevice& device, std::string* note = nullptr,
                 const Wisdom& wisdom = Wisdom());

// A spec file parsed with the wisdom of device `ordinal` applied; wisdom the family no longer accepts is
// ignored (said in *note). Needs the driver for the device's identity; without one the spec as written.
inline std::unique_ptr<FamilySpec> loadSpecWithWisdom(const std::string& file, std::string* note = nullptr,
                                                      int ordinal = 0) {
  Json j = parseJsonText(readSpecFileText(file), file);
  if (note) note->clear();
  Json tuned;
  try {
    tuned = applyWisdom(j, currentWisdomDevice(ordinal), note);
  } catch (const std::runtime_error& e) {  // no driver: no device to key on
    if (note) *note = std::string("wisdom not used: ") + e.what();
    return parseSpec(j, file);
  }
  if (tuned == j) return parseSpec(j, file);
  try {
    return parseSpec(tuned, file);
  } catch (const SpecError& e) {
    if (note) *note = std::string("wisdom ignored (the spec no longer accepts it: ") + e.what() + ")";
    return parseSpec(j, file);
  }
}

}  // namespace warpforge
