#include "ast/Printer.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace warpforge::ast {

namespace {

int binaryPrecedence(BinaryOp op) {
  switch (op) {
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Mod: return 13;
    case BinaryOp::Add:
    case BinaryOp::Sub: return 12;
    case BinaryOp::Shl:
    case BinaryOp::Shr: return 11;
    case BinaryOp::Less:
    case BinaryOp::LessEqual:
    case BinaryOp::Greater:
    case BinaryOp::GreaterEqual: return 9;
    case BinaryOp::Equal:
    case BinaryOp::NotEqual: return 8;
    case BinaryOp::BitAnd: return 7;
    case BinaryOp::BitXor: return 6;
    case BinaryOp::BitOr: return 5;
    case BinaryOp::LogicalAnd: return 4;
    case BinaryOp::LogicalOr: return 3;
  }
  throw std::logic_error("unknown binary operator");
}

int precedence(const Node& n) {
  switch (n.kind) {
    case Kind::Binary: return binaryPrecedence(n.op.binary());
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
    case Kind::IntLit: {
      static const char* suffix[] = {"", "u", "ll", "ull", "LL"};
      const bool hex = n.hexDigits > 0 || (n.hexDigits < 0 && n.value > 0xFFFF);
      const std::string digits = n.hexDigits > 0 ? fmt::format("{:#0{}x}", n.value, n.hexDigits + 2)
                                 : hex           ? fmt::format("{:#x}", n.value)
                                                 : fmt::format("{}", n.value);
      return digits + suffix[static_cast<int>(n.suffix)];
    }
    case Kind::FloatLit: {
      bool dbl = n.type.base == "double";
      // Below float's normal range a float literal prints the float nearest its value (NVRTC refuses a decimal
      // constant that underflows float, e.g. 1e-50f, which is 0 in float). Past its range there is no such value.
      const float asFloat = static_cast<float>(n.fvalue);
      if (!dbl && std::isfinite(n.fvalue) && !std::isfinite(asFloat))
        throw std::range_error(fmt::format("float literal {} is beyond float's range", n.fvalue));
      const bool belowNormal = std::fabs(asFloat) < std::numeric_limits<float>::min();
      std::string s = dbl           ? fmt::format("{:.17g}", n.fvalue)
                      : belowNormal ? fmt::format("{:.9g}", asFloat)
                                    : fmt::format("{:.9g}", n.fvalue);
      if (s.find_first_of(".e") == std::string::npos) s += ".0";
      return dbl ? s : s + "f";
    }
    case Kind::Var: return n.name;
    case Kind::Unary: return std::string(n.op.spelling()) + wrap(n.args[0], 15);
    case Kind::Binary: {
      int p = binaryPrecedence(n.op.binary());
      return wrap(n.args[0], p) + " " + std::string(n.op.spelling()) + " " +
             wrap(n.args[1], p + 1);  // left-associative
    }
    case Kind::Ternary: return wrap(n.args[0], 3) + " ? " + wrap(n.args[1], 3) + " : " + wrap(n.args[2], 2);
    case Kind::Call: {
      std::string s = n.name + "(";
      for (std::size_t i = 0; i < n.args.size(); ++i) s += (i ? ", " : "") + expr(n.args[i]);
      return s + ")";
    }
    case Kind::Index: return wrap(n.args[0], 16) + "[" + expr(n.args[1]) + "]";
    case Kind::Member: return wrap(n.args[0], 16) + "." + n.name;
    case Kind::Cast:
      switch (n.castStyle) {
        case CastStyle::Reinterpret: return "reinterpret_cast<" + n.type.str() + ">(" + expr(n.args[0]) + ")";
        case CastStyle::Static: return "static_cast<" + n.type.str() + ">(" + expr(n.args[0]) + ")";
        case CastStyle::C: break;
      }
      return "(" + n.type.str() + ")" + wrap(n.args[0], 15);
    case Kind::Paren: return "(" + expr(n.args[0]) + ")";
    default: throw std::logic_error("not an expression node");
  }
}

std::string declText(const Node& n) {
  std::string s = n.storage == StorageClass::Shared         ? "__shared__ "
                  : n.storage == StorageClass::ExternShared ? "extern __shared__ "
                                                            : "";
  if (n.align > 0) s += fmt::format("__align__({}) ", n.align);
  s += n.type.declare(n.name);
  if (n.count > 0) s += fmt::format("[{}]", n.count);
  if (n.count < 0) s += "[]";
  for (const auto& d : n.dims) s += "[" + expr(d) + "]";
  if (!n.args.empty()) s += " = " + expr(n.args[0]);
  return s;
}

// "const int a = 1, b = 2": the type once, then each declarator.
std::string declGroupText(const Node& n) {
  std::string s;
  for (std::size_t i = 0; i < n.args.size(); ++i) {
    const Node& d = *n.args[i];
    s += i == 0 ? declText(d) : ", " + d.name + (d.args.empty() ? "" : " = " + expr(d.args[0]));
  }
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
  if (s->kind == Kind::DeclGroup) return declGroupText(*s);
  if (s->kind == Kind::Assign) return expr(s->args[0]) + " " + std::string(s->op.spelling()) + " " + expr(s->args[1]);
  if (s->kind == Kind::ExprStmt) return expr(s->args[0]);
  if (s->kind == Kind::Return) return s->args.empty() ? "return" : "return " + expr(s->args[0]);
  return expr(s);
}

std::string noteText(const Node& n) { return n.note.empty() ? "" : std::string(n.noteGap, ' ') + "// " + n.note; }

// The body of a one-line if / for / while: `s;  // note` or `{ a; b; }`.
std::string inlineBody(const NodePtr& b) {
  if (b->kind != Kind::Block) return inlineStmt(b) + ";" + noteText(*b);
  std::string s = "{";
  for (const auto& x : b->args) s += " " + inlineStmt(x) + ";";
  return s + " }";
}

// A one-line if, with its else on the same line or (a chain) on the next at the same indent.
std::string inlineIf(const Node& n, const std::string& pad) {
  std::string s = "if (" + expr(n.args[0]) + ") " + inlineBody(n.args[1]);
  if (n.args.size() > 2) {
    const NodePtr& e = n.args[2];
    s += (n.elseOnNewLine ? "\n" + pad : std::string(" ")) + "else " +
         (e->kind == Kind::If && e->unbraced ? inlineIf(*e, pad) : inlineBody(e));
  }
  return s;
}

void stmt(const NodePtr& s, int indent, std::ostringstream& out) {
  const Node& n = *s;
  std::string pad(2 * indent, ' ');
  switch (n.kind) {
    case Kind::Decl:
    case Kind::DeclGroup:
    case Kind::Assign:
    case Kind::ExprStmt:
    case Kind::Return: out << pad << inlineStmt(s) << ";" << noteText(n) << "\n"; break;
    case Kind::Typedef: out << pad << "typedef " << n.type.declare(n.name) << ";\n"; break;
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
      if (n.unbraced) {
        out << pad << inlineIf(n, pad) << "\n";
        break;
      }
      out << pad << "if (" << expr(n.args[0]) << ") ";
      body(n.args[1], indent, out);
      if (n.args.size() > 2) {
        out << " else ";
        body(n.args[2], indent, out);
      }
      out << "\n";
      break;
    case Kind::For:
      out << pad << "for (" << inlineStmt(n.args[0]) << "; " << expr(n.args[1]) << "; " << inlineStmt(n.args[2])
          << ") ";
      if (n.unbraced) {
        out << inlineBody(n.args[3]) << "\n";
        break;
      }
      body(n.args[3], indent, out);
      out << "\n";
      break;
    case Kind::While:
      out << pad << "while (" << expr(n.args[0]) << ") ";
      if (n.unbraced) {
        out << inlineBody(n.args[1]) << "\n";
        break;
      }
      body(n.args[1], indent, out);
      out << "\n";
      break;
    case Kind::InlinePtx: {
      std::vector<std::string> cons;
      std::string c = n.attrs;
      std::size_t pos = 0;
      while (!c.empty() && pos <= c.size()) {
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
      if (!n.isVolatile && n.clobbers.empty()) {
        out << pad << "asm(\"" << n.name << "\" : " << outs << " : " << ins << ");\n";
        break;
      }
      out << pad << "asm" << (n.isVolatile ? " volatile" : "") << "(\"" << n.name << "\"";
      if (outs.empty())
        out << " ::" << (ins.empty() ? ":" : " " + ins);  // asm("t" :: ins : clobbers), asm("t" ::: clobbers)
      else out << " : " << outs << " : " << ins;
      if (!n.clobbers.empty()) out << (outs.empty() && ins.empty() ? " " : " : ") << "\"" << n.clobbers << "\"";
      out << ");\n";
      break;
    }
    case Kind::Function: {
      out << pad << n.attrs << (n.attrs.empty() ? "" : " ") << (n.type.empty() ? "" : n.type.str() + " ") << n.name
          << "(";
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
