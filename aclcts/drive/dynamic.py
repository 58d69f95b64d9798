"""Dynamic-shape single-op models of the suite (-1 dims with shape_range, and [-2]), their provisioning, and the
documented dynamic-shape steps over them (pyacl-api.md §9): read dims and ranges, execute with given output dims."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from aclcts.drive import flow
from aclcts.atc import compile_elements
from aclcts.core.constants import ACL_UNKNOWN_RANK, DataType, Format
from aclcts.core.dtypes import JSON_TYPE_NAMES, numpy_dtype

F16, F32 = int(DataType.ACL_FLOAT16), int(DataType.ACL_FLOAT)
I32, I64 = int(DataType.ACL_INT32), int(DataType.ACL_INT64)
ND = int(Format.ACL_FORMAT_ND)
#: shape_range maximum meaning "no upper bound".
UNBOUNDED = -1


@dataclass(frozen=True)
class Tensor:
    """One input or output of a dynamic model: name, aclDataType, dims (-1/-2), one [min, max] per -1, const data."""

    name: str
    dtype: int
    shape: tuple[int, ...]
    shape_range: tuple[tuple[int, int], ...] = ()
    const: tuple[int | float, ...] | None = None

    @property
    def unknown_rank(self) -> bool:
        """Whether the tensor is [-2]."""
        return self.shape == (-2,)

    def dim_ranges(self) -> tuple[tuple[int, int], ...]:
        """(min, max) of every dim: fixed dims give (d, d), -1 dims their shape_range pair."""
        pairs = iter(self.shape_range)
        return tuple(next(pairs) if d == -1 else (d, d) for d in self.shape)

    def const_array(self) -> np.ndarray | None:
        """The constant value as an array of the tensor's dtype and shape, or None for a runtime input."""
        if self.const is None:
            return None
        return np.array(self.const, dtype=numpy_dtype(self.dtype)).reshape(self.shape)

    def to_json(self) -> dict[str, Any]:
        """This tensor's single-op JSON TensorDesc."""
        doc: dict[str, Any] = {"name": self.name, "format": "ND", "shape": list(self.shape),
                               "type": JSON_TYPE_NAMES[self.dtype]}
        if self.shape_range:
            doc["shape_range"] = [list(r) for r in self.shape_range]
        if self.const is not None:
            doc["is_const"] = True
            doc["const_value"] = list(self.const)
        return doc


@dataclass(frozen=True)
class DynamicModel:
    """A dynamic-shape model: file name, IR op type, family, tensors, attributes and the rule that relates input shapes.

    `shapes` is one of: "broadcast" (two inputs broadcast together), "matmul" ((m, k) by (k, n)), "concat" (equal
    dims except attr concat_dim), "each" (every runtime input independently inside its range).
    `values` is "full" (±0, subnormals, ±inf and NaN where the dtype has them), "finite" (±0 and subnormals, moderate
    magnitudes) or "pool" (a few small values with repeats and zeros, for value-dependent shapes).
    """

    name: str
    op: str
    family: str
    inputs: tuple[Tensor, ...]
    outputs: tuple[Tensor, ...]
    shapes: str
    values: str = "full"
    attrs: tuple[tuple[str, str, Any], ...] = ()
    dynamic_input: bool = False

    def desc_names(self, tensors: tuple[Tensor, ...]) -> list[str]:
        """The names infer_shape needs on the descs: IR names for an op with a dynamic input, else none."""
        return [t.name if self.dynamic_input else "" for t in tensors]

    @property
    def id(self) -> str:
        """The test id: the model name."""
        return self.name

    def attr_values(self) -> dict[str, Any]:
        """The attributes as name → value."""
        return {name: value for name, _, value in self.attrs}

    def to_json(self) -> dict[str, Any]:
        """This model's single-op JSON element (compile it with `atc --singleop`)."""
        doc: dict[str, Any] = {"op": self.op, "name": self.name,
                               "input_desc": [t.to_json() for t in self.inputs],
                               "output_desc": [t.to_json() for t in self.outputs]}
        if self.attrs:
            doc["attr"] = [{"name": n, "type": t, "value": v} for n, t, v in self.attrs]
        return doc


