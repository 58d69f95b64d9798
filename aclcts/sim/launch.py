"""Turning one op execution into device work: model matching, input gathering, the kernel call, write-back."""

from __future__ import annotations

import math

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from aclcts.core.constants import ErrorCode
from aclcts.core.dtypes import has_numpy_dtype, numpy_dtype
from aclcts.core.opmodel import Attr, OpModel
from aclcts.sim import core
from aclcts.sim.api_tensor import DataBuffer, TensorDesc
from aclcts.sim.core import INVALID_PARAM, OK, fail, reject
from aclcts.sim.errors import SimMisuseError
from aclcts.sim.kernels import Kernel, KernelError, TensorInfo, get_kernel
from aclcts.sim.kernels.numerics import accumulation
from aclcts.sim.layouts import kernel_inputs, kernel_output_info, private_specs, stored_output
from aclcts.sim.kernels.registry import is_registered
from aclcts.sim.memory import Region, copy_bytes, read_bytes
from aclcts.sim.models import LoadedModel, ModelRegistry, RuntimeTensor
from aclcts.sim.seams import Seam
from aclcts.sim.streams import LAUNCH_MS, Stream, Task

OP_NOT_FOUND = int(ErrorCode.ACL_ERROR_OP_NOT_FOUND)
GE_FAILURE = int(ErrorCode.ACL_ERROR_GE_FAILURE)
AICORE_EXCEPTION = int(ErrorCode.ACL_ERROR_RT_AICORE_EXCEPTION)
#: Simulated device throughput for kernels, in elements per millisecond.
ELEMENTS_PER_MS = 50e6


def registry() -> ModelRegistry:
    """The process's single-op model registry."""
    st = core.STATE
    found = st.extensions.get("models")
    if found is None:
        found = st.extensions["models"] = ModelRegistry(st.settings.soc_name, st.settings.foreign_soc_models)
    return found


def runtime_tensor(desc: TensorDesc, const_data: bytes | None = None) -> RuntimeTensor:
    """The matching view of a runtime desc (const bytes from set_tensor_const or a host-placed buffer)."""
    return RuntimeTensor(
        desc.dtype,
        desc.format,
        tuple(desc.dims),
        desc.storage_format,
        None if desc.storage_dims is None else tuple(desc.storage_dims),
        tuple(desc.shape_range),
        desc.const_data if const_data is None else const_data,
    )


def _plain(value: Any) -> Any:
    return [_plain(v) for v in value] if isinstance(value, tuple) else value


def attr_dict(attrs: list[Attr]) -> dict[str, Any]:
    """Attribute values as a kernel sees them: lists instead of tuples."""
    return {a.name: _plain(a.value) for a in attrs} if attrs else {}


def find_model(op_type: str, in_descs: list[TensorDesc], out_descs: list[TensorDesc], attrs: list[Attr],
               host_data: dict[int, bytes]) -> LoadedModel | None:
    """Match an execution: host-placed inputs are tried first as constants holding their data."""
    models = registry()
    outputs = [runtime_tensor(d) for d in out_descs]
    if host_data:
        as_const = [runtime_tensor(d, host_data.get(i)) for i, d in enumerate(in_descs)]
        entry = models.match(op_type, as_const, outputs, attrs)
        if entry is not None:
            return entry
    return models.match(op_type, [runtime_tensor(d) for d in in_descs], outputs, attrs)


def _write_back(desc: TensorDesc, shape: tuple[int, ...]) -> None:
    """Write an output's real dims back into its desc after the op ran."""
    desc.dims = list(shape)


#: How the runtime tells the caller the real dims of an output.
write_back = Seam("output shape write-back", _write_back)


def no_match_code(api: str, op_type: str, descs: list[TensorDesc]) -> int:
    """100000 if a runtime desc is still dynamic, else 100024, with the runtime's explanation."""
    for desc in descs:
        if not desc.is_static():
            return fail(INVALID_PARAM, f"{api}: TensorDesc must be static when executing (dims {desc.dims})")
    return reject(
        "no matching op model",
        OP_NOT_FOUND,
        f"{api}: MatchOpModel opName = {op_type} fail from static map or dynamic map. Please make sure the op "
        "executed and the op compiled is matched (op type, inputs and outputs number, format, datatype, attr, "
        "dim range, const data)",
    )


@dataclass(eq=False)
class Source:
    """Where one kernel input comes from at run time."""

    data_type: int = -1
    array: np.ndarray | None = None
    region: Region | None = None
    offset: int = 0
    dtype: np.dtype | None = None
    dims: tuple[int, ...] = ()

    def read(self, private: bool) -> np.ndarray | None:
        """The input as an ndarray: a read-only view of device memory, or a private copy."""
        if self.region is None:
            return self.array
        raw = device_view(self.region, self.offset, self.dtype, self.dims)
        if private:
            return raw.copy()
        raw.flags.writeable = False
        return raw

    def span(self) -> tuple[int, int, int] | None:
        """(region id, first byte, end byte) of the device memory read, or None."""
        if self.region is None or self.dtype is None:
            return None
        return id(self.region), self.offset, self.offset + math.prod(self.dims) * self.dtype.itemsize


