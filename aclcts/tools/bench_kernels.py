"""The `kernels` benchmark group: one op per realistic shape through execute_v2 and a handle, beside NumPy's time."""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from aclcts.core.dtypes import acl_data_type
from aclcts.core.opmodel import OpModel, TensorSpec, canonical_attr

ACL_ND = 2
SOC = "Ascend910B1"
F16, F32, I32 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.int32)
Arrays = list[np.ndarray]


@dataclass(frozen=True)
class KernelCase:
    """One row: an op on fixed inputs, its outputs, attributes and the NumPy computation of the same result.

    floor_inputs turns the inputs into what the NumPy computation starts from (outside the timing: NumPy has no
    float16 matrix product, so the floor of a float16 product is float32 BLAS on float32 copies).
    """

    label: str
    op_type: str
    inputs: Callable[[np.random.Generator], Arrays]
    outputs: tuple[tuple[np.dtype, tuple[int, ...]], ...]
    floor: Callable[..., np.ndarray]
    target: float = 3.0
    attrs: tuple[tuple[str, str, object], ...] = ()
    floor_inputs: Callable[[Arrays], Arrays] = field(default=lambda xs: xs)


def _uniform(dtype: np.dtype, *shapes: tuple[int, ...]) -> Callable[[np.random.Generator], Arrays]:
    return lambda rng: [rng.uniform(-1, 1, s).astype(dtype) for s in shapes]


def _widened(xs: Arrays) -> Arrays:
    return [x.astype(F32) for x in xs]


def _gemm_inputs(n: int) -> Callable[[np.random.Generator], Arrays]:
    return lambda rng: [*_uniform(F16, (n, n), (n, n), (n, n))(rng), np.array([1.5], F16), np.array([0.5], F16)]


def _gather_inputs(vocab: int, width: int, lookups: int) -> Callable[[np.random.Generator], Arrays]:
    """An embedding lookup: a float32 table, random int32 row indices and the axis input 0."""
    return lambda rng: [*_uniform(F32, (vocab, width))(rng), rng.integers(0, vocab, lookups).astype(I32),
                        np.array([0], I32)]


