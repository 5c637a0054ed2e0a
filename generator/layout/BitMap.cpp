#include "generator/layout/BitMap.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace warpforge {

BitMap::BitMap(std::vector<Pair> pairs) : pairs_(std::move(pairs)) {
  std::set<std::string> from, to;
  for (const auto& p : pairs_) {
    if (!from.insert(p.from).second) throw BitMapError(fmt::format("bit map: domain bit {} appears twice", p.from));
    if (!to.insert(p.to).second)
      throw BitMapError(fmt::format("bit map: image bit {} appears twice (a bit map is a bijection)", p.to));
  }
}

BitMap BitMap::identity(const std::vector<std::string>& names) {
  std::vector<Pair> p;
  for (const auto& n : names) p.push_back({n, n});
  return BitMap(std::move(p));
}

std::vector<std::string> BitMap::domain() const {
  std::vector<std::string> out;
  for (const auto& p : pairs_) out.push_back(p.from);
  return out;
}

std::vector<std::string> BitMap::image() const {
  std::vector<std::string> out;
  for (const auto& p : pairs_) out.push_back(p.to);
  return out;
}

std::optional<std::string> BitMap::apply(const std::string& x) const {
  for (const auto& p : pairs_)
    if (p.from == x) return p.to;
  return std::nullopt;
}

std::optional<std::string> BitMap::preimage(const std::string& y) const {
  for (const auto& p : pairs_)
    if (p.to == y) return p.from;
  return std::nullopt;
}

BitMap BitMap::inverse() const {
  std::vector<Pair> p;
  for (const auto& q : pairs_) p.push_back({q.to, q.from});
  return BitMap(std::move(p));
}

BitMap BitMap::compose(const BitMap& inner) const {
  std::vector<Pair> p;
  for (const auto& q : inner.pairs_) {
    auto y = apply(q.to);
    if (!y)
      throw BitMapError(fmt::format("bit map composition: {} maps to {}, which the outer map ({}) does not take",
                                    q.from, q.to, str()));
    p.push_back({q.from, *y});
  }
  return BitMap(std::move(p));
}

BitMap BitMap::product(const BitMap& other) const {
  std::vector<Pair> p = pairs_;
  for (const auto& q : other.pairs_) {
    if (hasDomain(q.from)) throw BitMapError(fmt::format("bit map product: domain bit {} is in both factors", q.from));
    if (hasImage(q.to)) throw BitMapError(fmt::format("bit map product: image bit {} is in both factors", q.to));
    p.push_back(q);
  }
  return BitMap(std::move(p));
}

BitMap BitMap::divide(const BitMap& factor) const {
  for (const auto& q : factor.pairs_) {
    auto y = apply(q.from);
    if (!y)
      throw BitMapError(fmt::format("bit map quotient: the factor's bit {} is not in the domain of {}", q.from, str()));
    if (*y != q.to)
      throw BitMapError(
          fmt::format("bit map quotient: the factor maps {} to {}, but the map sends it to {}", q.from, q.to, *y));
  }
  std::vector<Pair> p;
  for (const auto& q : pairs_)
    if (!factor.hasDomain(q.from)) p.push_back(q);
  return BitMap(std::move(p));
}

BitMap BitMap::restrict(const std::vector<std::string>& domainBits) const {
  std::vector<Pair> p;
  for (const auto& x : domainBits) {
    auto y = apply(x);
    if (!y) throw BitMapError(fmt::format("bit map restriction: {} is not in the domain of {}", x, str()));
    p.push_back({x, *y});
  }
  return BitMap(std::move(p));
}

BitMap BitMap::renameImage(const BitMap& rename) const {
  std::vector<Pair> p;
  for (const auto& q : pairs_) p.push_back({q.from, rename.apply(q.to).value_or(q.to)});
  return BitMap(std::move(p));
}

bool BitMap::operator==(const BitMap& o) const {
  if (o.size() != size()) return false;
  for (const auto& p : pairs_)
    if (o.apply(p.from) != p.to) return false;
  return true;
}

std::string BitMap::str() const {
  std::string s;
  for (const auto& p : pairs_) s += fmt::format("{}{}->{}", s.empty() ? "" : " ", p.from, p.to);
  return s;
}

}  // namespace warpforge