def device_view(region: Region, offset: int, dtype: np.dtype, dims: tuple[int, ...]) -> np.ndarray:
    """The bytes at offset of a live device region as a C-ordered array (a view, no copy)."""
    count = math.prod(dims)
    return np.frombuffer(region.storage, dtype, count, region.storage_offset + offset).reshape(dims)


@dataclass(eq=False)
class Target:
    """Where one kernel output goes."""

    region: Region
    offset: int
    capacity: int
    desc: TensorDesc | None
    info: TensorInfo


def _array_of(api: str, data: bytes, data_type: int, dims: tuple[int, ...], what: str) -> np.ndarray:
    dtype = numpy_dtype(data_type)
    count = math.prod(dims)
    if len(data) < count * dtype.itemsize:
        raise SimMisuseError(f"{api}: {what} holds {len(data)} bytes, the tensor needs {count * dtype.itemsize}")
    return np.frombuffer(data, dtype, count).reshape(dims).copy()


def device_region(api: str, buf: DataBuffer, needed: int, what: str) -> Region:
    """The device allocation a data buffer points into, checked to hold needed bytes (in device run mode, the
    Ascend RC form, a malloc_host allocation counts as device memory)."""
    st = core.STATE
    if buf.size < needed:
        raise SimMisuseError(f"{api}: {what} data buffer has {buf.size} bytes, the tensor needs {needed}")
    _, region = st.memory.resolve(api, buf.data, max(needed, 1), what, False)
    if region is not None and region.device is None and st.settings.run_mode == "device":
        return region  # Ascend RC: host and device are one, malloc_host memory is device memory (aclrtMallocHost)
    if region is None or region.device is None:
        raise SimMisuseError(
            f"{api}: {what} data {buf.data:#x} is host memory; op inputs and outputs live in device memory "
            "(place host inputs with acl.set_tensor_place_ment(desc, 1))"
        )
    return region


def _check_dtype(api: str, data_type: int, what: str) -> None:
    if data_type != -1 and not has_numpy_dtype(data_type):
        raise SimMisuseError(f"{api}: {what} has aclDataType {data_type}, which the simulator cannot compute with")


def gather_inputs(api: str, descs: list[TensorDesc], bufs: list[DataBuffer], host_data: dict[int, bytes]) -> list[Source]:
    """Resolve where each input's data comes from (const bytes, host snapshot, device memory or nothing)."""
    sources = []
    for index, (desc, buf) in enumerate(zip(descs, bufs)):
        what = f"input {index}"
        _check_dtype(api, desc.dtype, what)
        dims = tuple(desc.dims)
        if desc.const_data is not None:
            sources.append(Source(desc.dtype, _array_of(api, desc.const_data, desc.dtype, dims, f"{what} const data")))
        elif index in host_data:
            sources.append(Source(desc.dtype, _array_of(api, host_data[index], desc.dtype, dims, f"{what} host data")))
        elif desc.dtype == -1 and buf.data == 0:
            sources.append(Source())
        else:
            needed = desc.size()
            region = device_region(api, buf, needed, what)
            sources.append(Source(desc.dtype, None, region, buf.data - region.start, numpy_dtype(desc.dtype), dims))
    return sources


def host_inputs(api: str, descs: list[TensorDesc], bufs: list[DataBuffer]) -> dict[int, bytes]:
    """The bytes of every host-placed, non-const input, read now (they are copied at launch)."""
    st = core.STATE
    found = {}
    for index, (desc, buf) in enumerate(zip(descs, bufs)):
        if desc.memtype and desc.const_data is None:
            size = desc.size()
            real, _ = st.memory.resolve(api, buf.data, size, f"input {index} (host placed)", st.settings.run_mode == "host")
            found[index] = read_bytes(real, size)
    return found


def gather_outputs(api: str, descs: list[TensorDesc], bufs: list[DataBuffer], write_back: bool) -> list[Target]:
    """Resolve each output's device memory and what the kernel is told about it."""
    targets = []
    for index, (desc, buf) in enumerate(zip(descs, bufs)):
        what = f"output {index}"
        _check_dtype(api, desc.dtype, what)
        region = device_region(api, buf, desc.size(), what)
        info = TensorInfo(desc.dtype, tuple(desc.dims), desc.format)
        targets.append(Target(region, buf.data - region.start, buf.size, desc if write_back else None, info))
    return targets


