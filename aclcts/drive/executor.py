"""The one executor of a case: stage it on the device, run it (execute_v2, a handle, infer_shape then execute_v2 for a
dynamic case, the packaged gemm_ex / hgemm / s8gemm and Cast with their handle forms), synchronise and read it back.

Every output sits between two guard bands and is filled with POISON before each execution, so that writes outside
an output and elements an op never wrote show. The band after an output starts at its 32-byte aligned end: a kernel
moves data to global memory in 32-byte blocks, and malloc reserves ALIGN_UP(size, 32) + 32 bytes for exactly this,
so writes between the size and that end are tolerated (counted, and warned about with TailBlockWritten).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from aclcts.cases import Case, TensorCase
from aclcts.core.constants import ACL_UNKNOWN_RANK, ComputeType, TransType, data_type_size
from aclcts.core.dtypes import numpy_dtype
from aclcts.drive import flow

#: Bytes of guard band before and after every output; a multiple of 64 keeps outputs aligned.
GUARD = 64
#: The byte every output allocation is filled with before execution.
POISON = 0x7B
#: The ways run() executes a static case.
MODES = ("execute_v2", "handle")
#: Bytes of one block of a kernel's move to global memory: an output's last block may be written whole.
BLOCK = 32


class GuardBandError(AssertionError):
    """An op wrote outside its output tensor (before it, or past its 32-byte aligned end)."""


class TailBlockWritten(UserWarning):
    """An op wrote bytes between an output's size and its 32-byte aligned end (tolerated, but worth knowing)."""


