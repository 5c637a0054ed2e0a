#include "ast/Type.h"

#include <sstream>
#include <stdexcept>
#include <vector>

namespace warpforge::ast {

Type Type::constant() const {
  if (pointers || isRef || rowLength)
    throw std::logic_error("ast type: const applies to the element type, before a pointer");
  Type t = *this;
  t.isConst = true;
  return t;
}
Type Type::pointer() const {
  if (constPtr || restrictPtr || isRef || rowLength)
    throw std::logic_error("ast type: a pointer to " + str() + " is not supported");
  Type t = *this;
  ++t.pointers;
  return t;
}
Type Type::constPointer() const {
  Type t = pointers || rowLength ? *this : pointer();
  t.constPtr = true;
  return t;
}
Type Type::restrict() const {
  Type t = pointers ? *this : pointer();
  t.restrictPtr = true;
  return t;
}
Type Type::reference() const {
  Type t = *this;
  t.isRef = true;
  return t;
}
Type Type::rowsOf(long long n) const {
  if (pointers || isRef || n <= 0) throw std::logic_error("ast type: rows of a pointer, a reference or no elements");
  Type t = *this;
  t.rowLength = n;
  return t;
}
Type Type::blocksOf(long long rows, long long n) const {
  if (rows <= 0) throw std::logic_error("ast type: blocks of no rows");
  Type t = rowsOf(n);
  t.rowBlocks = rows;
  return t;
}

namespace {
std::string element(const Type& t) { return (t.isConst ? "const " : "") + t.base; }
std::string pointerSuffix(const Type& t) {
  std::string s(static_cast<std::size_t>(t.pointers), '*');
  if (t.constPtr) s += " const";
  if (t.restrictPtr) s += " __restrict__";
  if (t.isRef) s += "&";
  return s;
}
// "[rows][n]" or "[n]": the extents after the pointer's parentheses.
std::string rowExtents(const Type& t) {
  return (t.rowBlocks ? "[" + std::to_string(t.rowBlocks) + "]" : std::string()) + "[" + std::to_string(t.rowLength) +
         "]";
}
}  // namespace

std::string Type::str() const {
  if (!verbatim.empty()) return verbatim;
  if (rowLength) return element(*this) + " (*)" + rowExtents(*this);
  return element(*this) + pointerSuffix(*this);
}

std::string Type::declare(const std::string& name) const {
  if (rowLength) return element(*this) + " (*" + (constPtr ? " const " : "") + name + ")" + rowExtents(*this);
  return str() + " " + name;
}

Type Type::parse(const std::string& text) {
  // words, with '*' and '&' as their own tokens: "const unsigned char* __restrict__" -> const unsigned char *
  // __restrict__
  std::vector<std::string> tok;
  std::string cur;
  for (char c : text) {
    if (c == ' ' || c == '*' || c == '&') {
      if (!cur.empty()) tok.push_back(cur), cur.clear();
      if (c != ' ') tok.push_back(std::string(1, c));
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) tok.push_back(cur);
  Type t;
  std::size_t i = 0;
  if (i < tok.size() && tok[i] == "const") t.isConst = true, ++i;
  for (; i < tok.size() && tok[i] != "*" && tok[i] != "&"; ++i) {
    const bool word = tok[i].find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
                      std::string::npos;
    if (!word || tok[i] == "const" || tok[i] == "__restrict__") t.base.clear(), i = tok.size();
    else t.base += (t.base.empty() ? "" : " ") + tok[i];
  }
  for (; i < tok.size(); ++i) {
    if (tok[i] == "*" && !t.constPtr && !t.restrictPtr && !t.isRef) ++t.pointers;
    else if (tok[i] == "const" && t.pointers && !t.constPtr) t.constPtr = true;
    else if (tok[i] == "__restrict__" && t.pointers && !t.restrictPtr) t.restrictPtr = true;
    else if (tok[i] == "&" && !t.isRef) t.isRef = true;
    else t.base.clear();
  }
  if (t.base.empty() || t.str() != text) {  // not one of the typed forms, or not in their spelling: kept as written
    Type v;
    v.verbatim = text;
    return v;
  }
  return t;
}

bool operator==(const Type& a, const Type& b) {
  return a.base == b.base && a.isConst == b.isConst && a.pointers == b.pointers && a.constPtr == b.constPtr &&
         a.restrictPtr == b.restrictPtr && a.isRef == b.isRef && a.rowLength == b.rowLength &&
         a.rowBlocks == b.rowBlocks && a.verbatim == b.verbatim;
}

}  // namespace warpforge::ast
