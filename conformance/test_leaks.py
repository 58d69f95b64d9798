"""Leak checks: device memory (get_mem_info) and host memory (RSS, tracemalloc) over repeated lifecycles.

Object leaks (a desc, buffer, attr, handle, stream or allocation left alive) fail every test through the
`acl` fixture. Here, N cycles of each lifecycle must leave get_mem_info's free device memory where it
started — exactly, except on the NPU where the runtime may keep caches (NPU_DEVICE_BOUND) — and host
memory may grow by at most the stated bounds.
"""

from __future__ import annotations

import gc
import os
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from aclcts.drive import flow

from aclcts.drive import executor
from aclcts.cases import Case
from aclcts.cases.values import draw_inputs
from aclcts.core.constants import DataType, Format, MemMallocPolicy
from aclcts.pytest_plugin.library import library_cases
from aclcts.pytest_plugin.run_backend import run_capabilities

pytestmark = pytest.mark.leak

FP16, FP32, INT8, INT32 = (int(d) for d in (DataType.ACL_FLOAT16, DataType.ACL_FLOAT, DataType.ACL_INT8,
                                            DataType.ACL_INT32))
ND = int(Format.ACL_FORMAT_ND)
NORMAL = int(MemMallocPolicy.ACL_MEM_MALLOC_NORMAL_ONLY)
MIB = 1 << 20
#: Cycles of each device-memory lifecycle, after one warm-up cycle outside the measurement.
CYCLES = 20
#: Free device memory may differ by this much after CYCLES cycles on the NPU (runtime caches, workspace
#: grown on demand); every other backend must return exactly to the start.
NPU_DEVICE_BOUND = 2 * MIB
#: Host-memory cycles, after HOST_WARMUP unmeasured ones.
HOST_CYCLES, HOST_WARMUP = 200, 20
#: Python allocations a cycle may leave behind (the simulator keeps about 600 bytes of history per cycle for
#: its use-after-destroy reports); leaking any payload of these cycles (64 KiB) exceeds it.
TRACEMALLOC_BOUND_PER_CYCLE = 2048
#: Growth of the resident set over HOST_CYCLES cycles; leaking one 64 KiB payload per cycle would be 12.5 MiB.
RSS_BOUND = 6 * MIB
PAYLOAD = 64 << 10
SYNC_TIMEOUT_MS = 10_000
#: Supported gemm_ex data-type triples (A, B, C), docs/contract/handles-blas-cast.md#supported-data-types.
GEMM_TRIPLES = {(FP16, FP16, FP16), (FP16, FP16, FP32), (INT8, INT8, FP32), (INT8, INT8, INT32)}


def synchronize(acl: Any, stream: int) -> None:
    """synchronize_stream_with_timeout, failing instead of hanging."""
    flow.check(acl.rt.synchronize_stream_with_timeout(stream, SYNC_TIMEOUT_MS), "acl.rt.synchronize_stream_with_timeout")


def library(config: pytest.Config, family: str, wanted: Callable[[Case], bool], what: str) -> Case:
    """The first case of the run's case library (--cases, else cases/) of the family that `wanted` accepts; skip if
    none."""
    for case in library_cases(config):
        if case.family == family and wanted(case):
            return case
    pytest.skip(f"no {what} case in the run's case library; that lifecycle is not checked")


def _is_flow_case(case: Case) -> bool:
    """A case the lifecycle tests can run with an empty attr (they pass no attribute values)."""
    return ("handle" in case.modes and len(case.outputs) == 1 and not case.attrs
            and all(t.const is None for t in case.inputs)
            and all(t.shape and 0 not in t.shape for t in case.inputs + case.outputs))


def _is_gemm_case(case: Case) -> bool:
    attrs = case.attr_values()
    return (case.op == "GEMM" and Path(case.file).name.startswith("gemm") and case.format == ND
            and not attrs.get("transpose_a") and not attrs.get("transpose_b")
            and (case.inputs[0].dtype, case.inputs[1].dtype, case.inputs[2].dtype) in GEMM_TRIPLES)


