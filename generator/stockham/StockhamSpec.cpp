#include "generator/stockham/StockhamSpec.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "generator/core/JsonReader.h"
#include "generator/stockham/BluesteinLength.h"
#include "generator/stockham/CoopRadix.h"
#include "generator/stockham/StockhamLayout.h"
#include "generator/stockham/StockhamPlan.h"

namespace warpforge {

const char* precisionName(Precision p) { return p == Precision::F16 ? "f16" : p == Precision::F32 ? "f32" : "f64"; }
const char* transformName(Transform t) { return t == Transform::C2C ? "c2c" : t == Transform::R2C ? "r2c" : "c2r"; }

const std::vector<int>& stockhamRadices() {
  // Largest first: composite odd radices (9 = 3x3, 25 = 5x5, 27, 49) save passes and barriers.
  // The primes 17..31 are butterflies of the symmetric odd-prime form (Butterfly.h, constants in
  // the code): a length such as 323 = 17 x 19 is one kernel instead of a 1024-point Bluestein pair.
  // The primes 37..127 are cooperative passes (CoopRadix.h), taken where the whole FFT is one kernel.
  static const std::vector<int> r = {127, 113, 109, 107, 103, 101, 97, 89, 83, 79, 73, 71, 67, 61, 59, 53, 47, 43, 41,
                                     37,  49,  31,  29,  27,  25,  23, 19, 17, 16, 13, 11, 9,  8,  7,  5,  4,  3,  2};
  return r;
}

bool isLargePrimeRadix(int r) { return r >= 17 && r <= kMaxCoopRadix && isPrimeNumber(r); }

int maxPrimeRadix(Precision precision) { return threadPrimeLimit(precision == Precision::F64); }

bool explicitFactorsApply(const std::vector<int>& lengths, bool real, Precision precision) {
  return lengths.size() == 1 && !real && lengths[0] <= maxOneKernelLength(precision, "sm_90") &&
         isSmooth(lengths[0], maxPrimeRadix(precision));
}

bool isCoopSmooth(long long n, int maxPrime) {
  for (int p = maxPrime + 1; p <= kMaxCoopRadix; ++p)
    if (isCoopRadix(p, maxPrime))
      while (n % p == 0) n /= p;
  return isSmooth(n, maxPrime);
}

bool isSmooth(long long n, int maxPrime) {
  for (int p = 2; p <= std::max(13, maxPrime); ++p)
    if (isPrimeNumber(p))
      while (n % p == 0) n /= p;
  return n == 1;
}

// One FFT per block: 16384 complex floats (f16 computes in float) take 139 KiB of shared
// memory and 1024 threads holding 16 values each in 64 registers; f64 stops at 4096.
int maxSingleKernelLength(Precision precision) { return precision == Precision::F64 ? 4096 : 16384; }
int maxConvolveKernelLength(Precision precision) { return precision == Precision::F64 ? 4096 : 16384; }
int maxSplitRowLength(Precision precision) { return precision == Precision::F64 ? 8192 : 16384; }
// Halves up to 4096 complex points always take the fused r2c/c2r kernel; longer ones only where it runs enough
// threads (RealPlan.cpp).
int maxFusedRealHalf(Precision) { return 4096; }
int maxSplitKernelHalf(Precision precision) { return precision == Precision::F64 ? 8192 : 16384; }
long long maxLength(Precision precision) { return precision == Precision::F64 ? 1LL << 24 : 1LL << 26; }
// The tables of a length-M convolution for n <= M / 2 hold n + M + n complex values in the
// compute type: 256 MiB at M = 2^24 (f32) or 2^23 (f64). At 2^26 emit took 104 s and 10 GB and
// wrote a 4 GB header.
long long maxRealLength(Precision precision) { return precision == Precision::F64 ? 1LL << 23 : 1LL << 24; }
long long maxBluesteinLength(Precision precision) { return precision == Precision::F64 ? 1LL << 23 : 1LL << 24; }

long long StockhamSpec::points() const {
  long long p = 1;
  for (int n : lengths) p *= n;
  return p;
}

std::vector<long long> StockhamSpec::inShape() const {
  std::vector<long long> s(lengths.begin(), lengths.end());
  if (transform == Transform::C2R) s.back() = s.back() / 2 + 1;
  return s;
}

std::vector<long long> StockhamSpec::outShape() const {
  std::vector<long long> s(lengths.begin(), lengths.end());
  if (transform == Transform::R2C) s.back() = s.back() / 2 + 1;
  return s;
}

std::vector<long long> denseStrides(const std::vector<long long>& shape) {
  std::vector<long long> st(shape.size());
  long long acc = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    st[d] = acc;
    acc *= shape[d];
  }
  return st;
}

