"""Invalid arguments, one at a time, get the documented code or binding exception
(docs/contract/error-codes.md#failure-paths).

Each scenario id names a probe here (how to provoke the failure) and an entry of the release's error-code table
file (what the documentation says must happen). Probes spoil one argument of an otherwise valid call on
the suite model Add int32 [8, 16] (aclcts/pytest_plugin/library.py SUITE_MODEL_CASES), which every run's model folder
holds whatever --cases selects.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import pytest

from aclcts.drive import flow

from aclcts.drive import isolation
from aclcts.core.constants import (
    ComputeType,
    DataType,
    Format,
    MemcpyKind,
    MemMallocPolicy,
    MemType,
    TransType,
)
from aclcts.core.error_codes import Outcome
from aclcts.drive.resources import TrackingAcl
from documented_steps import marked

INT32, INT16, FP16 = int(DataType.ACL_INT32), int(DataType.ACL_INT16), int(DataType.ACL_FLOAT16)
ND, NCHW = int(Format.ACL_FORMAT_ND), int(Format.ACL_FORMAT_NCHW)
H2H, H2D, D2H, D2D = (int(k) for k in list(MemcpyKind)[:4])
HUGE_FIRST, NORMAL = int(MemMallocPolicy.ACL_MEM_MALLOC_HUGE_FIRST), int(MemMallocPolicy.ACL_MEM_MALLOC_NORMAL_ONLY)
HOST_PLACED = int(MemType.ACL_MEMTYPE_HOST)
N, T = int(TransType.ACL_TRANS_N), int(TransType.ACL_TRANS_T)
HIGH, LOW = int(ComputeType.ACL_COMPUTE_HIGH_PRECISION), int(ComputeType.ACL_COMPUTE_LOW_PRECISION)
#: The valid call every probe starts from: Add of two int32 [8, 16] tensors (cases/elementwise/add.yaml, a suite model).
OP, SHAPE, NBYTES = "Add", [8, 16], 8 * 16 * 4
#: Milliseconds a probe waits for its stream; a hang becomes 507046 instead of a hung run.
SYNC_TIMEOUT_MS = 10_000
#: Dims no static or dynamic model of the suite covers (rank 3, a dim far outside every shape range).
UNCOMPILED_DIMS = [7, 999, 3]
#: GEMM sizes no case file compiles (fp16 A [61, 29], B [29, 3], C [61, 3]).
GEMM_M, GEMM_N, GEMM_K = 61, 3, 29
#: Release order of whatever a probe created and did not hand to its Env (only when a call wrongly succeeds).
RELEASE_ORDER = ("handle", "buffer", "desc", "attr", "device_mem", "host_mem", "event", "stream", "context")

Act = Callable[[], Any]
Probe = Callable[[Any, "Env"], Act]


class Env:
    """Valid objects for one probe: the Add call's descs, device memory and buffers, an attr, host memory."""

    def __init__(self, acl: TrackingAcl, session: flow.Session, res: flow.Resources) -> None:
        self.acl, self.session, self.res, self.stream = acl, session, res, session.stream
        self.descs = [flow.create_desc(res, INT32, tuple(SHAPE), ND) for _ in range(3)]
        self.ptrs = [flow.malloc(res, NBYTES) for _ in range(3)]
        self.bufs = [flow.create_buffer(res, ptr, NBYTES) for ptr in self.ptrs]
        self.attr = self.new_attr()
        self.host = flow.malloc_host(res, NBYTES)
        self.cleanups: list[Callable[[], None]] = []

    @property
    def in_descs(self) -> list[int]:
        """The two input descs."""
        return self.descs[:2]

    @property
    def out_descs(self) -> list[int]:
        """The output desc."""
        return self.descs[2:]

    @property
    def in_bufs(self) -> list[int]:
        """The two input buffers."""
        return self.bufs[:2]

    @property
    def out_bufs(self) -> list[int]:
        """The output buffer."""
        return self.bufs[2:]

    def desc(self, data_type: int = INT32, dims: list[int] | None = None, fmt: int = ND) -> int:
        """A further desc, released with the Env."""
        return flow.create_desc(self.res, data_type, tuple(SHAPE if dims is None else dims), fmt)

    def buffer(self, ptr: int, size: int) -> int:
        """A further data buffer, released with the Env."""
        return flow.create_buffer(self.res, ptr, size)

    def new_attr(self, **ints: int) -> int:
        """An attr with the given int attributes, released with the Env."""
        attr = self.acl.op.create_attr()
        self.res.attrs.append(attr)
        for name, number in ints.items():
            flow.check(self.acl.op.set_attr_int(attr, name, number), f"acl.op.set_attr_int({name!r})")
        return attr

    def handle(self) -> int:
        """A handle for the Add call, destroyed with the Env."""
        handle = flow.value(self.acl.op.create_handle(OP, self.in_descs, self.out_descs, self.attr),
                            "acl.op.create_handle")
        self.res.handles.append(handle)
        return handle

    def range_desc(self, ranges: list[list[int]]) -> int:
        """An int32 [8, 16] desc with a shape range list."""
        desc = self.desc()
        flow.check(self.acl.set_tensor_shape_range(desc, ranges), "acl.set_tensor_shape_range")
        return desc

    def stream_in_other_context(self, device_id: int) -> int:
        """A stream of a new context on device_id; the session context is current again afterwards."""
        acl = self.acl
        if device_id != self.session.device_id:
            count = flow.value(acl.rt.get_device_count(), "acl.rt.get_device_count")
            if count < 2:
                pytest.skip(f"needs a second device; the backend has {count}")
            flow.check(acl.rt.set_device(device_id), f"acl.rt.set_device({device_id})")
        context = flow.value(acl.rt.create_context(device_id), "acl.rt.create_context")
        stream = flow.value(acl.rt.create_stream(), "acl.rt.create_stream")
        flow.check(acl.rt.set_context(self.session.context), "acl.rt.set_context")

        def release() -> None:
            acl.rt.set_context(context)
            if ("stream", stream) in acl.tracker.live:
                acl.rt.destroy_stream(stream)
            acl.rt.destroy_context(context)
            if device_id != self.session.device_id:
                acl.rt.reset_device(device_id)
            acl.rt.set_context(self.session.context)

        self.cleanups.append(release)
        return stream

    def release(self) -> None:
        """Undo the extra contexts and streams, then release every object the probe's call left alive."""
        for cleanup in reversed(self.cleanups):
            cleanup()
        res, live = self.res, self.acl.tracker.live
        for kind, held in (("desc", res.descs), ("buffer", res.buffers), ("device_mem", res.device),
                           ("host_mem", res.host), ("attr", res.attrs), ("handle", res.handles)):
            held[:] = [h for h in held if (kind, h) in live]
        res.release()


def act(call: Callable[[Any, Env], Any]) -> Probe:
    """A probe whose only step is one call on the valid objects."""
    return lambda acl, env: partial(call, acl, env)