def align_up(size: int, alignment: int = BLOCK) -> int:
    """size rounded up to a multiple of alignment."""
    return -(-size // alignment) * alignment


@dataclass
class Outputs:
    """One execution's outputs and what the executor saw around them (tail_written: per output, the bytes written
    between its size and its 32-byte aligned end; empty if not counted)."""

    arrays: list[np.ndarray]
    unwritten: list[np.ndarray]
    tail_written: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Guarded:
    """One output allocation: the start of the output (after its guard band) and the output's size in bytes."""

    ptr: int
    size: int

    @property
    def base(self) -> int:
        """Start of the allocation (the guard band before the output)."""
        return self.ptr - GUARD

    @property
    def aligned(self) -> int:
        """Bytes from the start of the output to its 32-byte aligned end, where the guard band after it starts."""
        return align_up(self.size)

    @property
    def total(self) -> int:
        """Bytes of the allocation: the output up to its aligned end and both guard bands."""
        return self.aligned + 2 * GUARD


def guarded_malloc(res: flow.Resources, size: int) -> Guarded:
    """Allocate size bytes (up to their 32-byte aligned end) between two guard bands, held by res."""
    return Guarded(flow.malloc(res, align_up(size) + 2 * GUARD) + GUARD, size)


def poison(acl: Any, allocations: Iterable[Guarded]) -> None:
    """Fill every output and its guard bands with POISON."""
    for held in allocations:
        with flow.step("acl.rt.memset"):
            flow.check(acl.rt.memset(held.base, held.total, POISON, held.total), "acl.rt.memset")


def read_guarded(res: flow.Resources, held: Guarded, overwritten: Callable[[str], str],
                 size: int | None = None) -> tuple[bytes, int]:
    """The first `size` (default all) bytes of an output and how many bytes between its size and its 32-byte aligned
    end lost their POISON (a TailBlockWritten warning if any); GuardBandError(overwritten("before" or "after")) if a
    guard band lost its POISON."""
    raw = flow.copy_to_host(res, held.base, held.total)
    band = bytes([POISON]) * GUARD
    before, after = raw[:GUARD], raw[GUARD + held.aligned:]
    if before != band:
        raise GuardBandError(overwritten("before"))
    if after != band:
        raise GuardBandError(f"{overwritten('after')} (past its 32-byte aligned end, {held.aligned} bytes)")
    tail = raw[GUARD + held.size:GUARD + held.aligned]
    written = sum(byte != POISON for byte in tail)
    if written:
        warnings.warn(TailBlockWritten(f"{overwritten('after')}: {written} of the {len(tail)} byte(s) up to its "
                                       f"32-byte aligned end ({held.aligned} bytes); tolerated, kernels write whole "
                                       "32-byte blocks"), stacklevel=2)
    return raw[GUARD:GUARD + (held.size if size is None else size)], written


def _unwritten(body: bytes, tensor: TensorCase, shape: tuple[int, ...]) -> np.ndarray:
    itemsize = tensor.np_dtype.itemsize
    elements = np.frombuffer(body, np.uint8).reshape(-1, itemsize) if body else np.zeros((0, itemsize), np.uint8)
    return np.all(elements == POISON, axis=1).reshape(shape)


# attributes ---------------------------------------------------------------------------------------------------
def create_attr(acl: Any, res: flow.Resources, attrs: Iterable[Any]) -> int:
    """acl.op.create_attr with every attribute (name, type, value as in aclcts.core.opmodel.Attr) set, held by res."""
    with flow.step("acl.op.create_attr"):
        attr = acl.op.create_attr()
    res.attrs.append(attr)
    for a in attrs:
        _set_attr(acl, attr, a.name, a.type, a.value)
    return attr


def _set_attr(acl: Any, attr: int, name: str, kind: str, value: Any) -> None:
    plain = [list(v) if isinstance(v, tuple) else v for v in value] if isinstance(value, tuple) else value
    setter = {
        "bool": acl.op.set_attr_bool,
        "int": acl.op.set_attr_int,
        "float": acl.op.set_attr_float,
        "string": acl.op.set_attr_string,
        "list_bool": acl.op.set_attr_list_bool,
        "list_int": acl.op.set_attr_list_int,
        "list_float": acl.op.set_attr_list_float,
        "list_string": acl.op.set_attr_list_string,
        "list_list_int": acl.op.set_attr_list_list_int,
    }.get(kind)
    with flow.step(f"acl.op.set_attr_{kind}"):
        if setter is not None:
            flow.check(setter(attr, name, plain), f"acl.op.set_attr_{kind}({name!r})")
        elif kind == "data_type":
            flow.check(acl.op.set_attr_data_type(attr, name, value)[-1], f"acl.op.set_attr_data_type({name!r})")
        else:
            flow.check(acl.op.set_attr_list_data_type(attr, name, plain)[-1],
                       f"acl.op.set_attr_list_data_type({name!r})")


# staging ------------------------------------------------------------------------------------------------------
@dataclass
class Staged:
    """A case's attributes, input and output descs and buffers, set up in a Resources scope."""

    attr: int
    in_descs: list[int]
    in_bufs: list[int]
    in_ptrs: list[int]
    out_descs: list[int]
    out_bufs: list[int]
    allocations: list[Guarded]


def _put_input(acl: Any, res: flow.Resources, tensor: TensorCase, array: np.ndarray, dims: tuple[int, ...],
               fmt: int) -> tuple[int, int, int]:
    """An input's desc, buffer and device pointer: a constant is set on the desc and gets an empty buffer."""
    desc = flow.create_desc(res, tensor.dtype, dims, fmt)
    if tensor.const is not None:
        payload = np.ascontiguousarray(array).tobytes()
        with flow.step("acl.set_tensor_const"):
            flow.check(acl.set_tensor_const(desc, acl.util.bytes_to_ptr(payload), len(payload)), "acl.set_tensor_const")
        return desc, flow.create_buffer(res, 0, 0), 0
    ptr = flow.malloc(res, array.nbytes)
    flow.copy_to_device(acl, ptr, array)
    return desc, flow.create_buffer(res, ptr, array.nbytes), ptr


def _put_output(res: flow.Resources, tensor: TensorCase, capacity: tuple[int, ...], dims: tuple[int, ...],
                fmt: int) -> tuple[int, int, Guarded]:
    """An output's desc of dims and a guarded buffer holding an array of the capacity shape."""
    desc = flow.create_desc(res, tensor.dtype, dims, fmt)
    held = guarded_malloc(res, int(np.prod(capacity, dtype=np.int64)) * tensor.np_dtype.itemsize)
    return desc, flow.create_buffer(res, held.ptr, held.size), held


def _stage(acl: Any, res: flow.Resources, case: Case, inputs: list[np.ndarray], in_dims: list[tuple[int, ...]],
           capacities: list[tuple[int, ...]], out_dims: list[tuple[int, ...]]) -> Staged:
    with flow.step("stage"):
        attr = create_attr(acl, res, case.attrs)
        placed = [_put_input(acl, res, t, a, d, case.format) for t, a, d in zip(case.inputs, inputs, in_dims)]
        made = [_put_output(res, t, c, d, case.format) for t, c, d in zip(case.outputs, capacities, out_dims)]
    return Staged(attr, [p[0] for p in placed], [p[1] for p in placed], [p[2] for p in placed],
                  [m[0] for m in made], [m[1] for m in made], [m[2] for m in made])


def stage(acl: Any, res: flow.Resources, case: Case, inputs: list[np.ndarray]) -> Staged:
    """Create a static case's attr, copy its inputs to the device and allocate its guarded outputs, all held by res."""
    constants = [t.const_array() if t.const is not None else a for t, a in zip(case.inputs, inputs)]
    shapes = [t.shape for t in case.outputs]
    return _stage(acl, res, case, constants, [t.shape for t in case.inputs], shapes, shapes)


def create_handle(acl: Any, res: flow.Resources, case: Case, staged: Staged) -> int:
    """acl.op.create_handle for a staged case, held by res."""
    with flow.step("acl.op.create_handle"):
        handle = flow.value(acl.op.create_handle(case.op, staged.in_descs, staged.out_descs, staged.attr),
                            "acl.op.create_handle", acl)
    res.handles.append(handle)
    return handle


def synchronize(acl: Any, stream: int) -> None:
    """acl.rt.synchronize_stream, raising AclCallError unless it returns 0."""
    with flow.step("acl.rt.synchronize_stream"):
        flow.check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream", acl)


def launch(acl: Any, stream: int, case: Case, staged: Staged, handle: int = 0) -> int:
    """Queue one execution of a staged case on stream: execute_with_handle if a handle is given, else execute_v2."""
    if handle:
        return acl.op.execute_with_handle(handle, staged.in_bufs, staged.out_bufs, stream)
    return acl.op.execute_v2(case.op, staged.in_descs, staged.in_bufs, staged.out_descs, staged.out_bufs,
                             staged.attr, stream)


def _collect(res: flow.Resources, case: Case, staged: Staged) -> Outputs:
    arrays, unwritten, tails = [], [], []
    for tensor, held in zip(case.outputs, staged.allocations):
        body, tail = read_guarded(res, held, lambda side, name=tensor.name, size=held.size:
                                  f"{case.op} output {name!r}: bytes {side} the {size}-byte output were overwritten")
        unwritten.append(_unwritten(body, tensor, tensor.shape))
        arrays.append(flow.array_from(body, tensor.dtype, tensor.shape))
        tails.append(tail)
    return Outputs(arrays, unwritten, tails)


def run(acl: Any, stream: int, case: Case, input_sets: list[list[np.ndarray]], mode: str) -> list[Outputs]:
    """Run a static case once per input set by execute_v2 or by one handle, synchronising before each read-back."""
    if mode not in MODES:
        raise ValueError(f"mode: expected one of {', '.join(MODES)}, got {mode!r}")
    results = []
    with flow.resources(acl) as res:
        staged = stage(acl, res, case, input_sets[0])
        handle = create_handle(acl, res, case, staged) if mode == "handle" else 0
        call = "acl.op.execute_with_handle" if handle else "acl.op.execute_v2"
        for index, arrays in enumerate(input_sets):
            with flow.step(f"execution {index + 1}"):
                if index:
                    for tensor, ptr, array in zip(case.inputs, staged.in_ptrs, arrays):
                        if tensor.const is None:
                            flow.copy_to_device(acl, ptr, array)
                poison(acl, staged.allocations)
                with flow.step(call):
                    flow.check(launch(acl, stream, case, staged, handle), call, acl)
                synchronize(acl, stream)
                results.append(_collect(res, case, staged))
    return results


def latencies(acl: Any, stream: int, case: Case, inputs: list[np.ndarray], rounds: int,
              warmup: int) -> tuple[list[float], list[float]]:
    """Seconds of rounds synchronised execute_v2 and execute_with_handle runs of a static case, taking turns."""
    with flow.resources(acl) as res:
        staged = stage(acl, res, case, inputs)
        handle = create_handle(acl, res, case, staged)

        def timed(with_handle: int) -> float:
            start = time.perf_counter()
            flow.check(launch(acl, stream, case, staged, with_handle),
                       "acl.op.execute_with_handle" if with_handle else "acl.op.execute_v2")
            flow.check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
            return time.perf_counter() - start

        for _ in range(warmup):
            timed(0), timed(handle)
        by_v2, by_handle = [], []
        for index in range(rounds):
            order = (handle, 0) if index % 2 else (0, handle)
            for which in order:
                (by_handle if which else by_v2).append(timed(which))
    return by_v2, by_handle


def run_plain(acl: Any, stream: int, case: Case, arrays: list[np.ndarray]) -> list[bytes]:
    """One execute_v2 of a static case without constants in plain acl calls (no guard bands, no checks until the end):
    the baseline the bench compares run() with; the output bytes."""
    in_descs = [acl.create_tensor_desc(t.dtype, list(t.shape), case.format) for t in case.inputs]
    out_descs = [acl.create_tensor_desc(t.dtype, list(t.shape), case.format) for t in case.outputs]
    in_ptrs, in_bufs = [], []
    for array in arrays:
        payload = np.ascontiguousarray(array).tobytes()
        ptr, _ = acl.rt.malloc(len(payload), 0)
        acl.rt.memcpy(ptr, len(payload), acl.util.bytes_to_ptr(payload), len(payload), flow.H2D)
        in_ptrs.append(ptr)
        in_bufs.append(acl.create_data_buffer(ptr, len(payload)))
    sizes = [int(np.prod(t.shape)) * t.np_dtype.itemsize for t in case.outputs]
    out_ptrs = [acl.rt.malloc(size, 0)[0] for size in sizes]
    out_bufs = [acl.create_data_buffer(ptr, size) for ptr, size in zip(out_ptrs, sizes)]
    attr = acl.op.create_attr()
    for name, value in case.attr_values().items():
        kind = next(a.type for a in case.attrs if a.name == name)
        getattr(acl.op, f"set_attr_{kind}")(attr, name, value)
    ret = acl.op.execute_v2(case.op, in_descs, in_bufs, out_descs, out_bufs, attr, stream)
    sync = acl.rt.synchronize_stream(stream)
    results = []
    if not ret and not sync:
        for ptr, size in zip(out_ptrs, sizes):
            host, _ = acl.rt.malloc_host(size)
            acl.rt.memcpy(host, size, ptr, size, flow.D2H)
            results.append(acl.util.ptr_to_bytes(host, size))
            acl.rt.free_host(host)
    for buf in in_bufs + out_bufs:
        acl.destroy_data_buffer(buf)
    for desc in in_descs + out_descs:
        acl.destroy_tensor_desc(desc)
    acl.op.destroy_attr(attr)
    for ptr in in_ptrs + out_ptrs:
        acl.rt.free(ptr)
    flow.check(ret, f"{case.id}: plain acl.op.execute_v2")
    flow.check(sync, f"{case.id}: plain acl.rt.synchronize_stream")
    return results


# dynamic cases ------------------------------------------------------------------------------------------------
def case_inputs(case: Case, runtime: list[np.ndarray]) -> list[np.ndarray]:
    """Every input of a case in IR order: the runtime arrays with the constant inputs filled in."""
    given = iter(runtime)
    return [t.const_array() if t.const is not None else next(given) for t in case.inputs]


@dataclass
class Executed:
    """What one execute_v2 of a dynamic case gave: its code, the output dims, sizes and counts read back, the outputs."""

    ret: int
    dims: list[list[int] | None]
    sizes: list[int]
    counts: list[int]
    arrays: list[np.ndarray]


def desc_dims(acl: Any, desc: int) -> list[int] | None:
    """The dims of a desc by get_tensor_desc_num_dims and get_tensor_desc_dim_v2; None for ACL_UNKNOWN_RANK."""
    count = acl.get_tensor_desc_num_dims(desc)
    if count == ACL_UNKNOWN_RANK:
        return None
    return [flow.value(acl.get_tensor_desc_dim_v2(desc, index), f"acl.get_tensor_desc_dim_v2(desc, {index})")
            for index in range(count)]


def dim_range(acl: Any, desc: int, index: int) -> tuple[int, int]:
    """(min, max) of one dim by get_tensor_desc_dim_range(desc, index, 2)."""
    found = flow.value(acl.get_tensor_desc_dim_range(desc, index, 2), f"acl.get_tensor_desc_dim_range(desc, {index}, 2)")
    return int(found[0]), int(found[1])


def execute_dynamic(acl: Any, stream: int, case: Case, inputs: list[np.ndarray], out_dims: list[list[int]],
                    in_dims: list[list[int]] | None = None, out_desc_dims: list[list[int]] | None = None) -> Executed:
    """execute_v2 of a dynamic case with exact input descs (or in_dims) and output descs of out_dims (or
    out_desc_dims), guarded buffers sized by out_dims; synchronise, then read the real dims and size back from the
    output descs and copy that many bytes. A non-zero execute_v2 code is returned, not raised."""
    with flow.resources(acl) as res:
        shapes = [tuple(d) for d in (in_dims or [a.shape for a in inputs])]
        capacities = [tuple(d) for d in out_dims]
        staged = _stage(acl, res, case, inputs, shapes, capacities,
                        [tuple(d) for d in (out_desc_dims or out_dims)])
        with flow.step("execution 1"):
            poison(acl, staged.allocations)
            with flow.step("acl.op.execute_v2"):
                ret = launch(acl, stream, case, staged)
            if ret != 0:
                return Executed(ret, [], [], [], [])
            synchronize(acl, stream)
            with flow.step("acl.get_tensor_desc_* (outputs)"):
                dims = [desc_dims(acl, d) for d in staged.out_descs]
                sizes = [acl.get_tensor_desc_size(d) for d in staged.out_descs]
                counts = [acl.get_tensor_desc_element_count(d) for d in staged.out_descs]
            arrays = []
            for tensor, real, size, held in zip(case.outputs, dims, sizes, staged.allocations):
                body, _ = read_guarded(res, held, lambda side, name=tensor.name, cap=held.size:
                                       f"{case.id} output {name!r}: bytes {side} the {cap}-byte output were "
                                       "overwritten", min(size, held.size))
                arrays.append(flow.array_from(body, tensor.dtype, tuple(real or ())))
            return Executed(ret, dims, sizes, counts, arrays)


@dataclass
class Inferred:
    """One output desc after infer_shape: dtype, dims (None = unknown rank), (min, max) of every -1 dim, size, count."""

    dtype: int
    dims: list[int] | None
    ranges: dict[int, tuple[int, int]]
    size: int
    count: int


def infer_shape(acl: Any, op: str, inputs: list[tuple[int, list[int], np.ndarray, str]], outputs: list[tuple[int, str]],
                attrs: Iterable[Any] = (), in_ranges: list[list[tuple[int, int]] | None] | None = None,
                fmt: int = 2) -> tuple[int, list[Inferred]]:
    """acl.op.infer_shape with input descs (dtype, dims, host data, name), each -1 input dim given its range,
    and output descs (dtype, name); the code and what get_tensor_desc_* report for every output afterwards."""
    with flow.step("infer shape"), flow.resources(acl) as res:
        attr = create_attr(acl, res, attrs)
        payloads = [np.ascontiguousarray(array).tobytes() or b"\0" for _, _, array, _ in inputs]
        in_descs, in_bufs = [], []
        for index, ((dtype, dims, _, name), payload) in enumerate(zip(inputs, payloads)):
            desc = flow.create_desc(res, dtype, tuple(dims), fmt)
            if name:
                acl.set_tensor_desc_name(desc, name)
            ranges = in_ranges[index] if in_ranges else None
            if ranges:
                with flow.step("acl.set_tensor_shape_range"):
                    flow.check(acl.set_tensor_shape_range(desc, [list(r) for r in ranges]), "acl.set_tensor_shape_range")
            in_descs.append(desc)
            in_bufs.append(flow.create_buffer(res, acl.util.bytes_to_ptr(payload), len(payload)))
        out_descs = []
        for dtype, name in outputs:
            desc = flow.create_desc(res, dtype, (1,), fmt)
            if name:
                acl.set_tensor_desc_name(desc, name)
            out_descs.append(desc)
        with flow.step("acl.op.infer_shape"):
            ret = acl.op.infer_shape(op, in_descs, in_bufs, len(out_descs), out_descs, attr)
        if ret != 0:
            return ret, []
        found = []
        with flow.step("acl.get_tensor_desc_* (outputs)"):
            for desc in out_descs:
                dims = desc_dims(acl, desc)
                ranges = {j: dim_range(acl, desc, j) for j, d in enumerate(dims or []) if d == -1}
                found.append(Inferred(acl.get_tensor_desc_type(desc), dims, ranges, acl.get_tensor_desc_size(desc),
                                      acl.get_tensor_desc_element_count(desc)))
        return 0, found


def infer_case(acl: Any, case: Case, inputs: list[np.ndarray], dims: list[list[int]] | None = None,
               in_ranges: list[list[tuple[int, int]] | None] | None = None) -> tuple[int, list[Inferred]]:
    """infer_shape of a case's op at the given inputs (descs of dims, default the arrays' shapes)."""
    names_in, names_out = case.desc_names(case.inputs), case.desc_names(case.outputs)
    given = dims or [list(a.shape) for a in inputs]
    return infer_shape(acl, case.op, [(t.dtype, list(d), a, n) for t, a, d, n in zip(case.inputs, inputs, given, names_in)],
                       [(t.dtype, n) for t, n in zip(case.outputs, names_out)], case.attrs, in_ranges, case.format)


def range_maximum(inferred: Inferred, fallback: tuple[tuple[int, int], ...]) -> list[int]:
    """The documented maximal dims: every -1 replaced by its range max (fallback: the case's range when unbounded)."""
    dims = []
    for j, d in enumerate(inferred.dims or []):
        if d == -1:
            hi = inferred.ranges[j][1]
            d = hi if hi != -1 else fallback[j][1]
        dims.append(d)
    return dims


def infer_then_execute(acl: Any, stream: int, case: Case, inputs: list[np.ndarray]) -> Executed:
    """The documented max-shape flow: infer_shape, output buffers at every -1's range maximum, execute_v2, the real
    dims read back."""
    ret, found = infer_case(acl, case, inputs)
    flow.check(ret, f"acl.op.infer_shape({case.op!r})")
    maximum = [range_maximum(f, t.dim_ranges()) for f, t in zip(found, case.outputs)]
    return execute_dynamic(acl, stream, case, inputs, maximum)


# the packaged GEMM ------------------------------------------------------------------------------------------------
N, T = int(TransType.ACL_TRANS_N), int(TransType.ACL_TRANS_T)
HIGH_PRECISION = int(ComputeType.ACL_COMPUTE_HIGH_PRECISION)
#: The acl.blas functions (and create_handle_for_* forms) run_gemm drives.
GEMM_APIS = ("gemm_ex", "hgemm", "s8gemm", "create_handle_for_gemm_ex", "create_handle_for_hgemm",
             "create_handle_for_s8gemm")
#: The matrix-vector forms run_gemm drives for a GEMM case with n = 1 and B not transposed (x [k, 1], y [m, 1]).
GEMV_APIS = ("gemv_ex", "hgemv", "s8gemv", "create_handle_for_gemv_ex", "create_handle_for_hgemv",
             "create_handle_for_s8gemv")


@dataclass(frozen=True)
class Gemm:
    """The sizes, transposes and data types of one gemm_ex call."""

    trans_a: int
    trans_b: int
    m: int
    n: int
    k: int
    dtypes: tuple[int, int, int]

    @classmethod
    def of(cls, case: Case) -> Gemm:
        """The call a GEMM case stands for: trans from its attrs, m, n, k from its shapes."""
        attrs = case.attr_values()
        a, c = case.inputs[0], case.inputs[2]
        m, n = c.shape
        k = a.shape[0] if attrs["transpose_a"] else a.shape[1]
        dtypes = (a.dtype, case.inputs[1].dtype, c.dtype)
        return cls(T if attrs["transpose_a"] else N, T if attrs["transpose_b"] else N, m, n, k, dtypes)

    @property
    def is_gemv(self) -> bool:
        """Whether this is a matrix-vector product gemv_ex can run: n = 1, B (the vector x) not transposed."""
        return self.n == 1 and self.trans_b == N


@dataclass(frozen=True)
class Operands:
    """Device memory of one GEMM: A, B, alpha and beta, and C between two guard bands."""

    a: int
    b: int
    alpha: int
    beta: int
    c: int
    sizes: tuple[int, int, int, int, int]

    @property
    def guarded_c(self) -> Guarded:
        """C's allocation with its guard bands."""
        return Guarded(self.c, self.sizes[2])


def gemm_operands(res: flow.Resources, g: Gemm, itemsize: int | None = None) -> Operands:
    """Allocate A, B, C, alpha, beta for g (element sizes from its dtypes, or `itemsize` for every operand)."""
    dta, dtb, dtc = (itemsize or data_type_size(d) for d in g.dtypes)
    sizes = (g.m * g.k * dta, g.k * g.n * dtb, g.m * g.n * dtc, dtc, dtc)
    a, b, alpha, beta = (flow.malloc(res, size) for size in (sizes[0], sizes[1], sizes[3], sizes[4]))
    return Operands(a, b, alpha, beta, guarded_malloc(res, sizes[2]).ptr, sizes)


def blas_arguments(args: dict[str, int], override: dict[str, int], api: str) -> list[int]:
    """The values of an acl.blas call's named arguments in order, overridden ones replaced; unknown names: ValueError."""
    unknown = set(override) - set(args)
    if unknown:
        raise ValueError(f"not {api} arguments: {sorted(unknown)}")
    return list({**args, **override}.values())


def load_gemm(acl: Any, ops: Operands, arrays: list[np.ndarray]) -> None:
    """Fill C and its guard bands with POISON, then copy a, b, c, alpha, beta to the device."""
    poison(acl, [ops.guarded_c])
    for ptr, array in zip((ops.a, ops.b, ops.c, ops.alpha, ops.beta), arrays):
        flow.copy_to_device(acl, ptr, array)


def _gemm_launcher(acl: Any, res: flow.Resources, g: Gemm, ops: Operands, api: str) -> Callable[[int], int]:
    """A function stream -> ret running g by `api` (a blas function, or the handle made by a create_handle_for_*)."""
    dta, dtb, dtc = g.dtypes
    if api in GEMV_APIS:
        return _gemv_launcher(acl, res, g, ops, api)
    head = (g.trans_a, g.trans_b, N, g.m, g.n, g.k)
    c = ops.c
    if api == "gemm_ex":
        return lambda stream: acl.blas.gemm_ex(*head, ops.alpha, ops.a, -1, dta, ops.b, -1, dtb, ops.beta, c, -1,
                                               dtc, HIGH_PRECISION, stream)
    if api in ("hgemm", "s8gemm"):
        typed = getattr(acl.blas, api)
        return lambda stream: typed(*head, ops.alpha, ops.a, -1, ops.b, -1, ops.beta, c, -1, HIGH_PRECISION, stream)
    create = getattr(acl.blas, api)
    extra = (dta, dtb, dtc) if api == "create_handle_for_gemm_ex" else ()
    with flow.step(f"acl.blas.{api}"):
        handle = flow.value(create(*head, *extra, HIGH_PRECISION), f"acl.blas.{api}")
    res.handles.append(handle)
    inputs = [flow.create_buffer(res, ptr, size) for ptr, size in zip((ops.a, ops.b, c, ops.alpha, ops.beta), ops.sizes)]
    return lambda stream: acl.op.execute_with_handle(handle, inputs, [inputs[2]], stream)


def _gemv_launcher(acl: Any, res: flow.Resources, g: Gemm, ops: Operands, api: str) -> Callable[[int], int]:
    """A function stream -> ret running the matrix-vector product g (x = B, y = C) by a gemv `api`."""
    dta, dtx, dty = g.dtypes
    a, x, y = ops.a, ops.b, ops.c
    if api == "gemv_ex":
        return lambda stream: acl.blas.gemv_ex(g.trans_a, g.m, g.k, ops.alpha, a, -1, dta, x, -1, dtx, ops.beta, y, -1,
                                               dty, HIGH_PRECISION, stream)
    if api in ("hgemv", "s8gemv"):
        typed = getattr(acl.blas, api)
        return lambda stream: typed(g.trans_a, g.m, g.k, ops.alpha, a, -1, x, -1, ops.beta, y, -1, HIGH_PRECISION,
                                    stream)
    extra = (dta, dtx, dty) if api == "create_handle_for_gemv_ex" else ()
    with flow.step(f"acl.blas.{api}"):
        handle = flow.value(getattr(acl.blas, api)(g.trans_a, g.m, g.k, *extra, HIGH_PRECISION), f"acl.blas.{api}")
    res.handles.append(handle)
    inputs = [flow.create_buffer(res, ptr, size) for ptr, size in zip((a, x, y, ops.alpha, ops.beta), ops.sizes)]
    return lambda stream: acl.op.execute_with_handle(handle, inputs, [inputs[2]], stream)


def run_gemm(acl: Any, stream: int, case: Case, input_sets: list[list[np.ndarray]], api: str) -> list[Outputs]:
    """Run a GEMM case (inputs a, b, c, alpha, beta) once per input set through `api` (a GEMM or, for a case with
    n = 1, a GEMV form), synchronising before each read-back of C; C's guard bands hold POISON."""
    if api not in GEMM_APIS + GEMV_APIS:
        raise ValueError(f"api: expected one of {', '.join(GEMM_APIS + GEMV_APIS)}, got {api!r}")
    g, out = Gemm.of(case), case.outputs[0]
    if api in GEMV_APIS and not g.is_gemv:
        raise ValueError(f"{case.id}: {api} needs n = 1 and B not transposed, got n = {g.n}")
    results = []
    call = f"acl.blas.{api}" if "handle" not in api else "acl.op.execute_with_handle"
    with flow.resources(acl) as res:
        with flow.step("stage"):
            ops = gemm_operands(res, g)
            launch_gemm = _gemm_launcher(acl, res, g, ops, api)
        for index, arrays in enumerate(input_sets):
            with flow.step(f"execution {index + 1}"):
                load_gemm(acl, ops, arrays)
                with flow.step(call):
                    flow.check(launch_gemm(stream), call)
                synchronize(acl, stream)
                body, tail = read_guarded(res, ops.guarded_c,
                                          lambda _: f"{case.id}: bytes around the {ops.sizes[2]}-byte matrix C were "
                                                    "overwritten")
                results.append(Outputs([flow.array_from(body, out.dtype, out.shape)], [np.zeros(out.shape, bool)],
                                       [tail]))
    return results


# the packaged Cast ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CastTensors:
    """Descs and data buffers of one cast: x on the device, y between two guard bands."""

    src_desc: int
    src_buffer: int
    src: int
    dst_desc: int
    dst_buffer: int
    dst: Guarded


@contextmanager
def cast_tensors(acl: Any, src_type: int, dst_type: int, shape: tuple[int, ...], fmt: int = 2) -> Iterator[CastTensors]:
    """Create x and y of one cast, released when the block ends."""
    count = int(np.prod(shape, dtype=np.int64))
    src_size, dst_size = count * numpy_dtype(src_type).itemsize, count * numpy_dtype(dst_type).itemsize
    with flow.resources(acl) as res:
        with flow.step("stage"):
            src_desc = flow.create_desc(res, src_type, shape, fmt)
            dst_desc = flow.create_desc(res, dst_type, shape, fmt)
            src = flow.malloc(res, src_size)
            dst = guarded_malloc(res, dst_size)
            tensors = CastTensors(src_desc, flow.create_buffer(res, src, src_size), src, dst_desc,
                                  flow.create_buffer(res, dst.ptr, dst_size), dst)
        yield tensors


def run_cast(acl: Any, stream: int, case: Case, input_sets: list[list[np.ndarray]],
             handle_form: bool) -> list[Outputs]:
    """Run a Cast case by acl.op.cast or a create_handle_for_cast handle once per input set, poisoning y (and its
    guard bands) before each execution."""
    x, y = case.inputs[0], case.outputs[0]
    api = "acl.op.execute_with_handle" if handle_form else "acl.op.cast"
    results = []
    with cast_tensors(acl, x.dtype, y.dtype, x.shape, case.format) as t, flow.resources(acl) as res:
        if handle_form:
            with flow.step("acl.op.create_handle_for_cast"):
                handle = flow.value(acl.op.create_handle_for_cast(t.src_desc, t.dst_desc, 0),
                                    "acl.op.create_handle_for_cast")
            res.handles.append(handle)
        for index, (array,) in enumerate(input_sets):
            with flow.step(f"execution {index + 1}"):
                flow.copy_to_device(acl, t.src, array)
                poison(acl, [t.dst])
                with flow.step(api):
                    if handle_form:
                        ret = acl.op.execute_with_handle(handle, [t.src_buffer], [t.dst_buffer], stream)
                    else:
                        ret = acl.op.cast(t.src_desc, t.src_buffer, t.dst_desc, t.dst_buffer, 0, stream)
                    flow.check(ret, api)
                synchronize(acl, stream)
                with flow.resources(acl) as scratch:
                    body, tail = read_guarded(scratch, t.dst, lambda _: f"{case.id}: bytes around the "
                                                                         f"{t.dst.size}-byte output y were overwritten")
                results.append(Outputs([flow.array_from(body, y.dtype, y.shape)], [_unwritten(body, y, y.shape)],
                                       [tail]))
    return results