def _t(name: str, dtype: int, shape: tuple[int, ...], ranges: tuple[tuple[int, int], ...] = (),
       const: tuple | None = None) -> Tensor:
    return Tensor(name, dtype, shape, ranges, const)


_R16 = ((1, 16), (1, 16))
_R8 = ((1, 8), (1, 8))

#: Models with an output shape that follows from the input shapes (and constant inputs).
SHAPE_DETERMINED: tuple[DynamicModel, ...] = (
    DynamicModel("dyn_add_float32", "Add", "elementwise",
                 (_t("x1", F32, (-1, -1), _R16), _t("x2", F32, (-1, -1), _R16)),
                 (_t("y", F32, (-1, -1), _R16),), "broadcast"),
    DynamicModel("dyn_mul_int32", "Mul", "elementwise",
                 (_t("x1", I32, (-1, -1), _R16), _t("x2", I32, (-1, -1), _R16)),
                 (_t("y", I32, (-1, -1), _R16),), "broadcast"),
    DynamicModel("dyn_add_float16_unknown_rank", "Add", "elementwise",
                 (_t("x1", F16, (-2,)), _t("x2", F16, (-2,))), (_t("y", F16, (-2,)),), "broadcast"),
    DynamicModel("dyn_reduce_sum_float32", "ReduceSum", "reduction",
                 (_t("x", F32, (-1, -1, -1), ((1, 6),) * 3), _t("axes", I64, (1,), const=(1,))),
                 (_t("y", F32, (-1, -1), ((1, 6),) * 2),), "each", "finite"),
    DynamicModel("dyn_mat_mul_float32", "MatMul", "matmul",
                 (_t("x1", F32, (-1, -1), _R16), _t("x2", F32, (-1, -1), _R16)),
                 (_t("y", F32, (-1, -1), _R16),), "matmul", "finite",
                 (("transpose_x1", "bool", False), ("transpose_x2", "bool", False))),
    DynamicModel("dyn_transpose_float32", "Transpose", "movement",
                 (_t("x", F32, (-1, -1), _R8), _t("perm", I32, (2,), const=(1, 0))),
                 (_t("y", F32, (-1, -1), _R8),), "each"),
    DynamicModel("dyn_tile_int32", "Tile", "movement",
                 (_t("x", I32, (-1, -1), _R8), _t("multiples", I32, (2,), const=(2, 3))),
                 (_t("y", I32, (-1, -1), ((2, 16), (3, 24))),), "each"),
    DynamicModel("dyn_concat_d_float16", "ConcatD", "movement",
                 (_t("x0", F16, (-1, -1), _R8), _t("x1", F16, (-1, -1), _R8)),
                 (_t("y", F16, (-1, -1), ((1, 8), (2, 16))),), "concat", "full",
                 (("concat_dim", "int", 1), ("N", "int", 2)), dynamic_input=True),
)

#: Models whose output shape depends on input values (the documented max-shape flow).
DATA_DEPENDENT: tuple[DynamicModel, ...] = (
    DynamicModel("dyn_non_zero_int32", "NonZero", "index",
                 (_t("x", I32, (-1, -1), _R8),), (_t("y", I64, (-1, 2), ((0, 64),)),), "each", "pool"),
    DynamicModel("dyn_unique_float32", "Unique", "index",
                 (_t("x", F32, (-1,), ((1, 64),)),),
                 (_t("y", F32, (-1,), ((1, 64),)), _t("idx", I32, (-1,), ((1, 64),))), "each", "pool"),
    DynamicModel("dyn_top_k_float32", "TopK", "index",
                 (_t("x", F32, (-1,), ((1, 64),)), _t("k", I32, ())),
                 (_t("values", F32, (-1,), ((1, 64),)), _t("indices", I32, (-1,), ((1, 64),))), "each", "pool"),
)

MODELS: tuple[DynamicModel, ...] = SHAPE_DETERMINED + DATA_DEPENDENT
BY_NAME: dict[str, DynamicModel] = {m.name: m for m in MODELS}