def _gemm(acl: Any, env: Env, **override: int) -> int:
    a, b, c = env.ptrs
    args = {"trans_a": N, "trans_b": N, "trans_c": N, "m": GEMM_M, "n": GEMM_N, "k": GEMM_K, "alpha": a, "a": a,
            "lda": -1, "dta": FP16, "b": b, "ldb": -1, "dtb": FP16, "beta": b, "c": c, "ldc": -1, "dtc": FP16,
            "type": HIGH, **override}
    return acl.blas.gemm_ex(*args.values(), env.stream)


def _gemm_handle(acl: Any, env: Env, **override: int) -> tuple[int, int]:
    args = {"trans_a": N, "trans_b": N, "trans_c": N, "m": GEMM_M, "n": GEMM_N, "k": GEMM_K,
            "dta": FP16, "dtb": FP16, "dtc": FP16, "type": HIGH, **override}
    return acl.blas.create_handle_for_gemm_ex(*args.values())


def execute_with(inputs: list[dict] | None = None, outputs: list[dict] | None = None, op: str = OP,
                 attr: dict[str, int] | None = None) -> Probe:
    """execute_v2 of `op` with descs made from the given desc() arguments instead of the valid ones."""

    def probe(acl: Any, env: Env) -> Act:
        in_descs = [env.desc(**kw) for kw in inputs] if inputs is not None else env.in_descs
        out_descs = [env.desc(**kw) for kw in outputs] if outputs is not None else env.out_descs
        bufs = (env.bufs + [env.buffer(env.ptrs[0], NBYTES)])[: len(in_descs)]
        attr_handle = env.new_attr(**attr) if attr else env.attr
        return partial(acl.op.execute_v2, op, in_descs, bufs, out_descs, env.out_bufs, attr_handle, env.stream)

    return probe


def create_handle_with(inputs: list[dict] | None = None, outputs: list[dict] | None = None, op: str = OP,
                       attr: dict[str, int] | None = None, placed: str = "") -> Probe:
    """create_handle of `op` with descs made from desc() arguments; `placed` = "input"/"output" is host-placed."""

    def probe(acl: Any, env: Env) -> Act:
        in_descs = [env.desc(**kw) for kw in inputs] if inputs is not None else env.in_descs
        out_descs = [env.desc(**kw) for kw in outputs] if outputs is not None else env.out_descs
        if placed:
            target = env.desc()
            flow.check(acl.set_tensor_place_ment(target, HOST_PLACED), "acl.set_tensor_place_ment")
            if placed == "input":
                in_descs = [target, in_descs[1]]
            else:
                out_descs = [target]
        attr_handle = env.new_attr(**attr) if attr else env.attr
        return partial(acl.op.create_handle, op, in_descs, out_descs, attr_handle)

    return probe


def with_handle(call: Callable[[Any, Env, int], Any]) -> Probe:
    """A probe that makes the Add handle first, then makes one call with it."""

    def probe(acl: Any, env: Env) -> Act:
        handle = env.handle()
        return partial(call, acl, env, handle)

    return probe


def _zero_size_output(acl: Any, env: Env) -> Act:
    empty = env.buffer(env.ptrs[2], 0)
    handle = env.handle()
    return partial(acl.op.execute_with_handle, handle, env.in_bufs, [empty], env.stream)


def _empty_infer_input(acl: Any, env: Env) -> Act:
    empty = env.buffer(env.host, 0)
    return partial(acl.op.infer_shape, OP, env.in_descs, [empty, empty], 1, [env.desc()], env.attr)


def _garbage_model(acl: Any, env: Env) -> Act:
    garbage = bytes((i * 37 + 11) % 256 for i in range(256))
    return lambda: acl.op.load(acl.util.bytes_to_ptr(garbage), len(garbage))


def _neighbour_device(acl: Any, device_id: int) -> int:
    """Another device of the machine: the next one, or the previous one for the last device."""
    count, _ = acl.rt.get_device_count()
    return device_id + 1 if device_id + 1 < count else device_id - 1


def _other_context_stream(call: Callable[[Any, Env, int], Any], other_device: bool) -> Probe:
    def probe(acl: Any, env: Env) -> Act:
        device = _neighbour_device(acl, env.session.device_id) if other_device else env.session.device_id
        stream = env.stream_in_other_context(device)
        return partial(call, acl, env, stream)

    return probe


def _execute_on(acl: Any, env: Env, stream: int) -> int:
    return acl.op.execute_v2(OP, env.in_descs, env.in_bufs, env.out_descs, env.out_bufs, env.attr, stream)


def _cast_probe(src: int, dst: int, handle: bool = False, null: str = "") -> Probe:
    def probe(acl: Any, env: Env) -> Act:
        src_desc = 0 if null == "src" else env.desc(src, [16, 32])
        dst_desc = 0 if null == "dst" else env.desc(dst, [16, 32])
        if handle:
            return partial(acl.op.create_handle_for_cast, src_desc, dst_desc, 0)
        buf_in, buf_out = (env.buffer(ptr, 16 * 32 * 2) for ptr in (env.ptrs[0], env.ptrs[1]))
        return partial(acl.op.cast, src_desc, buf_in, dst_desc, buf_out, 0, env.stream)

    return probe


def _device_count(acl: Any) -> int:
    return flow.value(acl.rt.get_device_count(), "acl.rt.get_device_count")


