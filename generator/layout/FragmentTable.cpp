#include "generator/layout/FragmentTable.h"

#include <fmt/format.h>

namespace warpforge {

std::pair<int, int> FragmentLayout::coord(Operand op, int lane, int reg, int elem) const {
  int i = 0, j = 0, k = 0;
  auto put = [&](const std::string& bit, int v) {
    int pos = std::stoi(bit.substr(1));
    int& dst = bit[0] == 'i' ? i : bit[0] == 'j' ? j : k;
    dst |= v << pos;
  };
  for (std::size_t x = 0; x < b.size(); ++x) put(b[x], (elem >> x) & 1);
  for (std::size_t x = 0; x < t.size(); ++x) put(t[x], (lane >> x) & 1);
  for (std::size_t x = 0; x < r.size(); ++x) put(r[x], (reg >> x) & 1);
  switch (op) {
    case Operand::A: return {i, j};
    case Operand::B: return {j, k};
    case Operand::C: return {i, k};
  }
  return {0, 0};
}

BitMap FragmentLayout::atom() const {
  std::vector<BitMap::Pair> p;
  for (std::size_t x = 0; x < b.size(); ++x) p.push_back({"b" + std::to_string(x), b[x]});
  for (std::size_t x = 0; x < t.size(); ++x) p.push_back({"t" + std::to_string(x), t[x]});
  for (std::size_t x = 0; x < r.size(); ++x) p.push_back({"r" + std::to_string(x), r[x]});
  return BitMap(std::move(p));
}

std::string MmaShape::ptx() const {
  return fmt::format("mma.sync.aligned.{}.row.col.{}.{}.{}.{}", shape, cType, abType, abType, cType);
}

const std::vector<MmaShape>& allMmaShapes() {
  // Transcribed from the PTX ISA's fragment formulas (groupID = lane>>2,
  // threadID_in_group = lane&3); tests/FragmentTableTest.cpp re-derives every
  // entry from those formulas independently.
  using V = std::vector<std::string>;
  const V accF16{"k0"}, cF16T{"k1", "k2", "i0", "i1", "i2"};
  static const std::vector<MmaShape> shapes = {
      {"m16n8k8",
       "f16",
       "f16",
       16,
       8,
       8,
       {V{"j0"}, V{"j1", "j2", "i0", "i1", "i2"}, V{"i3"}},
       {V{"j0"}, V{"j1", "j2", "k0", "k1", "k2"}, V{}},
       {accF16, cF16T, V{"i3"}},
       2},
      {"m16n8k16",
       "f16",
       "f16",
       16,
       8,
       16,
       {V{"j0"}, V{"j1", "j2", "i0", "i1", "i2"}, V{"i3", "j3"}},
       {V{"j0"}, V{"j1", "j2", "k0", "k1", "k2"}, V{"j3"}},
       {accF16, cF16T, V{"i3"}},
       4},
      {"m16n8k16",
       "bf16",
       "f32",
       16,
       8,
       16,
       {V{"j0"}, V{"j1", "j2", "i0", "i1", "i2"}, V{"i3", "j3"}},
       {V{"j0"}, V{"j1", "j2", "k0", "k1", "k2"}, V{"j3"}},
       {V{}, cF16T, V{"k0", "i3"}},
       0},
      {"m16n8k8",
       "tf32",
       "f32",
       16,
       8,
       8,
       {V{}, V{"j0", "j1", "i0", "i1", "i2"}, V{"i3", "j2"}},
       {V{}, V{"j0", "j1", "k0", "k1", "k2"}, V{"j2"}},
       {V{}, cF16T, V{"k0", "i3"}},
       0},
      {"m16n8k32",
       "s8",
       "s32",
       16,
       8,
       32,
       {V{"j0", "j1"}, V{"j2", "j3", "i0", "i1", "i2"}, V{"i3", "j4"}},
       {V{"j0", "j1"}, V{"j2", "j3", "k0", "k1", "k2"}, V{"j4"}},
       {V{}, cF16T, V{"k0", "i3"}},
       0},
      {"m8n8k16",
       "s8",
       "s32",
       8,
       8,
       16,
       {V{"j0", "j1"}, V{"j2", "j3", "i0", "i1", "i2"}, V{}},
       {V{"j0", "j1"}, V{"j2", "j3", "k0", "k1", "k2"}, V{}},
       {V{}, cF16T, V{"k0"}},
       0},
      // f16 operands, f32 accumulators: C's k0 moves from b0 to a register (c0, c1 are columns 2t, 2t + 1). On
      // sm_80 and sm_90 data-centre parts the issue rate is the f16-accumulator one.
      {"m16n8k16",
       "f16",
       "f32",
       16,
       8,
       16,
       {V{"j0"}, V{"j1", "j2", "i0", "i1", "i2"}, V{"i3", "j3"}},
       {V{"j0"}, V{"j1", "j2", "k0", "k1", "k2"}, V{"j3"}},
       {V{}, cF16T, V{"k0", "i3"}},
       4},
      {"m16n8k8",
       "f16",
       "f32",
       16,
       8,
       8,
       {V{"j0"}, V{"j1", "j2", "i0", "i1", "i2"}, V{"i3"}},
       {V{"j0"}, V{"j1", "j2", "k0", "k1", "k2"}, V{}},
       {V{}, cF16T, V{"k0", "i3"}},
       2},
  };
  return shapes;
}

const MmaShape* findMmaShape(const std::string& shape, const std::string& abType) {
  for (const auto& s : allMmaShapes())
    if (s.shape == shape && s.abType == abType) return &s;
  return nullptr;
}

const MmaShape* findMmaShape(const std::string& shape, const std::string& abType, const std::string& cType) {
  for (const auto& s : allMmaShapes())
    if (s.shape == shape && s.abType == abType && s.cType == cType) return &s;
  return nullptr;
}

const MmaShape& mmaAccumulatorShape(const MmaShape& s) {
  const char* acc = s.abType == "f16" ? "f32" : s.abType == "s8" ? "s32" : nullptr;
  const MmaShape* wide = acc ? findMmaShape(s.shape, s.abType, acc) : nullptr;
  return wide ? *wide : s;
}

std::string knownShapesFor(const std::string& abType) {
  std::string out;
  for (const auto& s : allMmaShapes())
    if (s.abType == abType && (", " + out + ",").find(", " + s.shape + ",") == std::string::npos)
      out += (out.empty() ? "" : ", ") + s.shape;
  return out.empty() ? "(none)" : out;
}

}  // namespace warpforge