def _is_cast_case(case: Case) -> bool:
    return case.op == "Cast" and bool(case.inputs[0].shape) and "handle" in case.modes


@pytest.fixture(scope="module")
def flow_case(pytestconfig: pytest.Config) -> Case:
    """The first static elementwise case with one output (inputs and output all non-empty)."""
    return library(pytestconfig, "elementwise", _is_flow_case, "static elementwise")


@pytest.fixture
def res(acl: Any) -> Iterator[flow.Resources]:
    """Objects set up before the measurement, released at the test's end."""
    with flow.resources(acl) as held:
        yield held


def device_bound(config: pytest.Config) -> int:
    """How far free device memory may move over CYCLES cycles on this backend (on a real device it moves by itself)."""
    return NPU_DEVICE_BOUND if run_capabilities(config).real_device else 0


def assert_device_memory_returns(acl: Any, config: pytest.Config, what: str, cycle: Callable[[], None]) -> None:
    """One warm-up cycle, then CYCLES cycles: get_mem_info's free must come back to where it was."""
    cycle()
    start = flow.device_free_bytes(acl)
    for _ in range(CYCLES):
        cycle()
    end = flow.device_free_bytes(acl)
    bound = device_bound(config)
    assert abs(start - end) <= bound, (
        f"{what}: free device memory went from {start} to {end} bytes over {CYCLES} cycles "
        f"({(start - end) / CYCLES:+.0f} bytes lost per cycle; bound {bound} bytes in total)")


# ---------------------------------------------------------------- device memory


def test_get_mem_info_moves_on_malloc_and_back_on_free(acl):
    start = flow.device_free_bytes(acl)
    ptr = flow.value(acl.rt.malloc(3 * MIB, NORMAL), "acl.rt.malloc")
    try:
        during = flow.device_free_bytes(acl)
    finally:
        flow.check(acl.rt.free(ptr), "acl.rt.free")
    assert start - during >= 3 * MIB, f"get_mem_info free moved by {start - during} bytes for a 3 MiB malloc"
    assert flow.device_free_bytes(acl) == start, "get_mem_info free did not return after the free"


@pytest.mark.memory
@pytest.mark.parametrize("sizes", [[1, 100, 4096], [3 * MIB], [33, 64 << 10, 1000]], ids=["small", "3MiB", "mixed"])
@pytest.mark.parametrize("allocator", ["malloc", "malloc_cached", "malloc_align32"])
def test_malloc_free_cycles_return_device_memory(acl, pytestconfig, allocator, sizes):
    allocate = getattr(acl.rt, allocator)

    def cycle() -> None:
        pointers = [flow.value(allocate(size, NORMAL), f"acl.rt.{allocator}({size})") for size in sizes]
        for ptr in pointers:
            flow.check(acl.rt.free(ptr), "acl.rt.free")

    assert_device_memory_returns(acl, pytestconfig, f"acl.rt.{allocator} / acl.rt.free of {sizes}", cycle)


@pytest.mark.sync
def test_stream_create_use_destroy_cycles_return_device_memory(acl, pytestconfig, res):
    ptr = flow.malloc(res, 4096)

    def cycle() -> None:
        stream = flow.value(acl.rt.create_stream(), "acl.rt.create_stream")
        flow.check(acl.rt.memset_async(ptr, 4096, 1, 4096, stream), "acl.rt.memset_async")
        synchronize(acl, stream)
        flow.check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")

    assert_device_memory_returns(acl, pytestconfig, "create_stream / destroy_stream", cycle)


