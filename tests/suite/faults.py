"""Pyacl-compatible wrappers around the simulator, each with one injected defect, for `--backend=MODULE:ATTR`."""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from aclcts.drive.backends import mutable_copy
from aclcts.sim import acl as _sim

ACL_FLOAT = 0
H2D, D2H = 1, 2


def _output_pointers(outputs: list[int]) -> list[tuple[int, int]]:
    return [(_sim.get_data_buffer_addr(b), _sim.get_data_buffer_size_v2(b)) for b in outputs]


def changed_output_element() -> types.SimpleNamespace:
    """Every op execution ends with its first output's first byte overwritten (one wrong element)."""
    acl = mutable_copy(_sim)

    def corrupt(outputs: list[int], stream: int) -> None:
        pointers = _output_pointers(outputs)
        if pointers and pointers[0][0] and pointers[0][1]:
            ptr, size = pointers[0]
            _sim.rt.memset_async(ptr, size, 0x5A, 1, stream)

    def execute_v2(op_type, in_descs, inputs, out_descs, outputs, attr, stream):
        ret = _sim.op.execute_v2(op_type, in_descs, inputs, out_descs, outputs, attr, stream)
        if ret == 0:
            corrupt(outputs, stream)
        return ret

    def execute_with_handle(handle, inputs, outputs, stream):
        ret = _sim.op.execute_with_handle(handle, inputs, outputs, stream)
        if ret == 0:
            corrupt(outputs, stream)
        return ret

    acl.op.execute_v2, acl.op.execute_with_handle = execute_v2, execute_with_handle
    return acl


def ignored_gemm_beta() -> types.SimpleNamespace:
    """GEMM computes alpha·op(A)·op(B) and drops beta·C (beta is zeroed before the op runs)."""
    acl = mutable_copy(_sim)

    def zero_beta(inputs: list[int], stream: int) -> None:
        ptr, size = _sim.get_data_buffer_addr(inputs[4]), _sim.get_data_buffer_size_v2(inputs[4])
        if ptr and size:
            _sim.rt.memset_async(ptr, size, 0, size, stream)

    def execute_v2(op_type, in_descs, inputs, out_descs, outputs, attr, stream):
        if op_type == "GEMM" and len(inputs) == 5:
            zero_beta(inputs, stream)
        return _sim.op.execute_v2(op_type, in_descs, inputs, out_descs, outputs, attr, stream)

    handles: set[int] = set()

    def create_handle_for_gemm_ex(*args):
        handle, ret = _sim.blas.create_handle_for_gemm_ex(*args)
        handles.add(handle)
        return handle, ret

    def create_handle(op_type, in_descs, out_descs, attr):
        handle, ret = _sim.op.create_handle(op_type, in_descs, out_descs, attr)
        if op_type == "GEMM":
            handles.add(handle)
        return handle, ret

    def execute_with_handle(handle, inputs, outputs, stream):
        if handle in handles and len(inputs) == 5:
            zero_beta(inputs, stream)
        return _sim.op.execute_with_handle(handle, inputs, outputs, stream)

    def gemm_ex(*args):
        args = list(args)
        beta, dtype_c, stream = args[13], args[16], args[18]
        if beta:
            _sim.rt.memset_async(beta, 4 if dtype_c != 1 else 2, 0, 4 if dtype_c != 1 else 2, stream)
        return _sim.blas.gemm_ex(*args)

    acl.op.execute_v2, acl.op.create_handle, acl.op.execute_with_handle = execute_v2, create_handle, execute_with_handle
    acl.blas.gemm_ex, acl.blas.create_handle_for_gemm_ex = gemm_ex, create_handle_for_gemm_ex
    return acl


def wrong_missing_model_code() -> types.SimpleNamespace:
    """A missing op model is reported as 100000 (invalid parameter) instead of 100024 (op not found)."""
    acl = mutable_copy(_sim)

    def remap(ret: Any) -> Any:
        if isinstance(ret, tuple):
            return (*ret[:-1], 100000) if ret[-1] == 100024 else ret
        return 100000 if ret == 100024 else ret

    for name in ("execute_v2", "execute", "create_handle", "cast", "create_handle_for_cast"):
        original = getattr(_sim.op, name)
        setattr(acl.op, name, lambda *a, _f=original: remap(_f(*a)))
    for name in ("gemm_ex", "create_handle_for_gemm_ex", "hgemm", "s8gemm"):
        original = getattr(_sim.blas, name)
        setattr(acl.blas, name, lambda *a, _f=original: remap(_f(*a)))
    return acl


def short_host_to_device_copy() -> types.SimpleNamespace:
    """Host→device copies drop their last byte."""
    acl = mutable_copy(_sim)

    def memcpy(dst, dest_max, src, count, kind):
        if kind == H2D and count > 1:
            count -= 1
        return _sim.rt.memcpy(dst, dest_max, src, count, kind)

    def memcpy_async(dst, dest_max, src, count, kind, stream):
        if kind == H2D and count > 1:
            count -= 1
        return _sim.rt.memcpy_async(dst, dest_max, src, count, kind, stream)

    acl.rt.memcpy, acl.rt.memcpy_async = memcpy, memcpy_async
    return acl


def one_ulp_float32_exp() -> types.SimpleNamespace:
    """Exp on float32 returns values one ulp away from the simulator's (inside every float32 policy's bound)."""
    acl = mutable_copy(_sim)
    pending: list[tuple[int, int]] = []

    def execute_v2(op_type, in_descs, inputs, out_descs, outputs, attr, stream):
        ret = _sim.op.execute_v2(op_type, in_descs, inputs, out_descs, outputs, attr, stream)
        if ret == 0 and op_type == "Exp" and _sim.get_tensor_desc_type(out_descs[0]) == ACL_FLOAT:
            pending.extend(_output_pointers(outputs[:1]))
        return ret

    def synchronize_stream(stream):
        ret = _sim.rt.synchronize_stream(stream)
        while pending:
            ptr, size = pending.pop()
            if not size:
                continue
            host, _ = _sim.rt.malloc_host(size)
            _sim.rt.memcpy(host, size, ptr, size, D2H)
            values = np.frombuffer(_sim.util.ptr_to_bytes(host, size), np.float32)
            nudged = np.nextafter(values, np.float32(np.inf)).astype(np.float32).tobytes()
            _sim.rt.memcpy(ptr, size, _sim.util.bytes_to_ptr(nudged), size, H2D)
            _sim.rt.free_host(host)
        return ret

    acl.op.execute_v2, acl.rt.synchronize_stream = execute_v2, synchronize_stream
    return acl
