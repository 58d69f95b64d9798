"""Kernels of the const-folded twins: GatherV2D, Gather, FillD and OneHotD run the kernels of GatherV2, Fill and
OneHot with the D op's attributes as the const inputs (aclcts/sim/kernels/folded.py; Gather's axis is its batch_dims);
RangeD, LinSpaceD, DiagD and DiagPartD compute with their assist input as CANN's TBE implementations do
(ops/built-in/tbe/impl/range_d.py, lin_space_d.py, diag_d.py, diag_part_d.py).

Numerics: RangeD multiplies x by delta and adds start, each step rounded to float32 (int32: the attributes' integer
parts, wrapping); LinSpaceD forms step = (stop - start) / (num - 1) in float32, then assist * step + start; DiagD is one
product in x's type; DiagPartD multiplies in x's type and sums in float32 (int32 through float32, rounded back).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.folded import folded
from aclcts.sim.kernels.matrix_structure import masked_sum, x_and_assist
from aclcts.sim.kernels.numerics import FLOAT32
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import inferred, like_input, numel

builtin("GatherV2D", *folded("GatherV2D", "GatherV2", lambda call: {2: call.attr_int("axis")}))
builtin("Gather", *folded("Gather", "GatherV2", lambda call: {2: call.attr_int("batch_dims")}))
builtin("FillD", *folded("FillD", "Fill", lambda call: {0: call.attr_list_int("dims")}))
builtin("OneHotD", *folded("OneHotD", "OneHot", lambda call: {1: np.array(call.attr_int("depth"), dtype=np.int32)}))

Arrays = list[np.ndarray | None]


def _range_d(inputs: Arrays, attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("RangeD", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    if x.ndim != 1:
        raise call.fail(f"input {call.quoted(0)} {list(x.shape)} must have rank 1")
    start, limit, delta = (call.attr_float(k) for k in ("start", "limit", "delta"))
    if x.dtype.kind == "i":
        start, limit, delta = (float(int(v)) for v in (start, limit, delta))
    if start == limit or delta == 0 or (start > limit and delta > 0) or (start < limit and delta < 0):
        raise call.fail(f"attrs start {start}, limit {limit}, delta {delta}: delta must be non-zero and lead from "
                        "start to limit")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    with np.errstate(all="ignore"):
        step, first = (x.dtype.type(int(v)) if x.dtype.kind == "i" else FLOAT32.type(v) for v in (delta, start))
        return [out.emit(0, x * step + first)]


def _lin_space_d(inputs: Arrays, attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("LinSpaceD", inputs, attrs)
    call.require_inputs()
    assist = call.input(0)
    call.require_dtype(0, assist.dtype)
    call.require_same_dtype([0, 1, 2], [assist.dtype, call.input(1).dtype, call.input(2).dtype])
    call.require_dtype(3, call.input(3).dtype)
    ends = []
    for index in (1, 2):
        if call.input(index).size != 1:
            raise call.fail(f"input {call.quoted(index)} must hold one value, got shape {list(call.input(index).shape)}")
        ends.append(call.input(index).reshape(()))
    num = FLOAT32.type(call.one_value(3, call.input(3)))
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, assist.dtype)
    with np.errstate(all="ignore"):
        step = (ends[1] - ends[0]) / (num - FLOAT32.type(1))
        return [out.emit(0, assist * step + ends[0])]


def _identity_pair(call: OpCall, x: tuple[int, ...], assist: tuple[int, ...]) -> None:
    if len(assist) != 2 * len(x) or tuple(assist[: len(x)]) != tuple(x) or tuple(assist[len(x):]) != tuple(x):
        raise call.fail(f"input {call.quoted(1)} {list(assist)} must be [D1..Dk, D1..Dk] for "
                        f"{call.quoted(0)} {list(x)}")


def _diag_d(inputs: Arrays, attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("DiagD", inputs, attrs)
    x, assist = x_and_assist(call)
    if x.ndim > 4:
        raise call.fail(f"input {call.quoted(0)} {list(x.shape)} must have rank 4 or less")
    _identity_pair(call, x.shape, assist.shape)
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    with np.errstate(all="ignore"):
        return [out.emit(0, np.multiply(x, assist, dtype=x.dtype))]


def _diag_d_infer(inputs: list[TensorInfo], values: Arrays, attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("DiagD", inputs, attrs)
    call.require_inputs()
    _identity_pair(call, tuple(call.input(0).shape), tuple(call.input(1).shape))
    return [inferred(call.input(0).dtype, tuple(call.input(1).shape))]


def _half_of(call: OpCall, shape: tuple[int, ...]) -> tuple[int, ...]:
    half = len(shape) // 2
    if not shape or len(shape) % 2 or tuple(shape[:half]) != tuple(shape[half:]):
        raise call.fail(f"input {call.quoted(0)} {list(shape)} must have an even rank 2k with dims [D1..Dk, D1..Dk]")
    return tuple(shape[:half])


def _diag_part_d(inputs: Arrays, attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("DiagPartD", inputs, attrs)
    x, assist = x_and_assist(call)
    if x.shape != assist.shape:
        raise call.fail(f"input {call.quoted(1)} {list(assist.shape)} must have {call.quoted(0)}'s shape "
                        f"{list(x.shape)}")
    half = _half_of(call, x.shape)
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    n = numel(half)
    with np.errstate(all="ignore"):
        return [out.emit(0, masked_sum(x.reshape(n, n), assist.reshape(n, n), -1).reshape(half))]


def _diag_part_d_infer(inputs: list[TensorInfo], values: Arrays, attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("DiagPartD", inputs, attrs)
    call.require_inputs()
    return [inferred(call.input(0).dtype, _half_of(call, tuple(call.input(0).shape)))]


builtin("RangeD", _range_d, like_input("RangeD"))
builtin("LinSpaceD", _lin_space_d, like_input("LinSpaceD"))
builtin("DiagD", _diag_d, _diag_d_infer)
builtin("DiagPartD", _diag_part_d, _diag_part_d_infer)