@pytest.mark.handle
def test_create_destroy_handle_cycles_return_device_memory(acl, pytestconfig, res, flow_case):
    descs = [flow.create_desc(res, t.dtype, t.shape, flow_case.format) for t in flow_case.inputs + flow_case.outputs]
    attr = acl.op.create_attr()
    res.attrs.append(attr)
    inputs = len(flow_case.inputs)

    def cycle() -> None:
        handle = flow.value(acl.op.create_handle(flow_case.op, descs[:inputs], descs[inputs:], attr),
                            "acl.op.create_handle")
        acl.op.destroy_handle(handle)

    assert_device_memory_returns(acl, pytestconfig, f"create_handle / destroy_handle of {flow_case.id}", cycle)


@pytest.mark.execute
@pytest.mark.parametrize("mode", ["execute_v2", "handle"])
def test_whole_flow_cycles_return_device_memory(acl, pytestconfig, stream, flow_case, mode):
    inputs = [draw_inputs(flow_case, flow_case.seed(1))]
    assert_device_memory_returns(acl, pytestconfig, f"the {mode} flow of {flow_case.id}",
                                 lambda: executor.run(acl, stream, flow_case, inputs, mode))


def _first_model(model_dir: str) -> Path:
    for depth in ("*.om", "*/*.om", "*/*/*.om"):
        found = sorted(Path(model_dir).glob(depth))
        if found:
            return found[0]
    pytest.skip(f"no .om file in {model_dir}")


@pytest.mark.load
def test_load_and_execute_cycles_return_device_memory(acl, pytestconfig, stream, model_dir, flow_case):
    model = _first_model(model_dir).read_bytes()
    inputs = [draw_inputs(flow_case, flow_case.seed(2))]

    def cycle() -> None:
        flow.check(acl.op.load(acl.util.bytes_to_ptr(model), len(model)), "acl.op.load")
        executor.run(acl, stream, flow_case, inputs, "execute_v2")

    assert_device_memory_returns(acl, pytestconfig, f"acl.op.load of {len(model)} bytes + execute_v2", cycle)


@pytest.fixture(scope="module")
def gemm_case(pytestconfig: pytest.Config) -> Case:
    """A GEMM case of cases/matmul/gemm*.yaml that gemm_ex can express (ND, no transposes)."""
    return library(pytestconfig, "matmul", _is_gemm_case, "gemm_ex-compatible GEMM")


@pytest.mark.blas
@pytest.mark.parametrize("api", ["create_handle_for_gemm_ex", "gemm_ex"])
def test_gemm_cycles_return_device_memory(acl, pytestconfig, stream, gemm_case, api):
    inputs = [draw_inputs(gemm_case, gemm_case.seed(3))]
    assert_device_memory_returns(acl, pytestconfig, f"acl.blas.{api} of {gemm_case.id}",
                                 lambda: executor.run_gemm(acl, stream, gemm_case, inputs, api))


@pytest.fixture(scope="module")
def cast_case(pytestconfig: pytest.Config) -> Case:
    """A non-scalar Cast case of cases/cast."""
    return library(pytestconfig, "cast", _is_cast_case, "Cast")


@pytest.mark.cast
@pytest.mark.parametrize("api", ["create_handle_for_cast", "cast"])
def test_cast_cycles_return_device_memory(acl, pytestconfig, stream, cast_case, api):
    inputs = [draw_inputs(cast_case, cast_case.seed(3))]
    assert_device_memory_returns(acl, pytestconfig, f"acl.op.{api} of {cast_case.id}",
                                 lambda: executor.run_cast(acl, stream, cast_case, inputs, handle_form=api != "cast"))


# ---------------------------------------------------------------- host memory