namespace {

StockhamIo parseIo(const JsonReader& rd, const Json& j, const std::string& path, const std::vector<long long>& shape,
                   bool isInput) {
  StockhamIo io;
  io.strides = denseStrides(shape);
  io.distance = 1;
  for (long long n : shape) io.distance *= n;
  if (j.is_null()) return io;
  rd.needObject(j, path);
  if (isInput) rd.onlyKeys(j, path, {"stride", "strides", "distance", "offset", "layout", "type", "length"});
  else rd.onlyKeys(j, path, {"stride", "strides", "distance", "offset", "layout"});
  if (j.contains("stride") && j.contains("strides"))
    rd.fail(path + "/stride", "both 'stride' and 'strides' given (expected one: 'stride' for 1D, or 'strides')");
  if (j.contains("stride")) {
    if (shape.size() != 1)
      rd.fail(path + "/stride",
              fmt::format("'stride' is for 1D transforms; use 'strides' with {} entries", shape.size()));
    io.strides = {rd.integer(j["stride"], path + "/stride", 1, 1LL << 40)};
    io.stridesKey = "stride";
  }
  if (j.contains("strides")) {
    const Json& s = j["strides"];
    if (!s.is_array() || s.size() != shape.size())
      rd.fail(path + "/strides",
              fmt::format("expected an array of {} strides (one per dimension, outermost first)", shape.size()));
    for (std::size_t d = 0; d < shape.size(); ++d)
      io.strides[d] = rd.integer(s[d], fmt::format("{}/strides/{}", path, d), 1, 1LL << 40);
    io.stridesKey = "strides";
  }
  if (j.contains("distance")) io.distance = rd.integer(j["distance"], path + "/distance", 1, 1LL << 40);
  if (j.contains("offset")) io.offset = rd.integer(j["offset"], path + "/offset", 0, 1LL << 40);
  if (j.contains("layout")) {
    std::string l = rd.string(j["layout"], path + "/layout");
    if (l != "interleaved" && l != "planar")
      rd.fail(path + "/layout", fmt::format("unknown layout '{}' (expected interleaved or planar)", l));
    io.planar = l == "planar";
  }
  if (j.contains("type")) {
    const std::string t = rd.string(j["type"], path + "/type");
    if (t != "ci8" && t != "ci4")
      rd.fail(path + "/type",
              fmt::format("unknown input type '{}' (expected ci8 or ci4; omit for the precision's own type)", t));
    io.type = t == "ci8" ? InputType::CI8 : InputType::CI4;
  }
  if (j.contains("length")) {
    if (shape.size() != 1)
      rd.fail(path + "/length", "an input length (implicit zero padding) is supported for 1D transforms only");
    io.validLength = rd.integer(j["length"], path + "/length", 1, shape[0]);
  }
  return io;
}

// "tuning": launch-geometry overrides, as `warpforge bench --tune` prints them.
KernelTuning parseTuning(const JsonReader& rd, const Json& j, Precision precision) {
  const std::string path = "/tuning";
  rd.needObject(j, path);
  rd.onlyKeys(j, path,
              {"threads_per_fft", "block_threads",   "register_target", "direct_load", "direct_store",  "persistent",
               "index_per_group", "derive_twiddles", "work_queue",      "fused_split", "column_values", "bluestein",
               "fuse_axes",       "three_kernels",   "half_scratch",    "real_split",  "spill_bytes",   "split",
               "pair_batch",      "prefetch",        "streamed_prime"});
  KernelTuning t;
  if (j.contains("threads_per_fft"))
    t.threadsPerFft = static_cast<int>(rd.integer(j["threads_per_fft"], path + "/threads_per_fft", 1, 1024));
  if (j.contains("block_threads"))
    t.blockThreads = static_cast<int>(rd.integer(j["block_threads"], path + "/block_threads", 32, 1024));
  if (j.contains("bluestein")) {
    // "smooth", "power_of_two", or the convolution length M itself (checked against the length below, in
    // parseStockhamSpec)
    if (j["bluestein"].is_number_integer()) {
      t.bluesteinLength = rd.integer(j["bluestein"], path + "/bluestein", 3, maxBluesteinLength(precision));
      if (!isSmooth(t.bluesteinLength, maxPrimeRadix(precision)))
        rd.fail(path + "/bluestein", fmt::format("{} is not a product of radix primes (2..{})", t.bluesteinLength,
                                                 maxPrimeRadix(precision)));
    } else {
      const std::string b = rd.string(j["bluestein"], path + "/bluestein");
      if (b != "smooth" && b != "power_of_two")
        rd.fail(path + "/bluestein",
                fmt::format("\"{}\" (expected \"smooth\", \"power_of_two\" or a convolution length)", b));
      t.bluestein = b == "power_of_two" ? BluesteinRule::PowerOfTwo : BluesteinRule::Smooth;
    }
  }
  if (j.contains("column_values"))
    t.columnValues = static_cast<int>(rd.integer(j["column_values"], path + "/column_values", 1, 64));
  if (j.contains("split")) t.split = static_cast<int>(rd.integer(j["split"], path + "/split", 2, 1 << 20));
  if (j.contains("spill_bytes"))
    t.spillBytes = static_cast<int>(rd.integer(j["spill_bytes"], path + "/spill_bytes", 0, 256));
  if (j.contains("register_target"))
    t.registerTarget = static_cast<int>(rd.integer(j["register_target"], path + "/register_target", 32, 255));
  auto flag = [&](const char* key, std::optional<bool>& out) {
    if (!j.contains(key)) return;
    if (!j[key].is_boolean())
      rd.fail(path + "/" + key, fmt::format("expected true or false, found {}", j[key].type_name()));
    out = j[key].get<bool>();
  };
  flag("direct_load", t.directLoad);
  flag("direct_store", t.directStore);
  flag("persistent", t.persistent);
  flag("index_per_group", t.indexPerGroup);
  flag("derive_twiddles", t.deriveTwiddles);
  flag("work_queue", t.workQueue);
  flag("fused_split", t.fusedSplit);
  flag("fuse_axes", t.fuseAxes);
  flag("three_kernels", t.threeKernels);
  flag("half_scratch", t.halfScratch);
  flag("pair_batch", t.pairBatch);
  flag("streamed_prime", t.streamedPrime);
  flag("prefetch", t.prefetch);
  if (j.contains("real_split")) {
    const std::string v = rd.string(j["real_split"], path + "/real_split");
    if (v == "fused") t.realSplit = RealSplit::Fused;
    else if (v == "kernel") t.realSplit = RealSplit::Kernel;
    else if (v == "mirrored") t.realSplit = RealSplit::Mirrored;
    else rd.fail(path + "/real_split", fmt::format("\"{}\" (expected \"fused\", \"kernel\" or \"mirrored\")", v));
  }
  return t;
}

}  // namespace

