#include "generator/layout/Layout.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace warpforge {

namespace {
char kindChar(PhysKind k) {
  switch (k) {
    case PhysKind::B: return 'b';
    case PhysKind::T: return 't';
    case PhysKind::R: return 'r';
    case PhysKind::W: return 'w';
  }
  return '?';
}

std::string trim(const std::string& s) {
  auto a = s.find_first_not_of(" \t\n");
  if (a == std::string::npos) return "";
  auto b = s.find_last_not_of(" \t\n");
  return s.substr(a, b - a + 1);
}

// User text quoted in a message: control characters escaped, long text shortened
// (a layout string may be megabytes long).
std::string shown(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size() && out.size() < 80; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    out += c < 0x20 || c == 0x7f ? fmt::format("\\x{:02x}", c) : std::string(1, s[i]);
  }
  if (out.size() >= 80 && s.size() > 80) out += fmt::format("... ({} bytes)", s.size());
  return out;
}

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

// Bit indices are small (registers hold at most 32 bits); anything larger is refused
// while its digits are read, so no token of any length reaches a conversion.
constexpr int kMaxBitIndex = 31;
constexpr int kMaxLogicalIndex = 63;

// Reads the digits at s[i..) as an index <= max; nullopt if there are none.
std::optional<int> readIndex(const std::string& s, std::size_t& i, int max, const char* what) {
  std::size_t from = i;
  long long v = 0;
  while (i < s.size() && isDigit(s[i])) {
    v = v * 10 + (s[i] - '0');
    ++i;
    if (v > max) {
      while (i < s.size() && isDigit(s[i])) ++i;
      throw LayoutError(
          fmt::format("{} {} is out of range (indices run 0..{})", what, shown(s.substr(from - 1, i - from + 1)), max));
    }
  }
  if (i == from) return std::nullopt;
  return static_cast<int>(v);
}

// Tokenizes "t0 t1" or "t0t1" alike, in one pass: physical bits [btrw][0-9]*.
std::vector<std::string> physTokens(const std::string& s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.size();) {
    if (isSpace(s[i])) {
      ++i;
      continue;
    }
    char c = s[i];
    if (c != 'b' && c != 't' && c != 'r' && c != 'w')
      throw LayoutError(
          fmt::format("cannot read physical bits '{}' (expected e.g. 't0 t1 t2' or 'r' or 'b')", shown(s.substr(i))));
    std::size_t from = i++;
    readIndex(s, i, kMaxBitIndex, "physical bit");
    out.push_back(s.substr(from, i - from));
  }
  return out;
}

// Logical bits: ReIm, or [nqf] followed by a decimal index without leading zeros (names are compared as text: "n01"
// would not be the bit "n1"); any of them may carry the suffix _in or _out (a pass-through pair of an MMA phase
// operand).
std::vector<std::string> logicalTokens(const std::string& s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.size();) {
    if (isSpace(s[i])) {
      ++i;
      continue;
    }
    std::size_t from = i;
    if (s.compare(i, 4, "ReIm") == 0) {
      i += 4;
    } else if ((s[i] == 'n' || s[i] == 'q' || s[i] == 'f') && i + 1 < s.size() && isDigit(s[i + 1])) {
      ++i;
      if (s[i] == '0' && i + 1 < s.size() && isDigit(s[i + 1]))
        throw LayoutError(fmt::format("logical bit '{}' has a leading zero", shown(s.substr(from, 8))));
      readIndex(s, i, kMaxLogicalIndex, "logical bit");
    } else {
      throw LayoutError(
          fmt::format("cannot read logical bits '{}' (expected e.g. 'n7 n6', 'q0', 'f0', 'ReIm')", shown(s.substr(i))));
    }
    if (s.compare(i, 3, "_in") == 0) i += 3;
    else if (s.compare(i, 4, "_out") == 0) i += 4;
    out.push_back(s.substr(from, i - from));
  }
  return out;
}
}  // namespace

std::string PhysBit::str() const { return fmt::format("{}{}", kindChar(kind), index); }

