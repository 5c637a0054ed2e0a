#pragma once
// Typed reads of host byte arrays (the buffers of TestData) and the 4-bit samples packed in them.
#include <cstring>
#include <vector>

namespace warpforge {

// Element `index` of type T in a byte array: memcpy, since the bytes carry no alignment or type.
template <class T>
T loadAt(const std::vector<unsigned char>& bytes, long long index) {
  T v;
  std::memcpy(&v, bytes.data() + index * static_cast<long long>(sizeof(T)), sizeof(T));
  return v;
}

// A 4-bit two's-complement nibble (0..15) as an int in -8..7.
inline int sext4(int x) { return (x & 8) ? x - 16 : x; }

}  // namespace warpforge