#: Calls the binding must refuse before anything reaches C (docs/contract/binding-conventions.md and per function).
BINDING: dict[str, Probe] = {
    "binding.init.none_config": act(lambda a, e: a.init(None)),
    "binding.rt.set_device.str": act(lambda a, e: a.rt.set_device("0")),
    "binding.rt.set_device.int32_overflow": act(lambda a, e: a.rt.set_device(2 ** 31)),
    "binding.rt.set_context.none": act(lambda a, e: a.rt.set_context(None)),
    "binding.rt.create_stream.extra_argument": act(lambda a, e: a.rt.create_stream(0)),
    "binding.rt.synchronize_stream.none": act(lambda a, e: a.rt.synchronize_stream(None)),
    "binding.rt.synchronize_stream_with_timeout.int32_overflow":
        act(lambda a, e: a.rt.synchronize_stream_with_timeout(e.stream, 2 ** 31)),
    "binding.rt.synchronize_stream_with_timeout.missing_timeout":
        act(lambda a, e: a.rt.synchronize_stream_with_timeout(e.stream)),
    "binding.rt.malloc.none_size": act(lambda a, e: a.rt.malloc(None, NORMAL)),
    "binding.rt.malloc.float_size": act(lambda a, e: a.rt.malloc(64.0, NORMAL)),
    "binding.rt.malloc.numpy_size": act(lambda a, e: a.rt.malloc(np.uint64(64), NORMAL)),
    "binding.rt.malloc.str_policy": act(lambda a, e: a.rt.malloc(64, "2")),
    "binding.rt.malloc.missing_policy": act(lambda a, e: a.rt.malloc(64)),
    "binding.rt.malloc.keywords": act(lambda a, e: a.rt.malloc(size=64, policy=NORMAL)),
    "binding.rt.free.none": act(lambda a, e: a.rt.free(None)),
    "binding.rt.free.numpy_pointer": act(lambda a, e: a.rt.free(np.uint64(e.ptrs[0]))),
    "binding.rt.free.str": act(lambda a, e: a.rt.free("0")),
    "binding.rt.malloc_host.none_size": act(lambda a, e: a.rt.malloc_host(None)),
    "binding.rt.free_host.float": act(lambda a, e: a.rt.free_host(float(e.host))),
    "binding.rt.memcpy.missing_kind": act(lambda a, e: a.rt.memcpy(e.ptrs[0], NBYTES, e.host, NBYTES)),
    "binding.rt.memcpy.none_dst": act(lambda a, e: a.rt.memcpy(None, NBYTES, e.host, NBYTES, H2D)),
    "binding.rt.memcpy.bytes_src": act(lambda a, e: a.rt.memcpy(e.ptrs[0], 4, b"abcd", 4, H2D)),
    "binding.rt.memcpy.float_count": act(lambda a, e: a.rt.memcpy(e.ptrs[0], NBYTES, e.host, 64.0, H2D)),
    "binding.rt.memcpy_async.missing_stream":
        act(lambda a, e: a.rt.memcpy_async(e.ptrs[0], NBYTES, e.host, NBYTES, H2D)),
    "binding.rt.memset.str_value": act(lambda a, e: a.rt.memset(e.ptrs[0], NBYTES, "x", NBYTES)),
    "binding.rt.get_mem_info.str_attr": act(lambda a, e: a.rt.get_mem_info("1")),
    "binding.create_tensor_desc.tuple_dims": act(lambda a, e: a.create_tensor_desc(INT32, (8, 16), ND)),
    "binding.create_tensor_desc.numpy_dim": act(lambda a, e: a.create_tensor_desc(INT32, [np.int64(8), 16], ND)),
    "binding.create_tensor_desc.none_dim": act(lambda a, e: a.create_tensor_desc(INT32, [None, 16], ND)),
    "binding.create_tensor_desc.float_dim": act(lambda a, e: a.create_tensor_desc(INT32, [8.0, 16], ND)),
    "binding.create_tensor_desc.str_data_type": act(lambda a, e: a.create_tensor_desc("3", SHAPE, ND)),
    "binding.create_tensor_desc.missing_format": act(lambda a, e: a.create_tensor_desc(INT32, SHAPE)),
    "binding.create_tensor_desc.documented_four_argument_form": act(lambda a, e: a.create_tensor_desc(-1, 0, [], -1)),
    "binding.create_data_buffer.list_data": act(lambda a, e: a.create_data_buffer([], 0)),
    "binding.create_data_buffer.none_data": act(lambda a, e: a.create_data_buffer(None, 0)),
    "binding.destroy_data_buffer.none": act(lambda a, e: a.destroy_data_buffer(None)),
    "binding.get_tensor_desc_dim_v2.str_index": act(lambda a, e: a.get_tensor_desc_dim_v2(e.descs[0], "0")),
    "binding.set_tensor_shape_range.tuple_ranges": act(lambda a, e: a.set_tensor_shape_range(e.descs[0], [(1, 8)])),
    "binding.set_tensor_shape_range.flat_ints": act(lambda a, e: a.set_tensor_shape_range(e.descs[0], [1, 8])),
    "binding.set_tensor_const.bytes_data": act(lambda a, e: a.set_tensor_const(e.descs[0], b"abcd", 4)),
    "binding.op.set_attr_bool.int_name": act(lambda a, e: a.op.set_attr_bool(e.attr, 1, True)),
    "binding.op.set_attr_int.str_value": act(lambda a, e: a.op.set_attr_int(e.attr, "n", "1")),
    "binding.op.set_attr_int.int64_overflow": act(lambda a, e: a.op.set_attr_int(e.attr, "n", 2 ** 63)),
    "binding.op.set_attr_float.str_value": act(lambda a, e: a.op.set_attr_float(e.attr, "x", "1.0")),
    "binding.op.set_attr_string.int_value": act(lambda a, e: a.op.set_attr_string(e.attr, "s", 1)),
    "binding.op.set_attr_string.bytes_name": act(lambda a, e: a.op.set_attr_string(e.attr, b"s", "v")),
    "binding.op.set_attr_list_bool.element_256": act(lambda a, e: a.op.set_attr_list_bool(e.attr, "b", [1, 256])),
    "binding.op.set_attr_list_bool.str_element": act(lambda a, e: a.op.set_attr_list_bool(e.attr, "b", ["x"])),
    "binding.op.set_attr_list_float.int_elements": act(lambda a, e: a.op.set_attr_list_float(e.attr, "f", [1, 2])),
    "binding.op.set_attr_list_string.int_element": act(lambda a, e: a.op.set_attr_list_string(e.attr, "s", ["a", 1])),
    "binding.op.set_attr_list_string.tuple": act(lambda a, e: a.op.set_attr_list_string(e.attr, "s", ("a",))),
    "binding.op.set_attr_list_list_int.str_inner":
        act(lambda a, e: a.op.set_attr_list_list_int(e.attr, "l", [[1, "2"]])),
    "binding.op.set_attr_list_list_int.flat_ints": act(lambda a, e: a.op.set_attr_list_list_int(e.attr, "l", [1, 2])),
    "binding.op.set_attr_list_data_type.tuple":
        act(lambda a, e: a.op.set_attr_list_data_type(e.attr, "t", (INT32,))),
    "binding.op.set_attr_data_type.str_value": act(lambda a, e: a.op.set_attr_data_type(e.attr, "t", "int32")),
    "binding.op.execute_v2.tuple_input_desc": act(lambda a, e: a.op.execute_v2(
        OP, tuple(e.in_descs), e.in_bufs, e.out_descs, e.out_bufs, e.attr, e.stream)),
    "binding.op.execute_v2.tuple_inputs": act(lambda a, e: a.op.execute_v2(
        OP, e.in_descs, tuple(e.in_bufs), e.out_descs, e.out_bufs, e.attr, e.stream)),
    "binding.op.execute_v2.tuple_output_desc": act(lambda a, e: a.op.execute_v2(
        OP, e.in_descs, e.in_bufs, tuple(e.out_descs), e.out_bufs, e.attr, e.stream)),
    "binding.op.execute_v2.tuple_outputs": act(lambda a, e: a.op.execute_v2(
        OP, e.in_descs, e.in_bufs, e.out_descs, tuple(e.out_bufs), e.attr, e.stream)),
    "binding.op.execute_v2.none_element": act(lambda a, e: a.op.execute_v2(
        OP, [e.descs[0], None], e.in_bufs, e.out_descs, e.out_bufs, e.attr, e.stream)),
    "binding.op.execute_v2.numpy_element": act(lambda a, e: a.op.execute_v2(
        OP, e.in_descs, [np.uint64(e.bufs[0]), e.bufs[1]], e.out_descs, e.out_bufs, e.attr, e.stream)),
    "binding.op.execute_v2.bytes_op_type": act(lambda a, e: a.op.execute_v2(
        OP.encode(), e.in_descs, e.in_bufs, e.out_descs, e.out_bufs, e.attr, e.stream)),
    "binding.op.execute_v2.none_attr": act(lambda a, e: a.op.execute_v2(
        OP, e.in_descs, e.in_bufs, e.out_descs, e.out_bufs, None, e.stream)),
    "binding.op.execute_v2.none_stream": act(lambda a, e: a.op.execute_v2(
        OP, e.in_descs, e.in_bufs, e.out_descs, e.out_bufs, e.attr, None)),
    "binding.op.execute_v2.missing_stream": act(lambda a, e: a.op.execute_v2(
        OP, e.in_descs, e.in_bufs, e.out_descs, e.out_bufs, e.attr)),
    "binding.op.create_handle.tuple_input_desc":
        act(lambda a, e: a.op.create_handle(OP, tuple(e.in_descs), e.out_descs, e.attr)),
    "binding.op.create_handle.none_element":
        act(lambda a, e: a.op.create_handle(OP, e.in_descs, [None], e.attr)),
    "binding.op.create_handle.int_op_type": act(lambda a, e: a.op.create_handle(1, e.in_descs, e.out_descs, e.attr)),
    "binding.op.execute_with_handle.tuple_inputs":
        with_handle(lambda a, e, h: a.op.execute_with_handle(h, tuple(e.in_bufs), e.out_bufs, e.stream)),
    "binding.op.execute_with_handle.none_element":
        with_handle(lambda a, e, h: a.op.execute_with_handle(h, [e.bufs[0], None], e.out_bufs, e.stream)),
    "binding.op.execute_with_handle.none_handle":
        act(lambda a, e: a.op.execute_with_handle(None, e.in_bufs, e.out_bufs, e.stream)),
    "binding.op.destroy_handle.none": act(lambda a, e: a.op.destroy_handle(None)),
    "binding.op.infer_shape.int_op_type":
        act(lambda a, e: a.op.infer_shape(1, e.in_descs, e.in_bufs, 1, e.out_descs, e.attr)),
    "binding.op.infer_shape.str_num_outputs":
        act(lambda a, e: a.op.infer_shape(OP, e.in_descs, e.in_bufs, "1", e.out_descs, e.attr)),
    "binding.op.cast.none_stream":
        act(lambda a, e: a.op.cast(e.descs[0], e.bufs[0], e.descs[2], e.bufs[2], 0, None)),
    "binding.op.load.bytes_model": act(lambda a, e: a.op.load(b"not a pointer", 13)),
    "binding.op.set_model_dir.none": act(lambda a, e: a.op.set_model_dir(None)),
    "binding.op.set_model_dir.bytes": act(lambda a, e: a.op.set_model_dir(b".")),
    "binding.util.bytes_to_ptr.bytearray": act(lambda a, e: a.util.bytes_to_ptr(bytearray(4))),
    "binding.util.bytes_to_ptr.memoryview": act(lambda a, e: a.util.bytes_to_ptr(memoryview(b"abcd"))),
    "binding.util.bytes_to_ptr.str": act(lambda a, e: a.util.bytes_to_ptr("abcd")),
    "binding.blas.gemm_ex.missing_stream": act(lambda a, e: a.blas.gemm_ex(
        N, N, N, GEMM_M, GEMM_N, GEMM_K, e.ptrs[0], e.ptrs[0], -1, FP16, e.ptrs[1], -1, FP16, e.ptrs[1], e.ptrs[2],
        -1, FP16, HIGH)),
    "binding.blas.create_handle_for_gemm_ex.float_m": act(lambda a, e: _gemm_handle(a, e, m=61.0)),
}

