"""Object lifecycles: once, many alive at once, loops, interleaved and from several threads (docs/contract/README.md).

Handles run elementwise int32 cases of the case library and every result is judged against the reference;
descs, buffers, attrs, streams and device memory go through the same patterns and are checked by use.
The `acl` fixture fails any test that leaves an object alive.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from aclcts.drive import flow
from aclcts.cases import Case
from aclcts.pytest_plugin.library import library_cases
from aclcts.cases.values import draw_inputs
from aclcts.core.constants import DataType, Format, MemMallocPolicy
from aclcts.drive import executor
from aclcts.drive.executor import Outputs
from aclcts.judge.decorator import judge

INT32, ND = int(DataType.ACL_INT32), int(Format.ACL_FORMAT_ND)
NORMAL = int(MemMallocPolicy.ACL_MEM_MALLOC_NORMAL_ONLY)
#: Milliseconds a synchronisation may take before it counts as hung (507046 instead of a hung run).
SYNC_TIMEOUT_MS = 10_000
THREADS = 4
#: Seconds to wait for the worker threads.
JOIN_TIMEOUT = 120.0


@pytest.fixture(scope="module")
def binary_cases(pytestconfig: pytest.Config) -> list[Case]:
    """Up to three elementwise cases of different ops: two int32 inputs and one output of one static shape."""
    chosen: dict[str, Case] = {}
    for case in library_cases(pytestconfig):
        tensors = case.inputs + case.outputs
        shape = case.inputs[0].shape if case.inputs else ()
        if (case.family == "elementwise" and case.op not in chosen and "handle" in case.modes and len(case.inputs) == 2 and len(case.outputs) == 1
                and not case.attrs and shape and 0 not in shape
                and all(t.dtype == INT32 and t.const is None and t.shape == shape for t in tensors)):
            chosen[case.op] = case
    if not chosen:
        pytest.skip("the case library has no elementwise case with two int32 inputs of the output's shape")
    return list(chosen.values())[:3]


class Bound:
    """One case's tensors on the device: drawn inputs copied in, an output desc and buffer, an empty attr."""

    def __init__(self, acl: Any, res: flow.Resources, case: Case, seed: int) -> None:
        self.acl, self.res, self.case = acl, res, case
        self.inputs = draw_inputs(case, seed)
        self.staged = executor.stage(acl, res, case, self.inputs)
        self.in_descs, self.in_bufs, self.attr = self.staged.in_descs, self.staged.in_bufs, self.staged.attr
        self.out_desc, self.out_buf = self.staged.out_descs[0], self.staged.out_bufs[0]
        self.out_ptr, self.out_size = self.staged.allocations[0].ptr, self.staged.allocations[0].size

    def create_handle(self) -> int:
        """acl.op.create_handle for the case (not tracked by the Resources: the test destroys it)."""
        return flow.value(self.acl.op.create_handle(self.case.op, self.in_descs, [self.out_desc], self.attr),
                          f"acl.op.create_handle({self.case.op!r})")

    def execute(self, handle: int, stream: int) -> None:
        """acl.op.execute_with_handle on these tensors."""
        flow.check(executor.launch(self.acl, stream, self.case, self.staged, handle),
                   f"acl.op.execute_with_handle({self.case.op!r})")

    def check(self, into: list | None = None) -> None:
        """Read the output back and judge it against the case's reference (each comparison appended to `into`)."""
        out = self.case.outputs[0]
        memset = self.acl.rt.memset
        array = flow.array_from(flow.copy_to_host(self.res, self.out_ptr, self.out_size), out.dtype, out.shape)
        failures = judge(self.case, [self.inputs], [Outputs([array], [np.zeros(out.shape, bool)])], into=into)
        assert not failures, f"{self.case.id}: " + "; ".join(failures)
        flow.check(memset(self.out_ptr, self.out_size, 0, self.out_size), "acl.rt.memset")