def _gemm_floor(a: np.ndarray, b: np.ndarray, c: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
    return (alpha[0] * (a @ b) + beta[0] * c).astype(F16)


def _conv_floor(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """NCHW, stride 1, pads 1: windows of the padded input contracted with the filter in float32."""
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    windows = sliding_window_view(padded, w.shape[2:], axis=(2, 3))  # [N, C, OH, OW, KH, KW]
    return np.moveaxis(np.tensordot(windows, w, axes=([1, 4, 5], [1, 2, 3])), 3, 1).astype(F16)


def _softmax_floor(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def cases(quick: bool) -> list[KernelCase]:
    """The fixed rows: realistic shapes, or small ones with --quick."""
    n = 512 if quick else 1024
    rows, cols = (2048, 2048) if quick else (4096, 4096)
    half = (1024, 1024) if quick else (2048, 2048)
    batch, side = (4, 256) if quick else (8, 512)
    images, channels, size = (2, 32, 28) if quick else (8, 64, 56)
    vocab, width, lookups = (16384, 512, 4096) if quick else (32768, 1024, 8192)
    return [
        KernelCase(f"MatMul float16 {n}x{n}x{n}", "MatMul", _uniform(F16, (n, n), (n, n)), ((F16, (n, n)),),
                   np.matmul, 2.0, floor_inputs=_widened),
        KernelCase(f"BatchMatMul float32 {batch}x{side}x{side}x{side}", "BatchMatMul",
                   _uniform(F32, (batch, side, side), (batch, side, side)), ((F32, (batch, side, side)),), np.matmul),
        KernelCase(f"GEMM float16 {n}x{n}x{n}, alpha, beta", "GEMM", _gemm_inputs(n), ((F16, (n, n)),), _gemm_floor,
                   attrs=(("transpose_a", "bool", False), ("transpose_b", "bool", False)), floor_inputs=_widened),
        KernelCase(f"Conv2D float16 {images}x{channels}x{size}x{size} 3x3 pad 1", "Conv2D",
                   _uniform(F16, (images, channels, size, size), (channels, channels, 3, 3)),
                   ((F16, (images, channels, size, size)),), _conv_floor,
                   attrs=(("strides", "list_int", [1, 1, 1, 1]), ("pads", "list_int", [1, 1, 1, 1]),
                          ("data_format", "string", "NCHW")), floor_inputs=_widened),
        KernelCase(f"Add float32 {rows}x{cols}", "Add", _uniform(F32, (rows, cols), (rows, cols)),
                   ((F32, (rows, cols)),), np.add, 2.0),
        KernelCase(f"Mul float32 {rows}x{cols} by 1x{cols}", "Mul", _uniform(F32, (rows, cols), (1, cols)),
                   ((F32, (rows, cols)),), np.multiply),
        KernelCase(f"Exp float32 {rows}x{cols}", "Exp", _uniform(F32, (rows, cols)), ((F32, (rows, cols)),), np.exp),
        KernelCase(f"Tanh float16 {half[0]}x{half[1]}", "Tanh", _uniform(F16, half), ((F16, half),),
                   lambda x: np.tanh(x.astype(F32)).astype(F16)),
        KernelCase(f"ReduceSumD float32 {rows}x{cols} over axis 1", "ReduceSumD", _uniform(F32, (rows, cols)),
                   ((F32, (rows,)),), lambda x: np.sum(x, axis=1), attrs=(("axes", "list_int", [1]),)),
        KernelCase(f"SoftmaxV2 float32 {rows}x{cols // 4} over axis -1", "SoftmaxV2",
                   _uniform(F32, (rows, cols // 4)), ((F32, (rows, cols // 4)),), _softmax_floor),
        KernelCase(f"Transpose float32 {rows}x{cols} perm [1, 0]", "Transpose",
                   lambda rng: [*_uniform(F32, (rows, cols))(rng), np.array([1, 0], I32)], ((F32, (cols, rows)),),
                   lambda x, perm: np.ascontiguousarray(np.transpose(x, perm))),
        KernelCase(f"Cast float32 to float16 {rows}x{cols}", "Cast", _uniform(F32, (rows, cols)),
                   ((F16, (rows, cols)),), lambda x: x.astype(F16), attrs=(("dst_type", "int", acl_data_type(F16)),)),
        KernelCase(f"GatherV2 float32 {vocab}x{width}, {lookups} rows", "GatherV2",
                   _gather_inputs(vocab, width, lookups), ((F32, (lookups, width)),),
                   lambda x, indices, axis: np.take(x, indices, axis=int(axis[0]))),
    ]


def _spec(dtype: np.dtype, shape: tuple[int, ...]) -> TensorSpec:
    dims = tuple(shape)
    return TensorSpec(acl_data_type(dtype), ACL_ND, dims, tuple((d, d) for d in dims), ACL_ND, dims)


def best_ms(body: Callable[[], object], repeats: int) -> float:
    """The fastest of repeats timed calls, in milliseconds."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        body()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def _check(ret: object, call: str) -> None:
    code = ret[-1] if isinstance(ret, tuple) else ret
    if code:
        raise RuntimeError(f"{call} returned {code}")


class Program:
    """A plain pyacl program that runs one op: descs, device memory, buffers, attributes, execute_v2 or a handle."""

    def __init__(self, acl: Any, stream: int, case: KernelCase, inputs: Arrays) -> None:
        self.acl, self.stream, self.case = acl, stream, case
        model = OpModel(case.op_type, tuple(_spec(x.dtype, x.shape) for x in inputs),
                        tuple(_spec(d, s) for d, s in case.outputs),
                        tuple(canonical_attr(*a) for a in case.attrs), SOC)
        image = model.to_bytes()
        _check(acl.op.load(acl.util.bytes_to_ptr(image), len(image)), "acl.op.load")
        self.in_descs = [acl.create_tensor_desc(acl_data_type(x.dtype), list(x.shape), ACL_ND) for x in inputs]
        self.out_descs = [acl.create_tensor_desc(acl_data_type(d), list(s), ACL_ND) for d, s in case.outputs]
        self.memory: list[int] = []
        self.in_bufs = [self._device(x.nbytes, x.tobytes()) for x in inputs]
        self.out_sizes = [int(np.prod(s)) * np.dtype(d).itemsize for d, s in case.outputs]
        self.out_bufs = [self._device(size, None) for size in self.out_sizes]
        self.attr = acl.op.create_attr()
        for name, kind, value in case.attrs:
            setter = {"bool": acl.op.set_attr_bool, "int": acl.op.set_attr_int, "string": acl.op.set_attr_string,
                      "list_int": acl.op.set_attr_list_int}[kind]
            _check(setter(self.attr, name, value), f"acl.op.set_attr_{kind}")
        self.handle, ret = acl.op.create_handle(case.op_type, self.in_descs, self.out_descs, self.attr)
        _check(ret, "acl.op.create_handle")

    def _device(self, size: int, data: bytes | None) -> int:
        acl = self.acl
        ptr, ret = acl.rt.malloc(max(size, 1), 0)
        _check(ret, "acl.rt.malloc")
        self.memory.append(ptr)
        if data is not None:
            _check(acl.rt.memcpy(ptr, size, acl.util.bytes_to_ptr(data), size, 1), "acl.rt.memcpy")
        return acl.create_data_buffer(ptr, size)

    def execute_v2(self) -> None:
        """One execute_v2 and the synchronisation that runs it."""
        acl = self.acl
        _check(acl.op.execute_v2(self.case.op_type, self.in_descs, self.in_bufs, self.out_descs, self.out_bufs,
                                      self.attr, self.stream), "acl.op.execute_v2")
        _check(acl.rt.synchronize_stream(self.stream), "acl.rt.synchronize_stream")

    def execute_with_handle(self) -> None:
        """One execute_with_handle and the synchronisation that runs it."""
        acl = self.acl
        _check(acl.op.execute_with_handle(self.handle, self.in_bufs, self.out_bufs, self.stream),
               "acl.op.execute_with_handle")
        _check(acl.rt.synchronize_stream(self.stream), "acl.rt.synchronize_stream")

    def output(self) -> np.ndarray:
        """The first output copied back to the host."""
        acl = self.acl
        dtype, shape = self.case.outputs[0]
        host, ret = acl.rt.malloc_host(self.out_sizes[0])
        _check(ret, "acl.rt.malloc_host")
        _check(acl.rt.memcpy(host, self.out_sizes[0], acl.get_data_buffer_addr(self.out_bufs[0]),
                                  self.out_sizes[0], 2), "acl.rt.memcpy")
        value = np.frombuffer(acl.util.ptr_to_bytes(host, self.out_sizes[0]), dtype).reshape(shape)
        acl.rt.free_host(host)
        return value

    def release(self) -> None:
        """Destroy everything the program created."""
        acl = self.acl
        acl.op.destroy_handle(self.handle)
        acl.op.destroy_attr(self.attr)
        for item in self.in_bufs + self.out_bufs:
            acl.destroy_data_buffer(item)
        for desc in self.in_descs + self.out_descs:
            acl.destroy_tensor_desc(desc)
        for ptr in self.memory:
            acl.rt.free(ptr)


@dataclass(frozen=True)
class Timing:
    """One case's best times in milliseconds."""

    case: KernelCase
    execute_v2: float
    handle: float
    numpy: float

    @property
    def ratio(self) -> float:
        """execute_v2 time over NumPy's."""
        return self.execute_v2 / self.numpy

    def note(self) -> str:
        """The times behind the ratio."""
        return (f"execute_v2 {self.execute_v2:.2f} ms, handle {self.handle:.2f} ms ({self.handle / self.numpy:.2f}), "
                f"numpy {self.numpy:.2f} ms")


def measure(acl: Any, stream: int, case: KernelCase, repeats: int) -> Timing:
    """Time one case (execute_v2, handle and NumPy interleaved, best of repeats), checking the outputs agree."""
    inputs = case.inputs(np.random.default_rng(20261205))
    program = Program(acl, stream, case, inputs)
    try:
        floor_inputs = case.floor_inputs(inputs)
        expected = case.floor(*floor_inputs)
        program.execute_v2()
        got = program.output()
        tolerance = 2e-2 if got.dtype == F16 else 1e-4
        if got.shape != expected.shape or not np.allclose(got.astype(np.float64), expected.astype(np.float64),
                                                          rtol=tolerance, atol=tolerance):
            raise RuntimeError(f"{case.label}: the simulator's output differs from NumPy's")
        times: dict[str, float] = {"v2": float("inf"), "handle": float("inf"), "numpy": float("inf")}
        for _ in range(repeats):
            times["v2"] = min(times["v2"], best_ms(program.execute_v2, 1))
            times["handle"] = min(times["handle"], best_ms(program.execute_with_handle, 1))
            times["numpy"] = min(times["numpy"], best_ms(lambda: case.floor(*floor_inputs), 1))
    finally:
        program.release()
    return Timing(case, times["v2"], times["handle"], times["numpy"])


def peak_rss_child(rows: int, cols: int) -> None:
    """Run one Add float32 rows x cols as a whole pyacl program and print peak RSS growth over inputs+outputs."""
    import aclcts.sim
    from aclcts.sim import acl

    aclcts.sim.reset()
    acl.init()
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    case = KernelCase("rss", "Add", _uniform(F32, (rows, cols), (rows, cols)), ((F32, (rows, cols)),), np.add)
    before = _current_rss()
    inputs = case.inputs(np.random.default_rng(0))
    program = Program(acl, stream, case, inputs)
    program.execute_v2()
    program.output()
    peak = _peak_rss()
    moved = sum(x.nbytes for x in inputs) + rows * cols * F32.itemsize
    print(f"{max(peak - before, 0) / moved:.6f}")


def _current_rss() -> int:
    """This process's resident bytes now."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize()


def _peak_rss() -> int:
    """This process's peak resident bytes since it started (VmHWM; ru_maxrss would carry the parent's across exec)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM line in /proc/self/status")


def peak_rss_ratio(rows: int, cols: int) -> float:
    """Peak RSS growth of a fresh process running one large Add, over the bytes of its inputs and outputs."""
    code = f"from aclcts.tools.bench_kernels import peak_rss_child; peak_rss_child({rows}, {cols})"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"peak RSS child exited {done.returncode}: {(done.stderr.strip() or 'no output').splitlines()[-1]}")
    return float(done.stdout.split()[-1])


def timings(acl: Any, stream: int, quick: bool) -> Iterator[Timing]:
    """Every case's timing, in table order."""
    repeats = 3 if quick else 7
    for case in cases(quick):
        yield measure(acl, stream, case, repeats)