def singleop_json(models: tuple[DynamicModel, ...] = MODELS) -> list[dict[str, Any]]:
    """The single-op JSON array of the dynamic models, for `atc --singleop` (real ATC or `aclcts atc`)."""
    return [m.to_json() for m in models]


def compile_models(folder: Path, soc: str) -> list[Path]:
    """Compile every dynamic model with `aclcts atc` into folder/models; the .om paths."""
    result = compile_elements(singleop_json(), folder, soc, "dynamic_ops.json")
    if not result.ok:
        raise RuntimeError(f"{folder}: compiling the dynamic models failed:\n" + "\n".join(result.errors))
    return list(result.written)


def load_models(acl: Any, paths: list[Path]) -> None:
    """acl.op.load every model file from memory (bytes_to_ptr of its content)."""
    for path in paths:
        data = path.read_bytes()
        ret = acl.op.load(acl.util.bytes_to_ptr(data), len(data))
        if ret != 0:
            raise RuntimeError(f"acl.op.load of {path.name} returned {ret}")


_LOADED: set[int] = set()


@pytest.fixture(scope="session")
def dynamic_models(pytestconfig: pytest.Config, session: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, DynamicModel]]:
    """The dynamic models, compiled and loaded once per process; on the NPU they must be in --model-dir."""
    if pytestconfig.getoption("--backend") == "npu":
        if not pytestconfig.getoption("--model-dir"):
            pytest.skip("dynamic models on the NPU: compile aclcts.drive.dynamic.singleop_json() with ATC into --model-dir")
    elif id(session.acl) not in _LOADED:
        soc = session.acl.get_soc_name() or "Ascend910B1"
        load_models(session.acl, compile_models(tmp_path_factory.mktemp("dynamic-models"), soc))
        _LOADED.add(id(session.acl))
    yield BY_NAME


# the documented steps ---------------------------------------------------------------------------------
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


def model_inputs(model: DynamicModel, runtime: list[np.ndarray]) -> list[np.ndarray]:
    """Every input of the model in IR order: the runtime arrays with the constant inputs filled in."""
    given = iter(runtime)
    return [t.const_array() if t.const is not None else next(given) for t in model.inputs]


def create_attr(acl: Any, res: flow.Resources, attrs: tuple[tuple[str, str, Any], ...]) -> int:
    """acl.op.create_attr with bool, int and list_int attributes set, tracked for release."""
    attr = acl.op.create_attr()
    res.attrs.append(attr)
    setters = {"bool": acl.op.set_attr_bool, "int": acl.op.set_attr_int, "list_int": acl.op.set_attr_list_int}
    for name, kind, value in attrs:
        if kind not in setters:
            raise ValueError(f"attr {name!r}: type {kind!r} is not one of {', '.join(setters)}")
        flow.check(setters[kind](attr, name, list(value) if kind == "list_int" else value),
                   f"acl.op.set_attr_{kind}({name!r})")
    return attr


@dataclass
class Executed:
    """What one execute_v2 of a dynamic model gave: its code, the output dims and sizes read back, the outputs."""

    ret: int
    dims: list[list[int] | None]
    sizes: list[int]
    counts: list[int]
    arrays: list[np.ndarray]


def _put_input(acl: Any, res: flow.Resources, tensor: Tensor, array: np.ndarray, dims: list[int]) -> tuple[int, int]:
    desc = flow.create_desc(res, tensor.dtype, tuple(dims), ND)
    if tensor.const is not None:
        payload = array.tobytes()
        flow.check(acl.set_tensor_const(desc, acl.util.bytes_to_ptr(payload), len(payload)), "acl.set_tensor_const")
        return desc, flow.create_buffer(res, 0, 0)
    ptr = flow.malloc(res, array.nbytes)
    flow.copy_to_device(acl, ptr, array)
    return desc, flow.create_buffer(res, ptr, array.nbytes)