std::optional<PhysBit> PhysBit::parse(const std::string& name) {
  if (name.size() < 2) return std::nullopt;
  std::optional<PhysKind> k;
  switch (name[0]) {
    case 'b': k = PhysKind::B; break;
    case 't': k = PhysKind::T; break;
    case 'r': k = PhysKind::R; break;
    case 'w': k = PhysKind::W; break;
  }
  int v = 0;
  for (std::size_t i = 1; i < name.size(); ++i) {
    if (!isDigit(name[i]) || v > kMaxBitIndex) return std::nullopt;
    v = v * 10 + (name[i] - '0');
  }
  if (!k || v > kMaxBitIndex) return std::nullopt;
  return PhysBit{*k, v};
}

BitMap Layout::map() const {
  std::vector<BitMap::Pair> p;
  for (const auto& e : entries_) p.push_back({e.phys.str(), e.logical});
  return BitMap(std::move(p));
}

Layout Layout::fromMap(const BitMap& m) {
  std::vector<Entry> entries;
  for (const auto& p : m.pairs()) {
    auto phys = PhysBit::parse(p.from);
    if (!phys) throw LayoutError(fmt::format("'{}' is not a physical bit (expected b0, t3, r1, w0, ...)", p.from));
    entries.push_back({*phys, p.to});
  }
  return Layout(std::move(entries));
}

Layout::Layout(std::vector<Entry> entries) : entries_(std::move(entries)) {
  // Bit masks per physical kind and a sorted copy of the names: layouts are built often (the synthesizer makes
  // thousands), so no node-based containers here.
  std::uint32_t seenPhys[4] = {0, 0, 0, 0};
  std::vector<std::string_view> names;
  names.reserve(entries_.size());
  for (const auto& e : entries_) {
    std::uint32_t& mask = seenPhys[static_cast<int>(e.phys.kind)];
    const std::uint32_t bit = e.phys.index >= 0 && e.phys.index <= kMaxBitIndex ? 1u << e.phys.index : 0;
    if (!bit || (mask & bit)) throw LayoutError(fmt::format("physical bit {} is assigned twice", e.phys.str()));
    mask |= bit;
    names.push_back(e.logical);
  }
  std::sort(names.begin(), names.end());
  for (std::size_t i = 1; i < names.size(); ++i)
    if (names[i] == names[i - 1])
      throw LayoutError(fmt::format("logical bit {} appears twice (a layout must be a bijection)", names[i]));
  for (PhysKind kind : {PhysKind::B, PhysKind::T, PhysKind::R, PhysKind::W}) {
    const std::uint32_t mask = seenPhys[static_cast<int>(kind)];
    if (mask & (mask + 1)) {  // not of the form 0..01..1
      int expect = 0, last = 31;
      while (mask & (1u << expect)) ++expect;
      while (!(mask & (1u << last))) --last;
      throw LayoutError(fmt::format("physical bits {}0..{}{} must be contiguous: {}{} is missing", kindChar(kind),
                                    kindChar(kind), last, kindChar(kind), expect));
    }
  }
}