def _overlaps(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    return a[0] == b[0] and a[1] < b[2] and b[1] < a[2]


def _output_infos(sources: list[Source], targets: list[Target], dynamic: bool) -> list[TensorInfo]:
    """What the kernel is told about its outputs: static outputs have exact dims, and those that overlap no input
    and no other output come with their device memory as a destination (the kernel may compute into it)."""
    if dynamic:
        return [t.info for t in targets]
    inputs = [span for span in (s.span() for s in sources) if span is not None]
    outputs = []
    for target in targets:
        dtype = numpy_dtype(target.info.dtype) if has_numpy_dtype(target.info.dtype) else None
        size = math.prod(target.info.shape) * dtype.itemsize if dtype is not None else 0
        outputs.append((id(target.region), target.offset, target.offset + size))
    infos = []
    for index, (target, span) in enumerate(zip(targets, outputs)):
        apart = span[2] > span[1] and span[2] - span[1] <= target.capacity and not any(
            _overlaps(span, other) for other in inputs + outputs[:index] + outputs[index + 1:])
        if apart and target.region.storage is not None:
            view = device_view(target.region, target.offset, numpy_dtype(target.info.dtype), target.info.shape)
            infos.append(TensorInfo(target.info.dtype, target.info.shape, target.info.format, view, exact=True))
        else:
            infos.append(replace(target.info, exact=True))
    return infos


def _run_kernel(op_type: str, kernel: Kernel, sources: list[Source], attrs: dict[str, Any],
                targets: list[Target], dynamic: bool, model: OpModel) -> str:
    """Run the kernel and write its outputs; why it failed on the device, or "" when it did not."""
    in_private = private_specs(model.inputs, [s.dims if s.region is not None or s.array is None else s.array.shape
                                              for s in sources])
    out_private = private_specs(model.outputs, [t.info.shape for t in targets])
    inputs = kernel_inputs([s.read(private=is_registered(op_type)) for s in sources], in_private)
    infos = [kernel_output_info(i, p) for i, p in zip(_output_infos(sources, targets, dynamic), out_private)]
    try:
        with accumulation(core.STATE.settings.matmul_accumulation):
            results = kernel.compute(inputs, attrs, infos)
    except KernelError as exc:
        return str(exc)
    if len(results) != len(targets):
        return f"kernel {op_type} returned {len(results)} outputs, the model has {len(targets)}"
    for index, (result, target, info, spec) in enumerate(zip(results, targets, infos, out_private)):
        result = np.require(np.asarray(stored_output(result, spec)), requirements='C')
        expected = numpy_dtype(target.info.dtype)
        if result.dtype != expected:
            raise SimMisuseError(f"kernel {op_type} output {index}: returned dtype {result.dtype}, the desc says {expected}")
        if not dynamic and result.shape != target.info.shape:
            raise SimMisuseError(f"kernel {op_type} output {index}: returned shape {result.shape}, the desc says {target.info.shape}")
        if result.nbytes > target.capacity:
            return f"{op_type} output {index} needs {result.nbytes} bytes, its buffer has {target.capacity}"
        if result.nbytes and result is not info.destination:
            copy_bytes(target.region.real + target.offset, result.ctypes.data, result.nbytes)
        if target.desc is not None:
            write_back(target.desc, result.shape)
    return ""


def launch(api: str, stream: Stream, entry: LoadedModel, sources: list[Source], targets: list[Target],
           attrs: list[Attr]) -> int:
    """Queue (or, for a dynamic model whose output shape is not known in advance, run now) one op."""
    op_type = entry.model.op_type
    kernel = get_kernel(op_type)
    if kernel is None:
        return fail(GE_FAILURE, f"{api}: no simulator kernel for op {op_type} (register one with aclcts.sim.register_kernel)")
    values = attr_dict(attrs)
    dynamic = entry.model.is_dynamic
    regions = tuple({id(r): r for r in [s.region for s in sources if s.region] + [t.region for t in targets]}.values())
    elements = sum(math.prod(t.info.shape) for t in targets)

    def run() -> int:
        task.reason = _run_kernel(op_type, kernel, sources, values, targets, dynamic, entry.model)
        if task.reason:
            return fail(AICORE_EXCEPTION, f"{api}: kernel {op_type} failed on the device: {task.reason}")
        return OK

    task = Task(run, f"{api}({op_type!r})", regions, LAUNCH_MS + elements / ELEMENTS_PER_MS)
    if dynamic and not _shape_known(kernel, sources, values, targets):
        stream.drain()
        for region in regions:
            if region.freed_by:
                raise SimMisuseError(f"{api}: {region.describe()} was freed by {region.freed_by}")
        code = run()
        stream.device.clock_ms += task.cost_ms
        return code
    stream.enqueue(task)
    return OK


def _shape_known(kernel: Kernel, sources: list[Source], attrs: dict[str, Any], targets: list[Target]) -> bool:
    if kernel.infer_shape is None:
        return False
    infos = [TensorInfo(s.data_type, s.dims if s.region is not None else (() if s.array is None else s.array.shape), -1)
             for s in sources]
    values = [None if s.region is not None else s.array for s in sources]
    try:
        inferred = kernel.infer_shape(infos, values, attrs)
    except KernelError:
        return False
    return [tuple(i.shape) for i in inferred] == [t.info.shape for t in targets]
