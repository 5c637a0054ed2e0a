"""warpforge: specialised, layout-checked CUDA kernels from JSON specs.

    import warpforge
    spec = warpforge.Spec("specs/correlator_meerkat_80_8bit.json")   # or Spec({...}) from a dict
    spec.verify()                                  # {'text', 'counts', 'warnings'}; raises InconsistentSpec
    plan = spec.plan("sm_90")                      # through the on-disk plan cache
    exe = warpforge.Executor(plan, device=0)       # NVRTC (cached), load, tables uploaded
    exe.run({"input": x, "accumulators": acc, "visibilities": v}, batch=1, stream=s)   # CuPy / PyTorch / DLPack arrays

Errors: SpecError and PlanError carry .file, .path (the JSON pointer) and .detail; InconsistentSpec carries
.issues [(path, message)]; CompileError carries the NVRTC .log.
"""
from ._warpforge import (  # noqa: F401
    CompileError,
    Executor,
    Inputs,
    InconsistentSpec,
    Plan,
    PlanError,
    Spec,
    SpecError,
    __version__,
    device_count,
    device_unavailable_reason,
    families,
    load_plan,
)

__all__ = [
    "CompileError", "Executor", "Inputs", "InconsistentSpec", "Plan", "PlanError", "Spec", "SpecError",
    "device_count", "device_unavailable_reason", "families", "load_plan", "run_checked",
]


def run_checked(spec, executor, batch, seed, upload, download, stream=None, synchronize=None):
    """Runs `executor` on the spec's random inputs the way `warpforge run` does and returns Spec.check's dict.

    upload(bytes) -> a device array holding those bytes; download(array) -> bytes on the host;
    synchronize(): waits for `stream`. Outputs are poisoned with 0xff bytes before the run, so an output the plan
    leaves unwritten is reported."""
    inputs = spec.random_inputs(batch, seed)
    arrays, outputs = {}, {}
    for name, role in executor.plan.arrays.items():
        if role == "input":
            arrays[name] = upload(inputs.arrays[name][: executor.array_bytes(name, batch)])
        else:
            arrays[name] = upload(b"\xff" * executor.array_bytes(name, batch))
    for b in executor.plan.buffers:
        if b["role"] == "output":
            outputs[b["name"]] = b["alias_of"] or b["name"]  # an in-place output is read from its input's array
    executor.run(arrays, batch, stream=stream)
    if synchronize is not None:
        synchronize()
    return spec.check(inputs, {k: bytes(download(arrays[v]))[: executor.array_bytes(k, batch)] for k, v in outputs.items()}, batch)