def resident_bytes() -> int:
    """The process's resident set size from /proc/self/statm."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _objects_cycle(acl: Any, res: flow.Resources, stream: int, case: Case) -> Callable[[], None]:
    ptr = flow.malloc(res, PAYLOAD)

    def cycle() -> None:
        desc = acl.create_tensor_desc(INT32, [16, PAYLOAD // 64], ND)
        buf = acl.create_data_buffer(ptr, PAYLOAD)
        attr = acl.op.create_attr()
        flow.check(acl.op.set_attr_list_int(attr, "dims", list(range(64))), "acl.op.set_attr_list_int")
        flow.check(acl.op.set_attr_string(attr, "name", "x" * 256), "acl.op.set_attr_string")
        acl.op.destroy_attr(attr)
        flow.check(acl.destroy_data_buffer(buf), "acl.destroy_data_buffer")
        acl.destroy_tensor_desc(desc)

    return cycle


def _copies_cycle(acl: Any, res: flow.Resources, stream: int, case: Case) -> Callable[[], None]:
    host = flow.malloc_host(res, PAYLOAD)
    payload = bytes(range(256)) * (PAYLOAD // 256)

    def cycle() -> None:
        ptr = flow.value(acl.rt.malloc(PAYLOAD, NORMAL), "acl.rt.malloc")
        flow.check(acl.rt.memcpy(ptr, PAYLOAD, acl.util.bytes_to_ptr(payload), PAYLOAD, flow.H2D), "acl.rt.memcpy")
        flow.check(acl.rt.memcpy(host, PAYLOAD, ptr, PAYLOAD, flow.D2H), "acl.rt.memcpy")
        assert acl.util.ptr_to_bytes(host, PAYLOAD) == payload
        flow.check(acl.rt.free(ptr), "acl.rt.free")

    return cycle


def _execute_cycle(acl: Any, res: flow.Resources, stream: int, case: Case) -> Callable[[], None]:
    staged = executor.stage(acl, res, case, draw_inputs(case, case.seed(4)))

    def cycle() -> None:
        flow.check(executor.launch(acl, stream, case, staged), "acl.op.execute_v2")
        synchronize(acl, stream)

    return cycle


def _handle_cycle(acl: Any, res: flow.Resources, stream: int, case: Case) -> Callable[[], None]:
    descs = [flow.create_desc(res, t.dtype, t.shape, case.format) for t in case.inputs + case.outputs]
    attr = acl.op.create_attr()
    res.attrs.append(attr)
    count = len(case.inputs)

    def cycle() -> None:
        handle = flow.value(acl.op.create_handle(case.op, descs[:count], descs[count:], attr), "acl.op.create_handle")
        acl.op.destroy_handle(handle)

    return cycle


HOST_CYCLE_MAKERS = {"descs-buffers-attrs": _objects_cycle, "malloc-memcpy-free": _copies_cycle,
                     "execute_v2": _execute_cycle, "create_handle-destroy_handle": _handle_cycle}


@pytest.mark.parametrize("name", HOST_CYCLE_MAKERS)
def test_host_memory_growth_over_binding_cycles_is_bounded(acl, stream, res, flow_case, name):
    cycle = HOST_CYCLE_MAKERS[name](acl, res, stream, flow_case)
    for _ in range(HOST_WARMUP):
        cycle()
    gc.collect()
    tracemalloc.start()
    try:
        traced_start, rss_start = tracemalloc.get_traced_memory()[0], resident_bytes()
        for _ in range(HOST_CYCLES):
            cycle()
        gc.collect()
        traced_end, rss_end = tracemalloc.get_traced_memory()[0], resident_bytes()
    finally:
        tracemalloc.stop()
    per_cycle = (traced_end - traced_start) / HOST_CYCLES
    assert per_cycle <= TRACEMALLOC_BOUND_PER_CYCLE, (
        f"{name}: Python allocations grew by {per_cycle:.0f} bytes per cycle over {HOST_CYCLES} cycles "
        f"(bound {TRACEMALLOC_BOUND_PER_CYCLE})")
    assert rss_end - rss_start <= RSS_BOUND, (
        f"{name}: the resident set grew by {(rss_end - rss_start) / MIB:.1f} MiB over {HOST_CYCLES} cycles "
        f"(bound {RSS_BOUND / MIB:.0f} MiB)")
