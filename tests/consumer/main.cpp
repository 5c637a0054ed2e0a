// Parse a spec, verify it, emit its kernels and plan, NVRTC-compile them for sm_90 (no GPU needed);
// on a machine with a GPU, run the plan on the family's random inputs and check it against the reference.
//   consumer SPEC
//   consumer SPEC --write-inputs DIR BATCH SEED   the family's random inputs as DIR/<input>.bin (for runtime_only)
//   consumer SPEC --check DIR BATCH SEED          DIR/<output>.bin (written by runtime_only) against the reference
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>

#include <warpforge/warpforge.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: consumer SPEC\n");
    return 2;
  }
  try {
    auto spec = warpforge::loadSpec(argv[1]);
    spec->verify();
    if (argc == 6 && (!std::strcmp(argv[2], "--write-inputs") || !std::strcmp(argv[2], "--check"))) {
      const std::string dir = argv[3];
      const long long batch = std::stoll(argv[4]);
      const warpforge::TestData data = spec->randomInputs(batch, std::stoull(argv[5]));
      const warpforge::LaunchPlan plan = spec->emit({"sm_90", nullptr}).plan;
      if (!std::strcmp(argv[2], "--write-inputs")) {
        for (const auto& [name, bytes] : data.arrays)
          std::ofstream(dir + "/" + name + ".bin", std::ios::binary)
              .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        std::printf("wrote %zu input array(s) to %s\n", data.arrays.size(), dir.c_str());
        return 0;
      }
      std::map<std::string, std::vector<unsigned char>> outputs;
      for (const auto& b : plan.buffers)
        if (b.role == warpforge::BufferRole::Output) {
          std::ifstream in(dir + "/" + b.name + ".bin", std::ios::binary);
          outputs[b.name].assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        }
      const warpforge::Check c = spec->check(data, outputs, batch);
      std::printf("%s, run by runtime_only from its plan file: error %.3e (bound %.1e), unwritten %lld: %s\n",
                  spec->name().c_str(), c.error, c.bound, c.unwritten, c.ok() ? "OK" : "FAILED");
      return c.ok() ? 0 : 1;
    }
    warpforge::NvrtcProbe probe;
    warpforge::Generated g = spec->emit({"sm_90", &probe});
    warpforge::Compiler compiler;
    for (const auto& s : g.plan.sources) {
      warpforge::CompiledModule m = compiler.compile(s.text, g.plan.specName, warpforge::compileTarget(s, "sm_90"));
      std::printf("%s: %s -> %zu bytes of sm_90 CUBIN\n", spec->name().c_str(), s.fileName.c_str(), m.cubin.size());
    }
    std::printf("plan: %zu kernel(s), header %zu bytes\n", g.plan.kernels.size(),
                warpforge::launchPlanHeader(g.plan).size());
    if (!warpforge::deviceAvailable()) {
      std::printf("no GPU (%s): compiled only\n", warpforge::deviceUnavailableReason().c_str());
      return 0;
    }
    // On the GPU: the plan made for this device, the family's inputs, outputs poisoned, checked against the reference.
    const std::string arch = warpforge::deviceInfo(0).arch;
    warpforge::Executor exec(compiler, spec->emit({arch, &probe}).plan);
    warpforge::ScopedContext scope(exec.context());
    const long long batch = 1000;
    warpforge::TestData data = spec->randomInputs(batch, 42);
    std::map<std::string, std::unique_ptr<warpforge::DeviceBuffer>> buffers;
    warpforge::ArrayBindings arrays;
    for (const auto& b : exec.plan().buffers) {
      if (!b.isUser() || !b.aliasOf.empty()) continue;
      const long long bytes = exec.arrayBytes(b.name, batch);
      auto d = std::make_unique<warpforge::DeviceBuffer>(bytes);
      if (b.role == warpforge::BufferRole::Input)
        warpforge::checkCu(cuMemcpyHtoD(d->p, data.arrays.at(b.name).data(), bytes), "upload");
      else warpforge::checkCu(cuMemsetD8(d->p, 0xff, bytes), "poison");
      arrays[b.name] = d->p;
      buffers[b.name] = std::move(d);
    }
    exec.run(arrays, batch);
    warpforge::checkCu(cuCtxSynchronize(), "run");
    std::map<std::string, std::vector<unsigned char>> outputs;
    for (const auto& b : exec.plan().buffers) {
      if (b.role != warpforge::BufferRole::Output) continue;
      std::vector<unsigned char> bytes(exec.arrayBytes(b.name, batch));
      warpforge::checkCu(cuMemcpyDtoH(bytes.data(), buffers.at(b.aliasOf.empty() ? b.name : b.aliasOf)->p,
                                      bytes.size()),
                         "download");
      outputs[b.name] = std::move(bytes);
    }
    warpforge::Check c = spec->check(data, outputs, batch);
    std::printf("%s on %s: error %.3e (bound %.1e), unwritten %lld: %s\n", spec->name().c_str(),
                exec.device().name.c_str(), c.error, c.bound, c.unwritten, c.ok() ? "OK" : "FAILED");
    return c.ok() ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
