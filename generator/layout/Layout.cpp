#include "generator/layout/Layout.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

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

// Tokenizes "t0 t1" or "t0t1" alike.
std::vector<std::string> tokens(const std::string& s, const std::regex& tok, const char* what) {
  std::vector<std::string> out;
  std::string rest = s;
  std::smatch m;
  while (true) {
    rest = trim(rest);
    if (rest.empty()) break;
    if (!std::regex_search(rest, m, tok, std::regex_constants::match_continuous))
      throw LayoutError(fmt::format("cannot read {} '{}' (expected e.g. {})", what, rest,
                                    std::string(what) == "physical bits" ? "'t0 t1 t2' or 'r' or 'b'"
                                                                          : "'n7 n6', 'q0', 'ReIm'"));
    out.push_back(m.str(0));
    rest = m.suffix();
  }
  return out;
}
}  // namespace

std::string PhysBit::str() const { return fmt::format("{}{}", kindChar(kind), index); }

Layout::Layout(std::vector<Entry> entries) : entries_(std::move(entries)) {
  std::set<std::string> seenLogical;
  std::map<PhysKind, std::set<int>> seenPhys;
  for (const auto& e : entries_) {
    if (!seenPhys[e.phys.kind].insert(e.phys.index).second)
      throw LayoutError(fmt::format("physical bit {} is assigned twice", e.phys.str()));
    if (!seenLogical.insert(e.logical).second)
      throw LayoutError(fmt::format("logical bit {} appears twice (a layout must be a bijection)", e.logical));
  }
  for (auto& [kind, idx] : seenPhys) {
    int expect = 0;
    for (int i : idx) {
      if (i != expect)
        throw LayoutError(fmt::format("physical bits {}0..{}{} must be contiguous: {}{} is missing",
                                      kindChar(kind), kindChar(kind), *idx.rbegin(), kindChar(kind), expect));
      ++expect;
    }
  }
}

Layout Layout::parse(const std::string& text) {
  static const std::regex physTok(R"([btrw][0-9]*)");
  static const std::regex logTok(R"(ReIm_in|ReIm_out|ReIm|[nq][0-9]+)");
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
      throw LayoutError(fmt::format("group '{}' has no '<->' (expected 'PHYSICAL <-> LOGICAL')", trim(group)));
    auto lhs = tokens(group.substr(0, arrow), physTok, "physical bits");
    auto rhs = tokens(group.substr(arrow + 3), logTok, "logical bits");
    if (lhs.empty() || rhs.empty())
      throw LayoutError(fmt::format("group '{}' has an empty side", trim(group)));
    // "r <-> n2 n1 n0" names r0 r1 r2 in order; likewise "b" and "t".
    std::vector<PhysBit> phys;
    for (const auto& t : lhs) {
      PhysKind k = t[0] == 'b' ? PhysKind::B : t[0] == 't' ? PhysKind::T : t[0] == 'r' ? PhysKind::R : PhysKind::W;
      if (t.size() == 1) {
        if (lhs.size() != 1)
          throw LayoutError(fmt::format("bare '{}' must stand alone on the left of '<->' in '{}'", t, trim(group)));
        for (std::size_t i = 0; i < rhs.size(); ++i) phys.push_back({k, nextImplicit[k]++});
      } else {
        int idx = std::stoi(t.substr(1));
        if (idx > 31) throw LayoutError(fmt::format("physical bit {} is out of range", t));
        phys.push_back({k, idx});
      }
    }
    if (phys.size() != rhs.size())
      throw LayoutError(fmt::format("group '{}' maps {} physical bits to {} logical bits (counts must match)",
                                    trim(group), phys.size(), rhs.size()));
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
  return static_cast<int>(std::count_if(entries_.begin(), entries_.end(), [k](const Entry& e) { return e.phys.kind == k; }));
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
