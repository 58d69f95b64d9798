"""Dynamic-shape single-op models of the suite (-1 dims with shape_range, and [-2]) and their provisioning."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from aclcts.constants import DataType, Format
from aclcts.dtypes import JSON_TYPE_NAMES, numpy_dtype

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
                 (("concat_dim", "int", 1), ("N", "int", 2))),
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
    from aclcts.atc import compile_singleop

    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "dynamic_ops.json"
    source.write_text(json.dumps(singleop_json(), indent=1), encoding="utf-8")
    result = compile_singleop(str(source), str(folder / "models"), soc)
    if not result.ok:
        raise RuntimeError(f"{source}: compiling the dynamic models failed:\n" + "\n".join(result.errors))
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
            pytest.skip("dynamic models on the NPU: compile aclcts.dynamic.singleop_json() with ATC into --model-dir")
    elif id(session.acl) not in _LOADED:
        soc = session.acl.get_soc_name() or "Ascend910B1"
        load_models(session.acl, compile_models(tmp_path_factory.mktemp("dynamic-models"), soc))
        _LOADED.add(id(session.acl))
    yield BY_NAME
