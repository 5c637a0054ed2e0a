#pragma once
// The C++ types of the CUDA AST: a named base type with const, pointers, __restrict__, a reference, or a pointer to
// rows of fixed length (a shared-memory carve-up, `T (* const rows)[N]`). Built by small steps
// (`Type("wf_u32").constant().pointer()`), printed in one spelling.
#include <string>

namespace warpforge::ast {

struct Type {
  std::string base;          // "int", "unsigned char", "float2", "wf_u32", "void"
  bool isConst = false;      // const T
  int pointers = 0;          // T*, T**
  bool constPtr = false;     // T* const
  bool restrictPtr = false;  // T* __restrict__
  bool isRef = false;        // T&
  long long rowLength = 0;   // > 0: a pointer to rows of rowLength elements, T (*)[rowLength]
  long long rowBlocks = 0;   // > 0 (with rowLength): a pointer to blocks of rowBlocks rows, T (*)[rowBlocks][rowLength]
  std::string verbatim;      // a type written as text that is none of the above forms, printed as given

  Type() = default;
  // A type spelled as text ("wf_u32", "const unsigned char* __restrict__"): parse(text).
  Type(const std::string& text) : Type(parse(text)) {}
  Type(const char* text) : Type(parse(text)) {}

  Type constant() const;                             // const T (the element, before any pointer)
  Type pointer() const;                              // T*
  Type constPointer() const;                         // T* const
  Type restrict() const;                             // T* __restrict__
  Type reference() const;                            // T&
  Type rowsOf(long long n) const;                    // T (*)[n]
  Type blocksOf(long long rows, long long n) const;  // T (*)[rows][n]

  bool empty() const { return base.empty() && verbatim.empty(); }
  // The type as a cast or template argument spells it: "const unsigned char* __restrict__", "float (*)[33]".
  std::string str() const;
  // A declarator of `name` with this type: "int x", "wf_u32 (* const rows)[40]".
  std::string declare(const std::string& name) const;

  // The type spelled `text`; a spelling outside the forms above is kept verbatim, so that it prints as written.
  static Type parse(const std::string& text);
};

bool operator==(const Type& a, const Type& b);

}  // namespace warpforge::ast
