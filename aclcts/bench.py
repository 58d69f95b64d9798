"""Benchmarks of the simulator: `python -m aclcts.bench [runtime|ops|all]` prints one table of figures and ratios."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

from aclcts.opmodel import OpModel, TensorSpec

ACL_INT32, ACL_FLOAT16, ACL_ND = 3, 1, 2
MIB = 1 << 20


def per_call_us(body: Callable[[], None], calls: int, repeats: int = 5) -> float:
    """Median over repeats of the mean time of one call, in microseconds."""
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            body()
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(samples)


def _session():
    import aclcts.sim
    from aclcts.sim import acl

    aclcts.sim.reset()
    acl.init()
    acl.rt.set_device(0)
    context, _ = acl.rt.create_context(0)
    stream, _ = acl.rt.create_stream()
    return acl, stream


def runtime_figures() -> list[tuple[str, float, str]]:
    """Small-call latencies and the 64 MiB host→device memcpy bandwidth against NumPy's copy."""
    acl, _ = _session()

    def desc_cycle() -> None:
        acl.destroy_tensor_desc(acl.create_tensor_desc(ACL_FLOAT16, [8, 16], ACL_ND))

    def malloc_cycle() -> None:
        ptr, _ = acl.rt.malloc(256, 2)
        acl.rt.free(ptr)

    size = 64 * MIB
    source = np.random.default_rng(0).integers(0, 255, size, dtype=np.uint8).tobytes()
    device, _ = acl.rt.malloc(size, 2)
    host_ptr = acl.util.bytes_to_ptr(source)
    copy_s = per_call_us(lambda: acl.rt.memcpy(device, size, host_ptr, size, 1), 3) / 1e6
    src_array = np.frombuffer(source, np.uint8)
    dst_array = np.empty(size, np.uint8)
    numpy_s = per_call_us(lambda: np.copyto(dst_array, src_array), 3) / 1e6
    acl.rt.free(device)
    return [
        ("create_tensor_desc + destroy_tensor_desc", per_call_us(desc_cycle, 20000) / 2, "us per call (target <= 10)"),
        ("rt.malloc(256) + rt.free", per_call_us(malloc_cycle, 20000) / 2, "us per call (target <= 10)"),
        ("memcpy 64 MiB host->device", size / copy_s / 1e9, "GB/s"),
        ("numpy copy 64 MiB", size / numpy_s / 1e9, "GB/s"),
        ("memcpy / numpy copy bandwidth", numpy_s / copy_s, "ratio (target >= 0.5)"),
    ]


def _add_model(rows: int) -> OpModel:
    spec = TensorSpec(ACL_INT32, ACL_ND, (rows, 16), ((rows, rows), (16, 16)), ACL_ND, (rows, 16))
    return OpModel("Add", (spec, spec), (spec,), (), "Ascend910B1")


def _load_models(acl, count: int) -> None:
    for rows in range(1, count + 1):
        image = _add_model(rows).to_bytes()
        acl.op.load(acl.util.bytes_to_ptr(image), len(image))


def _tiny_add(acl, stream):
    size = 16 * 4
    desc = acl.create_tensor_desc(ACL_INT32, [1, 16], ACL_ND)
    ptrs = [acl.rt.malloc(size, 2)[0] for _ in range(3)]
    bufs = [acl.create_data_buffer(p, size) for p in ptrs]
    attr = acl.op.create_attr()
    return desc, bufs, attr


def _execute_v2_us(acl, stream, calls: int) -> float:
    desc, bufs, attr = _tiny_add(acl, stream)

    def run() -> None:
        acl.op.execute_v2("Add", [desc, desc], bufs[:2], [desc], bufs[2:], attr, stream)

    result = per_call_us(run, calls)
    acl.rt.synchronize_stream(stream)
    return result


def ops_figures() -> list[tuple[str, float, str]]:
    """execute_v2 against execute_with_handle for a tiny Add, and execute_v2 with 1 / 100 / 10,000 models."""
    acl, stream = _session()
    _load_models(acl, 1)
    desc, bufs, attr = _tiny_add(acl, stream)
    handle, _ = acl.op.create_handle("Add", [desc, desc], [desc], attr)
    v2 = _execute_v2_us(acl, stream, 2000)
    with_handle = per_call_us(lambda: acl.op.execute_with_handle(handle, bufs[:2], bufs[2:], stream), 2000)
    acl.rt.synchronize_stream(stream)
    latencies = {}
    for count in (1, 100, 10000):
        acl, stream = _session()
        _load_models(acl, count)
        latencies[count] = _execute_v2_us(acl, stream, 2000)
    return [
        ("execute_v2 tiny Add", v2, "us/call"),
        ("execute_with_handle tiny Add", with_handle, "us/call"),
        ("execute_v2 / execute_with_handle", v2 / with_handle, "ratio (target > 1)"),
        ("execute_v2 with 1 model", latencies[1], "us/call"),
        ("execute_v2 with 100 models", latencies[100], "us/call"),
        ("execute_v2 with 10,000 models", latencies[10000], "us/call"),
        ("10,000 models / 1 model", latencies[10000] / latencies[1], "ratio (target <= 1.5)"),
    ]


SUITES = {"runtime": runtime_figures, "ops": ops_figures}


def main(argv: list[str] | None = None) -> int:
    """Print the figures of the chosen benchmark suites as one table."""
    argv = sys.argv[1:] if argv is None else argv
    names = argv or ["all"]
    chosen = list(SUITES) if names == ["all"] else names
    unknown = [n for n in chosen if n not in SUITES]
    if unknown:
        print(f"usage: python -m aclcts.bench [{'|'.join(SUITES)}|all]; unknown: {', '.join(unknown)}", file=sys.stderr)
        return 2
    rows = [row for name in chosen for row in SUITES[name]()]
    width = max(len(r[0]) for r in rows)
    print(f"{'figure':<{width}}  {'value':>10}  unit")
    for label, value, unit in rows:
        print(f"{label:<{width}}  {value:>10.3f}  {unit}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