#: C-level failures: the documented aclError (docs/contract/error-codes.md#failure-paths).
CODES: dict[str, Probe] = {
    # device, context, stream (init-device-context-stream.md)
    "init.repeat": act(lambda a, e: a.init()),
    "rt.set_device.id_equal_to_count": act(lambda a, e: a.rt.set_device(_device_count(a))),
    "rt.set_device.id_999": act(lambda a, e: a.rt.set_device(999)),
    "rt.set_device.id_negative": act(lambda a, e: a.rt.set_device(-1)),
    "rt.destroy_stream.null": act(lambda a, e: a.rt.destroy_stream(0)),
    "rt.destroy_context.null": act(lambda a, e: a.rt.destroy_context(0)),
    "rt.set_context.null": act(lambda a, e: a.rt.set_context(0)),
    "rt.synchronize_stream_with_timeout.zero": act(lambda a, e: a.rt.synchronize_stream_with_timeout(e.stream, 0)),
    "rt.synchronize_stream_with_timeout.minus_2": act(lambda a, e: a.rt.synchronize_stream_with_timeout(e.stream, -2)),
    "rt.synchronize_stream_with_timeout.minus_1000":
        act(lambda a, e: a.rt.synchronize_stream_with_timeout(e.stream, -1000)),
    "rt.destroy_stream.stream_of_other_context":
        _other_context_stream(lambda a, e, s: a.rt.destroy_stream(s), other_device=False),
    "rt.synchronize_stream.stream_of_other_device":
        _other_context_stream(lambda a, e, s: a.rt.synchronize_stream(s), other_device=True),
    "rt.memcpy_async.stream_of_other_device": _other_context_stream(
        lambda a, e, s: a.rt.memcpy_async(e.ptrs[0], NBYTES, e.ptrs[1], NBYTES, D2D, s), other_device=True),
    "op.execute_v2.stream_of_other_device": _other_context_stream(_execute_on, other_device=True),
    # memory (memory.md)
    "rt.malloc.size_0.huge_first": act(lambda a, e: a.rt.malloc(0, HUGE_FIRST)),
    "rt.malloc.size_0.normal_only": act(lambda a, e: a.rt.malloc(0, NORMAL)),
    "rt.malloc_host.size_0": act(lambda a, e: a.rt.malloc_host(0)),
    "rt.free.null": act(lambda a, e: a.rt.free(0)),
    "rt.free_host.null": act(lambda a, e: a.rt.free_host(0)),
    "rt.memcpy.h2d.dst_null": act(lambda a, e: a.rt.memcpy(0, NBYTES, e.host, NBYTES, H2D)),
    "rt.memcpy.h2d.src_null": act(lambda a, e: a.rt.memcpy(e.ptrs[0], NBYTES, 0, NBYTES, H2D)),
    "rt.memcpy.d2h.dst_null": act(lambda a, e: a.rt.memcpy(0, NBYTES, e.ptrs[0], NBYTES, D2H)),
    "rt.memcpy.d2d.both_null": act(lambda a, e: a.rt.memcpy(0, NBYTES, 0, NBYTES, D2D)),
    "rt.memcpy.kind_6": act(lambda a, e: a.rt.memcpy(e.ptrs[0], NBYTES, e.ptrs[1], NBYTES, 6)),
    "rt.memcpy.kind_7": act(lambda a, e: a.rt.memcpy(e.ptrs[0], NBYTES, e.ptrs[1], NBYTES, 7)),
    "rt.memcpy.kind_99": act(lambda a, e: a.rt.memcpy(e.ptrs[0], NBYTES, e.ptrs[1], NBYTES, 99)),
    "rt.memcpy.kind_negative": act(lambda a, e: a.rt.memcpy(e.ptrs[0], NBYTES, e.ptrs[1], NBYTES, -1)),
    "rt.memcpy.null_checked_before_kind": act(lambda a, e: a.rt.memcpy(0, NBYTES, e.ptrs[1], NBYTES, 99)),
    "rt.memcpy.kind_checked_before_sizes": act(lambda a, e: a.rt.memcpy(e.ptrs[0], NBYTES, e.ptrs[1], 0, 6)),
    "rt.memcpy.h2d.count_0": act(lambda a, e: a.rt.memcpy(e.ptrs[0], NBYTES, e.host, 0, H2D)),
    "rt.memcpy.h2d.dest_max_0": act(lambda a, e: a.rt.memcpy(e.ptrs[0], 0, e.host, NBYTES, H2D)),
    "rt.memcpy.h2d.count_above_dest_max": act(lambda a, e: a.rt.memcpy(e.ptrs[0], 64, e.host, 128, H2D)),
    "rt.memcpy.d2h.count_above_dest_max": act(lambda a, e: a.rt.memcpy(e.host, 64, e.ptrs[0], 128, D2H)),
    "rt.memcpy.d2d.count_above_dest_max": act(lambda a, e: a.rt.memcpy(e.ptrs[0], 64, e.ptrs[1], 128, D2D)),
    "rt.memcpy.h2h.count_above_dest_max": act(lambda a, e: a.rt.memcpy(e.host, 64, e.host, 128, H2H)),
    "rt.memcpy_async.dst_null": act(lambda a, e: a.rt.memcpy_async(0, NBYTES, e.ptrs[1], NBYTES, D2D, e.stream)),
    "rt.memcpy_async.src_null": act(lambda a, e: a.rt.memcpy_async(e.ptrs[0], NBYTES, 0, NBYTES, D2D, e.stream)),
    "rt.memcpy_async.kind_99":
        act(lambda a, e: a.rt.memcpy_async(e.ptrs[0], NBYTES, e.ptrs[1], NBYTES, 99, e.stream)),
    "rt.memcpy_async.kind_7":
        act(lambda a, e: a.rt.memcpy_async(e.ptrs[0], NBYTES, e.ptrs[1], NBYTES, 7, e.stream)),
    "rt.memcpy_async.count_above_dest_max":
        act(lambda a, e: a.rt.memcpy_async(e.ptrs[0], 64, e.ptrs[1], 128, D2D, e.stream)),
    "rt.memcpy_async.unaligned_destination":
        act(lambda a, e: a.rt.memcpy_async(e.ptrs[0] + 8, 64, e.ptrs[1], 64, D2D, e.stream)),
    "rt.memset.null": act(lambda a, e: a.rt.memset(0, NBYTES, 0, NBYTES)),
    "rt.memcpy2d.width_above_spitch": act(lambda a, e: a.rt.memcpy2d(e.ptrs[0], 64, e.ptrs[1], 16, 32, 2, D2D)),
    "rt.memcpy2d.width_above_dpitch": act(lambda a, e: a.rt.memcpy2d(e.ptrs[0], 16, e.ptrs[1], 64, 32, 2, D2D)),
    "rt.memcpy2d.kind_host_to_host": act(lambda a, e: a.rt.memcpy2d(e.host, 64, e.host + 256, 64, 32, 2, H2H)),
    "rt.memcpy2d.kind_5": act(lambda a, e: a.rt.memcpy2d(e.ptrs[0], 64, e.host, 64, 32, 2, 5)),
    # tensor descs and data buffers (tensor-desc-and-buffers.md)
    "get_tensor_desc_dim_v2.index_equal_to_num_dims": act(lambda a, e: a.get_tensor_desc_dim_v2(e.descs[0], 2)),
    "get_tensor_desc_dim_v2.index_huge": act(lambda a, e: a.get_tensor_desc_dim_v2(e.descs[0], 2 ** 40)),
    "get_tensor_desc_dim_v2.null_desc": act(lambda a, e: a.get_tensor_desc_dim_v2(0, 0)),
    "get_tensor_desc_dim_v2.scalar_desc": act(lambda a, e: a.get_tensor_desc_dim_v2(e.desc(INT32, []), 0)),
    "get_tensor_desc_dim_range.dim_without_range": act(lambda a, e: a.get_tensor_desc_dim_range(e.descs[0], 0, 2)),
    "get_tensor_desc_dim_range.index_beyond_ranges":
        act(lambda a, e: a.get_tensor_desc_dim_range(e.range_desc([[1, 8]]), 1, 2)),
    "get_tensor_desc_dim_range.num_1": act(lambda a, e: a.get_tensor_desc_dim_range(e.range_desc([[1, 8]]), 0, 1)),
    "get_tensor_desc_dim_range.num_0": act(lambda a, e: a.get_tensor_desc_dim_range(e.range_desc([[1, 8]]), 0, 0)),
    "get_tensor_desc_dim_range.num_4097":
        act(lambda a, e: a.get_tensor_desc_dim_range(e.range_desc([[1, 8]]), 0, 4097)),
    "get_tensor_desc_dim.null_desc": act(lambda a, e: a.get_tensor_desc_dim(0, 0)),
    "get_tensor_desc_dim.index_out_of_range": act(lambda a, e: a.get_tensor_desc_dim(e.descs[0], 5)),
    "get_tensor_desc_type.null_desc": act(lambda a, e: a.get_tensor_desc_type(0)),
    "get_tensor_desc_format.null_desc": act(lambda a, e: a.get_tensor_desc_format(0)),
    "get_tensor_desc_num_dims.null_desc": act(lambda a, e: a.get_tensor_desc_num_dims(0)),
    "get_tensor_desc_num_dims.unknown_rank": act(lambda a, e: a.get_tensor_desc_num_dims(e.desc(INT32, [-2]))),
    "get_tensor_desc_size.unknown_dim": act(lambda a, e: a.get_tensor_desc_size(e.desc(INT32, [-1, 16]))),
    "get_tensor_desc_size.overflow": act(lambda a, e: a.get_tensor_desc_size(e.desc(INT32, [2 ** 62, 4]))),
    "get_tensor_desc_element_count.unknown_dim":
        act(lambda a, e: a.get_tensor_desc_element_count(e.desc(INT32, [8, -1]))),
    "get_tensor_desc_name.null_desc": act(lambda a, e: a.get_tensor_desc_name(0)),
    "set_tensor_const.length_0": act(lambda a, e: a.set_tensor_const(e.descs[0], e.host, 0)),
    "set_tensor_const.null_data": act(lambda a, e: a.set_tensor_const(e.descs[0], 0, NBYTES)),
    "destroy_data_buffer.null": act(lambda a, e: a.destroy_data_buffer(0)),
    "update_data_buffer.null": act(lambda a, e: a.update_data_buffer(0, e.ptrs[0], NBYTES)),
    "get_data_buffer_addr.null": act(lambda a, e: a.get_data_buffer_addr(0)),
    "get_data_buffer_size_v2.null": act(lambda a, e: a.get_data_buffer_size_v2(0)),
    # attributes (attributes.md)
    "op.set_attr_bool.null_attr": act(lambda a, e: a.op.set_attr_bool(0, "b", True)),
    "op.set_attr_int.null_attr": act(lambda a, e: a.op.set_attr_int(0, "n", 1)),
    "op.set_attr_float.null_attr": act(lambda a, e: a.op.set_attr_float(0, "x", 1.0)),
    "op.set_attr_string.null_attr": act(lambda a, e: a.op.set_attr_string(0, "s", "v")),
    "op.set_attr_list_bool.null_attr": act(lambda a, e: a.op.set_attr_list_bool(0, "b", [1, 0])),
    "op.set_attr_list_int.null_attr": act(lambda a, e: a.op.set_attr_list_int(0, "l", [1, 2])),
    "op.set_attr_list_float.null_attr": act(lambda a, e: a.op.set_attr_list_float(0, "f", [1.0])),
    "op.set_attr_list_string.null_attr": act(lambda a, e: a.op.set_attr_list_string(0, "s", ["a"])),
    "op.set_attr_list_list_int.null_attr": act(lambda a, e: a.op.set_attr_list_list_int(0, "l", [[1], [2, 3]])),
    "op.set_attr_data_type.null_attr": act(lambda a, e: a.op.set_attr_data_type(0, "t", INT32)),
    "op.set_attr_list_data_type.null_attr": act(lambda a, e: a.op.set_attr_list_data_type(0, "t", [INT32])),
    # model loading (op-load-execute.md)
    "op.set_model_dir.repeat": act(lambda a, e: a.op.set_model_dir(".")),
    "op.set_model_dir.repeat_with_missing_folder": act(lambda a, e: a.op.set_model_dir("no-such-model-folder")),
    "op.load.null_model": act(lambda a, e: a.op.load(0, NBYTES)),
    "op.load.size_0": act(lambda a, e: a.op.load(e.host, 0)),
    "op.load.garbage": _garbage_model,
    "op.set_max_op_queue_num.zero": act(lambda a, e: a.op.set_max_op_queue_num(0)),
    # execute_v2 (op-load-execute.md#execute_v2-check-order)
    "op.execute_v2.null_input_desc": act(lambda a, e: a.op.execute_v2(
        OP, [e.descs[0], 0], e.in_bufs, e.out_descs, e.out_bufs, e.attr, e.stream)),
    "op.execute_v2.null_output_desc": act(lambda a, e: a.op.execute_v2(
        OP, e.in_descs, e.in_bufs, [0], e.out_bufs, e.attr, e.stream)),
    "op.execute_v2.null_input_buffer": act(lambda a, e: a.op.execute_v2(
        OP, e.in_descs, [0, e.bufs[1]], e.out_descs, e.out_bufs, e.attr, e.stream)),
    "op.execute_v2.null_output_buffer": act(lambda a, e: a.op.execute_v2(
        OP, e.in_descs, e.in_bufs, e.out_descs, [0], e.attr, e.stream)),
    "op.execute_v2.input_buffer_without_data": act(lambda a, e: a.op.execute_v2(
        OP, e.in_descs, [e.bufs[0], e.buffer(0, NBYTES)], e.out_descs, e.out_bufs, e.attr, e.stream)),
    "op.execute_v2.output_buffer_without_data": act(lambda a, e: a.op.execute_v2(
        OP, e.in_descs, e.in_bufs, e.out_descs, [e.buffer(0, NBYTES)], e.attr, e.stream)),
    "op.execute_v2.input_desc_list_one_short": act(lambda a, e: a.op.execute_v2(
        OP, e.descs[:1], e.in_bufs, e.out_descs, e.out_bufs, e.attr, e.stream)),
    "op.execute_v2.output_desc_list_one_short": act(lambda a, e: a.op.execute_v2(
        OP, e.in_descs, e.in_bufs, [], e.out_bufs, e.attr, e.stream)),
    "op.execute_v2.unknown_op_type": execute_with(op="NoSuchOperator"),
    "op.execute_v2.op_type_in_lower_case": execute_with(op=OP.lower()),
    "op.execute_v2.uncompiled_data_type": execute_with([{"data_type": INT16}] * 2, [{"data_type": INT16}]),
    "op.execute_v2.unknown_data_type": execute_with([{"data_type": 99}] * 2, [{"data_type": 99}]),
    "op.execute_v2.output_data_type_differs": execute_with(outputs=[{"data_type": INT16}]),
    "op.execute_v2.uncompiled_shape": execute_with([{"dims": UNCOMPILED_DIMS}] * 2, [{"dims": UNCOMPILED_DIMS}]),
    "op.execute_v2.output_shape_differs": execute_with(outputs=[{"dims": [999, 16]}]),
    "op.execute_v2.uncompiled_format": execute_with([{"fmt": NCHW}] * 2, [{"fmt": NCHW}]),
    "op.execute_v2.unknown_format": execute_with([{"fmt": 99}] * 2, [{"fmt": 99}]),
    "op.execute_v2.unexpected_attr": execute_with(attr={"alpha": 1}),
    "op.execute_v2.one_input": execute_with(inputs=[{}]),
    "op.execute_v2.three_inputs": execute_with(inputs=[{}] * 3),
    "op.execute_v2.unknown_dim_without_static_match": execute_with([{"dims": [-1, 16]}] * 2, [{"dims": [-1, 16]}]),
    "op.execute_v2.unknown_rank_without_static_match": execute_with([{"dims": [-2]}] * 2, [{"dims": [-2]}]),
    "op.execute_v2.every_output_empty": execute_with(outputs=[{"dims": [0, 16]}]),
    "op.execute.null_input_desc": act(lambda a, e: a.op.execute(
        OP, [0, e.descs[1]], e.in_bufs, e.out_descs, e.out_bufs, e.attr, e.stream)),
    "op.execute.unknown_op_type": act(lambda a, e: a.op.execute(
        "NoSuchOperator", e.in_descs, e.in_bufs, e.out_descs, e.out_bufs, e.attr, e.stream)),
    # handles (handles-blas-cast.md#handles)
    "op.create_handle.unknown_op_type": create_handle_with(op="NoSuchOperator"),
    "op.create_handle.uncompiled_data_type": create_handle_with([{"data_type": INT16}] * 2, [{"data_type": INT16}]),
    "op.create_handle.uncompiled_shape": create_handle_with([{"dims": UNCOMPILED_DIMS}] * 2,
                                                            [{"dims": UNCOMPILED_DIMS}]),
    "op.create_handle.unexpected_attr": create_handle_with(attr={"alpha": 1}),
    "op.create_handle.one_input": create_handle_with(inputs=[{}]),
    "op.create_handle.null_input_desc": act(lambda a, e: a.op.create_handle(OP, [e.descs[0], 0], e.out_descs, e.attr)),
    "op.create_handle.null_output_desc": act(lambda a, e: a.op.create_handle(OP, e.in_descs, [0], e.attr)),
    "op.create_handle.host_placed_input": create_handle_with(placed="input"),
    "op.create_handle.host_placed_output": create_handle_with(placed="output"),
    "op.execute_with_handle.null_handle":
        act(lambda a, e: a.op.execute_with_handle(0, e.in_bufs, e.out_bufs, e.stream)),
    "op.execute_with_handle.null_input_buffer":
        with_handle(lambda a, e, h: a.op.execute_with_handle(h, [e.bufs[0], 0], e.out_bufs, e.stream)),
    "op.execute_with_handle.null_output_buffer":
        with_handle(lambda a, e, h: a.op.execute_with_handle(h, e.in_bufs, [0], e.stream)),
    "op.execute_with_handle.one_input_too_few":
        with_handle(lambda a, e, h: a.op.execute_with_handle(h, e.bufs[:1], e.out_bufs, e.stream)),
    "op.execute_with_handle.no_inputs":
        with_handle(lambda a, e, h: a.op.execute_with_handle(h, [], e.out_bufs, e.stream)),
    "op.execute_with_handle.one_input_too_many":
        with_handle(lambda a, e, h: a.op.execute_with_handle(h, e.bufs, e.out_bufs, e.stream)),
    "op.execute_with_handle.one_output_too_many":
        with_handle(lambda a, e, h: a.op.execute_with_handle(h, e.in_bufs, e.bufs[1:], e.stream)),
    "op.execute_with_handle.every_output_buffer_empty": _zero_size_output,
    # infer_shape (op-load-execute.md#infer_shape)
    "op.infer_shape.empty_input_buffer": _empty_infer_input,
    # cast (handles-blas-cast.md#cast)
    "op.cast.null_dst_desc": _cast_probe(INT32, FP16, null="dst"),
    "op.cast.null_src_desc": _cast_probe(INT32, FP16, null="src"),
    "op.cast.uncompiled_source_type": _cast_probe(INT16, FP16),
    "op.create_handle_for_cast.uncompiled_source_type": _cast_probe(INT16, FP16, handle=True),
    "op.create_handle_for_cast.null_dst_desc": _cast_probe(INT32, FP16, handle=True, null="dst"),
    # blas (handles-blas-cast.md#gemm_ex-checks)
    "blas.gemm_ex.null_alpha": act(lambda a, e: _gemm(a, e, alpha=0)),
    "blas.gemm_ex.null_c": act(lambda a, e: _gemm(a, e, c=0)),
    "blas.gemm_ex.m_0": act(lambda a, e: _gemm(a, e, m=0)),
    "blas.gemm_ex.k_negative": act(lambda a, e: _gemm(a, e, k=-1)),
    "blas.gemm_ex.trans_c_t": act(lambda a, e: _gemm(a, e, trans_c=T)),
    "blas.gemm_ex.lda_not_minus_1": act(lambda a, e: _gemm(a, e, lda=GEMM_K)),
    "blas.gemm_ex.ldc_not_minus_1": act(lambda a, e: _gemm(a, e, ldc=GEMM_N)),
    "blas.gemm_ex.low_precision": act(lambda a, e: _gemm(a, e, type=LOW)),
    "blas.gemm_ex.no_model": act(lambda a, e: _gemm(a, e)),
    "blas.create_handle_for_gemm_ex.m_0": act(lambda a, e: _gemm_handle(a, e, m=0)),
    "blas.create_handle_for_gemm_ex.low_precision": act(lambda a, e: _gemm_handle(a, e, type=LOW)),
    "blas.create_handle_for_gemm_ex.no_model": act(lambda a, e: _gemm_handle(a, e)),
}


