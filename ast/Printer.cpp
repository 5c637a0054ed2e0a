#include "ast/Printer.h"

#include <map>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace warpforge::ast {

namespace {

int binaryPrecedence(const std::string& op) {
  static const std::map<std::string, int> p = {{"*", 13}, {"/", 13}, {"%", 13}, {"+", 12}, {"-", 12}, {"<<", 11}, {">>", 11},
                                               {"<", 9},  {"<=", 9}, {">", 9},  {">=", 9}, {"==", 8}, {"!=", 8}, {"&", 7},
                                               {"^", 6},  {"|", 5},  {"&&", 4}, {"||", 3}};
  auto it = p.find(op);
  if (it == p.end()) throw std::logic_error("unknown binary operator " + op);
  return it->second;
}

int precedence(const Node& n) {
  switch (n.kind) {
    case Kind::Binary: return binaryPrecedence(n.op);
    case Kind::Unary:
    case Kind::Cast: return 15;
    case Kind::Ternary: return 2;
    case Kind::IntLit: return n.value < 0 ? 15 : 17;
    case Kind::FloatLit: return n.fvalue < 0 ? 15 : 17;
    default: return 17;
  }
}

std::string expr(const NodePtr& e);

std::string wrap(const NodePtr& child, int minPrec) {
  std::string s = expr(child);
  return precedence(*child) < minPrec ? "(" + s + ")" : s;
}

std::string expr(const NodePtr& e) {
  const Node& n = *e;
  switch (n.kind) {
    case Kind::IntLit: return n.value > 0xFFFF ? fmt::format("{:#x}", n.value) : fmt::format("{}", n.value);
    case Kind::FloatLit: {
      bool dbl = n.type == "double";
      std::string s = dbl ? fmt::format("{:.17g}", n.fvalue) : fmt::format("{:.9g}", n.fvalue);
      if (s.find_first_of(".e") == std::string::npos) s += ".0";
      return dbl ? s : s + "f";
    }
    case Kind::Var: return n.name;
    case Kind::Unary: return n.op + wrap(n.args[0], 15);
    case Kind::Binary: {
      int p = binaryPrecedence(n.op);
      return wrap(n.args[0], p) + " " + n.op + " " + wrap(n.args[1], p + 1);  // left-associative
    }
    case Kind::Ternary: return wrap(n.args[0], 3) + " ? " + wrap(n.args[1], 3) + " : " + wrap(n.args[2], 2);
    case Kind::Call: {
      std::string s = n.name + "(";
      for (std::size_t i = 0; i < n.args.size(); ++i) s += (i ? ", " : "") + expr(n.args[i]);
      return s + ")";
    }
    case Kind::Index: return wrap(n.args[0], 16) + "[" + expr(n.args[1]) + "]";
    case Kind::Member: return wrap(n.args[0], 16) + "." + n.name;
    case Kind::Cast: return "(" + n.type + ")" + wrap(n.args[0], 15);
    default: throw std::logic_error("not an expression node");
  }
}

std::string declText(const Node& n) {
  std::string s = n.type + " " + n.name;
  if (n.count) s += fmt::format("[{}]", n.count);
  if (!n.args.empty()) s += " = " + expr(n.args[0]);
  return s;
}

void stmt(const NodePtr& s, int indent, std::ostringstream& out);

void body(const NodePtr& b, int indent, std::ostringstream& out) {
  if (b->kind == Kind::Block) {
    out << "{\n";
    for (const auto& s : b->args) stmt(s, indent + 1, out);
    out << std::string(2 * indent, ' ') << "}";
  } else {
    out << "{\n";
    stmt(b, indent + 1, out);
    out << std::string(2 * indent, ' ') << "}";
  }
}

std::string inlineStmt(const NodePtr& s) {
  if (!s) return "";
  if (s->kind == Kind::Decl) return declText(*s);
  if (s->kind == Kind::Assign) return expr(s->args[0]) + " " + s->op + " " + expr(s->args[1]);
  if (s->kind == Kind::ExprStmt) return expr(s->args[0]);
  return expr(s);
}

void stmt(const NodePtr& s, int indent, std::ostringstream& out) {
  const Node& n = *s;
  std::string pad(2 * indent, ' ');
  switch (n.kind) {
    case Kind::Decl: out << pad << declText(n) << ";\n"; break;
    case Kind::Assign: out << pad << inlineStmt(s) << ";\n"; break;
    case Kind::ExprStmt: out << pad << expr(n.args[0]) << ";\n"; break;
    case Kind::Comment: {
      std::istringstream lines(n.name);
      std::string line;
      while (std::getline(lines, line)) out << pad << "// " << line << "\n";
      break;
    }
    case Kind::Raw: out << pad << n.name << "\n"; break;
    case Kind::Block:
      out << pad;
      body(s, indent, out);
      out << "\n";
      break;
    case Kind::If:
      out << pad << "if (" << expr(n.args[0]) << ") ";
      body(n.args[1], indent, out);
      if (n.args.size() > 2) {
        out << " else ";
        body(n.args[2], indent, out);
      }
      out << "\n";
      break;
    case Kind::For:
      out << pad << "for (" << inlineStmt(n.args[0]) << "; " << expr(n.args[1]) << "; " << inlineStmt(n.args[2]) << ") ";
      body(n.args[3], indent, out);
      out << "\n";
      break;
    case Kind::InlinePtx: {
      std::vector<std::string> cons;
      std::string c = n.type;
      std::size_t pos = 0;
      while (pos <= c.size()) {
        auto comma = c.find(',', pos);
        cons.push_back(c.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
        if (comma == std::string::npos) break;
        pos = comma + 1;
      }
      if (cons.size() != n.args.size()) throw std::logic_error("inline PTX: constraint count != operand count");
      std::string outs, ins;
      for (std::size_t i = 0; i < cons.size(); ++i) {
        std::string item = fmt::format("\"{}\"({})", cons[i], expr(n.args[i]));
        std::string& dst = cons[i][0] == '=' || cons[i][0] == '+' ? outs : ins;
        dst += (dst.empty() ? "" : ", ") + item;
      }
      out << pad << "asm(\"" << n.name << "\" : " << outs << " : " << ins << ");\n";
      break;
    }
    case Kind::Function: {
      out << pad << n.attrs << (n.attrs.empty() ? "" : " ") << (n.type.empty() ? "" : n.type + " ") << n.name << "(";
      for (std::size_t i = 0; i + 1 < n.args.size(); ++i) out << (i ? ", " : "") << declText(*n.args[i]);
      out << ") ";
      body(n.args.back(), indent, out);
      out << "\n";
      break;
    }
    case Kind::Unit:
      for (const auto& a : n.args) stmt(a, indent, out);
      break;
    default: out << pad << expr(s) << ";\n"; break;
  }
}

}  // namespace

std::string printExpr(const NodePtr& e) { return expr(e); }

std::string print(const NodePtr& n) {
  std::ostringstream out;
  stmt(n, 0, out);
  return out.str();
}

}  // namespace warpforge::ast