def execute(acl: Any, stream: int, model: DynamicModel, inputs: list[np.ndarray], out_dims: list[list[int]],
            in_dims: list[list[int]] | None = None, out_desc_dims: list[list[int]] | None = None) -> Executed:
    """execute_v2 with exact input descs (or in_dims) and output descs of out_dims (or out_desc_dims), buffers sized
    by out_dims; synchronize, then read the real dims and size back from the output descs and copy that many bytes."""
    with flow.resources(acl) as res:
        attr = create_attr(acl, res, model.attrs)
        shapes = in_dims or [list(a.shape) for a in inputs]
        placed = [_put_input(acl, res, t, a, d) for t, a, d in zip(model.inputs, inputs, shapes)]
        out_descs, out_bufs, pointers = [], [], []
        for tensor, dims, written in zip(model.outputs, out_dims, out_desc_dims or out_dims):
            capacity = int(np.prod(dims, dtype=np.int64)) * numpy_dtype(tensor.dtype).itemsize
            ptr = flow.malloc(res, capacity)
            out_descs.append(flow.create_desc(res, tensor.dtype, tuple(written), ND))
            out_bufs.append(flow.create_buffer(res, ptr, capacity))
            pointers.append(ptr)
        ret = acl.op.execute_v2(model.op, [d for d, _ in placed], [b for _, b in placed], out_descs, out_bufs,
                                attr, stream)
        if ret != 0:
            return Executed(ret, [], [], [], [])
        flow.check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
        dims = [desc_dims(acl, d) for d in out_descs]
        sizes = [acl.get_tensor_desc_size(d) for d in out_descs]
        counts = [acl.get_tensor_desc_element_count(d) for d in out_descs]
        arrays = []
        for tensor, real, size, ptr in zip(model.outputs, dims, sizes, pointers):
            shape = tuple(real or ())
            arrays.append(flow.array_from(flow.copy_to_host(res, ptr, size), tensor.dtype, shape))
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
                attrs: tuple[tuple[str, str, Any], ...] = (),
                in_ranges: list[list[tuple[int, int]] | None] | None = None) -> tuple[int, list[Inferred]]:
    """acl.op.infer_shape with input descs (dtype, dims, host data, name), each -1 input dim given its range,
    and output descs (dtype, name); the code and what get_tensor_desc_* report for every output afterwards."""
    with flow.resources(acl) as res:
        attr = create_attr(acl, res, attrs)
        payloads = [np.ascontiguousarray(array).tobytes() or b"\0" for _, _, array, _ in inputs]
        in_descs, in_bufs = [], []
        for index, ((dtype, dims, _, name), payload) in enumerate(zip(inputs, payloads)):
            desc = flow.create_desc(res, dtype, tuple(dims), ND)
            if name:
                acl.set_tensor_desc_name(desc, name)
            ranges = in_ranges[index] if in_ranges else None
            if ranges:
                flow.check(acl.set_tensor_shape_range(desc, [list(r) for r in ranges]), "acl.set_tensor_shape_range")
            in_descs.append(desc)
            in_bufs.append(flow.create_buffer(res, acl.util.bytes_to_ptr(payload), len(payload)))
        out_descs = []
        for dtype, name in outputs:
            desc = flow.create_desc(res, dtype, (1,), ND)
            if name:
                acl.set_tensor_desc_name(desc, name)
            out_descs.append(desc)
        ret = acl.op.infer_shape(op, in_descs, in_bufs, len(out_descs), out_descs, attr)
        if ret != 0:
            return ret, []
        found = []
        for desc in out_descs:
            dims = desc_dims(acl, desc)
            ranges = {j: dim_range(acl, desc, j) for j, d in enumerate(dims or []) if d == -1}
            found.append(Inferred(acl.get_tensor_desc_type(desc), dims, ranges, acl.get_tensor_desc_size(desc),
                                  acl.get_tensor_desc_element_count(desc)))
        return 0, found


def range_maximum(inferred: Inferred, fallback: tuple[tuple[int, int], ...]) -> list[int]:
    """The documented maximal dims: every -1 replaced by its range max (fallback: the model's range when unbounded)."""
    dims = []
    for j, d in enumerate(inferred.dims or []):
        if d == -1:
            hi = inferred.ranges[j][1]
            d = hi if hi != -1 else fallback[j][1]
        dims.append(d)
    return dims