def _freed_pointer(acl: Any, size: int = NBYTES) -> int:
    ptr = flow.value(acl.rt.malloc(size, NORMAL), "acl.rt.malloc")
    flow.check(acl.rt.free(ptr), "acl.rt.free")
    return ptr


def _then_synchronize(acl: Any, env: Env, ret: int) -> int:
    """An execution's ret, or (if it was accepted) the first error its stream reports."""
    return ret or acl.rt.synchronize_stream_with_timeout(env.stream, SYNC_TIMEOUT_MS)


def _double_free(acl: Any, env: Env) -> Act:
    ptr = _freed_pointer(acl)
    return partial(acl.rt.free, ptr)


def _double_free_host(acl: Any, env: Env) -> Act:
    ptr = flow.value(acl.rt.malloc_host(NBYTES), "acl.rt.malloc_host")
    flow.check(acl.rt.free_host(ptr), "acl.rt.free_host")
    return partial(acl.rt.free_host, ptr)


def _copy_to_freed(acl: Any, env: Env) -> Act:
    ptr = _freed_pointer(acl)
    return partial(acl.rt.memcpy, ptr, NBYTES, env.host, NBYTES, H2D)


def _buffer_destroyed_twice(acl: Any, env: Env) -> Act:
    buf = acl.create_data_buffer(env.ptrs[0], NBYTES)
    flow.check(acl.destroy_data_buffer(buf), "acl.destroy_data_buffer")
    return partial(acl.destroy_data_buffer, buf)


