#include "generator/stockham/StockhamSpec.h"

#include <algorithm>
#include <stdexcept>

#include "generator/spec/JsonReader.h"

namespace warpforge {

const std::vector<int>& stockhamRadices() {
  static const std::vector<int> r = {16, 13, 11, 8, 7, 5, 4, 3, 2};
  return r;
}

std::vector<int> factorizeStockham(int n, int maxRadix) {
  std::vector<int> f;
  int rest = n;
  // Prefer 16 and 8 but keep a 4 or 2 rather than leave a lone 2 at the end.
  for (int r : stockhamRadices())
    while (r <= maxRadix && rest % r == 0 && rest > 1) {
      f.push_back(r);
      rest /= r;
    }
  if (rest != 1) {
    int p = 2;
    while (rest % p) ++p;
    throw std::invalid_argument(fmt::format("length {} has prime factor {}, which needs Bluestein (not implemented yet); "
                                            "supported radices: 2, 3, 4, 5, 7, 8, 11, 13, 16", n, p));
  }
  return f;
}

namespace {
StockhamIo parseIo(const JsonReader& rd, const Json& j, const std::string& path, int length) {
  StockhamIo io;
  io.distance = length;
  if (j.is_null()) return io;
  rd.needObject(j, path);
  rd.onlyKeys(j, path, {"stride", "distance", "offset"});
  if (j.contains("stride")) io.stride = rd.integer(j["stride"], path + "/stride", 1, 1LL << 40);
  if (j.contains("distance")) io.distance = rd.integer(j["distance"], path + "/distance", 1, 1LL << 40);
  if (j.contains("offset")) io.offset = rd.integer(j["offset"], path + "/offset", 0, 1LL << 40);
  return io;
}
}  // namespace

StockhamSpec parseStockhamSpecText(const std::string& text, const std::string& file) {
  JsonReader rd(file);
  Json root = parseJsonText(text, file);
  rd.needObject(root, "");
  rd.onlyKeys(root, "", {"name", "family", "description", "precision", "length", "direction", "placement", "input", "output", "factors"});
  StockhamSpec s;
  s.file = file;
  s.name = rd.identifier(rd.need(root, "", "name"), "/name", "name");
  if (rd.string(rd.need(root, "", "family"), "/family") != "stockham") rd.fail("/family", "expected stockham");
  s.precision = rd.string(rd.need(root, "", "precision"), "/precision");
  if (s.precision != "f32" && s.precision != "f64")
    rd.fail("/precision", fmt::format("precision '{}' is not supported by stockham yet (expected f32 or f64)", s.precision));
  int maxLen = s.precision == "f32" ? 4096 : 2048;
  s.length = static_cast<int>(rd.integer(rd.need(root, "", "length"), "/length", 1, 1 << 30));
  if (s.length > maxLen)
    rd.fail("/length", fmt::format("length {} exceeds {} for {} (one shared-memory kernel; the multi-kernel decomposition is not "
                                   "implemented yet)", s.length, maxLen, s.precision));
  if (root.contains("direction")) {
    std::string d = rd.string(root["direction"], "/direction");
    if (d != "forward" && d != "inverse") rd.fail("/direction", fmt::format("unknown direction '{}' (expected forward or inverse)", d));
    s.sign = d == "forward" ? -1 : +1;
  }
  if (root.contains("placement")) {
    std::string p = rd.string(root["placement"], "/placement");
    if (p != "in_place" && p != "out_of_place") rd.fail("/placement", fmt::format("unknown placement '{}' (expected in_place or out_of_place)", p));
    s.inPlace = p == "in_place";
  }
  s.input = parseIo(rd, root.contains("input") ? root["input"] : Json(), "/input", s.length);
  s.output = parseIo(rd, root.contains("output") ? root["output"] : Json(), "/output", s.length);
  if (s.inPlace && (s.input.stride != s.output.stride || s.input.distance != s.output.distance || s.input.offset != s.output.offset))
    rd.fail("/output", "an in_place transform needs the same stride, distance and offset for input and output");
  if (root.contains("factors")) {
    const Json& f = root["factors"];
    if (!f.is_array()) rd.fail("/factors", fmt::format("expected an array of radices, found {}", f.type_name()));
    long long prod = 1;
    for (std::size_t i = 0; i < f.size(); ++i) {
      int r = static_cast<int>(rd.integer(f[i], fmt::format("/factors/{}", i), 2, 16));
      const auto& ok = stockhamRadices();
      if (std::find(ok.begin(), ok.end(), r) == ok.end())
        rd.fail(fmt::format("/factors/{}", i), fmt::format("radix {} is not supported (expected one of 2, 3, 4, 5, 7, 8, 11, 13, 16)", r));
      s.factors.push_back(r);
      prod *= r;
    }
    if (prod != s.length) rd.fail("/factors", fmt::format("the factors multiply to {}, expected the length {}", prod, s.length));
  } else {
    try {
      s.factors = factorizeStockham(s.length, s.precision == "f64" ? 13 : 16);
    } catch (const std::invalid_argument& e) {
      rd.fail("/length", e.what());
    }
  }
  return s;
}

StockhamSpec parseStockhamSpecFile(const std::string& file) { return parseStockhamSpecText(readSpecFileText(file), file); }

}  // namespace warpforge