StockhamSpec parseStockhamSpec(const Json& root, const std::string& file) {
  JsonReader rd(file);
  rd.needObject(root, "");
  rd.onlyKeys(root, "",
              {"name", "family", "description", "precision", "transform", "length", "lengths", "direction", "placement",
               "input", "output", "factors", "tuning"});
  StockhamSpec s;
  s.file = file;
  s.name = rd.identifier(rd.need(root, "", "name"), "/name", "name");
  if (rd.string(rd.need(root, "", "family"), "/family") != "stockham") rd.fail("/family", "expected stockham");
  const std::string precision = rd.string(rd.need(root, "", "precision"), "/precision");
  if (precision != "f16" && precision != "f32" && precision != "f64")
    rd.fail("/precision", fmt::format("unknown precision '{}' (expected f16, f32 or f64)", precision));
  s.precision = precision == "f16" ? Precision::F16 : precision == "f32" ? Precision::F32 : Precision::F64;
  if (root.contains("transform")) {
    const std::string t = rd.string(root["transform"], "/transform");
    if (t != "c2c" && t != "r2c" && t != "c2r")
      rd.fail("/transform", fmt::format("unknown transform '{}' (expected c2c, r2c or c2r)", t));
    s.transform = t == "c2c" ? Transform::C2C : t == "r2c" ? Transform::R2C : Transform::C2R;
  }
  const long long maxLen = maxLength(s.precision);
  const int maxDimLen = maxSingleKernelLength(s.precision);
  if (root.contains("length") == root.contains("lengths"))
    rd.fail("/length", "give exactly one of 'length' (1D) or 'lengths' (1 to 3 dimensions)");
  if (root.contains("length")) {
    if (root["length"].is_array())
      rd.fail("/length", "an array (a multi-dimensional transform gives its lengths as \"lengths\": [..., innermost])");
    s.lengths = {static_cast<int>(rd.integer(root["length"], "/length", 1, maxLen))};
  } else {
    const Json& l = root["lengths"];
    if (!l.is_array() || l.empty() || l.size() > 3)
      rd.fail("/lengths", "expected an array of 1 to 3 lengths, outermost first");
    for (std::size_t d = 0; d < l.size(); ++d)
      s.lengths.push_back(
          static_cast<int>(rd.integer(l[d], fmt::format("/lengths/{}", d), 1, l.size() == 1 ? maxLen : maxDimLen)));
  }
  const std::string lenPath = root.contains("length") ? "/length" : fmt::format("/lengths/{}", s.lengths.size() - 1);
  if (s.transform == Transform::C2R) s.sign = +1;
  if (root.contains("direction")) {
    std::string d = rd.string(root["direction"], "/direction");
    if (d != "forward" && d != "inverse")
      rd.fail("/direction", fmt::format("unknown direction '{}' (expected forward or inverse)", d));
    s.sign = d == "forward" ? -1 : +1;
  }
  if (s.transform == Transform::R2C && s.sign != -1) rd.fail("/direction", "r2c is a forward transform");
  if (s.transform == Transform::C2R && s.sign != +1) rd.fail("/direction", "c2r is an inverse transform");
  if (s.real() && s.lengths.size() == 1 && s.length() > maxRealLength(s.precision))
    rd.fail(lenPath, fmt::format("{} lengths run to {} in {} (found {})", transformName(s.transform),
                                 maxRealLength(s.precision), precisionName(s.precision), s.length()));
  // The complex transform the length runs as (an even real length: its half; an odd one: itself) takes Bluestein where
  // it has a prime factor above the radices: a convolution of length >= 2n - 1 (bluesteinLength).
  const long long complexN = s.lengths.size() == 1 ? s.complexLength() : 0;
  if (complexN && !isSmooth(complexN, maxPrimeRadix(s.precision))) {
    const long long m = bluesteinLength(complexN,
                                        true);  // the limit holds for either choice (power of two: the longer)
    const long long maxConv = maxBluesteinLength(s.precision);
    if (m > maxConv)
      rd.fail(lenPath,
              fmt::format("length {} {}has a prime factor above 31; Bluestein would need a length-{} convolution, "
                          "above {} (the limit "
                          "that keeps its chirp tables within 256 MiB; the largest such length is {})",
                          s.length(), complexN != s.length() ? fmt::format("(a complex half of {}) ", complexN) : "", m,
                          maxConv, s.real() && s.length() % 2 == 0 ? maxConv : maxConv / 2));
  }
  if (root.contains("placement")) {
    std::string p = rd.string(root["placement"], "/placement");
    if (p != "in_place" && p != "out_of_place")
      rd.fail("/placement", fmt::format("unknown placement '{}' (expected in_place or out_of_place)", p));
    s.inPlace = p == "in_place";
  }
  s.input = parseIo(rd, root.contains("input") ? root["input"] : Json(), "/input", s.inShape(), true);
  s.output = parseIo(rd, root.contains("output") ? root["output"] : Json(), "/output", s.outShape(), false);
  if (s.transform == Transform::R2C && s.input.planar)
    rd.fail("/input/layout", "the real input of r2c has no planar form");
  if (s.transform == Transform::C2R && s.output.planar)
    rd.fail("/output/layout", "the real output of c2r has no planar form");
  if (s.input.type != InputType::Native && s.real())
    rd.fail("/input/type", "int8/int4 input is implemented for c2c only");
  if (s.input.type == InputType::CI4 && s.input.planar)
    rd.fail("/input/type", "ci4 packs re and im in one byte; it has no planar form");
  if (s.input.validLength >= 0 && s.real())
    rd.fail("/input/length", "implicit zero padding is implemented for c2c only");
  if (s.inPlace) {
    if (s.real()) rd.fail("/placement", "in_place is implemented for c2c only");
    if (s.input.type != InputType::Native || s.input.validLength >= 0)
      rd.fail("/placement", "in_place needs the input and output in the same type and length");
    if (s.input.strides != s.output.strides || s.input.distance != s.output.distance ||
        s.input.offset != s.output.offset || s.input.planar != s.output.planar)
      rd.fail("/output",
              "an in_place transform needs the same strides, distance, offset and layout for input and output");
  }
  if (root.contains("factors")) {
    // (Up to the longest one kernel takes on any arch; planning for an arch with less shared memory says so.)
    const int maxOne = maxOneKernelLength(s.precision, "sm_90");
    if (!explicitFactorsApply(s.lengths, s.real(), s.precision))
      rd.fail("/factors", fmt::format("explicit factors are for 1D c2c lengths up to {} (one kernel on sm_90) with "
                                      "radix prime factors",
                                      maxOne));
    const Json& f = root["factors"];
    if (!f.is_array()) rd.fail("/factors", fmt::format("expected an array of radices, found {}", f.type_name()));
    long long prod = 1;
    for (std::size_t i = 0; i < f.size(); ++i) {
      int r = static_cast<int>(rd.integer(f[i], fmt::format("/factors/{}", i), 2, 49));
      // Any radix up to 32 is a straight-line DFT (Butterfly.h splits composites, primes take the
      // symmetric form), so a factorization such as 48 = 12 x 4 can be tried; 49 as the largest.
      if (r > 32 && r != 49)
        rd.fail(fmt::format("/factors/{}", i), fmt::format("radix {} is not supported (expected 2..32 or 49)", r));
      s.factors.push_back(r);
      // Stop as soon as the running product passes the length: a long list must not wrap around
      // 2^64 back to the length and hand the planner millions of passes.
      prod *= r;  // <= 16384 * 49 here: no overflow
      if (prod > s.length())
        rd.fail(fmt::format("/factors/{}", i),
                fmt::format("the factors up to here multiply to {}, more than the length {}", prod, s.length()));
    }
    if (prod != s.length())
      rd.fail("/factors", fmt::format("the factors multiply to {}, expected the length {}", prod, s.length()));
  }
  if (root.contains("tuning")) s.tuning = parseTuning(rd, root["tuning"], s.precision);
  if (s.tuning.bluesteinLength > 0) {
    // A Bluestein convolution serves the transform's length (c2c) or its complex half (r2c / c2r).
    const long long n = s.complexLength();
    if (s.tuning.bluesteinLength < 2 * n - 1)
      rd.fail("/tuning/bluestein",
              fmt::format("a convolution of length {} is too short for length {} (expected at least 2 x {} - 1 = {})",
                          s.tuning.bluesteinLength, n, n, 2 * n - 1));
  }
  checkStockhamLayouts(s);
  return s;
}

StockhamSpec parseStockhamSpecText(const std::string& text, const std::string& file) {
  return parseStockhamSpec(parseJsonText(text, file), file);
}
StockhamSpec parseStockhamSpecFile(const std::string& file) {
  return parseStockhamSpecText(readSpecFileText(file), file);
}

}  // namespace warpforge