def _destroyed_attr(acl: Any, env: Env) -> Act:
    attr = acl.op.create_attr()
    acl.op.destroy_attr(attr)
    return partial(acl.op.set_attr_int, attr, "n", 1)


def _destroyed_desc_getter(acl: Any, env: Env) -> Act:
    desc = acl.create_tensor_desc(INT32, SHAPE, ND)
    acl.destroy_tensor_desc(desc)
    return partial(acl.get_tensor_desc_dim_v2, desc, 0)


def _execute_destroyed_desc(acl: Any, env: Env) -> Act:
    desc = acl.create_tensor_desc(INT32, SHAPE, ND)
    acl.destroy_tensor_desc(desc)
    return lambda: _then_synchronize(acl, env, acl.op.execute_v2(
        OP, [env.descs[0], desc], env.in_bufs, env.out_descs, env.out_bufs, env.attr, env.stream))


def _execute_freed_input(acl: Any, env: Env) -> Act:
    buf = env.buffer(_freed_pointer(acl), NBYTES)
    return lambda: _then_synchronize(acl, env, acl.op.execute_v2(
        OP, env.in_descs, [env.bufs[0], buf], env.out_descs, env.out_bufs, env.attr, env.stream))


def _execute_destroyed_handle(acl: Any, env: Env) -> Act:
    handle = flow.value(acl.op.create_handle(OP, env.in_descs, env.out_descs, env.attr), "acl.op.create_handle")
    acl.op.destroy_handle(handle)
    return lambda: _then_synchronize(acl, env, acl.op.execute_with_handle(handle, env.in_bufs, env.out_bufs,
                                                                          env.stream))