def synchronize(acl: Any, stream: int) -> None:
    """synchronize_stream_with_timeout, failing instead of hanging."""
    flow.check(acl.rt.synchronize_stream_with_timeout(stream, SYNC_TIMEOUT_MS), "acl.rt.synchronize_stream_with_timeout")


def in_threads(acl: Any, session: flow.Session, work: Callable[[int], None], count: int = THREADS) -> None:
    """Run work(index) in `count` threads, each with the session context set first; re-raise the first error."""
    errors: list[BaseException] = []

    def body(index: int) -> None:
        try:
            flow.check(acl.rt.set_context(session.context), "acl.rt.set_context")
            work(index)
        except BaseException as exc:  # noqa: BLE001 (the thread's failure is re-raised in the test)
            errors.append(exc)

    threads = [threading.Thread(target=body, args=(i,), name=f"aclcts-{i}") for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(JOIN_TIMEOUT)
    hung = [t.name for t in threads if t.is_alive()]
    assert not hung, f"threads still running after {JOIN_TIMEOUT:g} s: {hung}"
    if errors:
        raise errors[0]


@pytest.fixture
def res(acl: Any) -> Iterator[flow.Resources]:
    """The test's tensors and memory, released at its end."""
    with flow.resources(acl) as held:
        yield held


# ---------------------------------------------------------------- handles


@pytest.mark.handle
def test_handle_create_execute_destroy_once(acl, stream, res, binary_cases, comparisons):
    bound = Bound(acl, res, binary_cases[0], 1)
    handle = bound.create_handle()
    bound.execute(handle, stream)
    synchronize(acl, stream)
    acl.op.destroy_handle(handle)
    bound.check(comparisons)


@pytest.mark.handle
def test_many_handles_alive_at_once_each_execute_their_own_data(acl, stream, res, binary_cases, comparisons):
    bounds = [Bound(acl, res, binary_cases[i % len(binary_cases)], i) for i in range(24)]
    handles = [b.create_handle() for b in bounds]
    assert len(set(handles)) == len(handles), "create_handle returned the same handle twice for live handles"
    for bound, handle in zip(bounds, handles):
        bound.execute(handle, stream)
    synchronize(acl, stream)
    for handle in handles:
        acl.op.destroy_handle(handle)
    for bound in bounds:
        bound.check(comparisons)


@pytest.mark.handle
def test_create_execute_n_times_destroy_in_a_loop(acl, stream, res, binary_cases, comparisons):
    bound = Bound(acl, res, binary_cases[0], 2)
    for _ in range(8):
        handle = bound.create_handle()
        for _ in range(3):
            bound.execute(handle, stream)
            synchronize(acl, stream)
            bound.check(comparisons)
        acl.op.destroy_handle(handle)


@pytest.mark.handle
def test_interleaved_handles_of_different_ops_stay_independent(acl, stream, res, binary_cases, comparisons):
    if len(binary_cases) < 2:
        pytest.skip("needs cases of two different ops")
    bounds = [Bound(acl, res, case, 10 + i) for i, case in enumerate(binary_cases)]
    handles = [b.create_handle() for b in bounds]
    live = list(range(len(bounds)))
    for round_index in range(4):
        for index in live[round_index % len(live):] + live[:round_index % len(live)]:
            bounds[index].execute(handles[index], stream)
            synchronize(acl, stream)
            bounds[index].check(comparisons)
    while live:
        gone = live.pop(len(live) // 2)
        acl.op.destroy_handle(handles[gone])
        for index in live:
            bounds[index].execute(handles[index], stream)
            synchronize(acl, stream)
            bounds[index].check(comparisons)


@pytest.mark.handle
@pytest.mark.parametrize("sharing", ["shared-handles", "own-handles"])
def test_handles_used_from_several_threads_each_with_its_own_stream(acl, session, binary_cases, sharing, comparisons):
    with flow.resources(acl) as main:
        shared = [Bound(acl, main, case, 20).create_handle() for case in binary_cases] if sharing == "shared-handles" \
            else []

        def work(index: int) -> None:
            own_stream = flow.value(acl.rt.create_stream(), "acl.rt.create_stream")
            try:
                with flow.resources(acl) as res:
                    bounds = [Bound(acl, res, case, 100 * index + i) for i, case in enumerate(binary_cases)]
                    handles = shared or [b.create_handle() for b in bounds]
                    try:
                        for _ in range(3):
                            for bound, handle in zip(bounds, handles):
                                bound.execute(handle, own_stream)
                            synchronize(acl, own_stream)
                            for bound in bounds:
                                bound.check(comparisons)
                    finally:
                        for handle in handles if not shared else []:
                            acl.op.destroy_handle(handle)
            finally:
                flow.check(acl.rt.destroy_stream(own_stream), "acl.rt.destroy_stream")

        try:
            in_threads(acl, session, work)
        finally:
            for handle in shared:
                acl.op.destroy_handle(handle)


# ---------------------------------------------------------------- descs, buffers, attrs, streams, device memory


@dataclass(frozen=True)
class Shared:
    """Memory that buffer and device-memory objects point into or are checked through."""

    device: int
    host: int


@dataclass(frozen=True)
class Kind:
    """How to create, use (with assertions) and destroy one kind of object; `index` varies its parameters."""

    create: Callable[[Any, Shared, int], int]
    use: Callable[[Any, Shared, int, int], None]
    destroy: Callable[[Any, int], None]


#: Device memory the buffers point into; host memory split into one read-back slot per thread.
DEVICE_BYTES, HOST_SLOT = 64 << 10, 1024
#: Object indices of thread t start at t * THREAD_STRIDE (so each thread uses its own host slot).
THREAD_STRIDE = 1000


def _desc_create(acl: Any, shared: Shared, index: int) -> int:
    desc = acl.create_tensor_desc(INT32, [index % 7 + 1, 16], ND)
    assert desc, "acl.create_tensor_desc returned 0"
    return desc


def _desc_use(acl: Any, shared: Shared, index: int, desc: int) -> None:
    assert acl.get_tensor_desc_type(desc) == INT32
    assert acl.get_tensor_desc_dim_v2(desc, 0) == (index % 7 + 1, 0)
    assert acl.get_tensor_desc_size(desc) == (index % 7 + 1) * 16 * 4


def _buffer_create(acl: Any, shared: Shared, index: int) -> int:
    buf = acl.create_data_buffer(shared.device + 64 * (index % 1024), 64)
    assert buf, "acl.create_data_buffer returned 0"
    return buf


def _buffer_use(acl: Any, shared: Shared, index: int, buf: int) -> None:
    assert acl.get_data_buffer_addr(buf) == shared.device + 64 * (index % 1024)
    assert acl.get_data_buffer_size_v2(buf) == 64


def _attr_create(acl: Any, shared: Shared, index: int) -> int:
    attr = acl.op.create_attr()
    assert attr, "acl.op.create_attr returned 0"
    flow.check(acl.op.set_attr_int(attr, "index", index), "acl.op.set_attr_int")
    return attr


def _attr_use(acl: Any, shared: Shared, index: int, attr: int) -> None:
    flow.check(acl.op.set_attr_string(attr, "name", f"a{index}"), "acl.op.set_attr_string")
    flow.check(acl.op.set_attr_list_int(attr, "index", [index, index + 1]), "acl.op.set_attr_list_int")


def _stream_use(acl: Any, shared: Shared, index: int, stream: int) -> None:
    flow.check(acl.rt.memset_async(shared.device, 64, index % 256, 64, stream), "acl.rt.memset_async")
    synchronize(acl, stream)


def _memory_size(index: int) -> int:
    return 64 * (index % 8 + 1)


def _memory_use(acl: Any, shared: Shared, index: int, ptr: int) -> None:
    size, value = _memory_size(index), index % 251 + 1
    slot = shared.host + (index // THREAD_STRIDE) % THREADS * HOST_SLOT
    flow.check(acl.rt.memset(ptr, size, value, size), "acl.rt.memset")
    flow.check(acl.rt.memcpy(slot, HOST_SLOT, ptr, size, flow.D2H), "acl.rt.memcpy D2H")
    assert acl.util.ptr_to_bytes(slot, size) == bytes([value]) * size


KINDS = {
    "desc": Kind(_desc_create, _desc_use, lambda acl, desc: acl.destroy_tensor_desc(desc)),
    "buffer": Kind(_buffer_create, _buffer_use,
                   lambda acl, buf: flow.check(acl.destroy_data_buffer(buf), "acl.destroy_data_buffer")),
    "attr": Kind(_attr_create, _attr_use, lambda acl, attr: acl.op.destroy_attr(attr)),
    "stream": Kind(lambda acl, shared, index: flow.value(acl.rt.create_stream(), "acl.rt.create_stream"),
                   _stream_use, lambda acl, s: flow.check(acl.rt.destroy_stream(s), "acl.rt.destroy_stream")),
    "device_memory": Kind(lambda acl, shared, index: flow.value(acl.rt.malloc(_memory_size(index), NORMAL),
                                                                "acl.rt.malloc"),
                          _memory_use, lambda acl, ptr: flow.check(acl.rt.free(ptr), "acl.rt.free")),
}
#: Objects alive at once in the "many" pattern (streams count against the device's stream limit).
MANY = {"desc": 512, "buffer": 512, "attr": 512, "stream": 32, "device_memory": 256}
LOOPS = 100


@pytest.fixture
def shared(res: flow.Resources) -> Shared:
    """Device and host memory for the objects to point into."""
    return Shared(flow.malloc(res, DEVICE_BYTES), flow.malloc_host(res, THREADS * HOST_SLOT))


def _once(acl: Any, shared: Shared, kind: Kind, first: int = 0, count: int = 1) -> None:
    for index in range(first, first + count):
        obj = kind.create(acl, shared, index)
        try:
            kind.use(acl, shared, index, obj)
        finally:
            kind.destroy(acl, obj)


@pytest.mark.parametrize("name", KINDS)
def test_object_create_use_destroy_once(acl, shared, name):
    _once(acl, shared, KINDS[name])


@pytest.mark.parametrize("name", KINDS)
def test_many_objects_alive_at_once_are_distinct_and_usable(acl, shared, name):
    kind, objects = KINDS[name], []
    try:
        for index in range(MANY[name]):
            objects.append(kind.create(acl, shared, index))
        assert len(set(objects)) == len(objects), f"a live {name} handle was handed out twice"
        for index, obj in enumerate(objects):
            kind.use(acl, shared, index, obj)
    finally:
        for obj in objects:
            kind.destroy(acl, obj)


@pytest.mark.parametrize("name", KINDS)
def test_object_create_use_destroy_in_a_loop(acl, shared, name):
    _once(acl, shared, KINDS[name], count=LOOPS)


@pytest.mark.parametrize("name", KINDS)
def test_objects_created_and_destroyed_in_several_threads(acl, session, shared, name):
    in_threads(acl, session, lambda index: _once(acl, shared, KINDS[name], first=THREAD_STRIDE * index,
                                                 count=LOOPS // THREADS))


def test_objects_of_every_kind_interleaved_stay_independent(acl, shared):
    alive: list[tuple[str, int, int]] = []
    try:
        for index in range(20):
            for name, kind in KINDS.items():
                alive.append((name, index, kind.create(acl, shared, index)))
            if index % 3 == 2:
                name, first, obj = alive.pop(len(alive) // 2)
                KINDS[name].destroy(acl, obj)
            for name, first, obj in alive:
                KINDS[name].use(acl, shared, first, obj)
    finally:
        for name, _, obj in reversed(alive):
            KINDS[name].destroy(acl, obj)
