// One process drives every visible GPU: one executor per device, each on its own stream. A correlator's channels
// split over two GPUs (each runs the spec of half the channels on its own channels, as a telescope's engines do)
// give bit for bit the visibilities of the whole spec on one GPU, which the CPU reference checks. Skipped with
// fewer than two GPUs.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <random>

#include "warpforge/cached_emit.h"
#include "warpforge/executor.h"

namespace warpforge {
namespace {

Json correlatorSpec(const std::string& name, int channels) {
  // TCC's layout is channel-major ([channel][time / T][receiver][pol][T]), so half the channels are half the bytes.
  Json j = Json::parse(
      R"({"family": "correlator", "receivers": 96, "polarizations": 2, "samples_per_call": 512, "sample_type": "ci8",
                            "input": {"layout": "tcc"}})");
  j["name"] = name;
  j["channels"] = channels;
  return j;
}

// The arrays of one run on one device: inputs uploaded, outputs poisoned, in the executor's context.
struct DeviceRun {
  std::unique_ptr<Executor> exec;
  std::unique_ptr<Stream> stream;
  std::map<std::string, std::unique_ptr<DeviceBuffer>> buffers;
  ArrayBindings arrays;

  DeviceRun(Compiler& compiler, const LaunchPlan& plan, int device,
            const std::map<std::string, std::vector<unsigned char>>& inputs) {
    exec = std::make_unique<Executor>(compiler, plan, ExecutorOptions{device, false});
    ScopedContext scope(exec->context());
    stream = std::make_unique<Stream>();
    for (const auto& b : plan.buffers) {
      if (!b.isUser() || !b.aliasOf.empty()) continue;
      const std::size_t bytes = static_cast<std::size_t>(exec->arrayBytes(b.name, 1));
      auto d = std::make_unique<DeviceBuffer>(bytes);
      if (b.role == BufferRole::Input) {
        if (inputs.at(b.name).size() < bytes) throw std::logic_error("input " + b.name + " is too short");
        checkCu(cuMemcpyHtoD(d->p, inputs.at(b.name).data(), bytes), "upload");
      } else {
        checkCu(cuMemsetD8(d->p, 0xff, bytes), "poison");
      }
      arrays[b.name] = d->p;
      buffers[b.name] = std::move(d);
    }
  }
  void start() { exec->run(arrays, 1, stream->get()); }
  std::vector<unsigned char> download(const std::string& name) {
    ScopedContext scope(exec->context());
    stream->synchronize();
    std::vector<unsigned char> out(buffers.at(name)->bytes);
    checkCu(cuMemcpyDtoH(out.data(), buffers.at(name)->p, out.size()), "download");
    return out;
  }
};

std::vector<unsigned char> half(const std::vector<unsigned char>& v, int h) {
  EXPECT_EQ(v.size() % 2, 0u);
  return std::vector<unsigned char>(v.begin() + h * v.size() / 2, v.begin() + (h + 1) * v.size() / 2);
}

TEST(MultiGpu, CorrelatorChannelsSplitOverTwoGpusAreBitExact) {
  if (!deviceAvailable()) GTEST_SKIP() << deviceUnavailableReason();
  if (deviceCount() < 2) GTEST_SKIP() << "needs two GPUs; this machine has " << deviceCount();
  const std::uint64_t seed = std::random_device()();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  Compiler compiler;
  const std::string arch = deviceInfo(0).arch;
  const Json wholeJson = correlatorSpec("split_whole", 16), halfJson = correlatorSpec("split_half", 8);
  auto whole = parseSpec(wholeJson, "split_whole.json");
  const LaunchPlan wholePlan = emitCached(wholeJson, "split_whole.json", arch).plan;
  const LaunchPlan halfPlan = emitCached(halfJson, "split_half.json", deviceInfo(1).arch).plan;
  TestData data = whole->randomInputs(1, seed);

  DeviceRun one(compiler, wholePlan, 0, data.arrays);
  one.start();
  std::map<std::string, std::vector<unsigned char>> outputs;
  for (const auto& b : wholePlan.buffers)
    if (b.role == BufferRole::Output) outputs[b.name] = one.download(b.aliasOf.empty() ? b.name : b.aliasOf);
  const Check c = whole->check(data, outputs, 1);
  ASSERT_TRUE(c.ok()) << c.detail;

  // The two halves at once, each device on its own stream.
  std::vector<std::unique_ptr<DeviceRun>> parts;
  for (int d = 0; d < 2; ++d) {
    std::map<std::string, std::vector<unsigned char>> in;
    in["input"] = half(data.arrays.at("input"), d);
    in["accumulators"] = half(data.arrays.at("accumulators"), d);
    in["missing"] = data.arrays.at("missing");
    parts.push_back(std::make_unique<DeviceRun>(compiler, halfPlan, d, in));
  }
  for (auto& p : parts) p->start();
  std::vector<unsigned char> vis;
  unsigned long long saturated = 0;
  for (int d = 0; d < 2; ++d) {
    EXPECT_EQ(parts[d]->exec->device().device, d);
    const auto v = parts[d]->download("visibilities");
    vis.insert(vis.end(), v.begin(), v.end());
    unsigned long long s = 0;
    std::memcpy(&s, parts[d]->download("saturated").data(), sizeof s);
    saturated += s;
  }
  EXPECT_TRUE(vis == outputs.at("visibilities"))
      << "the channels split over two GPUs differ from the whole spec on one";
  unsigned long long wholeSaturated = 0;
  std::memcpy(&wholeSaturated, outputs.at("saturated").data(), sizeof wholeSaturated);
  EXPECT_EQ(saturated, wholeSaturated);
}

}  // namespace
}  // namespace warpforge