Layout Layout::parse(const std::string& text) {
  std::vector<Entry> entries;
  std::size_t start = 0;
  std::map<PhysKind, int> nextImplicit;
  if (trim(text).empty()) throw LayoutError("layout is empty");
  while (start <= text.size()) {
    auto comma = text.find(',', start);
    std::string group = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    auto arrow = group.find("<->");
    if (arrow == std::string::npos)
      throw LayoutError(fmt::format("group '{}' has no '<->' (expected 'PHYSICAL <-> LOGICAL')", shown(trim(group))));
    auto lhs = physTokens(group.substr(0, arrow));
    auto rhs = logicalTokens(group.substr(arrow + 3));
    if (lhs.empty() || rhs.empty()) throw LayoutError(fmt::format("group '{}' has an empty side", shown(trim(group))));
    // "r <-> n2 n1 n0" names r0 r1 r2 in order; likewise "b" and "t".
    std::vector<PhysBit> phys;
    for (const auto& t : lhs) {
      PhysKind k = t[0] == 'b' ? PhysKind::B : t[0] == 't' ? PhysKind::T : t[0] == 'r' ? PhysKind::R : PhysKind::W;
      if (t.size() == 1) {
        if (lhs.size() != 1)
          throw LayoutError(
              fmt::format("bare '{}' must stand alone on the left of '<->' in '{}'", t, shown(trim(group))));
        for (std::size_t i = 0; i < rhs.size(); ++i) {
          if (nextImplicit[k] > kMaxBitIndex)
            throw LayoutError(
                fmt::format("'{}' names more than {} bits in '{}'", t, kMaxBitIndex + 1, shown(trim(group))));
          phys.push_back({k, nextImplicit[k]++});
        }
      } else {
        std::size_t i = 1;
        phys.push_back({k, *readIndex(t, i, kMaxBitIndex, "physical bit")});
      }
    }
    if (phys.size() != rhs.size())
      throw LayoutError(
          fmt::format("group '{}' maps {} physical bits to {} logical bits (counts must match: each physical bit holds "
                      "exactly one logical bit; name {} logical bits, or write the left side as a bare kind such as "
                      "'t' or 'r', which takes as many bits as the right side names)",
                      shown(trim(group)), phys.size(), rhs.size(), phys.size()));
    for (std::size_t i = 0; i < phys.size(); ++i) entries.push_back({phys[i], rhs[i]});
  }
  return Layout(std::move(entries));
}

std::optional<std::string> Layout::logicalAt(PhysBit p) const {
  for (const auto& e : entries_)
    if (e.phys == p) return e.logical;
  return std::nullopt;
}

std::optional<PhysBit> Layout::physOf(const std::string& logical) const {
  for (const auto& e : entries_)
    if (e.logical == logical) return e.phys;
  return std::nullopt;
}

int Layout::count(PhysKind k) const {
  return static_cast<int>(
      std::count_if(entries_.begin(), entries_.end(), [k](const Entry& e) { return e.phys.kind == k; }));
}

std::vector<std::string> Layout::registerBits() const {
  std::vector<std::string> out(count(PhysKind::R));
  for (const auto& e : entries_)
    if (e.phys.kind == PhysKind::R) out[e.phys.index] = e.logical;
  return out;
}

std::vector<std::string> Layout::logicalBits() const {
  std::vector<std::string> out;
  for (const auto& e : entries_) out.push_back(e.logical);
  return out;
}

bool Layout::operator==(const Layout& o) const {
  if (o.entries_.size() != entries_.size()) return false;
  for (const auto& e : entries_)
    if (o.logicalAt(e.phys) != e.logical) return false;
  return true;
}

bool Layout::equalUpToRegisterOrder(const Layout& o) const {
  if (o.entries_.size() != entries_.size()) return false;
  for (const auto& e : entries_) {
    auto p = o.physOf(e.logical);
    if (!p) return false;
    if (e.phys.kind == PhysKind::R ? p->kind != PhysKind::R : !(*p == e.phys)) return false;
  }
  return true;
}

Layout Layout::swapped(PhysBit a, PhysBit b) const {
  auto copy = entries_;
  for (auto& e : copy) {
    if (e.phys == a) e.phys = b;
    else if (e.phys == b) e.phys = a;
  }
  return Layout(std::move(copy));
}

std::string Layout::str() const {
  std::vector<std::string> groups;
  for (PhysKind k : {PhysKind::B, PhysKind::T, PhysKind::R, PhysKind::W}) {
    int n = count(k);
    if (!n) continue;
    std::string lhs, rhs;
    for (int i = 0; i < n; ++i) {
      PhysBit p{k, i};
      lhs += (i ? " " : "") + p.str();
      rhs += (i ? " " : "") + *logicalAt(p);
    }
    groups.push_back(lhs + " <-> " + rhs);
  }
  return fmt::format("{}", fmt::join(groups, ", "));
}

}  // namespace warpforge