def _destroyed_stream(acl: Any, env: Env, call: Callable[[int], int]) -> Act:
    stream = flow.value(acl.rt.create_stream(), "acl.rt.create_stream")
    flow.check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
    return partial(call, stream)


#: Misuse that would corrupt or crash real hardware: use after free, double free, destroyed handles, copies
#: beyond an allocation. The exact code is UNCONFIRMED (docs/contract/misuse.md#out-of-bounds-device-memory), so the
#: expectation is a rejection.
UNSAFE: dict[str, Probe] = {
    "unsafe.rt.free.double_free": _double_free,
    "unsafe.rt.free.interior_pointer": act(lambda a, e: a.rt.free(e.ptrs[0] + 64)),
    "unsafe.rt.free.host_pointer": act(lambda a, e: a.rt.free(e.host)),
    "unsafe.rt.free_host.device_pointer": act(lambda a, e: a.rt.free_host(e.ptrs[0])),
    "unsafe.rt.free_host.double_free": _double_free_host,
    "unsafe.rt.memcpy.freed_destination": _copy_to_freed,
    "unsafe.rt.memcpy.beyond_the_allocation":
        act(lambda a, e: a.rt.memcpy(e.ptrs[0], 4 * NBYTES, e.ptrs[1], 4 * NBYTES, D2D)),
    "unsafe.destroy_data_buffer.twice": _buffer_destroyed_twice,
    "unsafe.op.set_attr_int.destroyed_attr": _destroyed_attr,
    "unsafe.get_tensor_desc_dim_v2.destroyed_desc": _destroyed_desc_getter,
    "unsafe.op.execute_v2.destroyed_input_desc": _execute_destroyed_desc,
    "unsafe.op.execute_v2.freed_input_memory": _execute_freed_input,
    "unsafe.op.execute_with_handle.destroyed_handle": _execute_destroyed_handle,
    "unsafe.rt.synchronize_stream.destroyed_stream":
        lambda a, e: _destroyed_stream(a, e, a.rt.synchronize_stream),
    "unsafe.rt.destroy_stream.twice": lambda a, e: _destroyed_stream(a, e, a.rt.destroy_stream),
}
PROBES: dict[str, Probe] = {**BINDING, **CODES, **UNSAFE}


