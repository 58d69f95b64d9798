"""The kernels of the const-folded `*D` ops: the twin's built-in kernel run with the D op's attributes as the int64
inputs the twin takes in their place (what CANN's graph does when it folds the twin's const inputs into attributes)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

#: The key of a constant that goes after every input of the D op (ConcatV2's concat_dim after its dynamic x).
LAST = sys.maxsize

from aclcts.core.constants import Format
from aclcts.core.dtypes import acl_data_type
from aclcts.core.prototypes import prototype
from aclcts.sim.kernels.base import ComputeFn, InferFn, InferredShape, KernelError, TensorInfo
from aclcts.sim.kernels.call import OpCall
from aclcts.sim.kernels.registry import builtin_kernel
from aclcts.sim.kernels.shapes import UNKNOWN_RANK

#: The twin's inputs that a D op's attributes give: twin input index -> its value (int64 unless an array of another
#: dtype), from the D op's call.
Constants = Callable[[OpCall], Mapping[int, Any]]


def _twin_arguments(call: OpCall, twin: str, consts: Constants, drop: tuple[int, ...],
                    fill: Callable[[np.ndarray], Any]) -> tuple[list[Any], dict[str, Any]]:
    """The twin's inputs (the call's, less drop, with fill(constant) at the twin's positions) and attributes (the
    call's that the twin's record names)."""
    kept = [item for i, item in enumerate(call.inputs) if i not in drop]
    for index, value in sorted(consts(call).items()):
        kept.insert(index, fill(value if isinstance(value, np.ndarray) else np.asarray(value, dtype=np.int64)))
    names = {a.name for a in prototype(twin).attrs}
    return kept, {k: v for k, v in call.attrs.items() if k in names}


def _as_info(value: np.ndarray) -> TensorInfo:
    return TensorInfo(acl_data_type(value.dtype), tuple(value.shape), int(Format.ACL_FORMAT_ND))


def _checked(call: OpCall) -> None:
    """The call's inputs against the D op's own record: their number and dtypes."""
    call.require_inputs()
    for index, value in enumerate(call.inputs):
        if isinstance(value, np.ndarray):
            call.require_dtype(index, value.dtype)


def _lifted(shape: tuple[int, ...], rank: int) -> tuple[int, ...]:
    """shape with leading 1s up to rank (an unknown rank stays unknown)."""
    return tuple(shape) if UNKNOWN_RANK in shape else (1,) * (rank - len(shape)) + tuple(shape)


def folded(op_type: str, twin: str, consts: Constants, drop: tuple[int, ...] = (),
           lift: str = "") -> tuple[ComputeFn, InferFn]:
    """op_type's kernel (compute, infer_shape) for builtin(): its record checked, then twin's kernel with consts(call)
    inserted as inputs; the twin's errors are reported under op_type. lift names a list attribute whose length x's
    rank is raised to with leading 1s (TileD's multiples, as CANN's tile_d.py does)."""

    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        _checked(call)
        if lift:
            x = call.input(0)
            call.inputs[0] = x.reshape(_lifted(x.shape, len(call.attr_list_int(lift))))
        twin_inputs, twin_attrs = _twin_arguments(call, twin, consts, drop, lambda value: value)
        try:
            return builtin_kernel(twin).compute(twin_inputs, twin_attrs, outputs)
        except KernelError as exc:
            raise call.fail(f"as {exc}") from None

    def infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        if lift:
            x = call.input(0)
            call.inputs[0] = replace(x, shape=_lifted(tuple(x.shape), len(call.attr_list_int(lift))))
        infos, twin_attrs = _twin_arguments(call, twin, consts, drop, _as_info)
        given = OpCall(op_type, list(values) + [None] * (len(inputs) - len(values)), attrs)
        twin_values, _ = _twin_arguments(given, twin, consts, drop, lambda value: value)
        kernel = builtin_kernel(twin)
        try:
            return kernel.infer_shape(infos, twin_values, twin_attrs)
        except KernelError as exc:
            raise call.fail(f"as {exc}") from None

    return compute, infer