def with_step(scenarios: list[str]) -> list[Any]:
    """The scenarios as parameters, each carrying the marker of the documented step of the call it probes."""
    return [marked(name.removeprefix("binding.").removeprefix("unsafe."), name, id=name) for name in scenarios]


def _releaser(acl: Any, kind: str) -> Callable[[int], Any]:
    return {"handle": acl.op.destroy_handle, "buffer": acl.destroy_data_buffer, "desc": acl.destroy_tensor_desc,
            "attr": acl.op.destroy_attr, "device_mem": acl.rt.free, "host_mem": acl.rt.free_host,
            "event": acl.rt.destroy_event, "stream": acl.rt.destroy_stream, "context": acl.rt.destroy_context}[kind]


def _release_leftovers(acl: TrackingAcl, before: set, session: flow.Session) -> None:
    """Release what a wrongly successful call created, so the test reports the outcome rather than a leak."""
    leftovers = sorted(acl.tracker.created_since(before), key=lambda t: RELEASE_ORDER.index(t.kind))
    for obj in leftovers:
        _releaser(acl, obj.kind)(obj.handle)
    acl.rt.set_context(session.context)


def run_probe(acl: Any, session: flow.Session, scenario: str) -> dict[str, Any]:
    """Arrange the scenario's valid objects, make its one call, release everything; the outcome as JSON."""
    tracked = acl if isinstance(acl, TrackingAcl) else TrackingAcl(acl)
    before = tracked.tracker.snapshot()
    env = Env(tracked, session, flow.Resources(tracked))
    try:
        outcome = Outcome.capture(PROBES[scenario](tracked, env))
        tracked.rt.synchronize_stream_with_timeout(session.stream, SYNC_TIMEOUT_MS)
    except BaseException:
        env.release()
        raise
    try:
        env.release()
        release_error = None
    except flow.AclCallError as exc:
        release_error = str(exc)
    _release_leftovers(tracked, before, session)
    return {**outcome.to_json(), "release_error": release_error}


def check(error_codes: Any, scenario: str, outcome: dict[str, Any]) -> None:
    """The documented outcome, then a clean release of the probe's objects."""
    __tracebackhide__ = True
    error_codes.check(scenario, Outcome.from_json(outcome))
    assert outcome["release_error"] is None, f"{scenario}: releasing the probe's objects failed: " \
                                             f"{outcome['release_error']}"


def _skip_if_marked(error_codes: Any, scenario: str) -> None:
    reason = error_codes[scenario].skip
    if reason:
        pytest.skip(f"{error_codes.path}: {reason}")


@pytest.mark.negative
@pytest.mark.parametrize("scenario", with_step([*BINDING, *CODES]))
def test_invalid_call_gets_the_documented_outcome(acl, session, error_codes, scenario):
    _skip_if_marked(error_codes, scenario)
    check(error_codes, scenario, run_probe(acl, session, scenario))


@pytest.mark.negative
@pytest.mark.unsafe
@pytest.mark.parametrize("scenario", with_step(list(UNSAFE)))
def test_misuse_is_rejected(acl, session, error_codes, pytestconfig, aclcts_backend, model_dir, scenario):
    _skip_if_marked(error_codes, scenario)
    where = isolation.placement(aclcts_backend.capabilities, pytestconfig.getoption("--isolate", False))
    if where == "skip":
        pytest.skip("unsafe on real hardware: run with --isolate to probe it in a child process")
    if where == "inline":
        outcome = run_probe(acl, session, scenario)
    else:
        outcome = isolation.run_in_child(run_probe, [scenario], backend=aclcts_backend.spec, device_id=session.device_id,
                                         model_dir=model_dir).get()
    check(error_codes, scenario, outcome)


def test_every_scenario_has_a_probe_and_every_probe_a_scenario(error_codes):
    unprobed = sorted(set(error_codes.scenarios) - set(PROBES))
    unexpected = sorted(set(PROBES) - set(error_codes.scenarios))
    assert not unprobed, f"{error_codes.path}: scenarios without a probe in {__name__}: {unprobed}"
    assert not unexpected, f"probes without a scenario in {error_codes.path}: {unexpected}"
